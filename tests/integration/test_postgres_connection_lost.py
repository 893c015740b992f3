"""PostgreSQL's connection lost in the middle of a turn, over the real app and database.

A turn reads the conversation in its first node, calls the model, then writes the
turn. Here the database side goes away at each of those moments: the backend that
serves the turn is killed with `pg_terminate_backend` while its statement runs (held
on a table lock so the moment is certain), or every backend is cut while the model
answers. The client must get a 503 with a stable code or a stored answer, never a
500; the turn is stored once or not at all; and the next request is served on a new
connection. The LLM is `OpenAIStub` on loopback, whose responder runs the cut.
"""

from __future__ import annotations

import copy
import threading
import time
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from typing import Any

import psycopg
import pytest
from fastapi.testclient import TestClient
from pydantic import SecretStr

from support.openai_stub import Interleave, OpenAIStub
from threadline.api.main import create_app
from threadline.services import Services

QUESTION = "What uptime does the Enterprise plan SLA guarantee?"
FOLLOWUP = "And for P2 incidents?"


@pytest.fixture(scope="module")
def interleave() -> Iterator[Interleave]:
    yield Interleave(rewrite_fallback=QUESTION)


@pytest.fixture(scope="module")
def stub(interleave):
    with OpenAIStub(responder=interleave.respond) as server:
        yield server


@pytest.fixture
def client(sample_services: Services, stub, pg_url) -> Iterator[TestClient]:
    """The app over the sample index, the stub as its LLM, the store and log in PostgreSQL."""
    base = sample_services
    base.kb, base.conversations  # noqa: B018 (built once, then shared)
    services = copy.copy(base)
    services.settings = base.settings.model_copy(
        update={
            "llm": "openai",
            "openai_api_key": None,
            "openai_base_url": stub.base_url,
            "database_url": SecretStr(pg_url),
        }
    )
    for built in ("llm", "pool", "store", "querylog"):
        services.__dict__.pop(built, None)
    with TestClient(create_app(services)) as test_client:
        yield test_client
    services.pool.close()


def own_backends() -> str:
    """SQL selecting the pids of the app's backends on this database (not the caller's)."""
    return (
        "SELECT pid FROM pg_stat_activity WHERE datname = current_database() "
        "AND pid <> pg_backend_pid() AND backend_type = 'client backend'"
    )


def terminate_all(url: str) -> int:
    """Cut every other connection to the database; return how many."""
    with psycopg.connect(url, autocommit=True) as admin:
        rows = admin.execute(
            f"SELECT pg_terminate_backend(pid) FROM ({own_backends()}) AS b"
        ).fetchall()
    return len(rows)


@contextmanager
def killed_while_waiting(url: str, table: str, mode: str) -> Iterator[list[str]]:
    """Hold `table` locked; the first backend waiting on it is terminated, then the lock drops.

    Yields the list of statements killed (filled once the kill happened).
    """
    killed: list[str] = []
    blocker = psycopg.connect(url)
    blocker.execute(f"LOCK TABLE {table} IN {mode} MODE")
    done = threading.Event()

    def kill_the_waiter() -> None:
        with psycopg.connect(url, autocommit=True) as admin:
            deadline = time.monotonic() + 30
            while time.monotonic() < deadline and not done.is_set():
                row = admin.execute(
                    "SELECT pid, query FROM pg_stat_activity WHERE datname = current_database() "
                    "AND wait_event_type = 'Lock' AND pid <> %s LIMIT 1",
                    [blocker.info.backend_pid],
                ).fetchone()
                if row:
                    admin.execute("SELECT pg_terminate_backend(%s)", [row[0]])
                    killed.append(row[1])
                    break
                time.sleep(0.05)
        blocker.rollback()
        blocker.close()

    killer = threading.Thread(target=kill_the_waiter, daemon=True)
    killer.start()
    try:
        yield killed
    finally:
        done.set()
        killer.join(timeout=40)


def user_turns(client: TestClient, sid: str) -> list[str]:
    response = client.get(f"/sessions/{sid}/messages")
    assert response.status_code == 200, response.text
    return [m["content"] for m in response.json()["data"] if m["role"] == "user"]


def start(client: TestClient, sid: str) -> None:
    first = client.post("/chat", json={"query": QUESTION, "thread_id": sid})
    assert first.status_code == 200, first.text


def assert_unavailable(response: Any) -> None:
    assert response.status_code == 503, response.text
    assert response.json()["error"]["code"] == "store_busy"
    assert "Retry-After" in response.headers


def test_every_connection_cut_while_the_model_answers_still_stores_the_turn_once(
    client, interleave, pg_url
):
    sid = "cut-during-llm"
    start(client, sid)
    cut: list[int] = []
    interleave.action = lambda: cut.append(terminate_all(pg_url))
    turn = client.post("/chat", json={"query": FOLLOWUP, "session_id": sid})
    assert cut and cut[0] >= 1  # the pool's open connections were there to cut
    assert turn.status_code == 200, turn.text  # the write took a fresh connection
    assert user_turns(client, sid) == [QUESTION, FOLLOWUP]


@contextmanager
def writes_killed_during_answer(interleave: Interleave, url: str) -> Iterator[list[list[str]]]:
    """While the model answers, lock `messages` against writes, so the turn's INSERT waits
    and is killed; EXCLUSIVE lets the turn's reads through.

    Yields, once the turn has run, the one list of statements killed; the lock drops on
    exit.
    """
    with ExitStack() as stack:
        held: list[list[str]] = []
        interleave.action = lambda: held.append(
            stack.enter_context(killed_while_waiting(url, "messages", "EXCLUSIVE"))
        )
        yield held


def test_the_turns_write_killed_mid_statement_is_503_nothing_stored_next_turn_served(
    client, interleave, pg_url
):
    sid = "killed-write"
    start(client, sid)
    with writes_killed_during_answer(interleave, pg_url) as held:
        turn = client.post("/chat", json={"query": FOLLOWUP, "session_id": sid})
    [killed] = held
    assert killed and "INSERT" in killed[0].upper(), killed
    assert_unavailable(turn)
    assert user_turns(client, sid) == [QUESTION]  # nothing half-written
    again = client.post("/chat", json={"query": FOLLOWUP, "session_id": sid})
    assert again.status_code == 200, again.text
    assert user_turns(client, sid) == [QUESTION, FOLLOWUP]


def test_the_turns_read_killed_is_503_and_the_next_turn_is_served(client, pg_url):
    sid = "killed-read"
    start(client, sid)
    with killed_while_waiting(pg_url, "messages", "ACCESS EXCLUSIVE") as killed:
        turn = client.post("/chat", json={"query": FOLLOWUP, "session_id": sid})
    assert killed, "no statement waited on the lock"
    assert_unavailable(turn)
    assert user_turns(client, sid) == [QUESTION]
    again = client.post("/chat", json={"query": FOLLOWUP, "session_id": sid})
    assert again.status_code == 200, again.text
    assert user_turns(client, sid) == [QUESTION, FOLLOWUP]


def test_a_streamed_turn_whose_write_is_killed_ends_with_a_store_busy_event(
    client, interleave, pg_url
):
    sid = "killed-stream"
    start(client, sid)
    with (
        writes_killed_during_answer(interleave, pg_url),
        client.stream(
            "POST", "/chat/stream", json={"query": FOLLOWUP, "session_id": sid}
        ) as stream,
    ):
        body = "".join(stream.iter_text())
    assert "event: error" in body and '"code": "store_busy"' in body, body
    assert "event: final" not in body
    assert user_turns(client, sid) == [QUESTION]


@pytest.mark.parametrize(
    "route",
    [
        ("GET", "/sessions", None),
        ("GET", "/sessions/cut-reads/messages", None),
        ("PATCH", "/sessions/cut-reads", {"title": "Renamed"}),
        ("GET", "/sessions/cut-reads/export?format=json", None),
    ],
)
def test_other_routes_answer_503_when_their_statement_is_killed(client, pg_url, route):
    start(client, "cut-reads")
    method, path, body = route
    with killed_while_waiting(pg_url, "messages", "ACCESS EXCLUSIVE") as killed:
        response = client.request(method, path, json=body)
    assert killed, "no statement waited on the lock"
    assert_unavailable(response)
    assert client.request(method, path, json=body).status_code == 200


def test_the_server_restarted_while_the_model_answers_still_stores_the_turn_once(
    client, interleave, pg_cluster
):
    sid = "restart-during-llm"
    start(client, sid)
    interleave.action = pg_cluster.restart
    turn = client.post("/chat", json={"query": FOLLOWUP, "session_id": sid})
    assert turn.status_code == 200, turn.text
    assert user_turns(client, sid) == [QUESTION, FOLLOWUP]


def test_the_log_write_killed_after_the_turn_is_stored_keeps_the_answer(client, interleave, pg_url):
    # The log mirrors the store: its row is lost, the stored turn is answered 200 once.
    sid = "killed-log"
    start(client, sid)
    with killed_while_waiting(pg_url, "queries_log", "EXCLUSIVE") as killed:
        turn = client.post("/chat", json={"query": FOLLOWUP, "session_id": sid})
    assert killed and "QUERIES_LOG" in killed[0].upper(), killed
    assert turn.status_code == 200, turn.text
    assert user_turns(client, sid) == [QUESTION, FOLLOWUP]
    assert client.post("/chat", json={"query": "Thanks", "session_id": sid}).status_code == 200
