"""A turn racing another request on its conversation, over real HTTP and the real stores.

The graph reads the conversation in its first node and writes the turn in its last;
what another request does in between (here: delete the session) must not be undone
by the turn's write. The LLM is `OpenAIStub`, a real HTTP server on loopback, whose
responder runs the competing request while the turn waits for its answer: the race is
made certain, not left to timing.
"""

from __future__ import annotations

import copy
from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient
from pydantic import SecretStr

from support.openai_stub import Interleave, OpenAIStub
from threadline.api.main import create_app
from threadline.services import Services

QUESTION = "What uptime does the Enterprise plan SLA guarantee?"


@pytest.fixture(scope="module")
def interleave() -> Iterator[Interleave]:
    yield Interleave(rewrite_fallback=QUESTION)


@pytest.fixture(scope="module")
def stub(interleave):
    with OpenAIStub(responder=interleave.respond) as server:
        yield server


@pytest.fixture(params=["json", "postgres"])
def client(request, sample_services: Services, stub) -> Iterator[TestClient]:
    """The app over the sample index with the stub as its LLM, on the JSON store or PostgreSQL."""
    base = sample_services
    base.kb, base.conversations  # noqa: B018 (built once, then shared)
    services = copy.copy(base)
    update: dict[str, Any] = {"llm": "openai", "openai_api_key": None}
    update["openai_base_url"] = stub.base_url
    if request.param == "postgres":
        update["database_url"] = SecretStr(request.getfixturevalue("pg_url"))
    else:
        base.store, base.querylog  # noqa: B018
    services.settings = base.settings.model_copy(update=update)
    for built in ("llm", "pool", "store", "querylog") if request.param == "postgres" else ("llm",):
        services.__dict__.pop(built, None)
    with TestClient(create_app(services)) as test_client:
        yield test_client
    if request.param == "postgres":
        services.pool.close()


def messages(client: TestClient, sid: str) -> Any:
    return client.get(f"/sessions/{sid}/messages")


@pytest.mark.parametrize("named_by", ["session_id", "thread_id"])
def test_a_session_deleted_during_its_turn_stays_deleted(client, interleave, named_by):
    # The turn used to write with "create if missing": a session deleted while its turn
    # ran came back, holding only that last turn (its earlier turns and title gone, the
    # conversation index already told to forget it), after DELETE had answered 200.
    sid = f"race-delete-{named_by}"
    first = client.post("/chat", json={"query": QUESTION, "thread_id": sid})
    assert first.status_code == 200, first.text
    assert messages(client, sid).json()["count"] == 2

    deleted: list[int] = []
    interleave.action = lambda: deleted.append(client.delete(f"/sessions/{sid}").status_code)
    racing = client.post("/chat", json={"query": "And for P2 incidents?", named_by: sid})
    assert deleted == [200]
    assert racing.status_code == 404, racing.text
    assert racing.json()["error"]["code"] == "session_not_found"
    assert messages(client, sid).status_code == 404
    assert sid not in [s["id"] for s in client.get("/sessions").json()["data"]]


def test_a_session_deleted_during_a_streamed_turn_ends_the_stream_with_session_not_found(
    client, interleave
):
    sid = "race-delete-stream"
    assert client.post("/chat", json={"query": QUESTION, "thread_id": sid}).status_code == 200
    interleave.action = lambda: client.delete(f"/sessions/{sid}")
    with client.stream(
        "POST", "/chat/stream", json={"query": "And for P2 incidents?", "session_id": sid}
    ) as stream:
        body = "".join(stream.iter_text())
    assert "event: error" in body and '"code": "session_not_found"' in body, body
    assert "event: final" not in body
    assert messages(client, sid).status_code == 404


def test_a_new_thread_is_still_created_by_its_first_turn(client, interleave):
    # The rule is "a turn never recreates the session it read", not "turns never create".
    created = client.post("/chat", json={"query": QUESTION, "thread_id": "race-new-thread"})
    assert created.status_code == 200, created.text
    assert messages(client, "race-new-thread").json()["count"] == 2


def test_a_session_deleted_during_an_openai_stream_ends_it_with_session_not_found(
    client, interleave
):
    sid = "race-delete-openai"
    assert client.post("/chat", json={"query": QUESTION, "thread_id": sid}).status_code == 200
    interleave.action = lambda: client.delete(f"/sessions/{sid}")
    request = {
        "model": "threadline",
        "stream": True,
        "messages": [{"role": "user", "content": "And for P2 incidents?"}],
    }
    headers = {"X-Threadline-Thread-Id": sid}
    with client.stream("POST", "/v1/chat/completions", json=request, headers=headers) as stream:
        body = "".join(stream.iter_text())
    assert '"code": "session_not_found"' in body, body
    assert "[DONE]" not in body
    assert messages(client, sid).status_code == 404


def test_a_regenerate_overtaken_by_a_new_question_is_409_and_keeps_the_new_turn(client, interleave):
    sid = "race-regenerate"
    assert client.post("/chat", json={"query": QUESTION, "thread_id": sid}).status_code == 200
    before = messages(client, sid).json()["data"]
    newer: list[int] = []
    interleave.action = lambda: newer.append(
        client.post("/chat", json={"query": "And for P2 incidents?", "session_id": sid}).status_code
    )
    regenerated = client.post(f"/sessions/{sid}/regenerate", json={})
    assert newer == [200]
    assert regenerated.status_code == 409, regenerated.text
    assert regenerated.json()["error"]["code"] == "turn_conflict"
    after = messages(client, sid).json()["data"]
    assert after[:2] == before and len(after) == 4  # the new turn, and no stray answer
    assert [m["role"] for m in after] == ["user", "assistant", "user", "assistant"]


def test_a_fork_taken_during_a_turn_holds_what_was_stored_before_it(client, interleave):
    sid = "race-fork"
    assert client.post("/chat", json={"query": QUESTION, "thread_id": sid}).status_code == 200
    forks: list[Any] = []
    interleave.action = lambda: forks.append(client.post(f"/sessions/{sid}/fork", json={}))
    turn = client.post("/chat", json={"query": "And for P2 incidents?", "session_id": sid})
    assert turn.status_code == 200, turn.text
    assert forks[0].status_code == 201, forks[0].text
    fork = forks[0].json()
    assert fork["message_count"] == 2 and fork["parent_session_id"] == sid
    assert messages(client, fork["id"]).json()["count"] == 2
    assert messages(client, sid).json()["count"] == 4
