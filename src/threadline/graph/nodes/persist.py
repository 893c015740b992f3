"""The last node: write the turn once and log it."""

from __future__ import annotations

import time
from typing import Any

from langchain_core.runnables import RunnableConfig

from threadline.graph.context import run_services
from threadline.graph.state import NO_FOLLOWUP, State
from threadline.querylog import QueryRecord
from threadline.store import FollowupInfo, OutlineItem, TurnMetadata


def source_title(chunk: dict[str, Any]) -> str:
    """How a cited source is remembered: "Title — Section", or the title alone.

    Args:
        chunk: A citation or packed chunk (title, section).

    Returns:
        The stored title of that source.
    """
    return f"{chunk['title']} — {chunk['section']}" if chunk.get("section") else chunk["title"]


def persist(state: State, config: RunnableConfig) -> dict[str, Any]:
    """Write the turn once (user + assistant message in one atomic write) and log it.

    Args:
        state: The finished turn.
        config: The run's config (its metadata holds when the turn started).

    Returns:
        The update: the stored message ids, and an empty turn id.
    """
    services = run_services()
    fu = state.followup or NO_FOLLOWUP
    titles = [source_title(c) for c in state.citations]
    metadata = TurnMetadata(
        search_query=state.search_query or None,
        doc_ids=[c["doc_id"] for c in state.citations],
        titles=titles,
        outline=[OutlineItem(**o) for o in state.outline],
        route=state.route,
        outcome=state.outcome,
        stop_reason=state.stop_reason,
        followup=FollowupInfo(
            detected=bool(fu.get("detected")),
            resolved=bool(fu.get("resolved")),
            ref_type=fu.get("ref_type"),
            section_id=fu.get("section_id"),
            method=fu.get("method"),
        ),
        citations=state.citations,
        llm_calls=state.llm_calls,
    )
    user, assistant = services.store.add_turn(
        tenant=state.tenant,
        caller_app=state.caller_app,
        session_id=state.thread_id,
        question=state.query,
        answer=state.answer,
        metadata=metadata,
        turn_id=state.turn_id,
        create=True,
    )
    started = (config.get("metadata") or {}).get("threadline_started")
    services.querylog.record(
        QueryRecord(
            tenant=state.tenant,
            caller_app=state.caller_app,
            thread_id=state.thread_id,
            turn_id=state.turn_id,
            question=state.query,
            route=state.route,
            followup_detected=bool(fu.get("detected")),
            followup_resolved=bool(fu.get("resolved")),
            followup_section_id=fu.get("section_id"),
            followup_ref_type=fu.get("ref_type"),
            followup_method=fu.get("method"),
            search_query=state.search_query or None,
            doc_ids=metadata.doc_ids,
            titles=titles,
            outline=state.outline,
            outcome=state.outcome,
            stop_reason=state.stop_reason,
            llm_calls=state.llm_calls,
            latency_ms=(time.perf_counter() - started) * 1000 if started else None,
        )
    )
    # A LangGraph thread (Studio) checkpoints state between runs: clear the
    # idempotency key so the next run in that thread is a new turn, not a retry.
    return {"message_ids": [user.id, assistant.id], "turn_id": ""}
