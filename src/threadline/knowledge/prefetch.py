"""Passage vectors computed ahead, on a thread of their own, while ingestion writes.

Hybrid ingestion spends most of its CPU in the dense model, and the rest (BM25
vectors, payloads, the engine's writes, the journal's fsyncs) runs in Python on the
ingesting thread, one after the other. `PrefetchingEmbeddings` lets `ingest_paths`
hand a coming document's chunk texts to a background thread, whose model call runs
in ONNX Runtime without the GIL, while the ingesting thread writes the document
before it; when the engine later asks for those texts' vectors, they are ready.

`ingest_paths` prefetches each document's texts in the call the engine would make
(one document, 1.9 chunks for an MTRAG passage), so the vectors are the ones a write
without prefetching makes: the 8-bit model quantises its activations per call, and
another grouping would move them a little. Grouping 16 chunks of consecutive documents
in one call was measured and dropped: 7.5-8.3 chunks per CPU-second through
`ingest_paths` against 9.8-10.3 one document a call (full precision, load 13-15).
Texts nobody prefetched are embedded on the caller's thread, as before.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from concurrent.futures import Future, ThreadPoolExecutor

from langchain_core.embeddings import Embeddings

from threadline.knowledge.embeddings import embed_queries


class PrefetchingEmbeddings(Embeddings):
    """A dense model whose passage vectors can be asked for before they are needed.

    Args:
        inner: The model that computes the vectors.
    """

    def __init__(self, inner: Embeddings) -> None:
        self.inner = inner
        self._lock = threading.Lock()
        # text → (the call computing it, its row in that call's result)
        self._pending: dict[str, tuple[Future[list[list[float]]], int]] = {}
        self._executor: ThreadPoolExecutor | None = None

    def prefetch(self, texts: Sequence[str]) -> None:
        """Start embedding `texts` (one call, in the background); `embed_documents` collects."""
        if not texts:
            return
        batch = list(texts)
        with self._lock:
            if self._executor is None:
                # One worker: the model's own intra-op threads use the cores; a second
                # call beside it would only share them.
                self._executor = ThreadPoolExecutor(1, thread_name_prefix="embed-ahead")
            future = self._executor.submit(self.inner.embed_documents, batch)
            for row, text in enumerate(batch):
                self._pending[text] = (future, row)

    def discard(self, texts: Sequence[str]) -> None:
        """Forget prefetched texts nobody collected (a document that failed or was skipped)."""
        with self._lock:
            for text in texts:
                self._pending.pop(text, None)

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        """Vectors for passages: the prefetched ones collected, the others computed here."""
        with self._lock:
            taken = [self._pending.pop(text, None) for text in texts]
        missing = [i for i, entry in enumerate(taken) if entry is None]
        computed = self.inner.embed_documents([texts[i] for i in missing]) if missing else []
        vectors: list[list[float]] = [[] for _ in texts]
        for i, vector in zip(missing, computed, strict=True):
            vectors[i] = vector
        for i, entry in enumerate(taken):
            if entry is not None:
                future, row = entry
                vectors[i] = future.result()[row]
        return vectors

    def embed_query(self, text: str) -> list[float]:
        """Return the inner model's query vector."""
        return self.inner.embed_query(text)

    def embed_query_batch(self, texts: list[str]) -> list[list[float]]:
        """Return the inner model's query vectors (one batch when it offers one)."""
        return embed_queries(self.inner, texts)

    def close(self) -> None:
        """Stop the background thread (after the call it is running)."""
        with self._lock:
            executor, self._executor = self._executor, None
            self._pending.clear()
        if executor is not None:
            executor.shutdown(wait=True, cancel_futures=True)

    def __repr__(self) -> str:
        """Name the model it wraps."""
        return f"PrefetchingEmbeddings({self.inner!r})"
