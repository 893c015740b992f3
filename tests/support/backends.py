"""The two store backends behind one small interface, so one suite tests both.

A backend opens store instances over the same data (``open``), names that data in a
string worker processes can reopen (``target``), says whether anything was written
(``is_empty``) and can hold a session's write lock from outside, the way another
writer would (``hold_lock``).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from filelock import FileLock

from threadline.store import ConversationStore
from threadline.store.backends import close_store, open_store


class JsonBackend:
    """JSON files under one directory."""

    name = "json"

    def __init__(self, root: Path) -> None:
        self.root = root
        self.target = str(root)

    def open(self, lock_timeout: float = 5.0) -> ConversationStore:
        return ConversationStore(self.root, lock_timeout=lock_timeout)

    def is_empty(self) -> bool:
        return not self.root.exists()

    @contextmanager
    def hold_lock(self, tenant: str, caller_app: str, session_id: str) -> Iterator[None]:
        with FileLock(self.root / tenant / caller_app / f"{session_id}.json.lock", timeout=5):
            yield

    def close(self) -> None:
        pass


class PostgresBackend:
    """One PostgreSQL database; every store opened here is closed at the end."""

    name = "postgres"

    def __init__(self, url: str) -> None:
        self.url = url
        self.target = url
        self._opened: list[object] = []

    def open(self, lock_timeout: float = 5.0):
        store = open_store(self.url, lock_timeout=lock_timeout)
        self._opened.append(store)
        return store

    def rows(self, table: str) -> int:
        import psycopg

        with psycopg.connect(self.url) as conn:
            return conn.execute(f"SELECT count(*) FROM {table}").fetchone()[0]

    def is_empty(self) -> bool:
        return self.rows("sessions") == 0 and self.rows("messages") == 0

    @contextmanager
    def hold_lock(self, tenant: str, caller_app: str, session_id: str) -> Iterator[None]:
        """Another connection holds the session row locked (as a delete in progress does)."""
        import psycopg

        with psycopg.connect(self.url) as conn:
            found = conn.execute(
                "SELECT 1 FROM sessions WHERE tenant_id = %s AND caller_app = %s "
                "AND session_id = %s FOR UPDATE",
                (tenant, caller_app, session_id),
            ).fetchone()
            assert found is not None, "lock a session that exists"
            yield
            conn.rollback()

    def close(self) -> None:
        for store in self._opened:
            close_store(store)
        self._opened.clear()
