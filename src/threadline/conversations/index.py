"""The conversation index: chunks of sessions in a collection of their own.

It lives in the engine the documents use (Qdrant Edge by default, a Qdrant server
with ``QDRANT_URL``), in a collection named ``<collection>_conversations``, with the
same embeddings (the built-in BM25 plus the configured dense model). Only indexed
chunk types are written; tool interactions never are.

Writes come in batches: the changed chunks of many sessions are embedded together,
``batch_size`` at a time, one embedding batch and one upsert per batch. A chunk whose
content hash is the one stored is not embedded again; only its payload (title,
lineage, the session's last change) is updated. The summary chunk of a session
carries ``session_updated_at``: the version of the session the index holds, which
is what the queue compares with the store.
"""

from __future__ import annotations

import threading
from collections import defaultdict
from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass, field
from typing import Any

from langchain_core.documents import Document
from qdrant_client import models

from threadline.conversations.chunks import ConversationChunk, chunk_session
from threadline.knowledge.embeddings import (
    EmbeddingSetup,
    check_index_embeddings,
    create_embedding_setup,
)
from threadline.knowledge.engines import VectorEngine, open_engine
from threadline.knowledge.filters import match_any, match_value
from threadline.settings import Settings
from threadline.store.models import Session

SessionKey = tuple[str, str, str]
"""(tenant, caller_app, session_id)."""

INDEXED_FIELDS = ("tenant", "caller_app", "session_id", "chunk_type", "chunk_id")
"""Payload fields with a keyword index: every filter of this module uses them."""

SUMMARY_CHUNK = "session_summary"  # its `session_updated_at` says the session is indexed
_INDEXED_TYPES = ("message_exchange", SUMMARY_CHUNK)


def conversation_collection(settings: Settings) -> str:
    """Name of the conversations' collection beside the documents' one."""
    return f"{settings.collection}_conversations"


@dataclass
class IndexReport:
    """What one indexing call did."""

    sessions: int = 0
    embedded: int = 0
    unchanged: int = 0
    removed: int = 0
    batches: int = 0
    errors: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class ConversationHit:
    """A chunk found by a search: its payload and the engine's score."""

    payload: dict[str, Any]
    score: float

    @property
    def key(self) -> SessionKey:
        """The session it belongs to."""
        p = self.payload
        return (p["tenant"], p["caller_app"], p["session_id"])


def scope_filter(
    tenant: str, caller_app: str | None, chunk_types: Sequence[str] | None = None
) -> models.Filter:
    """Payload filter of one tenant (and caller app, and chunk types when given)."""
    must: list[models.Condition] = [match_value("tenant", tenant)]
    if caller_app is not None:
        must.append(match_value("caller_app", caller_app))
    if chunk_types is not None:
        must.append(match_any("chunk_type", chunk_types))
    return models.Filter(must=must)


def session_filter(key: SessionKey, *, chunk_ids: Sequence[str] | None = None) -> models.Filter:
    """Payload filter of one session's chunks (only these chunk ids when given)."""
    tenant, caller_app, session_id = key
    must: list[models.Condition] = [
        match_value("tenant", tenant),
        match_value("caller_app", caller_app),
        match_value("session_id", session_id),
    ]
    if chunk_ids is not None:
        must.append(match_any("chunk_id", chunk_ids))
    return models.Filter(must=must)


class ConversationIndex:
    """Index, re-index, delete and search conversation chunks.

    Args:
        settings: Process settings (engine, paths, embeddings, collection).
        embeddings: Embeddings to use instead of the configured ones.
        batch_size: Chunks embedded and upserted together.
    """

    def __init__(
        self,
        settings: Settings,
        *,
        embeddings: EmbeddingSetup | None = None,
        batch_size: int = 64,
    ) -> None:
        self._embeddings = embeddings or create_embedding_setup(settings)
        if settings.qdrant_url is None:
            check_index_embeddings(settings.qdrant_path, self._embeddings)
        scoped = settings.model_copy(update={"collection": conversation_collection(settings)})
        self.engine: VectorEngine = open_engine(
            scoped, self._embeddings, indexed_fields=INDEXED_FIELDS
        )
        self.batch_size = batch_size
        # Two indexing calls at once (the worker and a close) would both embed a session.
        # Reentrant: a write reads the stored hashes under it (see `_reading`).
        self._write_lock = threading.RLock()

    @property
    def embedding_name(self) -> str:
        """Which embeddings the index uses."""
        return self._embeddings.name

    def close(self) -> None:
        """Release the engine."""
        self.engine.close()

    def _reading(self) -> AbstractContextManager[Any]:
        """Return the lock a read needs: none when the engine takes concurrent use.

        qdrant-client's local mode does not: a search beside the worker's write would
        read its collection while it changes.
        """
        return nullcontext() if self.engine.concurrent_reads else self._write_lock

    # ------------------------------------------------------------------ reading state

    def indexed_versions(self, *, tenant: str | None = None) -> dict[SessionKey, str]:
        """Return the version (``session_updated_at``) of every session the index holds.

        Args:
            tenant: Only this tenant's sessions; ``None``: all.

        Returns:
            ISO timestamps by session key.
        """
        must: list[models.Condition] = [match_value("chunk_type", SUMMARY_CHUNK)]
        if tenant is not None:
            must.append(match_value("tenant", tenant))
        with self._reading():
            return {
                (m["tenant"], m["caller_app"], m["session_id"]): m.get("session_updated_at", "")
                for m in self.engine.metadatas(models.Filter(must=must))
            }

    def session_chunks(self, key: SessionKey) -> list[dict[str, Any]]:
        """Payloads of one session's indexed chunks, in sequence order."""
        with self._reading():
            found = list(self.engine.metadatas(session_filter(key)))
        return sorted(found, key=lambda m: int(m.get("sequence_order", 0)))

    def count(self, *, tenant: str | None = None) -> int:
        """Count the indexed chunks (of one tenant when given)."""
        flt = None if tenant is None else models.Filter(must=[match_value("tenant", tenant)])
        with self._reading():
            return self.engine.count(flt)

    # ------------------------------------------------------------------ writing

    def index_sessions(
        self,
        sessions: Sequence[Session],
        *,
        progress: Callable[[int], None] | None = None,
    ) -> IndexReport:
        """Bring the index up to date with these sessions.

        Changed chunks of all the sessions are embedded and upserted together, in
        batches; unchanged ones only get their payload refreshed; chunks a session
        no longer has are deleted. The summary chunks, which mark a session indexed,
        are written last, so a crash half-way leaves the session queued.

        Args:
            sessions: Sessions as stored now.
            progress: Called with the number of sessions done, once they are.

        Returns:
            What was embedded, left as it was and removed.
        """
        report = IndexReport(sessions=len(sessions))
        if not sessions:
            return report
        with self._write_lock:
            by_key = {(s.tenant, s.caller_app, s.id): s for s in sessions}
            stored = self._stored_hashes(list(by_key))
            to_write: list[tuple[ConversationChunk, Session]] = []
            for key, session in by_key.items():
                chunks = [c for c in chunk_session(session) if c.indexed]
                have = stored.get(key, {})
                for chunk in chunks:
                    if have.get(chunk.chunk_id) == chunk.content_hash:
                        report.unchanged += 1
                    else:
                        to_write.append((chunk, session))
                stale = set(have) - {c.chunk_id for c in chunks}
                if stale:
                    self.engine.delete_where(session_filter(key, chunk_ids=sorted(stale)))
                    report.removed += len(stale)
            # Summaries last, chunks and fields alike: their version stamp says the
            # session is indexed. The engine may set fields point by point (the local
            # mode does), so a crash or a full disk can stop it part-way: the other
            # chunks' fields are made current first (the chunks rewritten below carry
            # them too), then the summaries are written, then theirs set. A pass cut
            # short leaves the session queued, and the next pass finishes it.
            refreshed = [
                key
                for key, session in by_key.items()
                if stored.get(key) or any(s is session for _, s in to_write)
            ]
            summary_chunk = match_value("chunk_type", SUMMARY_CHUNK)
            for key in refreshed:
                flt = session_filter(key)
                flt.must_not = [summary_chunk]
                self.engine.set_metadata_where(flt, _session_fields(by_key[key]))
            to_write.sort(key=lambda item: item[0].chunk_type == SUMMARY_CHUNK)
            for start in range(0, len(to_write), self.batch_size):
                self._write_batch(to_write[start : start + self.batch_size])
                report.batches += 1
            for key in refreshed:
                flt = session_filter(key)
                flt.must.append(summary_chunk)  # type: ignore[union-attr]
                self.engine.set_metadata_where(flt, _session_fields(by_key[key]))
            report.embedded = len(to_write)
        if progress is not None:
            progress(len(sessions))
        return report

    def _stored_hashes(self, keys: Sequence[SessionKey]) -> dict[SessionKey, dict[str, str]]:
        """Content hashes of the stored chunks of these sessions, in one scroll."""
        found: dict[SessionKey, dict[str, str]] = defaultdict(dict)
        wanted = set(keys)
        for tenant in {k[0] for k in keys}:
            ids = sorted({k[2] for k in keys if k[0] == tenant})
            flt = models.Filter(must=[match_value("tenant", tenant), match_any("session_id", ids)])
            for meta in self.engine.metadatas(flt):
                key = (meta["tenant"], meta["caller_app"], meta["session_id"])
                if key in wanted:
                    found[key][meta["chunk_id"]] = meta.get("content_hash", "")
        return found

    def _write_batch(self, batch: Sequence[tuple[ConversationChunk, Session]]) -> None:
        """One embedding batch and one upsert."""
        documents = [
            Document(
                page_content=chunk.content,
                metadata=chunk.payload(title=session.title, session_updated_at=session.updated_at),
            )
            for chunk, session in batch
        ]
        ids = [chunk.chunk_id for chunk, _ in batch]
        self.engine.add_documents(documents, ids, batch_size=len(documents))

    def delete_session(self, key: SessionKey) -> None:
        """Remove every chunk of one session."""
        with self._write_lock:
            self.engine.delete_where(session_filter(key))

    # ------------------------------------------------------------------ searching

    def search(
        self,
        query: str,
        *,
        tenant: str,
        caller_app: str | None,
        k: int,
        chunk_types: Sequence[str] = ("message_exchange",),
    ) -> list[ConversationHit]:
        """Return the best chunks of one tenant (and caller app) for a query.

        Args:
            query: The text searched.
            tenant: Tenant whose conversations are searched.
            caller_app: Caller app whose conversations are searched; ``None``: all of
                the tenant's.
            k: How many chunks.
            chunk_types: Which indexed chunk types to search.

        Returns:
            Hits, best first.
        """
        types = [t for t in chunk_types if t in _INDEXED_TYPES]
        if not query.strip() or not types or k <= 0:
            return []
        with self._reading():
            found = self.engine.search(query, k, scope_filter(tenant, caller_app, types))
        return [ConversationHit(dict(doc.metadata), float(score)) for doc, score in found]


def _session_fields(session: Session) -> dict[str, Any]:
    """Payload fields that follow the session without changing what is embedded."""
    return {
        "title": session.title,
        "parent_session_id": session.parent_session_id,
        "root_session_id": session.root_session_id,
        "session_updated_at": session.updated_at.isoformat(),
    }
