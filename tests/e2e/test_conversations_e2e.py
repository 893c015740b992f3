"""Conversations as knowledge through a real `threadline serve`: hold, close, search, open.

The server's worker only runs every ten minutes here, so what makes the sessions
searchable is the close (it wakes the worker), as a user would see it.
"""

from __future__ import annotations

import time

import httpx
import pytest

from support.browser import LAUNCH_ARGS, install_chromium, playwright_missing
from support.paths import SAMPLE
from support.server import Server, ingest

ENV = {
    "THREADLINE_EMBEDDINGS": "sparse",
    "THREADLINE_LLM": "offline",
    "THREADLINE_CONVERSATION_INDEX_INTERVAL_SECONDS": "600",
}
CONVERSATIONS = {
    "conv-sla": ["What SLA applies to the enterprise plan?", "and for P2?"],
    "conv-laptops": ["Which laptop is the lightest?", "What phones do you have under $500?"],
    "conv-report": ["Résume le rapport annuel 2024", "Détaille S2"],
}


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    data_dir = tmp_path_factory.mktemp("conv-e2e")
    ingest(data_dir, SAMPLE, **ENV)
    running = Server(data_dir, **ENV)
    for session_id, questions in CONVERSATIONS.items():
        for question in questions:
            running.chat(query=question, thread_id=session_id)
    yield running
    running.stop()


def _search(server: Server, q: str, **params) -> dict:
    response = httpx.get(
        f"{server.url}/conversations/search", params={"q": q, **params}, timeout=30
    )
    assert response.status_code == 200, response.text
    return response.json()


def _wait_for(server: Server, q: str) -> dict:
    # The worker runs in the server's own thread: wait for it, bounded, not for a clock.
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        body = _search(server, q)
        if body["data"]:
            return body
        time.sleep(0.2)
    raise AssertionError(f"nothing found for {q!r} within 60 s of closing")


def test_hold_close_search_and_open_the_window(server) -> None:
    # Held but neither idle nor closed: not searchable yet.
    assert _search(server, "P2 enterprise plan")["data"] == []
    for session_id in CONVERSATIONS:
        closed = httpx.post(f"{server.url}/sessions/{session_id}/close", timeout=30)
        assert closed.status_code == 200 and closed.json()["closed_at"]
    body = _wait_for(server, "P2 enterprise plan")
    best = body["data"][0]
    assert best["session_id"] == "conv-sla"
    hit = next(e for e in best["exchanges"] if e["hit"])
    assert [e["sequence_order"] for e in best["exchanges"]] == sorted(
        e["sequence_order"] for e in best["exchanges"]
    )
    # Open the window: the session's messages at the hit are the ones shown.
    messages = httpx.get(f"{server.url}/sessions/conv-sla/messages", timeout=30).json()["data"]
    assert messages[hit["message_index"]]["content"] == hit["question"]
    assert messages[hit["message_index"] + 1]["content"] == hit["answer"]
    report = _wait_for(server, "Résultats financiers rapport annuel")
    assert report["data"][0]["session_id"] == "conv-report"


@pytest.mark.timeout(600)
def test_the_page_searches_opens_at_the_hit_and_forks(server) -> None:
    problem = playwright_missing()
    if problem:
        pytest.skip(problem)
    chromium, why = install_chromium()
    if chromium is None:
        pytest.skip(f"no headless chromium: {why}")
    from playwright.sync_api import expect, sync_playwright

    for session_id in CONVERSATIONS:
        httpx.post(f"{server.url}/sessions/{session_id}/close", timeout=30)
    _wait_for(server, "lightest laptop")
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=chromium, args=LAUNCH_ARGS, headless=True)
        try:
            page = browser.new_page(viewport={"width": 1280, "height": 860})
            page.set_default_timeout(20_000)
            page.goto(server.url + "/")
            expect(page.locator("body.ready")).to_have_count(1)
            page.get_by_label("Search past conversations").fill("lightest laptop")
            page.get_by_label("Search past conversations").press("Enter")
            window = page.locator('.conv-window[data-session="conv-laptops"]')
            expect(window).to_have_count(1)
            hit = window.locator(".conv-exchange.hit")
            expect(hit).to_contain_text("Which laptop is the lightest?")
            hit.get_by_role("button").click()
            expect(page).to_have_url(f"{server.url}/#conv-laptops")
            expect(page.locator(".msg.conv-hit")).to_contain_text("Which laptop is the lightest?")
            # Edit and resend the second question: a fork holding the first exchange only.
            users = page.locator(".msg.user")
            expect(users).to_have_count(2)
            users.nth(1).get_by_role("button", name="Edit and resend").click()
            expect(page).not_to_have_url(f"{server.url}/#conv-laptops")
            expect(page.get_by_label("Your message")).to_have_value(
                "What phones do you have under $500?"
            )
            expect(page.locator(".msg.user")).to_have_count(1)
            fork_id = page.url.split("#", 1)[1]
            fork = httpx.get(f"{server.url}/sessions/{fork_id}/messages", timeout=30).json()
            assert fork["count"] == 2
        finally:
            browser.close()
