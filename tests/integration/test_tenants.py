"""API keys and tenant isolation: a tenant never sees another tenant's sessions or documents."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

from support.services import make_services
from threadline.api.main import create_app
from threadline.auth import ApiKeyEntry, hash_key, load_key_entries, new_key

KEY_A, KEY_B, KEY_WEB = new_key(), new_key(), new_key()


@pytest.fixture(scope="module")
def client(tmp_path_factory):
    root = tmp_path_factory.mktemp("tenants")
    keys_file = root / "keys.jsonl"
    entry = ApiKeyEntry(name="b", sha256=hash_key(KEY_B), tenant="beta")
    keys_file.write_text(entry.model_dump_json() + "\n", encoding="utf-8")
    services = make_services(
        root / "data",
        corpus=[],
        api_keys=[
            ApiKeyEntry(name="a", sha256=hash_key(KEY_A), tenant="alpha"),
            ApiKeyEntry(name="web", sha256=hash_key(KEY_WEB), tenant="alpha", caller_apps=["web"]),
        ],
        api_keys_file=keys_file,
    )
    with TestClient(create_app(services)) as test_client:
        yield test_client
    services.close()


def auth(key: str, style: str = "bearer") -> dict[str, str]:
    return {"Authorization": f"Bearer {key}"} if style == "bearer" else {"X-API-Key": key}


A, B = auth(KEY_A), auth(KEY_B, "header")


def test_keys_file_is_read(tmp_path):
    file = tmp_path / "keys.jsonl"
    entry = ApiKeyEntry(sha256=hash_key("k1"), tenant="x")
    file.write_text(entry.model_dump_json() + "\n# a comment\n\n", encoding="utf-8")
    assert [e.tenant for e in load_key_entries([], file)] == ["x"]


@pytest.mark.parametrize(
    ("method", "path", "body"),
    [
        ("post", "/chat", {"json": {"query": "hello"}}),
        ("post", "/chat/stream", {"json": {"query": "hello"}}),
        ("get", "/sessions", {}),
        ("post", "/sessions", {"json": {}}),
        ("get", "/sessions/x", {}),
        ("patch", "/sessions/x", {"json": {"title": "t"}}),
        ("delete", "/sessions/x", {}),
        ("get", "/sessions/x/messages", {}),
        ("get", "/documents", {}),
        ("delete", "/documents/x", {}),
        ("post", "/documents", {"files": {"file": ("a.md", b"## A\nText.", "text/markdown")}}),
    ],
)
def test_every_route_but_health_needs_a_valid_key(client, method, path, body):
    for headers in ({}, auth("tl_wrong")):
        response = getattr(client, method)(path, headers=headers, **body)
        assert response.status_code == 401, (path, response.text)
        assert response.json()["error"]["code"] == "unauthorized"
    assert client.get("/health").status_code == 200


def test_two_different_keys_in_one_request_are_refused(client):
    # X-API-Key used to win silently over the bearer token: a client sending a stale
    # header beside the right token acted in the stale key's tenant.
    both = {"Authorization": f"Bearer {KEY_A}", "X-API-Key": KEY_B}
    for method, path in (("get", "/sessions"), ("get", "/documents"), ("post", "/sessions")):
        response = getattr(client, method)(path, headers=both)
        assert response.status_code == 401, (path, response.text)
        assert response.json()["error"]["code"] == "conflicting_api_keys"
    # Health needs no key: two different ones authenticate no one, so no tenant's count.
    health = client.get("/health", headers=both)
    assert health.status_code == 200 and health.json()["chunks"] is None
    assert client.get("/health", headers=A).json()["chunks"] is not None
    same = {"Authorization": f"Bearer {KEY_A}", "X-API-Key": KEY_A}
    assert client.get("/sessions", headers=same).status_code == 200


def test_sessions_are_isolated_between_tenants(client):
    sid = client.post("/sessions", json={"title": "alpha secret"}, headers=A).json()["id"]
    client.post("/chat", json={"query": "hello", "session_id": sid}, headers=A)
    assert client.get(f"/sessions/{sid}", headers=A).status_code == 200

    assert client.get(f"/sessions/{sid}", headers=B).status_code == 404
    assert client.get(f"/sessions/{sid}/messages", headers=B).status_code == 404
    assert client.patch(f"/sessions/{sid}", json={"title": "x"}, headers=B).status_code == 404
    assert client.delete(f"/sessions/{sid}", headers=B).status_code == 404
    assert (
        client.post("/chat", json={"query": "hi", "session_id": sid}, headers=B).status_code == 404
    )
    assert sid not in [s["id"] for s in client.get("/sessions", headers=B).json()["data"]]

    # The same client-chosen thread id is a different conversation per tenant.
    client.post("/chat", json={"query": "hello", "thread_id": sid}, headers=B)
    assert client.get(f"/sessions/{sid}/messages", headers=B).json()["count"] == 2
    assert client.get(f"/sessions/{sid}/messages", headers=A).json()["count"] == 2
    assert client.get(f"/sessions/{sid}", headers=A).json()["title"] == "alpha secret"


def test_documents_are_isolated_between_tenants(client):
    doc = b"## Vault\nThe alpha vault code is 4711.\n"
    created = client.post(
        "/documents", files={"file": ("vault.md", doc, "text/markdown")}, headers=A
    )
    assert created.status_code == 201
    assert [d["doc_id"] for d in client.get("/documents", headers=A).json()["data"]] == ["vault"]
    assert client.get("/documents", headers=B).json() == {"data": [], "count": 0}
    answer = client.post("/chat", json={"query": "What is the alpha vault code?"}, headers=B).json()
    assert answer["outcome"] == "clarify" and "4711" not in answer["answer"]
    assert client.delete("/documents/vault", headers=B).status_code == 404
    answer = client.post("/chat", json={"query": "What is the alpha vault code?"}, headers=A).json()
    assert "4711" in answer["answer"]


def test_a_question_about_the_documents_names_only_the_callers_tenants(client):
    # "What documents do you have?" lists titles: a key never learns another tenant's.
    doc = b"# Alpha merger plans\n\n## Targets\nAlpha plans to buy Gamma.\n"
    created = client.post(
        "/documents", files={"file": ("merger.md", doc, "text/markdown")}, headers=A
    )
    assert created.status_code == 201
    for headers, named in ((A, True), (B, False)):
        body = client.post(
            "/chat", json={"query": "What documents do you have?"}, headers=headers
        ).json()
        assert body["outcome"] == "reply" and body["citations"] == [], body
        assert ("Alpha merger plans" in body["answer"]) is named, body["answer"]
    client.delete("/documents/merger", headers=A)


def test_a_key_acts_only_as_its_caller_apps(client):
    web = auth(KEY_WEB)
    ok = client.post("/chat", json={"query": "hello", "caller_app": "web"}, headers=web)
    assert ok.status_code == 200
    denied = client.post("/chat", json={"query": "hello", "caller_app": "admin"}, headers=web)
    assert denied.status_code == 403 and denied.json()["error"]["code"] == "caller_app_forbidden"
    listing = client.get("/sessions", params={"caller_app": "default"}, headers=web)
    assert listing.status_code == 403
    assert client.get("/sessions", params={"caller_app": "web"}, headers=web).json()["count"] == 1


# Every route that names a session or a message, as another tenant and as another caller
# app of the same tenant: none may read, change or even confirm the session.
SESSION_ROUTES = [
    ("get", "/sessions/{sid}", None),
    ("patch", "/sessions/{sid}", {"title": "taken over"}),
    ("get", "/sessions/{sid}/messages", None),
    ("post", "/sessions/{sid}/close", None),
    ("post", "/sessions/{sid}/fork", {}),
    ("get", "/sessions/{sid}/export?format=json", None),
    ("get", "/conversations/{sid}/chunks", None),
    ("post", "/sessions/{sid}/messages/{mid}/feedback", {"rating": "down"}),
    ("delete", "/sessions/{sid}/messages/{mid}/feedback", None),
    ("get", "/sessions/{sid}/messages/{mid}/trace", None),
    ("post", "/sessions/{sid}/regenerate", {}),
    ("post", "/sessions/{sid}/messages/{mid}/select", None),
    ("delete", "/sessions/{sid}", None),
]


def test_no_session_route_reaches_another_tenants_or_apps_session(client):
    web = auth(KEY_WEB)
    sid = "sweep-victim"
    created = client.post(
        "/chat", json={"query": "hello", "thread_id": sid, "caller_app": "web"}, headers=web
    )
    assert created.status_code == 200, created.text
    own = client.get(f"/sessions/{sid}/messages", params={"caller_app": "web"}, headers=web)
    before = own.json()
    mid = before["data"][-1]["id"]
    for method, template, body in SESSION_ROUTES:
        url = template.format(sid=sid, mid=mid)
        join = "&" if "?" in url else "?"
        for who, headers, app, expected in [
            ("another tenant", B, "web", 404),
            ("another app of the tenant", A, "default", 404),
            ("a key that may not act as the app", web, "default", 403),
        ]:
            kwargs = {"json": body} if body is not None else {}
            response = client.request(
                method, f"{url}{join}caller_app={app}", headers=headers, **kwargs
            )
            assert response.status_code == expected, (who, method, url, response.text)
    after = client.get(f"/sessions/{sid}/messages", params={"caller_app": "web"}, headers=web)
    assert after.json() == before
    listed = client.get("/sessions", params={"caller_app": "web"}, headers=B).json()
    assert sid not in [s["id"] for s in listed["data"]]


# Routes that name a thread in their body or a header rather than their path: a turn
# there must land in the caller's own scope, never in the victim's session.
THREAD_WRITES = [
    ("post", "/chat", {"query": "hello", "thread_id": "{sid}"}, {}),
    ("post", "/chat", {"query": "hello", "session_id": "{sid}"}, {}),
    ("post", "/chat/stream", {"query": "hello", "thread_id": "{sid}"}, {}),
    (
        "post",
        "/v1/chat/completions",
        {"model": "threadline", "messages": [{"role": "user", "content": "hello"}]},
        {"X-Threadline-Thread-Id": "{sid}"},
    ),
    ("post", "/sessions/import?session_id={sid}", "export", {}),
]


def test_no_thread_named_in_a_body_or_header_reaches_another_tenants_or_apps_session(client):
    web = auth(KEY_WEB)
    sid = "sweep-thread-victim"
    created = client.post(
        "/chat", json={"query": "hello", "thread_id": sid, "caller_app": "web"}, headers=web
    )
    assert created.status_code == 200, created.text
    own = client.get(f"/sessions/{sid}/messages", params={"caller_app": "web"}, headers=web)
    before = own.json()
    exported = client.get(
        f"/sessions/{sid}/export", params={"format": "json", "caller_app": "web"}, headers=web
    ).json()
    for method, template, body, extra in THREAD_WRITES:
        url = template.format(sid=sid)
        join = "&" if "?" in url else "?"
        payload = exported if body == "export" else body
        if isinstance(payload, dict) and body != "export":
            payload = {
                k: (v.format(sid=sid) if isinstance(v, str) else v) for k, v in payload.items()
            }
        for who, headers, app in [
            ("another tenant", B, "web"),
            ("another app of the tenant", A, "default"),
        ]:
            sent = {**headers, **{k: v.format(sid=sid) for k, v in extra.items()}}
            response = client.request(
                method, f"{url}{join}caller_app={app}", headers=sent, json=payload
            )
            assert response.status_code < 500, (who, method, url, response.text)
        after = client.get(f"/sessions/{sid}/messages", params={"caller_app": "web"}, headers=web)
        assert after.json() == before, (method, url)


def test_a_keys_file_that_is_missing_or_empty_admits_no_one(tmp_path):
    # A named keys file that did not exist (a typo, a volume not mounted) was read as
    # "no keys": the server answered everyone, unauthenticated, as the local tenant.
    from threadline.auth import KeyConfigurationError

    missing = make_services(tmp_path / "a", corpus=[], api_keys_file=tmp_path / "nope.jsonl")
    try:
        with pytest.raises(KeyConfigurationError, match="nope.jsonl"):
            with TestClient(create_app(missing)):
                pass
    finally:
        missing.close()
    empty = tmp_path / "keys.jsonl"
    empty.write_text("# no key yet\n", encoding="utf-8")
    services = make_services(tmp_path / "b", corpus=[], api_keys_file=empty)
    try:
        with TestClient(create_app(services)) as test_client:
            for method, path in (
                ("get", "/sessions"),
                ("post", "/sessions"),
                ("get", "/documents"),
            ):
                response = test_client.request(method, path, json={} if method == "post" else None)
                assert response.status_code == 401, (path, response.text)
            health = test_client.get("/health")
            assert health.status_code == 200 and health.json()["chunks"] is None
    finally:
        services.close()


def test_a_key_removed_from_the_keys_file_is_refused_without_a_restart(tmp_path):
    # Keys were read once at start-up: a key revoked in the file kept working until the
    # server restarted (in each of its worker processes).
    kept, revoked = new_key(), new_key()
    file = tmp_path / "keys.jsonl"

    def write(*lines: str) -> None:
        file.write_text("".join(line + "\n" for line in lines), encoding="utf-8")

    kept_line = ApiKeyEntry(name="kept", sha256=hash_key(kept), tenant="alpha").model_dump_json()
    revoked_line = ApiKeyEntry(sha256=hash_key(revoked), tenant="beta").model_dump_json()
    write(kept_line, revoked_line)
    services = make_services(tmp_path / "data", corpus=[], api_keys_file=file)
    try:
        with TestClient(create_app(services)) as test_client:
            assert test_client.get("/sessions", headers=auth(revoked)).status_code == 200
            write(kept_line)
            response = test_client.get("/sessions", headers=auth(revoked))
            assert response.status_code == 401, response.text
            assert test_client.get("/sessions", headers=auth(kept)).status_code == 200
            # A file changed into one serve would refuse (a line that is not a key) admits
            # no one until it is fixed, rather than its last good keys.
            write(kept_line, revoked_line[:-5])
            for path in ("/sessions", "/v1/models"):
                refused = test_client.get(path, headers=auth(kept))
                assert refused.status_code == 503, refused.text
                assert refused.json()["error"]["code"] == "api_keys_invalid"
                assert "keys.jsonl" not in refused.text
            health = test_client.get("/health", headers=auth(kept))
            assert health.status_code == 200 and health.json()["chunks"] is None
            write(kept_line)
            assert test_client.get("/sessions", headers=auth(kept)).status_code == 200
            assert test_client.get("/sessions", headers=auth(revoked)).status_code == 401
    finally:
        services.close()
