"""The web chat page (`/`, `/static/...`) and the cited-passage lookup it uses.

The page is plain HTML, CSS and JavaScript modules shipped inside the package
(`threadline/api/static/`): no build step, no CDN, nothing fetched at run time.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from fastapi import APIRouter, Query
from fastapi import Path as PathParam
from fastapi.responses import FileResponse
from pydantic import BaseModel
from starlette.concurrency import run_in_threadpool
from starlette.responses import Response

from threadline.api.deps import CallerAppDep, ServicesDep, TenantDep
from threadline.api.errors import ApiError
from threadline.api.schemas import ErrorResponse
from threadline.api.static_files import WholeFileResponse, WholeStaticFiles
from threadline.knowledge.passages import TEXT_DIGEST, passage_digest
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


def _passage_changed() -> ApiError:
    return ApiError(
        410,
        "passage_changed",
        "The document has changed since this passage was cited: the text the answer quoted "
        "is no longer kept. Open the passage without `text_sha256` to read its current version.",
    )


def find_passage(
    services: Services,
    tenant: str,
    caller_app: str,
    doc_id: str,
    chunk_id: str,
    text_sha256: str | None = None,
) -> PassagePublic:
    """Find a chunk of an ingested document, or a catalog product's description.

    Documents and catalog products follow the caller app's source allowlist, like
    retrieval and the catalog tools do; a passage the caller app may not search is
    reported as not found. With `text_sha256` (a citation's digest of the text it
    quoted), a document's passage whose text is now another, or that its document's
    new version no longer holds, is reported as changed, never shown as the quote.

    Raises:
        ApiError: 404 `passage_not_found`; 410 `passage_changed`.
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
        readable = [
            chunk
            for chunk in kb.document_chunks(doc_id, tenant=tenant)
            if allow is None or chunk.source in allow
        ]
        for chunk in readable:
            if chunk.chunk_id == chunk_id:
                # The id is the document's and the position's, the same in every
                # version: only the text tells the quoted passage from a later one.
                if text_sha256 is not None and passage_digest(chunk.text) != text_sha256:
                    raise _passage_changed()
                return PassagePublic(
                    doc_id=chunk.doc_id,
                    chunk_id=chunk.chunk_id,
                    title=chunk.title,
                    section=chunk.section or None,
                    source=chunk.source or None,
                    text=chunk.text,
                )
        if text_sha256 is not None and readable:
            raise _passage_changed()  # the new version is shorter: the quoted passage is gone
    raise ApiError(404, "passage_not_found", "No such passage in the knowledge base.")


@router.get(
    "/documents/{doc_id}/chunks/{chunk_id}",
    response_model=PassagePublic,
    tags=["documents"],
    responses={
        401: {"model": ErrorResponse, "description": "Missing or wrong API key"},
        403: {"model": ErrorResponse, "description": "Caller app not allowed for this key"},
        404: {"model": ErrorResponse, "description": "Passage not found"},
        410: {
            "model": ErrorResponse,
            "description": "The document changed since the citation: its quoted text is gone",
        },
        422: {"model": ErrorResponse, "description": "Invalid request"},
    },
)
async def read_passage(
    services: ServicesDep,
    tenant: TenantDep,
    caller_app: CallerAppDep,
    doc_id: str = PathParam(min_length=1, max_length=256),
    chunk_id: str = PathParam(min_length=1, max_length=256),
    # A string, empty when not given: an optional (nullable) parameter would be in the
    # schema as `null`, which a query string cannot say.
    text_sha256: str = Query(
        default="",
        pattern=rf"^(?:{TEXT_DIGEST})?$",
        description="The citation's `text_sha256`: the passage is shown only if its text is "
        "still the one the answer quoted (410 `passage_changed` otherwise). Empty: the "
        "passage's current text.",
    ),
) -> PassagePublic:
    """Read the text of a cited passage (a citation's `doc_id` and `chunk_id`) in the tenant."""
    return await run_in_threadpool(
        find_passage, services, tenant, caller_app, doc_id, chunk_id, text_sha256 or None
    )
