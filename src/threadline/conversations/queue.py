"""Which sessions need (re)indexing: derived from the store and the index, never kept.

A session is due when the index does not hold its current version and it is either
closed or has been idle for the idle period. Because both sides are read each time,
the queue survives a restart: whatever was due before is due again after.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from threadline.conversations.index import ConversationIndex, SessionKey
from threadline.store.base import ConversationStoreProtocol
from threadline.store.models import SessionSummary


@dataclass(frozen=True)
class QueueState:
    """The sessions to index (oldest change first) and the indexed ones that are gone."""

    due: list[SessionSummary]
    waiting: int
    deleted: list[SessionKey]


def key_of(summary: SessionSummary) -> SessionKey:
    """Return the index key of a stored session."""
    return (summary.tenant, summary.caller_app, summary.id)


def _indexed_at(version: str | None) -> datetime | None:
    if not version:
        return None
    try:
        return datetime.fromisoformat(version)
    except ValueError:
        return None


def read_queue(
    store: ConversationStoreProtocol,
    index: ConversationIndex,
    *,
    now: datetime,
    idle: timedelta,
    force: bool = False,
) -> QueueState:
    """Compare the store with the index.

    Args:
        store: The conversation store.
        index: The conversation index.
        now: The current time (injected, so tests need no sleep).
        idle: How long a session must be unchanged before it is indexed.
        force: Treat every changed session as due, idle or not (``--all``).

    Returns:
        Due sessions, how many changed ones still wait for their idle period, and the
        indexed sessions the store no longer has.
    """
    summaries = store.scan_sessions()
    versions = index.indexed_versions()
    due: list[SessionSummary] = []
    waiting = 0
    for summary in summaries:
        indexed = _indexed_at(versions.get(key_of(summary)))
        if indexed is not None and indexed >= summary.updated_at:
            continue
        if summary.message_count == 0 and indexed is None:
            continue  # nothing to index yet
        if force or summary.closed_at is not None or now - summary.updated_at >= idle:
            due.append(summary)
        else:
            waiting += 1
    due.sort(key=lambda s: (s.updated_at, s.id))
    present = {key_of(s) for s in summaries}
    deleted = [key for key in versions if key not in present]
    return QueueState(due=due, waiting=waiting, deleted=deleted)
