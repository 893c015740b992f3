"""Past conversations as a source a chat turn may search, cited like documents.

Off by default: a turn searches past exchanges only when ``conversations`` is named
in its caller app's allowlist (``source_policy``; an app without a policy does not
get it) and in the request's ``sources``. It then sees the exchanges of its own
tenant and caller app, never of the conversation it is part of, as chunks whose
``doc_id`` is ``conversation:<session id>`` and whose ``section`` names the exchange,
so an answer's citation points at the session and the exchange. The answer rules do
not change: the passages are evidence like any other.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from threadline.conversations.chunks import (
    CONVERSATION_SOURCE,
    chunk_id_for,
    exchange_text,
    exchanges,
)
from threadline.conversations.index import ConversationHit, ConversationIndex
from threadline.knowledge.documents import Chunk
from threadline.knowledge.filters import SearchFilters
from threadline.knowledge.payloads import ScoredChunk
from threadline.store.base import ConversationStoreProtocol

DOC_PREFIX = "conversation:"
"""``doc_id`` prefix of a past exchange used as a passage."""


def conversations_requested(
    policy: Mapping[str, Sequence[str]], caller_app: str, requested: Sequence[str] | None
) -> bool:
    """Whether a turn searches past conversations.

    Args:
        policy: Allowlists by caller app (``"*"`` for the others).
        caller_app: The app making the request.
        requested: The sources the request names.

    Returns:
        True only when the app's allowlist and the request both name ``conversations``.
    """
    allow = policy.get(caller_app, policy.get("*"))
    return (
        allow is not None
        and CONVERSATION_SOURCE in allow
        and requested is not None
        and CONVERSATION_SOURCE in requested
    )


def hit_chunk(hit: ConversationHit) -> Chunk:
    """Return a past exchange as a passage (a chunk of the ``conversations`` source)."""
    p = hit.payload
    order = int(p["sequence_order"])
    return Chunk(
        chunk_id=p["chunk_id"],
        doc_id=f"{DOC_PREFIX}{p['session_id']}",
        title=p.get("title") or f"Conversation {p['session_id']}",
        section=f"Exchange {order + 1}",
        position=order,
        text=p.get("content", ""),
        source=CONVERSATION_SOURCE,
        metadata={
            "session_id": p["session_id"],
            "caller_app": p["caller_app"],
            "sequence_order": order,
            "message_index": p.get("message_index", 0),
            "timestamp": p.get("timestamp"),
            "parent_session_id": p.get("parent_session_id"),
            "root_session_id": p.get("root_session_id"),
        },
    )


class WithConversations:
    """A knowledge base that also searches the tenant's and app's past exchanges.

    It answers what the retriever asks of a knowledge base (``search``,
    ``search_many``, ``document_chunks``); anything else goes to the documents' one.

    Args:
        kb: The documents' knowledge base.
        index: The conversation index.
        store: The conversation store (whole sessions for context windows).
        tenant: The turn's tenant.
        caller_app: The turn's caller app.
        thread_id: The conversation the turn belongs to (never searched).
    """

    def __init__(
        self,
        kb: Any,
        index: ConversationIndex,
        store: ConversationStoreProtocol,
        *,
        tenant: str,
        caller_app: str,
        thread_id: str,
    ) -> None:
        self._kb = kb
        self._index = index
        self._store = store
        self._tenant = tenant
        self._caller_app = caller_app
        self._thread_id = thread_id

    # Past exchanges come whole from their own index: the retriever ranks with
    # `search_many` here, not with the documents' `rank_many` (which `__getattr__` would
    # hand over, leaving the exchanges out).
    rank_many = None
    hit_chunks = None

    def __getattr__(self, name: str) -> Any:
        """Whatever else the retriever reads (titles, language shares) is the documents'."""
        return getattr(self._kb, name)

    def _documents_wanted(self, filters: SearchFilters) -> bool:
        return filters.sources is None or any(s != CONVERSATION_SOURCE for s in filters.sources)

    def _past(self, query: str, k: int) -> list[ScoredChunk]:
        hits = self._index.search(query, tenant=self._tenant, caller_app=self._caller_app, k=k + 1)
        kept = [h for h in hits if h.payload["session_id"] != self._thread_id][:k]
        return [ScoredChunk(hit_chunk(h), h.score) for h in kept]

    @staticmethod
    def _merge(documents: list[ScoredChunk], past: list[ScoredChunk], k: int) -> list[ScoredChunk]:
        merged = sorted([*documents, *past], key=lambda c: (-c.score, c.chunk.chunk_id))
        return merged[:k]

    def search(self, query: str, *, k: int, filters: SearchFilters) -> list[ScoredChunk]:
        """Documents and past exchanges for one query, best score first."""
        documents = (
            self._kb.search(query, k=k, filters=filters) if self._documents_wanted(filters) else []
        )
        return self._merge(documents, self._past(query, k), k)

    def search_many(
        self, queries: list[str], *, k: int, filters: SearchFilters
    ) -> list[list[ScoredChunk]]:
        """``search`` for several queries (the documents' side in one batch)."""
        if self._documents_wanted(filters):
            documents = self._kb.search_many(queries, k=k, filters=filters)
        else:
            documents = [[] for _ in queries]
        return [
            self._merge(d, self._past(q, k), k) for q, d in zip(queries, documents, strict=True)
        ]

    def document_chunks(self, doc_id: str, *, tenant: str = "default") -> list[Chunk]:
        """Return a document's chunks; for a past conversation, its exchanges in order."""
        if not doc_id.startswith(DOC_PREFIX):
            return self._kb.document_chunks(doc_id, tenant=tenant)
        session = self._store.get_session(
            tenant=self._tenant, caller_app=self._caller_app, session_id=doc_id[len(DOC_PREFIX) :]
        )
        if session is None:
            return []
        return [
            Chunk(
                chunk_id=chunk_id_for(
                    session.tenant, session.caller_app, session.id, "message_exchange", pair.order
                ),
                doc_id=doc_id,
                title=session.title or f"Conversation {session.id}",
                section=f"Exchange {pair.order + 1}",
                position=pair.order,
                text=exchange_text(pair),
                source=CONVERSATION_SOURCE,
                metadata={
                    "session_id": session.id,
                    "sequence_order": pair.order,
                    "message_index": pair.message_index,
                },
            )
            for pair in exchanges(session)
        ]
