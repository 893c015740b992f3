"""Ids the store must refuse: path tricks, look-alikes, control characters, bad lengths."""

BAD_IDS = [
    "../x",
    "a/b",
    "..",
    "a..b",
    "a\x00b",
    "\u00e9",
    "caf\u00e9",
    "a\uff0fb",  # fullwidth solidus look-alike
    "x" * 200,
    "",
    "a\\b",
    ".hidden",
    "-a",
    "a b",
    "a\n",  # "$" in a regex would accept this
]
