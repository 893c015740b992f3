"""Whether a text shows anything: a question of only invisible characters is blank.

Whitespace is not the only text that shows nothing: Unicode's format characters
(category Cf: zero-width spaces and joiners, direction marks and overrides, the byte
order mark, tag characters) have no glyph either. A message of only those was taken
for a question and answered with the documents "closest" to nothing.
"""

from __future__ import annotations

import unicodedata


def is_blank(text: str) -> bool:
    """Return True when every character of `text` is whitespace or invisible (Cf)."""
    return all(ch.isspace() or unicodedata.category(ch) == "Cf" for ch in text)
