"""Security headers on every response, and API docs with nothing from a CDN (issue 14, item 8)."""

from __future__ import annotations

import errno
import re
import shutil

import pytest
from fastapi.testclient import TestClient

from support.services import make_services
from threadline.api.errors import INTERNAL_ERROR_MESSAGES, internal_error_message
from threadline.api.main import create_app


@pytest.fixture(scope="module")
def client(sample_services):
    with TestClient(create_app(sample_services)) as test_client:
        yield test_client


def directives(policy: str) -> dict[str, str]:
    return {part.split()[0]: part.strip() for part in policy.split(";") if part.strip()}


@pytest.mark.parametrize(
    "path", ["/", "/static/app.js", "/health", "/sessions", "/documents/x/chunks/y", "/nope"]
)
def test_every_response_carries_the_security_headers(client, path):
    response = client.get(path)
    assert response.headers["x-content-type-options"] == "nosniff"
    assert response.headers["x-frame-options"] == "DENY"
    policy = directives(response.headers["content-security-policy"])
    assert policy["default-src"] == "default-src 'self'"
    assert policy["script-src"] == "script-src 'self'"
    assert policy["frame-ancestors"] == "frame-ancestors 'none'"
    assert "unsafe-inline" not in response.headers["content-security-policy"]


def test_the_page_loads_nothing_from_elsewhere_and_has_no_inline_script(client):
    html = client.get("/").text
    assert not re.search(r"""(src|href)=["']https?://""", html)
    assert not re.search(r"<script(?![^>]*\bsrc=)[^>]*>", html), "an inline script"


def test_the_api_docs_are_served_locally(client):
    docs = client.get("/docs")
    assert docs.status_code == 200
    assert "cdn" not in docs.text.lower() and not re.search(r"https?://", docs.text)
    assert not re.search(r"<script(?![^>]*\bsrc=)[^>]*>", docs.text), "an inline script"
    policy = directives(docs.headers["content-security-policy"])
    assert policy["script-src"] == "script-src 'self'"
    for asset in re.findall(r"""(?:src|href)="(/[^"]+)\"""", docs.text):
        assert client.get(asset).status_code == 200, asset
    assert client.get("/redoc").status_code == 404
    assert client.get("/openapi.json").json()["info"]["title"] == "threadline"


def test_streamed_answers_carry_the_headers_too(client):
    with client.stream("POST", "/chat/stream", json={"query": "hello"}) as response:
        assert response.headers["x-content-type-options"] == "nosniff"
        assert "text/event-stream" in response.headers["content-type"]
        assert "event: final" in "".join(response.iter_text())


def test_an_unexpected_error_is_a_json_500_that_keeps_the_connection(sample_services):
    app = create_app(sample_services)

    @app.get("/boom")
    async def boom():
        raise RuntimeError("an unexpected failure")

    # raise_server_exceptions: an error reaching the server (which then drops the
    # keep-alive connection) would be raised here.
    with TestClient(app, raise_server_exceptions=True) as client:
        response = client.get("/boom")
        assert response.status_code == 500
        assert response.json()["error"]["code"] == "internal_error"
        assert response.headers["x-content-type-options"] == "nosniff"
        assert client.get("/health").status_code == 200


def test_every_unexpected_error_has_one_body_whichever_layer_answers(sample_services):
    app = create_app(sample_services)

    # Answered by the middleware around the routes (an error no handler knows).
    @app.get("/boom")
    async def boom():
        raise RuntimeError("an unexpected failure")

    # Answered by the app's handler of storage errors (not a full disk: unexpected).
    @app.get("/boom-io")
    async def boom_io():
        raise OSError(errno.EIO, "an I/O error")

    # Under /v1 but not an OpenAI route: the middleware answers, in OpenAI's shape.
    async def boom_v1(request):
        raise RuntimeError("an unexpected failure under /v1")

    app.add_route("/v1/boom", boom_v1)
    with TestClient(app, raise_server_exceptions=True) as client:
        bodies = [client.get(path) for path in ("/boom", "/boom-io")]
        assert [b.status_code for b in bodies] == [500, 500]
        assert bodies[0].json() == bodies[1].json()
        assert bodies[0].json()["error"]["code"] == "internal_error"
        v1 = client.get("/v1/boom")
        assert v1.status_code == 500
        error = v1.json()["error"]
        assert (error["code"], error["type"]) == ("internal_error", "server_error")
        assert error["message"] == bodies[0].json()["error"]["message"]


def test_an_unexpected_error_says_what_the_client_may_assume_for_its_kind_of_route(tmp_path):
    # The 500 said "the turn was not saved" on every route, a session create or a list
    # included. Each kind of route now has its own message, none naming what failed.
    services = make_services(tmp_path / "data")
    try:
        with TestClient(create_app(services), raise_server_exceptions=False) as client:
            assert client.post("/sessions", json={}).status_code == 201
            # A real cause no handler expects: the caller app's session folder is a file.
            folder = tmp_path / "data" / "sessions" / "default" / "default"
            shutil.rmtree(folder)
            folder.write_text("not a folder", encoding="utf-8")
            write = client.post("/sessions", json={})
            turn = client.post(
                "/v1/chat/completions",
                json={"model": "threadline", "messages": [{"role": "user", "content": "hi"}]},
            )
    finally:
        services.close()

    assert (write.status_code, turn.status_code) == (500, 500)
    assert write.json()["error"]["code"] == turn.json()["error"]["code"] == "internal_error"
    assert "turn" not in write.json()["error"]["message"]
    assert "turn was not saved" in turn.json()["error"]["message"]
    for body in (write.text, turn.text):
        assert "NotADirectory" not in body and str(tmp_path) not in body


@pytest.mark.parametrize(
    ("method", "path", "kind"),
    [
        ("GET", "/sessions", "read"),
        ("HEAD", "/documents", "read"),
        ("POST", "/chat", "turn"),
        ("POST", "/chat/stream", "turn"),
        ("POST", "/v1/chat/completions", "turn"),
        ("POST", "/sessions/s1/regenerate", "turn"),
        ("POST", "/sessions", "write"),
        ("POST", "/sessions/import", "write"),
        ("DELETE", "/documents/d1", "write"),
        ("POST", "/sessions/s1/messages/m1/feedback", "write"),
        ("POST", "/chat/streamx", "write"),
    ],
)
def test_the_internal_error_message_is_the_one_of_its_route_kind(method, path, kind):
    scope = {"type": "http", "method": method, "path": path, "root_path": ""}
    assert internal_error_message(scope) == INTERNAL_ERROR_MESSAGES[kind]
    mounted = {**scope, "path": "/api" + path, "root_path": "/api"}
    assert internal_error_message(mounted) == INTERNAL_ERROR_MESSAGES[kind]
