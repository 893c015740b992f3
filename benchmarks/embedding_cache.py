"""A disk cache of dense vectors for benchmark runs (never used by the service).

A bake-off rebuilds the same index many times: once per model, then once per method
that changes the sparse side (analysis, lexicon) or the fusion, and the dense vectors
of the 1,488 MTRAG passages cost minutes per build on two cores. Those vectors depend
only on the model, the side (query or passage) and the text, so they are kept in a
SQLite file keyed by exactly that, and a later build reads them back.
"""

from __future__ import annotations

import hashlib
import sqlite3
import threading
from pathlib import Path

import numpy as np
from langchain_core.embeddings import Embeddings

from threadline.knowledge.embeddings import embed_queries


def _key(model: str, side: str, text: str) -> str:
    return hashlib.sha256(f"{model}\x00{side}\x00{text}".encode()).hexdigest()


class CachedEmbeddings(Embeddings):
    """Another model's vectors, computed once per (model, side, text) and kept on disk.

    Args:
        inner: The model that computes vectors on a cache miss.
        model: The model's identity (part of every key).
        path: The SQLite file.
    """

    def __init__(self, inner: Embeddings, *, model: str, path: Path) -> None:
        self.inner = inner
        self.model = model
        path.parent.mkdir(parents=True, exist_ok=True)
        self._db = sqlite3.connect(str(path), check_same_thread=False)
        self._db.execute("CREATE TABLE IF NOT EXISTS vectors (key TEXT PRIMARY KEY, v BLOB)")
        self._lock = threading.Lock()
        self.hits = 0
        self.misses = 0

    def _lookup(self, side: str, texts: list[str]) -> tuple[list[str], dict[str, np.ndarray]]:
        keys = [_key(self.model, side, t) for t in texts]
        found: dict[str, np.ndarray] = {}
        with self._lock:
            for start in range(0, len(keys), 500):
                part = keys[start : start + 500]
                marks = ",".join("?" * len(part))
                for key, blob in self._db.execute(
                    f"SELECT key, v FROM vectors WHERE key IN ({marks})", part
                ):
                    found[key] = np.frombuffer(blob, dtype=np.float32)
        return keys, found

    def _cached(self, side: str, texts: list[str]) -> list[list[float]]:
        keys, found = self._lookup(side, texts)
        missing = list(dict.fromkeys(t for t, k in zip(texts, keys, strict=True) if k not in found))
        self.hits += len(texts) - len(missing)
        self.misses += len(missing)
        if missing:
            if side == "passage":
                computed = self.inner.embed_documents(missing)
            else:
                computed = embed_queries(self.inner, missing)
            rows = []
            for text, vector in zip(missing, computed, strict=True):
                array = np.asarray(vector, dtype=np.float32)
                found[_key(self.model, side, text)] = array
                rows.append((_key(self.model, side, text), array.tobytes()))
            with self._lock:
                self._db.executemany("INSERT OR REPLACE INTO vectors VALUES (?, ?)", rows)
                self._db.commit()
        return [found[k].tolist() for k in keys]

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        """Passage vectors, from the cache or the model."""
        return self._cached("passage", list(texts)) if texts else []

    def embed_query(self, text: str) -> list[float]:
        """One query vector, from the cache or the model."""
        return self._cached("query", [text])[0]

    def embed_query_batch(self, texts: list[str]) -> list[list[float]]:
        """Query vectors, from the cache or the model (one model batch for the misses)."""
        return self._cached("query", list(texts)) if texts else []

    def close(self) -> None:
        """Close the SQLite file."""
        with self._lock:
            self._db.close()
