"""The HTTP contract: /chat fields, session CRUD, errors as JSON with stable codes."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

from threadline.api.main import create_app

CHAT_FIELDS = {
    "session_id",
    "answer",
    "outline",
    "citations",
    "route",
    "outcome",
    "stop_reason",
    "search_query",
    "followup",
}


@pytest.fixture(scope="module")
def client(sample_services):
    with TestClient(create_app(sample_services)) as test_client:
        yield test_client


def test_health(client):
    body = client.get("/health").json()
    assert body["status"] == "ok" and body["chunks"] > 0 and body["llm"] == "offline"


def test_chat_contract_and_thread_created_on_first_use(client):
    response = client.post(
        "/chat", json={"query": "Résume le rapport annuel 2024", "thread_id": "api-thread-1"}
    )
    assert response.status_code == 200, response.text
    body = response.json()
    assert CHAT_FIELDS <= body.keys()
    assert body["session_id"] == "api-thread-1"
    assert body["outcome"] == "grounded_answer"
    assert len(body["outline"]) >= 4 and set(body["outline"][0]) == {"id", "title"}
    assert {"doc_id", "title", "source"} <= body["citations"][0].keys()
    assert set(body["followup"]) == {"detected", "resolved", "ref_type", "section_id", "method"}
    assert "SUIVI" not in body["answer"]

    follow = client.post("/chat", json={"query": "Détaille S2", "session_id": "api-thread-1"})
    assert follow.status_code == 200
    fu = follow.json()["followup"]
    assert fu == {
        "detected": True,
        "resolved": True,
        "ref_type": "section",
        "section_id": "S2",
        "method": "deterministic",
    }
    messages = client.get("/sessions/api-thread-1/messages").json()
    assert messages["count"] == 4
    assert messages["data"][1]["metadata"]["outline"][1]["id"] == "S2"


def test_chat_without_id_creates_a_session(client):
    body = client.post("/chat", json={"query": "hello"}).json()
    assert body["outcome"] == "reply"
    assert client.get(f"/sessions/{body['session_id']}").json()["message_count"] == 2


def test_unknown_session_id_is_404(client):
    response = client.post("/chat", json={"query": "hi", "session_id": "does-not-exist"})
    assert response.status_code == 404
    assert response.json()["error"]["code"] == "session_not_found"


@pytest.mark.parametrize(
    ("body", "status", "code"),
    [
        ({"query": "hi", "thread_id": "../etc/passwd"}, 400, "invalid_id"),
        ({"query": "hi", "thread_id": "a/b"}, 400, "invalid_id"),
        ({"query": "", "thread_id": "ok"}, 422, "validation_error"),
        ({"query": "   ", "thread_id": "ok"}, 422, "validation_error"),
        ({"query": "x" * 5000}, 422, "validation_error"),
        ({"thread_id": "ok"}, 422, "validation_error"),
        ({"query": "hi", "unknown": 1}, 422, "validation_error"),
        ({"query": "hi", "session_id": "a", "thread_id": "b"}, 422, "validation_error"),
    ],
)
def test_bad_chat_input_is_a_json_error_and_writes_nothing(
    client, sample_services, body, status, code
):
    before = sample_services.store.list_sessions(tenant="default")[1]
    response = client.post("/chat", json=body)
    assert response.status_code == status
    assert response.json()["error"]["code"] == code
    assert sample_services.store.list_sessions(tenant="default")[1] == before


def test_invalid_json_body_is_a_json_error(client):
    response = client.post(
        "/chat", content=b"{not json", headers={"content-type": "application/json"}
    )
    assert response.status_code == 422
    assert response.json()["error"]["code"] == "validation_error"


def test_session_crud(client):
    created = client.post("/sessions", json={"title": "Quarterly review"})
    assert created.status_code == 201
    sid = created.json()["id"]
    assert client.post("/sessions", json={"session_id": sid}).json()["error"]["code"] == (
        "session_exists"
    )
    assert client.get(f"/sessions/{sid}").json()["title"] == "Quarterly review"
    renamed = client.patch(f"/sessions/{sid}", json={"title": "Renamed"})
    assert renamed.status_code == 200 and renamed.json()["title"] == "Renamed"
    listing = client.get("/sessions", params={"limit": 1}).json()
    assert listing["count"] >= 1 and len(listing["data"]) == 1
    assert client.get(f"/sessions/{sid}/messages").json() == {"data": [], "count": 0}
    assert client.delete(f"/sessions/{sid}").json() == {"message": "Session deleted successfully"}
    missing = client.get(f"/sessions/{sid}")
    assert missing.status_code == 404 and missing.json()["error"]["code"] == "session_not_found"
    assert client.delete(f"/sessions/{sid}").status_code == 404


def test_sessions_are_listed_most_recent_first(client):
    ids = [client.post("/sessions", json={}).json()["id"] for _ in range(3)]
    client.post("/chat", json={"query": "thanks", "session_id": ids[0]})
    listed = [s["id"] for s in client.get("/sessions", params={"limit": 200}).json()["data"]]
    assert listed.index(ids[0]) < listed.index(ids[2]) < listed.index(ids[1])


def test_openapi_lists_every_route(client):
    paths = client.get("/openapi.json").json()["paths"]
    assert {
        "/chat",
        "/sessions",
        "/sessions/{session_id}",
        "/sessions/{session_id}/messages",
        "/health",
    } <= paths.keys()
