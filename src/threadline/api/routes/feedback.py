"""`/sessions/{id}/messages/{message_id}/feedback`: rate an answer up or down, or take it back."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Path
from starlette.concurrency import run_in_threadpool

from threadline.api.deps import CallerAppDep, PrincipalDep, ServicesDep
from threadline.api.errors import STORAGE_FULL_RESPONSES, ApiError
from threadline.api.routes.sessions import ERRORS, SessionIdPath
from threadline.api.schemas import ID_SCHEMA, ErrorResponse, Message
from threadline.api.turn_schemas import FeedbackCreate, FeedbackPublic
from threadline.feedback import set_rating
from threadline.store import validate_id

router = APIRouter(prefix="/sessions", tags=["feedback"])

MessageIdPath = Annotated[str, Path(description="The message id.", json_schema_extra=ID_SCHEMA)]

FEEDBACK_ERRORS: dict[int | str, dict[str, Any]] = {
    **ERRORS,
    **STORAGE_FULL_RESPONSES,
    400: {"model": ErrorResponse, "description": "Invalid id, or the message is not an answer"},
    404: {"model": ErrorResponse, "description": "Session, message or rating not found"},
}


@router.post(
    "/{session_id}/messages/{message_id}/feedback",
    response_model=FeedbackPublic,
    responses=FEEDBACK_ERRORS,
)
async def rate_message(
    session_id: SessionIdPath,
    message_id: MessageIdPath,
    body: FeedbackCreate,
    services: ServicesDep,
    principal: PrincipalDep,
    caller_app: CallerAppDep,
) -> FeedbackPublic:
    """Rate an answer (one rating per user per answer: this one replaces the caller's)."""
    validate_id(message_id, "message_id")
    answer = await run_in_threadpool(
        set_rating,
        services,
        tenant=principal.tenant,
        caller_app=caller_app,
        session_id=session_id,
        message_id=message_id,
        user=principal.user,
        rating=body.rating,
        reason=body.reason,
        comment=body.comment,
    )
    assert answer.metadata is not None  # only answers are rated
    ratings = answer.metadata.feedback
    mine = next(f for f in ratings if f.user == principal.user)
    return FeedbackPublic(
        message_id=answer.id,
        user=mine.user,
        rating=mine.rating,
        reason=mine.reason,
        comment=mine.comment,
        created_at=mine.created_at,
        up=sum(f.rating == "up" for f in ratings),
        down=sum(f.rating == "down" for f in ratings),
    )


@router.delete(
    "/{session_id}/messages/{message_id}/feedback",
    response_model=Message,
    responses=FEEDBACK_ERRORS,
)
async def delete_message_rating(
    session_id: SessionIdPath,
    message_id: MessageIdPath,
    services: ServicesDep,
    principal: PrincipalDep,
    caller_app: CallerAppDep,
) -> Message:
    """Take back the caller's rating of an answer (404 `feedback_not_found` if there is none)."""
    validate_id(message_id, "message_id")
    session = await run_in_threadpool(
        services.store.get_session,
        tenant=principal.tenant,
        caller_app=caller_app,
        session_id=session_id,
    )
    if session is None:
        raise ApiError(404, "session_not_found", "Session not found")
    message = next((m for m in session.messages if m.id == message_id), None)
    rated = (
        message is not None
        and message.metadata is not None
        and any(f.user == principal.user for f in message.metadata.feedback)
    )
    if message is not None and message.role == "assistant" and not rated:
        raise ApiError(404, "feedback_not_found", "You have not rated this answer")
    # Unknown message, user message, or a rating to remove: the store decides and says why.
    await run_in_threadpool(
        set_rating,
        services,
        tenant=principal.tenant,
        caller_app=caller_app,
        session_id=session_id,
        message_id=message_id,
        user=principal.user,
        rating=None,
    )
    return Message(message="Feedback deleted")
