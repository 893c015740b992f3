"""`POST /chat`: one user message through the graph."""

from __future__ import annotations

import logging
import uuid
from collections.abc import AsyncIterator, Sequence
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse
from fastapi.sse import EventSourceResponse
from starlette.concurrency import run_in_threadpool

from threadline.api.deps import ChatDep, PrincipalDep, StoreDep, authorize_caller_app
from threadline.api.disconnect import client_closed, unless_disconnected
from threadline.api.errors import (
    STORAGE_FULL_CODE,
    STORAGE_FULL_MESSAGE,
    STORAGE_FULL_RESPONSES,
    ApiError,
    is_storage_full,
    llm_error_message,
)
from threadline.api.schemas import ChatRequest, ChatResponse, ErrorResponse
from threadline.api.sse import event_stream, sse_event
from threadline.auth import Principal
from threadline.chat import TurnRequest
from threadline.models import LLMError
from threadline.policy import may_debug
from threadline.store import (
    ConversationStore,
    CorruptSessionError,
    SessionNotFoundError,
    StoreBusyError,
    validate_id,
)

log = logging.getLogger("threadline.api")

router = APIRouter(tags=["chat"])

ERRORS: dict[int | str, dict[str, Any]] = {
    400: {"model": ErrorResponse, "description": "Invalid id, or a body that cannot be parsed"},
    401: {"model": ErrorResponse, "description": "Missing or wrong API key"},
    403: {
        "model": ErrorResponse,
        "description": "Caller app not allowed for this key (caller_app_forbidden), or "
        '"debug": true from a caller app not allowed traces (debug_forbidden)',
    },
    404: {"model": ErrorResponse, "description": "Session not found"},
    409: {"model": ErrorResponse, "description": "The session's file is damaged"},
    422: {"model": ErrorResponse, "description": "Invalid request"},
    503: {
        "model": ErrorResponse,
        "description": "Session busy (store_busy) or the language model server unavailable "
        "(llm_unavailable): nothing was saved, retry after `Retry-After` seconds",
    },
    504: {
        "model": ErrorResponse,
        "description": "The language model did not answer within the turn's deadline "
        "(llm_timeout): nothing was saved, retry after `Retry-After` seconds",
    },
}


def to_turn_request(
    body: ChatRequest,
    principal: Principal,
    store: ConversationStore,
    *,
    new_id: str,
    debug_apps: Sequence[str] = (),
) -> TurnRequest:
    """Validate ids and rights and build the graph input (shared with the streaming route).

    `debug_apps` are the caller apps that may ask for the trace (`"debug": true`).
    """
    authorize_caller_app(principal, body.caller_app)
    tenant = principal.tenant
    validate_id(body.caller_app, "caller_app")
    # An id that is given is checked, the empty string too (400, like POST /sessions),
    # rather than silently starting a new session.
    for given, kind in ((body.session_id, "session_id"), (body.thread_id, "thread_id")):
        if given is not None:
            validate_id(given, kind)
    if body.debug and not may_debug(debug_apps, body.caller_app):
        raise ApiError(
            403,
            "debug_forbidden",
            f"Caller app {body.caller_app!r} may not see traces (THREADLINE_DEBUG_CALLER_APPS).",
        )
    thread_id = body.session_id or body.thread_id or new_id
    validate_id(thread_id, "session_id")
    if body.session_id and not body.thread_id:
        if (
            store.get_session(tenant=tenant, caller_app=body.caller_app, session_id=thread_id)
            is None
        ):
            raise ApiError(404, "session_not_found", "Session not found")
    return TurnRequest(
        query=body.query.strip(),
        thread_id=thread_id,
        tenant=tenant,
        caller_app=body.caller_app,
        source_app=body.source_app,
        workspace=body.workspace,
        language=body.language,
        sources=body.sources,
    )


@router.post("/chat", response_model=ChatResponse, responses={**ERRORS, **STORAGE_FULL_RESPONSES})
async def create_chat_turn(
    body: ChatRequest, chat: ChatDep, store: StoreDep, principal: PrincipalDep, http: Request
) -> dict[str, Any] | JSONResponse:
    """Answer one message of a conversation (a new session when no id is given).

    A client that disconnects before the answer cancels the turn: nothing is stored.
    """
    new_id = f"sess_{uuid.uuid4().hex[:16]}"
    debug_apps = chat.services.settings.debug_caller_apps
    request = await run_in_threadpool(
        to_turn_request, body, principal, store, new_id=new_id, debug_apps=debug_apps
    )
    result = await unless_disconnected(http, chat.arun_turn(request))
    if result is None:
        return client_closed()
    return result.to_dict(debug=body.debug)


@router.post(
    "/chat/stream",
    responses={
        **ERRORS,
        200: {
            "description": "Server-Sent Events: `phase`*, `token`*, then `final` (the same "
            "object `POST /chat` returns) or `error`.",
            "content": {"text/event-stream": {}},
        },
    },
)
async def stream_chat_turn(
    body: ChatRequest, chat: ChatDep, store: StoreDep, principal: PrincipalDep
) -> EventSourceResponse:
    """Answer one message as Server-Sent Events while the graph runs."""
    new_id = f"sess_{uuid.uuid4().hex[:16]}"
    debug_apps = chat.services.settings.debug_caller_apps
    request = await run_in_threadpool(
        to_turn_request, body, principal, store, new_id=new_id, debug_apps=debug_apps
    )

    async def events() -> AsyncIterator[str]:
        try:
            async for event in chat.astream_turn(request, debug=body.debug):
                yield sse_event(event["data"], event=event["event"])
        except StoreBusyError:
            busy = {"code": "store_busy", "message": "Session busy; retry."}
            yield sse_event(busy, event="error")
        except LLMError as exc:  # nothing was stored: the client may send it again
            log.warning("LLM failed: %s (%s)", exc.code, exc)
            yield sse_event({"code": exc.code, "message": llm_error_message(exc)}, event="error")
        except CorruptSessionError:
            yield sse_event(
                {"code": "session_corrupt", "message": "This session's file is damaged."},
                event="error",
            )
        except SessionNotFoundError:  # deleted by another request while the turn ran
            yield sse_event(
                {
                    "code": "session_not_found",
                    "message": "Session not found; the turn was not saved.",
                },
                event="error",
            )
        except Exception as exc:  # the stream has started: errors travel as an event
            if is_storage_full(exc, chat.services.settings.data_dir):
                log.error("storage full: %s", exc)
                full = {"code": STORAGE_FULL_CODE, "message": STORAGE_FULL_MESSAGE}
                yield sse_event(full, event="error")
                return
            log.exception("stream failed")
            yield sse_event(
                {"code": "internal_error", "message": "The turn was not saved."}, event="error"
            )

    return event_stream(events())
