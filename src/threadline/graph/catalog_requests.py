"""Catalog requests: a message read as a typed call to one catalog tool, without an LLM.

A list ("what phones under $500?"), a ranking ("the lightest laptop", "laptops under
1.3 kg"), a comparison, and the follow-ups on a list just shown ("the second one",
"which one is lighter?", "compare the first two"). Each row of the grammar pairs the
English and French phrasings of one category, bound or spec, read together. The router
(`threadline.graph.routing`) asks these first: a tool request comes before any other
route.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from threadline.graph.question_terms import asks_of_the_subject
from threadline.text import STOPWORDS, fold
from threadline.text.lexicons import fr
from threadline.text.matching import is_dictionary_word, one_edit

# French shorthand writes "plus" and "moins" as a lone "+" and "-": "le laptop le + léger",
# "+ de 16 Go de RAM", "un tel - cher que le Pixel". Read as the words after a definite
# article (a superlative) or before "de" or a word and "que" (a bound, a comparison).
_SIGN_FOR_WORD = re.compile(
    r"(?:(?<=\ble )|(?<=\bla )|(?<=\bles ))[+-](?=\s+[a-z])"
    r"|(?<![\w$+-])[+-](?=\s+(?:de\b|d'|[a-z]+\s+qu(?:e\b|')))"
)


# "le tel le moins cher": a clipped noun after a determiner (`fr.CLIPPED_NOUNS`).
_CLIPPED_NOUN = re.compile(
    rf"\b({'|'.join(sorted(fr.NOUN_DETERMINERS))}) ({'|'.join(fr.CLIPPED_NOUNS)})\b"
)


def _folded(text: str) -> str:
    """Return the text folded, with French shorthand read as the words it stands for.

    A lone "+" or "-" is "plus" or "moins" (`_SIGN_FOR_WORD`); a clipped noun after a
    determiner is its word ("son tel" is a téléphone).
    """
    folded = _SIGN_FOR_WORD.sub(lambda m: "plus" if m[0] == "+" else "moins", fold(text))
    return _CLIPPED_NOUN.sub(lambda m: " ".join((m[1], *fr.CLIPPED_NOUNS[m[2]])), folded)


# A phone as a way to reach someone ("their phone number", "par téléphone") asks about
# no product: those phrases are taken out before the category is read.
_PHONE_AS_CHANNEL = re.compile(
    r"\b(?:phone|telephone)\s+(?:numbers?|lines?|support|calls?|contacts?)\b"
    r"|\b(?:by|via|over the|on the|par|au)\s+(?:phone|telephone)\b"
    r"|\b(?:numeros?|lignes?|appels?)\s+(?:de\s+)?telephon\w*"
)
CATEGORY_WORDS = {
    "phone": r"\b(phones?|smartphones?|mobiles?|telephones?|portables? 5g)\b",
    # A computer is a laptop: the catalog sells no other kind ("l'ordinateur le plus léger").
    # "Un portable" alone is one too, as the lexicon reads it ("les portables les moins
    # chers"); a 5G one is a phone (read first).
    "laptop": r"\b(laptops?|notebooks?|ordinateurs?(?: portables?)?|pc portables?|portables?|"
    r"ultrabooks?|computers?)\b",
}
_MAX_PRICE = re.compile(
    r"\b(under|below|less than|cheaper than|up to|max(imum)?|at most|moins de|sous|"
    r"jusqu'a|au plus|inferieur a|pas plus de|(?:en|au)[- ]dessous de)"
    r"\s*\$?\s*(\d[\d,. ]*)\s*(\$|usd|dollars?|eur|€)?"
)
_MIN_PRICE = re.compile(
    r"\b(over|above|more than|at least|from|plus de|au moins|a partir de|superieur a|"
    r"(?:en|au)[- ]dessus de)\s*"
    r"\$?\s*(\d[\d,. ]*)\s*(\$|usd|dollars?|eur|€)?"
)
_BETWEEN = re.compile(r"\b(between|entre)\s*\$?\s*(\d[\d,]*)\s*(and|et|-)\s*\$?\s*(\d[\d,]*)")
# A bound on a spec: "weigh less than 1.3 kg", "plus de 16 Go de RAM", "over 5000 mAh".
# The unit says which spec; a number with a unit is no price bound.
_SPEC_UNITS: list[tuple[str, str]] = [
    (r"kg|kilos?|kilograms?", "weight_kg"),
    (r"mah", "battery_mah"),
    (r"(?:hours?|h|heures?) (?:of battery|d'autonomie|de batterie)", "battery_hours"),
    (r"(?:gb|go) (?:of )?(?:ram|memory|de ram|de memoire)", "ram_gb"),
    (r"(?:gb|go|tb|to)(?: (?:of )?(?:storage|de stockage))?", "storage_gb"),
    (r"(?:inch(?:es)?|\"|pouces?)", "display"),
    (r"(?:mp|megapixels?)", "camera_mp"),
]
_BOUND_BELOW = (
    r"under|below|less than|lighter than|at most|up to|moins de|sous|au plus|jusqu'a|"
    r"(?:en|au)[- ]dessous de"
)
_BOUND_ABOVE = r"over|above|more than|at least|plus de|au moins|(?:en|au)[- ]dessus de"
_BOUND_INCLUSIVE = r"at most|up to|au plus|jusqu'a|at least|au moins"
_SPEC_BOUND = re.compile(
    rf"\b(?P<dir>{_BOUND_BELOW}|{_BOUND_ABOVE})\s*(?P<value>\d+(?:[.,]\d+)?)\s*"
    rf"(?P<unit>{'|'.join(f'(?:{unit})' for unit, _ in _SPEC_UNITS)})(?![\w])"
)
# A spec value itself: "laptops with 16 GB of RAM", "ont 16 Go de RAM", "a 1 TB SSD".
_SPEC_VALUE = re.compile(
    rf"(?<![\d.,])(?P<value>\d+(?:[.,]\d+)?)\s*"
    rf"(?P<unit>{'|'.join(f'(?:{unit})' for unit, _ in _SPEC_UNITS)})(?![\w])"
)
# A range of a spec: "from 8 to 16 GB of RAM", "entre 1 et 1,3 kg".
_SPEC_RANGE = re.compile(
    r"\b(?:from|between|entre|de)\s*(?P<low>\d+(?:[.,]\d+)?)\s*[a-z]*\s*(?:to|and|et|a|-)\s*"
    r"(?=\d+(?:[.,]\d+)?\s*[a-z\"])"
)
_COMPARE = re.compile(
    r"\b(compare[rz]?|comparison|comparatif|versus|vs\.?)\b|\bdifferences? between\b"
)
# What asks for a comparison around the names compared: "how does X compare to Y?",
# "what's the difference between X and Y?", "what's the price difference between X and
# Y?" (the word before "difference" says what is compared, no part of a name).
_COMPARE_WORDING = re.compile(
    r"^(?:how\s+(?:does|do|did|would)\s+|what(?:'s|s|\s+is|\s+are)\s+the\s+(?:\w+\s+)?"
    r"differences?\s+between\s+|(?:the\s+)?(?:\w+\s+)?differences?\s+between\s+)|"
    r"\s+compares?$"
)
# A listing question asks which products: its cue word governs the category ("what 5G
# phones", "quels sont les portables"); "what should I do if I lose my laptop?" asks
# about a laptop, not for a list of them. Asking what is on sale needs no such order.
_LIST_CUE = r"\b(?:what|which|list|show|any|quels?|quelles?|liste|montre)\b"
_ON_SALE = re.compile(r"\b(do you (have|sell)|avez-vous|vendez-vous)\b")


def _asks_for_a_list(text: str, category: str) -> bool:
    """Whether a folded question asks for a list of the category's products."""
    governed = rf"{_LIST_CUE}(?:\s+[\w'-]+){{0,3}}?\s+{CATEGORY_WORDS[category]}"
    return bool(_ON_SALE.search(text) or re.search(governed, text))


# Superlatives: (pattern, spec, order). Battery and screen pick the spec the category has.
SUPERLATIVES: list[tuple[str, str, str]] = [
    (r"\b(lightest|least heavy|plus legers?|plus legeres?)\b", "weight_kg", "asc"),
    (r"\b(heaviest|plus lourds?|plus lourdes?)\b", "weight_kg", "desc"),
    (r"\b(cheapest|least expensive|lowest price|moins chers?|moins cheres?)\b", "price_usd", "asc"),
    (r"\b(most expensive|priciest|highest price|plus chers?|plus cheres?)\b", "price_usd", "desc"),
    (
        r"\b(longest|best|biggest|largest) battery|\bbattery (life )?(lasts? )?(the )?longest\b|"
        r"\bmeilleure autonomie\b|\bplus grande (batterie|autonomie)\b",
        "battery",
        "desc",
    ),
    (r"\b(biggest|largest) (screen|display)|\bplus grand ecran\b", "display", "desc"),
    (r"\b(smallest|most compact) (screen|display|phone)|\bplus petit ecran\b", "display", "asc"),
    (r"\b(most|largest|biggest) storage|\bplus de stockage\b", "storage_gb", "desc"),
    (r"\b(most) (ram|memory)|\bplus de (ram|memoire)\b", "ram_gb", "desc"),
    (
        r"\b(best|highest resolution) camera|\bmost megapixels\b|\bmeilleur appareil photo\b",
        "camera_mp",
        "desc",
    ),
    (r"\b(newest|latest|most recent|plus recents?)\b", "release_year", "desc"),
    (r"\blongest warranty|\bplus longue garantie\b", "warranty_years", "desc"),
]
# Comparatives: (pattern, spec, order), read with the superlatives above only between the
# products the previous answer listed ("which one is lighter?" after a comparison).
COMPARATIVES: list[tuple[str, str, str]] = [
    (r"\b(lighter|less heavy|moins lourde?s?)\b", "weight_kg", "asc"),
    (r"\bheavier\b", "weight_kg", "desc"),
    (r"\b(cheaper|less expensive)\b", "price_usd", "asc"),
    (r"\b(more expensive|pricier)\b", "price_usd", "desc"),
    (
        r"\b(longer|better|bigger|larger) battery|\blasts? longer\b|\bplus d'autonomie\b|"
        r"\btient plus longtemps\b",
        "battery",
        "desc",
    ),
    (r"\b(bigger|larger) (screen|display)", "display", "desc"),
    (r"\bsmaller (screen|display)", "display", "asc"),
    (r"\bmore storage\b", "storage_gb", "desc"),
    (r"\bmore (ram|memory)\b", "ram_gb", "desc"),
    (r"\b(better|higher resolution) camera|\bmeilleur appareil photo\b", "camera_mp", "desc"),
    (r"\b(newer|more recent)\b", "release_year", "desc"),
    (r"\blonger warranty\b", "warranty_years", "desc"),
]
# Any spec with any direction, read after the phrasings above: "the least RAM", "the
# smallest battery", "more storage", "a bigger battery". Each spec the catalog states is a
# noun; the adjective before it says which way to rank (English; the fixed patterns above
# hold the French ones).
_SPEC_NOUNS = {
    "ram_gb": r"ram|memory",
    "storage_gb": r"storage",
    "battery": r"battery(?: life| capacity)?|batteries",
    "display": r"screens?|displays?",
    "camera_mp": r"cameras?|megapixels",
    "warranty_years": r"warrant(?:y|ies)",
    "price_usd": r"prices?",
    "weight_kg": r"weight",
}
_DIRECTIONS = {
    "superlative": {
        "desc": r"most|largest|biggest|highest|longest|greatest|best",
        "asc": r"least|fewest|smallest|lowest|shortest|worst",
    },
    "comparative": {
        "desc": r"more|larger|bigger|higher|longer|greater|better",
        "asc": r"less|fewer|smaller|lower|shorter|worse",
    },
}


def _any_spec(degree: str) -> list[tuple[str, str, str]]:
    return [
        (rf"\b(?:{words})\s+(?:amount of\s+)?(?:{nouns})\b", spec, order)
        for order, words in _DIRECTIONS[degree].items()
        for spec, nouns in _SPEC_NOUNS.items()
    ]


SUPERLATIVES += _any_spec("superlative")
COMPARATIVES += _any_spec("comparative")
# A superlative the catalog has no spec for ("le smartphone le plus vendu", "the most
# popular laptop", "best-selling"): a question for the documents, not a list.
_OTHER_SUPERLATIVE = re.compile(
    r"\b(?:le|la|les) (?:plus|moins) \w+|\bthe (?:most|least) \w+|\bbest[- ]sell\w*|"
    r"\bmost popular\b|\b(?:plus|moins) (?:vendue?s?|populaires?)\b"
)
_ORDINALS = {
    "first": 1, "1st": 1, "premier": 1, "premiere": 1, "1er": 1, "1re": 1,
    "second": 2, "2nd": 2, "deuxieme": 2, "seconde": 2, "2e": 2, "2eme": 2,
    "third": 3, "3rd": 3, "troisieme": 3, "3e": 3, "3eme": 3,
    "fourth": 4, "4th": 4, "quatrieme": 4, "4e": 4, "4eme": 4,
    "fifth": 5, "5th": 5, "cinquieme": 5, "5e": 5, "5eme": 5,
    "sixth": 6, "6th": 6, "sixieme": 6, "6e": 6,
    "seventh": 7, "7th": 7, "septieme": 7, "7e": 7,
    "last": -1, "dernier": -1, "derniere": -1,
}  # fmt: skip
_ORDINAL_REF = re.compile(  # "du", "au": de le, à le ("l'autonomie du deuxième")
    r"\b(?:the|le|la|l'|du|au)\s*(" + "|".join(_ORDINALS) + r")\b(?:\s+(?:one|phone|laptop|"
    r"product|item|model|un|une|telephone|portable|produit|modele))?"
)
_PRICE_REF = re.compile(
    r"\b(?:the one|celui|celle|the)\s+(?:at|for|a|de|priced at)\s*\$?\s*(\d[\d,]*)"
    r"\s*(?:\$|usd|dollars?)?"
    r"|\b(?:the )?\$(\d[\d,]*) one\b"
)


def without_product_reference(question: str) -> str:
    """Return a message without its words pointing at a listed product.

    "does the first one support wireless charging?" → "does support wireless charging?":
    what is asked of the product, without "the first one" (no word a product's entry holds).
    """
    text = _folded(question)
    for pattern in (_ORDINAL_REF, _PRICE_REF):
        text = pattern.sub(" ", text)
    return re.sub(r"\s+", " ", text).strip()


def without_kind_words(text: str) -> str:
    """Return a message without the words naming a kind of product the catalog sells.

    "do you sell smartphones?" answered by the phones the catalog lists: every row is a
    phone, which is what "smartphones" asks; no row need write the word ("Nokia phone").
    """
    for pattern in CATEGORY_WORDS.values():
        text = re.sub(pattern, " ", text)
    return re.sub(r"\s+", " ", text).strip()


@dataclass(frozen=True)
class ToolRequest:
    """A typed call to one catalog tool."""

    name: str
    args: dict[str, Any] = field(default_factory=dict)


def _price(raw: str) -> float:
    return float(raw.replace(",", "").replace(" ", "").rstrip("."))


def _spec_values(text: str) -> list[tuple[str, float]]:
    """Return the specs and values a folded question states with units ("16 go de ram").

    "to" alone is the English word more often than French terabytes: it needs "de
    stockage" to be a unit here.
    """
    found = []
    for match in _SPEC_VALUE.finditer(text):
        unit = match["unit"]
        if unit in ("to", "h"):
            continue
        spec = next(spec for pattern, spec in _SPEC_UNITS if re.fullmatch(pattern, unit))
        value = float(match["value"].replace(",", "."))
        if unit.startswith(("tb", "to")):
            value *= 1024  # storage is in GB, a terabyte 1024 of them ("storage_gb": 1024)
        found.append((spec, value))
    return found


def parse_catalog_request(question: str, brands: Sequence[str]) -> ToolRequest | None:
    """Turn a catalog question into a typed tool call, or None if it is not one.

    It needs a product category or a known brand, plus a price constraint, a
    listing cue or a comparison; anything else is a document question.
    """
    text = _PHONE_AS_CHANNEL.sub(" ", _folded(question))
    category = next((c for c, p in CATEGORY_WORDS.items() if re.search(p, text)), None)
    brand = next((b for b in brands if re.search(rf"\b{re.escape(fold(b))}\b", text)), None)
    # "which phones run android 14?", "the cheapest phone running Android 13": the list
    # and the ranking both keep only the products running the system named.
    system = _OPERATING_SYSTEM.search(text)
    running = {"os": " ".join(w for w in system.groups() if w)} if system else {}
    if category and (bound := _SPEC_BOUND.search(text)):
        spec = next(spec for unit, spec in _SPEC_UNITS if re.fullmatch(unit, bound["unit"]))
        value = float(bound["value"].replace(",", "."))
        if bound["unit"] in ("tb", "to"):
            value *= 1000  # storage is in GB
        below = re.fullmatch(_BOUND_BELOW, bound["dir"]) is not None
        bounded: dict[str, Any] = {"spec": spec, "order": "asc" if below else "desc"}
        bounded |= {"category": category, "max_value" if below else "min_value": value}
        if not re.fullmatch(_BOUND_INCLUSIVE, bound["dir"]):
            bounded["exclusive"] = True  # "more than 5000 mAh" is not 5000 mAh
        return ToolRequest("rank_products", {**bounded, **running, "limit": 10})
    if category and (stated := _spec_values(text)):
        # "Which laptops have 16 GB of RAM?" lists those with 16 GB, not every laptop;
        # "from 8 to 16 GB", "512 GB to 1 TB" those within the range.
        spec, value = stated[0]
        values = [v for s, v in stated if s == spec]
        low, high = min(values), max(values)
        if len(values) == 1 and (span := _SPEC_RANGE.search(text)):
            low = min(low, float(span["low"].replace(",", ".")))
        exact = {"spec": spec, "order": "asc", "category": category}
        return ToolRequest(
            "rank_products",
            exact | running | {"min_value": low, "max_value": high, "limit": 10},
        )
    for pattern, spec, order in SUPERLATIVES:
        if category and re.search(pattern, text):
            if spec == "battery":
                spec = "battery_hours" if category == "laptop" else "battery_mah"
            if spec == "weight_kg" and category != "laptop":
                continue  # the catalog weighs laptops only; a phone question goes to documents
            ranked = {"spec": spec, "order": order, "category": category}
            return ToolRequest("rank_products", ranked | running)
    if _OTHER_SUPERLATIVE.search(text):
        return None  # the superlatives the catalog can rank were all tried above
    if _COMPARE.search(text):
        names = [
            n.strip(" ?.!")
            for n in re.split(r"\b(?:and|et|with|avec|vs\.?|versus|to|a)\b|,", text)
            if n.strip(" ?.!")
        ]
        names = [_COMPARE_WORDING.sub("", n.strip()).strip() for n in names]
        names = [re.sub(r"^(compare[rz]?|the|le|la|les)\s+", "", n).strip() for n in names]
        names = [n for n in names if n]
        if len(names) >= 2:
            return ToolRequest("compare_products", {"names": names[:4]})
    if category is None and brand is None:
        return None
    args: dict[str, Any] = {}
    if category:
        args["category"] = category
    if brand:
        args["brand"] = brand
    args |= running
    if m := _BETWEEN.search(text):
        args["min_price"], args["max_price"] = _price(m.group(2)), _price(m.group(4))
    else:
        if m := _MAX_PRICE.search(text):
            args["max_price"] = _price(m.group(3))
        if m := _MIN_PRICE.search(text):
            args["min_price"] = _price(m.group(2))
    has_price = "max_price" in args or "min_price" in args or "os" in args
    if not has_price and not (category and _asks_for_a_list(text, category)):
        return None
    return ToolRequest("search_products", args)


# An operating system a product runs, with its version and edition when given: "android
# 14", "ios", "windows 11 pro".
_OPERATING_SYSTEM = re.compile(r"\b(android|ios|windows|macos)(?:\s+(\d+)(?:\s+(home|pro)\b)?)?\b")


# A name written against a category word: "Huawei phones", "des téléphones Huawei".
_NAMED_CATEGORY = re.compile(
    r"\b(?P<before>[A-Z][\w-]+)\s+(?:phones?|smartphones?|laptops?|notebooks?)\b|"
    r"\b(?:t[ée]l[ée]phones?|smartphones?|ordinateurs?(?: portables?)?|laptops?)\s+"
    r"(?P<after>[A-Z][\w-]+)\b"
)


# "than" of a comparison: "cheaper than the Galaxy S24", "moins cher que le Galaxy S24".
# Not the "que" of "est-ce que", which opens the question.
_THAN = re.compile(r"\b(?:than|(?<!est-ce )que|(?<!est-ce )qu')\s*")


def compared_to_it(question: str, category: str | None) -> tuple[dict[str, str], str] | None:
    """Read "is it cheaper than X?": the spec and order compared, and what X is, or None.

    "Est-il moins cher que le Galaxy S24 ?" after the OnePlus 12 compares the two on
    price: declined before, as no passage says "moins cher". The caller finds X in the
    catalog and ranks the product discussed with it.
    """
    text = _folded(question)
    than = _THAN.search(text)
    if than is None:
        return None
    before = text[: than.start()]
    for pattern, spec, order in [*COMPARATIVES, *SUPERLATIVES]:
        if re.search(pattern, before):
            if spec == "battery" and category is not None:
                # With no category known, "battery" stays for the caller to read from
                # the products compared (hours for a laptop, mAh for a phone).
                spec = "battery_hours" if category == "laptop" else "battery_mah"
            other = text[than.end() :].strip(" ?!.")
            return ({"spec": spec, "order": order}, other) if other else None
    return None


# "moins cher que": a price compared in French (read before the list of comparatives,
# where "le moins cher" is a superlative).
_PRICE_COMPARED_FR = re.compile(r"\b(?:moins|plus) cher(?:e|s|es)? qu")


def compares_on_a_spec(question: str) -> bool:
    """Whether a message compares things on a spec the catalog holds ("cheaper than")."""
    text = _folded(question)
    if _PRICE_COMPARED_FR.search(text):
        # "Est-ce que le Galaxy S24 est moins cher que le Pixel 8a ?" (a yes/no question
        # since "est-ce que" reads as one): the two rows ranked on price answer it.
        return True
    than = _THAN.search(text)
    return than is not None and any(
        re.search(pattern, text[: than.start()]) for pattern, _, _ in COMPARATIVES
    )


# What opens "is X heavier than Y?" before X: the auxiliary, then an article.
_COMPARED_OPENING = re.compile(
    r"^\W*(?:(?:so|and|et|alors)\s+)?(?:is|are|was|does|do|est-ce que|est-ce qu'|est)\s+"
    r"(?:(?:the|le|la|les)\s+|l')?"
)


def compared_pair(question: str, category: str | None) -> tuple[dict[str, str], str, str] | None:
    """Read "is X heavier than Y?": the spec and order compared, what X is and what Y is.

    "Is the MacBook Air heavier than the Dell XPS 13?" names both things compared: the
    caller finds them in the catalog and ranks them on the spec (it was declined, no
    passage saying "heavier").
    """
    compared = compared_to_it(question, category)
    if compared is None:
        return _compared_alternatives(question)
    spec, other = compared
    text = _folded(question)
    before = text[: _THAN.search(text).start()]  # type: ignore[union-attr]
    opening = _COMPARED_OPENING.match(before)
    if opening is None:
        return None
    for pattern, _, _ in [*COMPARATIVES, *SUPERLATIVES]:
        found = re.search(pattern, before)
        if found is not None:
            first = before[opening.end() : found.start()]
            # "Does the Nokia G42 have a bigger battery than...": the verb and its article
            # end the first thing's name.
            first = re.sub(
                r"(?:\s+(?:est|is|plus|moins|more|less|have|has|a|an|the|get|gets))+\s*$",
                "",
                first,
            ).strip()
            return (spec, first, other) if first and first not in _PRONOUNS else None
    return None


_PRONOUNS = frozenset({"it", "he", "she", "they", "this", "that", "il", "elle", "ce", "ca"})

# "Which is cheaper, the iPhone 15 or the Galaxy S24?", "which has more RAM: the Pixel 8a
# or the Galaxy A55?": a comparative asked of two things offered as alternatives.
_ALTERNATIVES = re.compile(
    r"^\W*(?:(?:so|and)\s+)?which(?:\s+one)?\s+(?P<compared>[^,:]+?)\s*[,:]?\s+"
    r"(?:the\s+)?(?P<first>[^,:]+?)\s+or\s+(?:the\s+)?(?P<other>[^,:]+?)\W*$"
)


# "Lequel est le moins cher, l'iPhone 15 ou le Galaxy S24 ?", "Quel est le plus léger entre
# le MacBook Air et le XPS 13 ?": French ranks one of two with its superlative form.
_ALTERNATIVES_FR = re.compile(
    r"^\W*(?:(?:et|alors|donc)\s+)?(?:lequel|laquelle|quel|quelle)(?:\s+des\s+deux)?\s+"
    r"(?P<compared>[^,:]+?)\s*(?:[,:]\s*|\s+entre\s+)(?:(?:le|la|les)\s+|l')?"
    r"(?P<first>[^,:]+?)\s+(?:ou|et)\s+(?:(?:le|la|les)\s+|l')?(?P<other>[^,:]+?)\W*$"
)


def _compared_alternatives(question: str) -> tuple[dict[str, str], str, str] | None:
    """Read "which is X-er, A or B?" ("lequel est le moins cher, A ou B ?"), or None.

    Returns:
        The spec and order compared, A and B.
    """
    text = _folded(question)
    found = _ALTERNATIVES.match(text)
    french = found is None
    if french:
        found = _ALTERNATIVES_FR.match(text)
    if found is None:
        return None
    # Of two things, French "le moins cher" is the comparative "cheaper".
    for pattern, spec, order in [*COMPARATIVES, *SUPERLATIVES] if french else COMPARATIVES:
        if re.search(pattern, found["compared"]):
            return {"spec": spec, "order": order}, found["first"], found["other"]
    return None


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
            and not is_dictionary_word(name)
            and not any(one_edit(name, word) for word in known)
        ):
            return name
    return None


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


def listed_product(
    question: str, listed: Sequence[str], prices: dict[str, float] | None = None
) -> tuple[int, str] | None:
    """Return the product of the previous list a message points at: (1-based rank, ref type).

    "the second one", "le deuxième", "the last one" (by rank: ref type ``ordinal``),
    "celui à 299 $", "the $299 one" (by price), "the Samsung one" (by a word of exactly
    one listed name: ref type ``title``). Resolved from the list as shown, so "the second
    one" is the second line the user saw.
    """
    if not listed:
        return None
    text = _folded(question)
    if m := _ORDINAL_REF.search(text):
        rank = _ORDINALS[m.group(1)]
        index = rank - 1 if rank > 0 else len(listed) + rank
        return (index + 1, "ordinal") if 0 <= index < len(listed) else None
    if prices and (m := _PRICE_REF.search(text)):
        wanted = _price(m.group(1) or m.group(2))
        matching = [i for i, name in enumerate(listed) if prices.get(name) == wanted]
        return (matching[0] + 1, "title") if len(matching) == 1 else None
    if m := re.search(r"\b(?:the|le|la)\s+([\w-]+)\s+(?:one|model|phone|laptop)\b", text):
        word = m.group(1)
        matching = [
            i for i, name in enumerate(listed) if re.search(rf"\b{re.escape(word)}\b", fold(name))
        ]
        return (matching[0] + 1, "title") if len(matching) == 1 else None
    return None


_HOW_MANY_LISTED = {"two": 2, "deux": 2, "2": 2, "three": 3, "trois": 3, "3": 3, "four": 4,
                    "quatre": 4, "4": 4, "both": 2}  # fmt: skip
# "compare the first two", "compare-les", "compare them", "compare les deux premiers".
_COMPARE_LISTED = re.compile(
    r"\b(?:compare[rz]?|comparison|comparatif)\b(?:-(?:les|them))?\s*(?:(?:the|les|them|ces|"
    r"those|these)\s*)?(?:(?:first|premiers?|premieres?)\s+)?"
    r"(?P<count>two|deux|three|trois|four|quatre|both|[234])?\s*"
    r"(?:first|premiers?|premieres?|ones?|produits?|products?|modeles?|models?)?\s*[?.!]*$"
)


# What the catalog states of every product (its specs, its price and its warranty): each
# spec word and the catalog keys it names (a battery is in hours for a laptop, in
# mAh for a phone: the product's own says which). "How much" asks a price unless it asks
# for another spec ("how much RAM").
_SPEC_KEYS: list[tuple[str, tuple[str, ...]]] = [
    (r"price|cost|costs|prix|coute|coutent", ("price_usd",)),
    (r"weigh\w*|weight|poids|pese", ("weight_kg",)),
    (r"battery|autonomie|batterie", ("battery_hours", "battery_mah")),
    (r"ram|memory|memoire", ("ram_gb",)),
    (r"storage|stockage", ("storage_gb",)),
    (r"screen|display|ecran", ("display",)),
    (r"camera|appareil photo", ("camera_mp",)),
    (r"processor|processeur|cpu", ("cpu",)),
    (r"operating system", ("os",)),
    (r"warranty|garantie", ("warranty_years",)),
]


def asked_specs(question: str) -> list[str]:
    """Return the catalog keys of the specs a message asks about, in the catalog's terms."""
    text = _folded(question)
    keys = [k for pattern, found in _SPEC_KEYS if re.search(rf"\b(?:{pattern})\b", text)
            for k in found]  # fmt: skip
    if not keys and re.search(r"\bhow much\b", text) or _PRICE_OF_IT.search(text):
        # "how much is it and how much does it weigh?": the first part asks the price.
        keys = ["price_usd", *keys]
    return list(dict.fromkeys(keys))


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
    words = set(re.findall(r"[\w.]+", _folded(question)))
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
# have...", "what is its weight?", "a-t-il...", "son poids", "combien coûte-t-il ?".
_IT = re.compile(r"\b(?:it|its|il|elle|son|sa|ses)\b")
# "And the battery life?", "Et l'autonomie ?", "What about the price?": a spec alone
# after a connective, what was asked before now asked of the same product.
_SPEC_ALONE = re.compile(
    # "what's the battery capacity?", "quel est le poids ?": a spec asked with "the" and
    # nothing else is the spec of what is being discussed, as "and the battery?" is;
    # so is an amount of it ("how much RAM?", "combien de stockage ?").
    r"^(?:(?:and|et|what about|how about|and what about|et pour|quid de|"
    r"what(?:'s| is| are)|(?:quel|quelle|quels|quelles) (?:est|sont)|"
    r"how much|how many|combien de)\s+|combien d')"
    r"(?:(?:the|le|la|les|l'|its|son|sa|ses)\s*)?(?P<rest>[\w' -]+?)\s*[?.!]*$"
)


def asks_a_spec_of_it(question: str, brands: Sequence[str] = ()) -> bool:
    """Whether a message asks for a spec of the product under discussion, unnamed.

    "How much RAM does it have?", "Et son poids ?": a spec word and a pronoun, or
    "And the battery life?", "what's the battery capacity?": a spec word alone after a
    connective or "what is the" (at most three words);
    and no brand (a message naming one is about that brand's product).
    """
    text = _PHONE_AS_CHANNEL.sub(" ", _folded(question)).strip()
    if any(re.search(rf"\b{re.escape(fold(b))}\b", text) for b in brands):
        return False
    if not asked_specs(text):
        return False
    alone = _SPEC_ALONE.match(text)
    return bool(_IT.search(text) or (alone and len(alone["rest"].split()) <= 3))


def asks_for_a_ranking(question: str) -> bool:
    """Whether a message asks for the products best or worst on some spec.

    Its answer lists them best first, and the first is what it asked for: "it" in the
    next message is that product ("the cheapest laptop" → "how much RAM does it have?").
    """
    text = _folded(question)
    return any(re.search(pattern, text) for pattern, _, _ in [*SUPERLATIVES, *COMPARATIVES])


def subject_product(history: Sequence[Mapping[str, Any]], known: Collection[str]) -> str | None:
    """Return the one product the previous answer was about, or None.

    The only product it showed or quoted ("tell me more about the first one", "Tell me
    about the Pixel 8 Pro"), or the first of a ranking it answered ("What is the
    cheapest laptop?" lists the cheapest first). A list that ranks nothing ("phones
    under $500") is about none of its products in particular. The previous answer is
    the last one that cited sources: a decline of a question asked of the subject
    ("Does it support 5G?") changes no subject, while a decline of a question asked on
    its own ("Do you sell tablets?") leaves no product to be "it": the user asked of
    something else, which no document has.
    """
    last = None
    for turn in reversed(history):
        if turn.get("titles"):
            last = turn
            break
        if not asks_of_the_subject(str(turn.get("question") or "")):
            return None
    if last is None:
        return None
    # A catalog answer's titles are product names; a document answer's are
    # "title — section", and a catalog page's section is the product.
    shown = [t.split(" — ")[0 if last["route"] == "tool" else -1] for t in last["titles"]]
    products = list(dict.fromkeys(t for t in shown if t in known))
    if len(products) == 1:
        return products[0]
    if products and last["route"] == "tool" and asks_for_a_ranking(last["question"]):
        return products[0]
    return None


def compare_listed(question: str, listed: Sequence[str]) -> ToolRequest | None:
    """Compare products of the previous list that the message points at without naming.

    "Compare les deux premiers", "compare the first two", "compare them": the first
    products as listed (all of them, at most four, when no count is said).
    """
    if len(listed) < 2:
        return None
    match = _COMPARE_LISTED.search(_folded(question).strip())
    if match is None:
        return None
    count = _HOW_MANY_LISTED.get(match["count"] or "", min(len(listed), 4))
    return ToolRequest("compare_products", {"names": list(listed[:count])})


# A choice among the products shown: "which one", "lequel", "of those", "parmi eux".
_AMONG_SHOWN = re.compile(
    r"\b(?:which (?:one|of)|of (?:those|these|them|the (?:two|three|four))|among|"
    r"lequel|laquelle|lesquels|lesquelles|parmi|d'entre)\b"
)


# One product pointed at by how it ranks among those shown: "the cheaper one", "the
# lightest model", "celui qui est le moins cher", "celle qui a la plus grande batterie".
_ONE_RANKED = re.compile(
    r"\bthe\s+(?:[\w-]+\s+){1,3}?(?:one|model|phone|laptop|product)\b"
    r"|\b(?:celui|celle)\b"
)


def points_at_one_ranked(question: str) -> bool:
    """Whether a message points at the one product a comparison among those shown picks.

    "tell me more about the cheaper one" asks for that product's entry, not for the
    ranking ("which one is cheaper?" asks which, and is answered with the ranking).
    """
    text = _folded(question)
    for match in _ONE_RANKED.finditer(text):
        # The comparison is inside "the ... one", or after "celui" ("celui qui est le
        # moins cher").
        span = match.group(0) if match.group(0).startswith("the") else text[match.start() :]
        if any(re.search(p, span) for p, _, _ in [*SUPERLATIVES, *COMPARATIVES]):
            return True
    return False


def is_comparison(question: str) -> bool:
    """Whether a message asks to compare products ("Compare the Pixel 8a and the A55")."""
    return _COMPARE.search(_folded(question)) is not None


# "best" alone: the catalog ranks products on one spec, and "the best phone" names none
# ("the best camera", "la meilleure autonomie" do, and are rankings above).
_BEST = re.compile(r"\b(?:best|meilleure?s?)\b")
# Asking what to buy is asking for the best with no criterion either: "which phone should I
# buy?", "what laptop do you recommend?", "quel téléphone acheter ?", "quel ordinateur me
# conseillez-vous ?", "recommend me a phone" ({category}: the category's words; folded text).
_RECOMMEND = (
    r"\b(?:which|what)\s+(?:\w+\s+)?{category}\s+(?:should|shall|would|could|do|can)\s+"
    r"(?:i|you|we)\s+(?:\w+\s+)?(?:buy|get|choose|pick|take|recommend|suggest)\b|"
    r"\b(?:recommend|suggest)\s+(?:me\s+)?(?:a|an|one)\s+(?:\w+\s+)?{category}|"
    r"\bquel(?:le)?s?\s+(?:\w+\s+)?{category}\s+(?:(?:me|nous)\s+)?(?:acheter|choisir|prendre|"
    r"conseill\w*|recommand\w*)\b|"
    r"\b(?:conseille[rz]?|recommande[rz]?)[- ](?:moi|nous)\s+(?:un|une)\s+(?:\w+\s+)?{category}"
)
# What a category's products can be ranked on, as the user is offered it when "best" names
# no criterion: (English label, French label, English question, French question). Each
# question is one the grammar above reads as that ranking.
RANKING_CRITERIA: dict[str, list[tuple[str, str, str, str]]] = {
    "phone": [
        ("price", "prix", "Which phone is the cheapest?", "Quel est le téléphone le moins cher ?"),
        ("battery", "batterie", "Which phone has the biggest battery?",
         "Quel téléphone a la plus grande batterie ?"),
        ("screen", "écran", "Which phone has the biggest screen?",
         "Quel téléphone a le plus grand écran ?"),
        ("camera", "appareil photo", "Which phone has the best camera?",
         "Quel téléphone a le meilleur appareil photo ?"),
        ("storage", "stockage", "Which phone has the most storage?",
         "Quel téléphone a le plus de stockage ?"),
    ],
    "laptop": [
        ("price", "prix", "Which laptop is the cheapest?",
         "Quel est l'ordinateur portable le moins cher ?"),
        ("weight", "poids", "Which laptop is the lightest?",
         "Quel est l'ordinateur portable le plus léger ?"),
        ("battery", "autonomie", "Which laptop has the longest battery life?",
         "Quel ordinateur portable a la meilleure autonomie ?"),
        ("screen", "écran", "Which laptop has the biggest screen?",
         "Quel ordinateur portable a le plus grand écran ?"),
        ("memory", "mémoire", "Which laptop has the most RAM?",
         "Quel ordinateur portable a le plus de RAM ?"),
    ],
}  # fmt: skip


def best_without_criterion(question: str) -> str | None:
    """Return the category of a "best" question that names nothing to rank it on, or None.

    "Quel est le meilleur téléphone ?", "what's the best laptop?": best on price, battery
    or screen is the user's choice, asked back (`RANKING_CRITERIA`), not a list of every
    phone by price. "the best camera", "best-selling", a price bound are criteria.
    "Which phone should I buy?" and "quel ordinateur me conseillez-vous ?" ask the same.
    """
    text = _PHONE_AS_CHANNEL.sub(" ", _folded(question))
    category = next((c for c, p in CATEGORY_WORDS.items() if re.search(p, text)), None)
    if category is None:
        return None
    # "best" qualifies the category ("the best 5G phone", "quel téléphone est le
    # meilleur"), not another noun ("the best way to secure my laptop").
    word = CATEGORY_WORDS[category]
    governs = (
        rf"{_BEST.pattern}\s+(?:[\w'-]+\s+)?{word}|{word}\s+(?:[\w'-]+\s+){{0,2}}?{_BEST.pattern}"
    )
    if not re.search(governs, text) and not re.search(_RECOMMEND.format(category=word), text):
        return None
    ranked = [pattern for pattern, _, _ in [*SUPERLATIVES, *COMPARATIVES]]
    if any(re.search(p, text) for p in ranked) or re.search(r"\bbest[- ]sell", text):
        return None
    if _MAX_PRICE.search(text) or _MIN_PRICE.search(text) or _SPEC_VALUE.search(text):
        return None
    return category


# What a typed reply to "best on which criterion?" may wrap its criterion in: "by price",
# "le prix", "selon la batterie", "its camera", "price please".
_CRITERION_WRAP = re.compile(
    r"^(?:(?:and|et|ok|okay|alors|then|so)\s+)?(?:(?:by|on|for|with|the|its|their|par|selon|"
    r"pour|sur|le|la|les|l'|sa|son|ses|leur|en|au niveau d[eu]|niveau)\s+)*"
    r"(?P<criterion>.+?)(?:\s+(?:please|svp|s'il vous plait|stp))?\s*[?!.]*\s*$"
)


def chosen_criterion(message: str, previous_question: str) -> str | None:
    """Return the ranking question a typed reply to "best on which criterion?" chooses.

    After "Quel est le meilleur téléphone ?" was asked back with its criteria (price,
    battery, screen...), typing "prix", "le prix", "by price" or "battery" is the same
    choice as clicking its chip: the criterion's ranking question, in the language of the
    label typed. None when the previous question was no such "best", or the message
    names none of its criteria.
    """
    category = best_without_criterion(previous_question)
    if category is None:
        return None
    match = _CRITERION_WRAP.match(_folded(message).strip())
    if match is None:
        return None
    said = match["criterion"].strip()
    for english, french, en_question, fr_question in RANKING_CRITERIA.get(category, []):
        if said == fold(french):
            return fr_question
        if said == fold(english):
            return en_question
    return None


# A superlative with no spec of its own ("and the smallest?", "et la plus petite ?"): the
# degree alone, its direction read from the adjective.
_BARE_DEGREE = re.compile(
    r"^(?:and |et |so |alors )?(?:what about |et pour )?(?:the|le|la|les) "
    r"(?:(?P<asc>smallest|lowest|least|fewest|shortest|weakest|plus petite?s?|plus basse?s?|"
    r"plus faibles?|plus courte?s?|moins \w+)|(?P<desc>biggest|largest|highest|most|longest|"
    r"strongest|plus grande?s?|plus haute?s?|plus elevee?s?|plus longue?s?|plus fortes?)"
    # "the best camera" then "and the worst?": the other end of the ranking.
    r"|(?P<reverse>worst|pire?s?))"
    r"(?: ones?)?\s*[?!.]*$"
)


# A superlative standing alone: "le moins cher ?", "and the cheapest?", "et le plus léger ?".
_TERSE_SUPERLATIVE = re.compile(
    r"^(?:and |et |so |alors )?(?:the|le|la|les) (?P<degree>[\w ]+?)(?: ones?)?\s*[?!.]*$"
)
_KIND_WORDS = {"phone": "phones", "laptop": "laptops"}


def kind_last_named(messages: Sequence[str]) -> str | None:
    """Return the catalog category the latest message naming one names, or None."""
    for message in reversed(messages):
        text = _PHONE_AS_CHANNEL.sub(" ", _folded(message))
        found = [(m.start(), c) for c, p in CATEGORY_WORDS.items() if (m := re.search(p, text))]
        if found:
            return max(found)[1]
    return None


def terse_superlative(message: str, brands: Sequence[str]) -> bool:
    """Whether a message is a superlative the catalog ranks, naming no kind nor brand."""
    text = _folded(message).strip()
    if _TERSE_SUPERLATIVE.match(text) is None:
        return False
    if any(re.search(p, text) for p in CATEGORY_WORDS.values()):
        return False
    if any(re.search(rf"\b{re.escape(fold(b))}\b", text) for b in brands):
        return False
    return any(re.search(pattern, text) for pattern, _, _ in SUPERLATIVES)


def ranking_of_kind(message: str, category: str, brands: Sequence[str]) -> ToolRequest | None:
    """Return a terse superlative ("le moins cher ?") ranked over a kind of product."""
    return parse_catalog_request(f"{message} {_KIND_WORDS[category]}", brands)


def reranked_on_the_same_spec(
    message: str, previous_question: str, brands: Sequence[str]
) -> ToolRequest | None:
    """Return the previous ranking's spec ranked the way a bare superlative says, or None.

    "Which phone has the biggest screen?" then "and the smallest?" ranks the phones on
    their screens, the other way: the message names a direction, the previous ranking
    its spec and category. "the worst" is the previous ranking's reverse (it says which
    end, not which way a number goes). None when the message is no bare superlative or the previous
    question ranked nothing.
    """
    text = _folded(message).strip()
    match = _BARE_DEGREE.match(text)
    if match is None or any(re.search(p, text) for p, _, _ in [*SUPERLATIVES, *COMPARATIVES]):
        return None  # "et le moins cher ?" names its own spec: a ranking of its own
    previous = parse_catalog_request(previous_question, brands)
    if previous is None or previous.name != "rank_products" or "category" not in previous.args:
        return None
    if match["reverse"]:
        order = {"asc": "desc", "desc": "asc"}[str(previous.args.get("order", "asc"))]
    else:
        order = "asc" if match["asc"] else "desc"
    return ToolRequest("rank_products", {**previous.args, "order": order})


def chooses_among_shown(question: str) -> bool:
    """Whether a message chooses among products shown: "which one", "lequel", "of those"."""
    return _AMONG_SHOWN.search(_folded(question)) is not None


def ranks_a_category(question: str) -> bool:
    """Whether a message's answer is the top of a category on one spec, not all of it.

    "Which laptop is the most expensive?", "Et le plus cher ?": a superlative the catalog
    ranks, not chosen among products shown ("lequel est le plus cher ?"). Its answer
    lists the first three of the category: a cut of the category, not a set of its own.
    """
    text = _folded(question)
    if _AMONG_SHOWN.search(text):
        return False
    return any(re.search(pattern, text) for pattern, _, _ in SUPERLATIVES)


def rank_listed(
    question: str,
    listed: Sequence[str],
    category: str | None = None,
    *,
    listed_is_cut: bool = False,
) -> ToolRequest | None:
    """Rank the products the previous answer listed, when a message compares them.

    "which one is lighter?", "lequel est le moins cher ?", "which has the longest battery?"
    after a comparison or a list: the ranking covers those products, not the category.
    A message naming a category of its own is a new catalog question instead.

    Args:
        question: The user message.
        listed: The products the previous answer listed, in the order shown.
        category: Their shared category, if any (a battery is in hours for a laptop, in
            mAh for a phone).
        listed_is_cut: The list was the top of the category on some spec ("the cheapest
            laptop" shows three): a new superlative not chosen among them ("and the
            most expensive?") ranks the whole category again. Ranked among the three
            cheapest, "the most expensive" named the third cheapest.
    """
    if len(listed) < 2:
        return None
    text = _folded(question)
    if any(re.search(pattern, text) for pattern in CATEGORY_WORDS.values()):
        return None
    superlatives = {pattern for pattern, _, _ in SUPERLATIVES}
    for pattern, spec, order in [*SUPERLATIVES, *COMPARATIVES]:
        if not re.search(pattern, text):
            continue
        if spec == "battery":
            if category is None:
                return None
            spec = "battery_hours" if category == "laptop" else "battery_mah"
        if listed_is_cut and category and pattern in superlatives and ranks_a_category(text):
            return ToolRequest(
                "rank_products", {"spec": spec, "order": order, "category": category}
            )
        args = {"spec": spec, "order": order, "names": list(listed), "limit": len(listed)}
        return ToolRequest("rank_products", args)
    return None
