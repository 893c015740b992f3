"""The retrieve node: search within policy and budgets, then pack the context."""

from __future__ import annotations

import dataclasses
from typing import Any

from langgraph.runtime import Runtime

from threadline.graph.context import Context, run_services
from threadline.graph.retrieval import named_document_context, retrieve_turn
from threadline.graph.state import State
from threadline.graph.targets import named_document, names_a_document
from threadline.knowledge.index import ScoredChunk
from threadline.policy import PolicyViolation, allowed_sources


def candidate_summary(candidate: ScoredChunk) -> dict[str, Any]:
    """One ranked candidate without its text: ids, score and metadata.

    Args:
        candidate: A chunk of the fused ranking.

    Returns:
        chunk_id, doc_id, score and the chunk's metadata.
    """
    chunk = candidate.chunk
    return {
        "chunk_id": chunk.chunk_id,
        "doc_id": chunk.doc_id,
        "score": candidate.score,
        "metadata": dict(chunk.metadata),
    }


def retrieve(state: State, runtime: Runtime[Context]) -> dict[str, Any]:
    """Search within policy and budgets (fusing query variants); retry once; pack.

    A message that names a document ("Résume le manuel de sécurité") works on that
    document: it is the search scope before any scoring of the others.

    Args:
        state: The turn's state after reformulation.
        runtime: The run's knobs (budgets, fusion weights).

    Returns:
        The partial update: search_query, doc_scope, chunks, stop_reason, trace.
    """
    services = run_services()
    target = None
    if not state.doc_scope and names_a_document(state.query):
        # Only documents this turn may read: the caller app's sources, narrowed by the
        # request; with an app or workspace filter, the search alone decides.
        try:
            allowed = allowed_sources(
                services.settings.source_policy, state.caller_app, state.sources
            )
        except PolicyViolation:
            allowed = ()
        titles = [
            (doc_id, title)
            for doc_id, title, source in services.kb.document_titles(tenant=state.tenant)
            if allowed is None or source in allowed
        ]
        if state.source_app or state.workspace:
            titles = []
        target = named_document(state.query, titles)
        if target is not None:
            state = dataclasses.replace(state, doc_scope=[target])
    context = runtime.context or Context()
    outcome = retrieve_turn(state, services, context, fusion=context.fusion)
    # The whole fused ranking, not only what was packed, for a caller streaming the
    # "custom" mode (the retrieval benchmark ranks passages from it).
    runtime.stream_writer({"candidates": [candidate_summary(c) for c in outcome.candidates]})
    update = outcome.update
    if target is not None:
        update["doc_scope"] = [target]
        if not any(c["doc_id"] == target for c in update.get("chunks", [])):
            # The words of the request may not occur in the document (another
            # language): the named document itself is the context, in reading order.
            update.update(named_document_context(state, services, context, target))
    return update
