"""Documents: upload (Markdown, text, HTML, PDF), list, delete — per tenant."""

from __future__ import annotations

from pathlib import PurePath
from typing import Annotated, Any

from fastapi import APIRouter, Depends, File, Form, Query, Request, UploadFile
from pydantic import BaseModel
from starlette.concurrency import run_in_threadpool

from threadline.api.deps import DocumentSourcesDep, ServicesDep, TenantDep
from threadline.api.errors import STORAGE_FULL_RESPONSES, ApiError
from threadline.api.schemas import ErrorResponse, Message
from threadline.knowledge.converters import CONTENT_TYPES, SUPPORTED_SUFFIXES, ExtractionLimits
from threadline.knowledge.documents import MAX_METADATA_BYTES, DocumentError
from threadline.knowledge.index import DocumentScopeError
from threadline.knowledge.uploads import document_from_upload
from threadline.text.storable import StorableText

router = APIRouter(prefix="/documents", tags=["documents"])
# Beside /documents, not under it: /documents/{doc_id} would also match its path.
ingestions_router = APIRouter(tags=["documents"])

ERRORS: dict[int | str, dict[str, Any]] = {
    400: {"model": ErrorResponse, "description": "The file could not be read"},
    401: {"model": ErrorResponse, "description": "Missing or wrong API key"},
    403: {"model": ErrorResponse, "description": "Source not allowed for this key"},
    404: {"model": ErrorResponse, "description": "Document not found"},
    409: {
        "model": ErrorResponse,
        "description": "Deleted while being written, or its id is another document's",
    },
    413: {"model": ErrorResponse, "description": "File too large"},
    415: {"model": ErrorResponse, "description": "Unsupported file type"},
    422: {"model": ErrorResponse, "description": "Invalid request"},
}


class DocumentPublic(BaseModel):
    """A document in the index."""

    doc_id: str
    title: str
    source: str
    chunks: int
    updated_at: str | None = None


class DocumentIngested(DocumentPublic):
    """What an upload did."""

    status: str


class DocumentsPublic(BaseModel):
    """A page of documents, sorted by id."""

    data: list[DocumentPublic]
    count: int


def _suffix(upload: UploadFile) -> str:
    name_suffix = PurePath(upload.filename or "").suffix.lower()
    if name_suffix in SUPPORTED_SUFFIXES:
        return name_suffix
    content_type = (upload.content_type or "").split(";")[0].strip().lower()
    if content_type in CONTENT_TYPES:
        return CONTENT_TYPES[content_type]
    raise ApiError(
        415,
        "unsupported_media_type",
        f"Unsupported file type; send one of: {', '.join(sorted(SUPPORTED_SUFFIXES))}.",
    )


def _scope_error(source: str) -> ApiError:
    # Only ever the source the upload names: a document of a source the key may not
    # use, which the upload would replace, is refused as an id taken (no 403 telling
    # that it exists).
    return ApiError(
        403,
        "source_forbidden",
        f"This key may not write documents in the source {source!r}: its caller apps "
        "are not allowed to use it.",
    )


UPLOAD_FIELDS = ("file", "doc_id", "title", "source", "source_app", "workspace", "metadata")
"""The form fields `POST /documents` reads (the parameters of `create_document`)."""


async def refuse_repeated_fields(request: Request) -> None:
    """Refuse a form that gives a field twice (two files, two titles).

    FastAPI keeps the last value of a repeated field, so a second `file` part silently
    replaced the first: which document the caller meant is a guess, not ours to make.

    Raises:
        ApiError: 422 `repeated_field`.
    """
    form = await request.form()  # parsed once; FastAPI reuses it for the fields
    # Only the route's own fields: an unknown one is ignored, given once or twice.
    repeated = sorted(name for name in UPLOAD_FIELDS if len(form.getlist(name)) > 1)
    if repeated:
        raise ApiError(
            422, "repeated_field", f"Give each form field once; repeated: {', '.join(repeated)}."
        )


@router.post(
    "",
    response_model=DocumentIngested,
    status_code=201,
    responses={**ERRORS, **STORAGE_FULL_RESPONSES},
    dependencies=[Depends(refuse_repeated_fields)],
)
async def create_document(
    services: ServicesDep,
    tenant: TenantDep,
    scope: DocumentSourcesDep,
    file: Annotated[UploadFile, File(description="Markdown, text, HTML or PDF.")],
    doc_id: Annotated[
        str | None, Form(max_length=128, pattern=r"^[A-Za-z0-9][A-Za-z0-9._-]*$")
    ] = None,
    title: Annotated[StorableText | None, Form(max_length=300)] = None,
    source: Annotated[StorableText | None, Form(max_length=128)] = None,
    source_app: Annotated[StorableText | None, Form(max_length=128)] = None,
    workspace: Annotated[StorableText | None, Form(max_length=128)] = None,
    metadata: Annotated[
        str | None,
        Form(description=f"A JSON object of extra metadata (at most {MAX_METADATA_BYTES} bytes)."),
    ] = None,
) -> DocumentIngested:
    """Upload a document; re-uploading identical content changes nothing.

    The document must land in a source the key's caller apps may use (their
    `source_policy`); an id held by a document of a source they may not use is 409
    `document_id_taken`, as an id held by a document of another name is.
    """
    suffix = _suffix(upload=file)
    settings = services.settings
    limit = settings.max_upload_bytes
    data = await file.read(limit + 1)
    if len(data) > limit:
        raise ApiError(413, "payload_too_large", f"Files are limited to {limit} bytes.")
    limits = ExtractionLimits(
        max_pages=settings.max_document_pages,
        max_chars=settings.max_document_chars,
        max_seconds=settings.max_extraction_seconds,
    )
    try:
        # Off the event loop: extraction and front matter parsing take CPU, even bounded.
        doc = await run_in_threadpool(
            document_from_upload,
            data,
            suffix=suffix,
            # Never a path; a name with no last part ("/", ".") is named as a missing one.
            filename=PurePath(file.filename or "").name or f"upload{suffix}",
            limits=limits,
            doc_id=doc_id,
            title=title,
            source=source,
            metadata=metadata,
        )
    except DocumentError as exc:
        raise ApiError(exc.status, exc.code, str(exc)) from exc
    try:
        status = await run_in_threadpool(
            services.kb.ingest_document,
            doc,
            tenant=tenant,
            source_app=source_app,
            workspace=workspace,
            writable_sources=scope,
        )
    except DocumentScopeError as exc:
        raise _scope_error(exc.source) from exc
    except DocumentError as exc:
        raise ApiError(exc.status, exc.code, str(exc)) from exc
    info = await run_in_threadpool(services.kb.document_info, doc.doc_id, tenant=tenant)
    if info is None:  # deleted by another request since
        raise ApiError(409, "conflict", "The document was deleted while it was being written.")
    return DocumentIngested(
        doc_id=info.doc_id,
        title=info.title,
        source=info.source,
        chunks=info.chunks,
        updated_at=info.updated_at,
        status=status,
    )


@router.get("", response_model=DocumentsPublic, responses=ERRORS)
async def read_documents(
    services: ServicesDep,
    tenant: TenantDep,
    scope: DocumentSourcesDep,
    offset: int = Query(default=0, ge=0),
    limit: int = Query(default=50, ge=1, le=500),
) -> DocumentsPublic:
    """Documents of the caller's tenant, in the sources its key may use, with chunk counts.

    Sorted by id: `offset` and `limit` page through them, and a page holds the same
    documents on every read while none is added or deleted. `count` is the number of
    documents in all pages.
    """
    found = await run_in_threadpool(
        services.kb.document_page, tenant=tenant, sources=scope, offset=offset, limit=limit
    )
    return DocumentsPublic(
        data=[
            DocumentPublic(
                doc_id=d.doc_id,
                title=d.title,
                source=d.source,
                chunks=d.chunks,
                updated_at=d.updated_at,
            )
            for d in found.data
        ],
        count=found.count,
    )


class IngestionPublic(BaseModel):
    """A document being written."""

    doc_id: str
    chunks_written: int
    chunks_total: int
    started_at: float


class IngestionsPublic(BaseModel):
    """The caller's documents being written now, oldest first."""

    data: list[IngestionPublic]
    count: int


@ingestions_router.get("/ingestions", response_model=IngestionsPublic, responses=ERRORS)
async def read_ingestions(
    services: ServicesDep, tenant: TenantDep, scope: DocumentSourcesDep
) -> IngestionsPublic:
    """List the uploads being written now, with their progress (chunks written of the total)."""
    found = services.kb.ingestions(tenant=tenant)
    shown = [p for p in found if scope is None or p.source in scope]
    data = [
        IngestionPublic(
            doc_id=p.doc_id,
            chunks_written=p.chunks_written,
            chunks_total=p.chunks_total,
            started_at=p.started_at,
        )
        for p in shown
    ]
    return IngestionsPublic(data=data, count=len(data))


@router.delete("/{doc_id}", response_model=Message, responses={**ERRORS, **STORAGE_FULL_RESPONSES})
async def delete_document(
    doc_id: str, services: ServicesDep, tenant: TenantDep, scope: DocumentSourcesDep
) -> Message:
    """Remove a document and its chunks (only in the sources the key may use)."""
    removed = await run_in_threadpool(
        services.kb.delete_document, doc_id, tenant=tenant, sources=scope
    )
    if not removed:
        raise ApiError(404, "document_not_found", "Document not found")
    return Message(message="Document deleted successfully")
