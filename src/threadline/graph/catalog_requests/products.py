"""The products and specs a message names.

A brand or a product line, one product by a word of its name, the specs asked of it.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from threadline.graph.catalog_requests.wording import PHONE_AS_CHANNEL, folded_message
from threadline.text import STOPWORDS, fold
from threadline.text.lexicons import en
from threadline.text.matching import is_dictionary_word, one_edit

# A name written against a category word: "Huawei phones", "des téléphones Huawei".
_NAMED_CATEGORY = re.compile(
    r"\b(?P<before>[A-Z][\w-]+)\s+(?:phones?|smartphones?|laptops?|notebooks?)\b|"
    r"\b(?:t[ée]l[ée]phones?|smartphones?|ordinateurs?(?: portables?)?|laptops?)\s+"
    r"(?P<after>[A-Z][\w-]+)\b"
)


def unknown_brand(question: str, known_words: Sequence[str]) -> str | None:
    """Return a brand a catalog question names that no product has, or None.

    "Do you have any Huawei phones?" listed every phone, the unknown brand read as no
    filter: the catalog has no Huawei, which is the answer. A word any product's name
    holds ("Galaxy phones", "Pixel phones") is a product line, not an unknown brand.
    """
    known = {fold(w) for w in known_words}
    for match in _NAMED_CATEGORY.finditer(question):
        name = match["before"] or match["after"]
        if fold(name) not in known and fold(name) not in STOPWORDS and match.start() > 0:
            return name
    for match in _TYPED_BEFORE_CATEGORY.finditer(question):
        # "any huawei phones": typed in lower case, a word no dictionary holds before a
        # category word is a name too ("cheap phones", "android phones" are words), unless
        # it is a known one mistyped ("samsumg").
        name = match["before"]
        if (
            name not in known
            # The dictionary holds no function or number words: "list the laptops", "show
            # me three phones" name no brand.
            and name not in STOPWORDS
            and name not in _NUMBER_WORDS
            and not is_dictionary_word(name)
            and not any(one_edit(name, word) for word in known)
        ):
            return name
    return None


_NUMBER_WORDS = frozenset(en.FOLLOWUPS.cardinal_words or {})

# A word typed in lower case before a category word: "huawei phones".
_TYPED_BEFORE_CATEGORY = re.compile(
    r"(?<=\s)(?P<before>[a-z]{3,})\s+(?:phones?|smartphones?|laptops?|notebooks?)\b"
)


def product_line(question: str, brands: Sequence[str], names: Sequence[str]) -> str | None:
    """Return the product line a catalog question names, or None.

    "Do you sell Galaxy phones?" listed every phone: "Galaxy" is no brand, but a word of
    some products' names written against a category word, a line of products that
    filters the list ("Samsung Galaxy A55 5G", "Samsung Galaxy S24").
    """
    brand_words = {fold(b) for b in brands}
    name_words = {w for name in names for w in fold(name).split()}
    for match in _NAMED_CATEGORY.finditer(question):
        name = fold(match["before"] or match["after"])
        if name in name_words and name not in brand_words and name not in STOPWORDS:
            return match["before"] or match["after"]
    return None


# What the catalog states of every product (its specs, its price and its warranty): each
# spec word and the catalog keys it names (a battery is in hours for a laptop, in
# mAh for a phone: the product's own says which). "How much" asks a price unless it asks
# for another spec ("how much RAM").
_SPEC_KEYS: list[tuple[str, tuple[str, ...]]] = [
    (r"price|cost|costs|prix|coute|coutent", ("price_usd",)),
    (r"weigh\w*|weight|poids|pese|pesent", ("weight_kg",)),
    (r"battery|autonomie|batterie", ("battery_hours", "battery_mah")),
    (r"ram|memory|memoire", ("ram_gb",)),
    (r"storage|stockage", ("storage_gb",)),
    (r"screen|display|ecran", ("display",)),
    (r"camera|appareil photo", ("camera_mp",)),
    (r"processor|processeur|cpu", ("cpu",)),
    (r"operating system", ("os",)),
    (r"warranty|garantie", ("warranty_years",)),
    # A count asked in a spec's unit names that spec: "how many hours?" is a laptop's
    # battery life, « combien de kilos ? » a weight ("hours" alone may be support's).
    (r"how many hours|combien d'heures", ("battery_hours",)),
    (r"how many mah|combien de mah", ("battery_mah",)),
    (r"how many (?:kilos|kilograms|kg)|combien de (?:kilos|kg)", ("weight_kg",)),
    (r"how many inches|combien de pouces", ("display",)),
    (r"how many megapixels|combien de megapixels", ("camera_mp",)),
]


def asked_specs(question: str) -> list[str]:
    """Return the catalog keys of the specs a message asks about, in the catalog's terms."""
    text = folded_message(question)
    keys = [k for pattern, found in _SPEC_KEYS if re.search(rf"\b(?:{pattern})\b", text)
            for k in found]  # fmt: skip
    if not keys and re.search(r"\bhow much\b", text) or _PRICE_OF_IT.search(text):
        # "how much is it and how much does it weigh?": the first part asks the price.
        keys = ["price_usd", *keys]
    return list(dict.fromkeys(keys))


def without_spec_words(text: str) -> str:
    """Return a folded message without the words naming a spec the catalog states."""
    for pattern, _ in _SPEC_KEYS:
        text = re.sub(rf"\b(?:{pattern})\b", " ", text)
    return text


# "how much is it", "how much are they": a price asked of the thing, whatever else is.
_PRICE_OF_IT = re.compile(r"\bhow much (?:is|are) (?:it|they|this|that|the \w+)\b")


def spec_words(question: str) -> int:
    """How many of the catalog's kinds of spec a message asks ("price and weight" → 2)."""
    keys = asked_specs(question)
    # A battery is one spec whichever unit the product states it in.
    return len({"battery" if k.startswith("battery") else k for k in keys})


def named_product(question: str, names: Sequence[str]) -> str | None:
    """Return the one catalog product a message names, by a word only its name has.

    "price and weight of the XPS 13?" names the Dell XPS 13 (9340) ("xps" is in no other
    name); "the lenovo thinkpad" the ThinkPad. A word several names share ("Galaxy",
    "13") names none of them, and a model number no name has ("Galaxy S25") names no
    product at all. Two products named, or none: None.
    """
    words = set(re.findall(r"[\w.]+", folded_message(question)))
    name_words = {n: set(re.findall(r"[\w.]+", fold(n))) for n in names}
    counts: dict[str, int] = {}
    for found in name_words.values():
        for word in found:
            counts[word] = counts.get(word, 0) + 1
    if any(any(c.isdigit() for c in w) and counts.get(w, 0) == 0 and not w.isdigit()
           for w in words):  # fmt: skip
        return None
    named = [
        n
        for n, found in name_words.items()
        if any(
            counts[w] == 1 and not w.isdigit() and (len(w) > 2 or any(c.isdigit() for c in w))
            for w in found & words
        )
    ]
    return named[0] if len(named) == 1 else None


def _a_name_word_alone(word: str) -> bool:
    """Whether a word typed alone names a product when a catalog name writes it: no English word."""
    return len(word) > 2 and word.isalpha() and not is_dictionary_word(word)


def with_catalog_capitals(question: str, names: Sequence[str], *, lone_words: bool = False) -> str:
    """Return a question with the catalog names it types in lower case written as named.

    "is the pixel 8 pro waterproof" types the Google Pixel 8 Pro's name in lower case:
    still that product, so words typed in a row as a catalog name writes them ("pixel
    8 pro", two words at least) take the name's capitals ("Pixel 8 Pro"), and what reads
    names from capitals reads this one. A name's word alone ("battery power", "the
    pixel") and words already capitalised are left as typed; with `lone_words` (an
    ellipsis, whose phrase is what it names: "and on the nokia?"), a name's word alone
    that is no English word takes its capitals too ("Nokia").
    """
    words = list(re.finditer(r"[\w.]+", question))
    folded = [fold(w.group()) for w in words]
    spelled = [[(fold(w), w) for w in re.findall(r"[\w.]+", name)] for name in names]
    spelling: dict[int, str] = {}
    for i in range(len(words)):
        for name in spelled:
            for k in range(len(name)):
                run = 0
                while (
                    i + run < len(words)
                    and k + run < len(name)
                    and folded[i + run] == name[k + run][0]
                ):
                    run += 1
                if run >= 2:
                    spelling.update({i + r: name[k + r][1] for r in range(run)})
                elif run == 1 and lone_words and _a_name_word_alone(words[i].group()):
                    spelling.setdefault(i, name[k][1])
    written = question
    for i in sorted(spelling, reverse=True):
        word = words[i].group()
        if word.islower():
            start, end = words[i].span()
            written = written[:start] + spelling[i] + written[end:]
    return written


# The product under discussion, as the subject or owner of what is asked: "does it
# have...", "what is its weight?", "a-t-il...", "son poids", "combien coûte-t-il ?"; a
# demonstrative one stands for it too: "and for that one, what's the warranty?",
# « et pour celui-ci ? ».
_IT = re.compile(
    r"\b(?:it|its|il|elle|son|sa|ses|(?:that|this) one|cel(?:ui|le)-(?:ci|la))(?![\w-])"
)


# "And the battery life?", "Et l'autonomie ?", "What about the price?": a spec alone
# after a connective, what was asked before now asked of the same product.
_SPEC_ALONE = re.compile(
    # "what's the battery capacity?", "quel est le poids ?": a spec asked with "the" and
    # nothing else is the spec of what is being discussed, as "and the battery?" is;
    # so is an amount of it ("how much RAM?", "combien de stockage ?").
    r"^(?:(?:and|et|what about|how about|and what about|et pour|quid de|"
    r"what(?:'s| is| are)|(?:quel|quelle|quels|quelles) (?:est|sont)|"
    # "how long is the warranty?": the length of a spec that is one (a warranty's years).
    r"how long(?:'s| is| are)|"
    r"how much|how many|combien de)\s+|combien d')"
    r"(?:(?:the|le|la|les|l'|its|son|sa|ses)\s*)?(?P<rest>[\w' -]+?)\s*[?.!]*$"
)


def asks_a_spec_of_it(question: str, brands: Sequence[str] = ()) -> bool:
    """Whether a message asks for a spec of the product under discussion, unnamed.

    "How much RAM does it have?", "Et son poids ?", "and for that one, what's the
    warranty?": a spec word and a pronoun, or "And the battery life?", "what's the
    battery capacity?", "how long is the warranty?": a spec word alone after a
    connective, "what is the" or "how long is the" (at most three words);
    and no brand (a message naming one is about that brand's product).
    """
    text = PHONE_AS_CHANNEL.sub(" ", folded_message(question)).strip()
    if any(re.search(rf"\b{re.escape(fold(b))}\b", text) for b in brands):
        return False
    if not asked_specs(text):
        return False
    alone = _SPEC_ALONE.match(text)
    return bool(_IT.search(text) or (alone and len(alone["rest"].split()) <= 3))


# One thing, unnamed, as what is asked of: "does it have 5G?", "is it waterproof?", "its
# screen", "a-t-il la 5G ?", "son écran" ("is it possible to...", "how long does it
# take...", "faut-il" speak of no product).
_ONE_THING = re.compile(
    r"\bits\b|\b(?:does|did|can|could|will|would|has|is) it\b(?! (?:possible|true|ok|okay|"
    r"necessary|required|normal|too late|take|takes|mean|cost to ship))"
    r"|\b(?:son|sa|ses)\b|\b(?:a|est|peut|fait|supporte|prend|possede|gere)-(?:t-)?(?:il|elle)\b"
    r"|\best-ce qu'(?:il|elle)\b"
)


def asks_of_one_unnamed(question: str, brands: Sequence[str] = ()) -> bool:
    """Whether a message asks something of one product it does not name ("does it have 5G?").

    After a list that ranks nothing, "it" is any of the products listed: which one is
    the user's to say. A message naming a brand names its product.
    """
    text = PHONE_AS_CHANNEL.sub(" ", folded_message(question))
    if any(re.search(rf"\b{re.escape(fold(b))}\b", text) for b in brands):
        return False
    return _ONE_THING.search(text) is not None
