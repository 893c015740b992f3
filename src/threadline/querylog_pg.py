"""The queries log in PostgreSQL (``THREADLINE_DATABASE_URL``): the SQLite log's columns.

Rows come back shaped like the SQLite log's (``created_at`` as an ISO string,
``doc_ids``/``titles``/``outline`` as JSON text) so the CLI and callers read both
the same way; in ``psql`` the columns are real ``timestamptz``/``boolean``/``jsonb``.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import datetime
from typing import Any, ClassVar

import psycopg
from psycopg.rows import dict_row
from psycopg.types.json import Jsonb
from psycopg_pool import ConnectionPool

from threadline.querylog import QueryRecord, feedback_columns, kept_rows
from threadline.store.models import Feedback, Message

_JSON_COLUMNS = ("doc_ids", "titles", "outline", "trace")


def _as_sqlite_row(row: dict[str, Any]) -> dict[str, Any]:
    shaped = dict(row)
    for key, value in row.items():
        if isinstance(value, datetime):
            shaped[key] = value.isoformat()
        elif key in _JSON_COLUMNS and value is not None and not isinstance(value, str):
            shaped[key] = json.dumps(value, ensure_ascii=False)
        elif isinstance(value, bool):
            shaped[key] = int(value)
    return shaped


class PostgresQueryLog:
    """Append-only log of turns in the ``queries_log`` table (schema: ``pg_schema.py``)."""

    write_errors: ClassVar[tuple[type[Exception], ...]] = (psycopg.Error,)
    """What a write raises when the database cannot be written (a pool timeout too)."""

    def __init__(self, pool: ConnectionPool) -> None:
        """Log through the process's pool (the store's)."""
        self._pool = pool

    def close(self) -> None:
        """Nothing to release: the pool belongs to the services."""

    def record(self, record: QueryRecord) -> None:
        """Append one turn (autocommit: one statement, committed when it returns)."""
        row = record.row()
        row["created_at"] = datetime.fromisoformat(row["created_at"])
        for key in _JSON_COLUMNS:
            row[key] = Jsonb(row[key]) if row[key] is not None else None
        columns = ", ".join(row)
        marks = ", ".join(f"%({k})s" for k in row)
        with self._pool.connection() as conn:
            conn.execute(f"INSERT INTO queries_log ({columns}) VALUES ({marks})", row)

    def set_feedback(
        self,
        *,
        tenant: str,
        caller_app: str,
        thread_id: str,
        turn_id: str,
        ratings: Sequence[Feedback],
    ) -> int:
        """Write an answer's latest rating into its turn's row (see `feedback_columns`).

        Returns:
            How many rows were updated (0 for a turn the log does not hold).
        """
        values = feedback_columns(ratings)
        if values["feedback_at"] is not None:
            values["feedback_at"] = datetime.fromisoformat(values["feedback_at"])
        sets = ", ".join(f"{k} = %({k})s" for k in values)
        args = {**values, "t": tenant, "a": caller_app, "th": thread_id, "turn": turn_id}
        with self._pool.connection() as conn:
            return conn.execute(
                f"UPDATE queries_log SET {sets} WHERE tenant = %(t)s AND caller_app = %(a)s "
                "AND thread_id = %(th)s AND turn_id = %(turn)s",
                args,
            ).rowcount

    def set_kept(
        self, *, tenant: str, caller_app: str, thread_id: str, answers: Sequence[Message]
    ) -> int:
        """Mirror which answers of a question are kept into their rows (`QueryLog.set_kept`)."""
        rows = kept_rows(answers, tenant=tenant, caller_app=caller_app, thread_id=thread_id)
        for row in rows:
            row["s"] = bool(row["s"])
        updated = 0
        with self._pool.connection() as conn, conn.transaction(), conn.cursor() as cursor:
            for row in rows:
                cursor.execute(
                    "UPDATE queries_log SET superseded = %(s)s WHERE tenant = %(t)s "
                    "AND caller_app = %(a)s AND thread_id = %(th)s AND turn_id = %(turn)s",
                    row,
                )
                updated += cursor.rowcount
        return updated

    def flagged(
        self, rating: str, *, tenant: str | None = None, caller_app: str | None = None
    ) -> list[dict[str, Any]]:
        """Rows whose answer's latest rating is `rating`, oldest first."""
        sql = "SELECT * FROM queries_log WHERE feedback = %s"
        args: list[Any] = [rating]
        for name, value in (("tenant", tenant), ("caller_app", caller_app)):
            if value is not None:
                sql += f" AND {name} = %s"
                args.append(value)
        return self.query(sql + " ORDER BY id", args)

    def thread(
        self, thread_id: str, *, tenant: str | None = None, caller_app: str | None = None
    ) -> list[dict[str, Any]]:
        """Rows of one thread, oldest first."""
        sql = "SELECT * FROM queries_log WHERE thread_id = %s"
        args: list[Any] = [thread_id]
        for name, value in (("tenant", tenant), ("caller_app", caller_app)):
            if value is not None:
                sql += f" AND {name} = %s"
                args.append(value)
        return self.query(sql + " ORDER BY id", args)

    def query(self, sql: str, args: Sequence[Any] = ()) -> list[dict[str, Any]]:
        """Run a read query (``%s`` placeholders); rows as dicts shaped like SQLite's."""
        with self._pool.connection() as conn, conn.cursor(row_factory=dict_row) as cursor:
            return [_as_sqlite_row(r) for r in cursor.execute(sql, list(args)).fetchall()]
