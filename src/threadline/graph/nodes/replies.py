"""The nodes that answer without generating: small talk, clarify, decline, ask which.

Their texts (French and English) live in `threadline.graph.replies`.
"""

from __future__ import annotations

from typing import Any

from threadline.graph import replies
from threadline.graph.answering import language_of
from threadline.graph.catalog_requests import (
    RANKING_CRITERIA,
    best_without_criterion,
    ranked_on_ratings,
)
from threadline.graph.context import run_services
from threadline.graph.question_terms import pointer_of
from threadline.graph.retrieval import readable_titles
from threadline.graph.routing import small_talk_kind
from threadline.graph.state import Clarify, State
from threadline.knowledge.catalog import absent_models, sharing_words
from threadline.policy import PolicyViolation, allowed_sources, may_read_catalog

# The catalog's categories as a decline names them ("Huawei phones", « Lenovo téléphones »).
_CATEGORY_NAMES = {
    "en": {"phone": "phones", "laptop": "laptops"},
    "fr": {"phone": "téléphones", "laptop": "ordinateurs portables"},
}


def reply(state: State) -> dict[str, Any]:
    """Greetings, thanks and 'what can you do': never a fact.

    Args:
        state: The routed turn.

    Returns:
        The update: answer, outcome, stop_reason.
    """
    kind = small_talk_kind(state.query)
    if kind == "about":
        text = replies.about_the_assistant(_titles_the_caller_reads(state), language_of(state))
    else:
        text = replies.small_talk(kind, language_of(state))
    return {"answer": text, "outcome": "reply", "stop_reason": "small_talk"}


def _titles_the_caller_reads(state: State) -> list[str]:
    """Return the titles of the documents the turn may search, as a decline names them.

    The same permission path as retrieval's: the caller app's sources narrowed by the
    request's, within the turn's tenant; a request for sources the app may not read
    names none.
    """
    services = run_services()
    try:
        sources = allowed_sources(services.settings.source_policy, state.caller_app, state.sources)
    except PolicyViolation:
        return []
    return readable_titles(services.kb, state, sources)


def clarify(state: State) -> dict[str, Any]:
    """Ask instead of guessing: which section, which document, or a rephrasing.

    Args:
        state: The turn that found nothing to answer from, or an unresolved reference.

    Returns:
        The update: answer, outcome, stop_reason, clarify, empty citations and outline.
    """
    language = language_of(state)
    fu = state.followup
    outline = state.thread_state.last_outline
    reason = fu.reason if fu.detected and not fu.resolved else None
    stop_reason = state.stop_reason
    chips: Clarify = {"reason": "not_in_documents", "options": []}
    if outline and reason and fu.ref_type != "document":
        chips = replies.which_section_options(outline, language)
    if fu.reason == "which_criterion":
        # "the best phone" named no criterion: the rankings the catalog offers.
        # A spec of "it" after that question back is asked of the category it named.
        asked_back = str(state.history[-1].get("question") or "") if state.history else ""
        category = best_without_criterion(state.query) or best_without_criterion(asked_back) or ""
        text, chips = replies.ask_criterion(
            language=language, criteria=RANKING_CRITERIA.get(category, [])
        )
        stop_reason = "ambiguous"
    elif fu.reason == "no_ratings":
        # "the top-rated phone": no rating is stated; what the catalog ranks on instead.
        category = ranked_on_ratings(state.query) or ""
        kinds = _CATEGORY_NAMES["fr" if language == "fr" else "en"]
        text, chips = replies.no_ratings(
            kinds.get(category, ""), language=language, criteria=RANKING_CRITERIA.get(category, [])
        )
        stop_reason = "not_in_documents"
    elif reason == "which_product":
        # "it" after a list of products: the list as shown (a catalog answer's titles
        # are its products' names) is what the user chooses from.
        products = [t.split(" — ")[0] for t in state.thread_state.last_titles]
        text, chips = replies.ask_which(
            language=language, candidates=products, question=state.query
        )
        stop_reason = "ambiguous"
    elif reason == "which_kind":
        # "le moins cher ?" after a declined turn, no kind of product named before:
        # which kind the catalog ranks is the user's to say.
        kinds = _CATEGORY_NAMES["fr" if language == "fr" else "en"]
        text, chips = replies.ask_which(
            language=language, candidates=list(kinds.values()), question=state.query
        )
        stop_reason = "ambiguous"
    elif reason == "nothing_pointed_at":
        # "who is responsible for that?" after a decline: "that" stands for nothing the
        # conversation showed; asked, not guessed from the passages a search finds.
        pointer = pointer_of(state.query) or ("ça" if language == "fr" else "that")
        text = replies.nothing_pointed_at(pointer, language)
        stop_reason = "unresolved_reference:nothing_pointed_at"
    elif reason == "pure_anaphora":
        text = replies.which_section(outline, language)
        stop_reason = "ambiguous_reference"
    elif reason == "which_to_compare":
        text = replies.which_sections_to_compare(outline, language)
        stop_reason = "ambiguous_reference"
    elif reason and fu.ref_type == "document":
        text = replies.which_source(len(state.thread_state.last_titles), language)
        stop_reason = f"unresolved_reference:{reason}"
    elif reason:
        text = replies.no_such_part(outline, language)
        stop_reason = f"unresolved_reference:{reason}"
    elif stop_reason == "no_matching_products" and state.tool_call:
        # "any Huawei phones?": the catalog has none. Declined as any question the
        # documents do not answer: what is missing (the brand asked for), and the catalog
        # as the closest document, not "could you rephrase?".
        args = state.tool_call["args"]
        brand, asked_category = args.get("brand"), args.get("category")
        kinds = _CATEGORY_NAMES["fr" if language == "fr" else "en"]
        missing = " ".join(str(w) for w in (brand, kinds.get(str(asked_category))) if w)
        titles = run_services().kb.document_titles(tenant=state.tenant)
        catalog = [title for _, title, source in titles if source == "catalog"]
        text, chips = replies.decline(
            language=language, missing=[missing] if brand else [], closest=catalog[:3]
        )
    elif stop_reason == "product_not_in_catalog" and state.tool_call:
        # The model asked is none of the catalog's: the products whose names share its
        # words are the closest ("Pixel 8": the Pixel 8a and the Pixel 8 Pro).
        product_catalog = run_services().kb.catalog
        names = list(state.tool_call["args"]["names"])
        absent = absent_models(product_catalog, state.tenant, names)
        close = sharing_words(product_catalog.products(state.tenant), absent[0])
        text = replies.not_in_catalog(absent[0], [p.name for p in close], language)
        stop_reason = "not_in_documents"
    elif stop_reason == "spec_not_stated" and state.tool_call:
        args = state.tool_call["args"]
        if state.tool_call["name"] == "rank_products" and args.get("names"):
            # What is missing, said: the spec ranked, of the kind of products ranked.
            found = run_services().kb.catalog.find(state.tenant, list(args.get("names") or []))
            categories = {p.category for p in found}
            plural = _CATEGORY_NAMES["fr" if language == "fr" else "en"]
            kind = plural.get(categories.pop(), "") if len(categories) == 1 else ""
            text = replies.spec_not_stated_for(str(args.get("spec", "")), kind, language)
        elif state.tool_call["name"] == "rank_products":
            # A kind's ranking on a spec none of its products has ("the lightest phone").
            kinds = _CATEGORY_NAMES["fr" if language == "fr" else "en"]
            kind = kinds.get(str(args.get("category")), "")
            text = replies.spec_stated_for_none(str(args.get("spec", "")), kind, language)
        else:
            text = replies.spec_not_stated(str(args.get("name", "")), language)
        stop_reason = "not_in_documents"
    elif stop_reason and stop_reason.startswith("source_denied"):
        text = replies.not_allowed(stop_reason, language)
    elif stop_reason and stop_reason.startswith("invalid_intent"):
        text = replies.cannot_search(stop_reason, language)
    elif stop_reason == "no_context" and state.evidence.get("closest"):
        # Nothing found: declined as any question the documents do not answer, naming
        # the documents to look at instead (the stop reason still says nothing matched).
        text, chips = replies.decline(
            language=language, missing=[], closest=state.evidence["closest"]
        )
    else:
        text = replies.nothing_found(language)
    return {
        "answer": text,
        "outcome": "clarify",
        "stop_reason": stop_reason or "no_context",
        "clarify": chips,
        "citations": [],
        "outline": [],
    }


def decline(state: State) -> dict[str, Any]:
    """Not in the documents: say so plainly, name the closest titles, cite nothing.

    Args:
        state: The turn the evidence check (or the model) declined.

    Returns:
        The update: answer, outcome, stop_reason, clarify, empty citations and outline.
    """
    ev = state.evidence
    close_products = _closest_products(state, ev.get("missing_named") or [])
    if close_products:
        # "is that more than the pixel 8?": the model named is none of the catalog's, and
        # the products whose names share its words are the closest, as for a comparison.
        absent, names = close_products
        return {
            "answer": replies.not_in_catalog(absent, names, language_of(state)),
            "outcome": "clarify",
            "stop_reason": "not_in_documents",
            "clarify": {"reason": "not_in_documents", "options": []},
            "citations": [],
            "outline": [],
        }
    text, chips = replies.decline(
        language=language_of(state),
        missing=ev.get("missing_named") or [],
        closest=ev.get("closest") or [],
        asks_for=ev.get("asks_for") if ev.get("reason", "").startswith("no_") else None,
        aim=ev.get("aim") or "",
        quality=ev.get("quality") or "",
    )
    return {
        "answer": text,
        "outcome": "clarify",
        "stop_reason": "not_in_documents",
        "clarify": chips,
        "citations": [],
        "outline": [],
    }


def _closest_products(state: State, missing: list[str]) -> tuple[str, list[str]] | None:
    """Return the one model a decline names that the catalog lacks, and the closest products.

    "Pixel 8": no product is named so, the Pixel 8a and the Pixel 8 Pro share its words.
    None when the turn may not read the catalog, or no missing name is such a model.
    """
    if len(missing) != 1:
        return None
    services = run_services()
    if not may_read_catalog(services.settings.source_policy, state.caller_app, state.sources):
        return None
    catalog = services.kb.catalog
    absent = absent_models(catalog, state.tenant, missing)
    close = sharing_words(catalog.products(state.tenant), absent[0]) if absent else []
    return (absent[0], [p.name for p in close]) if close else None


def ask(state: State) -> dict[str, Any]:
    """Ambiguous: ask which of the candidates the user means.

    Args:
        state: The turn the evidence check (or the model) found ambiguous.

    Returns:
        The update: answer, outcome, stop_reason, clarify, empty citations and outline.
    """
    reason = state.evidence.get("reason", "")
    text, chips = replies.ask_which(
        language=language_of(state),
        candidates=state.evidence.get("candidates") or [],
        question=state.query,
        phrase=reason.split(":")[1] if reason.startswith("unanchored:") else "",
    )
    return {
        "answer": text,
        "outcome": "clarify",
        "stop_reason": "ambiguous",
        "clarify": chips,
        "citations": [],
        "outline": [],
    }
