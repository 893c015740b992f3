"""Graph state: a narrow input (one user turn) and the working state of that turn.

Every per-turn field is reset by `load_conversation`, so a LangGraph Studio
thread (which checkpoints state between runs) starts each turn clean; the
conversation itself lives in the `ConversationStore`, not in this state.

The typed parts are the store's own models where the store keeps them
(`ThreadState`, `Citation`, and `TurnFollowup`, the stored `FollowupInfo` plus
what only the turn needs), and `PackedChunk`, the one shape of a passage in the
context, whether the retriever or a catalog tool produced it. `trace` and
`llm_calls` have reducers: a node returns its own trace entry and its own count
of model calls; `load_conversation` overwrites both to start the turn.
"""

from __future__ import annotations

import operator
from dataclasses import dataclass, field
from typing import Annotated, Any, NotRequired, TypedDict

from pydantic import Field

from threadline.store.models import Citation, FollowupInfo, OutlineItem, ThreadState


class TurnFollowup(FollowupInfo):
    """The follow-up of this turn: what is stored, plus what only the turn uses.

    `document_index` and `reason` steer reformulation and the clarify texts; they
    are never stored nor returned by the API (`stored()` drops them).
    """

    document_index: int | None = None
    """For a reference to a source of the previous answer ("the second source"): its number."""
    reason: str | None = None
    """Why a detected reference did not resolve (e.g. "pure_anaphora")."""
    also_sections: list[str] = Field(default_factory=list)
    """The other outline sections the message names ("compare S1 and S3": ["S3"])."""

    def stored(self) -> FollowupInfo:
        """Return the follow-up as the store, the queries log and the API keep it.

        Returns:
            The stored fields only.
        """
        return FollowupInfo.model_validate(self.model_dump(include=set(FollowupInfo.model_fields)))


class PackedChunk(TypedDict):
    """One passage of the packed context, as the state and the answer prompt carry it."""

    label: str
    """The number the answer cites it by ("1", "2", ...)."""
    chunk_id: str
    doc_id: str
    title: str
    section: str
    source: str
    text: str
    score: float
    """The engine's score (0 for a neighbour a context window brought in)."""
    position: NotRequired[int]
    """Order of the chunk in its document (absent for a catalog product)."""
    hit: NotRequired[bool]
    """False for a neighbour a context window brought in (absent: a hit)."""


class ToolCall(TypedDict):
    """A typed catalog tool request: the tool's name and its arguments."""

    name: str
    args: dict[str, Any]


class ClarifyOption(TypedDict):
    """One chip of a question back: what it shows and what it sends when clicked."""

    label: str
    query: str


class Clarify(TypedDict):
    """The machine-readable side of a question back (`clarify` in the API)."""

    reason: str
    """not_in_documents | ambiguous | which_section."""
    options: list[ClarifyOption]


class HistoryEntry(TypedDict):
    """One past turn as `load_conversation` reads it from the store."""

    question: str
    search_query: str | None
    titles: list[str]
    answer: str
    route: str | None
    section_id: NotRequired[str | None]


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
    regenerate: str = ""
    """Id of the last user message, to answer it again (the earlier answer is kept aside)."""


@dataclass(kw_only=True)
class State(InputState):
    """Everything the nodes of one turn read and write."""

    history: list[HistoryEntry] = field(default_factory=list)
    """Past turns (question, search query, titles, answer), oldest first, from the store."""
    session_existed: bool = False
    """The conversation was stored when the turn read it: the turn's write may not create
    it again (a session deleted meanwhile stays deleted)."""
    thread_state: ThreadState = field(default_factory=ThreadState)
    """Last outline, last doc ids and titles, last search query (never document text)."""
    route: str = ""
    """reply | tool | followup_reference | followup_context | standalone | clarify."""
    followup: TurnFollowup = field(default_factory=TurnFollowup)
    """How the message refers to the previous turns."""
    discussed_product: str | None = None
    """The one catalog product the previous answer was about ("it"), set by the router."""
    deliverable: bool = False
    """A summary/synthesis/report: the answer ends with an outline."""
    reformulated_query: str = ""
    """The standalone query the reformulator produced."""
    search_query: str = ""
    """The query actually searched (after a retry, the broader one)."""
    doc_scope: list[str] | None = None
    """Documents a resolved reference points into; searched first."""
    tool_call: ToolCall | None = None
    """The typed tool request (name, args) for the tool route."""
    chunks: list[PackedChunk] = field(default_factory=list)
    """Packed context, labelled in the order the answer prompt shows it."""
    left_out: list[str] = field(default_factory=list)
    """A summary's sections the budgets left out of the packed context, in reading order."""
    answer: str = ""
    """The answer text, outline block removed."""
    outline: list[OutlineItem] = field(default_factory=list)
    """The answer's outline (S1, S2...), parsed from its SUIVI block."""
    citations: list[Citation] = field(default_factory=list)
    """Sources the answer cites, in label order."""
    outcome: str = ""
    """grounded_answer | tool_answer | clarify | reply."""
    verdict: str = ""
    """The generator's decision: answer | partial | not_in_documents | ambiguous."""
    evidence: dict[str, Any] = field(default_factory=dict)
    """What the deterministic evidence check found (terms, coverage, candidates, closest)."""
    clarify: Clarify | None = None
    """For a clarify outcome: why, and the chips to offer."""
    stop_reason: str | None = None
    """Why the turn ended the way it did (technical status)."""
    llm_calls: Annotated[int, operator.add] = 0
    """Chat model calls made during this turn (each node returns its own count)."""
    trace: Annotated[list[dict[str, Any]], operator.add] = field(default_factory=list)
    """Per-node facts for debugging (each node returns its own entry)."""
    message_ids: list[str] = field(default_factory=list)
    """Ids of the persisted user and assistant messages."""
    kept_trace: list[dict[str, Any]] = field(default_factory=list)
    """The trace as persist stored it: sanitised, bounded, no document text."""
