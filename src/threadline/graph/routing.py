"""Deterministic turn classification: which path a user message takes through the graph.

Priorities (DESIGN.md §1): tool request > explicit follow-up reference >
follow-up by context > standalone question > greeting/thanks/meta. No LLM is
involved, so routing costs nothing and is reproducible.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from threadline.followups.outline import OutlineSection
from threadline.followups.references import (
    Reference,
    is_pure_anaphora,
    looks_like_followup,
    resolve_reference,
)
from threadline.knowledge.text import fold

# Per-language word lists: adding a language is adding entries here.
SMALL_TALK = {
    "en": [
        r"(hi|hello|hey|good (morning|afternoon|evening))( there)?",
        r"(thanks|thank you|thx|cheers|great|perfect|ok|okay)( (a lot|very much|so much))?",
        r"(bye|goodbye|see you)",
        r"(what|who) (can you do|are you)",
        r"how (can|do) (you|i use you) help( me)?",
        r"help",
    ],
    "fr": [
        r"(bonjour|bonsoir|salut|coucou)",
        r"(merci|merci beaucoup|parfait|super|d'accord|ok)",
        r"(au revoir|a bientot|bonne journee)",
        r"(que|qu'est-ce que) (sais-tu|peux-tu) faire",
        r"qui es-tu",
        r"aide",
    ],
}
# Which reply small talk gets: thanks and goodbyes are not greeted.
_THANKS = re.compile(
    r"^(thanks|thank you|thx|cheers|great|perfect|merci|parfait|super)\b", re.IGNORECASE
)
_BYE = re.compile(r"^(bye|goodbye|see you|au revoir|a bientot|bonne journee)\b", re.IGNORECASE)


def small_talk_kind(query: str) -> Literal["thanks", "bye", "greeting"]:
    """What a small-talk message is: thanks, a goodbye, or a greeting/question about us."""
    text = fold(query).strip(" !.?,;:")
    if _THANKS.match(text):
        return "thanks"
    if _BYE.match(text):
        return "bye"
    return "greeting"


DELIVERABLE = {
    "en": r"\b(summar(y|ies|ise|ize|ising|izing)|overview|synthesis|synthesi[sz]e|recap|"
    r"report on|brief me|briefing|outline of|key points|main points|highlights of|"
    r"walk me through|rundown|digest of|tl;?dr|gist of)\b",
    "fr": r"\b(resume[rz]?|resumez|resumer|synthese|synthetise[rz]?|vue d'ensemble|"
    r"recapitul\w*|recap|fais le point|bilan de|points cles|principaux points|grandes lignes|"
    r"apercu|survol\w*|presente[rz]?(-moi)? (le|la|les)|l'essentiel)\b",
}
CATEGORY_WORDS = {
    "phone": r"\b(phones?|smartphones?|mobiles?|telephones?|portables? 5g)\b",
    "laptop": r"\b(laptops?|notebooks?|ordinateurs? portables?|pc portables?|ultrabooks?)\b",
}
_MAX_PRICE = re.compile(
    r"\b(under|below|less than|cheaper than|up to|max(imum)?|at most|moins de|sous|"
    r"jusqu'a|au plus|inferieur a|pas plus de)\s*\$?\s*(\d[\d,. ]*)\s*(\$|usd|dollars?|eur|€)?"
)
_MIN_PRICE = re.compile(
    r"\b(over|above|more than|at least|from|plus de|au moins|a partir de|superieur a)\s*"
    r"\$?\s*(\d[\d,. ]*)\s*(\$|usd|dollars?|eur|€)?"
)
_BETWEEN = re.compile(r"\b(between|entre)\s*\$?\s*(\d[\d,]*)\s*(and|et|-)\s*\$?\s*(\d[\d,]*)")
_COMPARE = re.compile(r"\b(compare[rz]?|comparison|comparatif|versus|vs\.?)\b")
_LIST_CUE = re.compile(
    r"\b(what|which|list|show|any|do you (have|sell)|quels?|quelles?|liste|montre|"
    r"avez-vous|vendez-vous)\b"
)


@dataclass(frozen=True)
class ToolRequest:
    """A typed call to one catalog tool."""

    name: str
    args: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class TurnPlan:
    """What the router decided for one message."""

    route: str
    reference: Reference | None = None
    tool: ToolRequest | None = None
    deliverable: bool = False


def _price(raw: str) -> float:
    return float(raw.replace(",", "").replace(" ", "").rstrip("."))


def is_small_talk(question: str) -> bool:
    """Greetings, thanks and questions about the assistant itself: nothing to look up."""
    text = fold(question).strip(" !?.,;:")
    text = re.sub(r"\s+", " ", text)
    return any(
        re.fullmatch(f"{pattern}( threadline)?", text)
        for patterns in SMALL_TALK.values()
        for pattern in patterns
    )


def is_deliverable_request(question: str) -> bool:
    """A summary, synthesis, overview or report: the answer gets an outline."""
    text = fold(question)
    return any(re.search(pattern, text) for pattern in DELIVERABLE.values())


def parse_catalog_request(question: str, brands: Sequence[str]) -> ToolRequest | None:
    """Turn a catalog question into a typed tool call, or None if it is not one.

    It needs a product category or a known brand, plus a price constraint, a
    listing cue or a comparison; anything else is a document question.
    """
    text = fold(question)
    category = next((c for c, p in CATEGORY_WORDS.items() if re.search(p, text)), None)
    brand = next((b for b in brands if re.search(rf"\b{re.escape(fold(b))}\b", text)), None)
    if _COMPARE.search(text):
        names = [
            n.strip(" ?.!")
            for n in re.split(r"\b(?:and|et|with|avec|vs\.?|versus|to|a)\b|,", text)
            if n.strip(" ?.!")
        ]
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
    if m := _BETWEEN.search(text):
        args["min_price"], args["max_price"] = _price(m.group(2)), _price(m.group(4))
    else:
        if m := _MAX_PRICE.search(text):
            args["max_price"] = _price(m.group(3))
        if m := _MIN_PRICE.search(text):
            args["min_price"] = _price(m.group(2))
    has_price = "max_price" in args or "min_price" in args
    if not has_price and not (category and _LIST_CUE.search(text)):
        return None
    return ToolRequest("search_products", args)


def plan_turn(
    question: str,
    *,
    outline: Sequence[OutlineSection],
    source_titles: Sequence[str],
    has_previous_turn: bool,
    brands: Sequence[str] = (),
) -> TurnPlan:
    """Classify one message (pure function of the message and the thread state)."""
    deliverable = is_deliverable_request(question)
    tool = parse_catalog_request(question, brands)
    if tool is not None:
        return TurnPlan("tool", tool=tool)
    # Exact greetings and thanks only, so this cannot swallow a short follow-up.
    if is_small_talk(question):
        return TurnPlan("reply")
    if has_previous_turn:
        reference = resolve_reference(question, outline, source_titles)
        if reference.detected:
            return TurnPlan("followup_reference", reference=reference)
        if is_pure_anaphora(question):
            if outline:
                anaphora = Reference(
                    detected=True,
                    resolved=False,
                    ref_type="anaphora",
                    section_id=None,
                    document_index=None,
                    method="deterministic",
                    reason="pure_anaphora",
                )
                return TurnPlan("clarify", reference=anaphora)
            return TurnPlan("followup_context", deliverable=deliverable)
        if looks_like_followup(question):
            return TurnPlan("followup_context", deliverable=deliverable)
    return TurnPlan("standalone", deliverable=deliverable)
