"""The queries log: one row per turn, queryable with SQL (SQLite by default).

The `thread_state` view answers the seed's debug query ("does this thread have
an outline?") from the same rows, so no second copy of the state can drift.

A row also carries the turn's sanitised `trace` (JSON) and the answer's latest
rating (`feedback` = up/down, `feedback_reason`, `feedback_comment`, `feedback_at`),
updated when a user rates it, so `SELECT ... FROM queries_log WHERE feedback = 'down'`
lists what users flagged. A log created before these columns gets them on open.

An answer set aside by regenerate or select keeps its row, marked `superseded` (the
store's flag, mirrored), so `thread_state` follows the answers the user kept, as the
store and the PostgreSQL view do.
"""

from __future__ import annotations

import json
import logging
import sqlite3
import threading
from collections.abc import Iterator, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import closing, contextmanager
from dataclasses import dataclass, field, fields
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, ClassVar, Protocol

from threadline.store.models import Feedback, FollowupInfo, Message

_LOGGER = logging.getLogger("threadline.querylog")

ADDED_COLUMNS = {
    "trace": "TEXT",
    "feedback": "TEXT",
    "feedback_reason": "TEXT",
    "feedback_comment": "TEXT",
    "feedback_at": "TEXT",
    "superseded": "INTEGER NOT NULL DEFAULT 0",
}
"""Columns added after the first release: a log that lacks them gets them on open."""

FEEDBACK_COLUMNS = ("feedback", "feedback_reason", "feedback_comment", "feedback_at")


def feedback_columns(ratings: Sequence[Feedback]) -> dict[str, Any]:
    """Return the log's feedback columns for an answer's ratings: the latest one, or nulls.

    Args:
        ratings: The answer's ratings (one per user).

    Returns:
        `feedback`, `feedback_reason`, `feedback_comment` and `feedback_at`.
    """
    if not ratings:
        return dict.fromkeys(FEEDBACK_COLUMNS)
    latest = max(ratings, key=lambda f: f.created_at)
    return {
        "feedback": latest.rating,
        "feedback_reason": latest.reason,
        "feedback_comment": latest.comment,
        "feedback_at": latest.created_at.isoformat(),
    }


def kept_rows(
    answers: Sequence[Message], *, tenant: str, caller_app: str, thread_id: str
) -> list[dict[str, Any]]:
    """Return the `set_kept` update's parameters: one per answer that has a turn (its row)."""
    return [
        {
            "s": int(bool(answer.metadata and answer.metadata.superseded)),
            "t": tenant,
            "a": caller_app,
            "th": thread_id,
            "turn": answer.turn_id,
        }
        for answer in answers
        if answer.turn_id is not None
    ]


SCHEMA = """
CREATE TABLE IF NOT EXISTS queries_log (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    created_at TEXT NOT NULL,
    tenant TEXT NOT NULL,
    caller_app TEXT NOT NULL,
    thread_id TEXT NOT NULL,
    turn_id TEXT,
    question TEXT NOT NULL,
    route TEXT,
    followup_detected INTEGER NOT NULL DEFAULT 0,
    followup_resolved INTEGER NOT NULL DEFAULT 0,
    followup_section_id TEXT,
    followup_ref_type TEXT,
    followup_method TEXT,
    search_query TEXT,
    doc_ids TEXT NOT NULL DEFAULT '[]',
    titles TEXT NOT NULL DEFAULT '[]',
    outline TEXT NOT NULL DEFAULT '[]',
    outcome TEXT,
    stop_reason TEXT,
    llm_calls INTEGER NOT NULL DEFAULT 0,
    latency_ms REAL,
    trace TEXT,
    feedback TEXT,
    feedback_reason TEXT,
    feedback_comment TEXT,
    feedback_at TEXT,
    superseded INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX IF NOT EXISTS queries_log_thread
    ON queries_log (tenant, caller_app, thread_id, created_at);
CREATE INDEX IF NOT EXISTS queries_log_turn
    ON queries_log (tenant, caller_app, thread_id, turn_id);
DROP VIEW IF EXISTS thread_state;
CREATE VIEW thread_state AS
    SELECT tenant, caller_app, thread_id, created_at AS updated_at,
           outline AS last_outline, doc_ids AS last_doc_ids, titles AS last_titles,
           search_query AS last_search_query
    FROM queries_log WHERE outline != '[]' AND superseded = 0;
"""


@dataclass
class QueryRecord:
    """One turn as the log stores it."""

    tenant: str
    caller_app: str
    thread_id: str
    question: str
    route: str | None = None
    turn_id: str | None = None
    followup: FollowupInfo = field(default_factory=FollowupInfo)
    search_query: str | None = None
    doc_ids: list[str] = field(default_factory=list)
    titles: list[str] = field(default_factory=list)
    outline: list[dict[str, str]] = field(default_factory=list)
    outcome: str | None = None
    stop_reason: str | None = None
    llm_calls: int = 0
    latency_ms: float | None = None
    trace: list[dict[str, Any]] | None = None
    created_at: str = field(default_factory=lambda: datetime.now(UTC).isoformat())

    def row(self) -> dict[str, Any]:
        """Return the record as one row of `queries_log`: the follow-up in its own columns.

        Returns:
            Column name to value; lists are still Python lists.
        """
        # Each field as it is, not `asdict`'s deep copy: the callers only serialise the
        # row (the copy of the trace was 2% of a turn in a profile at 10k chunks).
        row = {f.name: getattr(self, f.name) for f in fields(self)}
        followup = row.pop("followup")
        row.update(
            followup_detected=followup.detected,
            followup_resolved=followup.resolved,
            followup_section_id=followup.section_id,
            followup_ref_type=followup.ref_type,
            followup_method=followup.method,
        )
        return row


class _LogBackend(Protocol):
    """What `after_store` needs of a queries log: the errors a failed write raises.

    A protocol, so the SQLite log's module does not import the PostgreSQL one, which
    builds on its rows.
    """

    @property
    def write_errors(self) -> tuple[type[Exception], ...]: ...


@contextmanager
def after_store(log: _LogBackend, what: str) -> Iterator[None]:
    """Write the log once the store holds the change: a failed write is logged, not raised.

    The session store is the record (a turn, a rating, the answer kept); the log
    mirrors it for debugging. Raising after the store has written would answer a
    stored turn with a 500 that says it was not saved, and a client that believes it
    sends the question again and stores it twice. So a log that cannot be written
    (a damaged file, a full disk, a lost database connection) costs its row only.

    Args:
        log: The queries log written in the block (its `write_errors` are caught).
        what: What the row records, for the error line.
    """
    try:
        yield
    except log.write_errors as exc:
        _LOGGER.error("queries log not written (%s): %s; the session store has it", what, exc)


def check_queries_log(path: Path) -> str | None:
    """Why a server must not start on this SQLite queries log, in one line, or ``None``.

    A log SQLite cannot read (cut short by a full disk, overwritten) would stop the
    server's start with a traceback: say which file and what to do instead. The
    conversations are in the session files, so moving the log aside loses no turn.
    A log that is only locked by another process is not damaged: left to the server.
    """
    if not path.exists():
        return None
    try:
        QueryLog(path).close()
    except sqlite3.OperationalError:
        return None
    except sqlite3.DatabaseError as exc:
        return (
            f"the queries log {path} is damaged ({exc}): move it aside and start again; "
            "a new, empty log is created, and no conversation is lost (they are in the "
            "session files, not in the log)"
        )
    return None


CHECKPOINT_EVERY = 100
"""Writes to the SQLite log between two checkpoints of its write-ahead log: about 600
pages at a turn's row (a trace of a few KB), under SQLite's own default of 1,000."""


class QueryLog:
    """Append-only SQLite log of turns (WAL mode: readers never block the writer)."""

    write_errors: ClassVar[tuple[type[Exception], ...]] = (sqlite3.Error,)
    """What a write raises when the database cannot be written (see `after_store`)."""

    def __init__(self, path: Path, *, checkpoint_every: int = CHECKPOINT_EVERY) -> None:
        """Open or create the log at `path`.

        Args:
            path: The SQLite file.
            checkpoint_every: Writes between two checkpoints of the write-ahead log,
                each run on a thread of its own (see `_write_connection`).
        """
        path.parent.mkdir(parents=True, exist_ok=True)
        self._path = path
        self._lock = threading.Lock()
        self._writer: sqlite3.Connection | None = None
        self._checkpoint_every = checkpoint_every
        self._writes = 0
        self._checkpointer: ThreadPoolExecutor | None = None
        self._checkpoint: Future[None] | None = None
        with closing(self._connect()) as db, db:
            db.execute("PRAGMA journal_mode=WAL")
            present = {row[1] for row in db.execute("PRAGMA table_info(queries_log)")}
            for name, kind in ADDED_COLUMNS.items():
                if present and name not in present:  # a log written by an older version
                    db.execute(f"ALTER TABLE queries_log ADD COLUMN {name} {kind}")
            db.executescript(SCHEMA)

    def _connect(self) -> sqlite3.Connection:
        return sqlite3.connect(self._path, timeout=30)

    def _write_connection(self) -> sqlite3.Connection:
        """One connection for every append (opening one per turn costs more than the insert).

        `synchronous=NORMAL`: in WAL mode a commit no longer waits for an fsync, and the
        database still cannot be corrupted by a crash; at worst an OS crash loses the last
        rows. The session files, fsynced on every turn, are the record of a conversation;
        this log is for debugging, so it should not add a second fsync to every turn.

        No automatic checkpoint either: SQLite runs one in the commit that fills 1,000
        pages of the write-ahead log, copying them into the database with two fsyncs, so
        every ~165th turn waited for it (15-19 ms at load 14, turns benchmark at 10k
        chunks). `_wrote` has a thread of its own copy them instead.
        """
        if self._writer is None:
            self._writer = sqlite3.connect(self._path, timeout=30, check_same_thread=False)
            self._writer.execute("PRAGMA synchronous=NORMAL")
            self._writer.execute("PRAGMA wal_autocheckpoint=0")
        return self._writer

    def _wrote(self) -> None:
        """Count one committed write; every `checkpoint_every`, checkpoint on the side.

        Called with the lock held. A checkpoint still running is not doubled: the next
        write past the count starts the next one.
        """
        self._writes += 1
        running = self._checkpoint is not None and not self._checkpoint.done()
        if self._writes < self._checkpoint_every or running:
            return
        self._writes = 0
        if self._checkpointer is None:
            self._checkpointer = ThreadPoolExecutor(1, thread_name_prefix="querylog-checkpoint")
        self._checkpoint = self._checkpointer.submit(self._checkpoint_wal)

    def _checkpoint_wal(self) -> None:
        """Copy the write-ahead log into the database without waiting for its writer.

        PASSIVE: the frames no reader still needs are copied, the writer's commits go on;
        the writer restarts the log from its start once all of it is copied.
        """
        try:
            with closing(self._connect()) as db:
                db.execute("PRAGMA wal_checkpoint(PASSIVE)")
        except sqlite3.Error as exc:  # the next checkpoint copies what this one could not
            _LOGGER.warning("queries log: checkpoint failed: %s", exc)

    def close(self) -> None:
        """Close the append connection (a later append opens a new one).

        A checkpoint under way finishes first; closing the last connection copies the
        rest of the write-ahead log into the database (SQLite's own last checkpoint).
        """
        with self._lock:
            checkpointer, self._checkpointer = self._checkpointer, None
        if checkpointer is not None:
            checkpointer.shutdown(wait=True)
        with self._lock:
            if self._writer is not None:
                self._writer.close()
                self._writer = None

    def record(self, record: QueryRecord) -> None:
        """Append one turn."""
        row = record.row()
        for key in ("doc_ids", "titles", "outline"):
            row[key] = json.dumps(row[key], ensure_ascii=False)
        if row["trace"] is not None:
            row["trace"] = json.dumps(row["trace"], ensure_ascii=False)
        for key in ("followup_detected", "followup_resolved"):
            row[key] = int(row[key])
        columns = ", ".join(row)
        marks = ", ".join(f":{k}" for k in row)
        with self._lock:
            db = self._write_connection()
            with db:  # one transaction, committed here
                db.execute(f"INSERT INTO queries_log ({columns}) VALUES ({marks})", row)
            self._wrote()

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
        sets = ", ".join(f"{k} = :{k}" for k in values)
        args = {**values, "t": tenant, "a": caller_app, "th": thread_id, "turn": turn_id}
        with self._lock:
            db = self._write_connection()
            with db:
                updated = db.execute(
                    f"UPDATE queries_log SET {sets} WHERE tenant = :t AND caller_app = :a "
                    "AND thread_id = :th AND turn_id = :turn",
                    args,
                ).rowcount
            self._wrote()
            return updated

    def set_kept(
        self, *, tenant: str, caller_app: str, thread_id: str, answers: Sequence[Message]
    ) -> int:
        """Mirror which answers of a question are kept into their turns' rows.

        Args:
            tenant: The session's tenant.
            caller_app: The session's caller app.
            thread_id: The session.
            answers: Every answer of one question, as the store holds them now.

        Returns:
            How many rows were updated.
        """
        rows = kept_rows(answers, tenant=tenant, caller_app=caller_app, thread_id=thread_id)
        with self._lock:
            db = self._write_connection()
            with db:
                cursor = db.executemany(
                    "UPDATE queries_log SET superseded = :s WHERE tenant = :t "
                    "AND caller_app = :a AND thread_id = :th AND turn_id = :turn",
                    rows,
                )
            self._wrote()
            return cursor.rowcount

    def flagged(
        self, rating: str, *, tenant: str | None = None, caller_app: str | None = None
    ) -> list[dict[str, Any]]:
        """Rows whose answer's latest rating is `rating`, oldest first."""
        sql = "SELECT * FROM queries_log WHERE feedback = ?"
        args: list[Any] = [rating]
        for name, value in (("tenant", tenant), ("caller_app", caller_app)):
            if value is not None:
                sql += f" AND {name} = ?"
                args.append(value)
        return self.query(sql + " ORDER BY id", args)

    def thread(
        self, thread_id: str, *, tenant: str | None = None, caller_app: str | None = None
    ) -> list[dict[str, Any]]:
        """Rows of one thread, oldest first."""
        sql = "SELECT * FROM queries_log WHERE thread_id = ?"
        args: list[Any] = [thread_id]
        for name, value in (("tenant", tenant), ("caller_app", caller_app)):
            if value is not None:
                sql += f" AND {name} = ?"
                args.append(value)
        return self.query(sql + " ORDER BY id", args)

    def query(self, sql: str, args: Sequence[Any] = ()) -> list[dict[str, Any]]:
        """Run a read query; rows as dicts."""
        with closing(self._connect()) as db:
            db.row_factory = sqlite3.Row
            return [dict(r) for r in db.execute(sql, list(args)).fetchall()]
