"""Rankings asked tersely, the kind or the spec read from the conversation.

"and the cheapest?" over the kind last named, "and the smallest?" on the previous
ranking's spec.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from threadline.graph.catalog_requests.criteria import wants_one_of_quality
from threadline.graph.catalog_requests.parsing import parse_catalog_request
from threadline.graph.catalog_requests.wording import (
    CATEGORY_WORDS,
    COMPARATIVES,
    PHONE_AS_CHANNEL,
    SUPERLATIVES,
    ToolRequest,
    folded_message,
)
from threadline.text import fold


def asks_for_a_ranking(question: str) -> bool:
    """Whether a message asks for the products best or worst on some spec.

    Its answer lists them best first, and the first is what it asked for: "it" in the
    next message is that product ("the cheapest laptop" → "how much RAM does it have?").
    """
    text = folded_message(question)
    if any(re.search(pattern, text) for pattern, _, _ in [*SUPERLATIVES, *COMPARATIVES]):
        return True
    # "Which phone should I buy? something cheap": a pick ranked on the quality wanted,
    # whose first is the one recommended, as "the cheapest phone" is.
    return any(
        wants_one_of_quality(text, category) is not None
        for category, pattern in CATEGORY_WORDS.items()
        if re.search(pattern, text)
    )


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
        text = PHONE_AS_CHANNEL.sub(" ", folded_message(message))
        found = [(m.start(), c) for c, p in CATEGORY_WORDS.items() if (m := re.search(p, text))]
        if found:
            return max(found)[1]
    return None


def terse_superlative(message: str, brands: Sequence[str]) -> bool:
    """Whether a message is a superlative the catalog ranks, naming no kind nor brand."""
    text = folded_message(message).strip()
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
    text = folded_message(message).strip()
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


# What a ranking keeps of the products it ranks, whatever its spec: their kind, brand,
# system and price bounds (a bound on the spec ranked bounds that spec alone).
_RANKED_SET = ("category", "brand", "os", "min_price", "max_price")


def reranked_on_another_spec(
    message: str, previous_question: str, brands: Sequence[str]
) -> ToolRequest | None:
    """Return the products the previous ranking ranked, ranked on a terse superlative's spec.

    "What's the cheapest Samsung?" then "and the most expensive?" ranks the Samsung
    products again, on price the other way: a superlative naming no kind nor brand ranks
    the same products as the ranking before it (its kind, brand, system and price
    bounds), not every product of the kind. None when the message is no such superlative
    or the previous question ranked nothing.
    """
    if not terse_superlative(message, brands):
        return None
    previous = parse_catalog_request(previous_question, brands)
    if previous is None or previous.name != "rank_products":
        return None
    kept = {key: previous.args[key] for key in _RANKED_SET if key in previous.args}
    if not kept:
        return None
    text = folded_message(message)
    spec, order = next((s, o) for p, s, o in SUPERLATIVES if re.search(p, text))
    if spec == "battery":
        if kept.get("category") is None:
            return None  # hours for a laptop, mAh for a phone: the kind says which
        spec = "battery_hours" if kept["category"] == "laptop" else "battery_mah"
    return ToolRequest("rank_products", {"spec": spec, "order": order} | kept)
