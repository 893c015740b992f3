"""The page's thumbs, reason picker, trace, regenerate, alternatives and downloads, in a
real browser against `threadline serve` (Debian's chromium through Playwright)."""

from __future__ import annotations

import json
import re
import time

import httpx
import pytest

from support.browser import LAUNCH_ARGS, install_chromium, playwright_missing
from support.paths import SAMPLE
from support.server import Server, ingest
from threadline.auth import hash_key

API_KEY = "tl_web-feedback-test-key"
AUTH = {"Authorization": f"Bearer {API_KEY}"}


@pytest.fixture(scope="module")
def chromium() -> str:
    problem = playwright_missing()
    if problem:
        pytest.skip(problem)
    path, why = install_chromium()
    if path is None:
        pytest.skip(f"no headless chromium: {why}")
    return path


@pytest.fixture(scope="module")
def live_server(tmp_path_factory):
    data_dir = tmp_path_factory.mktemp("web-feedback")
    keys = json.dumps([{"name": "web-test", "sha256": hash_key(API_KEY), "tenant": "default"}])
    env = {"THREADLINE_EMBEDDINGS": "sparse", "THREADLINE_LLM": "offline"}
    ingest(data_dir, SAMPLE, **env)
    server = Server(data_dir, **env, THREADLINE_API_KEYS=keys)
    yield server
    server.stop()


def stored(server, session_id: str) -> list[dict]:
    return httpx.get(f"{server.url}/sessions/{session_id}/messages", headers=AUTH).json()["data"]


@pytest.mark.e2e
@pytest.mark.timeout(900)
def test_rate_regenerate_switch_and_download_in_a_browser(chromium, live_server):
    from playwright.sync_api import expect, sync_playwright

    problems: list[str] = []
    started = time.monotonic()
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=chromium, args=LAUNCH_ARGS, headless=True)
        try:
            page = browser.new_page(viewport={"width": 1280, "height": 900}, accept_downloads=True)
            page.set_default_timeout(20_000)
            expect.set_options(timeout=20_000)
            page.on("pageerror", lambda exc: problems.append(f"page error: {exc}"))
            page.on(
                "console",
                lambda msg: (
                    problems.append(f"console: {msg.text}")
                    if msg.type == "error" and not msg.text.startswith("Failed to load resource")
                    else None
                ),
            )
            page.goto(live_server.url + "/")
            dialog = page.get_by_role("dialog", name="API key")
            dialog.get_by_label("Key").fill(API_KEY)
            dialog.get_by_label("Key").press("Enter")
            expect(page.locator("body.ready")).to_have_count(1)

            page.get_by_label("Your message").fill("Résume le rapport annuel 2024")
            page.get_by_label("Your message").press("Enter")
            answer = page.locator(".msg.assistant").first
            expect(answer.locator(".turn-details")).to_have_count(1)
            session_id = page.locator("#session-list .session").first.get_attribute("data-id")

            # Thumbs down asks why; the reason and comment are stored with the answer.
            down = answer.get_by_role("button", name="Bad answer")
            down.click()
            answer.get_by_label("What was wrong").select_option("incomplete")
            answer.get_by_label("Comment").fill("the outlook is missing")
            answer.get_by_role("button", name="Send").click()
            expect(down).to_have_attribute("aria-pressed", "true")
            expect(answer.locator(".feedback-status")).to_have_text("Flagged: Incomplete")
            [rating] = stored(live_server, session_id)[1]["metadata"]["feedback"]
            assert (rating["rating"], rating["reason"], rating["comment"]) == (
                "down",
                "incomplete",
                "the outlook is missing",
            )
            assert rating["user"].startswith("web-test#")
            # Changing one's mind replaces the rating (one per user per answer).
            up = answer.get_by_role("button", name="Good answer")
            up.click()
            expect(up).to_have_attribute("aria-pressed", "true")
            expect(down).to_have_attribute("aria-pressed", "false")
            assert [
                f["rating"] for f in stored(live_server, session_id)[1]["metadata"]["feedback"]
            ] == ["up"]
            page.reload()  # the page knows its own rating from the store
            answer = page.locator(".msg.assistant").first
            expect(answer.get_by_role("button", name="Good answer")).to_have_attribute(
                "aria-pressed", "true"
            )

            # The detail panel shows the trace.
            answer.locator(".turn-details summary").click()
            answer.get_by_role("button", name="Show trace").click()
            expect(answer.locator(".trace-body")).to_contain_text('"node":"retrieve"')
            expect(answer.locator(".trace-body")).to_contain_text('"node":"context"')

            # Regenerate: a second answer; the first is one click away.
            answer.get_by_role("button", name="Regenerate").click()
            expect(page.locator(".alternatives-count")).to_have_text("2/2")
            expect(page.locator(".msg.assistant")).to_have_count(1)
            messages = stored(live_server, session_id)
            assert len(messages) == 3 and messages[1]["metadata"]["superseded"] is True
            page.get_by_role("button", name="Previous answer").click()
            expect(page.locator(".alternatives-count")).to_have_text("1/2")
            messages = stored(live_server, session_id)
            assert "superseded" not in messages[1]["metadata"]
            assert messages[2]["metadata"]["superseded"] is True

            # Download: Markdown and the JSON that imports back.
            with page.expect_download() as got:
                page.get_by_role("button", name="Markdown").click()
            markdown = got.value
            assert markdown.suggested_filename == f"{session_id}.md"
            text = open(markdown.path(), encoding="utf-8").read()
            assert text.startswith("# Résume le rapport annuel 2024")
            assert "[^t1-1]:" in text and "1 earlier answer set aside" in text
            with page.expect_download() as got:
                page.get_by_role("button", name="JSON").click()
            exported = json.loads(open(got.value.path(), encoding="utf-8").read())
            assert exported["format"] == "threadline.session"
            assert len(exported["session"]["messages"]) == 3

            # A new question: only the last answer offers to regenerate.
            page.get_by_role("button", name=re.compile(r"^Détaille S2")).click()
            expect(page.locator(".msg.assistant")).to_have_count(2)
            expect(page.locator(".msg.assistant").nth(1).locator(".turn-details")).to_have_count(1)
            expect(page.get_by_role("button", name="Regenerate")).to_have_count(1)
        finally:
            browser.close()
    assert not problems, problems
    assert time.monotonic() - started < 120
