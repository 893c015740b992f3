"""Vector engines behind `KnowledgeBase`: one small interface, three ways to run Qdrant.

* ``edge`` (the embedded default): Qdrant Edge in this process, through
  :class:`threadline.knowledge.edge.EdgeVectorStore`. HNSW, payload indexes, sparse
  vectors with IDF, RRF fusion and a write-ahead log, all in the engine.
* ``server`` (``QDRANT_URL`` set): a Qdrant server through langchain-qdrant's
  `QdrantVectorStore` and qdrant-client.
* ``local`` (``THREADLINE_VECTOR_ENGINE=local``): qdrant-client's own embedded mode, the
  same client code path as a server, kept for comparisons. It searches by brute force in
  Python and is not thread-safe, so it is slow past a few thousand chunks.

All three store the same payload (``page_content`` + ``metadata``) and take the same
`qdrant_client.models.Filter`, so `KnowledgeBase` code is identical across engines.
"""

from __future__ import annotations

import threading
from abc import ABC, abstractmethod
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import qdrant_edge as qe
from langchain_core.documents import Document
from langchain_core.vectorstores import VectorStore
from langchain_qdrant import QdrantVectorStore, RetrievalMode
from qdrant_client import QdrantClient, models

from threadline.knowledge.edge import (
    DEFAULT_EXACT_SEARCH_POINTS_PER_RESULT,
    DEFAULT_INDEXED_FIELDS,
    EdgeVectorStore,
    to_edge_filter,
)
from threadline.knowledge.embeddings import EmbeddingSetup
from threadline.knowledge.payloads import document_point_id
from threadline.knowledge.sparse import sparse_vector_params
from threadline.settings import Settings

__all__ = [
    "DENSE_VECTOR",
    "SPARSE_VECTOR",
    "EdgeEngine",
    "IndexLockedError",
    "QdrantClientEngine",
    "VectorEngine",
    "create_qdrant_client",
    "edge_shard_path",
    "open_engine",
    "release_qdrant_client",
]

DENSE_VECTOR = "dense"
SPARSE_VECTOR = "sparse"
METADATA = "metadata"
_SCROLL_PAGE = 512


class IndexLockedError(RuntimeError):
    """Another process (a running server, an ingestion) holds the embedded index."""

    def __init__(self, path: Path) -> None:
        """Keep the index directory."""
        super().__init__(f"the index at {path} is open in another process")
        self.path = path


class VectorEngine(ABC):
    """What `KnowledgeBase` needs from a vector engine, whichever it is.

    Filters are `qdrant_client.models.Filter` over the ``metadata.<key>`` payload paths.
    """

    #: "edge", "server" or "local".
    name: str
    #: Whether reads may run concurrently with each other and with writes without a lock
    #: held by the caller.
    concurrent_reads: bool

    @property
    @abstractmethod
    def store(self) -> VectorStore:
        """The LangChain vector store over this engine."""

    def add_documents(self, documents: list[Document], ids: list[str], batch_size: int) -> None:
        """Embed and upsert documents under the given ids."""
        self.store.add_documents(documents, ids=ids, batch_size=batch_size)

    def search(
        self, query: str, k: int, flt: models.Filter, *, depth: int | None = None
    ) -> list[tuple[Document, float]]:
        """Top-k documents for a query within a filter, with the engine's scores.

        `depth` (at least `k`; None: `k`) is how deep the search reads before its first
        `k` are kept: a hybrid search fuses its branches' rankings read that deep. A
        LangChain store reads as deep as the hits it returns, so this asks it `depth`
        hits and keeps `k`; engines that can read deep and return few override it.
        """
        hits = self.store.similarity_search_with_score(query, k=max(k, depth or k), filter=flt)
        return hits[:k]

    def search_batch(
        self,
        queries: Sequence[str],
        k: int,
        flt: models.Filter,
        *,
        depth: int | None = None,
    ) -> list[list[tuple[Document, float]]]:
        """`search` for several queries; engines that can batch them override this."""
        return [self.search(query, k, flt, depth=depth) for query in queries]

    def keyed_search_batch(
        self,
        queries: Sequence[str],
        k: int,
        flt: models.Filter,
        *,
        depth: int | None = None,
        metadata_keys: Sequence[str],
    ) -> list[list[tuple[str, dict[str, Any], float]]]:
        """`search_batch`'s hits as (document id for `documents`, metadata, score).

        The metadata holds at least `metadata_keys`: an engine that can read only those
        of each payload does (this one reads every hit whole).
        """
        found = self.search_batch(queries, k, flt, depth=depth)
        return [
            [(document_point_id(doc), doc.metadata, score) for doc, score in hits] for hits in found
        ]

    def documents(self, ids: Sequence[str]) -> list[Document]:
        """Whole documents by their ids (any order; ids no longer stored are skipped)."""
        return self.store.get_by_ids(ids)

    @abstractmethod
    def count(self, flt: models.Filter | None) -> int:
        """Exact number of points (matching the filter when given)."""

    @abstractmethod
    def metadatas(
        self, flt: models.Filter, *, limit: int | None = None, keys: Sequence[str] | None = None
    ) -> Iterator[dict]:
        """Return the ``metadata`` payload of every point matching the filter.

        `keys`: only these metadata keys (None: all). A listing that needs a few short
        fields of each document then does not read and decode every chunk's text.
        """

    @abstractmethod
    def delete_where(self, flt: models.Filter) -> None:
        """Delete every point matching the filter."""

    @abstractmethod
    def set_metadata_where(self, flt: models.Filter, values: dict[str, Any]) -> None:
        """Set ``metadata.<key>`` to these values on every point matching the filter.

        Qdrant Edge and a server apply it in one operation. qdrant-client's local mode
        writes and commits each point on its own, so a crash or a full disk can stop it
        part-way: callers must come out whole from any prefix of it. `KnowledgeBase`
        journals a publish, and its repair keeps the newest whole version; the
        conversation index sets the fields of the summary chunks, whose version stamp
        marks a session indexed, after every other chunk's, so a pass cut short stays
        queued and the next one finishes it (tests/integration/test_engine_crash.py).
        """

    def optimize(self) -> None:  # noqa: B027 - optional hook, a no-op by default
        """Build indexes after bulk ingestion, when the engine leaves that to the caller."""

    @abstractmethod
    def close(self) -> None:
        """Release the engine (its storage lock when embedded)."""


class QdrantClientEngine(VectorEngine):
    """A collection behind qdrant-client (a server, or the client's local mode).

    Args:
        client: The client.
        collection: Collection name; created when missing.
        embeddings: Which vectors the collection holds.
        payload_indexes: Create keyword indexes on the filtered metadata fields (a
            server uses them; the local mode ignores them and warns).
        name: "server" or "local".
        indexed_fields: The metadata fields filters use (keyword indexes).
        integer_fields: The integer metadata fields filters match (integer indexes).
    """

    concurrent_reads = False

    def __init__(
        self,
        client: QdrantClient,
        collection: str,
        embeddings: EmbeddingSetup,
        *,
        payload_indexes: bool,
        name: str,
        indexed_fields: Sequence[str] = DEFAULT_INDEXED_FIELDS,
        integer_fields: Sequence[str] = (),
    ) -> None:
        self.name = name
        self.client = client
        self.collection = collection
        self._indexed_fields = tuple(indexed_fields)
        self._integer_fields = tuple(integer_fields)
        self._ensure_collection(embeddings, payload_indexes)
        self._store = QdrantVectorStore(
            client=client,
            collection_name=collection,
            embedding=embeddings.dense,
            sparse_embedding=embeddings.sparse,
            retrieval_mode=retrieval_mode(embeddings),
            vector_name=DENSE_VECTOR,
            sparse_vector_name=SPARSE_VECTOR,
        )

    def _ensure_collection(self, setup: EmbeddingSetup, payload_indexes: bool) -> None:
        if self.client.collection_exists(self.collection):
            return
        vectors: dict[str, models.VectorParams] = {}
        if setup.dense is not None:
            assert setup.dense_size is not None
            vectors[DENSE_VECTOR] = models.VectorParams(
                size=setup.dense_size, distance=models.Distance.COSINE
            )
        sparse = None
        if setup.sparse is not None:
            # IDF is computed by Qdrant at query time; our vectors carry only BM25 TF.
            sparse = {SPARSE_VECTOR: sparse_vector_params()}
        self.client.create_collection(
            self.collection, vectors_config=vectors, sparse_vectors_config=sparse
        )
        if not payload_indexes:
            return  # the local mode ignores payload indexes (and warns about them)
        for name in self._indexed_fields:
            self.client.create_payload_index(
                self.collection, f"{METADATA}.{name}", models.PayloadSchemaType.KEYWORD
            )
        for name in self._integer_fields:
            self.client.create_payload_index(
                self.collection, f"{METADATA}.{name}", models.PayloadSchemaType.INTEGER
            )

    @property
    def store(self) -> QdrantVectorStore:
        """The langchain-qdrant store."""
        return self._store

    def count(self, flt: models.Filter | None) -> int:
        """Exact number of points (matching the filter when given)."""
        return self.client.count(self.collection, count_filter=flt).count

    def metadatas(
        self, flt: models.Filter, *, limit: int | None = None, keys: Sequence[str] | None = None
    ) -> Iterator[dict]:
        """Return the ``metadata`` payload (or these keys of it) of every point matching."""
        offset = None
        remaining = limit
        selected: bool | list[str] = True if keys is None else [f"{METADATA}.{k}" for k in keys]
        while remaining is None or remaining > 0:
            page = _SCROLL_PAGE if remaining is None else min(_SCROLL_PAGE, remaining)
            points, offset = self.client.scroll(
                self.collection,
                scroll_filter=flt,
                limit=page,
                offset=offset,
                with_payload=selected,
                with_vectors=False,
            )
            for point in points:
                yield (point.payload or {}).get(METADATA) or {}
            if remaining is not None:
                remaining -= len(points)
            if offset is None or not points:
                return

    def delete_where(self, flt: models.Filter) -> None:
        """Delete every point matching the filter."""
        self.client.delete(self.collection, points_selector=models.FilterSelector(filter=flt))

    def set_metadata_where(self, flt: models.Filter, values: dict[str, Any]) -> None:
        """Set metadata keys on every point matching the filter (one request).

        One operation on a server; point by point in the local mode (see the base class).
        """
        self.client.set_payload(
            self.collection,
            payload=values,
            points=models.FilterSelector(filter=flt),
            key=METADATA,
            wait=True,
        )

    def close(self) -> None:
        """Close the client (a shared local one once its last engine closes)."""
        release_qdrant_client(self.client)


class EdgeEngine(VectorEngine):
    """A Qdrant Edge shard in a local directory (see `EdgeVectorStore`).

    Args:
        path: The shard directory.
        embeddings: Which vectors the shard holds.
        indexed_fields: The metadata fields filters use (keyword indexes).
        exact_search_points_per_result: Dense searches over at most this many matching
            points per result read are exact (`EdgeVectorStore`).
        integer_fields: The integer metadata fields filters match (integer indexes).
    """

    name = "edge"
    concurrent_reads = True

    def __init__(
        self,
        path: Path,
        embeddings: EmbeddingSetup,
        indexed_fields: Sequence[str] = DEFAULT_INDEXED_FIELDS,
        *,
        exact_search_points_per_result: int = DEFAULT_EXACT_SEARCH_POINTS_PER_RESULT,
        integer_fields: Sequence[str] = (),
    ) -> None:
        try:
            self._store = EdgeVectorStore(
                path,
                embedding=embeddings.dense,
                sparse_embedding=embeddings.sparse,
                dense_size=embeddings.dense_size,
                vector_name=DENSE_VECTOR,
                sparse_vector_name=SPARSE_VECTOR,
                metadata_payload_key=METADATA,
                indexed_fields=indexed_fields,
                integer_indexed_fields=integer_fields,
                exact_search_points_per_result=exact_search_points_per_result,
            )
        except Exception as exc:  # the binding raises bare Exception
            # The engine locks its write-ahead log; a second process gets WouldBlock.
            if "WouldBlock" in str(exc):
                raise IndexLockedError(path) from exc
            raise

    @property
    def store(self) -> EdgeVectorStore:
        """The Qdrant Edge store."""
        return self._store

    def search(
        self, query: str, k: int, flt: models.Filter, *, depth: int | None = None
    ) -> list[tuple[Document, float]]:
        """Top-k documents read `depth` deep; only the kept `k` become Documents."""
        return self._store.similarity_search_with_score(query, k=k, filter=flt, depth=depth)

    def search_batch(
        self,
        queries: Sequence[str],
        k: int,
        flt: models.Filter,
        *,
        depth: int | None = None,
    ) -> list[list[tuple[Document, float]]]:
        """One batch: the queries' dense vectors in one forward pass, one shard batch."""
        return self._store.similarity_search_with_score_batch(queries, k=k, filter=flt, depth=depth)

    def keyed_search_batch(
        self,
        queries: Sequence[str],
        k: int,
        flt: models.Filter,
        *,
        depth: int | None = None,
        metadata_keys: Sequence[str],
    ) -> list[list[tuple[str, dict[str, Any], float]]]:
        """One batch reading only these metadata keys, no Document built per hit."""
        return self._store.keyed_search_batch(
            queries, k, flt, depth=depth, metadata_keys=metadata_keys
        )

    def count(self, flt: models.Filter | None) -> int:
        """Exact number of points (matching the filter when given)."""
        return self._store.count(flt)

    def metadatas(
        self, flt: models.Filter, *, limit: int | None = None, keys: Sequence[str] | None = None
    ) -> Iterator[dict]:
        """Return the ``metadata`` payload (or these keys of it) of every point matching."""
        yield from self._store.iter_metadata(flt, batch_size=_SCROLL_PAGE, limit=limit, keys=keys)

    def delete_where(self, flt: models.Filter) -> None:
        """Delete every point matching the filter."""
        self._store.delete(filter=flt)

    def set_metadata_where(self, flt: models.Filter, values: dict[str, Any]) -> None:
        """Set metadata keys on every point matching the filter (one shard update)."""
        edge_filter = to_edge_filter(flt)
        assert edge_filter is not None
        self._store.shard.update(
            qe.UpdateOperation.set_payload_by_filter(edge_filter, values, key=METADATA)
        )

    def optimize(self) -> None:
        """Merge segments and build the HNSW and sparse indexes (blocks the process)."""
        self._store.optimize()

    def close(self) -> None:
        """Flush and release the shard."""
        self._store.close()


def retrieval_mode(setup: EmbeddingSetup) -> RetrievalMode:
    """langchain-qdrant's retrieval mode for these embeddings."""
    if setup.dense is not None and setup.sparse is not None:
        return RetrievalMode.HYBRID
    return RetrievalMode.DENSE if setup.dense is not None else RetrievalMode.SPARSE


def create_qdrant_client(settings: Settings) -> QdrantClient:
    """Connect to the configured Qdrant server, or open qdrant-client's local mode.

    Close it with `release_qdrant_client`: a local client is shared (see `_LocalClients`).
    """
    if settings.qdrant_url:
        key = settings.qdrant_api_key.get_secret_value() if settings.qdrant_api_key else None
        return QdrantClient(url=settings.qdrant_url, api_key=key)
    return _local_clients.acquire(settings.qdrant_path)


def release_qdrant_client(client: QdrantClient) -> None:
    """Close a client of `create_qdrant_client`; a shared local one once nothing uses it."""
    if _local_clients.release(client):
        client.close()


class _LocalClients:
    """One qdrant-client local-mode client per folder in this process, shared by its users.

    The local mode locks its folder for one client: the documents' index and the
    conversation index (two collections in the same folder) each opening their own
    made the second fail, so a server could not start with `vector_engine=local`.
    """

    def __init__(self) -> None:
        self._guard = threading.Lock()
        self._open: dict[Path, tuple[QdrantClient, int]] = {}

    def acquire(self, path: Path) -> QdrantClient:
        """Return the folder's client, opening it on first use."""
        path.mkdir(parents=True, exist_ok=True)
        key = path.resolve()
        with self._guard:
            client, users = self._open.get(key) or (QdrantClient(path=str(key)), 0)
            self._open[key] = (client, users + 1)
            return client

    def release(self, client: QdrantClient) -> bool:
        """Drop one use of `client`; True when it should close (last use, or not shared)."""
        with self._guard:
            for key, (shared, users) in self._open.items():
                if shared is client:
                    if users > 1:
                        self._open[key] = (shared, users - 1)
                        return False
                    del self._open[key]
                    return True
        return True


_local_clients = _LocalClients()


def edge_shard_path(settings: Settings) -> Path:
    """Where the embedded engine keeps a collection's shard.

    A directory of its own under ``qdrant_path``, so data of qdrant-client's local mode
    (kept at ``qdrant_path`` itself) is never mixed with it.
    """
    return settings.qdrant_path / "edge" / settings.collection


def open_engine(
    settings: Settings,
    embeddings: EmbeddingSetup,
    *,
    client: QdrantClient | None = None,
    indexed_fields: Sequence[str] = DEFAULT_INDEXED_FIELDS,
    integer_fields: Sequence[str] = (),
) -> VectorEngine:
    """Return the engine the settings ask for.

    Args:
        settings: ``QDRANT_URL`` → a server; otherwise ``vector_engine`` picks the
            embedded engine ("edge", the default, or qdrant-client's "local" mode).
        embeddings: Which vectors the collection holds.
        client: Use this qdrant-client instead (a server or local client made by the
            caller); the collection named in the settings is used on it.
        indexed_fields: The metadata fields filters use (keyword indexes).
        integer_fields: The integer metadata fields filters match (integer indexes).
    """
    if client is not None or settings.qdrant_url or settings.vector_engine == "local":
        name = "server" if settings.qdrant_url else "local"
        return QdrantClientEngine(
            client or create_qdrant_client(settings),
            settings.collection,
            embeddings,
            payload_indexes=bool(settings.qdrant_url),
            name=name if client is None else _client_kind(client),
            indexed_fields=indexed_fields,
            integer_fields=integer_fields,
        )
    return EdgeEngine(
        edge_shard_path(settings),
        embeddings,
        indexed_fields,
        exact_search_points_per_result=settings.exact_search_points_per_result,
        integer_fields=integer_fields,
    )


def _client_kind(client: QdrantClient) -> str:
    inner: Any = getattr(client, "_client", None)
    return "local" if type(inner).__name__ == "QdrantLocal" else "server"
