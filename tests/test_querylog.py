"""The queries log: appends through one long-lived connection, readable at once elsewhere."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
import threading

from threadline.querylog import QueryLog, QueryRecord


def record(thread: str, question: str) -> QueryRecord:
    return QueryRecord(tenant="default", caller_app="default", thread_id=thread, question=question)


def test_each_append_is_committed_and_visible_to_another_process(tmp_path):
    path = tmp_path / "queries.sqlite"
    log = QueryLog(path)
    log.record(record("t1", "first"))
    log.record(record("t1", "second"))
    # Another process, while the writer connection is still open.
    read = subprocess.run(
        [
            sys.executable,
            "-c",
            "import sqlite3, sys; db = sqlite3.connect(sys.argv[1]); "
            "print([r[0] for r in db.execute('SELECT question FROM queries_log ORDER BY id')])",
            str(path),
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert read.stdout.strip() == "['first', 'second']", read.stderr
    log.close()


def test_appends_from_many_threads_all_land_and_close_reopens(tmp_path):
    log = QueryLog(tmp_path / "queries.sqlite")

    def write(n: int) -> None:
        for i in range(25):
            log.record(record(f"t{n}", f"q{i}"))

    threads = [threading.Thread(target=write, args=(n,)) for n in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    log.close()
    log.record(record("t0", "after close"))  # a new connection, same file
    assert [r["question"] for r in log.thread("t3")] == [f"q{i}" for i in range(25)]
    assert log.thread("t0")[-1]["question"] == "after close"
    db = sqlite3.connect(tmp_path / "queries.sqlite")
    assert db.execute("SELECT count(*) FROM queries_log").fetchone()[0] == 8 * 25 + 1
    assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    db.close()
    log.close()
