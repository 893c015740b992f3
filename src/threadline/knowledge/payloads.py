"""Chunk payloads: what a chunk is stored with, and what the index reads back from them."""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from langchain_core.documents import Document

from threadline.knowledge.documents import (
    RESERVED_METADATA_KEYS,
    Chunk,
    DocumentError,
    SourceDocument,
    name_key,
)


@dataclass(frozen=True)
class DocumentState:
    """What the index holds of one document, and whether it is whole."""

    content_hash: str | None
    sources: frozenset[str]
    chunks: int
    complete: bool
    names: frozenset[str] = frozenset()
    """The names its versions were stored under (`name_key`); none for a document
    stored before names were kept."""


def document_state(metas: Sequence[dict[str, Any]]) -> DocumentState:
    """Check a document's chunk payloads: one version, every position once, none missing.

    A document is whole when all its chunks carry the same content hash and
    generation, their count is the `chunk_count` they were written with, and their
    positions are 0..n-1. Anything else (a crash under an older version of this code,
    two versions left live) is incomplete and gets re-ingested on the next upload.
    """
    hashes = {m.get("content_hash") for m in metas}
    generations = {m.get("generation") for m in metas}
    counts = {m.get("chunk_count") for m in metas}
    positions = sorted(int(m.get("position", -1)) for m in metas)
    complete = (
        len(hashes) == 1
        and len(generations) == 1
        and counts == {len(metas)}
        and positions == list(range(len(metas)))
    )
    return DocumentState(
        content_hash=next(iter(hashes)) if len(hashes) == 1 else None,
        sources=frozenset(str(m.get("source", "")) for m in metas),
        chunks=len(metas),
        complete=complete,
        names=frozenset(name_key(str(m["doc_name"])) for m in metas if m.get("doc_name")),
    )


def id_taken(doc: SourceDocument) -> DocumentError:
    """Return the refusal of a file whose id belongs to a document it may not replace.

    One answer for a document of another name (`refuse_another_name`) and for a
    document in a source the caller may not use: a caller must not tell from the
    answer which of the two it met, nor learn that source, title or name.
    """
    return DocumentError(
        f"The id {doc.doc_id!r} belongs to another document; rename the file, give "
        "another doc_id, or delete that document first.",
        code="document_id_taken",
        status=409,
    )


def refuse_another_name(doc: SourceDocument, stored: DocumentState) -> None:
    """Refuse to let a file replace a document another name gave the same id.

    Ids keep ASCII letters, digits and `. _ -`, so `a b.md`, `a,b.md` and `a-b.md` all
    give `a-b`: each upload silently replaced the document of the other name. A document
    stored before names were kept, or a document whose id the caller gives, is replaced
    as always.

    Raises:
        DocumentError: 409 `document_id_taken`.
    """
    name = doc.id_name
    if name is None or not stored.names or name_key(name) in stored.names:
        return
    raise id_taken(doc)


@dataclass(frozen=True)
class ScoredChunk:
    """A chunk with its retrieval score (the engine's, fusion scores for hybrid)."""

    chunk: Chunk
    score: float


@dataclass(frozen=True)
class ChunkKey:
    """What names a chunk in a ranking: its id and its document's."""

    chunk_id: str
    doc_id: str


@dataclass(frozen=True)
class ChunkHit:
    """A search hit before its chunk is read: the chunk's key, the point, the score.

    A turn reads each query variant's ranking deep, fuses them and keeps a few: the
    rankings need no more of a hit than this, and only the kept hits' payloads are
    read whole (`KnowledgeBase.hit_chunks`).
    """

    chunk: ChunkKey
    score: float
    point_id: str


HIT_KEYS = ("chunk_id", "doc_id")
"""The metadata keys a `ChunkHit` is built from."""


def chunk_hits(hits: list[tuple[str, dict[str, Any], float]], k: int) -> list[ChunkHit]:
    """Turn the first `k` keyed engine hits (id, metadata with `HIT_KEYS`, score) into hits."""
    return [
        ChunkHit(ChunkKey(meta.get("chunk_id", ""), meta.get("doc_id", "")), score, point)
        for point, meta, score in hits[:k]
    ]


def document_point_id(doc: Document) -> str:
    """Return an engine Document's point id (the Edge store's id, langchain-qdrant's _id)."""
    return str(doc.id or doc.metadata.get("_id", ""))


@dataclass(frozen=True)
class DocumentInfo:
    """What the index knows about one document."""

    doc_id: str
    title: str
    source: str
    path: str | None
    updated_at: str | None
    chunks: int
    content_hash: str | None


def info_from_first_chunk(doc_id: str, first: dict[str, Any], chunks: int) -> DocumentInfo:
    """Build a document's listing from one chunk's payload and its chunk count."""
    return DocumentInfo(
        doc_id=doc_id,
        title=first.get("title", doc_id),
        source=first.get("source", ""),
        path=first.get("path"),
        updated_at=first.get("updated_at"),
        chunks=chunks,
        content_hash=first.get("content_hash"),
    )


def scored_chunks(hits: list[tuple[Document, float]], k: int) -> list[ScoredChunk]:
    """Turn the first `k` engine hits into scored chunks."""
    return [ScoredChunk(chunk_from_payload(doc.metadata), score) for doc, score in hits[:k]]


def chunk_payload(
    chunk: Chunk,
    doc: SourceDocument,
    *,
    tenant: str,
    content_hash: str,
    chunk_count: int,
    source_app: str | None = None,
    workspace: str | None = None,
) -> dict[str, Any]:
    """Return the metadata payload a chunk is stored with (what filters and hits read).

    `content_hash` is `doc.content_hash`, passed in because it hashes the whole
    document: computed once per document, not once per chunk.
    """
    meta: dict[str, Any] = {
        **chunk.metadata,
        "tenant": tenant,
        "doc_id": chunk.doc_id,
        "chunk_id": chunk.chunk_id,
        "title": chunk.title,
        "section": chunk.section,
        "position": chunk.position,
        "source": chunk.source,
        "text": chunk.text,
        "path": doc.path,
        # What named the document (its file's name, else the id it was given): another
        # name that gives the same id is refused rather than replacing it.
        "doc_name": doc.id_name or doc.doc_id,
        "updated_at": doc.updated_at,
        "content_hash": content_hash,
        "chunk_count": chunk_count,
    }
    if source_app:
        meta["source_app"] = source_app
    if workspace:
        meta["workspace"] = workspace
    return meta


def point_id(tenant: str, chunk_id: str, generation: int) -> str:
    """Return the point id of a chunk of one tenant's version of a document.

    Point ids are per tenant and version: two tenants may ingest the same file, and a
    version being written never overwrites the chunks of the one readers see.
    """
    return str(uuid.uuid5(uuid.UUID(chunk_id), f"{tenant}\x00{generation}"))


def chunk_from_payload(meta: dict[str, Any]) -> Chunk:
    """Rebuild a chunk from its stored payload; unknown fields become its metadata."""
    known = RESERVED_METADATA_KEYS | {
        # What langchain-qdrant adds to the metadata of every hit: engine bookkeeping,
        # not document metadata (Qdrant Edge hits do not carry it).
        "_id",
        "_collection_name",
    }
    return Chunk(
        chunk_id=meta.get("chunk_id", ""),
        doc_id=meta.get("doc_id", ""),
        title=meta.get("title", ""),
        section=meta.get("section", ""),
        position=int(meta.get("position", 0)),
        text=meta.get("text", ""),
        source=meta.get("source", ""),
        metadata={k: v for k, v in meta.items() if k not in known},
    )
