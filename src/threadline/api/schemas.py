"""Request and response models of the HTTP API (the `POST /chat` contract of DESIGN.md §4)."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, StrictBool, model_validator

from threadline.text.storable import StorableText
from threadline.text.visible import is_blank

ID_SCHEMA: dict[str, Any] = {"pattern": r"^[A-Za-z0-9](?:\.?[A-Za-z0-9_:-])*\.?$", "maxLength": 128}
"""How session ids and caller apps look (`threadline.store.validate_id`: ASCII letter or
digit first, then letters, digits, `_ . : -`, no `..`, at most 128 chars). Documented in the
OpenAPI schema only: the store enforces it, and answers any other id with 400 `invalid_id`
wherever the id comes from (body, path, query or header)."""

SourceName = Annotated[StorableText, Field(min_length=1, max_length=128)]
"""A source a request narrows a turn to (`sources`)."""


class ErrorDetail(BaseModel):
    """A machine-readable error."""

    code: str = Field(description="Stable error code, e.g. session_not_found.")
    message: str
    details: Any | None = None


class ErrorResponse(BaseModel):
    """Every error answer has this shape."""

    error: ErrorDetail


class ChatRequest(BaseModel):
    """One user message."""

    model_config = ConfigDict(extra="forbid")

    query: StorableText = Field(
        min_length=1,
        max_length=4000,
        description="The user's message (not blank: not only spaces and invisible characters; "
        "no NUL character).",
        json_schema_extra={"pattern": r"\S"},  # documents the blank check below
    )
    session_id: str | None = Field(
        default=None,
        max_length=128,
        description="An existing session (404 if unknown).",
        json_schema_extra=ID_SCHEMA,
    )
    thread_id: str | None = Field(
        default=None,
        max_length=128,
        description="A client-chosen id, created on first use.",
        json_schema_extra=ID_SCHEMA,
    )
    caller_app: str = Field(
        default="default",
        max_length=128,
        description="The calling application.",
        json_schema_extra=ID_SCHEMA,
    )
    source_app: StorableText | None = Field(default=None, max_length=128)
    workspace: StorableText | None = Field(default=None, max_length=128)
    language: str | None = Field(default=None, pattern=r"^[a-z]{2}(-[A-Za-z]{2})?$")
    sources: list[SourceName] | None = Field(
        default=None, max_length=32, description="Narrow the allowed sources for this turn."
    )
    debug: StrictBool = Field(
        default=False,
        description="Return the turn's trace (403 debug_forbidden for a caller app not in "
        "THREADLINE_DEBUG_CALLER_APPS).",
    )

    @model_validator(mode="after")
    def _one_id(self) -> ChatRequest:
        if self.session_id and self.thread_id and self.session_id != self.thread_id:
            raise ValueError("give session_id or thread_id, not two different ids")
        if is_blank(self.query):
            raise ValueError("query is blank")
        return self


class OutlineItemPublic(BaseModel):
    """One section of an answer's outline."""

    id: str = Field(examples=["S2"])
    title: str


class CitationPublic(BaseModel):
    """A source the answer cites."""

    model_config = ConfigDict(extra="allow")

    id: str = Field(description="The label used in the answer text, e.g. 2 for [2].")
    doc_id: str
    chunk_id: str | None = None
    title: str
    section: str | None = None
    source: str | None = None
    text_sha256: str | None = Field(
        default=None,
        description="Hex SHA-256 of the passage's text as the answer quoted it; give it to "
        "`GET /documents/{doc_id}/chunks/{chunk_id}?text_sha256=` to be told (410 "
        "`passage_changed`) when the document has changed since.",
    )


class FollowupPublic(BaseModel):
    """How the message was understood relative to the previous turns."""

    detected: bool = False
    resolved: bool = False
    ref_type: (
        Literal["section", "letter", "ordinal", "title", "document", "anaphora", "context"] | None
    ) = None
    section_id: str | None = None
    method: Literal["deterministic", "llm", "heuristic"] | None = None


class ClarifyOption(BaseModel):
    """One choice offered back to the user: a chip that sends `query` when clicked."""

    label: str
    query: str


class ClarifyPublic(BaseModel):
    """Why the turn asks back or declines, and what the user may pick."""

    reason: Literal["not_in_documents", "ambiguous", "which_section"]
    options: list[ClarifyOption] = Field(default_factory=list)


class ChatResponse(BaseModel):
    """The answer to one message."""

    session_id: str
    answer: str = Field(description="The answer, without the SUIVI block.")
    outline: list[OutlineItemPublic]
    citations: list[CitationPublic]
    route: str
    outcome: Literal["grounded_answer", "tool_answer", "clarify", "reply"]
    stop_reason: str | None
    search_query: str | None
    reformulated_query: str | None = None
    followup: FollowupPublic
    llm_calls: int
    latency_ms: float
    clarify: ClarifyPublic | None = Field(
        default=None,
        description="Set when outcome is clarify: not in the documents, ambiguous, or which "
        "section of the previous answer.",
    )
    llm_fallback: Literal["offline"] | None = Field(
        default=None,
        exclude_if=lambda value: value is None,
        description="Present only when the language model was down or too slow and the "
        "offline extractive model answered instead: THREADLINE_LLM_FALLBACK=offline, or a "
        "catalog question answered from the router's parse of the words.",
    )
    trace: list[dict[str, Any]] | None = Field(
        default=None,
        exclude_if=lambda value: value is None,
        description='Present only when the request says "debug": true: what the graph did '
        "(candidates with scores, passages selected and rejected, the decision, LLM calls); "
        "ids, titles and scores, never document text.",
    )


class SessionCreate(BaseModel):
    """A new session; the id is generated unless given."""

    model_config = ConfigDict(extra="forbid")

    session_id: str | None = Field(default=None, max_length=128, json_schema_extra=ID_SCHEMA)
    title: StorableText | None = Field(default=None, max_length=200)
    caller_app: str = Field(default="default", max_length=128, json_schema_extra=ID_SCHEMA)


class SessionUpdate(BaseModel):
    """Fields a client may change."""

    model_config = ConfigDict(extra="forbid")

    title: StorableText = Field(min_length=1, max_length=200)


class SessionPublic(BaseModel):
    """A session without its messages."""

    id: str
    caller_app: str
    title: str | None
    created_at: datetime
    updated_at: datetime
    message_count: int


class SessionsPublic(BaseModel):
    """A page of sessions, most recent first."""

    data: list[SessionPublic]
    count: int = Field(description="Total sessions, all pages.")


class MessagePublic(BaseModel):
    """One stored message; assistant messages carry the turn's metadata."""

    id: str
    role: Literal["user", "assistant"]
    content: str
    created_at: datetime
    turn_id: str | None = None
    metadata: dict[str, Any] | None = None


class MessagesPublic(BaseModel):
    """Messages of a session, oldest first."""

    data: list[MessagePublic]
    count: int


class Message(BaseModel):
    """A plain confirmation."""

    message: str


class HealthPublic(BaseModel):
    """Service readiness."""

    status: Literal["ok"]
    llm: str
    embeddings: str
    chunks: int | None = Field(
        default=None,
        description="Passages of the caller's tenant; null unless a key authenticates it.",
    )
    structured_output: Literal["json_schema", "json_object", "text"] | None = Field(
        default=None,
        description="How the model server is asked for the answer's JSON, once learnt "
        "from its first answer; null before that and for the offline model.",
    )
    version: str
