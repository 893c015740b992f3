"""A catalog question read as one typed tool call.

A list filtered on price, brand or system, or a ranking on a spec.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from threadline.graph.catalog_requests.criteria import wants_one_of_quality
from threadline.graph.catalog_requests.products import asked_specs, without_spec_words
from threadline.graph.catalog_requests.wording import (
    BUDGET,
    CATEGORY_WORDS,
    COMPARE,
    MAX_PRICE,
    MIN_PRICE,
    PHONE_AS_CHANNEL,
    SPEC_UNITS,
    SPEC_VALUE,
    SUPERLATIVES,
    ToolRequest,
    better_end,
    folded_message,
    price_written,
)
from threadline.knowledge.facts import SALES_RANKING
from threadline.text import fold

_BETWEEN = re.compile(r"\b(between|entre)\s*\$?\s*(\d[\d,]*)\s*(and|et|-)\s*\$?\s*(\d[\d,]*)")


_BOUND_BELOW = (
    r"under|below|less than|lighter than|at most|up to|moins de|sous|au plus|jusqu'a|"
    r"(?:en|au)[- ]dessous de"
)


_BOUND_ABOVE = r"over|above|more than|at least|plus de|au moins|(?:en|au)[- ]dessus de"


_BOUND_INCLUSIVE = r"at most|up to|au plus|jusqu'a|at least|au moins"


_SPEC_BOUND = re.compile(
    rf"\b(?P<dir>{_BOUND_BELOW}|{_BOUND_ABOVE})\s*(?P<value>\d+(?:[.,]\d+)?)\s*"
    rf"(?P<unit>{'|'.join(f'(?:{unit})' for unit, _ in SPEC_UNITS)})(?![\w])"
)


# A range of a spec: "from 8 to 16 GB of RAM", "entre 1 et 1,3 kg".
_SPEC_RANGE = re.compile(
    r"\b(?:from|between|entre|de)\s*(?P<low>\d+(?:[.,]\d+)?)\s*[a-z]*\s*(?:to|and|et|a|-)\s*"
    r"(?=\d+(?:[.,]\d+)?\s*[a-z\"])"
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
# A word between the cue and the category that is a preposition other than "of"/"de"
# makes the category a circumstance of another subject: "what about encryption on
# phones?" asks about encryption, not which phones ("which of your phones" still lists).
_CIRCUMSTANCE = r"(?:about|on|for|in|with|to|from|at|sur|pour|avec|dans|chez)"


def _in_a_circumstance(text: str, category: str) -> bool:
    """Whether a folded question names the category after a preposition ("on a laptop").

    "set up on a new Windows laptop", « installer sur un portable Windows »: the kind of
    product is where something is done, the question asks about that thing.
    """
    words = r"(?:[\w'-]+\s+){0,3}?"
    return bool(re.search(rf"\b{_CIRCUMSTANCE}\s+{words}{CATEGORY_WORDS[category]}", text))


_ON_SALE = re.compile(r"\b(do you (have|sell)|avez-vous|vendez-vous)\b")


def _asks_for_a_list(text: str, category: str) -> bool:
    """Whether a folded question asks for a list of the category's products."""
    word = rf"(?!{_CIRCUMSTANCE}\b)[\w'-]+"
    governed = rf"{_LIST_CUE}(?:\s+{word}){{0,3}}?\s+{CATEGORY_WORDS[category]}"
    return bool(
        _ON_SALE.search(text) or re.search(governed, text) or counts_on_offer(text, category)
    )


# How many of a kind there are on offer: "how many phones does Brightwell sell?", "how
# many laptops do you have?", « combien de téléphones vendez-vous ? ». Units sold ("how
# many phones were sold in 2024?", "did it sell") are the report's figures, no count of
# the catalog's products.
_COUNT_CUE = r"\b(?:how many\s+|combien d(?:e\s+|'))"
_ON_OFFER = re.compile(
    r"\b(?:sell|sells|offer|offers|have|has|carry|carries|stock|stocks|list|lists|"
    r"available|on sale|catalog|catalogue|range|vendez|vend|proposez|propose|y a-t-il)\b"
)
_UNITS_SOLD = re.compile(r"\b(?:sold|did|were|was|vendus?|vendues?|(?:19|20)\d\d)\b")


def counts_on_offer(question: str, category: str | None = None) -> bool:
    """Whether a message asks how many products of a kind the catalog offers."""
    text = folded_message(question)
    kinds = [CATEGORY_WORDS[category]] if category else list(CATEGORY_WORDS.values())
    counted = any(re.search(rf"{_COUNT_CUE}(?:[\w'-]+\s+){{0,2}}?{kind}", text) for kind in kinds)
    return counted and bool(_ON_OFFER.search(text)) and not _UNITS_SOLD.search(text)


# A superlative the catalog has no spec for ("le smartphone le plus vendu", "the most
# popular laptop", a ranking by sales): a question for the documents, not a list.
_OTHER_SUPERLATIVE = re.compile(
    r"\b(?:le|la|les) (?:plus|moins) \w+|\bthe (?:most|least) \w+|"
    rf"\bmost popular\b|\b(?:plus|moins) populaires?\b|{SALES_RANKING.pattern}"
)


def asks_for_a_superlative(question: str) -> bool:
    """Whether a message asks for the one thing first on some measure, the catalog's or not.

    "the lightest laptop", « le smartphone le plus vendu », "the most popular phone".
    """
    text = folded_message(question)
    return bool(
        _OTHER_SUPERLATIVE.search(text)
        or any(re.search(pattern, text) for pattern, _, _ in SUPERLATIVES)
    )


def _spec_values(text: str) -> list[tuple[str, float]]:
    """Return the specs and values a folded question states with units ("16 go de ram").

    "to" alone is the English word more often than French terabytes: it needs "de
    stockage" to be a unit here.
    """
    found = []
    for match in SPEC_VALUE.finditer(text):
        unit = match["unit"]
        if unit in ("to", "h"):
            continue
        spec = next(spec for pattern, spec in SPEC_UNITS if re.fullmatch(pattern, unit))
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
    text = PHONE_AS_CHANNEL.sub(" ", folded_message(question))
    category = next((c for c, p in CATEGORY_WORDS.items() if re.search(p, text)), None)
    brand = next((b for b in brands if re.search(rf"\b{re.escape(fold(b))}\b", text)), None)
    # "which phones run android 14?", "the cheapest phone running Android 13": the list
    # and the ranking both keep only the products running the system named.
    system = _OPERATING_SYSTEM.search(text)
    running = {"os": " ".join(w for w in system.groups() if w)} if system else {}
    if category:
        ranking = (
            _bounded_on_a_spec(text, category, running)
            or _with_stated_specs(text, category, running)
            or _ranked_on_a_superlative(text, category, running)
            or _spec_of_a_kind(text, category, running)
        )
        if ranking is not None:
            # "which Samsung phone is the cheapest?": ranked among the brand's products.
            return ToolRequest("rank_products", ranking | ({"brand": brand} if brand else {}))
    elif brand and (ranking := _ranked_within_a_brand(text, brand, running)) is not None:
        # "What's the cheapest Samsung?": a brand names its products, the kind unsaid.
        return ToolRequest("rank_products", ranking | {"brand": brand})
    if _OTHER_SUPERLATIVE.search(text):
        return None  # the superlatives the catalog can rank were all tried above
    if COMPARE.search(text) and len(names := _compared_names(text)) >= 2:
        return ToolRequest("compare_products", {"names": names[:4]})
    if category is None and brand is None:
        return None
    return _filtered_list(text, category, brand, running)


def _bounded_on_a_spec(text: str, category: str, running: dict[str, str]) -> dict[str, Any] | None:
    """Return the ranking a bound on a spec asks ("laptops under 1.3 kg"), or None."""
    bound = _SPEC_BOUND.search(text)
    if bound is None:
        return None
    spec = next(spec for unit, spec in SPEC_UNITS if re.fullmatch(unit, bound["unit"]))
    value = float(bound["value"].replace(",", "."))
    if bound["unit"] in ("tb", "to"):
        value *= 1000  # storage is in GB
    below = re.fullmatch(_BOUND_BELOW, bound["dir"]) is not None
    bounded: dict[str, Any] = {"spec": spec, "order": "asc" if below else "desc"}
    bounded |= {"category": category, "max_value" if below else "min_value": value}
    if not re.fullmatch(_BOUND_INCLUSIVE, bound["dir"]):
        bounded["exclusive"] = True  # "more than 5000 mAh" is not 5000 mAh
    return {**bounded, **running, "limit": 10}


def _with_stated_specs(text: str, category: str, running: dict[str, str]) -> dict[str, Any] | None:
    """Return the ranking of the products with the spec values stated, or None."""
    stated = _spec_values(text)
    if not stated:
        return None
    # "Which laptops have 16 GB of RAM?" lists those with 16 GB, not every laptop;
    # "from 8 to 16 GB", "512 GB to 1 TB" those within the range.
    spec, value = stated[0]
    values = [v for s, v in stated if s == spec]
    low, high = min(values), max(values)
    if len(values) == 1 and (span := _SPEC_RANGE.search(text)):
        low = min(low, float(span["low"].replace(",", ".")))
    exact = {"spec": spec, "order": "asc", "category": category}
    return exact | running | {"min_value": low, "max_value": high, "limit": 10}


def _ranked_on_a_superlative(
    text: str, category: str, running: dict[str, str]
) -> dict[str, Any] | None:
    """Return the ranking a superlative the catalog ranks asks ("the lightest"), or None."""
    for pattern, spec, order in SUPERLATIVES:
        if re.search(pattern, text):
            if spec == "battery":
                spec = "battery_hours" if category == "laptop" else "battery_mah"
            ranked = {"spec": spec, "order": order, "category": category} | running
            # "the lightest laptop under $1000": ranked among those the price bound keeps.
            return ranked | _price_bounds(text)
    # "Which phone should I buy? something simple and cheap": the quality wanted ranks.
    if wanted := wants_one_of_quality(text, category):
        ranked = {"spec": wanted[0], "order": wanted[1], "category": category} | running
        return ranked | _price_bounds(text)
    return None


# What a superlative ranking a brand's products may hold beside the superlative and the
# brand: the asking words, articles, "one", "model", "product" (« modèle », « produit »).
_BRAND_RANKING_WORDS = frozenset(
    "a an what whats s is are the which who one ones model models product products device devices "
    "do does you have sell of your brightwell and so then quel quelle quels quelles est sont "
    "c qui le la les l de des du d et alors modele modeles produit produits appareil "
    "appareils vos vous avez vendez".split()
)


def _ranked_within_a_brand(text: str, brand: str, running: dict[str, str]) -> dict[str, Any] | None:
    """Return the ranking of a brand's products a superlative naming no kind asks, or None.

    "What's the cheapest Samsung?", « le Samsung le moins cher » rank the Samsung
    products on price, every kind the brand sells. The brand must be what is ranked,
    nothing else named ("the latest Apple security update" ranks no product). A battery
    is counted in hours for a laptop and mAh for a phone, so a battery superlative naming
    no kind ranks nothing here.
    """
    for pattern, spec, order in SUPERLATIVES:
        if not (found := re.search(pattern, text)):
            continue
        rest = re.sub(rf"\b{re.escape(fold(brand))}\b", " ", text.replace(found[0], " "))
        for bound in (_BETWEEN, MAX_PRICE, MIN_PRICE, BUDGET):  # "under $700" bounds it
            rest = bound.sub(" ", rest)
        if spec == "battery" or any(
            word not in _BRAND_RANKING_WORDS for word in re.findall(r"[a-z0-9]+", rest)
        ):
            return None
        return {"spec": spec, "order": order} | running | _price_bounds(text)
    return None


def _price_bounds(text: str) -> dict[str, float]:
    """Return the price bounds a folded message states ("under $1000", "budget 300 dollars")."""
    bounds: dict[str, float] = {}
    if m := _BETWEEN.search(text):
        bounds["min_price"], bounds["max_price"] = price_written(m[2]), price_written(m[4])
        return bounds
    if m := MAX_PRICE.search(text):
        bounds["max_price"] = price_written(m.group(3))
    elif m := BUDGET.search(text):
        # A budget bounds the price: the products at or under it.
        bounds["max_price"] = price_written(next(amount for amount in m.groups() if amount))
    if (m := MIN_PRICE.search(text)) and not _A_YEAR_FROM.fullmatch(m[0].strip()):
        bounds["min_price"] = price_written(m.group(2))
    return bounds


# "from 2024", « à partir de 2023 »: a year a product dates from, no price.
_A_YEAR_FROM = re.compile(r"(?:from|a partir de)\s*(?:19|20)\d\d")


# What a question asking one spec of a kind of product may hold beside the spec and the
# kind: the asking words, articles and prepositions, "how long", « la durée de ».
_SPEC_OF_A_KIND_WORDS = frozenset(
    "what whats s is are the of on for in your all their brightwell do does how long much "
    "length duration size capacity life quel quelle quels quelles est sont c quoi le la les "
    "l de des du d sur pour vos tous toutes leur leurs en duree taille capacite combien "
    "ont".split()
)


# The specs a kind's products can be ranked on (the processor and the system cannot).
_RANKED_SPECS = frozenset(
    {"price_usd", "weight_kg", "battery", "display", "storage_gb", "ram_gb", "camera_mp",
     "warranty_years"}
)  # fmt: skip


def _spec_of_a_kind(text: str, category: str, running: dict[str, str]) -> dict[str, Any] | None:
    """Return every product of a kind ranked on the one spec a question asks of them all.

    "what's the warranty on phones?", « quelle est la durée de la garantie des téléphones
    ? »: a spec asked of a kind named in the plural, nothing else said (no product, no
    bound), is each product's value of it, the better end first. None otherwise.
    """
    kind = re.search(CATEGORY_WORDS[category], text)
    if kind is None or not kind.group(0).endswith("s"):
        return None  # "the warranty on the phone" asks of one phone: which one
    specs = {"battery" if s.startswith("battery") else s for s in asked_specs(text)}
    if len(specs) != 1 or not specs <= _RANKED_SPECS:
        return None
    rest = re.findall(r"[a-z0-9]+", without_spec_words(re.sub(CATEGORY_WORDS[category], " ", text)))
    if any(word not in _SPEC_OF_A_KIND_WORDS for word in rest):
        return None
    spec = specs.pop()
    if spec == "battery":
        spec = "battery_hours" if category == "laptop" else "battery_mah"
    return {"spec": spec, "order": better_end(spec), "category": category, "limit": 10} | running


def _compared_names(text: str) -> list[str]:
    """Return the names a comparison lists ("compare the pixel 8a and the a55")."""
    names = [
        n.strip(" ?.!")
        for n in re.split(r"\b(?:and|et|with|avec|vs\.?|versus|to|a)\b|,", text)
        if n.strip(" ?.!")
    ]
    names = [_COMPARE_WORDING.sub("", n.strip()).strip() for n in names]
    names = [re.sub(r"^(compare[rz]?|the|le|la|les)\s+", "", n).strip() for n in names]
    return [n for n in names if n]


def _filtered_list(
    text: str, category: str | None, brand: str | None, running: dict[str, str]
) -> ToolRequest | None:
    """Return the list a question asks, filtered on category, brand, system and price.

    None when nothing bounds the list and the question asks for no list of its category.
    """
    args: dict[str, Any] = {}
    if category:
        args["category"] = category
    if brand:
        args["brand"] = brand
    args |= running | _price_bounds(text)
    has_price = "max_price" in args or "min_price" in args
    # A system alone filters a list asked ("which laptops run Windows?"), not a kind of
    # product the question is about: "What do I need to set up on a new Windows laptop?"
    # asks what to do with one (the handbook's BitLocker), no list of Windows laptops.
    has_system = "os" in args and not (category and _in_a_circumstance(text, category))
    listed = category and _asks_for_a_list(text, category)
    if not has_price and not has_system and not listed:
        return None
    return ToolRequest("search_products", args)


# An operating system a product runs, with its version and edition when given: "android
# 14", "ios", "windows 11 pro".
_OPERATING_SYSTEM = re.compile(r"\b(android|ios|windows|macos)(?:\s+(\d+)(?:\s+(home|pro)\b)?)?\b")
