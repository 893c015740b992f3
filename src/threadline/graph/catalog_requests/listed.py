"""Follow-ups on the products the previous answer listed.

"the second one", "compare the first two", "which one is lighter?".
"""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping, Sequence
from typing import Any

from threadline.followups.anaphora import read_correction
from threadline.graph.catalog_requests.parsing import asks_for_a_superlative
from threadline.graph.catalog_requests.products import asked_specs
from threadline.graph.catalog_requests.superlatives import asks_for_a_ranking
from threadline.graph.catalog_requests.wording import (
    CATEGORY_WORDS,
    COMPARATIVES,
    SUPERLATIVES,
    ToolRequest,
    better_end,
    folded_message,
    price_written,
)
from threadline.graph.question_terms import asks_of_the_subject
from threadline.text import fold

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
    text = folded_message(question)
    for pattern in (_ORDINAL_REF, _PRICE_REF):
        text = pattern.sub(" ", text)
    return re.sub(r"\s+", " ", text).strip()


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
    text = folded_message(question)
    if m := _ORDINAL_REF.search(text):
        rank = _ORDINALS[m.group(1)]
        index = rank - 1 if rank > 0 else len(listed) + rank
        return (index + 1, "ordinal") if 0 <= index < len(listed) else None
    if prices and (m := _PRICE_REF.search(text)):
        wanted = price_written(m.group(1) or m.group(2))
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


def subject_product(history: Sequence[Mapping[str, Any]], known: Collection[str]) -> str | None:
    """Return the one product the previous answer was about, or None.

    The only product it showed or quoted ("tell me more about the first one", "Tell me
    about the Pixel 8 Pro"), or the first of a ranking it answered ("What is the
    cheapest laptop?" lists the cheapest first), or the product a document answer to a
    superlative names first ("the best-selling phone"). A list that ranks nothing ("phones
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
    if last["route"] != "tool" and asks_for_a_superlative(str(last["question"] or "")):
        # « Quel est le smartphone le plus vendu ? » answered from the report: the product
        # its answer names first is the one the superlative picked ("Le Samsung Galaxy A55
        # 5G, vendu 449 $, a été le smartphone le plus vendu ..., devant le Google Pixel 8a").
        return first_named(str(last.get("answer") or ""), known)
    return None


def first_named(text: str, known: Collection[str]) -> str | None:
    """Return the catalog product whose full name a text writes first, or None."""
    folded = fold(text)
    found = [(i, name) for name in known if (i := folded.find(fold(name))) >= 0]
    return min(found)[1] if found else None


def compare_listed(question: str, listed: Sequence[str]) -> ToolRequest | None:
    """Compare products of the previous list that the message points at without naming.

    "Compare les deux premiers", "compare the first two", "compare them": the first
    products as listed (all of them, at most four, when no count is said).
    """
    if len(listed) < 2:
        return None
    match = _COMPARE_LISTED.search(folded_message(question).strip())
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
    text = folded_message(question)
    for match in _ONE_RANKED.finditer(text):
        # The comparison is inside "the ... one", or after "celui" ("celui qui est le
        # moins cher").
        span = match.group(0) if match.group(0).startswith("the") else text[match.start() :]
        if any(re.search(p, span) for p, _, _ in [*SUPERLATIVES, *COMPARATIVES]):
            return True
    return False


def corrects_one_ranked(question: str, previous_question: str) -> bool:
    """Whether a correction puts another ranking in place of a previous "the ... one".

    "no, I meant the most expensive" after "the cheapest one" says which one was meant:
    it takes the place of the words it corrects, so it points at one product as "the
    most expensive one" would, not at the ranking of every product shown.
    """
    correction = read_correction(question)
    if correction is None or not points_at_one_ranked(previous_question):
        return False
    meant = folded_message(correction.meant)
    return any(re.search(p, meant) for p, _, _ in [*SUPERLATIVES, *COMPARATIVES])


def chooses_among_shown(question: str) -> bool:
    """Whether a message chooses among products shown: "which one", "lequel", "of those"."""
    return _AMONG_SHOWN.search(folded_message(question)) is not None


def ranks_a_category(question: str) -> bool:
    """Whether a message's answer is the top of a category on one spec, not all of it.

    "Which laptop is the most expensive?", "Et le plus cher ?": a superlative the catalog
    ranks, not chosen among products shown ("lequel est le plus cher ?"). Its answer
    lists the first three of the category: a cut of the category, not a set of its own.
    """
    text = folded_message(question)
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
    text = folded_message(question)
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


# A sort asked of a list: "sort them by price", "order those by weight", "trie-les par
# prix", "classe-les par autonomie", "rank them from cheapest to most expensive".
_SORT = re.compile(
    r"\b(?:sort|order|rank|arrange|re-?order|trie[rz]?|tri|classe[rz]?|range[rz]?|ordonne[rz]?)"
    r"\b(?:-(?:les|them))?(?:\s+[\w'-]+){0,3}?\s+"
    # What it sorts on, or from which end: "by price", "par prix", "from the cheapest".
    r"(?:by|par|selon|on|according to|en fonction d[eu]|from|du|des|in)\b"
)
# The way a sort goes when the message says it; otherwise the better end of the spec
# comes first (`better_end`).
_DESCENDING = re.compile(
    r"\b(?:descending|decreasing|decroissante?|high(?:est)? to low(?:est)?|highest first|"
    r"largest first|biggest first|most expensive first|from (?:the )?(?:highest|largest|"
    r"biggest|most|heaviest|longest|newest)|du plus|des plus|par ordre decroissant)\b"
)


_ASCENDING = re.compile(
    r"\b(?:ascending|increasing|croissante?|low(?:est)? to high(?:est)?|"
    r"(?:lowest|smallest|least|fewest|shortest|oldest|cheapest|lightest) first|"
    r"from (?:the )?(?:lowest|smallest|least|fewest|shortest|oldest|cheapest|lightest)|"
    r"du moins|des moins|par ordre croissant)\b"
)


# The better end first, whatever the spec: "best first", « le meilleur en premier ».
_BEST_FIRST = re.compile(
    r"\b(?:best|better|top) (?:ones? )?first\b"
    r"|\b(?:les? |la )?meilleure?s? (?:en premier|d'abord)\b"
)


def sort_listed(
    question: str, listed: Sequence[str], category: str | None = None
) -> ToolRequest | None:
    """Rank the products the previous answer listed, in the order a sort asks.

    "sort them by price", "trie-les par poids", "order those from the heaviest": the
    products shown, ordered on the spec named (or the one a superlative names, "from
    cheapest to most expensive"), the better end first (the least of a price or a weight,
    the most of any other spec) unless the message says which end comes first. A message
    naming another kind of product than those listed is a new catalog question.
    """
    if len(listed) < 2 or len(listed) > 10:  # the ranking tool takes at most ten names
        return None
    text = folded_message(question)
    if not _SORT.search(text):
        return None
    if any(re.search(p, text) for c, p in CATEGORY_WORDS.items() if c != category):
        return None
    said = "desc" if _DESCENDING.search(text) else "asc" if _ASCENDING.search(text) else None
    for pattern, _, way in SUPERLATIVES:
        # "heaviest first", "le plus lourd en premier": that end of the spec comes first.
        if re.search(rf"(?:{pattern})\s+(?:ones?\s+)?(?:first|en premier|d'abord)\b", text):
            said = way
    specs = asked_specs(text)
    spec = specs[0] if specs else None
    if spec is not None:
        # "best first", or no end said ("trie-les par autonomie"): the end a buyer
        # prefers comes first, as a ranking of the spec would put it.
        order = said if said and not _BEST_FIRST.search(text) else better_end(spec)
    else:
        # "from cheapest to most expensive": the first superlative says the spec and the
        # way the sort goes.
        found = [
            (m.start(), named, way)
            for pattern, named, way in SUPERLATIVES
            if (m := re.search(pattern, text))
        ]
        if not found:
            return None
        _, spec, order = min(found)
    if spec.startswith("battery"):
        if category is None:
            return None
        spec = "battery_hours" if category == "laptop" else "battery_mah"
    if spec not in _SORTABLE:
        return None
    return ToolRequest(
        "rank_products", {"spec": spec, "order": order, "names": list(listed), "limit": len(listed)}
    )


# The specs the ranking tool orders on (the display is ranked by its size).
_SORTABLE = frozenset(
    {"price_usd", "weight_kg", "battery_hours", "battery_mah", "display", "storage_gb",
     "ram_gb", "camera_mp", "release_year", "warranty_years"}
)  # fmt: skip
