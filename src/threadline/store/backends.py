"""Open a conversation store: from the process settings, or from one string.

``configured_store`` is what commands use: the store the settings select, closed
when the block ends.
``open_store`` takes a data directory or a ``postgresql://`` URL: worker processes
(benchmarks, tests) receive this string, so one writer function serves both backends.
Either store is closed with ``close_store`` (a PostgreSQL one owns its pool).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

from threadline.store.base import ConversationStoreProtocol

if TYPE_CHECKING:
    from threadline.settings import Settings


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


def open_configured_store(settings: Settings) -> ConversationStoreProtocol:
    """Return the store the settings select, with a pool of its own for PostgreSQL.

    Args:
        settings: Process settings: PostgreSQL when ``database_url`` is set (its pool
            sized and timed out as configured), else the JSON files under
            ``sessions_dir``.

    Returns:
        The store; close it with ``close_store`` when done.

    Raises:
        SchemaVersionError: If the database's schema is not this code's version.
    """
    if settings.database_url is not None:
        from threadline.store.postgres import PostgresStore

        return PostgresStore.connect(
            settings.database_url.get_secret_value(),
            lock_timeout=settings.lock_timeout,
            max_size=settings.database_pool_size,
            statement_timeout=settings.database_statement_timeout,
        )
    from threadline.store.json_store import ConversationStore

    return ConversationStore(settings.sessions_dir, lock_timeout=settings.lock_timeout)


@contextmanager
def configured_store(settings: Settings) -> Iterator[ConversationStoreProtocol]:
    """``open_configured_store`` for one block, closed at its end.

    Args:
        settings: Process settings (see ``open_configured_store``).

    Yields:
        The store.
    """
    store = open_configured_store(settings)
    try:
        yield store
    finally:
        close_store(store)


def close_store(store: object) -> None:
    """Release what the store holds (a PostgreSQL pool); a JSON store holds nothing."""
    close = getattr(store, "close", None)
    if callable(close):
        close()
