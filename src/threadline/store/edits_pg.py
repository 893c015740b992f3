"""The PostgreSQL store's edits of stored conversations (rules in ``edits.py``).

A mixin of ``PostgresStore``. An edit runs in one transaction holding the session
row (``FOR UPDATE``, bounded by ``lock_timeout`` as a title change is): the session
is loaded, the edit applied, then each message whose metadata changed is updated
by id and each new message inserted, so a reader sees the edit whole or not at all.
"""

from __future__ import annotations

from contextlib import AbstractContextManager
from typing import TYPE_CHECKING, Any, TypeVar

from psycopg.types.json import Jsonb

from threadline.store.errors import SessionExistsError, SessionNotFoundError, StoreError
from threadline.store.rules import utcnow

if TYPE_CHECKING:
    import psycopg

    from threadline.store.edits import SessionEdit
    from threadline.store.models import Message, Session

T = TypeVar("T")
_Key = tuple[str, str, str]
_KEY_WHERE = "tenant_id = %s AND caller_app = %s AND session_id = %s"


def _metadata_of(message: Message) -> str:
    return message.metadata.model_dump_json() if message.metadata is not None else ""


class PostgresSessionEdits:
    """Edits of whole sessions for ``PostgresStore`` (which provides the helpers below)."""

    if TYPE_CHECKING:

        def _connection(
            self, key: _Key | None = None
        ) -> AbstractContextManager[psycopg.Connection[Any]]: ...

        @staticmethod
        def _key(tenant: str, caller_app: str, session_id: str) -> _Key: ...

        @staticmethod
        def _header(conn: psycopg.Connection[Any], key: _Key, *, lock: bool = False) -> Any: ...

        @staticmethod
        def _load(conn: psycopg.Connection[Any], key: _Key) -> Session | None: ...

        @staticmethod
        def _insert(
            conn: psycopg.Connection[Any],
            key: _Key,
            messages: list[Message],
            create: tuple[str | None, Any] | None = None,
            *,
            new_turn: bool = False,
            name: str | None = None,
        ) -> bool: ...

    def edit_session(
        self,
        *,
        tenant: str,
        caller_app: str,
        session_id: str,
        edit: SessionEdit[T],
        touch: bool = False,
    ) -> T:
        """Apply ``edit`` in one transaction holding the session row (see the JSON store's).

        Raises:
            InvalidIdError: If an id is invalid.
            SessionNotFoundError: If the session does not exist.
            CorruptSessionError: If a stored row does not match the schema.
            StoreBusyError: If the row lock or a connection could not be had in time.
        """
        key = self._key(tenant, caller_app, session_id)
        with self._connection(key) as conn, conn.transaction():
            if self._header(conn, key, lock=True) is None:
                raise SessionNotFoundError(*key)
            session = self._load(conn, key)
            if session is None:  # pragma: no cover - the row is locked
                raise SessionNotFoundError(*key)
            before = {m.id: _metadata_of(m) for m in session.messages}
            result = edit(session)
            added = [m for m in session.messages if m.id not in before]
            for message in session.messages:
                if message.id in before and _metadata_of(message) != before[message.id]:
                    assert message.metadata is not None  # only answers are edited
                    conn.execute(
                        f"UPDATE messages SET metadata = %s WHERE {_KEY_WHERE} AND id = %s",
                        (Jsonb(message.metadata.model_dump(mode="json")), *key, message.id),
                    )
            if added and not self._insert(conn, key, added):
                raise StoreError(f"{key!r}: an added message's turn id is already stored")
            if touch:
                conn.execute(
                    f"UPDATE sessions SET updated_at = greatest(updated_at, %s) WHERE {_KEY_WHERE}",
                    (utcnow(), *key),
                )
        return result

    def import_session(self, *, session: Session) -> Session:
        """Store a whole session under a new id in one transaction (see the JSON store's).

        Raises:
            InvalidIdError: If an id is invalid.
            SessionExistsError: If the id is taken (nothing is written).
            StoreError: If two messages share a turn id and role (nothing is written).
        """
        key = self._key(session.tenant, session.caller_app, session.id)
        with self._connection(key) as conn, conn.transaction():
            created = conn.execute(
                "INSERT INTO sessions (tenant_id, caller_app, session_id, title, created_at, "
                "updated_at) VALUES (%s, %s, %s, %s, %s, %s) ON CONFLICT DO NOTHING "
                "RETURNING session_id",
                (*key, session.title, session.created_at, session.updated_at),
            ).fetchone()
            if created is None:
                raise SessionExistsError(*key)
            if session.messages and not self._insert(conn, key, list(session.messages)):
                raise StoreError(f"{key!r}: two imported messages share a turn id and role")
        return session
