"""The web chat page (`/`, `/static/...`) and the cited-passage lookup it uses.

The page is plain HTML, CSS and JavaScript modules shipped inside the package
(`threadline/api/static/`): no build step, no CDN, nothing fetched at run time.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from fastapi import APIRouter
from fastapi import Path as PathParam
from fastapi.responses import FileResponse
from pydantic import BaseModel
from starlette.concurrency import run_in_threadpool
from starlette.responses import Response

from threadline.api.deps import CallerAppDep, ServicesDep, TenantDep
from threadline.api.errors import ApiError
from threadline.api.schemas import ErrorResponse
from threadline.api.static_files import WholeFileResponse, WholeStaticFiles
from threadline.policy import CATALOG_SOURCE, allowed_sources
from threadline.services import Services

STATIC_DIR = Path(__file__).resolve().parent.parent / "static"
CATALOG_PREFIX = "catalog:"


class _StaticFiles(WholeStaticFiles):
    """Static files revalidated on every load (cheap 304s), so an upgrade is never stale."""

    def file_response(self, *args: Any, **kwargs: Any) -> Response:
        response = super().file_response(*args, **kwargs)
        response.headers["Cache-Control"] = "no-cache"
        return response


router = APIRouter()
router.mount("/static", _StaticFiles(directory=STATIC_DIR), name="static")


@router.get("/", include_in_schema=False)
async def read_index() -> FileResponse:
    """Serve the chat page."""
    return WholeFileResponse(STATIC_DIR / "index.html", headers={"Cache-Control": "no-cache"})


class PassagePublic(BaseModel):
    """One cited passage, as stored in the knowledge base."""

    doc_id: str
    chunk_id: str
    title: str
    section: str | None = None
    source: str | None = None
    text: str


def find_passage(
    services: Services, tenant: str, caller_app: str, doc_id: str, chunk_id: str
) -> PassagePublic:
    """Find a chunk of an ingested document, or a catalog product's description.

    Documents and catalog products follow the caller app's source allowlist, like
    retrieval and the catalog tools do; a passage the caller app may not search is
    reported as not found.

    Raises:
        ApiError: 404 `passage_not_found`.
    """
    kb = services.kb
    allow = allowed_sources(services.settings.source_policy, caller_app, None)
    if doc_id.startswith(CATALOG_PREFIX):
        if allow is not None and CATALOG_SOURCE not in allow:
            raise ApiError(404, "passage_not_found", "No such passage in the knowledge base.")
        name = doc_id[len(CATALOG_PREFIX) :]
        for product in kb.catalog.products(tenant):
            if product.catalog == name and product.id == chunk_id:
                return PassagePublic(
                    doc_id=doc_id,
                    chunk_id=chunk_id,
                    title=product.name,
                    section=f"{product.brand} {product.category}".strip() or None,
                    source=CATALOG_SOURCE,
                    text=product.describe(),
                )
    else:
        for chunk in kb.document_chunks(doc_id, tenant=tenant):
            if chunk.chunk_id == chunk_id and (allow is None or chunk.source in allow):
                return PassagePublic(
                    doc_id=chunk.doc_id,
                    chunk_id=chunk.chunk_id,
                    title=chunk.title,
                    section=chunk.section or None,
                    source=chunk.source or None,
                    text=chunk.text,
                )
    raise ApiError(404, "passage_not_found", "No such passage in the knowledge base.")


@router.get(
    "/documents/{doc_id}/chunks/{chunk_id}",
    response_model=PassagePublic,
    tags=["documents"],
    responses={
        401: {"model": ErrorResponse, "description": "Missing or wrong API key"},
        403: {"model": ErrorResponse, "description": "Caller app not allowed for this key"},
        404: {"model": ErrorResponse, "description": "Passage not found"},
        422: {"model": ErrorResponse, "description": "Invalid request"},
    },
)
async def read_passage(
    services: ServicesDep,
    tenant: TenantDep,
    caller_app: CallerAppDep,
    doc_id: str = PathParam(min_length=1, max_length=256),
    chunk_id: str = PathParam(min_length=1, max_length=256),
) -> PassagePublic:
    """Read the text of a cited passage (a citation's `doc_id` and `chunk_id`) in the tenant."""
    return await run_in_threadpool(find_passage, services, tenant, caller_app, doc_id, chunk_id)
