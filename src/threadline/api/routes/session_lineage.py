"""`POST /sessions/{id}/close` and `POST /sessions/{id}/fork`: closing and lineage.

Closing queues a session for conversation indexing (and wakes the worker); a fork
starts a new session from the first messages of another, the way "edit and resend"
branches a conversation. Deleting a session removes its indexed chunks at once
(`forget_session`, called by the delete route).
"""

from __future__ import annotations

import logging
from typing import Any

from fastapi import APIRouter, FastAPI, Request
from starlette.concurrency import run_in_threadpool

from threadline.api.conversation_schemas import ForkRequest, LineagePublic
from threadline.api.deps import CallerAppDep, StoreDep, TenantDep
from threadline.api.errors import STORAGE_FULL_RESPONSES, ApiError
from threadline.api.session_routes import ERRORS, SessionIdPath, session_public
from threadline.conversations.index import SessionKey
from threadline.store import Session

log = logging.getLogger("threadline.api")

router = APIRouter(prefix="/sessions", tags=["sessions"])


def lineage_public(session: Session) -> LineagePublic:
    """Return the response body of a closed or forked session."""
    return LineagePublic(
        **session_public(session).model_dump(),
        parent_session_id=session.parent_session_id,
        root_session_id=session.root_session_id,
        closed_at=session.closed_at,
    )


def forget_session(app: FastAPI, key: SessionKey) -> None:
    """Remove a deleted session's chunks from the conversation index, if one is open.

    Called once the store has deleted the session, which is the record: an index that
    cannot be written now (a full disk) is logged, not raised. Raising would answer a
    done delete with an error that says it failed; the chunks left behind are removed
    by the indexing worker's next pass (it forgets indexed sessions the store lacks),
    and search never shows them meanwhile (its windows are read from the store).
    """
    services: Any = app.state.services
    if "conversations" not in services.__dict__:
        return
    try:
        services.conversations.delete_session(key)
    except Exception:
        log.exception("conversation index: chunks of deleted session %s/%s/%s kept", *key)


@router.post(
    "/{session_id}/close",
    response_model=LineagePublic,
    responses={**ERRORS, **STORAGE_FULL_RESPONSES},
)
async def close_session(
    session_id: SessionIdPath,
    request: Request,
    store: StoreDep,
    tenant: TenantDep,
    caller_app: CallerAppDep,
) -> LineagePublic:
    """Close a session: it is indexed for conversation search without waiting to go idle."""
    session = await run_in_threadpool(
        store.close_session, tenant=tenant, caller_app=caller_app, session_id=session_id
    )
    worker = getattr(request.app.state, "conversation_worker", None)
    if worker is not None:
        worker.wake()
    return lineage_public(session)


@router.post(
    "/{session_id}/fork",
    response_model=LineagePublic,
    status_code=201,
    responses={**ERRORS, **STORAGE_FULL_RESPONSES},
)
async def fork_session(
    session_id: SessionIdPath,
    store: StoreDep,
    tenant: TenantDep,
    caller_app: CallerAppDep,
    body: ForkRequest | None = None,
) -> LineagePublic:
    """Start a new session from this one's first ``at_message`` messages (all by default)."""
    body = body or ForkRequest()
    try:
        fork = await run_in_threadpool(
            store.fork_session,
            tenant=tenant,
            caller_app=caller_app,
            session_id=session_id,
            at_message=body.at_message,
            fork_id=body.session_id,
        )
    except ValueError as exc:
        raise ApiError(422, "invalid_message_index", str(exc)) from exc
    return lineage_public(fork)
