"""The web chat page at `/` in process: served assets and the passage route."""

from __future__ import annotations

import re

import pytest
from fastapi.testclient import TestClient

from support.paths import ROOT
from threadline.api.main import create_app


@pytest.fixture(scope="module")
def client(sample_services):
    with TestClient(create_app(sample_services)) as test_client:
        yield test_client


def test_page_and_modules_are_served(client):
    page = client.get("/")
    assert page.status_code == 200
    assert page.headers["content-type"].startswith("text/html")
    assert '<script type="module" src="/static/app.js">' in page.text
    for name in ("app.js", "api.js", "render.js", "lang.js"):
        asset = client.get(f"/static/{name}")
        assert asset.status_code == 200, name
        assert "javascript" in asset.headers["content-type"], name
        assert asset.headers["cache-control"] == "no-cache"
        assert (
            client.get(
                f"/static/{name}", headers={"if-none-match": asset.headers["etag"]}
            ).status_code
            == 304
        )
    assert client.get("/static/styles.css").headers["content-type"].startswith("text/css")
    missing = client.get("/static/nope.js")
    assert missing.status_code == 404 and missing.json()["error"]["code"] == "not_found"
    # Nothing outside the static folder, and the page needs no network.
    assert client.get("/static/../routes/web.py").status_code == 404
    static = ROOT / "src/threadline/api/static"
    for file in static.iterdir():
        text = file.read_text(encoding="utf-8")
        assert not re.search(
            r"""(?:src|href)=["']https?://|@import\s+url\(\s*["']?https?://""", text
        ), file


def test_passage_of_a_cited_chunk(client):
    answer = client.post(
        "/chat", json={"query": "Résume le rapport annuel 2024", "thread_id": "web-passage"}
    ).json()
    cited = next(c for c in answer["citations"] if c["section"] == "Résultats financiers")
    response = client.get(f"/documents/{cited['doc_id']}/chunks/{cited['chunk_id']}")
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["doc_id"] == cited["doc_id"] and body["chunk_id"] == cited["chunk_id"]
    assert body["title"] == cited["title"] and body["section"] == "Résultats financiers"
    assert "486,3 millions de dollars" in body["text"]


def test_passage_of_a_catalog_product(client):
    answer = client.post(
        "/chat", json={"query": "What phones do you have under $500?", "thread_id": "web-catalog"}
    ).json()
    cited = answer["citations"][0]
    assert cited["doc_id"].startswith("catalog:")
    body = client.get(f"/documents/{cited['doc_id']}/chunks/{cited['chunk_id']}").json()
    assert body["title"] == cited["title"] and body["source"] == "catalog"
    assert "costs $" in body["text"]


def test_passage_follows_the_caller_apps_source_allowlist(client, monkeypatch):
    answer = client.post(
        "/chat", json={"query": "Résume le rapport annuel 2024", "thread_id": "web-policy"}
    ).json()
    cited = answer["citations"][0]
    path = f"/documents/{cited['doc_id']}/chunks/{cited['chunk_id']}"
    settings = client.app.state.services.settings
    monkeypatch.setattr(settings, "source_policy", {"support-bot": ["support"]})
    assert client.get(path, params={"caller_app": "support-bot"}).status_code == 404
    assert client.get(path).status_code == 200  # no policy for the default caller app


def test_a_catalog_passage_follows_the_caller_apps_source_allowlist(client, monkeypatch):
    path = "/documents/catalog:products/chunks/bw-phone-galaxy-a55"
    assert client.get(path).status_code == 200
    settings = client.app.state.services.settings
    policy = {"support-bot": ["support"], "shop": ["catalog"]}
    monkeypatch.setattr(settings, "source_policy", policy)
    response = client.get(path, params={"caller_app": "support-bot"})
    assert response.status_code == 404
    assert response.json()["error"]["code"] == "passage_not_found"
    assert client.get(path, params={"caller_app": "shop"}).status_code == 200


@pytest.mark.parametrize(
    "path",
    [
        "/documents/reports-rapport-annuel-2024/chunks/not-a-chunk",
        "/documents/no-such-doc/chunks/00000000-0000-0000-0000-000000000000",
        "/documents/catalog:products/chunks/no-such-product",
        "/documents/catalog:nope/chunks/bw-phone-nokia-g42",
    ],
)
def test_unknown_passage_is_404(client, path):
    response = client.get(path)
    assert response.status_code == 404
    assert response.json()["error"]["code"] == "passage_not_found"
