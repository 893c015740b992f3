"""The documents API within a key's caller apps (issue 14, item 1), attacked through the API.

Two tenants, three keys: alpha's admin key (any caller app), alpha's `support-bot` key
(whose policy allows only the `support` and `catalog` sources) and beta's key.
"""

from __future__ import annotations

import dataclasses

import pytest
from fastapi.testclient import TestClient

from support.services import make_services
from threadline.api.main import create_app
from threadline.auth import ApiKeyEntry, hash_key, new_key
from threadline.knowledge.documents import load_document

ADMIN, BOT, BETA = new_key(), new_key(), new_key()
POLICY = {"support-bot": ["support", "catalog"]}


def auth(key: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {key}"}


@pytest.fixture(scope="module")
def client(tmp_path_factory):
    services = make_services(
        tmp_path_factory.mktemp("scope"),
        corpus=[],
        source_policy=POLICY,
        api_keys=[
            ApiKeyEntry(name="admin", sha256=hash_key(ADMIN), tenant="alpha"),
            ApiKeyEntry(
                name="bot", sha256=hash_key(BOT), tenant="alpha", caller_apps=["support-bot"]
            ),
            ApiKeyEntry(name="beta", sha256=hash_key(BETA), tenant="beta"),
        ],
    )
    with TestClient(create_app(services)) as test_client:
        for doc_id, source, text in [
            ("annual-report", "reports", "## Revenue\n2024 revenue: 12 million euros."),
            ("security-handbook", "security", "## Badges\nBadges are checked at the door."),
            ("faq", "support", "## Refunds\nRefunds take 5 working days."),
        ]:
            created = test_client.post(
                "/documents",
                files={"file": (f"{doc_id}.md", text.encode(), "text/markdown")},
                data={"source": source},
                headers=auth(ADMIN),
            )
            assert created.status_code == 201, created.text
        yield test_client
    services.close()


def listed(client, key: str) -> list[str]:
    response = client.get("/documents", headers=auth(key))
    assert response.status_code == 200
    return [d["doc_id"] for d in response.json()["data"]]


def test_a_limited_key_lists_only_its_sources(client):
    assert listed(client, ADMIN) == ["annual-report", "faq", "security-handbook"]
    assert listed(client, BOT) == ["faq"]
    assert listed(client, BETA) == []


def test_a_limited_key_cannot_overwrite_a_document_of_another_source(client):
    forged = b"## Revenue\n2024 revenue: 1 dollar."
    for data in ({"source": "reports"}, {}):  # a source the key may not use, named or default
        response = client.post(
            "/documents",
            files={"file": ("annual-report.md", forged, "text/markdown")},
            data=data,
            headers=auth(BOT),
        )
        assert response.status_code == 403, (data, response.text)
        assert response.json()["error"]["code"] == "source_forbidden"
        assert "annual-report" not in response.text  # the source named, not the document
    for data in ({"source": "support", "doc_id": "annual-report"}, {"source": "support"}):
        response = client.post(
            "/documents",
            files={"file": ("annual-report.md", forged, "text/markdown")},
            data=data,
            headers=auth(BOT),
        )
        assert response.status_code == 409, (data, response.text)
        assert response.json()["error"]["code"] == "document_id_taken"
    answer = client.post(
        "/chat", json={"query": "What was the 2024 revenue?"}, headers=auth(ADMIN)
    ).json()
    assert "12 million" in answer["answer"] and "1 dollar" not in answer["answer"]
    assert listed(client, ADMIN) == ["annual-report", "faq", "security-handbook"]


def test_an_upload_over_a_hidden_document_answers_as_an_id_of_another_name_does(client):
    """The answer must not tell a hidden document from a visible one of another name."""

    def upload(name: str, text: bytes) -> dict:
        response = client.post(
            "/documents",
            files={"file": (name, text, "text/markdown")},
            data={"source": "support"},
            headers=auth(BOT),
        )
        return {**response.json(), "http": response.status_code}

    assert upload("q3 plan.md", b"## Plan\nHire two people.")["http"] == 201
    clash = upload("q3,plan.md", b"## Plan\nHire nobody.")
    hidden = upload("Security Handbook.md", b"## Badges\nNo badges.")
    assert clash["http"] == hidden["http"] == 409
    assert clash["error"]["message"].replace("q3-plan", "ID") == hidden["error"]["message"].replace(
        "security-handbook", "ID"
    )
    assert {**clash["error"], "message": ""} == {**hidden["error"], "message": ""}
    assert "security" not in hidden["error"]["message"].replace("security-handbook", "")
    passage = client.get("/documents", headers=auth(ADMIN)).json()["data"]
    assert {d["doc_id"]: d["source"] for d in passage}["security-handbook"] == "security"
    assert client.delete("/documents/q3-plan", headers=auth(BOT)).status_code == 200


def test_a_limited_key_cannot_delete_outside_its_sources(client):
    denied = client.delete("/documents/security-handbook", headers=auth(BOT))
    assert denied.status_code == 404 and denied.json()["error"]["code"] == "document_not_found"
    assert client.delete("/documents/faq", headers=auth(BETA)).status_code == 404
    assert "security-handbook" in listed(client, ADMIN)
    assert "faq" in listed(client, ADMIN)


def test_a_limited_key_writes_and_deletes_within_its_sources(client):
    created = client.post(
        "/documents",
        files={"file": ("returns.md", b"## Returns\nReturns within 30 days.", "text/markdown")},
        data={"source": "support"},
        headers=auth(BOT),
    )
    assert created.status_code == 201, created.text
    assert "returns" in listed(client, BOT)
    assert client.delete("/documents/returns", headers=auth(BOT)).status_code == 200
    assert "returns" not in listed(client, ADMIN)


def test_health_counts_only_the_callers_own_tenant(client):
    anonymous = client.get("/health")
    assert anonymous.status_code == 200 and anonymous.json()["status"] == "ok"
    assert anonymous.json()["chunks"] is None
    assert client.get("/health", headers=auth("tl_wrong")).json()["chunks"] is None
    alpha = client.get("/health", headers=auth(ADMIN)).json()["chunks"]
    assert alpha == sum(
        d["chunks"] for d in client.get("/documents", headers=auth(ADMIN)).json()["data"]
    )
    assert client.get("/health", headers=auth(BETA)).json()["chunks"] == 0


def test_health_counts_only_the_sources_a_limited_key_reads(client):
    bot = client.get("/health", headers=auth(BOT)).json()["chunks"]
    readable = sum(d["chunks"] for d in client.get("/documents", headers=auth(BOT)).json()["data"])
    alpha = client.get("/health", headers=auth(ADMIN)).json()["chunks"]
    assert bot == readable > 0
    assert bot < alpha  # the reports and security sources are not counted for the bot


def test_tenants_differing_by_case_do_not_share_a_catalog(tmp_path):
    from threadline.knowledge.catalog import Catalog

    catalog = Catalog(tmp_path)
    product = {
        "id": "p1",
        "name": "Secret phone",
        "brand": "X",
        "category": "phones",
        "price_usd": 1,
    }
    catalog.save("Acme", "products", {"products": [product]})
    assert [p.name for p in catalog.products("Acme")] == ["Secret phone"]
    assert catalog.products("acme") == []
    assert catalog.products("ACME") == []
    catalog.save("a/b", "products", {"products": [product]})
    assert catalog.products("a-b") == []


def test_a_turn_is_spelt_with_the_words_of_the_sources_it_may_read(tmp_path):
    # The spelling fixes came from every document of the tenant: the support bot's
    # "bagdes" was searched as "badges", a word only the security handbook (a source
    # it may not read) holds, and its trace showed that word.
    services = make_services(
        tmp_path,
        corpus=[],
        source_policy=POLICY,
        debug_caller_apps=["support-bot", "default"],
        api_keys=[
            ApiKeyEntry(name="admin", sha256=hash_key(ADMIN), tenant="alpha"),
            ApiKeyEntry(
                name="bot", sha256=hash_key(BOT), tenant="alpha", caller_apps=["support-bot"]
            ),
        ],
    )
    try:
        with TestClient(create_app(services)) as client:
            for name, source, text in [
                ("handbook.md", "security", "## Badges\nZorblax badges are checked at the door."),
                ("faq.md", "support", "## Refunds\nRefunds take 5 working days."),
            ]:
                created = client.post(
                    "/documents",
                    files={"file": (name, text.encode(), "text/markdown")},
                    data={"source": source},
                    headers=auth(ADMIN),
                )
                assert created.status_code == 201, created.text
            admin = client.post(
                "/chat",
                json={"query": "Are zorblex bagdes refunded?", "debug": True},
                headers=auth(ADMIN),
            )
            assert "zorblax" in admin.text and "badg" in admin.text  # the fixes work
            bot = client.post(
                "/chat",
                json={
                    "query": "Are zorblex bagdes refunded?",
                    "caller_app": "support-bot",
                    "debug": True,
                },
                headers=auth(BOT),
            )
            assert bot.status_code == 200, bot.text
            assert "zorblax" not in bot.text.lower() and "badg" not in bot.text, bot.text
            # Its own sources' words still fix its spelling.
            fixed = client.post(
                "/chat",
                json={"query": "How long do refnuds take?", "caller_app": "support-bot"},
                headers=auth(BOT),
            )
            assert "5 working days" in fixed.json()["answer"], fixed.text
            # The sources a request names narrow its search, not its spelling: a caller
            # naming a new set of sources each time would have a vocabulary summed for
            # each (a second of CPU at a few hundred documents).
            for key, app, sources in [
                (ADMIN, "default", ["support"]),
                (BOT, "support-bot", ["support"]),
            ]:
                narrowed = client.post(
                    "/chat",
                    json={
                        "query": "How long do refnuds take?",
                        "caller_app": app,
                        "sources": sources,
                    },
                    headers=auth(key),
                )
                assert "5 working days" in narrowed.json()["answer"], narrowed.text
            assert set(services.kb._terms._scoped_totals) == {
                ("alpha", frozenset({"support", "catalog"}))
            }
        kb = services.kb
        assert "zorblax" in kb.vocabulary(tenant="alpha")
        assert "zorblax" not in kb.vocabulary(tenant="alpha", sources=("support", "catalog"))
        assert "refund" in kb.vocabulary(tenant="alpha", sources=("support", "catalog"))
        # A write changes the vocabularies of the sources it lands in.
        kb.ingest_document(
            dataclasses.replace(
                load_document(tmp_path / "x.md", raw="## Q\nQuuxly."), source="support"
            ),
            tenant="alpha",
        )
        assert "quuxli" in kb.vocabulary(tenant="alpha", sources=("support", "catalog"))
    finally:
        services.close()
