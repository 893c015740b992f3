"""The last node: write the turn once and log it."""

from __future__ import annotations

import time
from typing import Any

from langchain_core.runnables import RunnableConfig

from threadline.graph.context import run_services
from threadline.graph.state import State
from threadline.querylog import QueryRecord
from threadline.store import TurnMetadata


def source_title(title: str, section: str | None) -> str:
    """How a cited source is remembered: "Title — Section", or the title alone.

    Args:
        title: The document's title.
        section: The cited chunk's section, if any.

    Returns:
        The stored title of that source.
    """
    return f"{title} — {section}" if section else title


def persist(state: State, config: RunnableConfig) -> dict[str, Any]:
    """Write the turn once (user + assistant message in one atomic write) and log it.

    Args:
        state: The finished turn.
        config: The run's config (its metadata holds when the turn started).

    Returns:
        The update: the stored message ids, and an empty turn id.
    """
    services = run_services()
    followup = state.followup.stored()
    titles = [source_title(c.title, c.section) for c in state.citations]
    metadata = TurnMetadata(
        search_query=state.search_query or None,
        doc_ids=[c.doc_id for c in state.citations],
        titles=titles,
        outline=state.outline,
        route=state.route,
        outcome=state.outcome,
        stop_reason=state.stop_reason,
        followup=followup,
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
            followup=followup,
            search_query=state.search_query or None,
            doc_ids=metadata.doc_ids,
            titles=titles,
            outline=[o.model_dump() for o in state.outline],
            outcome=state.outcome,
            stop_reason=state.stop_reason,
            llm_calls=state.llm_calls,
            latency_ms=(time.perf_counter() - started) * 1000 if started else None,
        )
    )
    # A LangGraph thread (Studio) checkpoints state between runs: clear the
    # idempotency key so the next run in that thread is a new turn, not a retry.
    return {"message_ids": [user.id, assistant.id], "turn_id": ""}
