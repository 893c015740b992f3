"""Ratings of answers through the API, on both backends: stored with the turn and in the log.

One rating per user per answer (a second replaces the first), deletable, mirrored into
the turn's row of the queries log so the debug SQL can select what users flagged;
every error a stable code; another tenant's session is not found.
"""

from __future__ import annotations

import sqlite3

import pytest
from fastapi.testclient import TestClient

from support.paths import SAMPLE
from support.postgres import psql
from support.services import make_services
from threadline.api.main import create_app
from threadline.auth import ApiKeyEntry, hash_key, new_key

KEY_ANN, KEY_BOB, KEY_BETA, KEY_WEB = new_key(), new_key(), new_key(), new_key()
ANN, BOB = {"X-API-Key": KEY_ANN}, {"X-API-Key": KEY_BOB}
BETA, WEB = {"X-API-Key": KEY_BETA}, {"X-API-Key": KEY_WEB}
KEYS = [
    ApiKeyEntry(name="ann", sha256=hash_key(KEY_ANN), tenant="alpha"),
    ApiKeyEntry(name="bob", sha256=hash_key(KEY_BOB), tenant="alpha"),
    ApiKeyEntry(name="beta", sha256=hash_key(KEY_BETA), tenant="beta"),
    ApiKeyEntry(name="web", sha256=hash_key(KEY_WEB), tenant="alpha", caller_apps=["web"]),
]
SEED_SQL = (
    "SELECT created_at, question, search_query, feedback, feedback_reason, feedback_comment "
    "FROM queries_log WHERE feedback = 'down' ORDER BY created_at DESC LIMIT 20"
)


def open_client(tmp_path, backend: str, request) -> tuple[TestClient, object]:
    extra = {"database_url": request.getfixturevalue("pg_url")} if backend == "postgres" else {}
    services = make_services(tmp_path / "data", corpus=[], api_keys=KEYS, **extra)
    services.kb.ingest_paths([SAMPLE], tenant="alpha")
    return TestClient(create_app(services)), services


@pytest.fixture(params=["json", "postgres"])
def api(request, tmp_path):
    client, services = open_client(tmp_path, request.param, request)
    with client:
        yield client, services, request.param
    services.close()


@pytest.fixture(scope="module")
def json_api(tmp_path_factory):
    services = make_services(tmp_path_factory.mktemp("fb"), corpus=[], api_keys=KEYS)
    services.kb.ingest_paths([SAMPLE], tenant="alpha")
    with TestClient(create_app(services)) as client:
        yield client
    services.close()


def turn(client, thread: str, query: str = "What SLA applies to the enterprise plan?"):
    reply = client.post("/chat", json={"query": query, "thread_id": thread}, headers=ANN)
    assert reply.status_code == 200, reply.text
    messages = client.get(f"/sessions/{thread}/messages", headers=ANN).json()["data"]
    return messages[-2]["id"], messages[-1]["id"]


def rate(client, thread, mid, headers=ANN, **body):
    return client.post(f"/sessions/{thread}/messages/{mid}/feedback", json=body, headers=headers)


def test_a_rating_is_stored_replaced_by_the_same_user_deleted_and_logged(api):
    client, services, backend = api
    _, answer = turn(client, "fb-1")
    first = rate(client, "fb-1", answer, rating="down", reason="wrong", comment="  P2 is 4h  ")
    assert first.status_code == 200, first.text
    assert first.json()["rating"] == "down" and first.json()["comment"] == "P2 is 4h"
    assert first.json()["user"].startswith("ann#") and first.json()["down"] == 1

    flagged = services.querylog.query(SEED_SQL)
    assert [(r["question"], r["feedback_reason"]) for r in flagged] == [
        ("What SLA applies to the enterprise plan?", "wrong")
    ]
    assert flagged[0]["search_query"] and flagged[0]["feedback_comment"] == "P2 is 4h"
    if backend == "json":  # the seed's SQL as written, in sqlite3 itself
        db = sqlite3.connect(services.settings.queries_log_path)
        assert db.execute(SEED_SQL).fetchall()[0][1] == "What SLA applies to the enterprise plan?"
        db.close()
    else:  # ... and in the real psql client
        shown = psql(services.settings.database_url.get_secret_value(), SEED_SQL)
        assert shown.returncode == 0, shown.stderr
        assert "What SLA applies to the enterprise plan?" in shown.stdout
        assert "P2 is 4h" in shown.stdout and "(1 row)" in shown.stdout

    again = rate(client, "fb-1", answer, rating="up")  # the same user changes their mind
    assert (again.json()["up"], again.json()["down"]) == (1, 0)
    assert services.querylog.query(SEED_SQL) == []
    assert rate(client, "fb-1", answer, BOB, rating="down", reason="incomplete").json()["down"] == 1
    stored = client.get("/sessions/fb-1/messages", headers=ANN).json()["data"][-1]
    ratings = stored["metadata"]["feedback"]
    assert sorted((f["user"].split("#")[0], f["rating"]) for f in ratings) == [
        ("ann", "up"),
        ("bob", "down"),
    ]
    assert [r["feedback_reason"] for r in services.querylog.query(SEED_SQL)] == ["incomplete"]

    gone = client.delete(f"/sessions/fb-1/messages/{answer}/feedback", headers=BOB)
    assert gone.status_code == 200, gone.text
    assert services.querylog.query(SEED_SQL) == []
    [row] = services.querylog.thread("fb-1", tenant="alpha")
    assert row["feedback"] == "up"  # Ann's rating is the one left
    again = client.delete(f"/sessions/fb-1/messages/{answer}/feedback", headers=BOB)
    assert again.status_code == 404 and again.json()["error"]["code"] == "feedback_not_found"


def codes(response) -> tuple[int, str]:
    return response.status_code, response.json()["error"]["code"]


def test_bad_requests_get_stable_codes_and_change_nothing(json_api):
    client = json_api
    question, answer = turn(client, "fb-2")
    assert codes(rate(client, "nope", answer, rating="up")) == (404, "session_not_found")
    assert codes(rate(client, "fb-2", "msg_nope", rating="up")) == (404, "message_not_found")
    assert codes(rate(client, "fb-2", question, rating="up")) == (400, "not_an_answer")
    assert codes(rate(client, "fb-2", "..%2F..", rating="up"))[0] in (400, 404)
    assert codes(rate(client, "fb-2", "bad id!", rating="up")) == (400, "invalid_id")
    assert codes(rate(client, "fb-2", answer, rating="meh")) == (422, "validation_error")
    assert codes(rate(client, "fb-2", answer, rating="down", reason="ugly")) == (
        422,
        "validation_error",
    )
    assert codes(rate(client, "fb-2", answer, rating="down", comment="x" * 2001)) == (
        422,
        "validation_error",
    )
    assert codes(rate(client, "fb-2", answer, rating="up", extra=1)) == (422, "validation_error")
    deleted = client.delete(f"/sessions/fb-2/messages/{question}/feedback", headers=ANN)
    assert codes(deleted) == (400, "not_an_answer")
    stored = client.get("/sessions/fb-2/messages", headers=ANN).json()["data"][-1]
    assert "feedback" not in stored["metadata"]  # nothing was stored by any of them


def test_another_tenant_or_caller_app_cannot_rate_or_unrate(json_api):
    client = json_api
    _, answer = turn(client, "fb-3")
    path = f"/sessions/fb-3/messages/{answer}/feedback"
    assert codes(client.post(path, json={"rating": "down"}, headers=BETA)) == (
        404,
        "session_not_found",
    )
    assert codes(client.delete(path, headers=BETA)) == (404, "session_not_found")
    forbidden = client.post(path, json={"rating": "down"}, headers=WEB)
    assert codes(forbidden) == (403, "caller_app_forbidden")
    # The web key acts as "web": the session of caller app "default" is not there.
    assert codes(client.post(path + "?caller_app=web", json={"rating": "up"}, headers=WEB)) == (
        404,
        "session_not_found",
    )
    assert client.post(path, json={"rating": "up"}).status_code == 401
    stored = client.get("/sessions/fb-3/messages", headers=ANN).json()["data"][-1]
    assert "feedback" not in stored["metadata"]


def test_log_lists_flagged_turns_with_what_a_maintainer_needs(tmp_path, monkeypatch):
    from typer.testing import CliRunner

    from threadline.chat import ChatService, TurnRequest
    from threadline.cli import app
    from threadline.feedback import set_rating
    from threadline.settings import get_settings

    services = make_services(tmp_path)
    chat = ChatService(services)
    chat.run_turn(TurnRequest(query="Résume le rapport annuel 2024", thread_id="cli-fb"))
    flagged = chat.run_turn(TurnRequest(query="Détaille S2", thread_id="cli-fb"))
    set_rating(
        services,
        tenant="default",
        caller_app="default",
        session_id="cli-fb",
        message_id=flagged.message_ids[1],
        user="local",
        rating="down",
        reason="incomplete",
        comment="the margin is missing",
    )
    services.close()
    monkeypatch.setenv("THREADLINE_DATA_DIR", str(tmp_path))
    monkeypatch.chdir(tmp_path)
    get_settings.cache_clear()
    try:
        shown = CliRunner().invoke(app, ["log", "--feedback", "down"], terminal_width=200)
        neither = CliRunner().invoke(app, ["log"])
        traced = CliRunner().invoke(
            app, ["log", "--thread", "cli-fb", "--trace"], terminal_width=200
        )
    finally:
        get_settings.cache_clear()
    assert shown.exit_code == 0, shown.output
    out = shown.output
    assert "question: Détaille S2" in out and "1 flagged turn(s)" in out
    assert "feedback: down (incomplete): the margin is missing" in out
    assert "search query: Résultats financiers — Détaille S2" in out
    assert "follow-up: resolved · section · S2 · deterministic" in out
    assert "citations: Rapport annuel 2024 de Brightwell" in out
    assert "Résume le rapport" not in out  # the turn nobody flagged
    assert neither.exit_code == 2
    assert traced.exit_code == 0 and traced.output.count("  trace:") == 2
    assert '{"node": "route_turn", "route": "followup_reference"}' in traced.output
