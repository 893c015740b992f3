"""Export and import: Markdown that reads alone, JSON that comes back equal to the original.

The round trip runs on both backends; the import takes the tenant from the key, refuses
an id already taken (409) or a malformed file (422), and writes nothing when it refuses.
"""

from __future__ import annotations

import json

import pytest
from fastapi.testclient import TestClient

from support.services import make_services
from threadline.api.main import create_app
from threadline.auth import ApiKeyEntry, hash_key, new_key

KEY_ALPHA, KEY_BETA, KEY_WEB = new_key(), new_key(), new_key()
ALPHA, BETA, WEB = ({"X-API-Key": k} for k in (KEY_ALPHA, KEY_BETA, KEY_WEB))
KEYS = [
    ApiKeyEntry(name="a", sha256=hash_key(KEY_ALPHA), tenant="default"),
    ApiKeyEntry(name="b", sha256=hash_key(KEY_BETA), tenant="beta"),
    ApiKeyEntry(name="w", sha256=hash_key(KEY_WEB), tenant="default", caller_apps=["web"]),
]


@pytest.fixture(params=["json", "postgres"])
def api(request, tmp_path):
    extra = (
        {"database_url": request.getfixturevalue("pg_url")} if request.param == "postgres" else {}
    )
    services = make_services(tmp_path / "data", api_keys=KEYS, **extra)
    with TestClient(create_app(services)) as client:
        yield client, services
    services.close()


def converse(client, thread: str) -> list[dict]:
    for query in ("Résume le rapport annuel 2024", "Détaille S2"):
        reply = client.post("/chat", json={"query": query, "thread_id": thread}, headers=ALPHA)
        assert reply.status_code == 200, reply.text
    assert client.post(f"/sessions/{thread}/regenerate", headers=ALPHA).status_code == 200
    data = client.get(f"/sessions/{thread}/messages", headers=ALPHA).json()["data"]
    flagged = data[-1]["id"]
    rated = client.post(
        f"/sessions/{thread}/messages/{flagged}/feedback",
        json={"rating": "down", "reason": "incomplete", "comment": "no margin"},
        headers=ALPHA,
    )
    assert rated.status_code == 200
    return data


def test_json_export_imports_back_equal_to_the_original(api):
    client, services = api
    converse(client, "ex-1")
    original = services.store.get_session(tenant="default", caller_app="default", session_id="ex-1")
    exported = client.get("/sessions/ex-1/export?format=json", headers=ALPHA)
    assert exported.status_code == 200
    assert exported.headers["content-disposition"] == 'attachment; filename="ex-1.json"'
    file = exported.json()
    assert file["format"] == "threadline.session" and "tenant" not in json.dumps(file["session"])

    clash = client.post("/sessions/import", json=file, headers=ALPHA)
    assert clash.status_code == 409 and clash.json()["error"]["code"] == "session_exists"
    assert client.delete("/sessions/ex-1", headers=ALPHA).status_code == 200
    imported = client.post("/sessions/import", json=file, headers=ALPHA)
    assert imported.status_code == 201, imported.text
    assert imported.json()["message_count"] == 5
    back = services.store.get_session(tenant="default", caller_app="default", session_id="ex-1")
    assert back == original  # every message, alternative, rating and trace, as it was

    copy = client.post("/sessions/import?session_id=ex-copy", json=file, headers=ALPHA)
    assert copy.status_code == 201
    kept = services.store.get_session(tenant="default", caller_app="default", session_id="ex-copy")
    assert kept.messages == original.messages and kept.thread_state() == original.thread_state()

    # The tenant comes from the key: beta's import is beta's, alpha's stays alpha's.
    assert client.post("/sessions/import", json=file, headers=BETA).status_code == 201
    assert client.get("/sessions/ex-1/messages", headers=BETA).json()["count"] == 5
    assert client.get("/sessions/ex-1/export", headers=BETA).status_code == 200
    assert client.delete("/sessions/ex-1", headers=BETA).status_code == 200
    assert client.get("/sessions/ex-1/export", headers=BETA).status_code == 404
    assert client.get("/sessions/ex-1/export", headers=ALPHA).status_code == 200


def test_markdown_reads_on_its_own(api):
    client, _ = api
    converse(client, "ex-md")
    md = client.get("/sessions/ex-md/export?format=md", headers=ALPHA)
    assert md.status_code == 200 and md.headers["content-type"].startswith("text/markdown")
    text = md.text
    assert text.startswith("# Résume le rapport annuel 2024")
    assert "## 1. Résume le rapport annuel 2024" in text and "## 2. Détaille S2" in text
    assert "**You:** Détaille S2" in text
    assert "- **S2** Résultats financiers" in text
    assert "[^t1-1]" in text and "\n[^t1-1]: **Rapport annuel 2024 de Brightwell" in text
    assert "passage `" in text and "source `" in text
    assert "\U0001f44e down, incomplete: \u201cno margin\u201d" in text
    assert "1 earlier answer set aside (regenerated)." in text
    assert "[1]" not in text.split("---")[0]  # every marker became a footnote


@pytest.fixture(scope="module")
def json_api(tmp_path_factory):
    services = make_services(tmp_path_factory.mktemp("ex"), api_keys=KEYS)
    with TestClient(create_app(services)) as client:
        yield client, services
    services.close()


def test_malformed_imports_are_422_and_write_nothing(json_api):
    client, services = json_api
    converse(client, "ex-bad")
    good = client.get("/sessions/ex-bad/export?format=json", headers=ALPHA).json()

    def variant(change) -> dict:
        file = json.loads(json.dumps(good))
        file["session"]["id"] = "ex-new"
        change(file)
        return file

    messages = lambda f: f["session"]["messages"]  # noqa: E731
    bad_files = {
        "format": variant(lambda f: f.update(format="other")),
        "session id": variant(lambda f: f["session"].update(id="../escape")),
        "message id": variant(lambda f: messages(f)[0].update(id="a/b")),
        "duplicate ids": variant(lambda f: messages(f)[1].update(id=messages(f)[0]["id"])),
        "two answers of one turn": variant(
            lambda f: messages(f)[3].update(turn_id=messages(f)[1]["turn_id"])
        ),
        "alternative of nothing": variant(
            lambda f: messages(f)[4]["metadata"].update(alternative_of="msg_unknown")
        ),
        "metadata on a question": variant(lambda f: messages(f)[0].update(metadata={})),
        "naive time": variant(lambda f: f["session"].update(created_at="2026-01-01T00:00:00")),
        "tenant smuggled": variant(lambda f: f["session"].update(tenant="beta")),
        # What no chat turn could have stored: a question past the chat's limit, and a
        # time yet to come (it would list the session first for ever).
        "question too long": variant(lambda f: messages(f)[0].update(content="q" * 4001)),
        "session from the future": variant(
            lambda f: f["session"].update(updated_at="9999-12-31T23:59:59Z")
        ),
        "message from the future": variant(
            lambda f: messages(f)[2].update(created_at="2999-01-01T00:00:00Z")
        ),
    }
    for name, file in bad_files.items():
        reply = client.post("/sessions/import", json=file, headers=ALPHA)
        assert reply.status_code == 422, (name, reply.text)
        assert reply.json()["error"]["code"] == "validation_error", name
    bad_override = client.post("/sessions/import?session_id=bad id", json=good, headers=ALPHA)
    assert bad_override.status_code in (400, 422)
    # A key of another caller app neither reads nor writes this app's sessions.
    assert client.get("/sessions/ex-bad/export", headers=WEB).status_code == 403
    assert client.get("/sessions/ex-bad/export?caller_app=web", headers=WEB).status_code == 404
    assert client.post("/sessions/import", json=good, headers=WEB).status_code == 403
    assert client.post("/sessions/import?caller_app=web", json=good, headers=WEB).status_code == 201
    listed = client.get("/sessions", headers=ALPHA).json()
    assert [s["id"] for s in listed["data"]] == ["ex-bad"]  # nothing half-written
    assert client.get("/sessions/ex-bad/export?format=pdf", headers=ALPHA).status_code == 422


def test_cli_exports_markdown_and_json_that_imports(tmp_path, monkeypatch):
    from typer.testing import CliRunner

    from threadline.chat import ChatService, TurnRequest
    from threadline.cli import app
    from threadline.settings import get_settings

    services = make_services(tmp_path)
    ChatService(services).run_turn(TurnRequest(query="What SLA applies?", thread_id="cli-ex"))
    services.close()
    monkeypatch.setenv("THREADLINE_DATA_DIR", str(tmp_path))
    monkeypatch.chdir(tmp_path)
    get_settings.cache_clear()
    runner = CliRunner()
    try:
        md = runner.invoke(app, ["sessions", "export", "cli-ex"])
        out = tmp_path / "cli-ex.json"
        js = runner.invoke(
            app, ["sessions", "export", "cli-ex", "--format", "json", "--out", str(out)]
        )
        clash = runner.invoke(app, ["sessions", "import", str(out)])
        copied = runner.invoke(app, ["sessions", "import", str(out), "--session-id", "cli-ex2"])
        shown = runner.invoke(app, ["sessions", "show", "cli-ex2"])
    finally:
        get_settings.cache_clear()
    assert md.exit_code == 0 and md.output.startswith("# What SLA applies?")
    assert js.exit_code == 0 and json.loads(out.read_text())["session"]["id"] == "cli-ex"
    assert clash.exit_code == 1 and "already exists" in clash.output
    assert copied.exit_code == 0 and "imported cli-ex2 (2 messages)" in copied.output
    assert len(json.loads(shown.output)["messages"]) == 2
