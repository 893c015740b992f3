"""Comparisons read from a message, on a spec the catalog holds.

"is it cheaper than X?", "is X heavier than Y?", "which is cheaper, A or B?".
"""

from __future__ import annotations

import re

from threadline.graph.catalog_requests.wording import (
    COMPARATIVES,
    COMPARE,
    SUPERLATIVES,
    folded_message,
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
    text = folded_message(question)
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
    text = folded_message(question)
    if _PRICE_COMPARED_FR.search(text):
        # "Est-ce que le Galaxy S24 est moins cher que le Pixel 8a ?" (a yes/no question
        # since "est-ce que" reads as one): the two rows ranked on price answer it.
        return True
    than = _THAN.search(text)
    return than is not None and any(
        re.search(pattern, text[: than.start()]) for pattern, _, _ in COMPARATIVES
    )


# Words for "another product than the one shown": what the rows are, as a kind word is.
_ANOTHER_ONE = re.compile(r"\b(?:alternatives?|options?|substitutes?|autres?)\b")


def without_comparatives(question: str) -> str:
    """Return a message without its comparatives on a spec and its words for another product.

    "is there a cheaper alternative with a good camera?" over catalog rows ranked on price:
    "cheaper" is stated by the rows' prices, and an "alternative" is any row; what the rows
    must write is what is left ("camera"). Folded text.
    """
    text = folded_message(question)
    for pattern, _, _ in COMPARATIVES:
        text = re.sub(pattern, " ", text)
    text = _PRICE_COMPARED_FR.sub(" ", text)
    return re.sub(r"\s+", " ", _ANOTHER_ONE.sub(" ", text)).strip()


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
    text = folded_message(question)
    before = text[: _THAN.search(text).start()]  # type: ignore[union-attr]
    opening = _COMPARED_OPENING.match(before)
    if opening is None:
        return None
    for pattern, _, _ in [*COMPARATIVES, *SUPERLATIVES]:
        found = re.search(pattern, before)
        if found is not None:
            first = before[opening.end() : found.start()]
            # "Does the Nokia G42 have a bigger battery than...", "le Galaxy S24 a une plus
            # grosse batterie que...": the verb and its article end the first thing's name.
            first = re.sub(
                r"(?:\s+(?:est|is|plus|moins|more|less|have|has|a|an|un|une|the|get|gets))+\s*$",
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
    text = folded_message(question)
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


def is_comparison(question: str) -> bool:
    """Whether a message asks to compare products ("Compare the Pixel 8a and the A55")."""
    return COMPARE.search(folded_message(question)) is not None
