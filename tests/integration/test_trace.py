"""The trace of a turn: stored with the answer and in the queries log, bounded and without
document text; returned on `"debug": true` and by the trace route only to caller apps
allowed it (THREADLINE_DEBUG_CALLER_APPS), 403 `debug_forbidden` otherwise."""

from __future__ import annotations

import json

import pytest
from fastapi.testclient import TestClient

from support.services import make_services
from threadline.api.main import create_app
from threadline.auth import ApiKeyEntry, hash_key, new_key

KEY_ALPHA, KEY_BETA = new_key(), new_key()
ALPHA, BETA = {"X-API-Key": KEY_ALPHA}, {"X-API-Key": KEY_BETA}
QUESTION = "What SLA applies to the enterprise plan?"


@pytest.fixture(scope="module")
def api(tmp_path_factory):
    services = make_services(
        tmp_path_factory.mktemp("trace"),
        api_keys=[
            ApiKeyEntry(name="a", sha256=hash_key(KEY_ALPHA), tenant="default"),
            ApiKeyEntry(name="b", sha256=hash_key(KEY_BETA), tenant="beta"),
        ],
        debug_caller_apps=["default", "ops"],
    )
    with TestClient(create_app(services)) as client:
        yield client, services
    services.close()


def test_debug_returns_the_stored_trace_with_scores_and_no_document_text(api):
    client, services = api
    reply = client.post(
        "/chat", json={"query": QUESTION, "thread_id": "tr-1", "debug": True}, headers=ALPHA
    )
    assert reply.status_code == 200, reply.text
    body = reply.json()
    trace = body["trace"]
    nodes = [entry["node"] for entry in trace]
    assert nodes[0] == "load_conversation" and nodes[-1] == "context"
    retrieve = next(e for e in trace if e["node"] == "retrieve")
    assert retrieve["scores"] and {"chunk_id", "title", "score"} <= set(retrieve["scores"][0])
    assert trace[-1]["packed"] and "text" not in trace[-1]["packed"][0]
    dumped = json.dumps(trace, ensure_ascii=False)
    first_sentence = body["answer"].split("[")[0].strip()
    assert len(first_sentence) > 30 and first_sentence not in dumped

    [row] = services.querylog.thread("tr-1")
    assert json.loads(row["trace"]) == trace  # the same trace, in the log
    messages = client.get("/sessions/tr-1/messages", headers=ALPHA).json()["data"]
    assert "trace" not in messages[-1]["metadata"]  # never in the messages listing
    shown = client.get(f"/sessions/tr-1/messages/{messages[-1]['id']}/trace", headers=ALPHA)
    assert shown.status_code == 200 and shown.json()["trace"] == trace


def test_without_debug_no_trace_is_returned_but_it_is_stored(api):
    client, services = api
    reply = client.post("/chat", json={"query": QUESTION, "thread_id": "tr-2"}, headers=ALPHA)
    assert reply.status_code == 200 and "trace" not in reply.json()
    with client.stream(
        "POST", "/chat/stream", json={"query": QUESTION, "thread_id": "tr-2"}, headers=ALPHA
    ) as stream:
        text = "".join(stream.iter_text())
    final = json.loads(text.split("event: final")[1].split("data: ", 1)[1].split("\n")[0])
    assert "trace" not in final and "kept_trace" not in final and final["message_ids"]
    with client.stream(
        "POST",
        "/chat/stream",
        json={"query": QUESTION, "thread_id": "tr-2", "debug": True},
        headers=ALPHA,
    ) as stream:
        text = "".join(stream.iter_text())
    final = json.loads(text.split("event: final")[1].split("data: ", 1)[1].split("\n")[0])
    assert final["trace"][-1]["node"] == "context"
    rows = services.querylog.thread("tr-2")
    assert len(rows) == 3 and all(json.loads(r["trace"]) for r in rows)


def test_a_caller_app_not_allowed_gets_403_and_nothing_runs(api):
    client, services = api
    refused = client.post(
        "/chat",
        json={"query": QUESTION, "thread_id": "tr-3", "caller_app": "shop", "debug": True},
        headers=ALPHA,
    )
    assert refused.status_code == 403
    assert refused.json()["error"]["code"] == "debug_forbidden"
    assert services.querylog.thread("tr-3") == []
    streamed = client.post(
        "/chat/stream",
        json={"query": QUESTION, "thread_id": "tr-3", "caller_app": "shop", "debug": True},
        headers=ALPHA,
    )
    assert streamed.status_code == 403
    assert streamed.json()["error"]["code"] == "debug_forbidden"
    # Allowed to chat, not to read the trace of what it said.
    ok = client.post(
        "/chat", json={"query": QUESTION, "thread_id": "tr-3", "caller_app": "shop"}, headers=ALPHA
    )
    assert ok.status_code == 200 and "trace" not in ok.json()
    mid = client.get("/sessions/tr-3/messages?caller_app=shop", headers=ALPHA).json()["data"][1]
    path = f"/sessions/tr-3/messages/{mid['id']}/trace?caller_app=shop"
    denied = client.get(path, headers=ALPHA)
    assert denied.status_code == 403 and denied.json()["error"]["code"] == "debug_forbidden"


def test_the_trace_route_is_scoped_to_the_tenant(api):
    client, _ = api
    client.post("/chat", json={"query": QUESTION, "thread_id": "tr-4"}, headers=ALPHA)
    messages = client.get("/sessions/tr-4/messages", headers=ALPHA).json()["data"]
    path = f"/sessions/tr-4/messages/{messages[1]['id']}/trace"
    other = client.get(path, headers=BETA)
    assert other.status_code == 404 and other.json()["error"]["code"] == "session_not_found"
    question = client.get(f"/sessions/tr-4/messages/{messages[0]['id']}/trace", headers=ALPHA)
    assert question.status_code == 400 and question.json()["error"]["code"] == "not_an_answer"
    unknown = client.get("/sessions/tr-4/messages/msg_x/trace", headers=ALPHA)
    assert unknown.status_code == 404 and unknown.json()["error"]["code"] == "message_not_found"
