"""The catalog's words: its shorthand, kinds of product, bounds, units and degrees.

What every reading of a catalog request shares: a message folded with its French
shorthand read (`folded_message`), the category words, the price bounds, the units a
spec is written in, the superlatives and comparatives that rank on a spec, and the
typed call (`ToolRequest`) a request becomes.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from threadline.text import fold
from threadline.text.lexicons import fr

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


def folded_message(text: str) -> str:
    """Return the text folded, with French shorthand read as the words it stands for.

    A lone "+" or "-" is "plus" or "moins" (`_SIGN_FOR_WORD`); a clipped noun after a
    determiner is its word ("son tel" is a téléphone).
    """
    folded = _SIGN_FOR_WORD.sub(lambda m: "plus" if m[0] == "+" else "moins", fold(text))
    return _CLIPPED_NOUN.sub(lambda m: " ".join((m[1], *fr.CLIPPED_NOUNS[m[2]])), folded)


# A phone as a way to reach someone ("their phone number", "par téléphone") asks about
# no product: those phrases are taken out before the category is read.
PHONE_AS_CHANNEL = re.compile(
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


MAX_PRICE = re.compile(
    r"\b(under|below|less than|cheaper than|up to|max(imum)?|at most|moins de|sous|"
    r"jusqu'a|au plus|inferieur a|pas plus de|(?:en|au)[- ]dessous de)"
    r"\s*\$?\s*(\d[\d,. ]*)\s*(\$|usd|dollars?|eur|€)?"
)


# A budget is the most the user will pay: "budget 300 dollars", "my budget is $300",
# "un budget de 300 $", "a $300 budget", "300 $ de budget". The amount is written as money
# (a currency sign or word): "the 2025 budget", "budget 2025" are no price.
# An amount: "1,200", "1 200" (a French thousands space), "299.99"; its braces doubled,
# for `_MONEY.format` names the groups.
_AMOUNT = r"\d(?:[\d,.]|\s(?=\d{{3}}\b))*"
_MONEY = rf"(?:\$\s*(?P<{{0}}>{_AMOUNT})|\b(?P<{{1}}>{_AMOUNT})\s*(?:\$|usd|dollars?|eur|euros?|€))"
BUDGET = re.compile(
    r"\bbudget\s*(?:is|of|de|est(?: de)?|:|max(?:imum)?|around|about|d'environ|autour de)?\s*"
    r"(?:de\s*)?"
    + _MONEY.format("sign_after", "word_after")
    + r"|"
    + _MONEY.format("sign_before", "word_before")
    + r"\s*(?:de\s+)?budget\b"
)


MIN_PRICE = re.compile(
    r"\b(over|above|more than|at least|from|plus de|au moins|a partir de|superieur a|"
    r"(?:en|au)[- ]dessus de)\s*"
    r"\$?\s*(\d[\d,. ]*)\s*(\$|usd|dollars?|eur|€)?"
)


# A bound on a spec: "weigh less than 1.3 kg", "plus de 16 Go de RAM", "over 5000 mAh".
# The unit says which spec; a number with a unit is no price bound.
SPEC_UNITS: list[tuple[str, str]] = [
    (r"kg|kilos?|kilograms?", "weight_kg"),
    (r"mah", "battery_mah"),
    (r"(?:hours?|h|heures?) (?:of battery|d'autonomie|de batterie)", "battery_hours"),
    (r"(?:gb|go) (?:of )?(?:ram|memory|de ram|de memoire)", "ram_gb"),
    (r"(?:gb|go|tb|to)(?: (?:of )?(?:storage|de stockage))?", "storage_gb"),
    (r"(?:inch(?:es)?|\"|pouces?)", "display"),
    (r"(?:mp|megapixels?)", "camera_mp"),
]


# A spec value itself: "laptops with 16 GB of RAM", "ont 16 Go de RAM", "a 1 TB SSD".
SPEC_VALUE = re.compile(
    rf"(?<![\d.,])(?P<value>\d+(?:[.,]\d+)?)\s*"
    rf"(?P<unit>{'|'.join(f'(?:{unit})' for unit, _ in SPEC_UNITS)})(?![\w])"
)


COMPARE = re.compile(
    r"\b(compare[rz]?|comparison|comparatif|versus|vs\.?)\b|\bdifferences? between\b"
)


# Superlatives: (pattern, spec, order). Battery and screen pick the spec the category has.
# Uses that name the spec serving them (folded text): taking pictures is the camera's,
# lasting all day the battery's.
_USE_WORDS = {
    "camera_mp": r"(?:taking\s+|prendre\s+(?:des\s+)?|la\s+|les\s+)?(?:photography|photographs?|"
    r"photos?|pictures?|selfies?|photographie)\b",
    "battery": r"(?:a\s+)?(?:long\s+)?(?:battery\s+life|autonomie)\b",
}


SUPERLATIVES: list[tuple[str, str, str]] = [
    # The verb of the spec with its degree is its superlative: "weighs the least".
    (
        r"\b(lightest|least heavy|plus legers?|plus legeres?|weighs? the least|"
        r"pese(?:nt)? le moins)\b",
        "weight_kg",
        "asc",
    ),
    (
        r"\b(heaviest|plus lourds?|plus lourdes?|weighs? the most|pese(?:nt)? le plus)\b",
        "weight_kg",
        "desc",
    ),
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
        r"\b(best|highest resolution) camera|\bmost megapixels\b|\bmeilleur appareil photo\b|"
        # A use names the spec that serves it: "the best phone for photography" (or
        # pictures, photos, selfies) is ranked by its camera.
        rf"\b(?:best|meilleure?s?)\b[\w' -]{{0,30}}?\b(?:for|pour)\s+{_USE_WORDS['camera_mp']}",
        "camera_mp",
        "desc",
    ),
    (
        rf"\b(?:best|meilleure?s?)\b[\w' -]{{0,30}}?\b(?:for|pour)\s+{_USE_WORDS['battery']}",
        "battery",
        "desc",
    ),
    (r"\b(newest|latest|most recent|plus recents?)\b", "release_year", "desc"),
    (r"\b(oldest|least recent|plus anciens?|plus anciennes?)\b", "release_year", "asc"),
    (r"\blongest warranty|\bplus longue garantie\b", "warranty_years", "desc"),
]


# A quality wanted of the product a recommendation asks for, in the plain degree:
# (pattern, spec, order). "something simple and cheap" is the cheapest first.
WANTED_QUALITIES: list[tuple[str, str, str]] = [
    (
        r"\b(cheap|inexpensive|affordable|low[- ]cost|budget[- ]friendly|pas chers?|"
        r"pas cheres?|bon marche|abordables?|economiques?)\b",
        "price_usd",
        "asc",
    ),
    (r"\b(light|lightweight|legers?|legeres?)\b", "weight_kg", "asc"),
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

# The same in French: "plus" or "moins" and an adjective of size or length, before or
# after the noun of the spec ("la plus grosse batterie", "l'écran le plus grand"), or
# "plus"/"moins de" and the noun ("le plus de RAM"), or "meilleur" ("la meilleure
# autonomie"). The superlative has its definite article before "plus" ("la plus grosse",
# "le plus de"); the comparative has none ("une plus grosse batterie", "plus de RAM").
_FRENCH_SPEC_NOUNS = {
    "ram_gb": r"ram|memoire(?: vive)?",
    "storage_gb": r"stockage|espace de stockage|capacite de stockage|memoire interne",
    "battery": r"batteries?|autonomie|capacite de (?:la )?batterie",
    "display": r"ecrans?|affichage",
    "camera_mp": r"cameras?|appareils? photos?|capteurs? photos?|megapixels?",
    "warranty_years": r"garanties?",
    "price_usd": r"prix",
    "weight_kg": r"poids",
}
_FRENCH_GREAT = (
    r"gros|grosses?|grands?|grandes?|longs?|longues?|hauts?|hautes?|elevee?s?|"
    r"importante?s?|forte?s?"
)
_FRENCH_SMALL = r"petite?s?|faibles?|courte?s?|bas|basses?|reduite?s?"
_FRENCH_BEST = r"meilleure?s?"


def _french_any_spec(degree: str) -> list[tuple[str, str, str]]:
    # A superlative's article, or none for a comparative (not read as one after an article).
    article = "(?:le|la|les) " if degree == "superlative" else r"(?<!\ble )(?<!\bla )(?<!\bles )"
    rows = []
    for spec, nouns in _FRENCH_SPEC_NOUNS.items():
        noun = rf"(?:{nouns})\b"
        for more, order, other in (("plus", "desc", "asc"), ("moins", "asc", "desc")):
            for adjectives, way in ((_FRENCH_GREAT, order), (_FRENCH_SMALL, other)):
                degree_of = rf"{article}{more} (?:{adjectives})"
                rows.append((rf"\b{degree_of} {noun}", spec, way))
                rows.append((rf"\b{noun}(?: est| sont)? {degree_of}\b", spec, way))
            rows.append((rf"\b{article}{more} d(?:e |'){noun}", spec, order))
        if spec not in ("price_usd", "weight_kg"):  # "le meilleur prix" is the lowest
            rows.append((rf"\b{article}(?:{_FRENCH_BEST}) {noun}", spec, "desc"))
    return rows


SUPERLATIVES += _french_any_spec("superlative")
COMPARATIVES += _french_any_spec("comparative")


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


def better_end(spec: str) -> str:
    """Return the order that puts a spec's better end first: the least of a price or weight."""
    return "asc" if spec in ("price_usd", "weight_kg") else "desc"


def price_written(raw: str) -> float:
    """Return a price as written ("1,299", "299.") as a number."""
    return float(raw.replace(",", "").replace(" ", "").rstrip("."))
