"""The queries log on both backends: SQLite (the default) and PostgreSQL's `queries_log`.

Appends go through one long-lived connection (SQLite) or the pool (PostgreSQL) and
are readable at once from another process.
"""

from __future__ import annotations

import sqlite3
import subprocess
import sys
import threading
import time
from contextlib import closing
from datetime import UTC, datetime

import pytest

from threadline.querylog import QueryLog, QueryRecord
from threadline.store.models import FollowupInfo, Message, TurnMetadata


def record(thread: str, question: str) -> QueryRecord:
    return QueryRecord(tenant="default", caller_app="default", thread_id=thread, question=question)


@pytest.fixture(params=["sqlite", "postgres"])
def log_backend(request, tmp_path):
    """(log, read_questions_in_another_process) for each backend."""
    if request.param == "sqlite":
        path = tmp_path / "queries.sqlite"
        code = (
            "import sqlite3, sys; db = sqlite3.connect(sys.argv[1]); "
            "print([r[0] for r in db.execute('SELECT question FROM queries_log ORDER BY id')])"
        )
        log = QueryLog(path)
        yield log, [sys.executable, "-c", code, str(path)]
        log.close()
        return
    from threadline.querylog_pg import PostgresQueryLog
    from threadline.store.postgres import open_pool

    url = request.getfixturevalue("pg_url")
    code = (
        "import psycopg, sys; conn = psycopg.connect(sys.argv[1]); "
        "print([r[0] for r in conn.execute('SELECT question FROM queries_log ORDER BY id')])"
    )
    pool = open_pool(url, max_size=4)
    yield PostgresQueryLog(pool), [sys.executable, "-c", code, url]
    pool.close()


def test_each_append_is_committed_and_visible_to_another_process(log_backend):
    log, reader = log_backend
    log.record(record("t1", "first"))
    log.record(record("t1", "second"))
    # Another process, while the writer connection is still open.
    read = subprocess.run(reader, capture_output=True, text=True, timeout=60)
    assert read.stdout.strip() == "['first', 'second']", read.stderr


def test_appends_from_many_threads_all_land_and_close_reopens(log_backend):
    log, _ = log_backend

    def write(n: int) -> None:
        for i in range(25):
            log.record(record(f"t{n}", f"q{i}"))

    threads = [threading.Thread(target=write, args=(n,)) for n in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    log.close()
    log.record(record("t0", "after close"))  # SQLite: a new connection, same file
    assert [r["question"] for r in log.thread("t3")] == [f"q{i}" for i in range(25)]
    assert log.thread("t0")[-1]["question"] == "after close"
    assert log.query("SELECT count(*) AS n FROM queries_log")[0]["n"] == 8 * 25 + 1


def test_rows_read_the_same_on_both_backends(log_backend):
    log, _ = log_backend
    log.record(
        QueryRecord(
            tenant="acme",
            caller_app="web",
            thread_id="t1",
            question="Détaille S2",
            followup=FollowupInfo(resolved=True, section_id="S2"),
            doc_ids=["d1"],
            outline=[{"id": "S1", "title": "Intro"}],
            latency_ms=12.5,
        )
    )
    [row] = log.thread("t1", tenant="acme", caller_app="web")
    assert row["question"] == "Détaille S2" and row["followup_section_id"] == "S2"
    assert row["followup_resolved"] == 1 and row["followup_detected"] == 0
    assert row["doc_ids"] == '["d1"]' and row["outline"] == '[{"id": "S1", "title": "Intro"}]'
    assert row["created_at"][:2] == "20" and row["latency_ms"] == 12.5
    assert log.thread("t1", tenant="other") == []


def test_sqlite_log_is_in_wal_mode(tmp_path):
    log = QueryLog(tmp_path / "queries.sqlite")
    log.record(record("t1", "q"))
    db = sqlite3.connect(tmp_path / "queries.sqlite")
    assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    db.close()
    log.close()


def answer_of(turn: str, *, superseded: bool) -> Message:
    return Message(
        id=f"msg_{turn}",
        role="assistant",
        content="...",
        created_at=datetime.now(UTC),
        turn_id=turn,
        metadata=TurnMetadata(superseded=superseded),
    )


def test_set_kept_marks_the_rows_of_the_answers_set_aside(log_backend):
    log, _ = log_backend
    for turn in ("first", "second"):
        row = record("t1", "Résume le rapport")
        row.turn_id = turn
        log.record(row)
    other = record("t2", "Résume le rapport")
    other.turn_id = "first"  # the same turn id in another thread is not touched
    log.record(other)
    answers = [answer_of("first", superseded=False), answer_of("second", superseded=True)]
    assert log.set_kept(tenant="default", caller_app="default", thread_id="t1", answers=answers)
    assert [r["superseded"] for r in log.thread("t1")] == [0, 1]
    assert [r["superseded"] for r in log.thread("t2")] == [0]
    flipped = [answer_of("first", superseded=True), answer_of("second", superseded=False)]
    log.set_kept(tenant="default", caller_app="default", thread_id="t1", answers=flipped)
    assert [r["superseded"] for r in log.thread("t1")] == [1, 0]


def test_a_log_from_before_alternatives_gets_the_column_and_the_view_follows_it(tmp_path):
    path = tmp_path / "queries.sqlite"
    old = sqlite3.connect(path)  # the first release's table and view
    old.executescript(
        "CREATE TABLE queries_log (id INTEGER PRIMARY KEY AUTOINCREMENT, created_at TEXT NOT "
        "NULL, tenant TEXT NOT NULL, caller_app TEXT NOT NULL, thread_id TEXT NOT NULL, turn_id "
        "TEXT, question TEXT NOT NULL, route TEXT, followup_detected INTEGER NOT NULL DEFAULT 0, "
        "followup_resolved INTEGER NOT NULL DEFAULT 0, followup_section_id TEXT, "
        "followup_ref_type TEXT, followup_method TEXT, search_query TEXT, doc_ids TEXT NOT NULL "
        "DEFAULT '[]', titles TEXT NOT NULL DEFAULT '[]', outline TEXT NOT NULL DEFAULT '[]', "
        "outcome TEXT, stop_reason TEXT, llm_calls INTEGER NOT NULL DEFAULT 0, latency_ms REAL);"
        "CREATE VIEW thread_state AS SELECT thread_id, outline AS last_outline FROM queries_log "
        "WHERE outline != '[]';"
        "INSERT INTO queries_log (created_at, tenant, caller_app, thread_id, turn_id, question, "
        "outline) VALUES ('2026-01-01T00:00:00', 'default', 'default', 't1', 'old', 'q', "
        '\'[{"id": "S1"}]\');'
    )
    old.close()
    log = QueryLog(path)
    assert [r["superseded"] for r in log.thread("t1")] == [0]
    log.set_kept(
        tenant="default",
        caller_app="default",
        thread_id="t1",
        answers=[answer_of("old", superseded=True)],
    )
    assert log.query("SELECT * FROM thread_state") == []
    log.close()


def traced(thread: str, n: int) -> QueryRecord:
    """A row whose trace spans two pages of the log, so few rows fill a write-ahead log."""
    trace = [{"node": "retrieve", "query": f"question {n} " + "x" * 6000}]
    return QueryRecord(
        tenant="default", caller_app="default", thread_id=thread, question=f"q{n}", trace=trace
    )


def test_a_write_never_waits_for_a_checkpoint_of_the_log(tmp_path):
    # SQLite checkpoints in the commit that fills 1,000 pages of the write-ahead log,
    # copying them into the database with two fsyncs: a turn waited for it.
    path = tmp_path / "queries.sqlite"
    log = QueryLog(path, checkpoint_every=10**9)  # the side thread's turn never comes here
    try:
        log.record(record("t", "first"))
        before = path.stat().st_size
        for n in range(700):
            log.record(traced("t", n))
        # Over 1,000 pages of rows are in the write-ahead log, none copied into the database.
        assert (tmp_path / "queries.sqlite-wal").stat().st_size > 1_000 * 4_096
        assert path.stat().st_size == before
    finally:
        log.close()
    with closing(sqlite3.connect(path)) as db:
        assert db.execute("SELECT count(*) FROM queries_log").fetchone()[0] == 701


def test_the_log_is_checkpointed_beside_the_writes(tmp_path):
    path = tmp_path / "queries.sqlite"
    log = QueryLog(path, checkpoint_every=50)
    try:
        log.record(record("t", "first"))
        before = path.stat().st_size
        for n in range(100):
            log.record(traced("t", n))
        # The checkpoint thread copied rows into the database while the log stays open.
        deadline = time.monotonic() + 30
        while path.stat().st_size == before and time.monotonic() < deadline:
            time.sleep(0.05)
        assert path.stat().st_size > before
        assert [t.name for t in threading.enumerate() if t.name.startswith("querylog-")]
    finally:
        log.close()
    assert not [t.name for t in threading.enumerate() if t.name.startswith("querylog-")]
