"""Engine parity: `KnowledgeBase` gives the same answers on Qdrant Edge and on qdrant-client.

qdrant-client's in-process mode (`QdrantClient(path=...)`) stands in for a Qdrant
server: `KnowledgeBase` drives it through exactly the code path ``QDRANT_URL`` uses
(langchain-qdrant's `QdrantVectorStore`, the client's count/scroll/delete).

With sparse embeddings both engines compute the same BM25 (term frequencies from us,
IDF from the engine), so rankings and scores must be equal. Hybrid adds dense vectors
and RRF fusion; the corpus is small enough for both engines to search exactly, so the
fused rankings must agree too, up to the order of equal scores.
"""

from __future__ import annotations

import random
import threading
import time
from collections.abc import Iterator
from functools import cache
from hashlib import blake2b
from pathlib import Path

import pytest
import qdrant_edge as qe
from langchain_core.embeddings import Embeddings
from qdrant_client import QdrantClient

from support.paths import SAMPLE
from support.rankings import assert_same_ranking
from support.services import make_settings
from threadline.knowledge.documents import SourceDocument
from threadline.knowledge.edge import DEFAULT_EXACT_SEARCH_POINTS_PER_RESULT, EdgeVectorStore
from threadline.knowledge.embeddings import EmbeddingSetup
from threadline.knowledge.engines import edge_shard_path
from threadline.knowledge.index import KnowledgeBase, ScoredChunk, SearchFilters
from threadline.knowledge.sparse import Bm25SparseEmbeddings
from threadline.text import terms

DIM = 64


class HashingEmbeddings(Embeddings):
    """Deterministic dense vectors with some meaning and no model.

    Each term gets a fixed pseudo-random direction (seeded by its hash); a text is the
    normalised sum of its terms' directions. Texts sharing terms are close, and unlike
    plain hashed counts, two different texts practically never tie.
    """

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        """One vector per text."""
        return [self.embed_query(text) for text in texts]

    def embed_query(self, text: str) -> list[float]:
        """The normalised sum of the text's term directions."""
        vector = [0.0] * DIM
        for term in terms(text):
            for i, value in enumerate(_direction(term)):
                vector[i] += value
        norm = sum(v * v for v in vector) ** 0.5 or 1.0
        return [v / norm for v in vector]


@cache
def _direction(term: str) -> tuple[float, ...]:
    seed = int.from_bytes(blake2b(term.encode(), digest_size=8).digest(), "big")
    rng = random.Random(seed)
    return tuple(rng.gauss(0.0, 1.0) for _ in range(DIM))


def _setup(kind: str) -> EmbeddingSetup:
    if kind == "sparse":
        return EmbeddingSetup(None, Bm25SparseEmbeddings(), None, "sparse")
    return EmbeddingSetup(HashingEmbeddings(), Bm25SparseEmbeddings(), DIM, "test-hybrid")


TENANT_DOCS = {
    "acme": [
        (
            "acme-vpn",
            "VPN access",
            "Connect to the VPN with the acme client before opening tickets.",
        ),
        (
            "acme-leave",
            "Leave policy",
            "Employees get 25 days of paid leave and 5 days of training.",
        ),
        ("acme-refund", "Refunds", "Refunds for enterprise licences are prorated per month."),
    ],
    "globex": [
        ("globex-badges", "Badges", "Lost badges are replaced by the security desk within a day."),
        ("globex-refund", "Refunds", "Globex refunds hardware returned unopened within 30 days."),
    ],
}


def _ingest(kb: KnowledgeBase) -> None:
    report = kb.ingest_paths([SAMPLE])
    assert not report.errors
    for tenant, docs in TENANT_DOCS.items():
        for i, (doc_id, title, text) in enumerate(docs):
            body = f"# {title}\n\n{text}\n\n## Details\n\n{text} Contact {tenant} support."
            kb.ingest_document(
                SourceDocument(doc_id=doc_id, title=title, text=body, source="policies", path=None),
                tenant=tenant,
                source_app="hr" if i % 2 == 0 else "it",
                workspace="north" if i == 0 else None,
            )


def _open(tmp: Path, engine: str, kind: str) -> KnowledgeBase:
    """A knowledge base on one engine: "edge", or "client" (the server code path)."""
    settings = make_settings(tmp / engine)
    if engine == "edge":
        return KnowledgeBase(settings, embeddings=_setup(kind))
    client = QdrantClient(path=str(tmp / engine / "server"))
    return KnowledgeBase(settings, client=client, embeddings=_setup(kind))


@pytest.fixture(scope="module", params=["sparse", "hybrid"])
def pair(request, tmp_path_factory) -> Iterator[tuple[str, KnowledgeBase, KnowledgeBase]]:
    """The same corpus in both engines, with sparse or hybrid embeddings."""
    tmp = tmp_path_factory.mktemp(f"engines-{request.param}")
    edge, client = _open(tmp, "edge", request.param), _open(tmp, "client", request.param)
    _ingest(edge)
    _ingest(client)
    yield request.param, edge, client
    edge.close()
    client.close()


QUERIES = [
    ("how do I get a refund", SearchFilters(tenant="default")),
    ("refund", SearchFilters(tenant="acme")),
    ("refund", SearchFilters(tenant="globex")),
    ("paid leave days", SearchFilters(tenant="acme", source_app="it")),
    ("licences", SearchFilters(tenant="acme", source_app="hr")),
    ("vpn client tickets", SearchFilters(tenant="acme", workspace="north")),
    ("leave training days", SearchFilters(tenant="acme", doc_ids=("acme-leave", "acme-vpn"))),
    ("warranty repair shipping", SearchFilters(tenant="default", sources=("support", "guides"))),
    ("password reset account", SearchFilters(tenant="default")),
    ("refund", SearchFilters(tenant="nobody")),
]


def _ranking(hits: list[ScoredChunk]) -> list[tuple[str, float]]:
    return [(h.chunk.chunk_id, h.score) for h in hits]


@pytest.mark.parametrize(("query", "filters"), QUERIES, ids=[q for q, _ in QUERIES])
def test_search_results_match(pair, query: str, filters: SearchFilters) -> None:
    _, edge, client = pair
    for k in (3, 8):
        want = client.search(query, k=k, filters=filters)
        got = edge.search(query, k=k, filters=filters)
        if filters.tenant == "nobody":
            assert want == got == []
            continue
        assert want, "every query should find something"
        assert_same_ranking(_ranking(want), _ranking(got))
        chunks = {h.chunk.chunk_id: h.chunk for h in want}
        # Same chunks, metadata included (langchain-qdrant's `_id` and
        # `_collection_name` bookkeeping is not document metadata).
        assert all(h.chunk == chunks[h.chunk.chunk_id] for h in got if h.chunk.chunk_id in chunks)


def test_rankings_are_identical(pair) -> None:
    kind, edge, client = pair
    compared = 0
    for query, filters in QUERIES[:-1]:
        want = client.search(query, k=10, filters=filters)
        got = edge.search(query, k=10, filters=filters)
        scores = [round(h.score, 5) for h in want]
        if len(set(scores)) != len(scores):
            continue  # equal scores may come in either order; see the test above
        compared += 1
        if kind == "sparse":
            assert [h.chunk for h in got] == [h.chunk for h in want], query
        else:
            assert {h.chunk.chunk_id for h in got} == {h.chunk.chunk_id for h in want}, query
    assert compared >= 3


def test_listings_match(pair) -> None:
    _, edge, client = pair
    for tenant in ("default", "acme", "globex", "nobody"):
        assert edge.count(tenant=tenant) == client.count(tenant=tenant)
        assert edge.list_documents(tenant=tenant) == client.list_documents(tenant=tenant)
    assert edge.count() == client.count() > 0
    for info in edge.list_documents(tenant="default"):
        assert edge.document_chunks(info.doc_id) == client.document_chunks(info.doc_id)


def test_engine_names(pair, tmp_path: Path) -> None:
    _, edge, client = pair
    assert (edge.engine_name, client.engine_name) == ("edge", "local")
    local = KnowledgeBase(
        make_settings(tmp_path, vector_engine="local"), embeddings=_setup("sparse")
    )
    assert local.engine_name == "local"
    local.close()


def test_tenants_are_isolated(tmp_path: Path) -> None:
    kb = KnowledgeBase(make_settings(tmp_path), embeddings=_setup("sparse"))
    _ingest(kb)
    acme = {d.doc_id for d in kb.list_documents(tenant="acme")}
    globex = {d.doc_id for d in kb.list_documents(tenant="globex")}
    assert acme == {"acme-vpn", "acme-leave", "acme-refund"}
    assert globex == {"globex-badges", "globex-refund"}
    hits = kb.search("badges security desk refunds", k=20, filters=SearchFilters(tenant="acme"))
    assert hits and {h.chunk.doc_id for h in hits} <= acme
    # The same document in two tenants is two sets of points.
    doc = SourceDocument(
        doc_id="shared", title="Shared", text="Shared handbook text.", source="s", path=None
    )
    kb.ingest_document(doc, tenant="acme")
    kb.ingest_document(doc, tenant="globex")
    assert kb.delete_document("shared", tenant="acme") == 1
    assert kb.document_chunks("shared", tenant="acme") == []
    assert [c.text for c in kb.document_chunks("shared", tenant="globex")] == [
        "Shared handbook text."
    ]
    kb.close()


def test_edge_store_reopens_from_disk(tmp_path: Path) -> None:
    settings = make_settings(tmp_path)
    kb = KnowledgeBase(settings, embeddings=_setup("hybrid"))
    _ingest(kb)
    before = [kb.search(q, k=5, filters=f) for q, f in QUERIES]
    documents = kb.list_documents()
    kb.close()
    assert (edge_shard_path(settings) / "edge_config.json").is_file()

    again = KnowledgeBase(settings, embeddings=_setup("hybrid"))
    assert again.list_documents() == documents
    for (query, filters), hits in zip(QUERIES, before, strict=True):
        after = again.search(query, k=5, filters=filters)
        assert_same_ranking(_ranking(hits), _ranking(after))
    # Unchanged files are still recognised after a restart.
    report = again.ingest_paths([SAMPLE])
    assert report.chunks_written == 0 and len(report.unchanged) == len(documents)
    again.close()


def test_edge_reads_run_while_ingesting(tmp_path: Path) -> None:
    kb = KnowledgeBase(make_settings(tmp_path), embeddings=_setup("sparse"))
    _ingest(kb)
    errors: list[BaseException] = []
    stop = threading.Event()

    def read() -> None:
        try:
            while not stop.is_set():
                kb.search("refund policy", k=5, filters=SearchFilters(tenant="default"))
                kb.count(tenant="acme")
        except BaseException as exc:  # noqa: BLE001 - reported below
            errors.append(exc)

    readers = [threading.Thread(target=read) for _ in range(2)]
    for thread in readers:
        thread.start()
    for round_ in range(20):
        text = f"# Changing\n\nRevision {round_} of a document that keeps changing."
        kb.ingest_document(
            SourceDocument(doc_id="changing", title="Changing", text=text, source="s", path=None)
        )
    stop.set()
    for thread in readers:
        thread.join()
    assert not errors
    assert len(kb.document_chunks("changing")) == 1
    kb.close()


def test_the_exact_search_size_comes_from_the_settings(tmp_path: Path) -> None:
    # THREADLINE_EXACT_SEARCH_POINTS_PER_RESULT reaches the embedded engine's dense searches,
    # and its default is the crossover the store was measured with.
    default = make_settings(tmp_path / "default")
    assert default.exact_search_points_per_result == DEFAULT_EXACT_SEARCH_POINTS_PER_RESULT
    settings = make_settings(tmp_path / "set", exact_search_points_per_result=7)
    kb = KnowledgeBase(settings, embeddings=_setup("hybrid"))
    try:
        store = kb._engine.store
        assert isinstance(store, EdgeVectorStore) and store.exact_search_points_per_result == 7
    finally:
        kb.close()


def test_a_server_on_the_local_engine_starts_and_serves_documents_turns_and_past_chats(
    tmp_path: Path,
) -> None:
    # The documents and the conversation index are two collections in one folder, and
    # the local mode locks its folder per client: the second client failed the start.
    import httpx

    from support.server import Server

    (tmp_path / "data").mkdir()
    server = Server(
        tmp_path / "data",
        THREADLINE_VECTOR_ENGINE="local",
        THREADLINE_EMBEDDINGS="sparse",
        THREADLINE_LLM="offline",
    )
    try:
        note = b"# Cold storage\n\nThe zebra-quartz procedure moves logs to cold storage.\n"
        files = {"file": ("zq.md", note, "text/markdown")}
        upload = httpx.post(f"{server.url}/documents", files=files, timeout=60)
        assert upload.status_code == 201, upload.text
        turn = server.chat(query="What does the zebra-quartz procedure do?")
        assert "cold storage" in turn["answer"]
        closed = httpx.post(f"{server.url}/sessions/{turn['session_id']}/close", timeout=60)
        assert closed.status_code == 200, closed.text
        deadline = time.monotonic() + 60
        found: list = []
        while not found and time.monotonic() < deadline:  # the worker indexes it
            search = httpx.get(f"{server.url}/conversations/search?q=zebra-quartz", timeout=60)
            assert search.status_code == 200, search.text
            found = search.json()["data"]
            time.sleep(0.3)
        assert [hit["session_id"] for hit in found] == [turn["session_id"]]
    finally:
        server.stop()


def test_an_index_written_without_the_position_index_gets_it_at_open(tmp_path: Path) -> None:
    """Listings pick each document's first chunk by `position`: indexed, also in an older shard."""
    settings = make_settings(tmp_path)
    kb = KnowledgeBase(settings, embeddings=_setup("sparse"))
    _ingest(kb)
    documents = kb.list_documents(tenant="acme")
    kb.close()
    older = EdgeVectorStore(
        edge_shard_path(settings),
        sparse_embedding=Bm25SparseEmbeddings(),
        metadata_payload_key="metadata",
    )
    older.shard.update(qe.UpdateOperation.delete_field_index("metadata.position"))
    assert "metadata.position" not in older.shard.info().payload_schema
    older.close()

    again = KnowledgeBase(settings, embeddings=_setup("sparse"))
    schema = again._engine.store.shard.info().payload_schema  # noqa: SLF001
    assert "metadata.position" in schema
    assert again.list_documents(tenant="acme") == documents
    again.close()
