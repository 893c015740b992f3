"""The conversation routes over real services: search windows, close, fork, delete, scoping."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

from support.conversations import add_turns
from support.services import make_services
from threadline.api.main import create_app
from threadline.auth import ApiKeyEntry, hash_key, new_key
from threadline.conversations.worker import ConversationIndexer
from threadline.store.models import TurnMetadata

KEY_A, KEY_B, KEY_WEB = new_key(), new_key(), new_key()
A = {"Authorization": f"Bearer {KEY_A}"}
B = {"Authorization": f"Bearer {KEY_B}"}
WEB = {"Authorization": f"Bearer {KEY_WEB}"}

SLA = [
    ("What SLA applies to the enterprise plan?", "The Enterprise plan guarantees 99.95% uptime."),
    ("and for P2?", "P2 incidents get a first response within 1 hour."),
    ("who do I call at night?", "The on-call desk answers around the clock."),
]
LONG = [(f"question number {n} about topic{n}", f"answer number {n} on topic{n}") for n in range(8)]


@pytest.fixture(scope="module")
def app_parts(tmp_path_factory):
    root = tmp_path_factory.mktemp("convapi")
    services = make_services(
        root / "data",
        corpus=[],
        conversation_index_worker=False,
        api_keys=[
            ApiKeyEntry(name="a", sha256=hash_key(KEY_A), tenant="alpha"),
            ApiKeyEntry(name="b", sha256=hash_key(KEY_B), tenant="beta"),
            ApiKeyEntry(name="web", sha256=hash_key(KEY_WEB), tenant="alpha", caller_apps=["web"]),
        ],
    )
    store = services.store
    add_turns(store, "alpha", "web", "sla", SLA)
    add_turns(store, "alpha", "web", "long", LONG)
    add_turns(store, "alpha", "support", "sla-support", SLA)
    add_turns(store, "beta", "web", "sla-beta", SLA)
    store.add_turn(
        tenant="alpha",
        caller_app="web",
        session_id="tools",
        question="What phones do you have under $500?",
        answer="- Nokia G42 5G costs $199. [1]",
        metadata=TurnMetadata(
            route="tool", outcome="tool_answer", search_query="filter_products({'max_price': 500})"
        ),
        create=True,
    )
    ConversationIndexer(store, services.conversations).run_once(force=True)
    with TestClient(create_app(services)) as client:
        yield client, services
    services.close()


def _search(client, headers, **params):
    return client.get("/conversations/search", headers=headers, params=params)


def test_search_returns_hits_in_their_windows(app_parts) -> None:
    client, _ = app_parts
    response = _search(client, A, q="P2 first response", caller_app="web", k=1)
    assert response.status_code == 200, response.text
    body = response.json()
    window = body["data"][0]
    assert window["session_id"] == "sla" and window["title"]
    assert window["hits"] == [1]
    assert [e["sequence_order"] for e in window["exchanges"]] == [0, 1, 2]
    marked = [e for e in window["exchanges"] if e["hit"]]
    assert marked[0]["question"] == "and for P2?" and marked[0]["message_index"] == 2
    assert body["next_offset"] is None  # no other exchange has these words


def test_search_pages_through_hits(app_parts) -> None:
    client, _ = app_parts
    seen: list[tuple[str, int]] = []
    offset = 0
    while offset is not None:
        body = _search(
            client, A, q="number", caller_app="web", k=3, before=0, after=0, offset=offset
        ).json()
        assert sum(len(w["hits"]) for w in body["data"]) <= 3
        seen += [(w["session_id"], h) for w in body["data"] for h in w["hits"]]
        offset = body["next_offset"]
    assert sorted(seen) == [("long", n) for n in range(8)]


def test_overlapping_windows_of_a_session_merge(app_parts) -> None:
    client, _ = app_parts
    body = _search(client, A, q="topic3 topic5", caller_app="web", k=2, before=1, after=1).json()
    long = [w for w in body["data"] if w["session_id"] == "long"]
    assert len(long) == 1  # 2..4 and 4..6 touch: one window
    orders = [e["sequence_order"] for e in long[0]["exchanges"]]
    assert orders == [2, 3, 4, 5, 6]
    assert sorted(long[0]["hits"]) == [3, 5]


def test_search_is_scoped_by_tenant_and_caller_app(app_parts) -> None:
    client, _ = app_parts
    sessions = {
        w["session_id"] for w in _search(client, A, q="SLA enterprise", k=10).json()["data"]
    }
    assert sessions == set()  # caller_app "default" holds nothing
    web = _search(client, A, q="SLA enterprise uptime", caller_app="web", k=10).json()["data"]
    assert {w["session_id"] for w in web} <= {"sla", "long", "tools"} and web
    support = _search(client, A, q="SLA enterprise uptime", caller_app="support", k=10).json()
    assert {w["session_id"] for w in support["data"]} == {"sla-support"}
    beta = _search(client, B, q="SLA enterprise uptime", caller_app="web", k=10).json()["data"]
    assert {w["session_id"] for w in beta} == {"sla-beta"}
    assert _search(client, WEB, q="SLA", caller_app="support").status_code == 403
    assert _search(client, {}, q="SLA", caller_app="web").status_code == 401


@pytest.mark.parametrize(
    ("params", "code"),
    [
        ({"q": ""}, 422),
        ({"q": "x", "k": 0}, 422),
        ({"q": "x", "before": 11}, 422),
        ({}, 422),
        ({"q": "x", "offset": -1}, 422),
    ],
)
def test_bad_search_parameters_are_4xx(app_parts, params, code) -> None:
    client, _ = app_parts
    response = _search(client, A, **{"caller_app": "web", **params})
    assert response.status_code == code
    assert response.json()["error"]["code"]


def test_a_blank_query_finds_nothing(app_parts) -> None:
    client, _ = app_parts
    body = _search(client, A, q="   ", caller_app="web").json()
    assert body["data"] == [] and body["next_offset"] is None


def test_tool_interactions_are_browsable_not_searchable(app_parts) -> None:
    client, _ = app_parts
    body = client.get("/conversations/tools/chunks", headers=A, params={"caller_app": "web"}).json()
    tools = [c for c in body["data"] if c["chunk_type"] == "tool_interaction"]
    assert tools and tools[0]["indexed"] is False
    assert tools[0]["tool_details"]["tool_name"] == "filter_products"
    found = _search(client, A, q="filter_products", caller_app="web").json()["data"]
    assert all(w["session_id"] != "tools" or not w["hits"] for w in found) or found == []
    other = client.get("/conversations/tools/chunks", headers=B, params={"caller_app": "web"})
    assert other.status_code == 404


def test_close_and_fork_are_scoped_and_keep_lineage(app_parts) -> None:
    client, services = app_parts
    assert (
        client.post("/sessions/sla/close", headers=B, params={"caller_app": "web"}).status_code
        == 404
    )
    assert (
        client.post(
            "/sessions/sla/close", headers=WEB, params={"caller_app": "support"}
        ).status_code
        == 403
    )
    closed = client.post("/sessions/sla/close", headers=A, params={"caller_app": "web"})
    assert closed.status_code == 200 and closed.json()["closed_at"]
    fork = client.post(
        "/sessions/sla/fork", headers=A, params={"caller_app": "web"}, json={"at_message": 2}
    )
    assert fork.status_code == 201, fork.text
    forked = fork.json()
    assert forked["parent_session_id"] == "sla" and forked["root_session_id"] == "sla"
    assert forked["message_count"] == 2
    again = client.post(
        f"/sessions/{forked['id']}/fork", headers=A, params={"caller_app": "web"}, json={}
    ).json()
    assert again["parent_session_id"] == forked["id"] and again["root_session_id"] == "sla"
    bad = client.post(
        "/sessions/sla/fork", headers=A, params={"caller_app": "web"}, json={"at_message": 99}
    )
    assert bad.status_code == 422 and bad.json()["error"]["code"] == "invalid_message_index"
    # An index is a JSON integer: `true` and "1" are mistakes, not message 1 (1.0 is one).
    for loose in (True, "1", 1.5):
        sloppy = client.post(
            "/sessions/sla/fork",
            headers=A,
            params={"caller_app": "web"},
            json={"at_message": loose},
        )
        assert sloppy.status_code == 422, (loose, sloppy.text)
        assert sloppy.json()["error"]["code"] == "validation_error"
    assert (
        client.post("/sessions/sla/fork", headers=B, params={"caller_app": "web"}).status_code
        == 404
    )
    # The fork is indexed with its lineage, and search results show it.
    ConversationIndexer(services.store, services.conversations).run_once(force=True)
    found = _search(client, A, q="SLA enterprise plan", caller_app="web", k=10).json()["data"]
    lineage = {w["session_id"]: w["root_session_id"] for w in found}
    assert lineage.get(forked["id"]) == "sla"


def test_deleting_a_session_removes_its_chunks(app_parts) -> None:
    client, services = app_parts
    add_turns(services.store, "alpha", "web", "doomed", [("zebra migration facts", "zebras walk")])
    ConversationIndexer(services.store, services.conversations).run_once(force=True)
    assert _search(client, A, q="zebra migration", caller_app="web").json()["data"]
    assert (
        client.delete("/sessions/doomed", headers=A, params={"caller_app": "web"}).status_code
        == 200
    )
    assert services.conversations.session_chunks(("alpha", "web", "doomed")) == []
    assert _search(client, A, q="zebra migration", caller_app="web").json()["data"] == []


NEW_ROUTES = [
    ("get", "/conversations/search", {"q": "SLA"}),
    ("get", "/conversations/sla-support/chunks", {}),
    ("post", "/sessions/sla-support/close", {}),
    ("post", "/sessions/sla-support/fork", {}),
]


@pytest.mark.parametrize(("method", "path", "params"), NEW_ROUTES)
def test_every_new_route_needs_a_key_and_keeps_to_its_caller_apps(
    app_parts, method, path, params
) -> None:
    client, _ = app_parts
    call = getattr(client, method)
    assert call(path, params={**params, "caller_app": "support"}).status_code == 401
    forbidden = call(path, headers=WEB, params={**params, "caller_app": "support"})
    assert forbidden.status_code == 403
    assert forbidden.json()["error"]["code"] == "caller_app_forbidden"
    if path != "/conversations/search":
        # Another tenant's key does not find the session at all.
        other = call(path, headers=B, params={**params, "caller_app": "support"})
        assert other.status_code == 404
