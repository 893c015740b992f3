"""Graph state: a narrow input (one user turn) and the working state of that turn.

Every per-turn field is reset by `load_conversation`, so a LangGraph Studio
thread (which checkpoints state between runs) starts each turn clean; the
conversation itself lives in the `ConversationStore`, not in this state.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

NO_FOLLOWUP: dict[str, Any] = {
    "detected": False,
    "resolved": False,
    "ref_type": None,
    "section_id": None,
    "method": None,
}
"""The follow-up of a turn that is not one."""


@dataclass(kw_only=True)
class InputState:
    """One user message and who sends it."""

    query: str = ""
    """The user's message."""
    thread_id: str = ""
    """Conversation id; empty in Studio means the Studio thread id."""
    tenant: str = "default"
    """Owner of the conversation and of the documents searched."""
    caller_app: str = "default"
    """The application calling; selects the source allowlist."""
    source_app: str | None = None
    """Only search documents tagged with this application."""
    workspace: str | None = None
    """Only search documents tagged with this workspace."""
    language: str | None = None
    """Answer language (fr, en...); detected from the message when empty."""
    sources: list[str] | None = None
    """Narrows the caller app's allowed sources for this turn (never widens)."""
    turn_id: str = ""
    """Idempotency key of the turn; a retried persist never writes twice."""


@dataclass(kw_only=True)
class State(InputState):
    """Everything the nodes of one turn read and write."""

    history: list[dict[str, Any]] = field(default_factory=list)
    """Past turns (question, search query, titles, answer), oldest first, from the store."""
    thread_state: dict[str, Any] = field(default_factory=dict)
    """Last outline, last doc ids and titles, last search query (never document text)."""
    route: str = ""
    """reply | tool | followup_reference | followup_context | standalone | clarify."""
    followup: dict[str, Any] = field(default_factory=dict)
    """detected, resolved, ref_type, section_id, method (+ document_index, reason)."""
    deliverable: bool = False
    """A summary/synthesis/report: the answer ends with an outline."""
    reformulated_query: str = ""
    """The standalone query the reformulator produced."""
    search_query: str = ""
    """The query actually searched (after a retry, the broader one)."""
    doc_scope: list[str] | None = None
    """Documents a resolved reference points into; searched first."""
    tool_call: dict[str, Any] | None = None
    """The typed tool request (name, args) for the tool route."""
    chunks: list[dict[str, Any]] = field(default_factory=list)
    """Packed context: label, chunk_id, doc_id, title, section, source, text, score, hit.

    `hit` is False for a neighbour that a context window brought in.
    """
    answer: str = ""
    """The answer text, outline block removed."""
    outline: list[dict[str, str]] = field(default_factory=list)
    """[{"id": "S1", "title": ...}] parsed from the answer."""
    citations: list[dict[str, Any]] = field(default_factory=list)
    """Sources the answer cites, in label order."""
    outcome: str = ""
    """grounded_answer | tool_answer | clarify | reply."""
    verdict: str = ""
    """The generator's decision: answer | partial | not_in_documents | ambiguous."""
    evidence: dict[str, Any] = field(default_factory=dict)
    """What the deterministic evidence check found (terms, coverage, candidates, closest)."""
    clarify: dict[str, Any] | None = None
    """For a clarify outcome: {"reason", "options": [{"label", "query"}]}."""
    stop_reason: str | None = None
    """Why the turn ended the way it did (technical status)."""
    llm_calls: int = 0
    """Chat model calls made during this turn."""
    trace: list[dict[str, Any]] = field(default_factory=list)
    """Per-node facts for debugging (candidates, rejected chunks, timings)."""
    message_ids: list[str] = field(default_factory=list)
    """Ids of the persisted user and assistant messages."""
