"""HTTP method semantics over real HTTP: HEAD wherever GET is, and a complete `Allow` on 405.

HEAD must answer as its GET would, status and headers, without a body (RFC 9110
§9.3.2): every GET route of the OpenAPI schema is tried with real ids (a session with
an answer, a document's passage, the model), plus the routes the schema leaves out
(the page, its assets, the docs). A 405 names every method its path accepts (§15.5.6).
"""

from __future__ import annotations

import re

import pytest
from fastapi.testclient import TestClient

from threadline.api.main import create_app

SESSION = "methods-session"
# Headers a response computes from the moment it is made, not from what it says.
VOLATILE = {"date"}


@pytest.fixture(scope="module")
def client(sample_services):
    with TestClient(create_app(sample_services)) as test_client:
        turn = test_client.post("/chat", json={"query": "What SLA applies?", "thread_id": SESSION})
        assert turn.status_code == 200, turn.text
        yield test_client


@pytest.fixture(scope="module")
def path_values(client, sample_services) -> dict[str, str]:
    """A real value for every path parameter of the schema's GET routes."""
    messages = client.get(f"/sessions/{SESSION}/messages").json()["data"]
    answer = next(m["id"] for m in messages if m["role"] == "assistant")
    doc = sample_services.kb.list_documents(tenant="default")[0]
    chunk = sample_services.kb.document_chunks(doc.doc_id, tenant="default")[0]
    return {
        "session_id": SESSION,
        "message_id": answer,
        "doc_id": doc.doc_id,
        "chunk_id": chunk.chunk_id,
        "model_id": "threadline",
    }


REQUIRED_QUERY = {"q": "SLA"}
# GET routes the schema leaves out, each with a real URL.
UNDOCUMENTED_GETS = ["/", "/static/app.js", "/docs", "/openapi.json"]


def schema_get_urls(client, values: dict[str, str]) -> list[str]:
    """Every GET route of the OpenAPI schema, as a URL with real ids and required queries."""
    urls = []
    for path, operations in client.get("/openapi.json").json()["paths"].items():
        if "get" not in operations:
            continue
        url = re.sub(r"\{(\w+)\}", lambda m: values[m.group(1)], path)
        required = [
            p["name"]
            for p in operations["get"].get("parameters", [])
            if p["in"] == "query" and p.get("required")
        ]
        if required:
            url += "?" + "&".join(f"{name}={REQUIRED_QUERY[name]}" for name in required)
        urls.append(url)
    return urls


def comparable(headers) -> dict[str, str]:
    return {k: v for k, v in headers.items() if k not in VOLATILE}


def test_head_answers_as_get_on_every_get_route(client, path_values):
    urls = schema_get_urls(client, path_values)
    assert len(urls) >= 13, urls  # the schema's GET routes, all of them
    for url in urls + UNDOCUMENTED_GETS:
        got = client.get(url)
        head = client.head(url)
        assert got.status_code == 200, (url, got.text)
        assert head.status_code == 200, (url, head.status_code)
        assert head.content == b"", url
        assert comparable(head.headers) == comparable(got.headers), url
        assert int(head.headers["content-length"]) == len(got.content), url


def test_head_of_a_missing_resource_is_its_gets_error_without_a_body(client):
    for url in ("/sessions/no-such-session", "/v1/models/nope", "/static/nope.js"):
        got, head = client.get(url), client.head(url)
        assert (head.status_code, head.content) == (404, b""), url
        assert comparable(head.headers) == comparable(got.headers), url


def test_head_where_get_is_not_allowed_is_405(client):
    for url, allow in (("/chat", "POST"), ("/v1/chat/completions", "POST")):
        head = client.head(url)
        assert (head.status_code, head.headers["allow"]) == (405, allow), url


@pytest.mark.parametrize(
    ("method", "url", "allow"),
    [
        ("PUT", "/sessions", "GET, HEAD, POST"),  # two routes, one path: was "POST"
        ("DELETE", "/documents", "GET, HEAD, POST"),
        ("POST", "/sessions/s1", "DELETE, GET, HEAD, PATCH"),
        ("PUT", "/health", "GET, HEAD"),
        ("OPTIONS", "/v1/models", "GET, HEAD"),
        ("PUT", "/sessions/import", "POST"),  # the route refuses it itself
    ],
)
def test_a_405_names_every_method_of_its_path(client, method, url, allow):
    response = client.request(method, url)
    assert response.status_code == 405, response.text
    assert response.headers["allow"] == allow


@pytest.mark.parametrize(
    "range_header",
    ["bytes=999999999-", "bytes=5-1", "garbage"],
    ids=["past the end", "reversed", "malformed"],
)
@pytest.mark.parametrize("url", ["/", "/static/app.js", "/docs-assets/swagger-ui.css"])
def test_files_are_served_whole_whatever_the_range(client, url, range_header):
    # Starlette answered these itself with a plain-text 416 or 400, past the JSON errors.
    whole = client.get(url)
    for method in ("GET", "HEAD"):
        response = client.request(method, url, headers={"range": range_header})
        assert response.status_code == 200, (method, response.status_code, response.text)
        assert response.headers["content-length"] == whole.headers["content-length"]
        assert "accept-ranges" not in response.headers
    assert client.get(url, headers={"range": range_header}).content == whole.content
