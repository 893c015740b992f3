"""Regenerate: the last question answered again, the earlier answer kept aside; later turns
(their history and the outline follow-ups resolve against) follow the answer the user kept.

On both backends for the store (the PostgreSQL `thread_state` view too), through the API
on the real graph for the rest.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime

import pytest
from fastapi.testclient import TestClient

from support.services import make_services
from threadline.api.main import create_app
from threadline.auth import ApiKeyEntry, hash_key, new_key
from threadline.store import Message, OutlineItem, TurnMetadata
from threadline.store.edits import add_alternative, select_answer
from threadline.store.errors import TurnConflictError

KEY_ALPHA, KEY_BETA, KEY_WEB = new_key(), new_key(), new_key()
ALPHA, BETA, WEB = ({"X-API-Key": k} for k in (KEY_ALPHA, KEY_BETA, KEY_WEB))
KEYS = [
    ApiKeyEntry(name="a", sha256=hash_key(KEY_ALPHA), tenant="default"),
    ApiKeyEntry(name="b", sha256=hash_key(KEY_BETA), tenant="beta"),
    ApiKeyEntry(name="w", sha256=hash_key(KEY_WEB), tenant="default", caller_apps=["web"]),
]
KEY = {"tenant": "t", "caller_app": "a", "session_id": "s1"}


def answer(text: str, **meta) -> Message:
    return Message(
        id=f"msg_{text}",
        role="assistant",
        content=text,
        created_at=datetime.now(UTC),
        turn_id=f"turn_{text}",
        metadata=TurnMetadata(**meta),
    )


def test_the_store_keeps_alternatives_and_the_thread_state_follows_the_kept_one(backend):
    store = backend.open()
    old = [OutlineItem(id="S1", title="Old one"), OutlineItem(id="S2", title="Old two")]
    user, first = store.add_turn(
        **KEY,
        question="Summarise it",
        answer="first",
        metadata=TurnMetadata(outline=old, search_query="q1"),
        create=True,
    )
    new = answer("second", outline=[OutlineItem(id="S1", title="New")], search_query="q2")
    store.edit_session(**KEY, edit=add_alternative(user.id, new), touch=True)
    state = store.get_thread_state(**KEY)
    assert [o.title for o in state.last_outline] == ["New"] and state.last_search_query == "q2"
    messages = store.get_session(**KEY).messages
    assert [m.content for m in messages] == ["Summarise it", "first", "second"]
    assert messages[1].metadata.superseded and messages[2].metadata.alternative_of == user.id

    store.edit_session(**KEY, edit=select_answer(first.id))
    state = store.get_thread_state(**KEY)  # the PostgreSQL view as much as the JSON file
    assert [o.title for o in state.last_outline] == ["Old one", "Old two"]
    assert state.last_search_query == "q1"
    assert store.get_session(**KEY).thread_state() == state

    store.add_turn(**KEY, question="next", answer="x", metadata=TurnMetadata(), create=True)
    with pytest.raises(TurnConflictError):  # only the last question is answered again
        store.edit_session(**KEY, edit=add_alternative(user.id, answer("third")))
    assert len(store.get_session(**KEY).messages) == 5


@pytest.fixture
def api(tmp_path):
    services = make_services(tmp_path / "data", api_keys=KEYS)
    with TestClient(create_app(services)) as client:
        yield client, services
    services.close()


def test_regenerate_with_the_current_index_and_follow_the_kept_answer(api):
    client, services = api
    first = client.post(
        "/chat", json={"query": "Résume le rapport annuel 2024", "thread_id": "rg"}, headers=ALPHA
    ).json()
    assert [o["id"] for o in first["outline"]][:2] == ["S1", "S2"]
    report = next(c["doc_id"] for c in first["citations"])
    assert services.kb.delete_document(report) > 0  # the index changes: the answer will too

    again = client.post("/sessions/rg/regenerate", json={}, headers=ALPHA)
    assert again.status_code == 200, again.text
    regenerated = again.json()
    assert regenerated["answer"] != first["answer"]
    assert [(a["kept"]) for a in regenerated["alternatives"]] == [False, True]
    new_id, old_id = regenerated["message_id"], regenerated["alternatives"][0]["id"]
    messages = client.get("/sessions/rg/messages", headers=ALPHA).json()
    assert messages["count"] == 3 and messages["data"][1]["metadata"]["superseded"] is True
    assert messages["data"][2]["metadata"]["alternative_of"] == regenerated["question_id"]
    rows = services.querylog.thread("rg")
    assert [r["question"] for r in rows] == ["Résume le rapport annuel 2024"] * 2
    assert [r["superseded"] for r in rows] == [1, 0]  # the log mirrors the store

    # The kept answer has another outline (or none): "Détaille S2" does not reach the
    # report's second section through it.
    outline = [o["title"] for o in regenerated["outline"]]
    assert "Résultats financiers" not in outline

    chosen = client.post(f"/sessions/rg/messages/{old_id}/select", headers=ALPHA)
    assert chosen.status_code == 200, chosen.text
    assert [(a["id"], a["kept"]) for a in chosen.json()["data"]] == [
        (old_id, True),
        (new_id, False),
    ]
    assert [r["superseded"] for r in services.querylog.thread("rg")] == [0, 1]
    # The log's debug view reads the kept answer's outline, not the newest row's.
    state = services.querylog.query("SELECT last_outline FROM thread_state WHERE thread_id = 'rg'")
    assert [[o["id"] for o in json.loads(r["last_outline"])][:2] for r in state] == [["S1", "S2"]]
    follow = client.post(
        "/chat", json={"query": "Détaille S2", "thread_id": "rg"}, headers=ALPHA
    ).json()
    assert follow["followup"]["resolved"] is True and follow["followup"]["section_id"] == "S2"
    assert follow["search_query"].startswith("Résultats financiers")
    # Now the last question is "Détaille S2": the summary cannot be regenerated any more.
    after = client.post("/sessions/rg/regenerate", headers=ALPHA).json()
    assert after["question_id"] != regenerated["question_id"]


def test_regenerate_and_select_errors_and_tenant_scope(api):
    client, _ = api
    client.post("/sessions", json={"session_id": "empty"}, headers=ALPHA)
    nothing = client.post("/sessions/empty/regenerate", headers=ALPHA)
    assert nothing.status_code == 409 and nothing.json()["error"]["code"] == "nothing_to_regenerate"
    client.post("/chat", json={"query": "Hello", "thread_id": "rg2"}, headers=ALPHA)
    data = client.get("/sessions/rg2/messages", headers=ALPHA).json()["data"]
    question, reply = data[0]["id"], data[1]["id"]

    def code(response):
        return response.status_code, response.json()["error"]["code"]

    assert code(client.post("/sessions/rg2/regenerate", headers=BETA)) == (404, "session_not_found")
    assert code(client.post("/sessions/rg2/regenerate", headers=WEB)) == (
        403,
        "caller_app_forbidden",
    )
    assert code(client.post("/sessions/nope/regenerate", headers=ALPHA)) == (
        404,
        "session_not_found",
    )
    bad = client.post("/sessions/rg2/regenerate", json={"sources": "x"}, headers=ALPHA)
    assert code(bad) == (422, "validation_error")
    select = f"/sessions/rg2/messages/{reply}/select"
    assert code(client.post(select, headers=BETA)) == (404, "session_not_found")
    assert code(client.post(f"/sessions/rg2/messages/{question}/select", headers=ALPHA)) == (
        400,
        "not_an_answer",
    )
    assert code(client.post("/sessions/rg2/messages/msg_no/select", headers=ALPHA)) == (
        404,
        "message_not_found",
    )
    kept = client.post(select, headers=ALPHA)
    assert kept.status_code == 200 and kept.json()["data"] == [
        {"id": reply, "kept": True, "created_at": data[1]["created_at"]}
    ]
    assert client.get("/sessions/rg2/messages", headers=ALPHA).json()["count"] == 2
