"""The queries log on both backends: SQLite (the default) and PostgreSQL's `queries_log`.

Appends go through one long-lived connection (SQLite) or the pool (PostgreSQL) and
are readable at once from another process.
"""

from __future__ import annotations

import sqlite3
import subprocess
import sys
import threading

import pytest

from threadline.querylog import QueryLog, QueryRecord
from threadline.store.models import FollowupInfo


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
