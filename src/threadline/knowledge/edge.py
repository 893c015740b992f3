"""A LangChain `VectorStore` over Qdrant Edge: the Qdrant engine inside this process.

`EdgeVectorStore` keeps one Qdrant Edge shard in a local directory and stores points
exactly as langchain-qdrant's `QdrantVectorStore` does, so the two are interchangeable
on the same data:

* a dense vector named ``dense`` (cosine) and/or a sparse vector named ``sparse``
  (with Qdrant's IDF modifier, which the BM25 vectors of
  :mod:`threadline.knowledge.sparse` rely on);
* the payload ``{"page_content": text, "metadata": {...}}``, so payload filters on
  ``metadata.<key>`` mean the same thing on both;
* hybrid retrieval = one dense and one sparse prefetch, fused by reciprocal rank with
  Qdrant's default constant (k=2), as langchain-qdrant's ``RetrievalMode.HYBRID`` asks
  a server to do.

Filters are given as `qdrant_client.models.Filter` (what a server-side caller already
builds) and translated to Qdrant Edge's own filter classes.

Ids: Qdrant ids are unsigned integers or UUIDs, LangChain ids are any string. A
canonical UUID string or a canonical decimal integer is used as the point id itself;
any other id is mapped to a UUIDv5 and kept in the payload under ``id_payload_key``, so
``Document.id`` always round-trips. Data written with UUID ids (all threadline writes)
has exactly langchain-qdrant's payload layout.

Concurrency (qdrant-edge-py 0.9.0): the shard is internally synchronised and every call
of the Python binding holds the GIL for its whole duration, so calls from several
threads are safe and simply run one after the other. Nothing here needs a lock for
memory safety; :meth:`EdgeVectorStore.optimize` in particular blocks every Python
thread of the process while it builds indexes, so it belongs to ingestion, never to a
request path.

Durability: every update goes to the shard's write-ahead log first, so an update that
returned survives a crash (the log is replayed on the next open). :meth:`close` flushes
segments and releases the directory, which only one shard may hold at a time.

Point ids and filters are translated in :mod:`threadline.knowledge.edge_translation`.
This module stays over 400 lines for one class: `EdgeVectorStore` implements the
`VectorStore` interface (writes, reads, searches, construction) over one shard, and
its methods share the shard, the payload layout and the retrieval mode.
"""

from __future__ import annotations

import os
import shutil
import tempfile
import threading
import uuid
from collections.abc import Callable, Iterable, Iterator, Sequence
from functools import partial
from pathlib import Path
from typing import Any

import qdrant_edge as qe
from langchain_core.documents import Document
from langchain_core.embeddings import Embeddings
from langchain_core.vectorstores import VectorStore
from langchain_qdrant import RetrievalMode, SparseEmbeddings
from pydantic_core import to_jsonable_python
from qdrant_client import models

from threadline.knowledge.edge_translation import to_edge_filter, to_point_id
from threadline.knowledge.embeddings import embed_queries

__all__ = [
    "DEFAULT_EXACT_SEARCH_POINTS_PER_RESULT",
    "DEFAULT_INDEXED_FIELDS",
    "ID_KEY",
    "DEFAULT_RRF_K",
    "EdgeVectorStore",
    "to_edge_filter",
    "to_point_id",
]

DENSE_VECTOR = "dense"
SPARSE_VECTOR = "sparse"
CONTENT_KEY = "page_content"
METADATA_KEY = "metadata"
ID_KEY = "lc_id"
# Metadata fields every threadline query filters on: keyword payload indexes make a
# filtered query cost what the matching points cost, not what the shard holds.
DEFAULT_INDEXED_FIELDS = ("tenant", "doc_id", "source", "source_app", "workspace")
# Qdrant's RRF constant when a query does not set one (server and qdrant-client alike).
DEFAULT_RRF_K = 2
# A dense search scores every point its filter matches (exact search) instead of walking
# the HNSW graph when they are at most this many per result read (`_dense_params`).
# Measured on batches of 4 MiniLM queries (engine CPU, 2-vCPU EPYC), exact / HNSW: on
# clustered vectors (MTRAG passages and noisy copies of them), read 270 deep as a turn
# reads, 3.2 / 3.9 ms at 7,000 points, 4.2 / 4.2 at 10,000, 5.1 / 4.3 at 12,000, 8.1 /
# 4.9 at 20,000; read 39 deep (ef 100), 1.9 / 1.2 at 7,000 and 3.7 / 2.0 at 10,000. Both
# crossovers are about 40 points per result (of 270, and of the 100 HNSW reads at least).
# On the turns benchmark's random vectors, 270 deep at 10,000: 4.9 / 11.6 ms, HNSW
# finding 81% of the exact 270.
DEFAULT_EXACT_SEARCH_POINTS_PER_RESULT = 40
# The fewest candidates HNSW reads (Qdrant's `ef` when a search does not set one).
_HNSW_MIN_EF = 100
_CONFIG_FILE = "edge_config.json"


class EdgeVectorStore(VectorStore):
    """Dense, sparse or hybrid retrieval over a Qdrant Edge shard in a local directory.

    The retrieval mode follows the embeddings given: both → hybrid (dense + sparse
    prefetch, RRF fusion), only ``embedding`` → dense, only ``sparse_embedding`` →
    sparse. The shard is created on first use and reopened (with its write-ahead log
    replayed) afterwards.

    Args:
        path: Shard directory; ``None`` makes a temporary one, removed on :meth:`close`.
        embedding: Dense embeddings (cosine similarity).
        sparse_embedding: Sparse embeddings; scored with Qdrant's IDF modifier.
        dense_size: Dense vector size; probed with one query embedding when omitted.
        vector_name: Name of the dense vector.
        sparse_vector_name: Name of the sparse vector.
        content_payload_key: Payload key of the text.
        metadata_payload_key: Payload key of the metadata dict.
        id_payload_key: Payload key keeping ids that are not valid Qdrant ids.
        indexed_fields: Metadata fields to keep a keyword payload index on.
        integer_indexed_fields: Metadata fields to keep an integer payload index on.
        rrf_k: Reciprocal rank fusion constant of hybrid queries.
        batch_size: Points per upsert in :meth:`add_texts`.
        search_threads: Threads of the shard's search pool; default: the cores this
            process may run on (the engine's own default was 8 on a 2-core machine).
        exact_search_points_per_result: Dense searches whose filter matches at most this
            many points per result read score them all exactly rather than through the
            HNSW graph (0: never); see :meth:`_dense_params`.
        hnsw_config: The HNSW index of a new shard (the engine's default when omitted).
        optimizers: The optimizer settings of a new shard (idem).

    Raises:
        ValueError: when no embeddings are given, or the shard on disk was created for
            other vectors (another size, distance or modifier).
    """

    def __init__(
        self,
        path: str | Path | None = None,
        *,
        embedding: Embeddings | None = None,
        sparse_embedding: SparseEmbeddings | None = None,
        dense_size: int | None = None,
        vector_name: str = DENSE_VECTOR,
        sparse_vector_name: str = SPARSE_VECTOR,
        content_payload_key: str = CONTENT_KEY,
        metadata_payload_key: str = METADATA_KEY,
        id_payload_key: str = ID_KEY,
        indexed_fields: Iterable[str] = DEFAULT_INDEXED_FIELDS,
        integer_indexed_fields: Iterable[str] = (),
        rrf_k: int = DEFAULT_RRF_K,
        batch_size: int = 256,
        search_threads: int | None = None,
        exact_search_points_per_result: int = DEFAULT_EXACT_SEARCH_POINTS_PER_RESULT,
        hnsw_config: qe.HnswIndexConfig | None = None,
        optimizers: qe.EdgeOptimizersConfig | None = None,
    ) -> None:
        """Open the shard at `path`, creating it if needed (arguments: see the class)."""
        if embedding is None and sparse_embedding is None:
            raise ValueError("EdgeVectorStore needs dense embeddings, sparse embeddings or both")
        self._embedding = embedding
        self._sparse_embedding = sparse_embedding
        self.vector_name = vector_name
        self.sparse_vector_name = sparse_vector_name
        self.content_payload_key = content_payload_key
        self.metadata_payload_key = metadata_payload_key
        self.id_payload_key = id_payload_key
        self.rrf_k = rrf_k
        self.batch_size = batch_size
        # More search threads than cores only contend: on 2 cores, 8 pool threads cost a
        # turn's 4-query batch 5-10% more CPU than 1 or 2 (the results are the same).
        self.search_threads = search_threads or len(os.sched_getaffinity(0))
        self.exact_search_points_per_result = exact_search_points_per_result
        self._hnsw_config = hnsw_config
        self._optimizers = optimizers
        if embedding is not None and sparse_embedding is not None:
            self.retrieval_mode = RetrievalMode.HYBRID
        elif embedding is not None:
            self.retrieval_mode = RetrievalMode.DENSE
        else:
            self.retrieval_mode = RetrievalMode.SPARSE
        if embedding is not None and dense_size is None:
            dense_size = len(embedding.embed_query("dimension probe"))
        self.dense_size = dense_size
        self._temporary = path is None
        self.path = Path(tempfile.mkdtemp(prefix="edge-shard-")) if path is None else Path(path)
        self._closed = False
        self._lifecycle = threading.Lock()
        self._shard = self._open()
        self._ensure_indexes(indexed_fields, qe.PayloadSchemaType.Keyword)
        self._ensure_indexes(integer_indexed_fields, qe.PayloadSchemaType.Integer)

    # --- set-up ------------------------------------------------------------------
    def _config(self) -> qe.EdgeConfig:
        vectors = None
        if self._embedding is not None:
            assert self.dense_size is not None
            vectors = {
                self.vector_name: qe.EdgeVectorParams(
                    size=self.dense_size, distance=qe.Distance.Cosine
                )
            }
        sparse = None
        if self._sparse_embedding is not None:
            # Our BM25 vectors carry term frequencies only; the engine supplies the IDF.
            sparse = {self.sparse_vector_name: qe.EdgeSparseVectorParams(modifier=qe.Modifier.Idf)}
        return qe.EdgeConfig(
            vectors=vectors,
            sparse_vectors=sparse,
            hnsw_config=self._hnsw_config,
            optimizers=self._optimizers,
            max_search_threads=self.search_threads,
        )

    def _open(self) -> qe.EdgeShard:
        config = self._config()
        if (self.path / _CONFIG_FILE).is_file():
            try:
                # With a config, the engine checks it against the stored segments (a
                # subset is fine: vectors not named here are kept as they are).
                return qe.EdgeShard.load(str(self.path), config)
            except Exception as exc:  # the binding raises bare Exception
                if "incompatible" in str(exc).lower():
                    raise ValueError(f"{self.path}: {exc}") from exc
                raise
        self.path.mkdir(parents=True, exist_ok=True)
        return qe.EdgeShard.create(str(self.path), config)

    def _ensure_indexes(self, fields: Iterable[str], schema: qe.PayloadSchemaType) -> None:
        existing = set(self._shard.info().payload_schema)
        for name in fields:
            key = f"{self.metadata_payload_key}.{name}"
            if key not in existing:
                self._shard.update(qe.UpdateOperation.create_field_index(key, schema))

    # --- VectorStore properties ------------------------------------------------
    @property
    def embeddings(self) -> Embeddings | None:
        """The dense embeddings, if any."""
        return self._embedding

    @property
    def shard(self) -> qe.EdgeShard:
        """The underlying Qdrant Edge shard (for engine operations not wrapped here)."""
        return self._shard

    @staticmethod
    def _cosine_relevance_score_fn(distance: float) -> float:
        """Map a cosine similarity to ``[0, 1]`` (as langchain-qdrant does)."""
        return (distance + 1.0) / 2.0

    def _select_relevance_score_fn(self) -> Callable[[float], float]:
        return self._cosine_relevance_score_fn

    # --- writing -----------------------------------------------------------------
    def add_texts(
        self,
        texts: Iterable[str],
        metadatas: list[dict] | None = None,
        ids: Sequence[str | int | None] | None = None,
        *,
        batch_size: int | None = None,
        **kwargs: Any,
    ) -> list[str]:
        """Embed texts and upsert them, in batches.

        Args:
            texts: Texts to add.
            metadatas: One metadata dict per text (JSON-compatible after pydantic's
                encoding: dates and UUIDs become strings).
            ids: One id per text; a missing (``None``) id gets a random UUID. Adding an
                existing id replaces that document.
            batch_size: Texts embedded and upserted together; the store's default when
                omitted.
            **kwargs: Ignored (accepted for `VectorStore` compatibility).

        Returns:
            The ids of the added texts, as strings.

        Raises:
            ValueError: when ``ids`` or ``metadatas`` do not match ``texts`` in length.
        """
        texts = list(texts)
        if ids is not None and len(ids) != len(texts):
            raise ValueError(f"got {len(ids)} ids for {len(texts)} texts")
        if metadatas is not None and len(metadatas) != len(texts):
            raise ValueError(f"got {len(metadatas)} metadatas for {len(texts)} texts")
        doc_ids = [
            str(uuid.uuid4()) if ids is None or ids[i] is None else str(ids[i])
            for i in range(len(texts))
        ]
        size = batch_size or self.batch_size
        for start in range(0, len(texts), size):
            stop = start + size
            self._upsert(
                texts[start:stop],
                metadatas[start:stop] if metadatas is not None else None,
                doc_ids[start:stop],
            )
        return doc_ids

    def _upsert(self, texts: list[str], metadatas: list[dict] | None, doc_ids: list[str]) -> None:
        vectors = self._embed_documents(texts)
        points = []
        for i, (text, vector, doc_id) in enumerate(zip(texts, vectors, doc_ids, strict=True)):
            if text is None:
                raise ValueError("texts must not contain None")
            metadata = metadatas[i] if metadatas is not None else None
            payload: dict[str, Any] = {
                self.content_payload_key: text,
                self.metadata_payload_key: _jsonable(metadata),
            }
            point_id, original = to_point_id(doc_id)
            if original is not None:
                payload[self.id_payload_key] = original
            points.append(qe.Point(point_id, vector, payload))
        self._shard.update(qe.UpdateOperation.upsert_points(points))

    def _embed_documents(self, texts: list[str]) -> list[dict[str, Any]]:
        vectors: list[dict[str, Any]] = [{} for _ in texts]
        if self._embedding is not None:
            for slot, dense in zip(vectors, self._embedding.embed_documents(texts), strict=True):
                slot[self.vector_name] = _dense(dense)
        if self._sparse_embedding is not None:
            sparse = self._sparse_embedding.embed_documents(texts)
            for slot, vector in zip(vectors, sparse, strict=True):
                slot[self.sparse_vector_name] = qe.SparseVector(
                    list(vector.indices), list(vector.values)
                )
        return vectors

    def delete(
        self,
        ids: list[str] | None = None,
        *,
        filter: models.Filter | qe.Filter | None = None,  # noqa: A002
        **kwargs: Any,
    ) -> bool:
        """Delete documents by id, by payload filter, or all of them.

        Args:
            ids: Ids to delete; unknown ids are ignored.
            filter: Delete every point matching this filter instead.
            **kwargs: Ignored (accepted for `VectorStore` compatibility).

        Returns:
            True (the engine raises on failure).

        Raises:
            ValueError: when both ids and a filter are given.
        """
        if ids is not None and filter is not None:
            raise ValueError("pass ids or a filter, not both")
        if ids is not None:
            if ids:
                point_ids: list[int | uuid.UUID | str] = [to_point_id(i)[0] for i in ids]
                self._shard.update(qe.UpdateOperation.delete_points(point_ids))
            return True
        # No ids and no filter: delete all, as `VectorStore.delete` documents.
        edge_filter = to_edge_filter(filter) if filter is not None else qe.Filter()
        self._shard.update(qe.UpdateOperation.delete_points_by_filter(edge_filter))
        return True

    # --- reading -----------------------------------------------------------------
    def get_by_ids(self, ids: Sequence[str], /) -> list[Document]:
        """Documents with these ids, in the order asked; unknown ids are skipped."""
        wanted = list(dict.fromkeys(str(i) for i in ids))
        if not wanted:
            return []
        point_ids: list[int | uuid.UUID | str] = [to_point_id(i)[0] for i in wanted]
        records = self._shard.retrieve(point_ids, True, False)
        by_id = {doc.id: doc for doc in map(self._document, records)}
        return [by_id[i] for i in wanted if i in by_id]

    def similarity_search(
        self,
        query: str,
        k: int = 4,
        filter: models.Filter | qe.Filter | None = None,  # noqa: A002
        **kwargs: Any,
    ) -> list[Document]:
        """Top-k documents for a query (see :meth:`similarity_search_with_score`)."""
        return [doc for doc, _ in self.similarity_search_with_score(query, k, filter, **kwargs)]

    def similarity_search_with_score(
        self,
        query: str,
        k: int = 4,
        filter: models.Filter | qe.Filter | None = None,  # noqa: A002
        *,
        score_threshold: float | None = None,
        offset: int = 0,
        depth: int | None = None,
        **kwargs: Any,
    ) -> list[tuple[Document, float]]:
        """Top-k documents for a query with the engine's scores, best first.

        Scores are cosine similarities (dense), BM25 (sparse with IDF) or RRF fusion
        scores (hybrid), like langchain-qdrant's on a Qdrant server.

        Args:
            query: Query text.
            k: How many documents.
            filter: A payload filter (qdrant-client or Qdrant Edge model).
            score_threshold: Drop results scoring below.
            offset: Skip this many results first.
            depth: How deep the search reads before the first `k` are kept (see
                :meth:`_query_request`); None reads `k` deep, like langchain-qdrant.
            **kwargs: Ignored (accepted for `VectorStore` compatibility).
        """
        dense = self._query_vectors([query])[0]
        edge_filter = to_edge_filter(filter)
        request = self._query_request(
            query,
            dense,
            k,
            edge_filter,
            score_threshold=score_threshold,
            offset=offset,
            depth=depth,
            dense_params=self._dense_params(edge_filter, max(k, depth or k) + offset),
        )
        return [(self._document(p), p.score) for p in self._shard.query(request)[:k]]

    def similarity_search_with_score_batch(
        self,
        queries: Sequence[str],
        k: int = 4,
        filter: models.Filter | qe.Filter | None = None,  # noqa: A002
        *,
        depth: int | None = None,
    ) -> list[list[tuple[Document, float]]]:
        """Top-k documents for each of several queries, as one planned batch.

        The same results as one :meth:`similarity_search_with_score` per query, for
        less: the queries' dense vectors come from one forward pass of the model when
        it can embed queries in a batch, and the shard runs the searches as one batch.

        Args:
            queries: Query texts.
            k: How many documents per query.
            filter: A payload filter applied to every query.
            depth: How deep each search reads before its first `k` are kept.

        Returns:
            One result list per query, in the order of `queries`.
        """
        results = self._query_batch(queries, k, filter, depth=depth, with_payload=True)
        return [[(self._document(p), p.score) for p in points] for points in results]

    def keyed_search_batch(
        self,
        queries: Sequence[str],
        k: int,
        filter: models.Filter | qe.Filter | None,  # noqa: A002
        *,
        depth: int | None = None,
        metadata_keys: Sequence[str],
    ) -> list[list[tuple[str, dict[str, Any], float]]]:
        """:meth:`similarity_search_with_score_batch`'s hits as (id, some metadata, score).

        Each hit's payload is read for these metadata keys only, and no Document is
        built: a caller that fuses deep rankings and keeps a few reads the kept ones
        whole afterwards (:meth:`get_by_ids`, by these ids). Reading and converting
        every hit's whole payload was most of a deep batch's cost.
        """
        selector = qe.PayloadSelector.Include(
            [self.id_payload_key] + [f"{self.metadata_payload_key}.{key}" for key in metadata_keys]
        )
        results = self._query_batch(queries, k, filter, depth=depth, with_payload=selector)
        return [[self._keyed(p) for p in points] for points in results]

    def _query_batch(
        self,
        queries: Sequence[str],
        k: int,
        filter: models.Filter | qe.Filter | None,  # noqa: A002
        *,
        depth: int | None,
        with_payload: bool | qe.PayloadSelector,
    ) -> list[list[qe.ScoredPoint]]:
        """Return the first `k` points per query (one embedding batch, one shard batch)."""
        if not queries:
            return []
        edge_filter = to_edge_filter(filter)
        vectors = self._query_vectors(list(queries))
        params = self._dense_params(edge_filter, max(k, depth or k))
        requests = [
            self._query_request(
                query,
                dense,
                k,
                edge_filter,
                depth=depth,
                dense_params=params,
                with_payload=with_payload,
            )
            for query, dense in zip(queries, vectors, strict=True)
        ]
        return [points[:k] for points in self._shard.query_batch(qe.QueryBatchRequest(requests))]

    def _query_vectors(self, queries: list[str]) -> list[list[float] | None]:
        """Dense query vectors (None each when the store has none)."""
        if self.retrieval_mode is RetrievalMode.SPARSE or self._embedding is None:
            return [None] * len(queries)
        return [_dense(v) for v in embed_queries(self._embedding, queries)]

    def _dense_params(self, edge_filter: qe.Filter | None, reads: int) -> qe.SearchParams | None:
        """Exact search for a dense query whose filter matches few points, else None.

        Exact search compares the query with every point the filter matches; HNSW
        visits part of the graph, in proportion to the candidates it reads (`reads`, at
        least 100). A turn reads each ranking 270 deep (`FusionConfig.depth` and the
        hybrid prefetch), so HNSW compares the query with thousands of points anyway,
        in random memory order, and still misses some of the true nearest: up to about
        40 points per result read (10,800 for a turn's search) exact search costs no
        more CPU and is exact. The engine itself switches to a full scan below 10,000 KB
        of matching vectors (6,666 of MiniLM's), whatever the depth. The engine's
        approximate count (from its payload indexes) is enough to choose.

        Args:
            edge_filter: The search's filter.
            reads: How many results the dense search reads.
        """
        if self._embedding is None or self.exact_search_points_per_result <= 0:
            return None
        most = self.exact_search_points_per_result * max(reads, _HNSW_MIN_EF)
        matching = self._shard.count(qe.CountRequest(exact=False, filter=edge_filter))
        return qe.SearchParams(exact=True) if matching <= most else None

    def _query_request(
        self,
        query: str,
        dense: list[float] | None,
        k: int,
        edge_filter: qe.Filter | None,
        *,
        score_threshold: float | None = None,
        offset: int = 0,
        depth: int | None = None,
        dense_params: qe.SearchParams | None = None,
        with_payload: bool | qe.PayloadSelector = True,
    ) -> qe.QueryRequest:
        """Return the shard request for one query in this store's retrieval mode.

        `depth` (at least `k`) is how deep the search reads: a hybrid query's dense and
        sparse branches each read `depth` points before their fusion, which only returns
        its first `k` (the fused scores of those do not depend on how many follow, so
        they are the first `k` a `depth`-long fused ranking holds); a single-vector
        query asks `depth` points, since the HNSW search widens with its limit, and the
        caller keeps the first `k`. Either way the payloads of the points nobody keeps
        are not read: converting them to Python was most of a search's cost when a
        turn's rankings were read deep (`FusionConfig.depth`). `dense_params` are the
        dense branch's search parameters (see :meth:`_dense_params`); `with_payload`
        what each returned point carries (all of its payload, or a selection).
        """
        depth = max(k, depth or k)
        request = partial(
            qe.QueryRequest,
            limit=depth,
            offset=offset,
            filter=edge_filter,
            score_threshold=score_threshold,
            with_payload=with_payload,
            with_vector=False,
        )
        if self.retrieval_mode is RetrievalMode.HYBRID:
            assert dense is not None and self._sparse_embedding is not None
            return request(
                prefetches=[
                    qe.Prefetch(
                        limit=depth,
                        query=qe.Query.Nearest(dense, using=self.vector_name),
                        filter=edge_filter,
                        params=dense_params,
                    ),
                    qe.Prefetch(
                        limit=depth,
                        query=qe.Query.Nearest(
                            self._sparse_query(query), using=self.sparse_vector_name
                        ),
                        filter=edge_filter,
                    ),
                ],
                # The stub's ScoringQueryType omits Fusion.Rrf, which the binding takes.
                query=qe.Fusion.Rrf(k=self.rrf_k),  # type: ignore[arg-type]
                limit=k,
            )
        if self.retrieval_mode is RetrievalMode.DENSE:
            assert dense is not None
            return request(
                query=qe.Query.Nearest(dense, using=self.vector_name), params=dense_params
            )
        return request(
            query=qe.Query.Nearest(self._sparse_query(query), using=self.sparse_vector_name)
        )

    def similarity_search_by_vector(
        self,
        embedding: list[float],
        k: int = 4,
        filter: models.Filter | qe.Filter | None = None,  # noqa: A002
        **kwargs: Any,
    ) -> list[Document]:
        """Top-k documents for a dense vector."""
        hits = self.similarity_search_with_score_by_vector(embedding, k, filter, **kwargs)
        return [doc for doc, _ in hits]

    def similarity_search_with_score_by_vector(
        self,
        embedding: list[float],
        k: int = 4,
        filter: models.Filter | qe.Filter | None = None,  # noqa: A002
        *,
        score_threshold: float | None = None,
        offset: int = 0,
        **kwargs: Any,
    ) -> list[tuple[Document, float]]:
        """Top-k documents for a dense vector, with cosine similarities.

        Raises:
            ValueError: when the store has no dense vectors.
        """
        if self._embedding is None:
            raise ValueError("this store has no dense vectors")
        edge_filter = to_edge_filter(filter)
        request = qe.QueryRequest(
            limit=k,
            offset=offset,
            query=qe.Query.Nearest(_dense(embedding), using=self.vector_name),
            filter=edge_filter,
            score_threshold=score_threshold,
            with_payload=True,
            with_vector=False,
            params=self._dense_params(edge_filter, k + offset),
        )
        return [(self._document(p), p.score) for p in self._shard.query(request)]

    # --- engine operations (not part of the VectorStore interface) ----------------
    def count(self, filter: models.Filter | qe.Filter | None = None) -> int:  # noqa: A002
        """Exact number of points, of those matching a filter when given."""
        return self._shard.count(qe.CountRequest(exact=True, filter=to_edge_filter(filter)))

    def iter_documents(
        self,
        filter: models.Filter | qe.Filter | None = None,  # noqa: A002
        *,
        batch_size: int = 512,
        limit: int | None = None,
    ) -> Iterator[Document]:
        """Every document (matching a filter), in point id order, without vectors.

        Args:
            filter: Only documents matching this payload filter.
            batch_size: Points fetched per engine call.
            limit: Stop after this many documents.
        """
        for record in self._scroll(filter, batch_size, limit, with_payload=True):
            yield self._document(record)

    def iter_metadata(
        self,
        filter: models.Filter | qe.Filter | None = None,  # noqa: A002
        *,
        batch_size: int = 512,
        limit: int | None = None,
        keys: Sequence[str] | None = None,
    ) -> Iterator[dict[str, Any]]:
        """Yield the metadata of every point (matching a filter), in point id order.

        No `Document` is built: a listing reading thousands of points spent more time
        building them than the engine spent reading.

        Args:
            filter: Only points matching this payload filter.
            batch_size: Points fetched per engine call.
            limit: Stop after this many points.
            keys: Only these metadata keys (None: all of them).
        """
        with_payload: bool | qe.PayloadSelector = (
            True
            if keys is None
            else qe.PayloadSelector.Include([f"{self.metadata_payload_key}.{k}" for k in keys])
        )
        for record in self._scroll(filter, batch_size, limit, with_payload=with_payload):
            yield (record.payload or {}).get(self.metadata_payload_key) or {}

    def _scroll(
        self,
        filter: models.Filter | qe.Filter | None,  # noqa: A002
        batch_size: int,
        limit: int | None,
        *,
        with_payload: bool | qe.PayloadSelector,
    ) -> Iterator[qe.Record]:
        edge_filter = to_edge_filter(filter)
        offset = None
        remaining = limit
        while remaining is None or remaining > 0:
            size = batch_size if remaining is None else min(batch_size, remaining)
            records, offset = self._shard.scroll(
                qe.ScrollRequest(
                    offset=offset,
                    limit=size,
                    filter=edge_filter,
                    with_payload=with_payload,
                    with_vector=False,
                )
            )
            yield from records
            if remaining is not None:
                remaining -= len(records)
            if offset is None or not records:
                return

    def optimize(self) -> bool:
        """Merge segments and build HNSW / sparse indexes, blocking until done.

        Run it after bulk ingestion: queries over an optimized shard no longer scan the
        appendable segment. It holds the GIL throughout (qdrant-edge-py 0.9.0), so it
        also stalls every other Python thread.

        Returns:
            True when something was optimized.
        """
        return self._shard.optimize()

    def flush(self) -> None:
        """Write pending segment changes to disk (the write-ahead log already has them)."""
        self._shard.flush()

    def close(self) -> None:
        """Flush and release the shard (and remove a temporary directory); idempotent."""
        with self._lifecycle:
            if self._closed:
                return
            self._closed = True
            try:
                self._shard.flush()
            finally:
                self._shard.close()
                if self._temporary:
                    shutil.rmtree(self.path, ignore_errors=True)

    def __enter__(self) -> EdgeVectorStore:
        """Use the store in a `with` block that closes it."""
        return self

    def __exit__(self, *exc_info: object) -> None:
        """Close the store (see `close`)."""
        self.close()

    # --- construction ------------------------------------------------------------
    @classmethod
    def from_texts(
        cls,
        texts: list[str],
        embedding: Embeddings | None,
        metadatas: list[dict] | None = None,
        *,
        ids: list[str] | None = None,
        path: str | Path | None = None,
        sparse_embedding: SparseEmbeddings | None = None,
        **kwargs: Any,
    ) -> EdgeVectorStore:
        """Open (or create) a store at ``path`` and add texts to it.

        Args:
            texts: Texts to add.
            embedding: Dense embeddings, or None for a sparse-only store.
            metadatas: One metadata dict per text.
            ids: One id per text.
            path: Shard directory; a temporary one when omitted.
            sparse_embedding: Sparse embeddings (with ``embedding``: hybrid).
            **kwargs: Further constructor arguments.
        """
        store = cls(path, embedding=embedding, sparse_embedding=sparse_embedding, **kwargs)
        store.add_texts(texts, metadatas, ids=ids)
        return store

    # --- helpers -----------------------------------------------------------------
    def _sparse_query(self, query: str) -> qe.SparseVector:
        assert self._sparse_embedding is not None
        vector = self._sparse_embedding.embed_query(query)
        return qe.SparseVector(list(vector.indices), list(vector.values))

    def _keyed(self, point: qe.ScoredPoint) -> tuple[str, dict[str, Any], float]:
        payload = point.payload or {}
        doc_id = payload.get(self.id_payload_key) or str(point.id)
        return doc_id, payload.get(self.metadata_payload_key) or {}, point.score

    def _document(self, point: qe.ScoredPoint | qe.Record) -> Document:
        payload = point.payload or {}
        doc_id = payload.get(self.id_payload_key) or str(point.id)
        # The payload is the index's own (written by add_texts), so the fields have their
        # types already; skipping pydantic's validation halves the cost of a hit, which
        # counts when every query variant reads its ranking 60 deep (FusionConfig.depth).
        return Document.model_construct(
            id=doc_id,
            page_content=payload.get(self.content_payload_key) or "",
            metadata=payload.get(self.metadata_payload_key) or {},
        )


def _dense(vector: Any) -> list[float]:
    """Return a dense vector as a list of floats (embeddings may return numpy arrays)."""
    return vector.tolist() if hasattr(vector, "tolist") else list(vector)


def _jsonable(value: Any) -> Any:
    """Payload values the binding accepts: JSON types only (it rejects dates, tuples…)."""
    if value is None or isinstance(value, str | int | float | bool):
        return value
    if isinstance(value, dict) and all(
        isinstance(k, str) and (v is None or isinstance(v, str | int | float | bool))
        for k, v in value.items()
    ):
        return value  # the common case, flat metadata, costs no conversion
    return to_jsonable_python(value)
