"""Request and response bodies of the conversation routes (search, close, fork, chunks)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator

from threadline.api.schemas import ID_SCHEMA, SessionPublic


class LineagePublic(SessionPublic):
    """A session's summary with its lineage and closing."""

    parent_session_id: str | None = None
    root_session_id: str | None = None
    closed_at: datetime | None = None


class ForkRequest(BaseModel):
    """Fork a session, keeping the messages before ``at_message`` (all when omitted)."""

    model_config = ConfigDict(extra="forbid")

    at_message: int | None = Field(
        default=None, ge=0, description="Keep the messages before this index (0-based)."
    )
    session_id: str | None = Field(
        default=None,
        description="The new session's id; generated when omitted.",
        json_schema_extra=ID_SCHEMA,
    )

    @field_validator("at_message", mode="before")
    @classmethod
    def _a_json_number(cls, value: object) -> object:
        # `true` or "1" is a client's mistake, not the index 1 (lax parsing read both as
        # 1); a JSON number is one, 1.0 included (JSON Schema's integer).
        if isinstance(value, bool | str):
            raise ValueError("at_message must be a JSON integer")
        return value


class WindowExchangePublic(BaseModel):
    """One exchange of a window; ``hit`` marks the ones the search found."""

    sequence_order: int
    message_index: int = Field(description="Index of the exchange's first message.")
    question: str | None
    answer: str | None
    timestamp: datetime
    hit: bool
    score: float | None = None


class ConversationWindowPublic(BaseModel):
    """Consecutive exchanges of one session around its hits."""

    session_id: str
    caller_app: str
    title: str | None
    created_at: datetime
    updated_at: datetime
    parent_session_id: str | None
    root_session_id: str | None
    score: float
    hits: list[int]
    exchanges: list[WindowExchangePublic]


class ConversationSearchPublic(BaseModel):
    """One page of search results."""

    data: list[ConversationWindowPublic]
    count: int = Field(description="Windows on this page.")
    offset: int
    k: int
    next_offset: int | None = Field(description="Offset of the next page; null on the last.")


class ConversationChunkPublic(BaseModel):
    """A chunk of a session as the index stores it (tool interactions included)."""

    model_config = ConfigDict(extra="allow")

    chunk_id: str
    chunk_type: str
    sequence_order: int
    indexed: bool
    content: str
    content_summary: str
    tool_details: dict[str, Any] | None = None


class ConversationChunksPublic(BaseModel):
    """Every chunk of one session."""

    data: list[ConversationChunkPublic]
    count: int
