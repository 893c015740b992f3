"""The knowledge base: documents in, scored chunks out, over a Qdrant engine.

One `KnowledgeBase` owns one vector engine (see :mod:`threadline.knowledge.engines`):
Qdrant Edge in this process by default, a Qdrant server when ``QDRANT_URL`` is set, or
qdrant-client's local mode on request. Writes go through one re-entrant lock, so an
update (delete the old chunks, add the new ones) is never interleaved with another.
Reads take the lock too unless the engine is safe for concurrent use (Qdrant Edge and
servers are; qdrant-client's local mode is not).
"""

from __future__ import annotations

import json
import threading
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from langchain_core.documents import Document
from qdrant_client import QdrantClient, models

from threadline.knowledge.catalog import Catalog, is_catalog_payload
from threadline.knowledge.documents import (
    CATALOG_SUFFIXES,
    Chunk,
    DocumentError,
    SourceDocument,
    chunk_document,
    iter_files,
    load_document,
)
from threadline.knowledge.embeddings import (
    EmbeddingSetup,
    check_index_embeddings,
    create_embedding_setup,
)
from threadline.knowledge.engines import (
    DENSE_VECTOR,
    SPARSE_VECTOR,
    VectorEngine,
    create_qdrant_client,
    open_engine,
)
from threadline.settings import Settings

__all__ = [
    "DENSE_VECTOR",
    "SPARSE_VECTOR",
    "DocumentInfo",
    "IngestReport",
    "KnowledgeBase",
    "ScoredChunk",
    "SearchFilters",
    "create_qdrant_client",
]

_META = "metadata"
_UPSERT_BATCH = 256


@dataclass(frozen=True)
class SearchFilters:
    """Restrictions every search applies (tenant always; the rest when given)."""

    tenant: str
    sources: tuple[str, ...] | None = None
    source_app: str | None = None
    workspace: str | None = None
    doc_ids: tuple[str, ...] | None = None

    def to_qdrant(self) -> models.Filter:
        """Translate to a Qdrant payload filter."""
        must: list[models.Condition] = [_match("tenant", self.tenant)]
        if self.sources is not None:
            must.append(_match_any("source", self.sources))
        if self.source_app:
            must.append(_match("source_app", self.source_app))
        if self.workspace:
            must.append(_match("workspace", self.workspace))
        if self.doc_ids is not None:
            must.append(_match_any("doc_id", self.doc_ids))
        return models.Filter(must=must)


@dataclass(frozen=True)
class ScoredChunk:
    """A chunk with its retrieval score (the engine's, fusion scores for hybrid)."""

    chunk: Chunk
    score: float


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


@dataclass
class IngestReport:
    """What one ingestion run did, per document id."""

    added: list[str] = field(default_factory=list)
    updated: list[str] = field(default_factory=list)
    unchanged: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    catalogs: list[str] = field(default_factory=list)
    errors: dict[str, str] = field(default_factory=dict)
    chunks_written: int = 0

    def summary(self) -> str:
        """One line for humans."""
        return (
            f"added {len(self.added)}, updated {len(self.updated)}, "
            f"unchanged {len(self.unchanged)}, removed {len(self.removed)}, "
            f"catalogs {len(self.catalogs)}, errors {len(self.errors)}, "
            f"chunks written {self.chunks_written}"
        )


def _key(name: str) -> str:
    return f"{_META}.{name}"


def _match(name: str, value: str) -> models.FieldCondition:
    return models.FieldCondition(key=_key(name), match=models.MatchValue(value=value))


def _match_any(name: str, values: Sequence[str]) -> models.FieldCondition:
    return models.FieldCondition(key=_key(name), match=models.MatchAny(any=list(values)))


class KnowledgeBase:
    """Ingestion and retrieval over one Qdrant collection."""

    def __init__(
        self,
        settings: Settings,
        *,
        client: QdrantClient | None = None,
        embeddings: EmbeddingSetup | None = None,
    ) -> None:
        """Open (and create if needed) the collection the settings name.

        Args:
            settings: Process settings (engine, paths, collection).
            client: A qdrant-client to use instead of the configured engine.
            embeddings: Embeddings to use instead of the configured ones.
        """
        self._settings = settings
        self._lock = threading.RLock()
        self._embeddings = embeddings or create_embedding_setup(settings)
        if client is None and settings.qdrant_url is None:
            check_index_embeddings(settings.qdrant_path, self._embeddings)
        self.catalog = Catalog(settings.data_dir / "catalog")
        # Per tenant, the languages of its chunks (see `language_shares`); any write clears it.
        self._languages: dict[str, dict[str, float]] = {}
        with self._lock:
            self._engine: VectorEngine = open_engine(settings, self._embeddings, client=client)

    def _reading(self) -> AbstractContextManager[Any]:
        """The lock reads need: none when the engine takes concurrent use."""
        return nullcontext() if self._engine.concurrent_reads else self._lock

    @property
    def embedding_name(self) -> str:
        """Which embeddings this index uses (for health and benchmarks)."""
        return self._embeddings.name

    @property
    def engine_name(self) -> str:
        """Which vector engine serves this index: "edge", "server" or "local"."""
        return self._engine.name

    def close(self) -> None:
        """Release the engine (the embedded engine's storage lock with it)."""
        with self._lock:
            self._engine.close()

    # --- ingestion -----------------------------------------------------------
    def ingest_paths(
        self,
        paths: Iterable[Path],
        *,
        tenant: str = "default",
        source_app: str | None = None,
        workspace: str | None = None,
        prune: bool = False,
    ) -> IngestReport:
        """Ingest files and directories; unchanged files cost nothing.

        Args:
            paths: Files or directories (Markdown, text, JSON product catalogs).
            tenant: Owner of the documents.
            source_app: Optional application tag stored on every chunk.
            workspace: Optional workspace tag stored on every chunk.
            prune: Remove documents of this tenant whose file is no longer there.
        """
        report = IngestReport()
        seen: set[str] = set()
        for file, root in iter_files(paths):
            try:
                if file.suffix.lower() in CATALOG_SUFFIXES:
                    payload = json.loads(file.read_text(encoding="utf-8"))
                    if not is_catalog_payload(payload):
                        raise DocumentError(f"{file}: JSON files must hold a product catalog")
                    name = self.catalog.save(tenant, file.stem, payload)
                    report.catalogs.append(name)
                    continue
                doc = load_document(file, root=root)
            except (DocumentError, OSError, json.JSONDecodeError) as exc:
                report.errors[str(file)] = str(exc)
                continue
            seen.add(doc.doc_id)
            status = self.ingest_document(
                doc, tenant=tenant, source_app=source_app, workspace=workspace, report=report
            )
            getattr(report, status).append(doc.doc_id)
        if prune:
            for info in self.list_documents(tenant=tenant):
                if info.doc_id not in seen and info.path is not None:
                    self.delete_document(info.doc_id, tenant=tenant)
                    report.removed.append(info.doc_id)
        if report.chunks_written or report.removed:
            # Index what this run wrote (Qdrant Edge leaves that to its caller; cheap
            # when little changed, a no-op for the other engines).
            with self._lock:
                self._engine.optimize()
        return report

    def ingest_document(
        self,
        doc: SourceDocument,
        *,
        tenant: str = "default",
        source_app: str | None = None,
        workspace: str | None = None,
        report: IngestReport | None = None,
    ) -> str:
        """Index one document, replacing its previous chunks when it changed.

        Returns:
            "added", "updated" or "unchanged".
        """
        previous = self._document_hash(doc.doc_id, tenant)
        content_hash = doc.content_hash
        if previous == content_hash:
            return "unchanged"
        chunks = chunk_document(doc)
        documents, ids = [], []
        for chunk in chunks:
            meta = chunk_payload(
                chunk,
                doc,
                tenant=tenant,
                content_hash=content_hash,
                chunk_count=len(chunks),
                source_app=source_app,
                workspace=workspace,
            )
            documents.append(Document(page_content=chunk.embedding_text, metadata=meta))
            ids.append(_point_id(tenant, chunk.chunk_id))
        with self._lock:
            if previous is not None:
                self._delete_where(SearchFilters(tenant=tenant, doc_ids=(doc.doc_id,)))
            if documents:
                self._engine.add_documents(documents, ids, _UPSERT_BATCH)
            self._languages.pop(tenant, None)
        if report is not None:
            report.chunks_written += len(documents)
        return "added" if previous is None else "updated"

    def delete_document(self, doc_id: str, *, tenant: str = "default") -> int:
        """Remove a document's chunks; returns how many were removed."""
        with self._lock:
            flt = SearchFilters(tenant=tenant, doc_ids=(doc_id,))
            count = self._engine.count(flt.to_qdrant())
            if count:
                self._delete_where(flt)
            return count

    def _delete_where(self, flt: SearchFilters) -> None:
        self._engine.delete_where(flt.to_qdrant())
        self._languages.clear()

    def language_shares(self, *, tenant: str = "default", sample: int = 200) -> dict[str, float]:
        """The share of each language ("en", "fr") among a tenant's chunks.

        Measured on up to `sample` chunks (the engine's id order, which the hashed point
        ids make an arbitrary one) and kept until the next write. The retriever uses it
        to translate a question only into languages the documents are in.
        """
        shares = self._languages.get(tenant)
        if shares is None:
            from threadline.knowledge.language import text_language

            flt = SearchFilters(tenant=tenant).to_qdrant()
            with self._reading():
                texts = [m.get("text", "") for m in self._engine.metadatas(flt, limit=sample)]
            counts = Counter(text_language(text) for text in texts if text.strip())
            total = sum(counts.values())
            shares = {lang: n / total for lang, n in counts.items()} if total else {}
            self._languages[tenant] = shares
        return shares

    def _document_hash(self, doc_id: str, tenant: str) -> str | None:
        flt = SearchFilters(tenant=tenant, doc_ids=(doc_id,)).to_qdrant()
        with self._reading():
            metas = list(self._engine.metadatas(flt, limit=1))
        if not metas:
            return None
        return metas[0].get("content_hash")

    # --- reading -------------------------------------------------------------
    def _scroll(self, flt: models.Filter) -> list[dict[str, Any]]:
        with self._reading():
            return list(self._engine.metadatas(flt))

    def list_documents(self, *, tenant: str = "default") -> list[DocumentInfo]:
        """Documents of a tenant with their chunk counts, sorted by id."""
        grouped: dict[str, list[dict[str, Any]]] = defaultdict(list)
        for meta in self._scroll(SearchFilters(tenant=tenant).to_qdrant()):
            grouped[meta.get("doc_id", "")].append(meta)
        infos = []
        for doc_id, metas in sorted(grouped.items()):
            first = metas[0]
            infos.append(
                DocumentInfo(
                    doc_id=doc_id,
                    title=first.get("title", doc_id),
                    source=first.get("source", ""),
                    path=first.get("path"),
                    updated_at=first.get("updated_at"),
                    chunks=len(metas),
                    content_hash=first.get("content_hash"),
                )
            )
        return infos

    def document_chunks(self, doc_id: str, *, tenant: str = "default") -> list[Chunk]:
        """All chunks of one document in reading order."""
        metas = self._scroll(SearchFilters(tenant=tenant, doc_ids=(doc_id,)).to_qdrant())
        return sorted((_chunk_from_meta(m) for m in metas), key=lambda c: c.position)

    def count(self, *, tenant: str | None = None) -> int:
        """Number of chunks (of one tenant, or all)."""
        flt = SearchFilters(tenant=tenant).to_qdrant() if tenant else None
        with self._reading():
            return self._engine.count(flt)

    def search(self, query: str, *, k: int, filters: SearchFilters) -> list[ScoredChunk]:
        """Top-k chunks for a query within the filters, best first."""
        if not query.strip():
            return []
        with self._reading():
            hits = self._engine.search(query, _fetch(k), filters.to_qdrant())
        return _scored_chunks(hits, k)

    def search_many(
        self, queries: Sequence[str], *, k: int, filters: SearchFilters
    ) -> list[list[ScoredChunk]]:
        """`search` for several queries at once (one embedding batch, one engine batch).

        Returns:
            One ranking per query, in order; an empty query gets an empty ranking.
        """
        live = [i for i, query in enumerate(queries) if query.strip()]
        rankings: list[list[ScoredChunk]] = [[] for _ in queries]
        if not live:
            return rankings
        with self._reading():
            found = self._engine.search_batch(
                [queries[i] for i in live], _fetch(k), filters.to_qdrant()
            )
        for i, hits in zip(live, found, strict=True):
            rankings[i] = _scored_chunks(hits, k)
        return rankings


def _fetch(k: int) -> int:
    """Hits asked of the engine for a top-k: fusion needs more per branch than k."""
    return max(k * 3, 20)


def _scored_chunks(hits: list[tuple[Document, float]], k: int) -> list[ScoredChunk]:
    return [ScoredChunk(_chunk_from_meta(doc.metadata), score) for doc, score in hits[:k]]


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
    """The metadata payload a chunk is stored with (what filters and hits read).

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
        "updated_at": doc.updated_at,
        "content_hash": content_hash,
        "chunk_count": chunk_count,
    }
    if source_app:
        meta["source_app"] = source_app
    if workspace:
        meta["workspace"] = workspace
    return meta


def _point_id(tenant: str, chunk_id: str) -> str:
    """Point ids are per tenant, so two tenants may ingest the same file."""
    if tenant == "default":
        return chunk_id
    import uuid

    return str(uuid.uuid5(uuid.UUID(chunk_id), tenant))


def _chunk_from_meta(meta: dict[str, Any]) -> Chunk:
    known = {
        "tenant",
        "doc_id",
        "chunk_id",
        "title",
        "section",
        "position",
        "source",
        "text",
        "path",
        "updated_at",
        "content_hash",
        "chunk_count",
        "source_app",
        "workspace",
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
