"""The benchmark's dense-vector cache: the same vectors, computed once per model and side."""

from __future__ import annotations

import numpy as np
from langchain_core.embeddings import DeterministicFakeEmbedding

from benchmarks.embedding_cache import CachedEmbeddings


class CountingEmbedding(DeterministicFakeEmbedding):
    """Counts the texts the model itself embeds (queries and passages)."""

    computed: int = 0

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        self.computed += len(texts)
        return super().embed_documents(texts)

    def embed_query(self, text: str) -> list[float]:
        self.computed += 1
        return super().embed_query(text)


def test_vectors_are_computed_once_and_read_back_by_another_process(tmp_path) -> None:
    inner = CountingEmbedding(size=8)
    cache = CachedEmbeddings(inner, model="fake", path=tmp_path / "v.sqlite3")
    first = cache.embed_documents(["a", "b", "a"])
    assert inner.computed == 2 and first[0] == first[2]
    assert cache.embed_documents(["b", "a"]) == [first[1], first[0]]
    # Vectors are kept as float32; the query side is its own key.
    assert np.allclose(cache.embed_query("a"), inner.embed_query("a"), atol=1e-6)
    cache.close()
    counted = inner.computed
    reopened = CachedEmbeddings(inner, model="fake", path=tmp_path / "v.sqlite3")
    assert reopened.embed_documents(["a", "b"]) == first[:2]
    assert np.allclose(reopened.embed_query_batch(["a"]), [inner.embed_query("a")], atol=1e-6)
    assert inner.computed == counted + 1  # the direct call above; nothing for the cache
    other = CachedEmbeddings(inner, model="other", path=tmp_path / "v.sqlite3")
    other.embed_documents(["a"])
    assert inner.computed == counted + 2  # another model is another key
