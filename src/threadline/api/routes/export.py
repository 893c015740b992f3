"""`GET /sessions/{id}/export` (Markdown or JSON) and `POST /sessions/import` (that JSON).

The import takes the tenant from the key and the caller app from the query, never from
the file; the whole session is written in one atomic write (one file rename, one
transaction), so a refused import leaves nothing behind: 409 `session_exists` for an id
already taken, 422 `validation_error` for a file that is not a valid export.
"""

from __future__ import annotations

import json
from typing import Annotated, Any, Literal

from fastapi import APIRouter, HTTPException, Query, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import Response
from pydantic import ValidationError
from starlette.concurrency import run_in_threadpool

from threadline.api.deps import CallerAppDep, ServicesDep, TenantDep
from threadline.api.errors import STORAGE_FULL_RESPONSES
from threadline.api.routes.sessions import ERRORS, SessionIdPath
from threadline.api.routes.turns import load_session
from threadline.api.schemas import ID_SCHEMA, SessionPublic
from threadline.export import SessionExport, from_export, read_export, to_export, to_markdown
from threadline.policy import may_debug

router = APIRouter(prefix="/sessions", tags=["export"])

EXPORT_RESPONSES: dict[int | str, dict[str, Any]] = {
    **ERRORS,
    200: {
        "description": "The conversation as a file: Markdown (`format=md`) or the JSON that "
        "`POST /sessions/import` reads (`format=json`).",
        "content": {"text/markdown": {}, "application/json": {}},
    },
}


@router.get("/{session_id}/export", responses=EXPORT_RESPONSES, response_class=Response)
async def export_session(
    session_id: SessionIdPath,
    services: ServicesDep,
    tenant: TenantDep,
    caller_app: CallerAppDep,
    format: Annotated[Literal["md", "json"], Query(description="md or json")] = "md",  # noqa: A002
) -> Response:
    """Download a conversation: citations as footnotes, outlines and ratings (md), or JSON."""
    session = await load_session(services, tenant, caller_app, session_id)
    disposition = f'attachment; filename="{session.id}.{format}"'
    if format == "md":
        return Response(
            to_markdown(session),
            media_type="text/markdown; charset=utf-8",
            headers={"Content-Disposition": disposition},
        )
    with_trace = may_debug(services.settings.debug_caller_apps, caller_app)
    body = to_export(session, with_trace=with_trace).model_dump(mode="json")
    return Response(
        json.dumps(body, ensure_ascii=False, indent=1),
        media_type="application/json",
        headers={"Content-Disposition": disposition},
    )


@router.api_route("/import", methods=["GET", "PUT", "PATCH", "DELETE"], include_in_schema=False)
async def import_other_methods() -> None:
    """Answer 405 rather than reading `import` as a session id (this router comes first)."""
    raise HTTPException(405, "Use POST to import a session.", headers={"Allow": "POST"})


@router.post(
    "/import",
    response_model=SessionPublic,
    status_code=201,
    responses={**ERRORS, **STORAGE_FULL_RESPONSES},
)
async def import_session(
    body: SessionExport,
    request: Request,
    services: ServicesDep,
    tenant: TenantDep,
    caller_app: CallerAppDep,
    session_id: Annotated[
        str | None,
        Query(
            min_length=1,
            max_length=128,
            description="Store it under this id instead of the file's.",
            json_schema_extra=ID_SCHEMA,
        ),
    ] = None,
) -> SessionPublic:
    """Store an exported conversation in the key's tenant (409 if the id is taken)."""
    # Read again strictly (`read_export`): the schema above is for the docs and lax.
    try:
        body = read_export(await request.body())
    except ValidationError as exc:
        errors = [{**e, "loc": ("body", *e["loc"])} for e in exc.errors(include_url=False)]
        raise RequestValidationError(errors) from exc
    session = from_export(body, tenant=tenant, caller_app=caller_app, session_id=session_id)
    stored = await run_in_threadpool(services.store.import_session, session=session)
    return SessionPublic(
        id=stored.id,
        caller_app=stored.caller_app,
        title=stored.title,
        created_at=stored.created_at,
        updated_at=stored.updated_at,
        message_count=len(stored.messages),
    )
