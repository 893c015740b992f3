"""Security headers on every response, and API docs with nothing from a CDN (issue 14, item 8)."""

from __future__ import annotations

import re

import pytest
from fastapi.testclient import TestClient

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
