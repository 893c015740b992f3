"""The first node: read the conversation from the store and start the turn clean."""

from __future__ import annotations

import uuid
from typing import Any

from langchain_core.runnables import RunnableConfig
from langgraph.types import Overwrite

from threadline.graph.context import run_services
from threadline.graph.state import HistoryEntry, State, TurnFollowup
from threadline.store import Message, ThreadState, TurnMetadata
from threadline.store.edits import find_message, kept_messages


def history_entries(messages: list[Message]) -> list[HistoryEntry]:
    """Return the history entries of stored messages: one per answered question, oldest first.

    Answers the user replaced (regenerate, select) are left out: the history is the
    conversation the user kept.

    Args:
        messages: A session's messages, user and assistant alternating.

    Returns:
        Entries with question, search_query, titles, answer and route.
    """
    history: list[HistoryEntry] = []
    question = None
    for message in kept_messages(messages):
        if message.role == "user":
            question = message.content
        elif question is not None:
            meta = message.metadata or TurnMetadata()
            history.append(
                {
                    "question": question,
                    "search_query": meta.search_query,
                    "titles": list(meta.titles),
                    "answer": message.content,
                    "route": meta.route,
                    "section_id": meta.followup.section_id,
                }
            )
            question = None
    return history


def load_conversation(state: State, config: RunnableConfig) -> dict[str, Any]:
    """Read the conversation from the store and reset the per-turn fields.

    Args:
        state: The turn's input.
        config: The run's config (Studio gives the thread id there).

    Returns:
        The update: thread and turn ids, history, thread state and every per-turn
        field at its initial value (`trace` and `llm_calls` overwritten, not added to:
        a Studio thread keeps the previous turn's values in its checkpoint).

    Raises:
        ValueError: If the turn has no thread id.
        MessageNotFoundError: If the message to answer again is not in the session.
    """
    services = run_services()
    thread_id = state.thread_id or str((config.get("configurable") or {}).get("thread_id") or "")
    if not thread_id:
        raise ValueError("a turn needs a thread_id")
    keys = {"tenant": state.tenant, "caller_app": state.caller_app, "session_id": thread_id}
    # One read per turn: history and thread state come from the same file version.
    session = services.store.get_session(**keys)
    if session is not None and state.regenerate:
        # Answered again as it was first asked: from the conversation before it.
        question = find_message(session, state.regenerate)
        session = session.model_copy(
            update={"messages": session.messages[: session.messages.index(question)]}
        )
    messages = session.messages if session else []
    limit = services.settings.history_turns
    history = history_entries(messages)
    thread_state = session.thread_state() if session and messages else ThreadState()
    return {
        "thread_id": thread_id,
        "turn_id": state.turn_id or uuid.uuid4().hex,
        "session_existed": session is not None,
        "history": history[-limit:] if limit else [],
        "thread_state": thread_state,
        "route": "",
        "followup": TurnFollowup(),
        "discussed_product": None,
        "deliverable": False,
        "reformulated_query": "",
        "search_query": "",
        "doc_scope": None,
        "tool_call": None,
        "chunks": [],
        "left_out": [],
        "answer": "",
        "outline": [],
        "citations": [],
        "outcome": "",
        "verdict": "",
        "evidence": {},
        "clarify": None,
        "stop_reason": None,
        "llm_calls": Overwrite(0),
        "trace": Overwrite([{"node": "load_conversation", "turns": len(history)}]),
        "message_ids": [],
        "kept_trace": [],
    }
