"""`ingest_paths` embeds coming documents in the background: the same vectors, no waste."""

from __future__ import annotations

import threading
from pathlib import Path

import numpy as np
import pytest

from support.paths import SAMPLE
from support.services import make_settings
from threadline.knowledge.embeddings import load_dense_model
from threadline.knowledge.filters import SearchFilters
from threadline.knowledge.index import KnowledgeBase
from threadline.knowledge.prefetch import PrefetchingEmbeddings

pytestmark = pytest.mark.dense

DOCUMENT_A = ["Refunds are paid within 14 days of the return.", "The warranty lasts two years."]
DOCUMENT_B = ["P1 incidents get a first response within 15 minutes, 24/7."]


class CountingModel:
    """The real model, recording which texts it embedded and on which thread."""

    def __init__(self, inner) -> None:
        self.inner = inner
        self.calls: list[tuple[list[str], str]] = []

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        self.calls.append((list(texts), threading.current_thread().name))
        return self.inner.embed_documents(texts)

    def embed_query(self, text: str) -> list[float]:
        return self.inner.embed_query(text)


@pytest.mark.parametrize("runtime", ["onnx", "onnx-int8"])
def test_prefetched_vectors_are_the_ones_a_direct_call_makes(runtime: str) -> None:
    model = load_dense_model(runtime=runtime)
    counting = CountingModel(model)
    prefetching = PrefetchingEmbeddings(counting)  # type: ignore[arg-type]
    try:
        prefetching.prefetch(DOCUMENT_A)
        prefetching.prefetch(DOCUMENT_B)
        # Collected in another order, mixed with a text nobody prefetched.
        got = prefetching.embed_documents([DOCUMENT_B[0], "not prefetched", *DOCUMENT_A])
    finally:
        prefetching.close()
    want = [*model.embed_documents(DOCUMENT_B), *model.embed_documents(["not prefetched"])]
    want += model.embed_documents(DOCUMENT_A)
    # Each prefetch is the call the engine would have made: even the 8-bit model, whose
    # vectors depend on the batch, gives exactly the same ones.
    assert np.array_equal(np.array(got), np.array(want))
    threads = {tuple(texts): thread for texts, thread in counting.calls}
    assert threads[tuple(DOCUMENT_A)].startswith("embed-ahead")
    assert threads[tuple(DOCUMENT_B)].startswith("embed-ahead")
    assert threads[("not prefetched",)] == threading.current_thread().name


def test_a_discarded_prefetch_is_computed_again() -> None:
    counting = CountingModel(load_dense_model())
    prefetching = PrefetchingEmbeddings(counting)  # type: ignore[arg-type]
    try:
        prefetching.prefetch(DOCUMENT_B)
        prefetching.discard(DOCUMENT_B)
        prefetching.embed_documents(DOCUMENT_B)
    finally:
        prefetching.close()
    assert len(counting.calls) == 2  # the discarded one was not collected


def _search(kb: KnowledgeBase, questions: list[str]) -> list[list[tuple[str, float]]]:
    filters = SearchFilters(tenant="default")
    return [
        [(hit.chunk.chunk_id, hit.score) for hit in kb.search(q, filters=filters, k=5)]
        for q in questions
    ]


def test_ingest_paths_reads_ahead_with_the_same_index_and_no_wasted_embedding(
    tmp_path: Path,
) -> None:
    questions = ["How do I get my money back?", "How fast is a P1 incident answered?"]
    ahead = KnowledgeBase(make_settings(tmp_path / "ahead", embeddings="hybrid"))
    try:
        assert isinstance(ahead._prefetch, PrefetchingEmbeddings)
        counting = CountingModel(ahead._prefetch.inner)
        ahead._prefetch.inner = counting  # type: ignore[assignment]
        report = ahead.ingest_paths([SAMPLE / "support"])
        assert not report.errors and report.chunks_written > 3
        embedded = [text for texts, _ in counting.calls for text in texts]
        # Every chunk embedded once, all of them by the background thread.
        assert len(embedded) == report.chunks_written == len(set(embedded))
        assert {thread.split("_")[0] for _, thread in counting.calls} == {"embed-ahead"}
        assert not ahead._prefetch._pending  # nothing left behind
        found_ahead = _search(ahead, questions)

        counting.calls.clear()
        again = ahead.ingest_paths([SAMPLE / "support"])  # unchanged: nothing to embed
        assert again.unchanged and not again.chunks_written and not counting.calls
    finally:
        ahead.close()

    one_by_one = KnowledgeBase(make_settings(tmp_path / "one-by-one", embeddings="hybrid"))
    try:
        from threadline.knowledge.documents import iter_files, load_document

        for file, root in iter_files([SAMPLE / "support"]):
            one_by_one.ingest_document(load_document(file, root=root))
        assert _search(one_by_one, questions) == found_ahead  # the same vectors, exactly
    finally:
        one_by_one.close()
