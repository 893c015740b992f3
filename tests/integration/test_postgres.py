"""PostgreSQL in use: the note's debug SQL in psql, migrations, copy, restarts, the CLI.

The store contract itself is tested on both backends by test_store.py and
test_store_reliability.py; these are the parts only the database has.
"""

from __future__ import annotations

import json
import sqlite3
from datetime import UTC, datetime

import psycopg
import pytest
from fastapi.testclient import TestClient

from support.postgres import fresh_database, psql
from support.server import run_cli
from support.services import make_services
from threadline.api.main import create_app
from threadline.querylog import QueryLog, QueryRecord
from threadline.store import ConversationStore, CorruptSessionError, OutlineItem, TurnMetadata
from threadline.store.models import FollowupInfo
from threadline.store.pg_schema import LATEST_VERSION, SchemaVersionError, migrate
from threadline.store.postgres import PostgresStore, open_pool

T, A = "acme", "web"

# The SUIVI note's two debug queries, as written there; only the <placeholders> are filled.
NOTE_OUTLINE_SQL = """SELECT updated_at, last_outline
FROM thread_state
WHERE caller_app = '<caller_app>' AND thread_id = '<thread_id>'
ORDER BY updated_at DESC
LIMIT 1;"""
NOTE_FOLLOWUP_SQL = """SELECT created_at, question, followup_resolved, followup_section_id, followup_ref_type
FROM queries_log
WHERE caller_app = '<caller_app>' AND thread_id = '<thread_id>'
ORDER BY created_at DESC
LIMIT 20;"""  # noqa: E501


def _fill(sql: str, caller_app: str, thread_id: str) -> str:
    return sql.replace("<caller_app>", caller_app).replace("<thread_id>", thread_id)


def test_the_notes_debug_sql_runs_in_psql_after_a_real_conversation(tmp_path, pg_url):
    services = make_services(tmp_path / "data", database_url=pg_url)
    try:
        with TestClient(create_app(services)) as client:
            ids = {"caller_app": "external_app", "thread_id": "thread-123"}
            first = client.post("/chat", json={"query": "Résume le rapport annuel 2024", **ids})
            assert first.status_code == 200, first.text
            outline = first.json()["outline"]
            assert len(outline) >= 4
            second = client.post("/chat", json={"query": "Détaille S2", **ids})
            assert second.status_code == 200, second.text
            assert second.json()["followup"]["resolved"] is True
            caller_app = "external_app"
    finally:
        services.close()
    assert not (tmp_path / "data" / "sessions").exists()  # all of it went to PostgreSQL

    state = psql(pg_url, _fill(NOTE_OUTLINE_SQL, caller_app, "thread-123"))
    assert state.returncode == 0, state.stderr
    assert "(1 row)" in state.stdout
    assert outline[1]["title"] in state.stdout and '"S2"' in state.stdout

    resolved = psql(pg_url, _fill(NOTE_FOLLOWUP_SQL, caller_app, "thread-123"))
    assert resolved.returncode == 0, resolved.stderr
    assert "(2 rows)" in resolved.stdout
    lines = resolved.stdout.splitlines()
    newest = lines[2]  # header, rule, then newest first
    assert "Détaille S2" in newest and "| t " in newest and "| S2 " in newest
    assert "Résume le rapport annuel 2024" in lines[3] and "| f " in lines[3]


def test_a_database_without_the_schema_is_refused_until_migrated(tmp_path, pg_cluster):
    name, url = fresh_database(pg_cluster, migrated=False)
    try:
        pool = open_pool(url, max_size=2)
        try:
            with pytest.raises(SchemaVersionError, match="threadline db migrate"):
                PostgresStore(pool)
        finally:
            pool.close()
        env = {"THREADLINE_DATABASE_URL": url}
        refused = run_cli(tmp_path, "serve", "--port", "9", timeout=120, **env)
        assert refused.returncode == 1
        assert refused.stderr.strip().splitlines() == [
            f"error: the database schema is at version 0, this threadline needs version "
            f"{LATEST_VERSION}: run `threadline db migrate` first"
        ]
        migrated = run_cli(tmp_path, "db", "migrate", **env)
        assert migrated.returncode == 0, migrated.stderr
        assert "applied 1:" in migrated.stdout
        again = run_cli(tmp_path, "db", "migrate", **env)
        assert again.returncode == 0 and "applied" not in again.stdout
        assert f"schema at version {LATEST_VERSION}" in again.stdout
        store = PostgresStore.connect(url)
        store.create_session(tenant=T, caller_app=A, session_id="s1")
        store.close()
    finally:
        pg_cluster.drop_database(name)


def test_a_database_newer_than_the_code_is_refused(pg_url):
    with psycopg.connect(pg_url, autocommit=True) as conn:
        conn.execute("INSERT INTO threadline_schema (version, name) VALUES (99, 'future')")
        with pytest.raises(SchemaVersionError, match="newer than this threadline"):
            migrate(conn)
    with pytest.raises(SchemaVersionError, match="version 99"):
        PostgresStore.connect(pg_url)


def test_db_commands_without_a_database_url_say_so_in_one_line(tmp_path):
    result = run_cli(tmp_path, "db", "migrate")
    assert result.returncode == 2
    assert "THREADLINE_DATABASE_URL is not set" in result.stdout
    unreachable = run_cli(
        tmp_path, "db", "migrate", THREADLINE_DATABASE_URL="postgresql://nobody@127.0.0.1:9/x"
    )
    assert unreachable.returncode == 1
    assert "cannot connect to PostgreSQL" in unreachable.stdout
    assert "Traceback" not in unreachable.stdout + unreachable.stderr


def test_serve_with_workers_refuses_the_embedded_index(tmp_path):
    result = run_cli(tmp_path, "serve", "--workers", "2", "--port", "9")
    assert result.returncode == 2
    [line] = result.stderr.strip().splitlines()
    assert line.startswith("error: --workers 2 needs a Qdrant server (QDRANT_URL)")
    assert "--workers 1" in line


def _json_conversations(data_dir) -> ConversationStore:
    store = ConversationStore(data_dir / "sessions")
    outline = [OutlineItem(id="S1", title="Intro"), OutlineItem(id="S2", title="Costs")]
    for thread in ("t1", "t2"):
        store.add_turn(
            tenant=T,
            caller_app=A,
            session_id=thread,
            question=f"summary {thread}",
            answer="…",
            metadata=TurnMetadata(search_query="summary", doc_ids=["d1"], outline=outline),
            turn_id=f"{thread}-1",
            create=True,
        )
    store.add_turn(  # capitals: directories and file named by file_stem
        tenant="Other",
        caller_app="App",
        session_id="T3",
        question="hello",
        answer="hi",
        metadata=TurnMetadata(route="reply"),
        create=True,
    )
    log = QueryLog(data_dir / "queries.sqlite3")
    for thread in ("t1", "t2"):
        log.record(QueryRecord(tenant=T, caller_app=A, thread_id=thread, question="summary"))
    log.close()
    return store


def test_db_copy_moves_a_json_store_and_its_log_idempotently(tmp_path, pg_url):
    data = tmp_path / "data"
    source = _json_conversations(data)
    env = {"THREADLINE_DATABASE_URL": pg_url}

    first = run_cli(tmp_path, "db", "copy", "--from-json", str(data), **env)
    assert first.returncode == 0, first.stdout + first.stderr
    assert "3 sessions (6 messages added), 2 queries-log rows added" in first.stdout
    target = PostgresStore.connect(pg_url)
    try:
        for tenant, app, sid in ((T, A, "t1"), (T, A, "t2"), ("Other", "App", "T3")):
            key = {"tenant": tenant, "caller_app": app, "session_id": sid}
            assert target.get_session(**key) == source.get_session(**key)
            assert target.get_thread_state(**key) == source.get_thread_state(**key)

        again = run_cli(tmp_path, "db", "copy", "--from-json", str(data), **env)
        assert "3 sessions (0 messages added), 0 queries-log rows added" in again.stdout

        source.add_turn(
            tenant=T,
            caller_app=A,
            session_id="t1",
            question="more",
            answer="a",
            metadata=TurnMetadata(),
        )
        more = run_cli(tmp_path, "db", "copy", "--from-json", str(data), **env)
        assert "3 sessions (2 messages added)" in more.stdout
        key = {"tenant": T, "caller_app": A, "session_id": "t1"}
        assert target.get_history(**key) == source.get_history(**key)
    finally:
        target.close()
    with psycopg.connect(pg_url) as conn:
        assert conn.execute("SELECT count(*) FROM queries_log").fetchone()[0] == 2


def test_db_copy_run_again_brings_ratings_and_regenerates_made_since(tmp_path, pg_url):
    # A re-run copied only the messages PostgreSQL lacked: a rating given on the JSON store
    # after the first copy was lost, and after a regenerate both answers were kept.
    from threadline.store.edits import add_alternative, rate_answer
    from threadline.store.models import Feedback, Message

    data = tmp_path / "data"
    source = _json_conversations(data)
    env = {"THREADLINE_DATABASE_URL": pg_url}
    key = {"tenant": T, "caller_app": A, "session_id": "t1"}
    assert run_cli(tmp_path, "db", "copy", "--from-json", str(data), **env).returncode == 0
    target = PostgresStore.connect(pg_url)
    try:
        question, answer = source.get_session(**key).messages[:2]
        now = datetime.now(UTC)
        # A rating given on PostgreSQL meanwhile (another user) is kept too.
        target.edit_session(
            **key,
            edit=rate_answer(answer.id, "b#2", Feedback(user="b#2", rating="up", created_at=now)),
        )
        source.edit_session(
            **key,
            edit=rate_answer(
                answer.id,
                "a#1",
                Feedback(user="a#1", rating="down", reason="wrong", created_at=now),
            ),
        )
        again = Message(
            id="msg_again", role="assistant", content="b", created_at=now, metadata=TurnMetadata()
        )
        source.edit_session(**key, edit=add_alternative(question.id, again))
        rerun = run_cli(tmp_path, "db", "copy", "--from-json", str(data), **env)
        assert rerun.returncode == 0, rerun.stdout + rerun.stderr
        copied = {m.id: m.metadata for m in target.get_session(**key).messages}
        assert copied[answer.id].superseded and not copied["msg_again"].superseded
        assert {(f.user, f.rating) for f in copied[answer.id].feedback} == {
            ("a#1", "down"),
            ("b#2", "up"),
        }
        # The same conversation kept (the PostgreSQL rating aside).
        assert [m.id for m in target.get_history(**key)] == [
            m.id for m in source.get_history(**key)
        ]
        assert target.get_thread_state(**key) == source.get_thread_state(**key)
    finally:
        target.close()


def test_store_and_log_reconnect_after_a_server_restart(tmp_path, pg_url, pg_cluster):
    services = make_services(tmp_path / "data", corpus=[], database_url=pg_url)
    try:
        store, log = services.store, services.querylog
        meta = TurnMetadata(search_query="q", doc_ids=["d1"])
        store.add_turn(
            tenant=T,
            caller_app=A,
            session_id="s",
            question="q1",
            answer="a",
            metadata=meta,
            create=True,
        )
        log.record(QueryRecord(tenant=T, caller_app=A, thread_id="s", question="q1"))
        pg_cluster.restart()  # every pooled connection is cut
        store.add_turn(
            tenant=T, caller_app=A, session_id="s", question="q2", answer="a", metadata=meta
        )
        log.record(QueryRecord(tenant=T, caller_app=A, thread_id="s", question="q2"))
        history = store.get_history(tenant=T, caller_app=A, session_id="s")
        assert [m.content for m in history if m.role == "user"] == ["q1", "q2"]
        assert [r["question"] for r in log.thread("s")] == ["q1", "q2"]
    finally:
        services.close()


def test_rows_edited_out_of_schema_are_reported_repaired_or_moved_aside(pg_url):
    store = PostgresStore.connect(pg_url)
    try:
        for sid in ("bad", "good", "moved"):
            for i in range(3):
                store.add_turn(
                    tenant=T,
                    caller_app=A,
                    session_id=sid,
                    question=f"q{i}",
                    answer="a",
                    metadata=TurnMetadata(),
                    create=True,
                )
        with psycopg.connect(pg_url, autocommit=True) as conn:
            conn.execute(
                'UPDATE messages SET metadata = \'{"llm_calls": "many"}\' '
                "WHERE session_id IN ('bad', 'moved') AND content = 'a' "
                "AND turn_id = (SELECT turn_id FROM messages m WHERE m.session_id = "
                "messages.session_id AND m.content = 'q1')"
            )
        with pytest.raises(CorruptSessionError):
            store.get_history(tenant=T, caller_app=A, session_id="bad")
        checks = {c.session_id: c.status for c in store.check_sessions()}
        assert checks == {"bad": "corrupt", "good": "ok", "moved": "corrupt"}
        moved = store.quarantine_session(tenant=T, caller_app=A, session_id="moved")
        assert store.get_session(tenant=T, caller_app=A, session_id="moved") is None
        [repaired] = store.check_sessions(repair=True)[:1]
        assert (repaired.session_id, repaired.status, repaired.dropped) == ("bad", "repaired", 1)
        history = store.get_history(tenant=T, caller_app=A, session_id="bad")
        assert [m.content for m in history] == ["q0", "a", "q1", "q2", "a"]
        assert {c.status for c in store.check_sessions()} == {"ok"}
        with psycopg.connect(pg_url) as conn:
            kept = conn.execute("SELECT session_id, session FROM sessions_quarantine").fetchall()
        assert sorted(row[0] for row in kept) == ["bad", "moved"]  # nothing deleted
        assert str(moved).startswith("postgresql/sessions_quarantine/")
        assert all(len(row[1]["messages"]) == 6 for row in kept)
    finally:
        store.close()


def test_the_log_copy_keeps_sqlite_values(tmp_path, pg_url):
    data = tmp_path / "data"
    data.mkdir()
    log = QueryLog(data / "queries.sqlite3")
    log.record(
        QueryRecord(
            tenant=T,
            caller_app=A,
            thread_id="t",
            question="Détaille S2",
            followup=FollowupInfo(detected=True, resolved=True, section_id="S2"),
            titles=["Rapport"],
            latency_ms=3.5,
        )
    )
    log.close()
    result = run_cli(
        tmp_path, "db", "copy", "--from-json", str(data), THREADLINE_DATABASE_URL=pg_url
    )
    assert result.returncode == 0, result.stdout
    with sqlite3.connect(data / "queries.sqlite3") as db:
        db.row_factory = sqlite3.Row
        [original] = [dict(r) for r in db.execute("SELECT * FROM queries_log")]
    with psycopg.connect(pg_url) as conn:
        row = conn.execute(
            "SELECT question, followup_resolved, followup_section_id, titles, latency_ms, "
            "created_at FROM queries_log"
        ).fetchone()
    assert row[:3] == ("Détaille S2", True, "S2")
    assert row[3] == json.loads(original["titles"]) and row[4] == 3.5
    assert row[5].isoformat() == original["created_at"]


def test_a_statement_past_its_timeout_is_store_busy(pg_url):
    from threadline.store import StoreBusyError

    store = PostgresStore(open_pool(pg_url, statement_timeout=0.2, lock_timeout=30), owns_pool=True)
    try:
        store.add_turn(
            tenant=T,
            caller_app=A,
            session_id="s",
            question="q",
            answer="a",
            metadata=TurnMetadata(),
            create=True,
        )
        with psycopg.connect(pg_url) as blocker:  # holds the table until rolled back
            blocker.execute("LOCK TABLE messages IN ACCESS EXCLUSIVE MODE")
            with pytest.raises(StoreBusyError) as excinfo:
                store.get_history(tenant=T, caller_app=A, session_id="s")
            assert excinfo.value.retryable
            blocker.rollback()
        assert len(store.get_history(tenant=T, caller_app=A, session_id="s")) == 2
    finally:
        store.close()


def test_the_sessions_and_log_commands_read_postgresql(tmp_path, pg_url):
    from threadline.querylog_pg import PostgresQueryLog

    pool = open_pool(pg_url, max_size=2)
    try:
        PostgresStore(pool).add_turn(
            tenant="default",
            caller_app="default",
            session_id="cli-1",
            question="hello there",
            answer="a",
            metadata=TurnMetadata(),
            create=True,
        )
        PostgresQueryLog(pool).record(
            QueryRecord(tenant="default", caller_app="default", thread_id="cli-1", question="hi")
        )
    finally:
        pool.close()
    env = {"THREADLINE_DATABASE_URL": pg_url}
    listed = run_cli(tmp_path, "sessions", "list", **env)
    assert listed.returncode == 0 and "cli-1" in listed.stdout and "hello there" in listed.stdout
    shown = run_cli(tmp_path, "sessions", "show", "cli-1", **env)
    assert json.loads(shown.stdout)["messages"][0]["content"] == "hello there"
    checked = run_cli(tmp_path, "sessions", "check", **env)
    assert checked.returncode == 0 and "1 ok" in checked.stdout
    logged = run_cli(tmp_path, "log", "--thread", "cli-1", "--json", **env)
    assert json.loads(logged.stdout.splitlines()[0])["question"] == "hi"
    deleted = run_cli(tmp_path, "sessions", "delete", "cli-1", **env)
    assert deleted.returncode == 0
    assert not (tmp_path / "data").exists() and not (tmp_path / "sessions").exists()
