"""Reliability of the conversation store: contention, lock timeouts, crashes, damaged files.

Contention, lock timeouts and the SIGKILL rounds run on both backends (``backend``
fixture: JSON files, PostgreSQL); hand-overs and damaged files are the JSON store's.

The worker processes live in ``support/store_workers.py`` so 'spawn' and 'forkserver'
children can import them.
"""

from __future__ import annotations

import json
import multiprocessing
import os
import re
import signal
import threading
import time
import zlib
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from filelock import FileLock
from typer.testing import CliRunner

import threadline.store.files as store_files_module
import threadline.store.group_commit as group_commit_module
from support.services import make_services
from support.store_workers import (
    CALLER_APP,
    TENANT,
    append_turns,
    crash_driver,
    turn_question,
)
from threadline.api.main import create_app
from threadline.cli import app as cli_app
from threadline.settings import get_settings
from threadline.store import (
    QUARANTINE_DIR,
    ConversationStore,
    CorruptSessionError,
    Message,
    SessionNotFoundError,
    StoreBusyError,
    TurnMetadata,
)
from threadline.store.spool import Ticket, encode_op, spool_dir

T, A = TENANT, CALLER_APP
META = TurnMetadata(search_query="q", doc_ids=["d1"], titles=["Doc 1"])


def _path(root: Path, session_id: str) -> Path:
    return root / T / A / f"{session_id}.json"


def _turn(store: ConversationStore, session_id: str, question: str, **kwargs: object) -> None:
    store.add_turn(
        tenant=T,
        caller_app=A,
        session_id=session_id,
        question=question,
        answer=f"a:{question}",
        metadata=META,
        create=True,
        **kwargs,  # type: ignore[arg-type]
    )


def _history(store: ConversationStore, session_id: str) -> list[Message]:
    return store.get_history(tenant=T, caller_app=A, session_id=session_id)


def _leftovers(root: Path) -> list[str]:
    """Temp files and hand-over files anywhere under the session directories."""
    found = []
    for file in root.rglob("*"):
        if QUARANTINE_DIR in file.parts or not file.is_file():
            continue
        name = file.name
        if name.endswith(".tmp") or file.parent.name.endswith(".spool"):
            found.append(str(file.relative_to(root)))
    return sorted(found)


def _wait_for(condition: Callable[[], bool], timeout: float = 5.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "condition not reached in time"
        time.sleep(0.002)


def _pending_ops(root: Path, session_id: str) -> list[Path]:
    spool = spool_dir(_path(root, session_id))
    return sorted(spool.glob("*.op")) if spool.is_dir() else []


# ---------------------------------------------------------------------------- contention

WRITERS, OWN_WRITERS, TURNS = 8, 4, 250


def _assert_all_turns_in_writer_order(
    store: ConversationStore, session_id: str, workers: list[str], count: int
) -> None:
    """Every turn exactly once, question and answer adjacent, each writer's order kept."""
    if isinstance(store, ConversationStore):
        raw = json.loads(_path(store.root, session_id).read_bytes())  # valid JSON
        messages = raw["messages"]
    else:
        messages = [m.model_dump(mode="json") for m in _history(store, session_id)]
    assert len(messages) == 2 * count * len(workers)
    assert len({m["id"] for m in messages}) == len(messages)
    for user, answer in zip(messages[::2], messages[1::2], strict=True):
        assert (user["role"], answer["role"]) == ("user", "assistant")
        assert answer["content"] == f"a:{user['content']}"
        assert user["turn_id"] == answer["turn_id"] == user["content"]
    questions = [m["content"] for m in messages[::2]]
    expected = {turn_question(w, i) for w in workers for i in range(count)}
    assert len(questions) == len(expected) and set(questions) == expected
    for worker in workers:
        mine = [q for q in questions if q.startswith(f"{worker}-")]
        assert mine == [turn_question(worker, i) for i in range(count)]
    # The store loads it too (full schema validation).
    assert len(_history(store, session_id)) == len(messages)


def test_contention_keeps_every_turn_once_and_in_writer_order(backend) -> None:
    target = backend.target
    # PostgreSQL's turns cost a server round trip each: fewer keep the suite's time in check.
    count = TURNS if backend.name == "json" else TURNS // 5
    ctx = multiprocessing.get_context("spawn")
    barrier = ctx.Barrier(WRITERS + OWN_WRITERS + 1)
    shared = [f"w{w}" for w in range(WRITERS)]
    own = [f"o{w}" for w in range(OWN_WRITERS)]
    procs = [
        ctx.Process(target=append_turns, args=(target, "shared", w, count, barrier)) for w in shared
    ] + [ctx.Process(target=append_turns, args=(target, w, w, count, barrier)) for w in own]
    for proc in procs:
        proc.start()
    barrier.wait(timeout=120)  # every child imported the store and is ready
    started = time.perf_counter()
    for proc in procs:
        proc.join(timeout=180)
    elapsed = time.perf_counter() - started
    assert [proc.exitcode for proc in procs] == [0] * len(procs)
    turns = (WRITERS + OWN_WRITERS) * count
    print(
        f"\n{turns} add_turn from {len(procs)} processes in {elapsed:.1f}s: {turns / elapsed:.0f}/s"
    )

    store = backend.open()
    _assert_all_turns_in_writer_order(store, "shared", shared, count)
    for worker in own:
        _assert_all_turns_in_writer_order(store, worker, [worker], count)
    if backend.name == "json":
        assert _leftovers(backend.root) == []
    checks = store.check_sessions()
    assert {c.status for c in checks} == {"ok"} and len(checks) == 1 + OWN_WRITERS
    assert store.list_sessions(tenant=T, caller_app=A)[1] == 1 + OWN_WRITERS


def test_threads_of_one_process_contend_correctly(backend) -> None:
    store = backend.open(lock_timeout=30)
    workers = [f"t{w}" for w in range(6)]

    def run(worker: str) -> None:
        for i in range(40):
            _turn(store, "s", turn_question(worker, i), turn_id=turn_question(worker, i))

    threads = [threading.Thread(target=run, args=(w,)) for w in workers]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    _assert_all_turns_in_writer_order(store, "s", workers, 40)
    if backend.name == "json":
        assert _leftovers(store.root) == []


# ---------------------------------------------------------------------------- hand-over


def test_waiting_writers_hand_over_and_one_write_persists_all(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = ConversationStore(tmp_path / "data", lock_timeout=10)
    store.create_session(tenant=T, caller_app=A, session_id="s")
    # Waiters never take the lock themselves here: the next leader must write for them.
    monkeypatch.setattr(group_commit_module, "HANDOFF_LOCK_RETRY", 60.0)
    writes: list[Path] = []
    real_write = store_files_module.atomic_write

    def counting(path: Path, data: bytes) -> None:
        writes.append(path)
        real_write(path, data)

    monkeypatch.setattr(store_files_module, "atomic_write", counting)
    lock = FileLock(store.root / T / A / "s.json.lock")
    lock.acquire()
    threads = [threading.Thread(target=_turn, args=(store, "s", f"h{w}")) for w in range(3)]
    for thread in threads:
        thread.start()
    _wait_for(lambda: len(_pending_ops(store.root, "s")) == 3)
    lock.release()
    _turn(store, "s", "leader")
    for thread in threads:
        thread.join(timeout=10)
    # Four turns, fewer rewrites than turns: the leader wrote the waiters' turns for them
    # (one rewrite on a quiet machine; a loaded one may split the batch in two rounds).
    assert 1 <= len(writes) <= 2
    questions = [m.content for m in _history(store, "s") if m.role == "user"]
    assert sorted(questions[:3]) == ["h0", "h1", "h2"] and questions[3] == "leader"
    assert _leftovers(store.root) == []


def test_leader_dying_after_its_write_leaves_the_outcome_to_the_owner(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = ConversationStore(tmp_path / "data", lock_timeout=10)
    store.create_session(tenant=T, caller_app=A, session_id="s")
    lock = FileLock(store.root / T / A / "s.json.lock")
    lock.acquire()
    result: list[tuple[Message, Message]] = []
    waiter = threading.Thread(
        target=lambda: result.append(
            store.add_turn(
                tenant=T, caller_app=A, session_id="s", question="w", answer="a", metadata=META
            )
        )
    )
    waiter.start()
    _wait_for(lambda: len(_pending_ops(store.root, "s")) == 1)
    # The leader writes the handed-over turn but "dies" before telling its owner.
    monkeypatch.setattr(group_commit_module, "report", lambda *args: None)
    lock.release()
    _turn(store, "s", "leader")
    waiter.join(timeout=10)
    [(user, answer)] = result
    history = _history(store, "s")
    assert [m.content for m in history] == ["w", "a", "leader", "a:leader"]
    assert [m.id for m in history[:2]] == [user.id, answer.id]  # found, not written twice
    monkeypatch.undo()
    assert [p.suffix for p in spool_dir(_path(store.root, "s")).iterdir()] == []


class _Crash(BaseException):
    """Stands for the leader process dying."""


def test_leader_dying_before_its_write_lets_the_owner_write(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = ConversationStore(tmp_path / "data", lock_timeout=10)
    store.create_session(tenant=T, caller_app=A, session_id="s")
    before = _path(store.root, "s").read_bytes()
    lock = FileLock(store.root / T / A / "s.json.lock")
    lock.acquire()
    waiter = threading.Thread(target=_turn, args=(store, "s", "w"))
    waiter.start()
    _wait_for(lambda: len(_pending_ops(store.root, "s")) == 1)

    real_apply_own = group_commit_module.apply_own

    def crash_in_main_thread(*args: object, **kwargs: object):
        if threading.current_thread() is threading.main_thread():
            raise _Crash
        return real_apply_own(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(group_commit_module, "apply_own", crash_in_main_thread)
    lock.release()
    with pytest.raises(_Crash):
        _turn(store, "s", "leader")
    assert _path(store.root, "s").read_bytes() == before  # the file was not touched
    waiter.join(timeout=10)
    assert [m.content for m in _history(store, "s")] == ["w", "a:w"]


def test_handed_over_retry_of_a_stored_turn_is_answered_by_its_owner(tmp_path: Path) -> None:
    store = ConversationStore(tmp_path / "data", lock_timeout=10)
    first = store.add_turn(
        tenant=T,
        caller_app=A,
        session_id="s",
        question="q",
        answer="a",
        metadata=META,
        turn_id="t-1",
        create=True,
    )
    lock = FileLock(store.root / T / A / "s.json.lock")
    lock.acquire()
    result: list[tuple[Message, Message]] = []
    retry = threading.Thread(
        target=lambda: result.append(
            store.add_turn(
                tenant=T,
                caller_app=A,
                session_id="s",
                question="q",
                answer="a (retry)",
                metadata=META,
                turn_id="t-1",
            )
        )
    )
    retry.start()
    _wait_for(lambda: len(_pending_ops(store.root, "s")) == 1)
    lock.release()
    _turn(store, "s", "other")  # leads, rejects the possible duplicate, writes its own
    retry.join(timeout=10)
    assert result == [first]
    assert [m.content for m in _history(store, "s")] == ["q", "a", "other", "a:other"]


def test_ops_of_dead_writers_expire_and_bad_op_files_are_rejected(tmp_path: Path) -> None:
    store = ConversationStore(tmp_path / "data", lock_timeout=10)
    _turn(store, "s", "first")
    spool = spool_dir(_path(store.root, "s"))
    now = time.time()
    ghost = Message(id="msg_ghost", role="user", content="ghost", created_at="2025-01-01T00:00:00Z")
    Ticket.publish(
        spool,
        ghost.id,
        encode_op(
            kind="message",
            create=False,
            turn_id=None,
            question=None,
            expires=now - 60,
            lines=[ghost.model_dump_json().encode()],
        ),
    )
    (spool / f"{time.time_ns():020d}-msg_junk.op").write_bytes(b"\x00 not an op")
    _turn(store, "s", "second")
    assert [m.content for m in _history(store, "s")] == ["first", "a:first", "second", "a:second"]
    assert [p.name.rpartition(".")[2] for p in spool.iterdir()] == ["rejected"]


# ---------------------------------------------------------------------------- lock timeout


def test_lock_timeout_is_store_busy_and_writes_nothing(backend) -> None:
    store = backend.open(lock_timeout=0.2)
    _turn(store, "s", "q0")
    before = _history(store, "s")
    if backend.name == "json":
        path = _path(store.root, "s")
        raw_before = path.read_bytes()
    with backend.hold_lock(T, A, "s"):
        started = time.monotonic()
        with pytest.raises(StoreBusyError) as excinfo:
            _turn(store, "s", "q1")
        assert time.monotonic() - started < 2.0
        assert excinfo.value.retryable and excinfo.value.timeout == 0.2
        with pytest.raises(StoreBusyError):
            store.add_message(tenant=T, caller_app=A, session_id="s", role="user", content="x")
        with pytest.raises(StoreBusyError):
            store.update_session(tenant=T, caller_app=A, session_id="s", title="t")
        assert len(_history(store, "s")) == 2  # reads never wait
    assert _history(store, "s") == before
    if backend.name == "json":
        assert path.read_bytes() == raw_before
        assert _leftovers(store.root) == []  # the handed-over append was withdrawn
    _turn(store, "s", "q1")
    assert len(_history(store, "s")) == 4


@pytest.fixture(scope="module")
def api(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[TestClient, object]]:
    services = make_services(tmp_path_factory.mktemp("api"), lock_timeout=0.3)
    with TestClient(create_app(services)) as client:
        yield client, services
    services.close()


@pytest.fixture(scope="module")
def pg_api(tmp_path_factory: pytest.TempPathFactory, pg_cluster):
    from support.backends import PostgresBackend
    from support.postgres import fresh_database

    name, url = fresh_database(pg_cluster)
    services = make_services(tmp_path_factory.mktemp("pg-api"), lock_timeout=0.3, database_url=url)
    with TestClient(create_app(services)) as client:
        yield client, services, PostgresBackend(url)
    services.close()
    pg_cluster.drop_database(name)


def _api_session_path(services: object, session_id: str) -> Path:
    return services.store.root / "default" / "default" / f"{session_id}.json"  # type: ignore[attr-defined]


@pytest.fixture(params=["json", "postgres"])
def api_backend(request, tmp_path):
    """(client, services, backend) over the JSON files or PostgreSQL."""
    from support.backends import JsonBackend

    if request.param == "json":
        client, services = request.getfixturevalue("api")
        return client, services, JsonBackend(services.store.root)
    return request.getfixturevalue("pg_api")


def test_api_lock_timeout_is_503_store_busy_and_nothing_is_written(api_backend) -> None:
    client, services, backend = api_backend
    first = client.post(
        "/chat", json={"query": "Résume le rapport annuel 2024", "thread_id": "busy"}
    )
    assert first.status_code == 200, first.text
    before = client.get("/sessions/busy/messages").json()
    logged = len(services.querylog.thread("busy"))
    with backend.hold_lock("default", "default", "busy"):
        response = client.post("/chat", json={"query": "Détaille S2", "thread_id": "busy"})
    assert response.status_code == 503
    assert response.json()["error"]["code"] == "store_busy"
    assert response.headers["Retry-After"] == "1"
    assert client.get("/sessions/busy/messages").json() == before
    assert len(services.querylog.thread("busy")) == logged
    retried = client.post("/chat", json={"query": "Détaille S2", "thread_id": "busy"})
    assert retried.status_code == 200
    assert client.get("/sessions/busy/messages").json()["count"] == 4


def test_api_corrupt_session_is_409_and_others_keep_working(api) -> None:
    client, services = api
    assert client.post("/chat", json={"query": "hello", "thread_id": "api-bad"}).status_code == 200
    path = _api_session_path(services, "api-bad")
    path.write_bytes(path.read_bytes()[:60])
    for response in (
        client.get("/sessions/api-bad"),
        client.get("/sessions/api-bad/messages"),
        client.post("/chat", json={"query": "hello again", "session_id": "api-bad"}),
        client.post("/chat", json={"query": "hello again", "thread_id": "api-bad"}),
    ):
        assert response.status_code == 409, response.text
        assert response.json()["error"]["code"] == "session_corrupt"
    assert client.post("/chat", json={"query": "hello", "thread_id": "api-good"}).status_code == 200
    listed = [s["id"] for s in client.get("/sessions", params={"limit": 200}).json()["data"]]
    assert "api-good" in listed and "api-bad" not in listed


def test_api_a_directory_in_place_of_a_session_file_is_409_even_to_delete(api) -> None:
    client, services = api
    path = _api_session_path(services, "api-dir")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.mkdir()
    for response in (client.get("/sessions/api-dir"), client.delete("/sessions/api-dir")):
        assert response.status_code == 409, response.text  # DELETE was a 500
        assert response.json()["error"]["code"] == "session_corrupt"
    assert path.is_dir()  # left for an operator


# Text no backend can keep: PostgreSQL refuses NUL in text and JSONB (the JSON files took
# it), and a lone surrogate, which JSON escapes can spell, is not Unicode at all.
UNSTORABLE = {"nul": "a\x00b", "lone-surrogate": "a\ud800b"}


@pytest.mark.parametrize("text", UNSTORABLE.values(), ids=UNSTORABLE.keys())
def test_api_refuses_text_no_backend_can_store_alike(api_backend, text) -> None:
    client, services, backend = api_backend
    sid = f"text-{backend.name}-{len(text.encode('utf-8', 'surrogatepass'))}"
    done = client.post("/chat", json={"query": "What SLA applies?", "thread_id": sid})
    assert done.status_code == 200, done.text
    answer = client.get(f"/sessions/{sid}/messages").json()["data"][-1]["id"]
    export = client.get(f"/sessions/{sid}/export", params={"format": "json"}).json()
    export["session"]["messages"][0]["content"] = text
    completion = {"model": "threadline", "messages": [{"role": "user", "content": text}]}
    parts = [{"role": "user", "content": [{"type": "text", "text": text}]}]
    requests = [
        ("POST", "/chat", {"query": f"hello {text}", "thread_id": sid}),
        ("POST", "/chat/stream", {"query": f"hello {text}", "thread_id": sid}),
        ("POST", "/chat", {"query": "What SLA applies?", "thread_id": sid, "sources": [text]}),
        ("POST", "/chat", {"query": "What SLA applies?", "thread_id": sid, "workspace": text}),
        ("POST", "/sessions", {"title": text}),
        ("PATCH", f"/sessions/{sid}", {"title": text}),
        ("POST", f"/sessions/{sid}/messages/{answer}/feedback", {"rating": "up", "comment": text}),
        ("POST", f"/sessions/{sid}/regenerate", {"sources": [text]}),
        ("POST", "/sessions/import?session_id=text-import", export),
        ("POST", "/v1/chat/completions", completion),
        ("POST", "/v1/chat/completions", {**completion, "messages": parts}),
    ]
    before = client.get(f"/sessions/{sid}/messages").json()
    listed = client.get("/sessions", params={"limit": 200}).json()["count"]
    for method, url, body in requests:
        # Escaped JSON (ensure_ascii), as a client would send a lone surrogate.
        response = client.request(
            method, url, content=json.dumps(body), headers={"content-type": "application/json"}
        )
        expected = 400 if url.startswith("/v1") else 422
        assert response.status_code == expected, (url, body, response.text)
        assert response.json()["error"]["code"] == "validation_error", (url, response.text)
    assert client.get(f"/sessions/{sid}/messages").json() == before
    assert client.get("/sessions", params={"limit": 200}).json()["count"] == listed


def test_api_page_past_the_end_is_empty_alike(api_backend) -> None:
    client, _, _ = api_backend
    assert client.post("/chat", json={"query": "hello", "thread_id": "paged"}).status_code == 200
    # Past PostgreSQL's bigint too: any integer the query string carries.
    for offset in (10**6, 2**63, 10**30):
        response = client.get("/sessions", params={"offset": offset})
        assert response.status_code == 200, response.text
        assert response.json()["data"] == [] and response.json()["count"] >= 1


# ---------------------------------------------------------------------------- crashes

CRASH_ITERATIONS = {"json": 100, "postgres": 30}
"""Kill rounds per backend: PostgreSQL's writers open a pool first, so a round costs more."""


def test_sigkill_at_random_points_never_corrupts_or_loses_acknowledged_turns(backend) -> None:
    json_files = backend.name == "json"
    root = backend.root if json_files else Path("/nonexistent")
    iterations = CRASH_ITERATIONS[backend.name]
    ctx = multiprocessing.get_context("spawn")
    conn, driver_conn = ctx.Pipe()
    seed = int(os.environ.get("STORE_CRASH_SEED", "20250611"))  # replay or vary the kills
    # PostgreSQL writers need longer to reach their first write (connecting).
    max_delay = 0.08 if json_files else 0.4
    driver = ctx.Process(target=crash_driver, args=(driver_conn, backend.target, seed, max_delay))
    driver.start()
    store = backend.open(lock_timeout=5)
    counts: dict[str, int] = {}
    acked: dict[str, set[str]] = {}
    seen = {"temp files": 0, "hand-over files": 0}
    before: set[str] = set()
    started = time.monotonic()
    for iteration in range(iterations):
        # Two writers contend on two sessions (so hand-overs happen); a fresh pair of
        # sessions every 25 iterations keeps the files, and the checks, small.
        sessions = [f"c{iteration // 25}-a", f"c{iteration // 25}-b"]
        conn.send((iteration, sessions))
        assert conn.poll(60), "the crash driver stopped answering"
        exitcodes, acks = conn.recv()
        assert exitcodes == [-signal.SIGKILL] * 2  # killed, never failed on their own
        for line in acks:
            session_id, turn_id = line.split()
            acked.setdefault(session_id, set()).add(turn_id)
        if json_files:
            # How often a kill left something behind (landed mid-write or mid-hand-over).
            leftovers = set(_leftovers(root))
            new = leftovers - before
            before = leftovers
            seen["temp files"] += any(".spool" not in name for name in new)
            seen["hand-over files"] += any(".spool" in name for name in new)
            files = sorted((root / T / A).glob("*.json"))
            session_ids = [path.name[: -len(".json")] for path in files]
            for path in files:
                json.loads(path.read_bytes())  # complete, valid JSON
        else:
            session_ids = [s.id for s in store.list_sessions(tenant=T, caller_app=A, limit=1000)[0]]
        for session_id in session_ids:
            messages = _history(store, session_id)  # and a valid session
            assert len({m.id for m in messages}) == len(messages)
            questions = [m.content for m in messages if m.role == "user"]
            assert len(set(questions)) == len(questions)
            assert acked.get(session_id, set()) <= set(questions)  # acknowledged => kept
            assert len(messages) >= counts.get(session_id, 0)  # never shrinks
            counts[session_id] = len(messages)
            for writer in {q.rpartition("-t")[0] for q in questions}:
                mine = [
                    int(q.rpartition("-t")[2]) for q in questions if q.rpartition("-t")[0] == writer
                ]
                assert mine == sorted(mine)
        # Temp and hand-over files are never taken for sessions.
        assert store.list_sessions(tenant=T, caller_app=A)[1] == len(session_ids)

    conn.send(None)
    driver.join(timeout=10)
    elapsed = time.monotonic() - started
    total = sum(len(ids) for ids in acked.values())
    print(
        f"\n{iterations} kill rounds in {elapsed:.1f}s, {total} acknowledged turns kept; "
        f"rounds that left new {seen}"
    )
    assert total > iterations  # the kills did land among writes
    # The store keeps working on every session, and a check finds nothing damaged.
    for session_id in session_ids:
        _turn(store, session_id, "after the crashes")
    checks = store.check_sessions()
    assert {c.status for c in checks} <= {"ok", "stale_temp"}
    store.check_sessions(repair=True)
    assert {c.status for c in store.check_sessions()} == {"ok"}
    if json_files:
        # Interrupted writes' temp files are gone; young hand-over leftovers age out.
        assert [name for name in _leftovers(root) if ".spool" not in name] == []


# ---------------------------------------------------------------------------- damaged files


def _three_turns(store: ConversationStore, session_id: str) -> list[Message]:
    for i in range(3):
        _turn(store, session_id, f"{session_id}-q{i}")
    return _history(store, session_id)


def _truncate(data: bytes) -> bytes:
    return data[:-40]  # cuts the trailer and the end of the last message


def _garble_third_message(data: bytes) -> bytes:
    lines = data.split(b"\n")
    lines[3] = b'{"id": "broken'  # line 0 is the header; line 3 holds message 3
    return b"\n".join(lines)


def _wrong_schema(data: bytes) -> bytes:
    raw = json.loads(data)
    raw["messages"] = "not a list"
    return json.dumps(raw).encode()


def _future_version(data: bytes) -> bytes:
    raw = json.loads(data)
    raw["schema_version"] = 99
    return json.dumps(raw).encode()


DAMAGE = {
    "truncated": (_truncate, "invalid JSON", 5),
    "invalid-json": (_garble_third_message, "invalid JSON", 5),
    "wrong-schema": (_wrong_schema, "schema", None),
    "future-version": (_future_version, "schema_version 99", None),
}


@pytest.fixture
def damaged(request: pytest.FixtureRequest, tmp_path: Path):
    store = ConversationStore(tmp_path / "data", lock_timeout=2)
    original = _three_turns(store, "bad")
    good = _three_turns(store, "good")
    damage, reason, salvageable = DAMAGE[request.param]
    path = _path(store.root, "bad")
    path.write_bytes(damage(path.read_bytes()))
    return store, original, good, reason, salvageable


@pytest.mark.parametrize("damaged", list(DAMAGE), indirect=True)
def test_damaged_session_is_isolated_and_reported(damaged) -> None:
    store, _, good, reason, _ = damaged
    keys = {"tenant": T, "caller_app": A, "session_id": "bad"}
    calls = [
        lambda: store.get_session(**keys),
        lambda: store.get_history(**keys),
        lambda: store.get_thread_state(**keys),
        lambda: store.add_message(**keys, role="user", content="x"),
        lambda: _turn(store, "bad", "x"),
        lambda: store.update_session(**keys, title="x"),
    ]
    bytes_before = _path(store.root, "bad").read_bytes()
    for call in calls:
        with pytest.raises(CorruptSessionError, match=re.escape(reason)):
            call()
    assert _path(store.root, "bad").read_bytes() == bytes_before  # never rewritten
    _turn(store, "good", "still fine")
    assert len(_history(store, "good")) == len(good) + 2
    page, total = store.list_sessions(tenant=T, caller_app=A)
    assert total == 1 and [s.id for s in page] == ["good"]
    checks = {c.session_id: c for c in store.check_sessions()}
    assert checks["good"].status == "ok" and checks["good"].message_count == len(good) + 2
    assert checks["bad"].status == "corrupt" and reason in (checks["bad"].reason or "")


@pytest.mark.parametrize("damaged", list(DAMAGE), indirect=True)
def test_repair_salvages_what_it_can_and_keeps_the_original(damaged) -> None:
    store, original, _, _, salvageable = damaged
    damaged_bytes = _path(store.root, "bad").read_bytes()
    (check,) = [c for c in store.check_sessions(repair=True) if c.session_id == "bad"]
    if salvageable is None:
        assert check.status == "corrupt" and "not repairable" in (check.reason or "")
        assert _path(store.root, "bad").read_bytes() == damaged_bytes
        return
    assert check.status == "repaired"
    assert check.message_count == salvageable and check.dropped == 1
    assert check.moved_to is not None and check.moved_to.read_bytes() == damaged_bytes
    kept = _history(store, "bad")
    assert len(kept) == salvageable
    assert all(message in original for message in kept)  # intact messages, unchanged
    assert [m.id for m in kept] == [m.id for m in original if m in kept]  # order kept
    _turn(store, "bad", "after repair")
    assert {c.status for c in store.check_sessions()} == {"ok"}


@pytest.mark.parametrize("damaged", list(DAMAGE), indirect=True)
def test_quarantine_moves_damaged_files_aside_and_frees_the_id(damaged) -> None:
    store, *_ = damaged
    damaged_bytes = _path(store.root, "bad").read_bytes()
    (check,) = [c for c in store.check_sessions(quarantine=True) if c.session_id == "bad"]
    assert check.status == "quarantined" and check.moved_to is not None
    assert check.moved_to.read_bytes() == damaged_bytes
    relative = check.moved_to.relative_to(store.root)
    assert relative.parts[:3] == (QUARANTINE_DIR, T, A)
    assert re.fullmatch(r"bad\.\d{8}T\d{12}Z\.json", relative.parts[3])
    assert store.get_session(tenant=T, caller_app=A, session_id="bad") is None
    store.create_session(tenant=T, caller_app=A, session_id="bad")
    assert store.list_sessions(tenant=T, caller_app=A)[1] == 2
    assert {c.status for c in store.check_sessions()} == {"ok"}  # the quarantine is not scanned


def test_truncated_old_indented_file_keeps_its_complete_messages(tmp_path: Path) -> None:
    store = ConversationStore(tmp_path / "data")
    original = _three_turns(store, "old")
    session = store.get_session(tenant=T, caller_app=A, session_id="old")
    assert session is not None
    legacy = session.model_dump_json(indent=2).encode()  # what older versions wrote
    cut = legacy.index(original[4].id.encode())  # inside message 5
    _path(store.root, "old").write_bytes(legacy[:cut])
    (check,) = store.check_sessions(repair=True)
    assert check.status == "repaired" and check.message_count == 4
    assert _history(store, "old") == original[:4]


def test_quarantine_session_moves_any_file_and_never_deletes(tmp_path: Path) -> None:
    store = ConversationStore(tmp_path / "data")
    _three_turns(store, "s")
    data = _path(store.root, "s").read_bytes()
    moved = store.quarantine_session(tenant=T, caller_app=A, session_id="s")
    assert moved.read_bytes() == data and not _path(store.root, "s").exists()
    with pytest.raises(SessionNotFoundError):
        store.quarantine_session(tenant=T, caller_app=A, session_id="s")
    store.create_session(tenant=T, caller_app=A, session_id="s")
    again = store.quarantine_session(tenant=T, caller_app=A, session_id="s")
    assert again != moved and moved.exists()


def test_cli_sessions_check_exit_codes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("THREADLINE_DATA_DIR", str(tmp_path))
    monkeypatch.chdir(tmp_path)  # no developer .env
    get_settings.cache_clear()
    try:
        store = ConversationStore(get_settings().sessions_dir)
        _three_turns(store, "good")
        _three_turns(store, "cut")
        _three_turns(store, "alien")
        for session_id, damage in (("cut", _truncate), ("alien", _future_version)):
            path = _path(store.root, session_id)
            path.write_bytes(damage(path.read_bytes()))
        runner = CliRunner()

        checked = runner.invoke(cli_app, ["sessions", "check"])
        assert checked.exit_code == 1, checked.output
        assert "corrupt" in checked.output and "1 ok" in checked.output

        repaired = runner.invoke(cli_app, ["sessions", "check", "--repair"])
        assert repaired.exit_code == 1, repaired.output  # "alien" cannot be repaired
        assert "1 repaired" in repaired.output and "1 corrupt" in repaired.output

        moved = runner.invoke(cli_app, ["sessions", "check", "--repair", "--quarantine"])
        assert moved.exit_code == 0, moved.output
        assert "quarantined" in moved.output

        clean = runner.invoke(cli_app, ["sessions", "check"])
        assert clean.exit_code == 0 and "2 ok" in clean.output
    finally:
        get_settings.cache_clear()


# ---------------------------------------------------------------------------- file layout


def test_file_is_plain_json_one_message_per_line_with_checksum(tmp_path: Path) -> None:
    store = ConversationStore(tmp_path / "data")
    messages = _three_turns(store, "s")
    data = _path(store.root, "s").read_bytes()
    raw = json.loads(data)
    assert raw["schema_version"] == 1 and len(raw["messages"]) == 6
    header, *lines, trailer = data.split(b"\n")[:-1]
    assert header.endswith(b'"messages":[') and trailer == b"]}"
    assert [json.loads(line.rstrip(b","))["id"] for line in lines] == [m.id for m in messages]
    body = data[len(header) + 1 : -len(b"]}\n")]
    assert raw["messages_bytes"] == len(body) and raw["messages_crc32"] == zlib.crc32(body)


def test_old_indented_files_are_read_and_rewritten_in_the_line_layout(tmp_path: Path) -> None:
    store = ConversationStore(tmp_path / "data")
    original = _three_turns(store, "s")
    session = store.get_session(tenant=T, caller_app=A, session_id="s")
    assert session is not None
    _path(store.root, "s").write_text(session.model_dump_json(indent=2))  # the old layout
    assert store.get_session(tenant=T, caller_app=A, session_id="s") == session
    _turn(store, "s", "new")
    assert _history(store, "s")[:6] == original and len(_history(store, "s")) == 8
    assert _path(store.root, "s").read_bytes().split(b"\n")[0].endswith(b'"messages":[')


def test_hand_edits_are_validated_not_trusted(tmp_path: Path) -> None:
    store = ConversationStore(tmp_path / "data")
    _three_turns(store, "s")
    path = _path(store.root, "s")
    # A valid edit (the checksum no longer matches): validated in full, then kept.
    path.write_bytes(path.read_bytes().replace(b'"content":"s-q0"', b'"content":"edited"'))
    _turn(store, "s", "next")
    assert _history(store, "s")[0].content == "edited"
    # A same-length edit that breaks the schema is caught before anything is appended.
    edited = path.read_bytes().replace(b'"role":"user"', b'"role":"usex"', 1)
    path.write_bytes(edited)
    with pytest.raises(CorruptSessionError):
        _turn(store, "s", "refused")
    assert path.read_bytes() == edited


def test_turn_lookups_are_exact_by_search_and_by_index(tmp_path: Path) -> None:
    from threadline.store.layout import SessionDoc, dump_message

    store = ConversationStore(tmp_path / "data")
    tricky = ["plain", 'quo"te', "back\\slash", "unicod\u00e9\u2028", "t-1", "t-10"]
    for turn_id in tricky[:-1]:
        _turn(store, "s", f"q {turn_id}", turn_id=turn_id)
    data = _path(store.root, "s").read_bytes()
    doc = SessionDoc.trusted(data, T, A, "s")
    assert doc is not None
    # The first lookup searches the bytes, later ones use the index: same answers.
    for _ in range(2):
        assert [doc.may_hold_turn(t) for t in tricky] == [True] * 5 + [False]
        assert not doc.may_hold_turn("quo") and not doc.may_hold_turn("t-")
    assert doc.turn_ids is not None
    doc.extend(
        [
            dump_message(
                Message(
                    id="m",
                    role="user",
                    content="x",
                    created_at=_history(store, "s")[0].created_at,
                    turn_id="t-10",
                )
            )
        ]
    )
    assert doc.may_hold_turn("t-10")
    _, after = doc.rendered()
    assert after.may_hold_turn("t-10") and not after.may_hold_turn("t-11")
