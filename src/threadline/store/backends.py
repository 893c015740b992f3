"""Open a conversation store from one string.

``open_store`` takes a data directory or a ``postgresql://`` URL: worker processes
(benchmarks, tests) receive this string, so one writer function serves both backends.
Either store is closed with ``close_store`` (a PostgreSQL one owns its pool).
"""

from __future__ import annotations

from pathlib import Path

from threadline.store.base import ConversationStoreProtocol


def is_database_url(target: str) -> bool:
    """Whether ``target`` names a PostgreSQL database rather than a directory."""
    return target.startswith(("postgresql://", "postgres://"))


def open_store(target: str, *, lock_timeout: float = 10.0) -> ConversationStoreProtocol:
    """Return the JSON-file store under a directory, or a PostgreSQL store with its own pool.

    Args:
        target: The JSON store's root directory, or a ``postgresql://`` URL.
        lock_timeout: Seconds a write waits for its session's lock.

    Returns:
        The store; a PostgreSQL one should be closed (``close()``) when done.
    """
    if is_database_url(target):
        from threadline.store.postgres import PostgresStore

        return PostgresStore.connect(target, lock_timeout=lock_timeout)
    from threadline.store.json_store import ConversationStore

    return ConversationStore(Path(target), lock_timeout=lock_timeout)


def close_store(store: object) -> None:
    """Release what the store holds (a PostgreSQL pool); a JSON store holds nothing."""
    close = getattr(store, "close", None)
    if callable(close):
        close()
