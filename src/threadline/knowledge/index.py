"""The knowledge base: documents in, scored chunks out, over a Qdrant engine.

One `KnowledgeBase` owns one vector engine (see :mod:`threadline.knowledge.engines`):
Qdrant Edge in this process by default, a Qdrant server when ``QDRANT_URL`` is set, or
qdrant-client's local mode on request.

A document is replaced whole or not at all: its new version is staged where no search
looks, published in one engine operation, then the older version is deleted (see
`KnowledgeBase.ingest_document`); a journal lets start-up finish or undo a write a crash
interrupted, and a write that fails in this process is repaired at once (or, when the
repair cannot be written, what it would delete is hidden from every read until it is).
Writes to one document are serialized by a lock of its own; engine writes take a
first-come lock one batch at a time, so uploads of different documents share
the engine fairly. Reads take no lock when the engine is safe for concurrent use
(Qdrant Edge and servers are); with qdrant-client's local mode, which is not, reads and
writes share one lock.

The filters, the chunk payloads and the versioned-write machinery (generations,
journal, locks) live in :mod:`~threadline.knowledge.filters`,
:mod:`~threadline.knowledge.payloads` and :mod:`~threadline.knowledge.versions`.
`KnowledgeBase` stays one class over 400 lines: ingestion, repair and reads share its
engine, its locks and the per-tenant caches every write clears, and that invariant is
easier to check in one place than across mixins.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import logging
import os
import threading
import time
from collections import Counter, defaultdict, deque
from collections.abc import Collection, Iterable, Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager, nullcontext
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, overload

from langchain_core.documents import Document
from qdrant_client import QdrantClient, models

from threadline.knowledge.catalog import Catalog, CatalogError, is_catalog_payload
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
from threadline.knowledge.filters import (
    SearchFilters,
    generation_is,
    match_value,
    payload_key,
    without_versions,
)
from threadline.knowledge.payloads import (
    HIT_KEYS,
    ChunkHit,
    DocumentInfo,
    DocumentState,
    ScoredChunk,
    chunk_from_payload,
    chunk_hits,
    chunk_payload,
    document_point_id,
    document_state,
    id_taken,
    info_from_first_chunk,
    point_id,
    refuse_another_name,
    scored_chunks,
)
from threadline.knowledge.prefetch import PrefetchingEmbeddings
from threadline.knowledge.term_counts import TermCounts
from threadline.knowledge.versions import (
    STAGED_TENANT,
    FairLock,
    RefCountedLock,
    new_generation,
    process_alive,
    write_journal,
)
from threadline.knowledge.vocabulary import Vocabulary, document_terms
from threadline.settings import Settings
from threadline.unique_json import (
    RepeatedJsonKey,
    TooManyJsonKeys,
    UnstorableJsonNumber,
    loads_unique,
)

log = logging.getLogger("threadline.knowledge")

__all__ = [
    "DENSE_VECTOR",
    "SPARSE_VECTOR",
    "STAGED_TENANT",
    "DocumentInfo",
    "DocumentPage",
    "DocumentScopeError",
    "DocumentState",
    "IngestProgress",
    "IngestReport",
    "KnowledgeBase",
    "ScoredChunk",
    "SearchFilters",
    "chunk_payload",
    "create_qdrant_client",
]

_UPSERT_BATCH = 256
# How far `ingest_paths` reads ahead of the document it writes, in chunks handed to the
# dense model: enough that the model always has a next document while one is written.
_PREFETCH_CHUNKS = 64

INTEGER_INDEXED_FIELDS = ("position",)
"""Metadata fields the engine keeps an integer index on. ``position == 0`` picks each
document's first chunk: the listings, titles and live versions read those, and without
the index the engine checked every chunk of the tenant for it (180 ms at 10k chunks)."""
LISTING_KEYS = ("doc_id", "title", "source", "path", "updated_at", "content_hash", "generation")
"""The metadata a document's listing reads from its first chunk (not its text)."""


@dataclass(frozen=True)
class DocumentPage:
    """One page of a tenant's documents, sorted by id, and how many there are in all."""

    data: list[DocumentInfo]
    count: int


class DocumentScopeError(PermissionError):
    """A write or delete would touch a document in a source the caller may not use."""

    def __init__(self, doc_id: str, source: str) -> None:
        """Keep which document and source."""
        super().__init__(f"document {doc_id!r} lies in a source this caller may not use")
        self.doc_id, self.source = doc_id, source


@dataclass
class IngestProgress:
    """A document being written: how far along it is."""

    doc_id: str
    source: str
    chunks_total: int
    chunks_written: int = 0
    started_at: float = field(default_factory=time.time)


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
        setup = embeddings or create_embedding_setup(settings)
        if client is None and settings.qdrant_url is None:
            check_index_embeddings(settings.qdrant_path, setup)
        # The engine embeds through it, so `ingest_paths` can compute vectors ahead.
        self._prefetch = PrefetchingEmbeddings(setup.dense) if setup.dense is not None else None
        self._embeddings = dataclasses.replace(setup, dense=self._prefetch or setup.dense)
        self.catalog = Catalog(settings.data_dir / "catalog")
        self._journal_dir = settings.data_dir / "ingest-journal"
        self._document_locks: dict[tuple[str, str], RefCountedLock] = {}
        self._in_flight: dict[tuple[str, str], IngestProgress] = {}
        # Per document whose write failed and whose repair could not be written either
        # (the disk still full), the versions the repair would delete (None: all of them):
        # every read leaves them out until a repair or a later write deletes them.
        self._unrepaired: dict[tuple[str, str], frozenset[int] | None] = {}
        self._document_locks_guard = threading.Lock()
        # Per tenant, the languages of its chunks (see `language_shares`); any write clears it.
        self._languages: dict[str, dict[str, float]] = {}
        # Per tenant, (doc_id, title, source) of its documents (see `document_titles`).
        self._titles: dict[str, list[tuple[str, str, str]]] = {}
        # Per document version, the terms its chunks hold; per tenant, their sum (see
        # `vocabulary`). A document's terms file holds at most its text's words, each
        # with a count and JSON quotes: a file past that bound is not one this index wrote.
        self._terms = TermCounts(
            settings.data_dir / "vocabulary", max_file_bytes=8 * settings.max_document_chars + 4096
        )
        with self._lock:
            self._engine: VectorEngine = open_engine(
                settings, self._embeddings, client=client, integer_fields=INTEGER_INDEXED_FIELDS
            )
        # Engines that take concurrent use let reads run beside a write; the others
        # (qdrant-client's local mode) need reads and writes under one lock.
        self._write_lock: AbstractContextManager[Any] = (
            FairLock() if self._engine.concurrent_reads else self._lock
        )
        self.repair()

    def _reading(self) -> AbstractContextManager[Any]:
        """Return the lock reads need: none when the engine takes concurrent use."""
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
        with self._lock, self._writing():
            self._engine.close()
        if self._prefetch is not None:
            self._prefetch.close()

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
        unread: set[str] = set()  # files there but not read: their id is unknown, not gone
        prefetched: list[str] = []
        try:
            for file, loaded in self._read_ahead(iter_files(paths), tenant, prefetched):
                try:
                    if loaded is None:  # a catalog
                        try:
                            payload = loads_unique(file.read_text(encoding="utf-8"))
                        except (RepeatedJsonKey, UnstorableJsonNumber, TooManyJsonKeys) as exc:
                            # Which value wins is the parser's guess; NaN, 1e999 and
                            # 400-digit integers no store keeps (all are ValueErrors).
                            raise DocumentError(f"{file}: {exc}") from exc
                        if not is_catalog_payload(payload):
                            raise DocumentError(f"{file}: JSON files must hold a product catalog")
                        try:
                            name = self.catalog.save(tenant, file.stem, payload)
                        except CatalogError as exc:
                            raise DocumentError(f"{file}: {exc}") from exc
                        report.catalogs.append(name)
                        continue
                    if isinstance(loaded, Exception):
                        raise loaded
                    doc = loaded
                except (DocumentError, OSError, json.JSONDecodeError) as exc:
                    report.errors[str(file)] = str(exc)
                    unread.add(str(file))
                    continue
                seen.add(doc.doc_id)
                try:
                    status = self.ingest_document(
                        doc,
                        tenant=tenant,
                        source_app=source_app,
                        workspace=workspace,
                        report=report,
                    )
                except DocumentError as exc:
                    report.errors[str(file)] = str(exc)
                    continue
                getattr(report, status).append(doc.doc_id)
        finally:
            if self._prefetch is not None:
                self._prefetch.discard(prefetched)  # what a failed document did not collect
        if prune:
            # Each document's first chunk has its path: no chunk count, no other chunk read.
            for doc_id, first in self._first_chunks(SearchFilters(tenant=tenant)).items():
                path = first.get("path")
                if doc_id not in seen and path is not None and path not in unread:
                    self.delete_document(doc_id, tenant=tenant)
                    report.removed.append(doc_id)
        if report.chunks_written or report.removed:
            # Index what this run wrote (Qdrant Edge leaves that to its caller; cheap
            # when little changed, a no-op for the other engines).
            with self._writing():
                self._engine.optimize()
        return report

    def _read_ahead(
        self, files: Sequence[tuple[Path, Path]], tenant: str, prefetched: list[str]
    ) -> Iterator[tuple[Path, SourceDocument | DocumentError | OSError | None]]:
        """Yield each file with its document (None for a catalog, or the load error).

        Documents are loaded a few files ahead, and the chunks of those that will be
        written (new or changed) are handed to the dense model in the background (see
        `threadline.knowledge.prefetch`), `_PREFETCH_CHUNKS` ahead: the model embeds
        the next documents while this thread writes the current one. Each document is
        one call, the one the engine would make, so the vectors do not change. The
        texts handed over are added to `prefetched`.
        """
        window: deque[tuple[Path, SourceDocument | DocumentError | OSError | None, int]] = deque()
        ahead = 0  # chunks of the documents in `window`
        pending = iter(files)
        exhausted = False
        while True:
            while not exhausted and (not window or ahead < _PREFETCH_CHUNKS):
                next_file = next(pending, None)
                if next_file is None:
                    exhausted = True
                    break
                file, root = next_file
                loaded: SourceDocument | DocumentError | OSError | None = None
                texts: list[str] = []
                if file.suffix.lower() not in CATALOG_SUFFIXES:
                    try:
                        loaded = load_document(file, root=root)
                    except (DocumentError, OSError) as exc:
                        loaded = exc
                    else:
                        texts = self._texts_to_embed(loaded, tenant)
                        self._prefetch_document(texts, prefetched)
                window.append((file, loaded, len(texts)))
                ahead += len(texts)
            if not window:
                return
            file, loaded, count = window.popleft()
            ahead -= count
            yield file, loaded

    def _texts_to_embed(self, doc: SourceDocument, tenant: str) -> list[str]:
        """Return the chunk texts `ingest_document` will embed (none if unchanged)."""
        if self._prefetch is None:
            return []
        current = self._document_state(doc.doc_id, tenant)
        if current is not None and current.complete and current.content_hash == doc.content_hash:
            return []  # unchanged: `ingest_document` will not embed it
        chunks = chunk_document(doc)
        if len(chunks) > self._settings.max_document_chunks:
            return []  # refused by `_write_version`
        return [chunk.embedding_text for chunk in chunks]

    def _prefetch_document(self, texts: list[str], prefetched: list[str]) -> None:
        """Hand a document's chunk texts to the model in the background, as the engine asks."""
        if self._prefetch is None:
            return
        for start in range(0, len(texts), _UPSERT_BATCH):  # `_stage_and_publish`'s batches
            self._prefetch.prefetch(texts[start : start + _UPSERT_BATCH])
        prefetched.extend(texts)

    def ingest_document(
        self,
        doc: SourceDocument,
        *,
        tenant: str = "default",
        source_app: str | None = None,
        workspace: str | None = None,
        report: IngestReport | None = None,
        writable_sources: frozenset[str] | None = None,
    ) -> str:
        """Index one document, replacing its previous version whole when it changed.

        The new version is written beside the old one under a staging tenant no
        search matches, then made live in one engine operation, then the older
        versions are deleted. Readers see the old version or the new one (both for an
        instant, never a mix); a crash leaves the old version, or the new one with
        leftovers that `repair` removes at the next start.

        Args:
            doc: The document.
            tenant: Owner of the document.
            source_app: Optional application tag stored on every chunk.
            workspace: Optional workspace tag stored on every chunk.
            report: Counts chunks written into it.
            writable_sources: The sources the caller may write (None: any). The
                document's own source and the source of the version it replaces must
                both be in it; checked under the document's lock.

        Returns:
            "added", "updated" or "unchanged".

        Raises:
            DocumentScopeError: when the document lies in a source outside
                `writable_sources`.
            DocumentError: 409 `document_id_taken` when the version it would replace
                lies in a source outside `writable_sources` (the answer a document of
                another name gets), or is a document of another name.
        """
        if writable_sources is not None and doc.source not in writable_sources:
            raise DocumentScopeError(doc.doc_id, doc.source)
        content_hash = doc.content_hash
        with self._document_lock(tenant, doc.doc_id):
            current = self._document_state(doc.doc_id, tenant)
            if current is not None and writable_sources is not None:
                if current.sources - writable_sources:
                    # Not 403: that told the caller a document it may not see exists.
                    raise id_taken(doc)
            if current is not None:
                refuse_another_name(doc, current)
            if current is not None and current.complete and current.content_hash == content_hash:
                return "unchanged"
            written = self._write_version(doc, tenant, content_hash, source_app, workspace)
        if report is not None:
            report.chunks_written += written
        return "added" if current is None else "updated"

    def _write_version(
        self,
        doc: SourceDocument,
        tenant: str,
        content_hash: str,
        source_app: str | None,
        workspace: str | None,
    ) -> int:
        """Stage, publish and clean up one version of a document (see `ingest_document`)."""
        generation = new_generation()
        chunks = chunk_document(doc)
        if not chunks:
            # Headings and no text under any: nothing to cite. Written, the empty version
            # would have replaced the stored one, the document gone with no version left.
            raise DocumentError("The document has no text under its headings.")
        limit = self._settings.max_document_chunks
        if len(chunks) > limit:
            # Many tiny sections make many chunks out of little text: bounded like pages.
            raise DocumentError(
                f"the document makes {len(chunks)} chunks; at most {limit} are indexed",
                code="too_many_chunks",
                status=413,
            )
        journal = self._journal_path(tenant, doc.doc_id)
        journal.parent.mkdir(parents=True, exist_ok=True)
        write_journal(journal, tenant, doc.doc_id, generation)
        staged = SearchFilters(tenant=STAGED_TENANT, doc_ids=(doc.doc_id,)).to_qdrant()
        staged.must.extend(  # type: ignore[union-attr]
            [match_value("staged_for", tenant), generation_is(generation)]
        )
        progress = IngestProgress(doc.doc_id, doc.source, len(chunks))
        self._in_flight[(tenant, doc.doc_id)] = progress
        try:
            self._stage_and_publish(
                doc,
                chunks,
                tenant,
                content_hash,
                generation,
                staged,
                progress,
                source_app,
                workspace,
            )
        except Exception:
            # qdrant-client's local mode publishes and deletes point by point: a write
            # failing part-way (a full disk) leaves part of the new version live beside
            # the old one. Repaired now, not at the next open: readers see one version.
            self._repair_failed_write(tenant, doc.doc_id, generation, journal)
            raise
        finally:
            self._in_flight.pop((tenant, doc.doc_id), None)
        self._unrepaired.pop((tenant, doc.doc_id), None)  # older versions all deleted
        journal.unlink(missing_ok=True)
        return len(chunks)

    def _repair_failed_write(
        self, tenant: str, doc_id: str, generation: int, journal: Path
    ) -> None:
        """Keep one version of a document whose write failed: its newest whole one.

        The journal's repair, run at once. When it cannot be written either (the disk
        still full), the versions it would delete are hidden from every read
        (`_visible`), and the journal entry stays for the next open to finish.
        """
        with self._writing():
            try:
                self._repair_document(tenant, doc_id, generation)
            except Exception:
                log.warning("repair of %s/%s failed; its other versions are hidden", tenant, doc_id)
                self._unrepaired[(tenant, doc_id)] = self._versions_to_drop(tenant, doc_id)
            else:
                self._unrepaired.pop((tenant, doc_id), None)
                journal.unlink(missing_ok=True)
            finally:
                self._languages.pop(tenant, None)
                self._titles.pop(tenant, None)
                self._terms.invalidate(tenant)

    def _versions_to_drop(self, tenant: str, doc_id: str) -> frozenset[int] | None:
        """Return the live versions of a document but its newest whole one (None: all)."""
        try:
            metas = self._scroll_all(SearchFilters(tenant=tenant, doc_ids=(doc_id,)).to_qdrant())
        except Exception:
            return None  # unreadable too: the whole document is hidden
        by_generation: dict[int, list[dict[str, Any]]] = defaultdict(list)
        for meta in metas:
            by_generation[int(meta.get("generation") or 0)].append(meta)
        whole = [g for g, group in by_generation.items() if document_state(group).complete]
        if not whole:
            return None
        return frozenset(by_generation) - {max(whole)}

    @overload
    def _visible(self, flt: models.Filter) -> models.Filter: ...
    @overload
    def _visible(self, flt: None) -> None: ...
    def _visible(self, flt: models.Filter | None) -> models.Filter | None:
        """Return a read's filter leaving out the versions a failed repair left (`_unrepaired`)."""
        if not self._unrepaired:
            return flt
        return without_versions(flt, dict(self._unrepaired))

    def _stage_and_publish(
        self,
        doc: SourceDocument,
        chunks: list[Chunk],
        tenant: str,
        content_hash: str,
        generation: int,
        staged: models.Filter,
        progress: IngestProgress,
        source_app: str | None,
        workspace: str | None,
    ) -> None:
        for start in range(0, len(chunks), _UPSERT_BATCH):
            documents, ids = [], []
            for chunk in chunks[start : start + _UPSERT_BATCH]:
                meta = chunk_payload(
                    chunk,
                    doc,
                    tenant=STAGED_TENANT,
                    content_hash=content_hash,
                    chunk_count=len(chunks),
                    source_app=source_app,
                    workspace=workspace,
                )
                meta.update(staged_for=tenant, generation=generation)
                documents.append(Document(page_content=chunk.embedding_text, metadata=meta))
                ids.append(point_id(tenant, chunk.chunk_id, generation))
            # One batch at a time under the write lock: another upload waits for one
            # batch, not for this whole document.
            with self._writing():
                self._engine.add_documents(documents, ids, _UPSERT_BATCH)
            progress.chunks_written += len(documents)
        with self._writing():
            self._engine.set_metadata_where(staged, {"tenant": tenant})
            self._delete_where_older(tenant, doc.doc_id, generation)
            self._languages.pop(tenant, None)
            self._titles.pop(tenant, None)
            self._terms.invalidate(tenant)
        self._terms.store(
            tenant,
            doc.doc_id,
            generation,
            document_terms(c.embedding_text for c in chunks),
            source=doc.source,
        )

    def ingestions(self, *, tenant: str) -> list[IngestProgress]:
        """Return the documents of a tenant being written now, oldest first."""
        found = [p for (owner, _), p in list(self._in_flight.items()) if owner == tenant]
        return sorted(found, key=lambda p: p.started_at)

    def _delete_where_older(self, tenant: str, doc_id: str, generation: int) -> None:
        """Delete the live chunks of a document older than `generation` (or unversioned)."""
        older = SearchFilters(tenant=tenant, doc_ids=(doc_id,)).to_qdrant()
        older.must_not = [
            models.FieldCondition(key=payload_key("generation"), range=models.Range(gte=generation))
        ]
        self._engine.delete_where(older)

    def delete_document(
        self,
        doc_id: str,
        *,
        tenant: str = "default",
        sources: frozenset[str] | None = None,
    ) -> int:
        """Remove a document's chunks; returns how many were removed.

        Args:
            doc_id: The document.
            tenant: Its owner.
            sources: Only when the document lies in these sources (None: any); a
                document outside them counts as absent (0).
        """
        with self._document_lock(tenant, doc_id):
            current = self._document_state(doc_id, tenant)
            if current is None or (sources is not None and current.sources - sources):
                return 0
            # Journaled before the first chunk goes, as an upload is: qdrant-client's
            # local mode deletes point by point, one commit each, so a delete cut short
            # (a crash, the disk filling up) leaves part of the document; the next open's
            # repair finishes it. On a full disk the journal is the first write and fails
            # with its own errno (SQLite reports a file-size limit as a bare I/O error):
            # a 507, and the document whole.
            journal = self._journal_path(tenant, doc_id)
            journal.parent.mkdir(parents=True, exist_ok=True)
            write_journal(journal, tenant, doc_id, new_generation(), deleting=True)
            with self._writing():
                flt = SearchFilters(tenant=tenant, doc_ids=(doc_id,))
                count = self._engine.count(flt.to_qdrant())
                try:
                    if count:
                        self._delete_where(flt)
                except Exception:
                    # Nothing deleted: the document is whole and stays; else the entry
                    # stays for the repair (and a retry of the delete finishes it too),
                    # and what is left of the document is hidden from reads till then.
                    if self._engine.count(flt.to_qdrant()) == count:
                        journal.unlink(missing_ok=True)
                    else:
                        self._unrepaired[(tenant, doc_id)] = None
                    raise
                self._unrepaired.pop((tenant, doc_id), None)
                self._terms.forget(tenant, doc_id)
            journal.unlink(missing_ok=True)
            return count

    def _delete_where(self, flt: SearchFilters) -> None:
        self._engine.delete_where(flt.to_qdrant())
        self._languages.clear()
        self._titles.clear()
        self._terms.invalidate()

    def language_shares(self, *, tenant: str = "default", sample: int = 200) -> dict[str, float]:
        """Return the share of each language ("en", "fr") among a tenant's chunks.

        Measured on up to `sample` chunks (the engine's id order, which the hashed point
        ids make an arbitrary one) and kept until the next write. The retriever uses it
        to translate a question only into languages the documents are in.
        """
        shares = self._languages.get(tenant)
        if shares is None:
            from threadline.knowledge.language import text_language

            flt = self._visible(SearchFilters(tenant=tenant).to_qdrant())
            with self._reading():
                texts = [m.get("text", "") for m in self._engine.metadatas(flt, limit=sample)]
            counts = Counter(text_language(text) for text in texts if text.strip())
            total = sum(counts.values())
            shares = {lang: n / total for lang, n in counts.items()} if total else {}
            self._languages[tenant] = shares
        return shares

    def vocabulary(
        self, *, tenant: str = "default", sources: Collection[str] | None = None
    ) -> Vocabulary:
        """Return the terms a tenant's chunks hold, with how many chunks hold each.

        Summed once (`TermCounts`), then updated by each write. Each live document's
        terms are read from memory, else from their file under ``data_dir/vocabulary``
        (written when the document was), else computed from its chunks and stored: an
        index written before the vocabulary existed, or by another process, gets it on
        first use.

        Args:
            tenant: Whose documents.
            sources: Only the documents of these sources (None: all): what a caller
                app may read. Spelling fixes drawn from the other sources' words searched a
                question with them, and a debugging app's trace showed them.
        """
        whole = self._terms.vocabulary(tenant, lambda: self._sum_document_terms(tenant))
        if sources is None:
            return whole
        version = self._terms.scope_version(tenant)
        documents = [(d, source) for d, _, source in self.document_titles(tenant=tenant)]
        return self._terms.scoped_vocabulary(tenant, frozenset(sources), documents, version)

    def _sum_document_terms(self, tenant: str) -> Counter[str]:
        """Sum the terms of a tenant's live documents, computing those stored nowhere."""
        live = self._live_generations(tenant)
        missing = {
            doc_id: generation
            for doc_id, generation in live.items()
            if self._terms.known(tenant, doc_id, generation) is None
        }
        if missing:
            self._compute_document_terms(tenant, missing)
        total: Counter[str] = Counter()
        for doc_id, generation in live.items():
            counts = self._terms.known(tenant, doc_id, generation)
            if counts is not None:
                total.update(counts)
        return total

    def _live_generations(self, tenant: str) -> dict[str, int]:
        """Return the newest live generation of each document of a tenant (its first chunks)."""
        firsts = self._first_chunks(SearchFilters(tenant=tenant))
        return {doc_id: int(first.get("generation") or 0) for doc_id, first in firsts.items()}

    def _compute_document_terms(self, tenant: str, wanted: dict[str, int]) -> None:
        """Compute and store the terms of document versions that have none stored."""
        flt = SearchFilters(tenant=tenant, doc_ids=tuple(sorted(wanted))).to_qdrant()
        texts: defaultdict[str, list[str]] = defaultdict(list)
        sources: dict[str, str] = {}
        for meta in self._scroll(flt):
            doc_id = str(meta.get("doc_id", ""))
            if int(meta.get("generation") or 0) == wanted.get(doc_id):
                texts[doc_id].append(chunk_from_payload(meta).embedding_text)
                sources[doc_id] = str(meta.get("source", ""))
        for doc_id, generation in wanted.items():
            terms = document_terms(texts[doc_id])
            self._terms.store(tenant, doc_id, generation, terms, source=sources.get(doc_id))

    def _writing(self) -> AbstractContextManager[Any]:
        """Return the lock writes take: a fair one, so no upload waits behind a long one."""
        return self._write_lock

    def _document_lock(self, tenant: str, doc_id: str) -> AbstractContextManager[Any]:
        """Return one document's lock: its read-compare-write sequence is never interleaved."""
        with self._document_locks_guard:
            lock = self._document_locks.get((tenant, doc_id))
            if lock is None:
                lock = self._document_locks[(tenant, doc_id)] = RefCountedLock()
            lock.users += 1

        @contextmanager
        def held() -> Iterator[None]:
            try:
                with lock.lock:
                    yield
            finally:
                with self._document_locks_guard:
                    lock.users -= 1
                    if not lock.users:
                        self._document_locks.pop((tenant, doc_id), None)

        return held()

    def _document_state(self, doc_id: str, tenant: str) -> DocumentState | None:
        """Read what the index holds of one document: all its chunks, checked for wholeness."""
        metas = self._scroll_all(SearchFilters(tenant=tenant, doc_ids=(doc_id,)).to_qdrant())
        if not metas:
            return None
        return document_state(metas)

    def _journal_path(self, tenant: str, doc_id: str) -> Path:
        key = hashlib.sha256(f"{tenant}\x00{doc_id}".encode()).hexdigest()[:32]
        return self._journal_dir / f"{key}.json"

    def repair(self) -> list[tuple[str, str]]:
        """Finish or undo what a crash interrupted; returns the (tenant, doc_id) repaired.

        For every document whose write was under way (its journal entry is still
        there): the staged chunks are deleted; of the live versions, the newest whole
        one is kept and the others deleted. A document deleted since the last open
        (its delete's entry) loses again every chunk older than the delete. Staged
        chunks without a journal entry (an older crash) are deleted too.
        """
        repaired: list[tuple[str, str]] = []
        entries = sorted(self._journal_dir.glob("*.json")) if self._journal_dir.is_dir() else []
        for path in entries:
            try:
                entry = json.loads(path.read_text(encoding="utf-8"))
                tenant, doc_id = str(entry["tenant"]), str(entry["doc_id"])
                writer = int(entry.get("pid") or 0)
                deleting, generation = bool(entry.get("deleting")), int(entry["generation"])
            except (OSError, ValueError, KeyError, TypeError):
                path.unlink(missing_ok=True)
                continue
            shared = self._engine.name == "server"  # an embedded index has one process
            if shared and writer != os.getpid() and process_alive(writer):
                continue  # another worker of a shared server engine is writing it now
            with self._document_lock(tenant, doc_id), self._writing():
                try:
                    if deleting:
                        # Chunks older than the delete; a version uploaded after it is newer.
                        self._delete_where_older(tenant, doc_id, generation)
                    else:
                        self._repair_document(tenant, doc_id)
                except Exception:
                    # The disk still full at start-up: the index opens all the same, and
                    # what the repair would delete is hidden from every read, as after a
                    # failed write's repair; the entry stays for the next open.
                    log.warning(
                        "repair of %s/%s failed at open; its other versions are hidden",
                        tenant,
                        doc_id,
                        exc_info=True,
                    )
                    self._unrepaired[(tenant, doc_id)] = (
                        self._versions_older_than(tenant, doc_id, generation)
                        if deleting
                        else self._versions_to_drop(tenant, doc_id)
                    )
                    continue
            self._unrepaired.pop((tenant, doc_id), None)
            path.unlink(missing_ok=True)
            repaired.append((tenant, doc_id))
        if self._engine.name != "server":
            # An embedded engine has one process: any staged chunk is a leftover. A
            # server's may belong to another worker's write, which its journal covers.
            # Staged chunks are in no read: those the disk keeps from deleting wait.
            with self._writing():
                staged = SearchFilters(tenant=STAGED_TENANT).to_qdrant()
                try:
                    if self._engine.count(staged):
                        self._engine.delete_where(staged)
                except Exception:
                    log.warning("staged chunks left at open (deleted at the next)", exc_info=True)
        return repaired

    def _versions_older_than(
        self, tenant: str, doc_id: str, generation: int
    ) -> frozenset[int] | None:
        """Return the live versions of a document older than a delete (None: all)."""
        try:
            metas = self._scroll_all(SearchFilters(tenant=tenant, doc_ids=(doc_id,)).to_qdrant())
        except Exception:
            return None  # unreadable too: the whole document is hidden
        live = {int(meta.get("generation") or 0) for meta in metas}
        older = frozenset(g for g in live if g < generation)
        return None if older == live else older

    def _repair_document(self, tenant: str, doc_id: str, generation: int | None = None) -> None:
        """Delete a document's staged chunks, then all but its newest whole version.

        With `generation`, only that write's staged chunks: another worker of a server
        may be staging its own.
        """
        staged = SearchFilters(tenant=STAGED_TENANT, doc_ids=(doc_id,)).to_qdrant()
        staged.must.append(match_value("staged_for", tenant))  # type: ignore[union-attr]
        if generation is not None:
            staged.must.append(generation_is(generation))  # type: ignore[union-attr]
        self._engine.delete_where(staged)
        metas = self._scroll_all(SearchFilters(tenant=tenant, doc_ids=(doc_id,)).to_qdrant())
        by_generation: dict[int, list[dict[str, Any]]] = defaultdict(list)
        for meta in metas:
            by_generation[int(meta.get("generation") or 0)].append(meta)
        whole = [g for g, group in by_generation.items() if document_state(group).complete]
        if not whole:
            # Nothing whole to keep: the document is absent until uploaded again.
            self._delete_where(SearchFilters(tenant=tenant, doc_ids=(doc_id,)))
            return
        keep = max(whole)
        for generation in by_generation:
            if generation != keep:
                flt = SearchFilters(tenant=tenant, doc_ids=(doc_id,)).to_qdrant()
                flt.must.append(generation_is(generation))  # type: ignore[union-attr]
                if generation == 0:
                    flt.must[-1] = models.IsEmptyCondition(  # type: ignore[index]
                        is_empty=models.PayloadField(key=payload_key("generation"))
                    )
                self._engine.delete_where(flt)

    # --- reading -------------------------------------------------------------
    def _scroll(
        self, flt: models.Filter, keys: Sequence[str] | None = None
    ) -> list[dict[str, Any]]:
        """Every chunk a reader may see that matches the filter (see `_visible`).

        `keys`: only these metadata keys of each (None: all).
        """
        return self._scroll_all(self._visible(flt), keys)

    def _scroll_all(
        self, flt: models.Filter, keys: Sequence[str] | None = None
    ) -> list[dict[str, Any]]:
        """Every chunk that matches the filter, as stored: what a writer reads."""
        with self._reading():
            return list(self._engine.metadatas(flt, keys=keys))

    def _first_chunks(self, filters: SearchFilters) -> dict[str, dict[str, Any]]:
        """Each document's first chunk (its newest live version's), the listing keys only.

        One chunk a document, and none of its text: what a listing needs grows with the
        documents, not with their chunks (`INTEGER_INDEXED_FIELDS`).
        """
        flt = filters.to_qdrant()
        flt.must.append(  # type: ignore[union-attr]
            models.FieldCondition(key=payload_key("position"), match=models.MatchValue(value=0))
        )
        newest: dict[str, dict[str, Any]] = {}
        for meta in self._scroll(flt, keys=LISTING_KEYS):
            doc_id = str(meta.get("doc_id", ""))
            # While a new version is being published both are live for an instant.
            if doc_id not in newest or _generation(meta) > _generation(newest[doc_id]):
                newest[doc_id] = meta
        return newest

    def _version_chunks(self, tenant: str, doc_id: str, generation: int) -> int:
        """Count the chunks a reader may see of one version of a document."""
        version = SearchFilters(tenant=tenant, doc_ids=(doc_id,)).to_qdrant()
        version.must.append(  # type: ignore[union-attr]
            generation_is(generation)
            if generation
            else models.IsEmptyCondition(
                is_empty=models.PayloadField(key=payload_key("generation"))
            )
        )
        with self._reading():
            return self._engine.count(self._visible(version))

    def list_documents(
        self, *, tenant: str = "default", sources: frozenset[str] | None = None
    ) -> list[DocumentInfo]:
        """Documents of a tenant with their chunk counts, sorted by id (every page)."""
        return self.document_page(tenant=tenant, sources=sources).data

    def document_page(
        self,
        *,
        tenant: str = "default",
        sources: frozenset[str] | None = None,
        offset: int = 0,
        limit: int | None = None,
    ) -> DocumentPage:
        """Return a page of a tenant's documents sorted by id, with their chunk counts.

        Reads each document's first chunk (not every chunk: 2.3 s at 17k chunks did),
        and counts the chunks of the page's documents only. Sorted by id, a page holds
        the same documents on every read while none is added or deleted.

        Args:
            tenant: Whose documents.
            sources: Only documents in these sources (None: all).
            offset: Documents skipped (in id order).
            limit: At most this many (None: all the rest).
        """
        if sources is not None and not sources:
            return DocumentPage(data=[], count=0)
        scoped = tuple(sorted(sources)) if sources else None
        firsts = self._first_chunks(SearchFilters(tenant=tenant, sources=scoped))
        ids = sorted(firsts)
        shown = ids[offset:] if limit is None else ids[offset : offset + limit]
        data = [
            info_from_first_chunk(
                doc_id,
                firsts[doc_id],
                self._version_chunks(tenant, doc_id, _generation(firsts[doc_id])),
            )
            for doc_id in shown
        ]
        return DocumentPage(data=data, count=len(ids))

    def document_titles(self, *, tenant: str = "default") -> list[tuple[str, str, str]]:
        """(doc_id, title, source) of each document of a tenant, sorted by id.

        A turn that names a document ("Résume le manuel de sécurité") is matched
        against these titles. Listing every chunk of the tenant on such a turn grew with
        the index (p99 330 ms at 10k chunks), so this reads only each document's first
        chunk and keeps the list until the next write.
        """
        titles = self._titles.get(tenant)
        if titles is None:
            firsts = self._first_chunks(SearchFilters(tenant=tenant))
            titles = [
                (doc_id, str(first.get("title", doc_id)), str(first.get("source", "")))
                for doc_id, first in sorted(firsts.items())
            ]
            self._titles[tenant] = titles
        return titles

    def document_info(self, doc_id: str, *, tenant: str = "default") -> DocumentInfo | None:
        """One document of a tenant, or None.

        Reads the first chunk of each live version and counts the newest version's
        chunks: the answer to an upload needs no chunk text, and a large document
        has thousands of chunks.
        """
        firsts_filter = SearchFilters(tenant=tenant, doc_ids=(doc_id,)).to_qdrant()
        firsts_filter.must.append(  # type: ignore[union-attr]
            models.FieldCondition(key=payload_key("position"), match=models.MatchValue(value=0))
        )
        firsts = self._scroll(firsts_filter, keys=LISTING_KEYS)
        if not firsts:
            return None
        # While a new version is being published both are live for an instant: the newest.
        first = max(firsts, key=_generation)
        chunks = self._version_chunks(tenant, doc_id, _generation(first))
        return info_from_first_chunk(doc_id, first, chunks)

    def document_chunks(self, doc_id: str, *, tenant: str = "default") -> list[Chunk]:
        """All chunks of one document in reading order."""
        metas = self._scroll(SearchFilters(tenant=tenant, doc_ids=(doc_id,)).to_qdrant())
        return sorted((chunk_from_payload(m) for m in metas), key=lambda c: c.position)

    def count(self, *, tenant: str | None = None, sources: Collection[str] | None = None) -> int:
        """Count the chunks (of one tenant, or all; of some of its sources when given)."""
        scoped = tuple(sorted(sources)) if sources is not None else None
        flt = SearchFilters(tenant=tenant, sources=scoped).to_qdrant() if tenant else None
        with self._reading():
            return self._engine.count(self._visible(flt))

    def search(self, query: str, *, k: int, filters: SearchFilters) -> list[ScoredChunk]:
        """Top-k chunks for a query within the filters, best first."""
        if not query.strip():
            return []
        query = self._with_spelling_fixes(query, filters)
        with self._reading():
            hits = self._engine.search(
                query, k, self._visible(filters.to_qdrant()), depth=_fetch(k)
            )
        return scored_chunks(hits, k)

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
                [self._with_spelling_fixes(queries[i], filters) for i in live],
                k,
                self._visible(filters.to_qdrant()),
                depth=_fetch(k),
            )
        for i, hits in zip(live, found, strict=True):
            rankings[i] = scored_chunks(hits, k)
        return rankings

    def _with_spelling_fixes(self, query: str, filters: SearchFilters) -> str:
        """Return the query followed by the index's spelling of its misspelt words and compounds.

        "cheapest fone?" also searches "phone", "wi fi" also "wifi": the words as typed
        keep their place (a term the vocabulary lacks may still be a name the dense
        model knows), the known spellings are added (`Vocabulary.spelling_fixes`).
        """
        if not self._settings.spelling_fixes:
            return query
        vocabulary = self.vocabulary(tenant=filters.tenant, sources=filters.spelt_from)
        return vocabulary.searched_with_fixes(query)

    def rank_many(
        self, queries: Sequence[str], *, k: int, filters: SearchFilters
    ) -> list[list[ChunkHit]]:
        """`search_many`'s rankings without the chunks: each hit's key, point and score.

        The same hits in the same order as `search_many`, for a caller that fuses deep
        rankings and keeps a few: it reads those with `hit_chunks`.
        """
        live = [i for i, query in enumerate(queries) if query.strip()]
        rankings: list[list[ChunkHit]] = [[] for _ in queries]
        if not live:
            return rankings
        with self._reading():
            found = self._engine.keyed_search_batch(
                [self._with_spelling_fixes(queries[i], filters) for i in live],
                k,
                self._visible(filters.to_qdrant()),
                depth=_fetch(k),
                metadata_keys=HIT_KEYS,
            )
        for i, hits in zip(live, found, strict=True):
            rankings[i] = chunk_hits(hits, k)
        return rankings

    def hit_chunks(self, hits: Sequence[ChunkHit]) -> list[ScoredChunk]:
        """Return the chunks of these hits with their scores, in their order, in one read.

        A hit whose point is gone since the search (its document re-ingested in between)
        is left out, as if the search had not found it.
        """
        if not hits:
            return []
        with self._reading():
            documents = self._engine.documents([hit.point_id for hit in hits])
        by_point = {document_point_id(doc): doc for doc in documents}
        return [
            ScoredChunk(chunk_from_payload(by_point[hit.point_id].metadata), hit.score)
            for hit in hits
            if hit.point_id in by_point
        ]


def _generation(meta: dict[str, Any]) -> int:
    """Return the version a chunk belongs to (0: written before versions existed)."""
    return int(meta.get("generation") or 0)


def _fetch(k: int) -> int:
    """How deep the engine reads for a top-k: fusion needs more per branch than k."""
    return max(k * 3, 20)
