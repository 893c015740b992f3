"""PostgreSQL backend of the conversation store (``THREADLINE_DATABASE_URL``).

The same ``ConversationStoreProtocol``, ids and errors as the JSON-file store, on
the tables of ``pg_schema.py``. psycopg 3 with one ``psycopg_pool.ConnectionPool``
per process; connections in autocommit with ``dict_row``; a write that needs more
than one statement runs in ``conn.transaction()``.

Appends take no session-wide lock. A turn is one read (does the session exist, is
this turn id stored already) and one statement that writes: the session on a
thread's first turn and both messages, so one transaction. The messages share one
number from a sequence (``pos`` orders them), so a writer's later append always
sorts after its earlier ones and concurrent turns never interleave; writers of
one session commit side by side, so PostgreSQL's group commit shares one WAL flush
among them (a row lock held to the commit would serialise them on the flush). A
unique index on ``(session, turn_id, role)`` makes a retried turn conflict rather
than double; the loser reads and returns what is stored. ``thread_state`` is a
view over the stored answers, and a session's ``updated_at`` and message count are
read from its messages, so nothing is updated per turn.

A session row is locked only by a delete, a title change (``FOR NO KEY UPDATE``,
which does not block appends) or a repair; ``lock_timeout`` bounds the wait for it,
as the JSON store's file lock. ``statement_timeout`` bounds every statement; a lock
or statement timeout, a pool with no connection to give in time, and a lost server
raise ``StoreBusyError`` (a retryable 503 in the API). The pool checks a connection
before lending it, so the store reconnects by itself after a server restart.

Over 400 lines because it implements the whole protocol in one class, each method
one or two SQL statements with its docstring; the helpers it shares with the JSON
store are in ``ids.py``, ``rules.py`` and ``langchain_messages.py``.
"""

from __future__ import annotations

import logging
import select
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

import psycopg
from psycopg.rows import dict_row
from psycopg.types.json import Jsonb
from psycopg_pool import ConnectionPool, PoolTimeout
from pydantic import ValidationError

from threadline.store.edits_pg import PostgresSessionEdits
from threadline.store.errors import (
    CorruptSessionError,
    SessionExistsError,
    SessionNotFoundError,
    StoreBusyError,
    StoreError,
)
from threadline.store.ids import new_message_id, new_session_id, new_turn_id, validate_id
from threadline.store.langchain_messages import to_langchain_messages
from threadline.store.lineage import forked_session
from threadline.store.models import (
    Message,
    Role,
    Session,
    SessionCheck,
    SessionSummary,
    ThreadState,
    TurnMetadata,
)
from threadline.store.pg_schema import check_schema
from threadline.store.rules import (
    check_limit,
    check_role,
    describe_error,
    new_session,
    title_from_question,
    utcnow,
)

if TYPE_CHECKING:
    from langchain_core.messages import BaseMessage

_LOGGER = logging.getLogger(__name__)
_Key = tuple[str, str, str]

_KEY_WHERE = "tenant_id = %s AND caller_app = %s AND session_id = %s"
_MESSAGE_COLUMNS = "id, role, content, created_at, turn_id, metadata"


def open_pool(
    url: str,
    *,
    min_size: int = 1,
    max_size: int = 10,
    statement_timeout: float = 30.0,
    lock_timeout: float = 10.0,
    pool_timeout: float = 10.0,
) -> ConnectionPool:
    """Open a connection pool configured the way the store needs it.

    Args:
        url: A ``postgresql://`` URL.
        min_size: Connections kept open.
        max_size: Most connections at once.
        statement_timeout: Seconds any statement may run before the server cancels it.
        lock_timeout: Seconds a write waits for its session's row lock.
        pool_timeout: Seconds a caller waits for a free (or new) connection.

    Returns:
        The open pool (it keeps trying to connect in the background).
    """
    options = (
        f"-c statement_timeout={int(statement_timeout * 1000)} "
        f"-c lock_timeout={int(lock_timeout * 1000)} -c timezone=UTC"
    )
    return ConnectionPool(
        url,
        min_size=min_size,
        max_size=max_size,
        kwargs={"autocommit": True, "row_factory": dict_row, "options": options},
        check=_check_idle_connection,
        timeout=pool_timeout,
        open=True,
        name="threadline",
    )


def _check_idle_connection(conn: psycopg.Connection[Any]) -> None:
    """Find a connection the server closed before lending it, without a round trip.

    An idle connection has nothing to read: if its socket is readable, the server
    sent something (a restart's "terminating connection") or closed it, and only
    then does the pool's own check (one round trip) decide. A raised error makes the
    pool discard the connection and hand out a fresh one.
    """
    readable, _, _ = select.select([conn.fileno()], [], [], 0)
    if readable:
        ConnectionPool.check_connection(conn)


def _where(key: _Key) -> str:
    return f"postgresql:{key[0]}/{key[1]}/{key[2]}"


def _row_path(key: _Key) -> Path:
    """Return what errors name instead of a file: the row's key, shaped like the JSON path."""
    return Path("postgresql") / key[0] / key[1] / key[2]


def _message(row: dict[str, Any]) -> Message:
    return Message(
        id=row["id"],
        role=row["role"],
        content=row["content"],
        created_at=row["created_at"],
        turn_id=row["turn_id"],
        metadata=row["metadata"],
    )


def _metadata_json(metadata: TurnMetadata | None) -> Jsonb | None:
    return None if metadata is None else Jsonb(metadata.model_dump(mode="json"))


# A new, empty session; the RETURNING row tells whether this call created it.
_CREATE_SESSION = (
    "INSERT INTO sessions (tenant_id, caller_app, session_id, title, created_at, updated_at) "
    "VALUES (%s, %s, %s, %s, %s, %s) ON CONFLICT DO NOTHING RETURNING session_id"
)


class PostgresStore(PostgresSessionEdits):
    """Conversation store on PostgreSQL; same contract as ``ConversationStore``."""

    def __init__(
        self, pool: ConnectionPool, *, lock_timeout: float = 10.0, owns_pool: bool = False
    ) -> None:
        """Use a pool opened with ``open_pool``; checks the schema version first.

        Args:
            pool: The process's pool.
            lock_timeout: Reported in ``StoreBusyError`` (the pool's connections
                carry the actual ``lock_timeout``).
            owns_pool: Close the pool in ``close()``.

        Raises:
            SchemaVersionError: If the database is not at this code's schema version.
            StoreBusyError: If no connection could be had.
        """
        self.pool = pool
        self.lock_timeout = lock_timeout
        self._owns_pool = owns_pool
        with self._connection() as conn:
            check_schema(conn)

    @classmethod
    def connect(
        cls,
        url: str,
        *,
        lock_timeout: float = 10.0,
        max_size: int = 4,
        statement_timeout: float = 30.0,
    ) -> PostgresStore:
        """Open a store with its own small pool (worker processes, the CLI, tests)."""
        pool = open_pool(
            url, max_size=max_size, statement_timeout=statement_timeout, lock_timeout=lock_timeout
        )
        try:
            return cls(pool, lock_timeout=lock_timeout, owns_pool=True)
        except BaseException:
            pool.close()
            raise

    def close(self) -> None:
        """Close the pool if this store opened it."""
        if self._owns_pool:
            self.pool.close()

    @contextmanager
    def _connection(self, key: _Key | None = None) -> Iterator[psycopg.Connection[Any]]:
        """Lend a pooled connection; timeouts and a lost server become ``StoreBusyError``."""
        where = _where(key) if key is not None else "postgresql"
        try:
            with self.pool.connection() as conn:
                yield conn
        except PoolTimeout as exc:
            raise StoreBusyError(f"{where} (no database connection)", self.pool.timeout) from exc
        except (psycopg.errors.LockNotAvailable, psycopg.errors.QueryCanceled) as exc:
            raise StoreBusyError(f"{where} (row lock)", self.lock_timeout) from exc
        except psycopg.OperationalError as exc:
            # The server went away mid-call; the pool replaces the connection.
            raise StoreBusyError(f"{where} (connection lost: {exc})", self.lock_timeout) from exc

    @staticmethod
    def _key(tenant: str, caller_app: str, session_id: str) -> _Key:
        return (
            validate_id(tenant, "tenant"),
            validate_id(caller_app, "caller_app"),
            validate_id(session_id, "session_id"),
        )

    # ------------------------------------------------------------------ reads

    @staticmethod
    def _header(conn: psycopg.Connection[Any], key: _Key, *, lock: bool = False) -> Any:
        """Return the session row with ``updated_at`` raised to its newest message's time."""
        if lock:
            return conn.execute(
                f"SELECT title, created_at, updated_at FROM sessions WHERE {_KEY_WHERE} FOR UPDATE",
                key,
            ).fetchone()
        return conn.execute(
            "SELECT s.title, s.created_at, greatest(s.updated_at, l.created_at) AS updated_at "
            "FROM sessions s LEFT JOIN LATERAL (SELECT m.created_at FROM messages m "
            "WHERE m.tenant_id = s.tenant_id AND m.caller_app = s.caller_app "
            "AND m.session_id = s.session_id ORDER BY m.seq DESC, m.pos DESC LIMIT 1) l ON true "
            "WHERE s.tenant_id = %s AND s.caller_app = %s AND s.session_id = %s",
            key,
        ).fetchone()

    @staticmethod
    def _messages(
        conn: psycopg.Connection[Any], key: _Key, limit: int | None = None
    ) -> list[Message]:
        if limit is None:
            rows = conn.execute(
                f"SELECT {_MESSAGE_COLUMNS} FROM messages WHERE {_KEY_WHERE} ORDER BY seq, pos", key
            ).fetchall()
        else:
            rows = conn.execute(
                f"SELECT {_MESSAGE_COLUMNS} FROM messages WHERE {_KEY_WHERE} "
                "ORDER BY seq DESC, pos DESC LIMIT %s",
                (*key, limit),
            ).fetchall()
            rows.reverse()
        try:
            return [_message(row) for row in rows]
        except ValidationError as exc:
            raise CorruptSessionError(_row_path(key), describe_error(exc)) from exc

    @staticmethod
    def _load(conn: psycopg.Connection[Any], key: _Key) -> Session | None:
        """Return the session and its messages in one round trip (a join, one snapshot)."""
        rows = conn.execute(
            "SELECT s.title, s.created_at AS session_created_at, s.updated_at, "
            "s.parent_session_id, s.root_session_id, s.closed_at, "
            "m.id, m.role, m.content, m.created_at, m.turn_id, m.metadata "
            "FROM sessions s LEFT JOIN messages m ON m.tenant_id = s.tenant_id "
            "AND m.caller_app = s.caller_app AND m.session_id = s.session_id "
            "WHERE s.tenant_id = %s AND s.caller_app = %s AND s.session_id = %s "
            "ORDER BY m.seq, m.pos",
            key,
        ).fetchall()
        if not rows:
            return None
        first = rows[0]
        try:
            messages = [_message(row) for row in rows if row["id"] is not None]
        except ValidationError as exc:
            raise CorruptSessionError(_row_path(key), describe_error(exc)) from exc
        updated_at = max([first["updated_at"], *(m.created_at for m in messages)])
        return Session(
            id=key[2],
            tenant=key[0],
            caller_app=key[1],
            title=first["title"],
            created_at=first["session_created_at"],
            updated_at=updated_at,
            messages=messages,
            parent_session_id=first["parent_session_id"],
            root_session_id=first["root_session_id"],
            closed_at=first["closed_at"],
        )

    # ------------------------------------------------------------------ sessions

    def create_session(
        self,
        *,
        tenant: str,
        caller_app: str,
        session_id: str | None = None,
        title: str | None = None,
    ) -> Session:
        """Create an empty session (see ``ConversationStore.create_session``)."""
        sid = session_id if session_id is not None else new_session_id()
        key = self._key(tenant, caller_app, sid)
        session = new_session(*key, title)
        with self._connection(key) as conn:
            row = conn.execute(
                _CREATE_SESSION,
                (*key, title, session.created_at, session.updated_at),
            ).fetchone()
        if row is None:
            raise SessionExistsError(*key)
        return session

    def get_session(self, *, tenant: str, caller_app: str, session_id: str) -> Session | None:
        """Read a session with its messages, or ``None``."""
        key = self._key(tenant, caller_app, session_id)
        with self._connection(key) as conn:
            return self._load(conn, key)

    def list_sessions(
        self,
        *,
        tenant: str,
        caller_app: str | None = None,
        offset: int = 0,
        limit: int = 50,
    ) -> tuple[list[SessionSummary], int]:
        """One page of summaries, most recently updated first, and the total (in SQL)."""
        validate_id(tenant, "tenant")
        check_limit(offset, "offset")
        check_limit(limit, "limit")
        scope, args = "tenant_id = %s", [tenant]
        if caller_app is not None:
            scope += " AND caller_app = %s"
            args.append(validate_id(caller_app, "caller_app"))
        with self._connection() as conn:
            counted = conn.execute(
                f"SELECT count(*) AS n FROM sessions WHERE {scope}", args
            ).fetchone()
            total = counted["n"] if counted is not None else 0
            if offset >= total:
                # Past the end: an empty page, as the JSON store answers, and no query
                # with an OFFSET beyond PostgreSQL's bigint (any Python int gets here).
                return [], total
            limit = min(limit, total - offset)
            rows = conn.execute(
                "SELECT s.session_id, s.tenant_id, s.caller_app, s.title, s.created_at, "
                "greatest(s.updated_at, l.created_at) AS updated_at, "
                "s.parent_session_id, s.root_session_id, s.closed_at FROM sessions s "
                "LEFT JOIN LATERAL (SELECT m.created_at FROM messages m "
                "WHERE m.tenant_id = s.tenant_id AND m.caller_app = s.caller_app "
                "AND m.session_id = s.session_id ORDER BY m.seq DESC, m.pos DESC LIMIT 1) l "
                f"ON true WHERE s.{scope.replace(' AND ', ' AND s.')} "
                "ORDER BY 6 DESC, caller_app DESC, session_id DESC OFFSET %s LIMIT %s",
                [*args, offset, limit],
            ).fetchall()
            counts: dict[tuple[str, str], int] = {}
            if rows:
                counted = conn.execute(
                    "SELECT caller_app, session_id, count(*) AS n FROM messages "
                    "WHERE tenant_id = %s AND (caller_app, session_id) IN "
                    "(SELECT * FROM unnest(%s::text[], %s::text[])) "
                    "GROUP BY caller_app, session_id",
                    (tenant, [r["caller_app"] for r in rows], [r["session_id"] for r in rows]),
                ).fetchall()
                counts = {(r["caller_app"], r["session_id"]): r["n"] for r in counted}
        page = [
            SessionSummary(
                id=row["session_id"],
                tenant=row["tenant_id"],
                caller_app=row["caller_app"],
                title=row["title"],
                created_at=row["created_at"],
                updated_at=row["updated_at"],
                message_count=counts.get((row["caller_app"], row["session_id"]), 0),
                parent_session_id=row["parent_session_id"],
                root_session_id=row["root_session_id"],
                closed_at=row["closed_at"],
            )
            for row in rows
        ]
        return page, int(total)

    def scan_sessions(self, *, tenant: str | None = None) -> list[SessionSummary]:
        """Summaries of every session (of one tenant, or all; see ``ConversationStore``)."""
        scope = "" if tenant is None else " WHERE s.tenant_id = %s"
        args = [] if tenant is None else [validate_id(tenant, "tenant")]
        with self._connection() as conn:
            rows = conn.execute(
                "SELECT s.session_id, s.tenant_id, s.caller_app, s.title, s.created_at, "
                "greatest(s.updated_at, l.created_at) AS updated_at, coalesce(l.n, 0) AS n, "
                "s.parent_session_id, s.root_session_id, s.closed_at FROM sessions s "
                "LEFT JOIN LATERAL (SELECT max(m.created_at) AS created_at, count(*) AS n "
                "FROM messages m WHERE m.tenant_id = s.tenant_id AND m.caller_app = s.caller_app "
                "AND m.session_id = s.session_id) l ON true" + scope,
                args,
            ).fetchall()
        return [
            SessionSummary(
                id=row["session_id"],
                tenant=row["tenant_id"],
                caller_app=row["caller_app"],
                title=row["title"],
                created_at=row["created_at"],
                updated_at=row["updated_at"],
                message_count=row["n"],
                parent_session_id=row["parent_session_id"],
                root_session_id=row["root_session_id"],
                closed_at=row["closed_at"],
            )
            for row in rows
        ]

    def fork_session(
        self,
        *,
        tenant: str,
        caller_app: str,
        session_id: str,
        at_message: int | None = None,
        fork_id: str | None = None,
    ) -> Session:
        """Create a session from the first messages of another (see ``ConversationStore``)."""
        key = self._key(tenant, caller_app, session_id)
        with self._connection(key) as conn, conn.transaction():
            source = self._load(conn, key)
            if source is None:
                raise SessionNotFoundError(*key)
            fork = forked_session(source, fork_id or new_session_id(), at_message)
            fork_key = self._key(tenant, caller_app, fork.id)
            created = conn.execute(
                "INSERT INTO sessions (tenant_id, caller_app, session_id, title, created_at, "
                "updated_at, parent_session_id, root_session_id) "
                "VALUES (%s, %s, %s, %s, %s, %s, %s, %s) ON CONFLICT DO NOTHING "
                "RETURNING session_id",
                (
                    *fork_key,
                    fork.title,
                    fork.created_at,
                    fork.updated_at,
                    fork.parent_session_id,
                    fork.root_session_id,
                ),
            ).fetchone()
            if created is None:
                raise SessionExistsError(*fork_key)
            if fork.messages and not self._insert(conn, fork_key, fork.messages):
                raise StoreError(f"{_where(fork_key)}: a copied turn id is already taken")
        return fork

    def close_session(self, *, tenant: str, caller_app: str, session_id: str) -> Session:
        """Mark a session closed now (see ``ConversationStore.close_session``)."""
        key = self._key(tenant, caller_app, session_id)
        with self._connection(key) as conn, conn.transaction():
            closed = conn.execute(
                f"UPDATE sessions SET closed_at = %s WHERE {_KEY_WHERE} RETURNING session_id",
                (utcnow(), *key),
            ).fetchone()
            if closed is None:
                raise SessionNotFoundError(*key)
            session = self._load(conn, key)
        assert session is not None  # locked by the update until the commit
        return session

    def update_session(
        self, *, tenant: str, caller_app: str, session_id: str, title: str
    ) -> Session:
        """Set a session's title."""
        key = self._key(tenant, caller_app, session_id)
        with self._connection(key) as conn, conn.transaction():
            updated = conn.execute(
                f"UPDATE sessions SET title = %s, updated_at = %s WHERE {_KEY_WHERE} "
                "RETURNING session_id",
                (title, utcnow(), *key),
            ).fetchone()
            if updated is None:
                raise SessionNotFoundError(*key)
            session = self._load(conn, key)
        assert session is not None  # locked by the update until the commit
        return session

    def delete_session(self, *, tenant: str, caller_app: str, session_id: str) -> bool:
        """Delete a session, its messages and its thread state; ``True`` if it existed."""
        key = self._key(tenant, caller_app, session_id)
        with self._connection(key) as conn:
            deleted = conn.execute(
                f"DELETE FROM sessions WHERE {_KEY_WHERE} RETURNING session_id", key
            ).fetchone()
        return deleted is not None

    # ------------------------------------------------------------------ messages

    @staticmethod
    def _insert(
        conn: psycopg.Connection[Any],
        key: _Key,
        messages: list[Message],
        create: tuple[str | None, datetime] | None = None,
        *,
        new_turn: bool = False,
        name: str | None = None,
    ) -> bool:
        """Append ``messages`` in one statement (so in one transaction, even in autocommit).

        Args:
            conn: The connection.
            key: The session.
            messages: What to append, in order; they share one sequence number.
            create: ``(title, created_at)`` to create the session in the same statement
                if it does not exist yet.
            new_turn: Write nothing if any message of the first message's turn id is
                stored already (the caller then reads what is there and decides).
            name: Title for the session if it has none yet (its first turn).

        Returns:
            ``False`` if nothing or not everything was written (a turn id taken).
        """
        values = ", ".join(
            ["(%s::smallint, %s, %s, %s, %s::timestamptz, %s, %s::jsonb)"] * len(messages)
        )
        args: list[Any] = []
        ctes: list[str] = []
        if create is not None:
            # The row this statement inserts satisfies the messages' foreign key at its end.
            ctes.append(
                "created AS (INSERT INTO sessions (tenant_id, caller_app, session_id, "
                "title, created_at, updated_at) VALUES (%s, %s, %s, %s, %s, %s) "
                "ON CONFLICT DO NOTHING)"
            )
            args += [*key, create[0], create[1], create[1]]
        if name is not None:
            # Locks the session row only while its title is still empty (its first turn).
            ctes.append(
                f"named AS (UPDATE sessions SET title = %s WHERE {_KEY_WHERE} AND title IS NULL)"
            )
            args += [name, *key]
        args += key
        for pos, m in enumerate(messages):
            args += [pos, m.id, m.role, m.content, m.created_at, m.turn_id]
            args.append(_metadata_json(m.metadata))
        guard = ""
        if new_turn:
            guard = (
                " WHERE NOT EXISTS (SELECT 1 FROM messages m WHERE m.tenant_id = %s "
                "AND m.caller_app = %s AND m.session_id = %s AND m.turn_id = %s)"
            )
            args += [*key, messages[0].turn_id]
        inserted = conn.execute(
            ("WITH " + ", ".join(ctes) + " " if ctes else "")
            + "INSERT INTO messages (tenant_id, caller_app, session_id, seq, pos, id, "
            "role, content, created_at, turn_id, metadata) "
            "SELECT k.t, k.a, k.s, k.seq, v.pos, v.id, v.role, v.content, v.created_at, "
            "v.turn_id, v.metadata FROM (SELECT %s::text AS t, %s::text AS a, %s::text AS s, "
            "nextval('messages_append_seq') AS seq) k, "
            f"(VALUES {values}) AS v(pos, id, role, content, created_at, turn_id, metadata)"
            + guard
            + " ON CONFLICT DO NOTHING RETURNING id",
            args,
        ).fetchall()
        return len(inserted) == len(messages)

    def add_message(
        self,
        *,
        tenant: str,
        caller_app: str,
        session_id: str,
        role: Role,
        content: str,
        metadata: TurnMetadata | None = None,
        turn_id: str | None = None,
    ) -> Message:
        """Append one message (see ``ConversationStore.add_message``).

        Raises:
            StoreError: If the turn already has a message of this role (one question
                and one answer per turn id).
        """
        check_role(role, has_metadata=metadata is not None)
        key = self._key(tenant, caller_app, session_id)
        message = Message(
            id=new_message_id(),
            role=role,
            content=content,
            created_at=utcnow(),
            turn_id=turn_id,
            metadata=metadata,
        )
        with self._connection(key) as conn:
            try:
                inserted = self._insert(conn, key, [message])
            except psycopg.errors.ForeignKeyViolation as exc:  # no such session
                raise SessionNotFoundError(*key) from exc
            if not inserted:
                raise StoreError(f"turn {turn_id!r} of session {session_id!r} has a {role} message")
        return message

    def add_turn(
        self,
        *,
        tenant: str,
        caller_app: str,
        session_id: str,
        question: str,
        answer: str,
        metadata: TurnMetadata,
        turn_id: str | None = None,
        create: bool = False,
    ) -> tuple[Message, Message]:
        """Persist a question and its answer in one transaction, idempotent by ``turn_id``.

        Same semantics as ``ConversationStore.add_turn``: a stored turn is returned
        unchanged, a question stored earlier with ``add_message`` gets only the answer.
        """
        key = self._key(tenant, caller_app, session_id)
        now = utcnow()
        turn = turn_id if turn_id is not None else new_turn_id()
        user = Message(
            id=new_message_id(), role="user", content=question, created_at=now, turn_id=turn
        )
        assistant = Message(
            id=new_message_id(),
            role="assistant",
            content=answer,
            created_at=now,
            turn_id=turn,
            metadata=metadata,
        )
        with self._connection(key) as conn:
            # The common case in one statement: a turn id not stored yet, written whole
            # (and the session created or named on a thread's first turn).
            title = title_from_question(question)
            try:
                written = self._insert(
                    conn,
                    key,
                    [user, assistant],
                    (title, now) if create else None,
                    new_turn=True,
                    name=title,
                )
            except psycopg.errors.ForeignKeyViolation as exc:  # no such session
                raise SessionNotFoundError(*key) from exc
            if written:
                return user, assistant
            # A retry, a turn started with add_message, or a race on this turn id:
            # read what is stored and decide (a second round only after a lost race).
            for _ in range(3):
                stored = self._write_turn(conn, key, user, assistant, turn_id, question, create)
                if stored is not None:
                    return stored
        raise StoreBusyError(f"{_where(key)} (turn {turn_id!r} kept changing)", self.lock_timeout)

    def _write_turn(
        self,
        conn: psycopg.Connection[Any],
        key: _Key,
        user: Message,
        assistant: Message,
        turn_id: str | None,
        question: str,
        create: bool,
    ) -> tuple[Message, Message] | None:
        """One attempt of ``add_turn``: one read, then one statement that writes.

        Returns:
            The stored pair, or ``None`` when a concurrent call took this turn id
            between the read and the write (the next attempt reads what it stored).
        """
        # The session's title and this turn's stored messages, if any.
        rows = conn.execute(
            "SELECT s.title, m.id, m.role, m.content, m.created_at, m.turn_id, m.metadata "
            "FROM sessions s LEFT JOIN messages m ON m.tenant_id = s.tenant_id "
            "AND m.caller_app = s.caller_app AND m.session_id = s.session_id "
            "AND m.turn_id = %s "
            "WHERE s.tenant_id = %s AND s.caller_app = %s AND s.session_id = %s "
            "ORDER BY m.seq, m.pos",
            (turn_id, *key),
        ).fetchall()
        if not rows and not create:
            raise SessionNotFoundError(*key)
        to_add, result = [user, assistant], (user, assistant)
        same_turn_rows = [row for row in rows if row["id"] is not None]
        if same_turn_rows:
            try:
                same_turn = [_message(row) for row in same_turn_rows]
            except ValidationError as exc:
                raise CorruptSessionError(_row_path(key), describe_error(exc)) from exc
            stored_user = next((m for m in same_turn if m.role == "user"), None)
            stored_answer = next((m for m in same_turn if m.role == "assistant"), None)
            if stored_answer is not None:
                if stored_user is None:
                    raise StoreError(
                        f"turn {turn_id!r} of session {key[2]!r} has an answer but no question"
                    )
                return stored_user, stored_answer
            if stored_user is not None:
                to_add, result = [assistant], (stored_user, assistant)
        title = title_from_question(question)
        creating = (title, user.created_at) if not rows else None
        try:
            inserted = self._insert(conn, key, to_add, create=creating)
        except psycopg.errors.ForeignKeyViolation as exc:  # deleted meanwhile
            raise SessionNotFoundError(*key) from exc
        if not inserted:
            return None
        if rows and rows[0]["title"] is None and title is not None:
            # The first turn of a session created without a title names it.
            conn.execute(
                f"UPDATE sessions SET title = %s WHERE {_KEY_WHERE} AND title IS NULL",
                (title, *key),
            )
        return result

    def get_history(
        self, *, tenant: str, caller_app: str, session_id: str, limit: int | None = None
    ) -> list[Message]:
        """Return the last ``limit`` messages (all when ``None``), oldest first."""
        check_limit(limit, "limit")
        key = self._key(tenant, caller_app, session_id)
        with self._connection(key) as conn:
            if self._header(conn, key) is None:
                raise SessionNotFoundError(*key)
            if limit == 0:
                return []
            return self._messages(conn, key, limit)

    def get_langchain_messages(
        self, *, tenant: str, caller_app: str, session_id: str, limit: int | None = None
    ) -> list[BaseMessage]:
        """Return the history as LangChain messages (see ``to_langchain_messages``)."""
        return to_langchain_messages(
            self.get_history(
                tenant=tenant, caller_app=caller_app, session_id=session_id, limit=limit
            )
        )

    def get_thread_state(self, *, tenant: str, caller_app: str, session_id: str) -> ThreadState:
        """Return the ``thread_state`` row written with the turns (empty for a new session)."""
        key = self._key(tenant, caller_app, session_id)
        with self._connection(key) as conn:
            row = conn.execute(
                "SELECT s.session_id, t.last_outline, t.last_doc_ids, t.last_titles, "
                "t.last_search_query, t.updated_at FROM sessions s LEFT JOIN thread_state t "
                "ON t.tenant_id = s.tenant_id AND t.caller_app = s.caller_app "
                "AND t.thread_id = s.session_id "
                "WHERE s.tenant_id = %s AND s.caller_app = %s AND s.session_id = %s",
                key,
            ).fetchone()
        if row is None:
            raise SessionNotFoundError(*key)
        if row["updated_at"] is None:
            return ThreadState()
        try:
            return ThreadState(
                last_outline=row["last_outline"],
                last_doc_ids=row["last_doc_ids"],
                last_titles=row["last_titles"],
                last_search_query=row["last_search_query"],
                updated_at=row["updated_at"],
            )
        except ValidationError as exc:
            raise CorruptSessionError(_row_path(key), describe_error(exc)) from exc

    # ------------------------------------------------------------------ copy

    def copy_session(self, session: Session) -> int:
        """Copy a session read from another store; idempotent.

        A session not yet here is inserted whole, keeping its timestamps and title;
        one already here gets the messages it lacks (by message id), in the source's
        order, and the source's later edits of the answers it has (a regenerate's
        ``superseded`` mark, ratings), so a copy can be re-run after new turns, edits
        or an interruption. Ratings given here since are kept: per user, the newest.

        Args:
            session: The complete session (e.g. from ``ConversationStore.get_session``).

        Returns:
            How many messages were added.
        """
        key = self._key(session.tenant, session.caller_app, session.id)
        with self._connection(key) as conn, conn.transaction():
            conn.execute(
                "INSERT INTO sessions (tenant_id, caller_app, session_id, title, created_at, "
                "updated_at) VALUES (%s, %s, %s, %s, %s, %s) ON CONFLICT DO NOTHING",
                (*key, session.title, session.created_at, session.updated_at),
            )
            present = {
                row["id"]: row["metadata"]
                for row in conn.execute(
                    f"SELECT id, metadata FROM messages WHERE {_KEY_WHERE}", key
                ).fetchall()
            }
            missing = [m for m in session.messages if m.id not in present]
            # Only the new messages were copied: a rating or a regenerate made on the
            # source after the first copy was lost (and its old answer stayed kept).
            for message in session.messages:
                stored = present.get(message.id)
                if message.metadata is None or stored is None:
                    continue
                copied = _copied_metadata(message.metadata, TurnMetadata.model_validate(stored))
                if copied != TurnMetadata.model_validate(stored):
                    conn.execute(
                        f"UPDATE messages SET metadata = %s WHERE {_KEY_WHERE} AND id = %s",
                        (Jsonb(copied.model_dump(mode="json")), *key, message.id),
                    )
            if missing and not self._insert(conn, key, missing):
                raise StoreError(f"{_where(key)}: a copied turn id is already taken")
            conn.execute(
                f"UPDATE sessions SET updated_at = greatest(updated_at, %s), "
                f"title = coalesce(title, %s) WHERE {_KEY_WHERE}",
                (session.updated_at, session.title, *key),
            )
        return len(missing)

    # ------------------------------------------------------------------ damaged rows

    def _move_aside(self, conn: psycopg.Connection[Any], key: _Key) -> Path:
        """Copy the session's raw rows to ``sessions_quarantine`` and delete it."""
        header = self._header(conn, key, lock=True)
        if header is None:
            raise SessionNotFoundError(*key)
        rows = conn.execute(
            f"SELECT * FROM messages WHERE {_KEY_WHERE} ORDER BY seq, pos", key
        ).fetchall()
        document = {
            "header": {k: _jsonable(v) for k, v in header.items()},
            "messages": [{k: _jsonable(v) for k, v in row.items()} for row in rows],
        }
        moved = conn.execute(
            "INSERT INTO sessions_quarantine (tenant_id, caller_app, session_id, session) "
            "VALUES (%s, %s, %s, %s) RETURNING id",
            (*key, Jsonb(document)),
        ).fetchone()
        if moved is None:  # pragma: no cover - INSERT ... RETURNING returns its row
            raise StoreError(f"quarantine of {key!r} returned no row")
        conn.execute(f"DELETE FROM sessions WHERE {_KEY_WHERE}", key)
        return Path("postgresql") / "sessions_quarantine" / str(moved["id"])

    def quarantine_session(self, *, tenant: str, caller_app: str, session_id: str) -> Path:
        """Move the session's rows to ``sessions_quarantine`` (never deleted); id freed."""
        key = self._key(tenant, caller_app, session_id)
        with self._connection(key) as conn, conn.transaction():
            return self._move_aside(conn, key)

    def check_sessions(
        self, *, repair: bool = False, quarantine: bool = False
    ) -> list[SessionCheck]:
        """Load every session; report, and on request move aside, the ones that fail.

        The database keeps rows whole, so damage here means rows that no longer
        match the schema (a hand edit). ``repair`` keeps the messages that still load
        and moves the original rows aside; ``quarantine`` moves the whole session.
        """
        with self._connection() as conn:
            keys = [
                (r["tenant_id"], r["caller_app"], r["session_id"])
                for r in conn.execute(
                    "SELECT tenant_id, caller_app, session_id FROM sessions "
                    "ORDER BY tenant_id, caller_app, session_id"
                ).fetchall()
            ]
        return [self._check(key, repair=repair, quarantine=quarantine) for key in keys]

    def _check(self, key: _Key, *, repair: bool, quarantine: bool) -> SessionCheck:
        path = _row_path(key)
        found = partial(
            SessionCheck, tenant=key[0], caller_app=key[1], session_id=key[2], path=path
        )
        with self._connection(key) as conn, conn.transaction():
            try:
                session = self._load(conn, key)
            except CorruptSessionError as exc:
                reason = exc.reason
            else:
                count = len(session.messages) if session is not None else 0
                return found(status="ok", message_count=count)
            if quarantine:
                moved = self._move_aside(conn, key)
                return found(status="quarantined", reason=reason, moved_to=moved)
            if not repair:
                return found(status="corrupt", reason=reason)
            rows = conn.execute(
                f"SELECT {_MESSAGE_COLUMNS} FROM messages WHERE {_KEY_WHERE} ORDER BY seq, pos",
                key,
            ).fetchall()
            kept: list[Message] = []
            for row in rows:
                try:
                    kept.append(_message(row))
                except ValidationError:
                    continue
            header = self._header(conn, key, lock=True)
            moved = self._move_aside(conn, key)
            conn.execute(
                "INSERT INTO sessions (tenant_id, caller_app, session_id, title, created_at, "
                "updated_at) VALUES (%s, %s, %s, %s, %s, %s)",
                (*key, header["title"], header["created_at"], header["updated_at"]),
            )
            if kept:
                self._insert(conn, key, kept)
            return found(
                status="repaired",
                reason=reason,
                message_count=len(kept),
                dropped=len(rows) - len(kept),
                moved_to=moved,
            )


def _copied_metadata(source: TurnMetadata, stored: TurnMetadata) -> TurnMetadata:
    """Return an answer's metadata as a re-run copy leaves it.

    The source's, with the ratings of both sides (per user, the newer): none given on
    either side is lost.
    """
    ratings = {f.user: f for f in stored.feedback}
    for rating in source.feedback:
        kept = ratings.get(rating.user)
        if kept is None or rating.created_at >= kept.created_at:
            ratings[rating.user] = rating
    return source.model_copy(update={"feedback": list(ratings.values())})


def _jsonable(value: Any) -> Any:
    if isinstance(value, datetime):
        return value.isoformat()
    return value
