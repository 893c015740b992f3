"""On-disk state that fails or is damaged under a running service: what a user sees.

The session store is the record of a conversation; the queries log mirrors it for
debugging. A log that cannot be written (a damaged SQLite file, a full disk) must not
turn a stored turn, rating or choice into a 500 that says it was not saved: a client
that believes it and sends the question again stores it twice.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from support.services import make_services
from threadline.api.main import create_app


def damage_queries_log(services) -> Path:
    """Replace the queries log by bytes SQLite does not read, as a damaged disk would."""
    services.querylog.close()  # its next write opens the file again
    path = services.settings.queries_log_path
    for side in path.parent.glob(f"{path.name}-*"):  # the WAL and its index
        side.unlink()
    path.write_bytes(b"not a database " * 400)
    return path


@pytest.fixture
def client(tmp_path: Path):
    services = make_services(tmp_path / "data")
    with TestClient(create_app(services), raise_server_exceptions=False) as test_client:
        test_client.services = services  # type: ignore[attr-defined]
        yield test_client
    services.close()


def test_a_stored_turn_is_answered_even_when_the_queries_log_cannot_be_written(client) -> None:
    first = client.post("/chat", json={"query": "What SLA applies to the enterprise plan?"})
    assert first.status_code == 200, first.text
    thread = first.json()["session_id"]
    damage_queries_log(client.services)

    second = client.post("/chat", json={"query": "And for P2?", "thread_id": thread})

    assert second.status_code == 200, second.text
    assert second.json()["outcome"] == "grounded_answer"
    stored = client.get(f"/sessions/{thread}/messages").json()["data"]
    assert [m["content"] for m in stored if m["role"] == "user"] == [
        "What SLA applies to the enterprise plan?",
        "And for P2?",
    ]
    assert stored[-1]["content"] == second.json()["answer"]


def test_ratings_regenerate_and_select_are_answered_when_the_log_cannot_be_written(
    client,
) -> None:
    reply = client.post("/chat", json={"query": "What SLA applies to the enterprise plan?"})
    thread = reply.json()["session_id"]
    answer_id = client.get(f"/sessions/{thread}/messages").json()["data"][-1]["id"]
    damage_queries_log(client.services)

    rated = client.post(
        f"/sessions/{thread}/messages/{answer_id}/feedback",
        json={"rating": "down", "reason": "incomplete"},
    )
    again = client.post(f"/sessions/{thread}/regenerate", json={})
    kept = client.post(f"/sessions/{thread}/messages/{answer_id}/select")

    assert rated.status_code == 200, rated.text
    assert again.status_code == 200, again.text
    assert kept.status_code == 200, kept.text
    stored = client.get(f"/sessions/{thread}/messages").json()["data"]
    first = next(m for m in stored if m["id"] == answer_id)
    assert [f["rating"] for f in first["metadata"]["feedback"]] == ["down"]
    answers = [m for m in stored if m["role"] == "assistant"]
    assert len(answers) == 2
    assert [bool(m["metadata"].get("superseded")) for m in answers] == [False, True]
