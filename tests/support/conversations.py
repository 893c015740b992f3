"""Helpers for the conversation index tests: counted embeddings, sessions with turns."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from langchain_qdrant import SparseEmbeddings, SparseVector

from threadline.knowledge.embeddings import EmbeddingSetup
from threadline.knowledge.sparse import Bm25SparseEmbeddings
from threadline.store.models import TurnMetadata


class CountingSparse(SparseEmbeddings):
    """The real BM25 embeddings, counting the texts they embed for documents."""

    def __init__(self) -> None:
        self.inner = Bm25SparseEmbeddings()
        self.embedded: list[str] = []

    def embed_documents(self, texts: list[str]) -> list[SparseVector]:
        self.embedded.extend(texts)
        return self.inner.embed_documents(texts)

    def embed_query(self, text: str) -> SparseVector:
        return self.inner.embed_query(text)


def counting_setup() -> tuple[EmbeddingSetup, CountingSparse]:
    """A sparse embedding setup whose document embeddings are counted."""
    sparse = CountingSparse()
    return EmbeddingSetup(None, sparse, None, "sparse"), sparse


def add_turns(
    store, tenant: str, caller_app: str, session_id: str, turns: list[tuple[str, str]], **meta
) -> None:
    """Store question/answer turns in a session (created when missing)."""
    for question, answer in turns:
        store.add_turn(
            tenant=tenant,
            caller_app=caller_app,
            session_id=session_id,
            question=question,
            answer=answer,
            metadata=TurnMetadata(**meta),
            create=True,
        )


class FakeClock:
    """A clock tests move forward instead of sleeping."""

    def __init__(self, start: datetime | None = None) -> None:
        self.now = start or datetime.now(UTC)

    def __call__(self) -> datetime:
        return self.now

    def advance(self, **delta: float) -> None:
        self.now += timedelta(**delta)
