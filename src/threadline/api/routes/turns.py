"""What a stored answer did and which answer is kept: its trace; regenerate; select.

- `GET /sessions/{id}/messages/{message_id}/trace`: the answer's stored trace, for a
  caller app allowed to debug (`THREADLINE_DEBUG_CALLER_APPS`), else 403
  `debug_forbidden`.
- `POST /sessions/{id}/regenerate`: the last question answered again; the earlier
  answer is kept aside as an alternative (`threadline.store.edits`).
- `POST /sessions/{id}/messages/{message_id}/select`: keep another answer of its
  question; the history of later turns and the outline follow it.
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter
from starlette.concurrency import run_in_threadpool

from threadline.alternatives import keep_answer
from threadline.api.deps import CallerAppDep, ChatDep, ServicesDep, TenantDep
from threadline.api.errors import STORAGE_FULL_RESPONSES, ApiError
from threadline.api.routes.feedback import MessageIdPath
from threadline.api.routes.sessions import ERRORS, SessionIdPath
from threadline.api.schemas import ErrorResponse
from threadline.api.turn_schemas import (
    AlternativesPublic,
    RegenerateRequest,
    RegenerateResponse,
    TracePublic,
    alternatives_of,
)
from threadline.chat import TurnRequest
from threadline.policy import may_debug
from threadline.services import Services
from threadline.store import Session, validate_id
from threadline.store.edits import answers_of, find_answer

router = APIRouter(prefix="/sessions", tags=["turns"])

TURN_ERRORS: dict[int | str, dict[str, Any]] = {
    **ERRORS,
    400: {"model": ErrorResponse, "description": "Invalid id, or the message is not an answer"},
    403: {
        "model": ErrorResponse,
        "description": "Caller app not allowed for this key, or not allowed traces",
    },
    404: {"model": ErrorResponse, "description": "Session or message not found"},
}


def check_debug(services: Services, caller_app: str) -> None:
    """Refuse a caller app that may not see traces.

    Raises:
        ApiError: 403 `debug_forbidden`.
    """
    if not may_debug(services.settings.debug_caller_apps, caller_app):
        raise ApiError(
            403,
            "debug_forbidden",
            f"Caller app {caller_app!r} may not see traces (THREADLINE_DEBUG_CALLER_APPS).",
        )


async def load_session(
    services: Services, tenant: str, caller_app: str, session_id: str
) -> Session:
    """Read a session of the caller's tenant and app, or answer 404 `session_not_found`."""
    session = await run_in_threadpool(
        services.store.get_session, tenant=tenant, caller_app=caller_app, session_id=session_id
    )
    if session is None:
        raise ApiError(404, "session_not_found", "Session not found")
    return session


@router.get(
    "/{session_id}/messages/{message_id}/trace",
    response_model=TracePublic,
    responses=TURN_ERRORS,
)
async def read_message_trace(
    session_id: SessionIdPath,
    message_id: MessageIdPath,
    services: ServicesDep,
    tenant: TenantDep,
    caller_app: CallerAppDep,
) -> TracePublic:
    """Return an answer's trace: candidates with scores, passages kept and rejected, why."""
    validate_id(message_id, "message_id")
    session = await load_session(services, tenant, caller_app, session_id)
    check_debug(services, caller_app)
    answer = find_answer(session, message_id)
    assert answer.metadata is not None  # find_answer checked it
    return TracePublic(message_id=answer.id, trace=answer.metadata.trace or [])


@router.post(
    "/{session_id}/regenerate",
    response_model=RegenerateResponse,
    responses={**TURN_ERRORS, **STORAGE_FULL_RESPONSES},
)
async def regenerate_answer(
    session_id: SessionIdPath,
    chat: ChatDep,
    tenant: TenantDep,
    caller_app: CallerAppDep,
    body: RegenerateRequest | None = None,
) -> dict[str, Any]:
    """Answer the last question again with the current index and settings.

    The earlier answer is kept as an alternative of that question (`superseded` in its
    metadata); the new one is the answer later turns build on, until another is
    selected. 409 `nothing_to_regenerate` for a session without a question,
    `turn_conflict` when a newer question arrived meanwhile.
    """
    body = body or RegenerateRequest()
    services = chat.services
    if body.debug:
        check_debug(services, caller_app)
    session = await load_session(services, tenant, caller_app, session_id)
    question = next((m for m in reversed(session.messages) if m.role == "user"), None)
    if question is None:
        raise ApiError(409, "nothing_to_regenerate", "This session has no question to answer")
    result = await chat.arun_turn(
        TurnRequest(
            query=question.content,
            thread_id=session_id,
            tenant=tenant,
            caller_app=caller_app,
            source_app=body.source_app,
            workspace=body.workspace,
            language=body.language,
            sources=body.sources,
            regenerate=question.id,
        )
    )
    session = await load_session(services, tenant, caller_app, session_id)
    answers = alternatives_of(question.id, answers_of(session, question.id))
    return {
        **result.to_dict(debug=body.debug),
        "message_id": result.message_ids[-1],
        "question_id": question.id,
        "alternatives": answers.data,
    }


@router.post(
    "/{session_id}/messages/{message_id}/select",
    response_model=AlternativesPublic,
    responses={**TURN_ERRORS, **STORAGE_FULL_RESPONSES},
)
async def select_message(
    session_id: SessionIdPath,
    message_id: MessageIdPath,
    services: ServicesDep,
    tenant: TenantDep,
    caller_app: CallerAppDep,
) -> AlternativesPublic:
    """Keep this answer of its question (the others are set aside, not deleted).

    Later turns build on it: their history and the outline follow-ups resolve against.
    """
    validate_id(message_id, "message_id")
    question_id, answers = await run_in_threadpool(
        keep_answer,
        services,
        tenant=tenant,
        caller_app=caller_app,
        session_id=session_id,
        message_id=message_id,
    )
    return alternatives_of(question_id or "", answers)
