"""Search past conversations and return each hit inside a window of its neighbours.

The index finds the best exchanges; the windows come from the store, so they show
the session as it is now. For each hit the ``before`` exchanges before it and the
``after`` after it are taken from the same session; windows of one session that
overlap or touch are merged into one, keeping every hit marked. Windows are ordered
by their best hit.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime

from threadline.conversations.chunks import Exchange, exchanges
from threadline.conversations.index import ConversationHit, ConversationIndex, SessionKey
from threadline.store.base import ConversationStoreProtocol
from threadline.store.models import Session


@dataclass(frozen=True)
class WindowExchange:
    """One exchange of a window."""

    sequence_order: int
    message_index: int
    question: str | None
    answer: str | None
    timestamp: datetime
    hit: bool
    score: float | None = None


@dataclass
class ConversationWindow:
    """Consecutive exchanges of one session around one or more hits."""

    session_id: str
    caller_app: str
    title: str | None
    created_at: datetime
    updated_at: datetime
    parent_session_id: str | None
    root_session_id: str | None
    score: float
    exchanges: list[WindowExchange] = field(default_factory=list)

    @property
    def hits(self) -> list[int]:
        """Sequence orders of the hits in this window."""
        return [e.sequence_order for e in self.exchanges if e.hit]


@dataclass
class SearchPage:
    """One page of windows, and whether another page follows."""

    windows: list[ConversationWindow]
    more: bool


def merge_spans(
    hits: Sequence[tuple[int, float]], *, before: int, after: int, last: int
) -> list[tuple[int, int, dict[int, float]]]:
    """Merge the windows of one session's hits.

    Args:
        hits: (sequence order, score) of each hit.
        before: Exchanges kept before a hit.
        after: Exchanges kept after a hit.
        last: The session's last sequence order.

    Returns:
        (first, last, {hit order: score}) per merged window, in session order;
        windows that overlap or touch become one.
    """
    spans = sorted(
        (max(0, order - before), min(last, order + after), order, score)
        for order, score in hits
        if 0 <= order <= last
    )
    merged: list[tuple[int, int, dict[int, float]]] = []
    for lo, hi, order, score in spans:
        if merged and lo <= merged[-1][1] + 1:
            first, end, marked = merged[-1]
            marked[order] = max(score, marked.get(order, score))
            merged[-1] = (first, max(end, hi), marked)
        else:
            merged.append((lo, hi, {order: score}))
    return merged


def _window_exchange(pair: Exchange, marked: dict[int, float]) -> WindowExchange:
    asked = pair.question or pair.answer
    assert asked is not None
    return WindowExchange(
        sequence_order=pair.order,
        message_index=pair.message_index,
        question=pair.question.content if pair.question is not None else None,
        answer=pair.answer.content if pair.answer is not None else None,
        timestamp=asked.created_at,
        hit=pair.order in marked,
        score=marked.get(pair.order),
    )


def windows_for(
    session: Session, hits: Sequence[tuple[int, float]], *, before: int, after: int
) -> list[ConversationWindow]:
    """Return the merged windows of one session around its hits.

    Args:
        session: The session as stored now.
        hits: (sequence order, score) of its hits.
        before: Exchanges kept before each hit.
        after: Exchanges kept after each hit.

    Returns:
        One window per merged span, each scored by its best hit.
    """
    pairs = exchanges(session)
    found: list[ConversationWindow] = []
    for lo, hi, marked in merge_spans(hits, before=before, after=after, last=len(pairs) - 1):
        found.append(
            ConversationWindow(
                session_id=session.id,
                caller_app=session.caller_app,
                title=session.title,
                created_at=session.created_at,
                updated_at=session.updated_at,
                parent_session_id=session.parent_session_id,
                root_session_id=session.root_session_id,
                score=max(marked.values()),
                exchanges=[_window_exchange(p, marked) for p in pairs[lo : hi + 1]],
            )
        )
    return found


def search_windows(
    store: ConversationStoreProtocol,
    index: ConversationIndex,
    *,
    query: str,
    tenant: str,
    caller_app: str | None,
    k: int = 5,
    before: int = 2,
    after: int = 1,
    offset: int = 0,
) -> SearchPage:
    """Search one tenant's (and caller app's) conversations; hits come in their windows.

    Args:
        store: The conversation store (windows are read from it).
        index: The conversation index.
        query: What to look for.
        tenant: The caller's tenant.
        caller_app: The caller app whose conversations are searched.
        k: How many exchanges (hits) this page holds.
        before: Exchanges shown before each hit.
        after: Exchanges shown after each hit.
        offset: Hits of earlier pages, skipped.

    Returns:
        The windows, best first, and whether more hits follow this page.
    """
    # Equal scores come back in an arbitrary order, and which of them makes a cut-off
    # too: a margin past the page and a stable sort keep pages from overlapping.
    fetch = offset + k + max(k // 2, 5)
    found = index.search(query, tenant=tenant, caller_app=caller_app, k=fetch)
    found.sort(key=lambda h: (-h.score, h.payload["session_id"], h.payload["sequence_order"]))
    page = found[offset : offset + k]
    by_session: dict[SessionKey, list[ConversationHit]] = {}
    for hit in page:
        by_session.setdefault(hit.key, []).append(hit)
    windows: list[ConversationWindow] = []
    for key, hits in by_session.items():
        session = store.get_session(tenant=key[0], caller_app=key[1], session_id=key[2])
        if session is None:
            continue  # deleted since it was indexed; the worker removes its chunks
        orders = [(int(h.payload["sequence_order"]), h.score) for h in hits]
        windows.extend(windows_for(session, orders, before=before, after=after))
    windows.sort(key=lambda w: -w.score)
    return SearchPage(windows=windows, more=len(found) > offset + k)
