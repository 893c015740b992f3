"""A "best" that names no criterion, and the criterion a typed reply chooses.

"What's the best phone?": the criteria are offered back (`RANKING_CRITERIA`).
"""

from __future__ import annotations

import re

from threadline.graph.catalog_requests.wording import (
    BUDGET,
    CATEGORY_WORDS,
    COMPARATIVES,
    MAX_PRICE,
    MIN_PRICE,
    PHONE_AS_CHANNEL,
    SPEC_VALUE,
    SUPERLATIVES,
    WANTED_QUALITIES,
    folded_message,
)
from threadline.knowledge.facts import SALES_RANKING
from threadline.text import fold

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
    phone by price. "the best camera", "best-selling", "sold best", a price bound or a budget
    are criteria.
    "Which phone should I buy?" and "quel ordinateur me conseillez-vous ?" ask the same.
    """
    text = PHONE_AS_CHANNEL.sub(" ", folded_message(question))
    category = next((c for c, p in CATEGORY_WORDS.items() if re.search(p, text)), None)
    if category is None:
        return None
    # "best" qualifies the category ("the best 5G phone", "quel téléphone est le
    # meilleur"), not another noun ("the best way to secure my laptop").
    if not asks_for_a_pick(text, category):
        return None
    ranked = [pattern for pattern, _, _ in [*SUPERLATIVES, *COMPARATIVES]]
    if any(re.search(p, text) for p in ranked) or SALES_RANKING.search(text):
        return None
    if wanted_quality(text, category) is not None:
        return None
    if any(p.search(text) for p in (MAX_PRICE, MIN_PRICE, BUDGET, SPEC_VALUE)):
        return None
    return category


# A ranking on what buyers or reviewers think of a product: "the top-rated phone", "the
# best reviewed laptop", "which phone has the best ratings?", « le téléphone le mieux
# noté », « les meilleurs avis ». The catalog states specs and prices, no ratings.
_RATED = re.compile(
    r"\b(?:top|best|highest|most|better)[- ]?(?:rated|reviewed|ratings?|reviews?|scores?|"
    r"stars?)\b|\brated (?:the )?(?:best|highest|most)\b|\b(?:most|best) liked\b|"
    r"\bmieux (?:note|notee|notes|notees|evalue|evaluee|evalues|evaluees|juge|jugee)\b|"
    r"\bmeilleure?s? (?:notes?|avis|evaluations?|critiques?)\b|\bplus d'etoiles\b"
)


def ranked_on_ratings(question: str) -> str | None:
    """Return the category a ranking on ratings or reviews is asked of, or None.

    "what's the top-rated phone?": the catalog rates nothing, so it says so and offers
    what it ranks on (`RANKING_CRITERIA`) rather than quoting a page that writes "top".
    """
    text = PHONE_AS_CHANNEL.sub(" ", folded_message(question))
    if not _RATED.search(text):
        return None
    return next((c for c, p in CATEGORY_WORDS.items() if re.search(p, text)), None)


def asks_for_a_pick(text: str, category: str) -> bool:
    """Whether a folded message asks for the best product of a category, or one to buy."""
    # "best" qualifies the category ("the best 5G phone", "quel téléphone est le
    # meilleur"), not another noun ("the best way to secure my laptop").
    word = CATEGORY_WORDS[category]
    governs = (
        rf"{_BEST.pattern}\s+(?:[\w'-]+\s+)?{word}|{word}\s+(?:[\w'-]+\s+){{0,2}}?{_BEST.pattern}"
    )
    return bool(re.search(governs, text) or re.search(_RECOMMEND.format(category=word), text))


# Looking for one product of a kind: "I'm looking for a light laptop", « je cherche un
# portable léger », « il me faut un téléphone pas cher » (folded text).
_LOOKING_FOR = (
    r"\b(?:looking for|searching for|je (?:re)?cherche|nous (?:re)?cherchons|je voudrais|"
    r"j'aimerais|il me faut|(?:j'ai|on a) besoin d')\s*(?:un|une|a|an)\s+(?:[\w'-]+\s+)?{category}"
)


def wants_one_of_quality(text: str, category: str) -> tuple[str, str] | None:
    """Return the spec and order a request for one product with a quality ranks on, or None.

    "Which phone should I buy? something cheap", « je cherche un portable léger pour
    voyager »: a pick asked, or one product looked for, with a quality wanted in the
    plain degree ("cheap", « léger ») is a ranking on that quality. Looking for one
    with no quality said asks nothing to rank.
    """
    looking = re.search(_LOOKING_FOR.format(category=CATEGORY_WORDS[category]), text)
    if not (asks_for_a_pick(text, category) or looking):
        return None
    return wanted_quality(text, category)


def wanted_quality(text: str, category: str) -> tuple[str, str] | None:
    """Return the spec and order a quality wanted of a product names ("cheap"), or None.

    The plain degree of a spec's superlative ("cheap", « pas cher », "light") in a
    recommendation is its ranking: the cheapest first. The catalog weighs laptops only.
    """
    for pattern, spec, order in WANTED_QUALITIES:
        if re.search(pattern, text) and (spec != "weight_kg" or category == "laptop"):
            return spec, order
    return None


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
    match = _CRITERION_WRAP.match(folded_message(message).strip())
    if match is None:
        return None
    said = match["criterion"].strip()
    for english, french, en_question, fr_question in RANKING_CRITERIA.get(category, []):
        if said == fold(french):
            return fr_question
        if said == fold(english):
            return en_question
    return None
