"""EdgeVectorStore: LangChain's standard vector store tests, plus what threadline relies on.

The standard suite (`langchain_tests.integration_tests.VectorStoreIntegrationTests`) runs
twice, on a dense store (the suite's own fake embeddings) and on a hybrid one (the same
dense embeddings plus our BM25 sparse vectors, RRF fusion). Each test gets a fresh
shard in its own temporary directory.

The rest checks the promises of `threadline.knowledge.edge` against qdrant-client's
local mode, which stands in for a Qdrant server (same client code path as
``QDRANT_URL``): same payload layout, same filter semantics, same scores.
"""

from __future__ import annotations

import subprocess
import sys
import threading
import uuid
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
import qdrant_edge as qe
from langchain_core.documents import Document
from langchain_core.embeddings import DeterministicFakeEmbedding, Embeddings
from langchain_qdrant import QdrantVectorStore, RetrievalMode
from qdrant_client import QdrantClient, models

from support.rankings import assert_same_ranking
from threadline.knowledge.edge import ID_KEY, EdgeVectorStore, to_point_id
from threadline.knowledge.sparse import Bm25SparseEmbeddings, sparse_vector_params

langchain_tests = pytest.importorskip("langchain_tests.integration_tests")

# The standard suite has async tests; they need pytest-asyncio's mark in its default
# strict mode (sync tests ignore it, hence the filtered warning).
pytestmark = [
    pytest.mark.asyncio(loop_scope="function"),
    pytest.mark.filterwarnings("ignore:The test <Function:pytest.PytestWarning"),
]

DIM = 6


class TestEdgeVectorStoreDense(langchain_tests.VectorStoreIntegrationTests):
    """The standard suite on a dense-only shard."""

    @pytest.fixture
    def vectorstore(self, tmp_path: Path) -> Iterator[EdgeVectorStore]:
        """An empty dense store in its own directory."""
        store = EdgeVectorStore(tmp_path / "shard", embedding=self.get_embeddings())
        try:
            yield store
        finally:
            store.close()


class TestEdgeVectorStoreHybrid(langchain_tests.VectorStoreIntegrationTests):
    """The standard suite on a hybrid shard (dense + BM25 sparse, RRF fusion)."""

    @pytest.fixture
    def vectorstore(self, tmp_path: Path) -> Iterator[EdgeVectorStore]:
        """An empty hybrid store in its own directory."""
        store = EdgeVectorStore(
            tmp_path / "shard",
            embedding=self.get_embeddings(),
            sparse_embedding=Bm25SparseEmbeddings(),
        )
        try:
            yield store
        finally:
            store.close()


# --- a small corpus and a qdrant-client twin --------------------------------------

TEXTS = [
    "Refunds are issued within 14 days of the return being received.",
    "The warranty covers manufacturing defects for two years.",
    "Shipping to Canada takes five to seven business days.",
    "Return shipping is free for defective items.",
    "Our support team answers email within one business day.",
    "Gift cards cannot be refunded or exchanged for cash.",
    "Express shipping costs 15 euros and arrives the next day.",
    "The battery warranty is limited to one year.",
    "Damaged parcels must be reported within 48 hours.",
    "Store credit never expires and can be used online.",
]


def _metadata(i: int) -> dict:
    meta: dict = {
        "tenant": "acme" if i % 2 == 0 else "globex",
        "doc_id": f"doc-{i // 3}",
        "source": ["support", "guides", "reports"][i % 3],
        "position": i,
        "price": 10.5 * i,
        "tags": ["a", "b"] if i % 4 == 0 else ["c"],
        "active": i % 5 != 0,
        "updated": f"2024-0{1 + i % 9}-15T10:00:00Z",
        "title": TEXTS[i].split()[0].lower(),
    }
    if i % 3 == 0:
        meta["workspace"] = "north"
    if i == 7:
        meta["note"] = None
    return meta


METADATAS = [_metadata(i) for i in range(len(TEXTS))]
IDS = [str(uuid.UUID(int=i + 1)) for i in range(len(TEXTS))]


def _dense() -> DeterministicFakeEmbedding:
    return DeterministicFakeEmbedding(size=DIM)


@pytest.fixture
def edge_hybrid(tmp_path: Path) -> Iterator[EdgeVectorStore]:
    """A hybrid edge store holding the corpus."""
    store = EdgeVectorStore(
        tmp_path / "edge", embedding=_dense(), sparse_embedding=Bm25SparseEmbeddings()
    )
    store.add_texts(TEXTS, METADATAS, ids=IDS)
    yield store
    store.close()


def _reference_store(path: Path, mode: RetrievalMode) -> QdrantVectorStore:
    """The corpus through langchain-qdrant on qdrant-client's local mode."""
    client = QdrantClient(path=str(path))
    vectors = {}
    if mode is not RetrievalMode.SPARSE:
        vectors["dense"] = models.VectorParams(size=DIM, distance=models.Distance.COSINE)
    sparse = None if mode is RetrievalMode.DENSE else {"sparse": sparse_vector_params()}
    client.create_collection("docs", vectors_config=vectors, sparse_vectors_config=sparse)
    store = QdrantVectorStore(
        client=client,
        collection_name="docs",
        embedding=_dense() if mode is not RetrievalMode.SPARSE else None,
        sparse_embedding=Bm25SparseEmbeddings() if mode is not RetrievalMode.DENSE else None,
        retrieval_mode=mode,
        vector_name="dense",
        sparse_vector_name="sparse",
    )
    store.add_texts(TEXTS, METADATAS, ids=IDS)
    return store


@pytest.fixture
def client_hybrid(tmp_path: Path) -> Iterator[QdrantVectorStore]:
    """The corpus through langchain-qdrant on qdrant-client's local mode, hybrid."""
    store = _reference_store(tmp_path / "local", RetrievalMode.HYBRID)
    yield store
    store.client.close()


def _key(name: str) -> str:
    return f"metadata.{name}"


FILTERS: dict[str, models.Filter] = {
    "match value": models.Filter(
        must=[models.FieldCondition(key=_key("tenant"), match=models.MatchValue(value="acme"))]
    ),
    "match any": models.Filter(
        must=[
            models.FieldCondition(
                key=_key("source"), match=models.MatchAny(any=["support", "reports"])
            )
        ]
    ),
    "match except": models.Filter(
        must=[
            models.FieldCondition(
                key=_key("source"), match=models.MatchExcept(**{"except": ["guides"]})
            )
        ]
    ),
    "tenant and doc ids": models.Filter(
        must=[
            models.FieldCondition(key=_key("tenant"), match=models.MatchValue(value="globex")),
            models.FieldCondition(
                key=_key("doc_id"), match=models.MatchAny(any=["doc-0", "doc-1"])
            ),
        ]
    ),
    "should": models.Filter(
        should=[
            models.FieldCondition(key=_key("source"), match=models.MatchValue(value="guides")),
            models.FieldCondition(key=_key("workspace"), match=models.MatchValue(value="north")),
        ]
    ),
    "must not": models.Filter(
        must_not=[models.FieldCondition(key=_key("tenant"), match=models.MatchValue(value="acme"))]
    ),
    "single condition, not a list": models.Filter(
        must=models.FieldCondition(key=_key("tenant"), match=models.MatchValue(value="acme"))
    ),
    "range": models.Filter(
        must=[models.FieldCondition(key=_key("price"), range=models.Range(gte=20, lt=70))]
    ),
    "datetime range": models.Filter(
        must=[
            models.FieldCondition(
                key=_key("updated"), range=models.DatetimeRange(gt="2024-03-01T00:00:00Z")
            )
        ]
    ),
    "bool": models.Filter(
        must=[models.FieldCondition(key=_key("active"), match=models.MatchValue(value=False))]
    ),
    "array member": models.Filter(
        must=[models.FieldCondition(key=_key("tags"), match=models.MatchValue(value="b"))]
    ),
    "values count": models.Filter(
        must=[models.FieldCondition(key=_key("tags"), values_count=models.ValuesCount(gte=2))]
    ),
    "is empty": models.Filter(
        must=[models.IsEmptyCondition(is_empty=models.PayloadField(key=_key("workspace")))]
    ),
    "is null": models.Filter(
        must=[models.IsNullCondition(is_null=models.PayloadField(key=_key("note")))]
    ),
    "has id": models.Filter(must=[models.HasIdCondition(has_id=IDS[:3])]),
    "min should": models.Filter(
        min_should=models.MinShould(
            conditions=[
                models.FieldCondition(key=_key("tenant"), match=models.MatchValue(value="acme")),
                models.FieldCondition(key=_key("source"), match=models.MatchValue(value="support")),
                models.FieldCondition(key=_key("active"), match=models.MatchValue(value=True)),
            ],
            min_count=2,
        )
    ),
    "nested filter": models.Filter(
        must=[
            models.Filter(
                should=[
                    models.FieldCondition(key=_key("position"), match=models.MatchValue(value=1)),
                    models.FieldCondition(key=_key("position"), match=models.MatchValue(value=8)),
                ]
            )
        ]
    ),
}


@pytest.mark.parametrize("name", sorted(FILTERS))
def test_filters_select_the_same_points_as_qdrant_client(
    name: str, edge_hybrid: EdgeVectorStore, client_hybrid: QdrantVectorStore
) -> None:
    flt = FILTERS[name]
    expected = {
        str(p.id) for p in client_hybrid.client.scroll("docs", scroll_filter=flt, limit=100)[0]
    }
    got = {doc.id for doc in edge_hybrid.iter_documents(flt)}
    assert expected, f"{name}: the filter should select something"
    assert got == expected
    assert edge_hybrid.count(flt) == len(expected)


def test_unsupported_filter_is_rejected(edge_hybrid: EdgeVectorStore) -> None:
    with pytest.raises(TypeError):
        edge_hybrid.count({"tenant": "acme"})  # type: ignore[arg-type]
    near = models.GeoRadius(center=models.GeoPoint(lon=2.35, lat=48.85), radius=1000.0)
    with pytest.raises(TypeError, match="geo"):
        edge_hybrid.count(models.Filter(must=[models.FieldCondition(key="p", geo_radius=near)]))


def test_payload_layout_is_langchain_qdrants(
    edge_hybrid: EdgeVectorStore, client_hybrid: QdrantVectorStore
) -> None:
    expected = {
        str(p.id): p.payload
        for p in client_hybrid.client.scroll("docs", limit=100, with_payload=True)[0]
    }
    records = edge_hybrid.shard.retrieve(IDS, True, False)
    got = {str(r.id): r.payload for r in records}
    assert got == expected


@pytest.mark.parametrize(
    "mode", [RetrievalMode.HYBRID, RetrievalMode.SPARSE, RetrievalMode.DENSE], ids=str
)
@pytest.mark.parametrize("filtered", [False, True], ids=["all", "acme"])
def test_scores_match_qdrant_client(tmp_path: Path, mode: RetrievalMode, filtered: bool) -> None:
    dense = _dense() if mode is not RetrievalMode.SPARSE else None
    sparse = Bm25SparseEmbeddings() if mode is not RetrievalMode.DENSE else None
    edge = EdgeVectorStore(tmp_path / "edge", embedding=dense, sparse_embedding=sparse)
    edge.add_texts(TEXTS, METADATAS, ids=IDS)
    reference = _reference_store(tmp_path / "local", mode)
    flt = FILTERS["match value"] if filtered else None
    try:
        for query in ("refund of gift cards", "warranty for the battery", "shipping days"):
            want = reference.similarity_search_with_score(query, k=4, filter=flt)
            got = edge.similarity_search_with_score(query, k=4, filter=flt)
            assert_same_ranking(
                [(d.metadata["_id"], s) for d, s in want], [(d.id, s) for d, s in got]
            )
    finally:
        edge.close()
        reference.client.close()


class BatchCountingEmbedding(DeterministicFakeEmbedding):
    """The fake dense model, counting single and batched query embeddings."""

    singles: int = 0
    batches: int = 0

    def embed_query(self, text: str) -> list[float]:
        self.singles += 1
        return super().embed_query(text)

    def embed_query_batch(self, texts: list[str]) -> list[list[float]]:
        self.batches += 1
        return [super(BatchCountingEmbedding, self).embed_query(t) for t in texts]


@pytest.mark.parametrize(
    "mode", [RetrievalMode.HYBRID, RetrievalMode.SPARSE, RetrievalMode.DENSE], ids=str
)
def test_a_batch_of_queries_ranks_as_the_queries_one_by_one(
    tmp_path: Path, mode: RetrievalMode
) -> None:
    dense = BatchCountingEmbedding(size=DIM) if mode is not RetrievalMode.SPARSE else None
    sparse = Bm25SparseEmbeddings() if mode is not RetrievalMode.DENSE else None
    edge = EdgeVectorStore(tmp_path / "edge", embedding=dense, sparse_embedding=sparse)
    edge.add_texts(TEXTS, METADATAS, ids=IDS)
    queries = ["refund of gift cards", "warranty for the battery", "", "shipping days"]
    if dense is not None:
        dense.singles = 0  # the store probed the model's dimension when it opened
    try:
        for flt in (None, FILTERS["match value"]):
            batch = edge.similarity_search_with_score_batch(queries, k=4, filter=flt)
            one_by_one = [edge.similarity_search_with_score(q, k=4, filter=flt) for q in queries]
            assert len(batch) == len(queries)
            for got, want in zip(batch, one_by_one, strict=True):
                assert_same_ranking([(d.id, s) for d, s in want], [(d.id, s) for d, s in got])
        if dense is not None:
            # Each batch embedded its queries in one call; single searches one by one.
            assert dense.batches == 2 and dense.singles == 2 * len(queries)
    finally:
        edge.close()


def test_documents_come_back_as_given(edge_hybrid: EdgeVectorStore) -> None:
    [doc] = edge_hybrid.get_by_ids([IDS[3]])
    assert doc == Document(id=IDS[3], page_content=TEXTS[3], metadata=METADATAS[3])
    hits = edge_hybrid.similarity_search(TEXTS[3], k=1, filter=FILTERS["must not"])
    assert hits == [doc]


def test_ids_that_are_not_qdrant_ids_round_trip(tmp_path: Path) -> None:
    store = EdgeVectorStore(tmp_path / "s", sparse_embedding=Bm25SparseEmbeddings())
    ids = ["plain", "7", "007", "A9F2C3D4-0000-4000-8000-000000000000", str(uuid.UUID(int=5))]
    store.add_texts([f"text number {i}" for i in range(len(ids))], ids=ids)
    assert {d.id for d in store.get_by_ids(ids)} == set(ids)
    # Only ids that are not canonical Qdrant ids keep a copy in the payload.
    stored = {
        str(r.id): r.payload for r in store.shard.retrieve([7, str(uuid.UUID(int=5))], True, False)
    }
    assert all(ID_KEY not in payload for payload in stored.values())
    assert to_point_id("7") == (7, None)
    assert to_point_id("007")[1] == "007"
    store.delete(["plain", "007"])
    assert {d.id for d in store.get_by_ids(ids)} == set(ids) - {"plain", "007"}
    store.delete()
    assert store.count() == 0
    store.close()


def test_sparse_store_ignores_queries_without_terms(tmp_path: Path) -> None:
    store = EdgeVectorStore(tmp_path / "s", sparse_embedding=Bm25SparseEmbeddings())
    store.add_texts(TEXTS)
    assert store.similarity_search("the of and", k=3) == []
    hits = store.similarity_search("warranty", k=3)
    assert len(hits) == 2
    assert all("warranty" in doc.page_content for doc in hits)
    with pytest.raises(ValueError, match="dense"):
        store.similarity_search_by_vector([0.0] * DIM)
    store.close()


def test_reopening_keeps_the_data_and_indexes(tmp_path: Path) -> None:
    path = tmp_path / "shard"
    store = EdgeVectorStore(path, embedding=_dense(), sparse_embedding=Bm25SparseEmbeddings())
    store.add_texts(TEXTS, METADATAS, ids=IDS)
    before = store.similarity_search_with_score("express shipping", k=5)
    store.close()
    store.close()  # idempotent
    again = EdgeVectorStore(path, embedding=_dense(), sparse_embedding=Bm25SparseEmbeddings())
    assert again.count() == len(TEXTS)
    after = again.similarity_search_with_score("express shipping", k=5)
    assert_same_ranking([(d.id, s) for d, s in before], [(d.id, s) for d, s in after])
    assert {d.id: d for d, _ in after} == {d.id: d for d, _ in before}
    assert {"metadata.tenant", "metadata.doc_id", "metadata.source"} <= set(
        again.shard.info().payload_schema
    )
    again.close()


def test_reopening_with_other_vectors_fails(tmp_path: Path) -> None:
    path = tmp_path / "shard"
    EdgeVectorStore(path, embedding=_dense()).close()
    with pytest.raises(ValueError, match="incompatible"):
        EdgeVectorStore(path, embedding=DeterministicFakeEmbedding(size=DIM + 1))


def test_only_one_store_may_hold_a_shard(tmp_path: Path) -> None:
    store = EdgeVectorStore(tmp_path / "shard", embedding=_dense())
    with pytest.raises(Exception, match="WAL"):
        EdgeVectorStore(tmp_path / "shard", embedding=_dense())
    store.close()


_CRASH = """
import os, sys
from langchain_core.embeddings import DeterministicFakeEmbedding
from threadline.knowledge.edge import EdgeVectorStore
store = EdgeVectorStore(sys.argv[1], embedding=DeterministicFakeEmbedding(size=6))
store.add_texts(["kept by the write-ahead log"] * 300, [{"i": i} for i in range(300)])
store.delete([str(i) for i in range(10)])
os._exit(0)  # no flush, no close
"""


def test_writes_survive_a_crash(tmp_path: Path) -> None:
    path = tmp_path / "shard"
    subprocess.run([sys.executable, "-c", _CRASH, str(path)], check=True, timeout=120)
    store = EdgeVectorStore(path, embedding=_dense())
    assert store.count() == 300
    store.close()


def test_temporary_store_is_removed_on_close() -> None:
    store = EdgeVectorStore.from_texts(TEXTS, _dense(), METADATAS)
    path = store.path
    assert path.exists()
    assert store.similarity_search(TEXTS[0], k=1)[0].page_content == TEXTS[0]
    store.close()
    assert not path.exists()


def test_concurrent_writes_and_reads(tmp_path: Path) -> None:
    store = EdgeVectorStore(
        tmp_path / "s", embedding=_dense(), sparse_embedding=Bm25SparseEmbeddings()
    )
    errors: list[BaseException] = []
    flt = FILTERS["match value"]

    def write(worker: int) -> None:
        try:
            for batch in range(10):
                ids = [f"w{worker}-{batch}-{i}" for i in range(20)]
                metas = [{**METADATAS[i % len(METADATAS)]} for i in range(20)]
                store.add_texts([TEXTS[i % len(TEXTS)] for i in range(20)], metas, ids=ids)
                store.delete(ids[:5])
        except BaseException as exc:  # noqa: BLE001 - reported below
            errors.append(exc)

    def read() -> None:
        try:
            for _ in range(50):
                store.similarity_search("warranty shipping", k=5, filter=flt)
                store.count(flt)
        except BaseException as exc:  # noqa: BLE001 - reported below
            errors.append(exc)

    threads = [threading.Thread(target=write, args=(w,)) for w in range(3)]
    threads += [threading.Thread(target=read) for _ in range(3)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not errors
    assert store.count() == 3 * 10 * 15
    store.close()


@pytest.mark.parametrize(
    "mode", [RetrievalMode.HYBRID, RetrievalMode.SPARSE, RetrievalMode.DENSE], ids=str
)
def test_a_search_read_deep_returns_the_head_of_the_deep_ranking(
    tmp_path: Path, mode: RetrievalMode
) -> None:
    # `depth` reads the ranking as deep as `k=depth` would and returns only its first k
    # (the payloads of the rest are never read): the same points and scores.
    dense = DeterministicFakeEmbedding(size=DIM) if mode is not RetrievalMode.SPARSE else None
    sparse = Bm25SparseEmbeddings() if mode is not RetrievalMode.DENSE else None
    edge = EdgeVectorStore(tmp_path / "edge", embedding=dense, sparse_embedding=sparse)
    words = "refund warranty battery shipping card gift order days store return".split()
    texts = [" ".join(words[(i * j) % len(words)] for j in range(1, 2 + i % 5)) for i in range(60)]
    edge.add_texts(texts, ids=[str(uuid.UUID(int=i + 1)) for i in range(len(texts))])
    queries = ["refund of gift cards", "warranty battery days", "store order return"]
    try:
        for query in queries:
            deep = edge.similarity_search_with_score(query, k=30)
            head = edge.similarity_search_with_score(query, k=5, depth=30)
            assert_same_ranking([(d.id, s) for d, s in deep[:5]], [(d.id, s) for d, s in head])
        batch = edge.similarity_search_with_score_batch(queries, k=5, depth=30)
        for query, got in zip(queries, batch, strict=True):
            deep = edge.similarity_search_with_score(query, k=30)
            assert_same_ranking([(d.id, s) for d, s in deep[:5]], [(d.id, s) for d, s in got])
        if mode is RetrievalMode.HYBRID:
            # Read only 5 deep, a hybrid search fuses shorter branches: other scores.
            shallow = [edge.similarity_search_with_score(q, k=5) for q in queries]
            assert [[s for _, s in r] for r in shallow] != [[s for _, s in r] for r in batch]
    finally:
        edge.close()


_POOL_THREADS = """
import os, sys
from pathlib import Path
from langchain_core.embeddings import DeterministicFakeEmbedding
from threadline.knowledge.edge import EdgeVectorStore

def pool_threads():
    tasks = Path("/proc/self/task")
    return sum((t / "comm").read_text().startswith("edge-search") for t in tasks.iterdir())

threads = sys.argv[2]
store = EdgeVectorStore(
    sys.argv[1], embedding=DeterministicFakeEmbedding(size=6), sparse_embedding=None,
    **({} if threads == "default" else {"search_threads": int(threads)}),
)
store.add_texts(["refund policy", "shipping times"], [{"i": 0}, {"i": 1}])
assert store.similarity_search("refund", k=2)
print(pool_threads(), len(os.sched_getaffinity(0)))
"""


def _pool_threads_of_a_new_store(path: Path, search_threads: str) -> tuple[int, int]:
    """(search pool threads, usable cores) in a process holding one store and nothing else.

    A process of its own: in the test process, the pool threads of stores that other
    tests closed may still be exiting while they are counted.
    """
    done = subprocess.run(
        [sys.executable, "-c", _POOL_THREADS, str(path), search_threads],
        check=True,
        capture_output=True,
        text=True,
        timeout=120,
    )
    threads, cores = done.stdout.split()
    return int(threads), int(cores)


@pytest.mark.skipif(not Path("/proc/self/task").is_dir(), reason="counts threads in /proc")
def test_the_search_pool_has_a_thread_per_usable_core(tmp_path: Path) -> None:
    # More search threads than cores only contend with the query embedding and the
    # rest of a turn (the engine's default was 8 pool threads on 2 cores).
    threads, cores = _pool_threads_of_a_new_store(tmp_path / "edge", "default")
    assert threads == cores
    assert _pool_threads_of_a_new_store(tmp_path / "other", "1") == (1, cores)


# --- exact dense search below a size -----------------------------------------------------


class TableEmbedding(Embeddings):
    """Vectors looked up by text ("p<i>": point i, "q<j>": query j), for a known geometry."""

    def __init__(self, points: np.ndarray, queries: np.ndarray) -> None:
        self.points, self.queries = points, queries

    def _vector(self, text: str) -> list[float]:
        table = self.points if text[0] == "p" else self.queries
        return table[int(text[1:])].tolist()

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        return [self._vector(t) for t in texts]

    def embed_query(self, text: str) -> list[float]:
        return self._vector(text)


def _unit(rows: np.ndarray) -> np.ndarray:
    return rows / np.linalg.norm(rows, axis=1, keepdims=True)


@pytest.fixture(scope="module")
def coarse_hnsw_shard(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """2,000 random points (and their BM25 vectors) under an HNSW graph too coarse to
    find all true neighbours.

    The engine walks an HNSW graph only above its indexing and full-scan thresholds
    (10,000 KB of vectors by default); both are lowered so that a small shard has a
    graph, and the graph is built sparse (m=4, ef_construct=8) so that it misses some
    of the true nearest points.
    """
    path = tmp_path_factory.mktemp("coarse") / "edge"
    rng = np.random.default_rng(7)
    points = _unit(rng.standard_normal((2000, 32)))
    queries = _unit(rng.standard_normal((6, 32)))
    store = EdgeVectorStore(
        path,
        embedding=TableEmbedding(points, queries),
        dense_size=32,
        sparse_embedding=Bm25SparseEmbeddings(),
        hnsw_config=qe.HnswIndexConfig(m=4, ef_construct=8, full_scan_threshold=1),
        optimizers=qe.EdgeOptimizersConfig(indexing_threshold=1),
    )
    metadatas = [{"tenant": "small" if i % 20 == 0 else "large"} for i in range(len(points))]
    store.add_texts([f"p{i}" for i in range(len(points))], metadatas)
    store.optimize()
    store.close()
    np.save(path.parent / "points.npy", points)
    np.save(path.parent / "queries.npy", queries)
    yield path


def _true_nearest(points: np.ndarray, query: np.ndarray, k: int, among: list[int]) -> list[str]:
    """The page contents ("p<i>") of the k points of `among` nearest to the query."""
    scores = points[among] @ query
    return [f"p{among[i]}" for i in np.argsort(-scores, kind="stable")[:k]]


@pytest.mark.parametrize("sparse", [False, True], ids=["dense", "hybrid"])
def test_dense_search_is_exact_up_to_a_number_of_points_per_result_read(
    coarse_hnsw_shard: Path, sparse: bool
) -> None:
    points = np.load(coarse_hnsw_shard.parent / "points.npy")
    queries = np.load(coarse_hnsw_shard.parent / "queries.npy")
    everyone = list(range(len(points)))
    small = [i for i in everyone if i % 20 == 0]  # the 100 points of tenant "small"
    k = 50  # HNSW reads at least 100 candidates: the size limit is 100 x per_result

    def store(per_result: int) -> EdgeVectorStore:
        return EdgeVectorStore(
            coarse_hnsw_shard,
            embedding=TableEmbedding(points, queries),
            dense_size=32,
            sparse_embedding=Bm25SparseEmbeddings() if sparse else None,
            exact_search_points_per_result=per_result,
        )

    def ranking(
        edge: EdgeVectorStore, j: int, flt: models.Filter | None, depth: int | None = None
    ) -> list[str]:
        if sparse:  # the dense branch of a hybrid query: no query term matches "p<i>"
            found = edge.similarity_search_with_score_batch([f"q{j}"], k=k, filter=flt, depth=depth)
            return [d.page_content for d, _ in found[0]]
        found = edge.similarity_search_with_score(f"q{j}", k=k, filter=flt, depth=depth)
        return [d.page_content for d, _ in found]

    def exact(j: int, among: list[int]) -> list[str]:
        return _true_nearest(points, queries[j], k, among)

    tenant = models.Filter(
        must=[models.FieldCondition(key=_key("tenant"), match=models.MatchValue(value="small"))]
    )
    edge = store(len(points) // 100)
    try:
        assert all(ranking(edge, j, None) == exact(j, everyone) for j in range(len(queries)))
    finally:
        edge.close()
    edge = store(0)
    try:
        # The coarse graph misses true neighbours: the setting did choose the graph.
        assert any(ranking(edge, j, None) != exact(j, everyone) for j in range(len(queries)))
    finally:
        edge.close()
    edge = store(1)
    try:
        # 100 x 1: the tenant's 100 points are few enough for an exact search, the
        # shard's 2,000 are not, unless the search reads 2,000 deep.
        assert all(ranking(edge, j, tenant) == exact(j, small) for j in range(len(queries)))
        assert any(ranking(edge, j, None) != exact(j, everyone) for j in range(len(queries)))
        assert all(
            ranking(edge, j, None, depth=len(points)) == exact(j, everyone)
            for j in range(len(queries))
        )
    finally:
        edge.close()


def test_exact_and_hnsw_search_rank_a_small_real_index_alike(tmp_path: Path) -> None:
    # With the engine's default graph (m=16, ef_construct=100), searched through even
    # though the index is small, HNSW finds the true neighbours of a small index: the
    # exact search gives the same top k, scores and all.
    dense = DeterministicFakeEmbedding(size=DIM)
    texts = [f"{TEXTS[i % len(TEXTS)]} ({i})" for i in range(200)]
    rankings = []
    for per_result in (0, 40):
        edge = EdgeVectorStore(
            tmp_path / f"edge-{per_result}",
            embedding=dense,
            sparse_embedding=Bm25SparseEmbeddings(),
            exact_search_points_per_result=per_result,
            hnsw_config=qe.HnswIndexConfig(m=16, ef_construct=100, full_scan_threshold=1),
            optimizers=qe.EdgeOptimizersConfig(indexing_threshold=1),
        )
        try:
            edge.add_texts(texts, ids=[str(uuid.UUID(int=i + 1)) for i in range(len(texts))])
            edge.optimize()
            queries = ["refund of gift cards", "warranty for the battery", "shipping days"]
            found = edge.similarity_search_with_score_batch(queries, k=20, depth=60)
            rankings.append([[(d.id, s) for d, s in r] for r in found])
        finally:
            edge.close()
    for hnsw, exact in zip(*rankings, strict=True):
        assert_same_ranking(exact, hnsw)
