"""The last node: write the turn once and log it."""

from __future__ import annotations

import time
from typing import Any

from langchain_core.runnables import RunnableConfig

from threadline.graph.context import run_services
from threadline.graph.state import State
from threadline.querylog import QueryRecord, after_store
from threadline.store import Message, Session, TurnMetadata
from threadline.store.edits import add_alternative, answers_of
from threadline.store.ids import new_message_id
from threadline.store.rules import utcnow
from threadline.tracing import stored_trace


def source_title(title: str, section: str | None) -> str:
    """How a cited source is remembered: "Title — Section", or the title alone.

    Args:
        title: The document's title.
        section: The cited chunk's section, if any.

    Returns:
        The stored title of that source.
    """
    return f"{title} — {section}" if section else title


def add_answer_again(state: State, metadata: TurnMetadata) -> tuple[str, list[Message]]:
    """Store a regenerated answer beside the earlier one(s) of the last question; keep it.

    Args:
        state: The finished turn (`regenerate` names the question).
        metadata: The answer's metadata.

    Returns:
        The new answer's message id, and every answer of the question (the new one last).

    Raises:
        TurnConflictError: If a newer question was stored meanwhile.
    """
    answer = Message(
        id=new_message_id(),
        role="assistant",
        content=state.answer,
        created_at=utcnow(),
        turn_id=state.turn_id,
        metadata=metadata,
    )
    add = add_alternative(state.regenerate, answer)

    def edit(session: Session) -> tuple[str, list[Message]]:
        stored = add(session)
        return stored.id, answers_of(session, state.regenerate)

    return run_services().store.edit_session(
        tenant=state.tenant,
        caller_app=state.caller_app,
        session_id=state.thread_id,
        edit=edit,
        touch=True,
    )


def persist(state: State, config: RunnableConfig) -> dict[str, Any]:
    """Write the turn once (user + assistant message in one atomic write) and log it.

    A regenerate writes only the new answer, beside the earlier one of its question
    (`add_answer_again`).

    Args:
        state: The finished turn.
        config: The run's config (its metadata holds when the turn started).

    Returns:
        The update: the stored message ids, an empty turn id, and the trace as stored.
    """
    services = run_services()
    followup = state.followup.stored()
    titles = [source_title(c.title, c.section) for c in state.citations]
    # Kept with the answer, bounded and without document text (`threadline.tracing`).
    trace = stored_trace(state.trace, state.chunks, state.llm_calls)
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
        trace=trace,
    )
    alternatives: list[Message] = []
    if state.regenerate:
        answer_id, alternatives = add_answer_again(state, metadata)
        message_ids = [state.regenerate, answer_id]
    else:
        user, assistant = services.store.add_turn(
            tenant=state.tenant,
            caller_app=state.caller_app,
            session_id=state.thread_id,
            question=state.query,
            answer=state.answer,
            metadata=metadata,
            turn_id=state.turn_id,
            # Only a conversation the turn found absent is created: one it read, then
            # deleted by another request meanwhile, is not brought back holding this
            # turn alone (SessionNotFoundError: 404, nothing stored).
            create=not state.session_existed,
        )
        message_ids = [user.id, assistant.id]
    started = (config.get("metadata") or {}).get("threadline_started")
    with after_store(services.querylog, f"turn {state.turn_id}"):
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
                trace=trace,
            )
        )
    if alternatives:  # the earlier answers' rows are set aside, as the store set them
        with after_store(services.querylog, f"answers kept of turn {state.turn_id}"):
            services.querylog.set_kept(
                tenant=state.tenant,
                caller_app=state.caller_app,
                thread_id=state.thread_id,
                answers=alternatives,
            )
    # A LangGraph thread (Studio) checkpoints state between runs: clear the
    # idempotency key so the next run in that thread is a new turn, not a retry.
    return {
        "message_ids": message_ids,
        "turn_id": "",
        "regenerate": "",
        "kept_trace": trace,
    }
