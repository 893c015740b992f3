"""Request and response models of feedback, regenerate, trace and export/import routes."""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, StrictBool

from threadline.api.schemas import ChatResponse, SourceName
from threadline.store.models import FEEDBACK_COMMENT_MAX, Message, TurnMetadata
from threadline.text.storable import StorableText

Rating = Literal["up", "down"]
Reason = Literal["wrong", "not_in_documents", "incomplete", "wrong_source", "other"]


class FeedbackCreate(BaseModel):
    """A rating of one answer; sending it again replaces the caller's earlier one."""

    model_config = ConfigDict(extra="forbid")

    rating: Rating
    reason: Reason | None = Field(
        default=None, description="Why (mostly with `down`): what was wrong with the answer."
    )
    comment: StorableText | None = Field(default=None, max_length=FEEDBACK_COMMENT_MAX)


class FeedbackPublic(BaseModel):
    """The caller's rating of an answer, and how the answer is rated overall."""

    message_id: str
    user: str = Field(description="Who rated: the API key's name and digest prefix, or local.")
    rating: Rating
    reason: Reason | None = None
    comment: str | None = None
    created_at: datetime
    up: int = Field(description="Users who rate this answer up.")
    down: int = Field(description="Users who rate this answer down.")


class TracePublic(BaseModel):
    """What the graph did for one answer (ids, titles, scores; never document text)."""

    message_id: str
    trace: list[dict[str, Any]]


_OPTIONAL_KEYS: dict[str, Any] = {"feedback": [], "alternative_of": None, "superseded": False}
"""Metadata keys shown only when set, so answers that were never rated nor regenerated
read exactly as before these keys existed."""


def public_metadata(metadata: TurnMetadata) -> dict[str, Any]:
    """Return an answer's metadata as the messages API shows it: never the trace.

    The trace is a debugging record shown only to caller apps allowed it
    (`GET /sessions/{id}/messages/{message_id}/trace`).

    Args:
        metadata: The stored metadata.

    Returns:
        The JSON-ready metadata, without `trace`, and without the keys of
        `_OPTIONAL_KEYS` that hold their default.
    """
    shown = metadata.model_dump(mode="json", exclude={"trace"})
    for key, default in _OPTIONAL_KEYS.items():
        if shown.get(key) == default:
            shown.pop(key, None)
    return shown


class RegenerateRequest(BaseModel):
    """Answer the session's last question again; the scope of the search may be given anew."""

    model_config = ConfigDict(extra="forbid")

    source_app: StorableText | None = Field(default=None, max_length=128)
    workspace: StorableText | None = Field(default=None, max_length=128)
    language: str | None = Field(default=None, pattern=r"^[a-z]{2}(-[A-Za-z]{2})?$")
    sources: list[SourceName] | None = Field(default=None, max_length=32)
    debug: StrictBool = Field(default=False, description="As in POST /chat: return the trace.")


class AlternativePublic(BaseModel):
    """One answer of a question that was answered more than once."""

    id: str
    kept: bool = Field(description="The answer the conversation goes on from.")
    created_at: datetime


class AlternativesPublic(BaseModel):
    """The answers of one question, oldest first; exactly one is kept."""

    question_id: str
    data: list[AlternativePublic]


class RegenerateResponse(ChatResponse):
    """The new answer (the `POST /chat` object), its id, and all the answers of its question."""

    message_id: str = Field(description="The new answer's id.")
    question_id: str
    alternatives: list[AlternativePublic]


def alternatives_of(question_id: str, answers: list[Message]) -> AlternativesPublic:
    """Return a question's answers as the API shows them."""
    return AlternativesPublic(
        question_id=question_id,
        data=[
            AlternativePublic(
                id=a.id,
                kept=not (a.metadata is not None and a.metadata.superseded),
                created_at=a.created_at,
            )
            for a in answers
        ],
    )
