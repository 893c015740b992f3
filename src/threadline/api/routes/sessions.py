"""Session CRUD: `/sessions` and `/sessions/{id}/messages`."""

from __future__ import annotations

from fastapi import APIRouter, Query, Request
from starlette.concurrency import run_in_threadpool

from threadline.api.deps import (
    CallerAppDep,
    PrincipalDep,
    StoreDep,
    TenantDep,
    authorize_caller_app,
)
from threadline.api.errors import STORAGE_FULL_RESPONSES, ApiError
from threadline.api.routes.session_lineage import forget_session
from threadline.api.schemas import (
    Message,
    MessagePublic,
    MessagesPublic,
    SessionCreate,
    SessionPublic,
    SessionsPublic,
    SessionUpdate,
)
from threadline.api.session_routes import ERRORS, SessionIdPath, session_public
from threadline.api.turn_schemas import public_metadata
from threadline.store import ConversationStore, Session

router = APIRouter(prefix="/sessions", tags=["sessions"])


@router.post(
    "",
    response_model=SessionPublic,
    status_code=201,
    responses={**ERRORS, **STORAGE_FULL_RESPONSES},
)
async def create_session(
    body: SessionCreate, store: StoreDep, tenant: TenantDep, principal: PrincipalDep
) -> SessionPublic:
    """Create a session (409 if the given id exists)."""
    authorize_caller_app(principal, body.caller_app)
    session = await run_in_threadpool(
        store.create_session,
        tenant=tenant,
        caller_app=body.caller_app,
        session_id=body.session_id,
        title=body.title,
    )
    return session_public(session)


@router.get("", response_model=SessionsPublic, responses=ERRORS)
async def read_sessions(
    store: StoreDep,
    tenant: TenantDep,
    caller_app: CallerAppDep,
    offset: int = Query(default=0, ge=0),
    limit: int = Query(default=50, ge=1, le=200),
) -> SessionsPublic:
    """List sessions, most recently updated first."""
    summaries, total = await run_in_threadpool(
        store.list_sessions, tenant=tenant, caller_app=caller_app, offset=offset, limit=limit
    )
    return SessionsPublic(
        data=[SessionPublic(**s.model_dump(exclude={"tenant"})) for s in summaries], count=total
    )


async def _get(store: ConversationStore, tenant: str, caller_app: str, session_id: str) -> Session:
    session = await run_in_threadpool(
        store.get_session, tenant=tenant, caller_app=caller_app, session_id=session_id
    )
    if session is None:
        raise ApiError(404, "session_not_found", "Session not found")
    return session


@router.get("/{session_id}", response_model=SessionPublic, responses=ERRORS)
async def read_session(
    session_id: SessionIdPath, store: StoreDep, tenant: TenantDep, caller_app: CallerAppDep
) -> SessionPublic:
    """One session's summary."""
    return session_public(await _get(store, tenant, caller_app, session_id))


@router.patch(
    "/{session_id}", response_model=SessionPublic, responses={**ERRORS, **STORAGE_FULL_RESPONSES}
)
async def update_session(
    session_id: SessionIdPath,
    body: SessionUpdate,
    store: StoreDep,
    tenant: TenantDep,
    caller_app: CallerAppDep,
) -> SessionPublic:
    """Rename a session."""
    session = await run_in_threadpool(
        store.update_session,
        tenant=tenant,
        caller_app=caller_app,
        session_id=session_id,
        title=body.title,
    )
    return session_public(session)


@router.delete(
    "/{session_id}", response_model=Message, responses={**ERRORS, **STORAGE_FULL_RESPONSES}
)
async def delete_session(
    session_id: SessionIdPath,
    store: StoreDep,
    tenant: TenantDep,
    caller_app: CallerAppDep,
    request: Request,
) -> Message:
    """Delete a session and its messages."""
    deleted = await run_in_threadpool(
        store.delete_session, tenant=tenant, caller_app=caller_app, session_id=session_id
    )
    if not deleted:
        raise ApiError(404, "session_not_found", "Session not found")
    await run_in_threadpool(forget_session, request.app, (tenant, caller_app, session_id))
    return Message(message="Session deleted successfully")


@router.get("/{session_id}/messages", response_model=MessagesPublic, responses=ERRORS)
async def read_session_messages(
    session_id: SessionIdPath,
    store: StoreDep,
    tenant: TenantDep,
    caller_app: CallerAppDep,
    # `int`, not `int | None`: a query string cannot carry null, so the schema must not offer it.
    limit: int = Query(default=None, ge=1, le=1000),
) -> MessagesPublic:
    """Messages of a session, oldest first (the last `limit` when given)."""
    session = await _get(store, tenant, caller_app, session_id)
    messages = session.messages[-limit:] if limit else session.messages
    data = [
        MessagePublic(
            id=m.id,
            role=m.role,
            content=m.content,
            created_at=m.created_at,
            turn_id=m.turn_id,
            metadata=public_metadata(m.metadata) if m.metadata else None,
        )
        for m in messages
    ]
    return MessagesPublic(data=data, count=len(session.messages))
