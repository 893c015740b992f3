"""Past conversations: `/conversations/search` (hits in their windows) and a session's chunks."""

from __future__ import annotations

from dataclasses import asdict
from typing import Annotated, Any

from fastapi import APIRouter, Path, Query
from starlette.concurrency import run_in_threadpool

from threadline.api.conversation_schemas import (
    ConversationChunkPublic,
    ConversationChunksPublic,
    ConversationSearchPublic,
    ConversationWindowPublic,
)
from threadline.api.deps import CallerAppDep, ServicesDep, StoreDep, TenantDep
from threadline.api.errors import ApiError
from threadline.api.schemas import ID_SCHEMA, ErrorResponse
from threadline.conversations.chunks import chunk_session
from threadline.conversations.search import search_windows
from threadline.store import validate_id
from threadline.text.storable import StorableText

router = APIRouter(prefix="/conversations", tags=["conversations"])

ERRORS: dict[int | str, dict[str, Any]] = {
    400: {"model": ErrorResponse, "description": "Invalid id"},
    401: {"model": ErrorResponse, "description": "Missing or wrong API key"},
    403: {"model": ErrorResponse, "description": "Caller app not allowed for this key"},
    404: {"model": ErrorResponse, "description": "Session not found"},
    422: {"model": ErrorResponse, "description": "Invalid request"},
}


@router.get("/search", response_model=ConversationSearchPublic, responses=ERRORS)
async def search_conversations(
    services: ServicesDep,
    store: StoreDep,
    tenant: TenantDep,
    caller_app: CallerAppDep,
    q: Annotated[
        StorableText, Query(min_length=1, max_length=1000, description="What to look for.")
    ],
    k: Annotated[int, Query(ge=1, le=50, description="Exchanges (hits) per page.")] = 5,
    before: Annotated[int, Query(ge=0, le=10, description="Exchanges before a hit.")] = 2,
    after: Annotated[int, Query(ge=0, le=10, description="Exchanges after a hit.")] = 1,
    offset: Annotated[int, Query(ge=0, le=1000, description="Hits to skip.")] = 0,
) -> ConversationSearchPublic:
    """Search past exchanges of this tenant and caller app, each in its window."""
    # The id rule is checked where the store would check it: this route may not reach it.
    validate_id(caller_app, "caller_app")
    index = services.conversations
    page = await run_in_threadpool(
        search_windows,
        store,
        index,
        query=q,
        tenant=tenant,
        caller_app=caller_app,
        k=k,
        before=before,
        after=after,
        offset=offset,
    )
    data = [ConversationWindowPublic(**asdict(w), hits=w.hits) for w in page.windows]
    return ConversationSearchPublic(
        data=data,
        count=len(data),
        offset=offset,
        k=k,
        next_offset=offset + k if page.more else None,
    )


@router.get("/{session_id}/chunks", response_model=ConversationChunksPublic, responses=ERRORS)
async def read_conversation_chunks(
    session_id: Annotated[str, Path(description="The session id.", json_schema_extra=ID_SCHEMA)],
    store: StoreDep,
    tenant: TenantDep,
    caller_app: CallerAppDep,
) -> ConversationChunksPublic:
    """Every chunk of a session, tool interactions (never indexed) included."""
    session = await run_in_threadpool(
        store.get_session, tenant=tenant, caller_app=caller_app, session_id=session_id
    )
    if session is None:
        raise ApiError(404, "session_not_found", "Session not found")
    data = [
        ConversationChunkPublic(
            **chunk.payload(title=session.title, session_updated_at=session.updated_at)
        )
        for chunk in chunk_session(session)
    ]
    return ConversationChunksPublic(data=data, count=len(data))
