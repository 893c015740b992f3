"""Thanks are not greeted (issue 14, item 18)."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

from threadline.api.main import create_app


@pytest.fixture(scope="module")
def client(sample_services):
    with TestClient(create_app(sample_services)) as test_client:
        yield test_client


@pytest.mark.parametrize(
    ("query", "expected", "not_expected"),
    [
        ("thanks!", "welcome", "Hello"),
        ("Thank you very much.", "welcome", "Hello"),
        ("merci !", "plaisir", "Bonjour"),
        ("bye", "Goodbye", "Hello"),
        ("hello", "Hello", "welcome"),
    ],
)
def test_small_talk_gets_the_reply_it_asks_for(client, query, expected, not_expected):
    body = client.post("/chat", json={"query": query}).json()
    assert body["outcome"] == "reply" and body["citations"] == []
    assert expected in body["answer"] and not_expected not in body["answer"]
