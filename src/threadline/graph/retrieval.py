"""The retriever: policy (seed 003), query-variant fusion, and context packing.

The retriever node proposes an intent (query, top_k, sources); this module
decides what may run and what may be used. Violations become a `stop_reason`,
never an exception. For a turn with history it searches a few query variants
(see `threadline.graph.reformulation.query_variants`) and fuses their rankings
by weighted reciprocal rank; the previous turn's sources may be added as a
prior ranking (off by default: it pulled follow-ups back to the old passages).

`retrieve_turn` is the body of the graph's `retrieve` node; the retrieval
benchmark calls it too, so what is measured is what the service runs. Budgets and
packing live in :mod:`threadline.graph.packing` (re-exported here).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

from threadline.conversations.source import WithConversations, conversations_requested
from threadline.graph.evidence import read_passages
from threadline.graph.fusion import DEFAULT_FUSION, FusionConfig, fusion_for_embeddings
from threadline.graph.packing import (
    Budget,
    ContextPack,
    RetrievalIntent,
    budget_for,
    chunk_dict,
    outline_chunks,
    pack_context,
    validate_intent,
)
from threadline.graph.question_terms import content_terms, points_at_a_part
from threadline.graph.reformulation import (
    QueryVariant,
    previous_turn,
    prior_weight,
    query_variants,
)
from threadline.graph.windows import WindowChunk, expand_windows
from threadline.knowledge.index import ScoredChunk, SearchFilters
from threadline.knowledge.language import passage_language
from threadline.policy import PolicyViolation, allowed_sources
from threadline.text import terms
from threadline.text.language import detect_language
from threadline.text.matching import matches_term

__all__ = [
    "Budget",
    "CandidateSearch",
    "ContextPack",
    "RetrievalIntent",
    "RetrievalOutcome",
    "budget_for",
    "chunk_dict",
    "fuse_rankings",
    "fusion_for_embeddings",
    "named_document_context",
    "outline_chunks",
    "pack_context",
    "retrieve_turn",
    "search_candidates",
    "search_ranked",
    "search_ranked_many",
    "validate_intent",
]

if TYPE_CHECKING:  # only the node-facing functions need these
    from threadline.graph.context import Context
    from threadline.graph.state import State
    from threadline.services import Services
    from threadline.settings import Settings
    from threadline.store.models import ThreadState


# --- candidate search: query variants fused by reciprocal rank --------------------------


@dataclass
class CandidateSearch:
    """The fused ranking of one turn and how it was obtained.

    Attributes:
        query: The query that stands for the search (state `search_query`).
        candidates: Chunks best first; each keeps the best engine score it got, so
            `min_score` keeps its meaning, while the order is the fusion's.
        attempts: One trace entry per search run.
        pack: The candidates packed within the budget.
    """

    query: str
    candidates: list[ScoredChunk]
    attempts: list[dict[str, Any]]
    pack: ContextPack


TRACE_CANDIDATES = 10
"""Candidates the retrieve trace lists with their scores."""


class _Keyed(Protocol):
    @property
    def chunk_id(self) -> str: ...

    @property
    def doc_id(self) -> str: ...


class Ranked(Protocol):
    """What rankings are sorted and fused by: a chunk's keys and a score."""

    @property
    def chunk(self) -> _Keyed: ...

    @property
    def score(self) -> float: ...


Hit = TypeVar("Hit", bound=Ranked)
"""A hit of a ranking: a whole chunk (`ScoredChunk`) or only its keys (`ChunkHit`)."""


def fuse_rankings(
    rankings: Sequence[tuple[float, Sequence[Hit]]],
    *,
    prior: Sequence[str] = (),
    prior_weight: float = 0.0,
    rrf_k: float = 60.0,
) -> list[Hit]:
    """Weighted reciprocal rank fusion of chunk rankings, with an optional document prior.

    A chunk scores ``sum(weight / (rrf_k + rank))`` over the rankings it appears in
    (rank from 1). The prior is a ranking of documents: every candidate chunk of the
    document at rank r gets ``prior_weight / (rrf_k + r)``. It only reorders chunks some
    query found; it never brings in a chunk on its own.

    Args:
        rankings: (weight, chunks best first) per query.
        prior: Document ids, best first (the previous turn's sources).
        prior_weight: Weight of the prior ranking; 0 disables it.
        rrf_k: The rank offset.

    Returns:
        Distinct chunks, best fused score first (ties: first seen, after each ranking's
        own score ties were ordered by chunk id), each carrying the best engine score
        it had in any ranking.
    """
    fused: dict[str, float] = {}
    best: dict[str, Hit] = {}
    for weight, ranking in rankings:
        seen: set[str] = set()
        # Engines return equal scores in an arbitrary order (duplicated passages are
        # common): ordering ties by chunk id makes the ranking reproducible.
        ordered = sorted(ranking, key=lambda item: (-item.score, item.chunk.chunk_id))
        for rank, item in enumerate(ordered, 1):
            key = item.chunk.chunk_id
            if key in seen:
                continue
            seen.add(key)
            fused[key] = fused.get(key, 0.0) + weight / (rrf_k + rank)
            if key not in best or item.score > best[key].score:
                best[key] = item
    if prior_weight:
        doc_rank = {doc: rank for rank, doc in enumerate(dict.fromkeys(prior), 1)}
        for key, item in best.items():
            prior_rank = doc_rank.get(item.chunk.doc_id)
            if prior_rank is not None:
                fused[key] += prior_weight / (rrf_k + prior_rank)
    order = sorted(fused, key=lambda key: -fused[key])  # stable: ties keep first-seen order
    return [best[key] for key in order]


def search_ranked(kb: Any, query: str, *, k: int, filters: SearchFilters) -> list[ScoredChunk]:
    """Return the top-k chunks for one query, equal scores ordered by chunk id.

    The engine orders equal scores arbitrarily, and which of several tied chunks
    makes its cut-off is arbitrary too; fetching a margin beyond k and cutting after
    a stable sort makes the same index give the same ranking every time.
    """
    return search_ranked_many(kb, [query], k=k, filters=filters)[0]


def search_ranked_many(
    kb: Any, queries: Sequence[str], *, k: int, filters: SearchFilters
) -> list[list[ScoredChunk]]:
    """`search_ranked` for several queries, as one batch when the knowledge base can."""
    fetch = _margin(k)
    if len(queries) > 1 and hasattr(kb, "search_many"):
        found = kb.search_many(list(queries), k=fetch, filters=filters)
    else:
        found = [kb.search(query, k=fetch, filters=filters) for query in queries]
    return [_stable_top(f, k) for f in found]


def hits_ranked_many(
    kb: Any, queries: Sequence[str], *, k: int, filters: SearchFilters
) -> list[list[Any]]:
    """`search_ranked_many`'s rankings as `ChunkHit`s (`kb.rank_many`): no chunk read."""
    return [_stable_top(f, k) for f in kb.rank_many(list(queries), k=_margin(k), filters=filters)]


def _margin(k: int) -> int:
    """How many hits to fetch for a stable top-k: ties at the cut are ordered by id."""
    return k + max(k // 2, 5)


def _stable_top(found: Sequence[Hit], k: int) -> list[Hit]:
    """Return the first `k` hits, equal scores ordered by chunk id."""
    return sorted(found, key=lambda item: (-item.score, item.chunk.chunk_id))[:k]


def minority_languages(shares: Mapping[str, float], min_share: float) -> dict[str, float]:
    """Return the languages holding at least `min_share` of the documents, under half."""
    return {lang: s for lang, s in shares.items() if min_share <= s < 0.5}


def with_every_language(
    ranked: Sequence[ScoredChunk],
    top_k: int,
    shares: Mapping[str, float],
    min_share: float,
    own_order: Mapping[str, Sequence[str]] | None = None,
) -> list[ScoredChunk]:
    """Return the top-k of a fused ranking with each minority language represented.

    In a collection in two languages, rank fusion favours the majority one: a passage
    of the other language reaches the top through the query in that language, whose
    weight is the language's share. "Combien de collaborateurs Brightwell compte-t-il ?"
    over the sample data (a fifth French) finds the French report's head count first
    as typed, and its English translation ("employees staff") finds the handbook's rules
    for employees: fused, the handbook filled the eight places. A
    language holding at least `min_share` of the documents but less than half gets at
    least ceil(top_k × share) places (at least one) when it has candidates: its best
    fused ones take the places of the majority's last. The order stays the fusion's.

    Which of a minority language's passages hold its places is then read by the searches
    written in that language (`own_order`), each document read by the query in its own
    language: a translation ranks a language's passages by the words they would be
    translated as, not by theirs. "Combien d'appareils ont été reconditionnés ?" over the
    sample data: the translated search ("device refurbished", weighing four fifths) put
    the French report's highlights (12 workshops for refurbishing) ahead of its
    environment section (41 000 devices refurbished), which the question as typed ranks
    second and the fusion 23rd.

    Args:
        ranked: The fused ranking, best first (every variant's hits).
        top_k: How many candidates the turn keeps.
        shares: Each language's share of the searched documents.
        min_share: The smallest share that makes a language (a few misdetected passages
            do not).
        own_order: Per minority language, chunk ids fused from the searches written in
            it alone, best first; a language missing keeps the fusion's choice.

    Returns:
        At most `top_k` candidates.
    """
    kept = list(ranked[:top_k])
    minority = minority_languages(shares, min_share)
    if not minority or len(ranked) <= top_k:
        return kept
    language_of = {c.chunk.chunk_id: passage_language(c.chunk.text) for c in ranked}
    for language, share in minority.items():
        wanted = max(1, math.ceil(top_k * share))
        have = sum(1 for c in kept if language_of[c.chunk.chunk_id] == language)
        extra = [c for c in ranked[top_k:] if language_of[c.chunk.chunk_id] == language]
        for candidate in extra[: max(0, wanted - have)]:
            # The majority's last candidate gives way (never one of the minority's own).
            out = next(
                i
                for i in range(len(kept) - 1, -1, -1)
                if language_of[kept[i].chunk.chunk_id] not in minority
            )
            del kept[out]
            kept.append(candidate)
    order = {c.chunk.chunk_id: i for i, c in enumerate(ranked)}
    kept.sort(key=lambda c: order[c.chunk.chunk_id])
    for language, own in (own_order or {}).items():
        if language not in minority:
            continue
        places = [i for i, c in enumerate(kept) if language_of[c.chunk.chunk_id] == language]
        # The language's passages its own searches rank best, then any only the other
        # language's searches found, in fused order.
        own_rank = {chunk_id: r for r, chunk_id in enumerate(own)}
        theirs = sorted(
            (c for c in ranked if language_of[c.chunk.chunk_id] == language),
            key=lambda c: (own_rank.get(c.chunk.chunk_id, len(own_rank)), order[c.chunk.chunk_id]),
        )
        for place, chosen in zip(places, theirs, strict=False):
            kept[place] = chosen
    return kept


def _scoped_search(
    kb: Any,
    query: str,
    *,
    top_k: int,
    filters: SearchFilters,
    doc_scope: Sequence[str],
    attempts: list[dict[str, Any]],
) -> list[ScoredChunk]:
    """Search the documents an explicit reference points into, then everywhere if none."""
    # An explicit reference names its target: search it as resolved, no variants.
    scoped = SearchFilters(**{**filters.__dict__, "doc_ids": tuple(doc_scope)})
    candidates = search_ranked(kb, query, k=top_k, filters=scoped)
    attempts.append({"query": query, "scope": list(doc_scope), "hits": len(candidates)})
    if not candidates:
        candidates = search_ranked(kb, query, k=top_k, filters=filters)
        attempts.append({"query": query, "hits": len(candidates)})
    return candidates


def _own_order(
    variants: Sequence[QueryVariant],
    found_by_variant: Sequence[Sequence[Any]],
    minority: Mapping[str, float],
    fusion: FusionConfig,
) -> dict[str, list[str]]:
    """Return, per minority language searched in, the chunk ids its own searches fuse."""
    # Only a minority language's places are reordered by its own searches: a
    # collection in one language fuses its variants once.
    return {
        language: [
            hit.chunk.chunk_id
            for hit in fuse_rankings(
                [
                    (variant.weight, found)
                    for variant, found in zip(variants, found_by_variant, strict=True)
                    if variant.language == language
                ],
                rrf_k=fusion.rrf_k,
            )
        ]
        for language in minority
        if any(variant.language == language for variant in variants)
    }


def _fused_search(
    kb: Any,
    *,
    question: str,
    query: str,
    top_k: int,
    filters: SearchFilters,
    route: str,
    history: Sequence[Mapping[str, Any]],
    thread_state: ThreadState,
    llm_rewrite: bool,
    fusion: FusionConfig,
    attempts: list[dict[str, Any]],
) -> list[ScoredChunk]:
    """Search the turn's query variants and fuse their rankings, every language placed."""
    followup = route != "standalone"
    previous = previous_turn(history, thread_state)
    shares_of = getattr(kb, "language_shares", None)
    shares = shares_of(tenant=filters.tenant) if shares_of else {}
    variants = query_variants(
        question,
        previous,
        followup=followup,
        llm_rewrite=query if llm_rewrite else None,
        config=fusion,
        document_languages=shares or None,
    )
    rankings: list[tuple[float, Sequence[Any]]] = []
    # One batch: the variants' query vectors come from one pass of the dense model.
    # Each ranking is read `fusion.depth` deep, then the fused one is cut at top_k.
    # A knowledge base that can rank without reading the chunks (`rank_many`) does:
    # only the chunks the fusion keeps are read, in one batch (`hit_chunks`).
    by_hits = callable(getattr(kb, "rank_many", None))
    found_by_variant = (hits_ranked_many if by_hits else search_ranked_many)(
        kb, [v.text for v in variants], k=max(top_k, fusion.depth), filters=filters
    )
    for variant, found in zip(variants, found_by_variant, strict=True):
        rankings.append((variant.weight, found))
        attempts.append(
            {
                "variant": variant.name,
                "query": variant.text,
                "weight": variant.weight,
                "hits": len(found),
            }
        )
    prior = previous.doc_ids if previous is not None else ()
    weight = prior_weight(previous, followup=followup, config=fusion, question=question)
    if weight and len(rankings) > 1:
        attempts.append({"variant": "prior", "doc_ids": list(prior), "weight": weight})
    else:
        weight = 0.0  # a lone query keeps the engine's own order
    fused = fuse_rankings(
        rankings,
        prior=prior,
        prior_weight=weight,
        rrf_k=fusion.rrf_k,
    )
    minority = minority_languages(shares, fusion.translated_min_share)
    if by_hits:
        # A minority language's places are chosen by the passages' language: then
        # every fused hit's text is read, else the first top_k's only.
        fused = kb.hit_chunks(fused if minority else fused[:top_k])
    own_order = _own_order(variants, found_by_variant, minority, fusion)
    return with_every_language(fused, top_k, shares, fusion.translated_min_share, own_order)


def search_candidates(
    kb: Any,
    *,
    question: str,
    query: str,
    top_k: int,
    filters: SearchFilters,
    budget: Budget,
    route: str,
    history: Sequence[Mapping[str, Any]],
    thread_state: ThreadState,
    doc_scope: Sequence[str] | None = None,
    llm_rewrite: bool = False,
    fusion: FusionConfig = DEFAULT_FUSION,
) -> CandidateSearch:
    """Search for one turn: scoped reference, or fused variants; one broader retry.

    Args:
        kb: The knowledge base (anything with `search(query, k=, filters=)`).
        question: The user's message as typed.
        query: The validated standalone query from the reformulator.
        top_k: Chunks kept in the fused ranking (and wanted from a single search).
        filters: Tenant, sources, app and workspace restrictions.
        budget: Packing limits (the retry happens when nothing packs).
        route: The router's decision (a standalone message weighs history less).
        history: Past turns, oldest first (for the previous answer).
        thread_state: Last search query, titles and doc ids.
        doc_scope: Documents an explicit reference points into, searched first.
        llm_rewrite: Whether `query` is an LLM's rewrite (then it is one more variant).
        fusion: Variant weights.

    Returns:
        The fused candidates, the query that stands for them, the trace and the pack.
    """
    attempts: list[dict[str, Any]] = []
    candidates: list[ScoredChunk] = []
    if doc_scope:
        candidates = _scoped_search(
            kb, query, top_k=top_k, filters=filters, doc_scope=doc_scope, attempts=attempts
        )
    else:
        candidates = _fused_search(
            kb,
            question=question,
            query=query,
            top_k=top_k,
            filters=filters,
            route=route,
            history=history,
            thread_state=thread_state,
            llm_rewrite=llm_rewrite,
            fusion=fusion,
            attempts=attempts,
        )
    pack = pack_context(candidates, budget)
    previous_query = thread_state.last_search_query
    if not pack.chunks and previous_query and previous_query not in query:
        # One broader retry: what was searched before, plus the new question.
        query = f"{previous_query} {question}"
        candidates = search_ranked(kb, query, k=top_k, filters=filters)
        attempts.append({"query": query, "hits": len(candidates), "retry": True})
        pack = pack_context(candidates, budget)
    return CandidateSearch(query=query, candidates=candidates, attempts=attempts, pack=pack)


@dataclass
class RetrievalOutcome:
    """What the retrieve node returns, plus the full ranking for the benchmark.

    Attributes:
        update: The partial state update (search_query, chunks, stop_reason, trace).
        candidates: The fused ranking before packing (empty on a policy violation).
    """

    update: dict[str, Any]
    candidates: list[ScoredChunk] = field(default_factory=list)


def _search_filters(state: State, settings: Settings, intent: RetrievalIntent) -> SearchFilters:
    """Return the turn's search restrictions: tenant, sources, app, workspace."""
    return SearchFilters(
        tenant=state.tenant,
        sources=intent.sources,
        source_app=state.source_app,
        workspace=state.workspace,
        spelt_from=allowed_sources(settings.source_policy, state.caller_app, None),
    )


def _searched_knowledge(state: State, services: Services) -> Any:
    """Return the knowledge base the turn searches, past exchanges added when asked."""
    settings = services.settings
    kb: Any = services.kb
    if conversations_requested(settings.source_policy, state.caller_app, state.sources):
        # Past exchanges of this tenant and app are one more source (off by default).
        kb = WithConversations(
            kb,
            services.conversations,
            services.store,
            tenant=state.tenant,
            caller_app=state.caller_app,
            thread_id=state.thread_id,
        )
    return kb


def _deliverable_chunks(
    state: State, kb: Any, chosen: Sequence[ScoredChunk | WindowChunk], budget: Budget
) -> tuple[Sequence[ScoredChunk | WindowChunk], list[str]]:
    """Return the best document's sections for a summary, and the sections left out."""
    # A summary covers a document, not a handful of hits: take the best
    # document's sections in reading order.
    best_doc = chosen[0].chunk.doc_id
    whole = [ScoredChunk(c, 0.0) for c in kb.document_chunks(best_doc, tenant=state.tenant)]
    if points_at_a_part(state.query):
        # "Résume la section sur le télétravail du manuel de sécurité": the part
        # about the topic, not the whole document.
        section = part_about(state.query, whole, chosen[0].chunk.section)
        whole = [c for c in whole if c.chunk.section == section] or whole
    chosen = pack_context(outline_chunks(whole, budget.max_chunks), budget).chunks
    # A summary the budgets cut says what it left out, never silently less.
    return chosen, sections_left_out(whole, chosen)


def _windowed_chunks(
    state: State, kb: Any, found: CandidateSearch, budget: Budget
) -> tuple[Sequence[ScoredChunk | WindowChunk], dict[str, Any]]:
    """Return the packed hits with their neighbouring passages, and the window's trace."""
    # Seed 001: a passage often needs the paragraph before or after it.
    chosen = expand_windows(
        found.pack.chunks,
        lambda doc_id: kb.document_chunks(doc_id, tenant=state.tenant),
        before=budget.window_before,
        after=budget.window_after,
        max_chunks=budget.max_chunks,
        max_chars=budget.max_chars,
    )
    window = {
        "before": budget.window_before,
        "after": budget.window_after,
        "added": [w.chunk.chunk_id for w in chosen if not w.hit],
    }
    return chosen, window


def _retrieve_trace(
    found: CandidateSearch, chunks: Sequence[Mapping[str, Any]], window: dict[str, Any] | None
) -> dict[str, Any]:
    """Return the retrieve node's trace: the searches, the ranking, what was selected."""
    trace = {
        "node": "retrieve",
        "attempts": found.attempts,
        "candidates": len(found.candidates),
        # The ranking before packing, best first: what a maintainer compares the
        # selection with (ids, titles, scores; never text).
        "scores": [
            {"chunk_id": c.chunk.chunk_id, "title": c.chunk.title, "score": round(c.score, 4)}
            for c in found.candidates[:TRACE_CANDIDATES]
        ],
        "selected": [c["chunk_id"] for c in chunks],
        "rejected": found.pack.rejected,
    }
    if window is not None:
        trace["window"] = window
    return trace


def retrieve_turn(
    state: State,
    services: Services,
    context: Context,
    *,
    fusion: FusionConfig = DEFAULT_FUSION,
) -> RetrievalOutcome:
    """Search within policy and budgets, retry once broader, pack (the retrieve node).

    Args:
        state: The turn's state after reformulation.
        services: Settings and the knowledge base.
        context: Per-run knobs (top_k, budgets).
        fusion: Variant weights (the benchmark's ablations change them).

    Returns:
        The node's state update and the fused candidates.
    """
    settings = services.settings
    budget = budget_for(services, context)
    try:
        sources = allowed_sources(settings.source_policy, state.caller_app, state.sources)
        intent = validate_intent(
            RetrievalIntent(
                query=state.reformulated_query or state.query,
                top_k=context.top_k or settings.top_k,
                sources=sources,
            ),
            budget,
        )
    except PolicyViolation as violation:
        return RetrievalOutcome(
            {
                "stop_reason": violation.reason,
                "trace": [{"node": "retrieve", "stop_reason": violation.reason}],
            }
        )
    kb = _searched_knowledge(state, services)
    found = search_candidates(
        kb,
        question=state.query,
        query=intent.query,
        top_k=intent.top_k,
        filters=_search_filters(state, settings, intent),
        budget=budget.for_hits(),
        route=state.route,
        history=state.history,
        thread_state=state.thread_state,
        doc_scope=state.doc_scope,
        llm_rewrite=state.followup.method == "llm",
        fusion=fusion_for_embeddings(settings, fusion),
    )
    chosen: Sequence[ScoredChunk | WindowChunk] = found.pack.chunks
    window: dict[str, Any] | None = None
    left_out: list[str] = []
    if state.deliverable and chosen:
        chosen, left_out = _deliverable_chunks(state, kb, chosen, budget)
    elif chosen and budget.window_span > 1:
        chosen, window = _windowed_chunks(state, kb, found, budget)
    chunks = [chunk_dict(i, item) for i, item in enumerate(chosen, 1)]
    closest: list[str] = []
    if not chunks:
        closest = closest_titles(services.kb, state, intent.sources)
    return RetrievalOutcome(
        {
            "search_query": found.query,
            "chunks": chunks,
            "left_out": left_out,
            "stop_reason": None if chunks else "no_context",
            # Nothing found is still declined naming documents to look at instead.
            **({"evidence": {"reason": "no_context", "closest": closest}} if closest else {}),
            "trace": [_retrieve_trace(found, chunks, window)],
        },
        found.candidates,
    )


def sections_left_out(
    whole: Sequence[ScoredChunk], shown: Sequence[ScoredChunk | WindowChunk]
) -> list[str]:
    """Return the sections of a summarised document no packed chunk shows, in reading order."""
    packed = {item.chunk.section for item in shown}
    return list(
        dict.fromkeys(
            c.chunk.section for c in whole if c.chunk.section and c.chunk.section not in packed
        )
    )


def part_about(question: str, chunks: Sequence[ScoredChunk], found: str) -> str:
    """Return the section of a document about the topic a question points at.

    The search ranks passages on the whole question, whose document name ("du manuel de
    sécurité") every section of that document shares: the part asked for is the one
    whose heading, then whose passages, hold most of the question's words ("télétravail"
    is the handbook's "Remote work", read through the lexicon as the evidence check
    reads a passage; "wiped remotely" in another section says less). Ties keep the
    section `found` first.
    """
    asked = content_terms(question)
    language = detect_language(question)
    passages = [
        {"label": str(i), "title": c.chunk.title, "section": c.chunk.section, "text": c.chunk.text}
        for i, c in enumerate(chunks)
    ]
    headings = [
        {"label": str(i), "title": "", "section": section, "text": section}
        for i, section in enumerate(dict.fromkeys(c.chunk.section for c in chunks))
    ]
    in_text, _, _ = read_passages(passages, language)
    in_heading, _, _ = read_passages(headings, language)
    held: dict[str, tuple[int, int]] = {}
    for heading in headings:
        count = sum(1 for t in asked if matches_term(t, in_heading[heading["label"]]))
        held[heading["section"]] = (count, 0)
    for passage in passages:
        count = sum(1 for t in asked if matches_term(t, in_text[passage["label"]]))
        first, most = held[passage["section"]]
        held[passage["section"]] = (first, max(most, count))
    best = max(held.values(), default=(0, 0))
    if held.get(found, (0, 0)) >= best:
        return found
    return next(section for section, score in held.items() if score == best)


def closest_titles(
    kb: Any, state: State, sources: Sequence[str] | None, limit: int = 3
) -> list[str]:
    """Titles to name when a search found nothing: the documents the turn may read.

    No passage matched, so none is closer than another by the search; those whose titles
    share most of the question's words come first, then in the index's order. A decline
    naming nothing left the user with no document to ask about instead.
    """
    asked = set(terms(state.query))
    found = readable_titles(kb, state, sources)
    ranked = sorted(found, key=lambda t: -len(asked & set(terms(t))))
    return ranked[:limit]


def readable_titles(kb: Any, state: State, sources: Sequence[str] | None) -> list[str]:
    """Return the titles of the documents a turn may read, in the index's order, once each.

    The turn's tenant only, within the `sources` the policy allows it (None: any) and
    the conversation's document scope: a decline or a reply naming documents never
    names one the caller could not search.
    """
    scope = set(state.doc_scope or ())
    found = [
        title
        for doc_id, title, source in kb.document_titles(tenant=state.tenant)
        if (sources is None or source in sources) and (not scope or doc_id in scope)
    ]
    return list(dict.fromkeys(found))


def named_document_context(
    state: State, services: Services, context: Context, doc_id: str
) -> dict[str, Any]:
    """Pack the context of a turn that names its document: its sections in reading order.

    Used when a search scoped to the named document found nothing (the request's words
    are not the document's, e.g. a French request over an English document).
    """
    budget = budget_for(services, context)
    whole = [ScoredChunk(c, 0.0) for c in services.kb.document_chunks(doc_id, tenant=state.tenant)]
    limit = budget.max_chunks if state.deliverable else min(budget.max_chunks, 3)
    chosen = pack_context(outline_chunks(whole, limit), budget).chunks
    chunks = [chunk_dict(i, item) for i, item in enumerate(chosen, 1)]
    return {
        "chunks": chunks,
        "stop_reason": None if chunks else "no_context",
        "trace": [
            {
                "node": "retrieve",
                "named_document": doc_id,
                "selected": [c["chunk_id"] for c in chunks],
            }
        ],
    }
