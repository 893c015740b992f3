"""Documents: upload (Markdown, text, HTML, PDF), list, delete — per tenant."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path, PurePath
from typing import Annotated, Any

from fastapi import APIRouter, File, Form, Query, UploadFile
from pydantic import BaseModel
from starlette.concurrency import run_in_threadpool

from threadline.api.deps import ServicesDep, TenantDep
from threadline.api.errors import ApiError
from threadline.api.schemas import ErrorResponse, Message
from threadline.knowledge.converters import CONTENT_TYPES, SUPPORTED_SUFFIXES, to_markdown
from threadline.knowledge.documents import DocumentError, load_document

router = APIRouter(prefix="/documents", tags=["documents"])

ERRORS = {
    400: {"model": ErrorResponse, "description": "The file could not be read"},
    401: {"model": ErrorResponse, "description": "Missing or wrong API key"},
    404: {"model": ErrorResponse, "description": "Document not found"},
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


@router.post("", response_model=DocumentIngested, status_code=201, responses=ERRORS)
async def create_document(
    services: ServicesDep,
    tenant: TenantDep,
    file: Annotated[UploadFile, File(description="Markdown, text, HTML or PDF.")],
    doc_id: Annotated[
        str | None, Form(max_length=128, pattern=r"^[A-Za-z0-9][A-Za-z0-9._-]*$")
    ] = None,
    title: Annotated[str | None, Form(max_length=300)] = None,
    source: Annotated[str | None, Form(max_length=128)] = None,
    source_app: Annotated[str | None, Form(max_length=128)] = None,
    workspace: Annotated[str | None, Form(max_length=128)] = None,
    metadata: Annotated[str | None, Form(description="A JSON object of extra metadata.")] = None,
):
    """Upload a document; re-uploading identical content changes nothing."""
    suffix = _suffix(upload=file)
    limit = services.settings.max_upload_bytes
    data = await file.read(limit + 1)
    if len(data) > limit:
        raise ApiError(413, "payload_too_large", f"Files are limited to {limit} bytes.")
    extra: dict[str, Any] = {}
    if metadata:
        try:
            extra = json.loads(metadata)
        except json.JSONDecodeError as exc:
            raise ApiError(422, "validation_error", "metadata must be a JSON object") from exc
        if not isinstance(extra, dict):
            raise ApiError(422, "validation_error", "metadata must be a JSON object")
    name = PurePath(file.filename or f"upload{suffix}").name  # never a client-chosen path
    try:
        text, converted_title = await run_in_threadpool(to_markdown, data, suffix)
        doc = load_document(
            Path(name), raw=text, title_hint=converted_title, default_source="uploads"
        )
    except DocumentError as exc:
        raise ApiError(400, "unreadable_document", str(exc)) from exc
    doc = replace(
        doc,
        doc_id=(doc_id or doc.doc_id).lower(),
        title=title or doc.title,
        source=source or doc.source,
        path=None,
        metadata={**doc.metadata, **{str(k): v for k, v in extra.items()}},
    )
    if not doc.text.strip():
        raise ApiError(400, "unreadable_document", "The document has no text.")
    status = await run_in_threadpool(
        services.kb.ingest_document, doc, tenant=tenant, source_app=source_app, workspace=workspace
    )
    info = next(d for d in services.kb.list_documents(tenant=tenant) if d.doc_id == doc.doc_id)
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
    offset: int = Query(default=0, ge=0),
    limit: int = Query(default=50, ge=1, le=500),
):
    """Documents of the caller's tenant with their chunk counts."""
    infos = await run_in_threadpool(services.kb.list_documents, tenant=tenant)
    page = infos[offset : offset + limit]
    return DocumentsPublic(
        data=[
            DocumentPublic(
                doc_id=d.doc_id,
                title=d.title,
                source=d.source,
                chunks=d.chunks,
                updated_at=d.updated_at,
            )
            for d in page
        ],
        count=len(infos),
    )


@router.delete("/{doc_id}", response_model=Message, responses=ERRORS)
async def delete_document(doc_id: str, services: ServicesDep, tenant: TenantDep):
    """Remove a document and its chunks."""
    removed = await run_in_threadpool(services.kb.delete_document, doc_id, tenant=tenant)
    if not removed:
        raise ApiError(404, "document_not_found", "Document not found")
    return Message(message="Document deleted successfully")
