"""Forks and closing: the rules both store backends apply to a session's lineage.

A fork copies the first messages of a session into a new one that points back at
it: ``parent_session_id`` is the session forked from, ``root_session_id`` the first
session of the chain (the parent's root, or the parent itself). Closing marks a
session done, which queues it for conversation indexing without waiting for it to
go idle; it does not change ``updated_at``, which says when its content changed.
"""

from __future__ import annotations

from threadline.store.models import Session
from threadline.store.rules import utcnow


def forked_session(source: Session, new_id: str, at_message: int | None) -> Session:
    """Return the session a fork of ``source`` creates (not yet stored).

    Args:
        source: The session forked from.
        new_id: The new session's id.
        at_message: Keep the messages before this index (0-based); ``None`` keeps all.

    Returns:
        A session created now, with the kept messages, the source's title and its lineage.

    Raises:
        ValueError: If ``at_message`` is negative or past the end of the session.
    """
    count = len(source.messages)
    if at_message is not None and not 0 <= at_message <= count:
        raise ValueError(f"at_message must be between 0 and {count}, got {at_message}")
    kept = source.messages if at_message is None else source.messages[:at_message]
    now = utcnow()
    return Session(
        id=new_id,
        tenant=source.tenant,
        caller_app=source.caller_app,
        title=source.title,
        created_at=now,
        updated_at=now,
        messages=[m.model_copy(deep=True) for m in kept],
        parent_session_id=source.id,
        root_session_id=source.root_session_id or source.id,
    )
