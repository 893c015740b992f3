"""Deterministic turn classification: which path a user message takes through the graph.

Priorities (DESIGN.md §1): tool request > explicit follow-up reference >
follow-up by context > standalone question > greeting/thanks/meta. No LLM is
involved, so routing costs nothing and is reproducible.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from threadline.followups.anaphora import is_pure_anaphora, looks_like_followup
from threadline.followups.outline import OutlineSection
from threadline.followups.reference_model import Reference
from threadline.followups.references import resolve_reference
from threadline.graph.catalog_requests import (
    ToolRequest,
    asked_specs,
    asks_a_spec_of_it,
    asks_of_one_unnamed,
    best_without_criterion,
    compare_listed,
    listed_product,
    parse_catalog_request,
    rank_listed,
    ranked_on_ratings,
    sort_listed,
)
from threadline.knowledge.bilingual import word_in_both_languages
from threadline.text import fold
from threadline.text.lexicons import en, fr

# "compare them", « compare-les »: a comparison of what the previous answer showed, naming
# none of it.
_COMPARE_THEM = re.compile(
    r"^\s*(?:(?:can|could) you\s+|please\s+|peux-tu\s+|pouvez-vous\s+)?"
    r"(?:compare|comparer|comparez|compare-les|comparez-les)"
    r"(?:\s+(?:them|those|these|les|ces|ceux-ci|celles-ci|ceux-la|celles-la))?"
    r"(?:\s+(?:all|tous|toutes))?(?:\s+please)?\s*[?.!]*\s*$",
    re.I,
)
# A comparison of the parts of an outline with more of them than this asks which.
_PARTS_COMPARED_WHOLE = 2


# The words of each language live in threadline.text.lexicons; a language is added there.
SMALL_TALK = {"en": list(en.SMALL_TALK), "fr": list(fr.SMALL_TALK)}
# Which reply small talk gets: thanks and goodbyes are not greeted.
_THANKS = re.compile(r"^(" + "|".join(en.THANKS + fr.THANKS) + r")\b", re.IGNORECASE)
_BYE = re.compile(r"^(" + "|".join(en.GOODBYES + fr.GOODBYES) + r")\b", re.IGNORECASE)


ABOUT_THE_ASSISTANT = {"en": list(en.ABOUT_THE_ASSISTANT), "fr": list(fr.ABOUT_THE_ASSISTANT)}


def _whole_message(question: str) -> str:
    """Return a message folded, its end punctuation and repeated spaces dropped."""
    return re.sub(r"\s+", " ", fold(question).strip(" !?.,;:"))


def _matches_whole(text: str, patterns: dict[str, list[str]]) -> bool:
    """Whether one of the patterns (either language's) is the whole folded message."""
    return any(
        re.fullmatch(f"{pattern}( threadline)?", text)
        for language_patterns in patterns.values()
        for pattern in language_patterns
    )


def asks_about_the_assistant(question: str) -> bool:
    """Whether a message asks what the assistant does or which documents it reads.

    "what can you help me with?", « quels documents as-tu ? »: the answer is the
    assistant's own (what it does, the titles the caller may read), not a passage, so
    nothing is searched and nothing cited. Whole messages only: "what documents do you
    need for a visa?" asks the documents a question.
    """
    return _matches_whole(_whole_message(question), ABOUT_THE_ASSISTANT)


def small_talk_kind(query: str) -> Literal["thanks", "bye", "greeting", "about"]:
    """Tell what a small-talk message is: thanks, a goodbye, about us, or a greeting."""
    text = fold(query).strip(" !.?,;:")
    if asks_about_the_assistant(query):
        return "about"
    if _THANKS.match(text):
        return "thanks"
    if _BYE.match(text):
        return "bye"
    return "greeting"


DELIVERABLE = {"en": en.DELIVERABLE, "fr": fr.DELIVERABLE}


@dataclass(frozen=True)
class TurnPlan:
    """What the router decided for one message."""

    route: str
    reference: Reference | None = None
    tool: ToolRequest | None = None
    deliverable: bool = False


def is_small_talk(question: str) -> bool:
    """Greetings, thanks and questions about the assistant itself: nothing to look up."""
    text = _whole_message(question)
    return _matches_whole(text, SMALL_TALK) or _matches_whole(text, ABOUT_THE_ASSISTANT)


def is_deliverable_request(question: str) -> bool:
    """Tell whether a question asks for a summary, synthesis, overview or report.

    The answer to such a request gets an outline.
    """
    text = fold(question)
    return any(re.search(pattern, text) for pattern in DELIVERABLE.values())


def plan_turn(
    question: str,
    *,
    outline: Sequence[OutlineSection],
    source_titles: Sequence[str],
    has_previous_turn: bool,
    brands: Sequence[str] = (),
    listed_products: Sequence[str] = (),
    listed_category: str | None = None,
    listed_is_cut: bool = False,
    listed_compared: bool = False,
    prices: dict[str, float] | None = None,
    discussed_products: Sequence[str] = (),
    subject_product: str | None = None,
    catalog: bool = True,
    pointed_section: str | None = None,
) -> TurnPlan:
    """Classify one message (pure function of the message and the thread state).

    `listed_products` are the products the previous answer listed (a catalog answer),
    in the order shown, and `listed_category` their shared category: a reference into
    that list is a product lookup, a comparison between them a ranking of them
    (`listed_is_cut`: the list was the top of its category, see `rank_listed`;
    `listed_compared`: the list was a comparison of those products).
    `discussed_products` are those a previous document answer was about (its sections
    that are products, as in an overview of the catalog): "which of those is
    cheapest?" ranks them too, while "the second point" stays a reference into its
    outline. `subject_product` is the one product the previous answer was about (the
    only one it showed, or the first of a ranking): a spec asked of "it" is looked up.
    `pointed_section` is the outline section the previous turn pointed at, from which
    "and the next one?" steps. A turn that may not read the product catalog (`catalog`
    False: its caller app's sources, or the request's, leave it out) is planned as a
    document question.
    """
    deliverable = is_deliverable_request(question)
    if catalog:
        plan = _catalog_plan(
            question,
            brands=brands,
            listed_products=listed_products,
            listed_category=listed_category,
            listed_is_cut=listed_is_cut,
            listed_compared=listed_compared,
            prices=prices,
            discussed_products=discussed_products,
            subject_product=subject_product,
        )
        if plan is not None:
            return plan
    # Exact greetings and thanks only, so this cannot swallow a short follow-up.
    if is_small_talk(question):
        return TurnPlan("reply")
    if has_previous_turn:
        reference = resolve_reference(
            question,
            outline,
            source_titles,
            translations=word_in_both_languages,
            pointed=pointed_section,
        )
        if reference.detected:
            return TurnPlan("followup_reference", reference=reference)
        if len(outline) > _PARTS_COMPARED_WHOLE and _COMPARE_THEM.match(fold(question)):
            # "compare them" after a summary of six sections: which two (or more) is
            # the user's to say; no passage holds "compare" to decline it on.
            anaphora = _deterministic_anaphora(False, "which_to_compare")
            return TurnPlan("clarify", reference=anaphora)
        if is_pure_anaphora(question):
            if outline:
                anaphora = _deterministic_anaphora(False, "pure_anaphora")
                return TurnPlan("clarify", reference=anaphora)
            return TurnPlan("followup_context", deliverable=deliverable)
        if looks_like_followup(question):
            return TurnPlan("followup_context", deliverable=deliverable)
    return TurnPlan("standalone", deliverable=deliverable)


def _catalog_plan(
    question: str,
    *,
    brands: Sequence[str],
    listed_products: Sequence[str],
    listed_category: str | None,
    listed_is_cut: bool,
    listed_compared: bool,
    prices: dict[str, float] | None,
    discussed_products: Sequence[str],
    subject_product: str | None,
) -> TurnPlan | None:
    """Plan a catalog turn (a tool call, or asking which product), or None for another kind."""
    if ranked_on_ratings(question):
        # "the top-rated phone": the catalog states no ratings; say so, with what it ranks.
        unrated = Reference(detected=False, resolved=False, reason="no_ratings")
        return TurnPlan("clarify", reference=unrated)
    if best_without_criterion(question):
        # "the best phone": best on what is the user's to say; ask back with the criteria.
        criterion = Reference(detected=False, resolved=False, reason="which_criterion")
        return TurnPlan("clarify", reference=criterion)
    tool = parse_catalog_request(question, brands)
    if tool is not None:
        return TurnPlan("tool", tool=tool)
    among = listed_products or discussed_products
    compared = compare_listed(question, among)  # before "the first": "compare the first two"
    if compared is not None:
        return TurnPlan("tool", tool=compared)
    found = listed_product(question, listed_products, prices)
    if found is not None:
        rank, ref_type = found
        reference = Reference(
            detected=True,
            resolved=True,
            ref_type=ref_type,
            document_index=rank,
            method="deterministic",
        )
        args = {"name": listed_products[rank - 1], "specs": asked_specs(question)}
        return TurnPlan("tool", reference=reference, tool=ToolRequest("get_product", args))
    # "sort them by price": the products shown, in the order asked.
    ranked = sort_listed(question, among, listed_category) or rank_listed(
        question, among, listed_category, listed_is_cut=listed_is_cut
    )
    if ranked is not None:
        # "them", "of those", "lequel" resolved to the products shown: no tool left for
        # a model to choose (it would see the message, not the products), the call is made.
        shown = _deterministic_anaphora(True)
        among_shown = ranked.name == "rank_products" and "names" in ranked.args
        return TurnPlan("tool", reference=shown if among_shown else None, tool=ranked)
    if asks_a_spec_of_it(question, brands) and listed_compared and not subject_product:
        # "What about the warranty?" after comparing two phones asks it of both: the
        # comparison is about every product compared, none of them in particular.
        reference = _deterministic_anaphora(True)
        args = {"names": list(listed_products), "specs": asked_specs(question)}
        return TurnPlan("tool", reference=reference, tool=ToolRequest("compare_products", args))
    if not subject_product and len(listed_products) >= 2 and asks_of_one_unnamed(question, brands):
        # "does it have 5G?" after a list that ranks nothing: "it" is any of the products
        # listed, whatever is asked of it (a spec or not): ask which.
        which = _deterministic_anaphora(False, "which_product")
        return TurnPlan("clarify", reference=which)
    if asks_a_spec_of_it(question, brands) and (subject_product or len(listed_products) >= 2):
        # "How much RAM does it have?": after "What is the cheapest laptop?" the catalog's
        # entry of that laptop, not whichever laptop's page retrieval ranks first among
        # the three listed; after a list that ranks nothing, any of them: ask which.
        reference = _deterministic_anaphora(
            bool(subject_product), None if subject_product else "which_product"
        )
        if not subject_product:
            return TurnPlan("clarify", reference=reference)
        args = {"name": subject_product, "specs": asked_specs(question)}
        return TurnPlan("tool", reference=reference, tool=ToolRequest("get_product", args))
    return None


def _deterministic_anaphora(resolved: bool, reason: str | None = None) -> Reference:
    """Return an anaphora ("it", "them", "of those") the router read without any model."""
    return Reference(
        detected=True,
        resolved=resolved,
        ref_type="anaphora",
        document_index=None,
        method="deterministic",
        reason=reason,
    )
