"""The web chat page at `/` in a real browser, against `threadline serve`.

Its assets and passage route in process are in integration/test_web_page_routes.py.

The browser test runs Debian's `chromium` through Playwright's Python package
(never `playwright install`): `python tests/support/browser.py` installs it.
"""

from __future__ import annotations

import json
import os
import re
import time

import httpx
import pytest

from support.browser import LAUNCH_ARGS, install_chromium, playwright_missing
from support.paths import ROOT, SAMPLE
from support.server import Server, ingest
from threadline.auth import hash_key

# The README's screenshot is refreshed only on request (THREADLINE_SCREENSHOT=docs/screenshot.png),
# so a test run never modifies the work tree.
SCREENSHOT_TARGET = os.environ.get("THREADLINE_SCREENSHOT")
API_KEY = "tl_web-page-test-key"


# ---------------------------------------------------------------- in-process: assets, passages


# ---------------------------------------------------------------- a real browser


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
    """`threadline serve` on the sample data, with an API key required."""
    data_dir = tmp_path_factory.mktemp("web")
    keys = json.dumps([{"name": "web-test", "sha256": hash_key(API_KEY), "tenant": "default"}])
    env = {"THREADLINE_EMBEDDINGS": "sparse", "THREADLINE_LLM": "offline"}
    ingest(data_dir, SAMPLE, **env)
    server = Server(data_dir, **env, THREADLINE_API_KEYS=keys)
    yield server
    server.stop()


@pytest.mark.e2e
@pytest.mark.timeout(900)  # a first run may apt-get install chromium
def test_chat_page_in_a_browser(chromium, live_server):
    from playwright.sync_api import expect, sync_playwright

    auth = {"Authorization": f"Bearer {API_KEY}"}
    problems: list[str] = []
    started = time.monotonic()
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=chromium, args=LAUNCH_ARGS, headless=True)
        try:
            page = browser.new_page(
                viewport={"width": 1280, "height": 860}, device_scale_factor=2, locale="fr-FR"
            )
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

            # The server wants a key: the page asks, a wrong one is refused, the right one is kept.
            key_dialog = page.get_by_role("dialog", name="API key")
            expect(key_dialog).to_be_visible()
            key_dialog.get_by_label("Key").fill("tl_wrong")
            key_dialog.get_by_role("button", name="Save key").click()
            expect(key_dialog).to_contain_text("refused")
            key_dialog.get_by_label("Key").fill(API_KEY)
            key_dialog.get_by_label("Key").press("Enter")
            expect(key_dialog).to_be_hidden()
            expect(page.locator("body.ready")).to_have_count(1)
            # Kept for this browser session only: nothing in local storage unless remembered.
            assert page.evaluate("sessionStorage.getItem('threadline.apiKey')") == API_KEY
            assert page.evaluate("localStorage.getItem('threadline.apiKey')") is None
            # The footer counts this tenant's passages once the key is accepted.
            expect(page.locator("#service-info")).to_contain_text("passages")

            # A new session, then the annual report summary, streamed.
            page.get_by_role("button", name="New conversation").click()
            sessions = page.locator("#session-list .session")
            expect(sessions).to_have_count(1)
            session_id = sessions.first.get_attribute("data-id")
            page.get_by_label("Your message").fill("Résume le rapport annuel 2024")
            page.get_by_label("Your message").press("Enter")

            answers = page.locator(".msg.assistant")
            first = answers.nth(0)
            expect(first.locator(".turn-details")).to_have_count(1)  # the final event arrived
            chips = first.locator(".outline .chip")
            expect(chips).to_have_count(7)
            expect(chips.nth(1)).to_contain_text("Résultats financiers")
            expect(first.locator(".citation")).to_have_count(7)
            expect(first.locator(".answer button.cite-marker").first).to_be_visible()
            expect(first.locator(".answer")).not_to_contain_text("SUIVI")
            expect(sessions.first.locator(".session-title")).to_have_text(
                "Résume le rapport annuel 2024"
            )

            # The S2 chip sends the French follow-up.
            page.get_by_role("button", name=re.compile(r"^Détaille S2")).click()
            users = page.locator(".msg.user")
            expect(users).to_have_count(2)
            expect(users.nth(1)).to_have_text("Détaille S2")
            second = answers.nth(1)
            expect(second.locator(".turn-details")).to_have_count(1)
            expect(second.locator(".answer")).to_contain_text("486,3 millions de dollars")
            expect(second.locator(".citation").first).to_contain_text("Résultats financiers")
            expect(second.locator(".answer button.cite-marker").first).to_be_visible()
            # The README's screenshot: the summary's sources and outline, the follow-up, its answer.
            expect(chips.nth(1)).to_be_in_viewport()
            expect(second.locator(".citation").first).to_be_in_viewport()
            shot = page.screenshot(
                path=str(ROOT / SCREENSHOT_TARGET) if SCREENSHOT_TARGET else None
            )
            assert shot[:8] == b"\x89PNG\r\n\x1a\n"

            # How the follow-up was understood.
            second.locator(".turn-details summary").click()
            details = second.locator(".turn-details dl")
            expect(details).to_be_visible()
            expect(details.locator('[data-key="reference_type"] dd')).to_have_text("section")
            expect(details.locator('[data-key="section"] dd')).to_have_text("S2")
            expect(details.locator('[data-key="method"] dd')).to_have_text("deterministic")
            expect(details.locator('[data-key="route"] dd')).to_have_text("followup_reference")
            expect(details.locator('[data-key="search_query"] dd')).to_contain_text(
                "Résultats financiers"
            )

            # A citation marker in the text opens the cited passage, fetched from the index.
            second.locator(".answer button.cite-marker").first.click()
            passage = second.locator(".passage-text")
            expect(passage).to_be_visible()
            expect(passage).to_contain_text("486,3 millions de dollars")
            # So does a row of the first answer's source list; clicking again closes it.
            toggle = first.locator(".citation-toggle", has_text="Perspectives 2025")
            toggle.click()
            expect(toggle).to_have_attribute("aria-expanded", "true")
            expect(first.locator(".passage-text")).to_contain_text("530 et 545 millions")
            toggle.click()
            expect(first.locator(".passage-text")).to_be_hidden()

            # Reloading shows the same conversation from the store.
            page.reload()
            expect(page.locator(".msg.assistant")).to_have_count(2)
            expect(page.locator(".msg.assistant").nth(0).locator(".chip")).to_have_count(7)

            # Rename.
            item = page.locator(f'#session-list .session[data-id="{session_id}"]')
            item.hover()
            item.get_by_role("button", name=re.compile("^Rename")).click()
            title_input = page.get_by_label("New title")
            title_input.fill("Rapport 2024 — notes")
            title_input.press("Enter")
            expect(item.locator(".session-title")).to_have_text("Rapport 2024 — notes")
            expect(page.locator("#chat-title")).to_have_text("Rapport 2024 — notes")
            stored = httpx.get(f"{live_server.url}/sessions/{session_id}", headers=auth).json()
            assert stored["title"] == "Rapport 2024 — notes"

            # Delete, after confirming.
            item.hover()
            item.get_by_role("button", name=re.compile("^Delete")).click()
            confirm = page.get_by_role("dialog", name="Delete conversation?")
            expect(confirm).to_contain_text("Rapport 2024 — notes")
            confirm.get_by_role("button", name="Delete").click()
            expect(page.locator("#session-list .session")).to_have_count(0)
            expect(page.locator("#empty-state")).to_be_visible()
            gone = httpx.get(f"{live_server.url}/sessions/{session_id}", headers=auth)
            assert gone.status_code == 404

            # An English conversation, started by just typing: the chips say "Expand".
            page.get_by_label("Your message").fill("Summarize the security handbook")
            page.get_by_label("Your message").press("Enter")
            expect(page.locator("#session-list .session")).to_have_count(1)
            answers = page.locator(".msg.assistant")
            expect(answers.nth(0).locator(".turn-details")).to_have_count(1)
            page.get_by_role("button", name=re.compile(r"^Expand S2")).click()
            expect(page.locator(".msg.user").nth(1)).to_have_text("Expand S2")
            expect(answers.nth(1).locator(".turn-details")).to_have_count(1)
            expect(answers.nth(1).locator(".citation").first).to_contain_text("Device encryption")

            # A message sent the moment an answer is complete is not dropped, even while the
            # session list is slow to refresh (as under CPU load).
            page.evaluate(
                """() => {
                  const plain = window.fetch;
                  window.fetch = (url, options) => String(url).startsWith("/sessions?")
                    ? new Promise((ok) => setTimeout(ok, 1500)).then(() => plain(url, options))
                    : plain(url, options);
                }"""
            )
            page.get_by_label("Your message").fill("What about passwords?")
            page.get_by_label("Your message").press("Enter")
            expect(answers.nth(2).locator(".turn-details")).to_have_count(1)
            page.get_by_label("Your message").fill("And device encryption?")
            page.get_by_label("Your message").press("Enter")
            expect(page.locator(".msg.user")).to_have_count(4)
            expect(answers.nth(3).locator(".turn-details")).to_have_count(1)

            # An ambiguous question gets a question back with one chip per candidate; a chip
            # sends a question naming its candidate, which is then answered (issue 11).
            page.get_by_label("Your message").fill("What is the warranty?")
            page.get_by_label("Your message").press("Enter")
            asked = answers.nth(4)
            expect(asked.locator(".turn-details")).to_have_count(1)
            options = asked.locator('.clarify-options[data-reason="ambiguous"] .chip')
            expect(options.first).to_be_visible()
            assert options.count() >= 2
            label = options.first.inner_text()
            options.first.click()
            expect(page.locator(".msg.user").nth(5)).to_have_text(
                re.compile(rf"^{re.escape(label)}")
            )
            expect(answers.nth(5).locator(".turn-details")).to_have_count(1)
            expect(answers.nth(5).locator(".citation").first).to_contain_text(label)

            # Failures are shown, not swallowed: an HTTP error, then an `error` event.
            page.route(
                "**/chat/stream",
                lambda route: route.fulfill(
                    status=503,
                    content_type="application/json",
                    body=json.dumps(
                        {"error": {"code": "store_busy", "message": "The session is busy."}}
                    ),
                ),
            )
            page.get_by_label("Your message").fill("Bonjour")
            page.get_by_label("Your message").press("Enter")
            failed = page.locator(".msg.assistant.failed")
            expect(failed).to_have_count(1)
            expect(failed.get_by_role("alert")).to_contain_text("store_busy")
            page.unroute("**/chat/stream")
            page.route(
                "**/chat/stream",
                lambda route: route.fulfill(
                    status=200,
                    content_type="text/event-stream",
                    body='event: phase\ndata: {"node": "load_conversation"}\n\n'
                    'event: error\ndata: {"code": "internal_error", '
                    '"message": "The turn was not saved."}\n\n',
                ),
            )
            page.get_by_label("Your message").fill("Bonjour encore")
            page.get_by_label("Your message").press("Enter")
            expect(failed).to_have_count(2)
            expect(failed.nth(1).get_by_role("alert")).to_contain_text("internal_error")
            expect(page.get_by_label("Your message")).to_be_enabled()
        finally:
            browser.close()
    assert not problems, problems
    assert time.monotonic() - started < 90


@pytest.mark.e2e
@pytest.mark.timeout(300)
def test_a_citation_whose_document_changed_says_so_in_the_browser(chromium, live_server):
    from playwright.sync_api import expect, sync_playwright

    auth = {"Authorization": f"Bearer {API_KEY}"}
    report = "# Sales report\n\n## Units\n\nSales were {units} units in March.\n"

    def upload(units: int) -> None:
        body = report.format(units=units).encode()
        sent = httpx.post(
            f"{live_server.url}/documents",
            files={"file": ("sales-report.md", body, "text/markdown")},
            headers=auth,
        )
        assert sent.status_code == 201, sent.text

    upload(42)
    problems: list[str] = []
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=chromium, args=LAUNCH_ARGS, headless=True)
        try:
            page = browser.new_page(viewport={"width": 1280, "height": 860})
            page.set_default_timeout(20_000)
            expect.set_options(timeout=20_000)
            page.on("pageerror", lambda exc: problems.append(f"page error: {exc}"))
            page.add_init_script(f"sessionStorage.setItem('threadline.apiKey', '{API_KEY}')")
            page.goto(live_server.url + "/")
            expect(page.locator("body.ready")).to_have_count(1)
            page.get_by_label("Your message").fill("How many units were sold in March?")
            page.get_by_label("Your message").press("Enter")
            answer = page.locator(".msg.assistant").last
            expect(answer.locator(".turn-details")).to_have_count(1)
            expect(answer.locator(".answer")).to_contain_text("42 units")
            toggle = answer.locator(".citation-toggle", has_text="Sales report")
            toggle.click()
            expect(answer.locator(".passage-text")).to_contain_text("42 units")

            # The report is uploaded again with another figure: reloaded from the store, the
            # citation no longer opens the new text as what the answer quoted.
            upload(57)
            page.reload()
            answer = page.locator(".msg.assistant").last
            answer.locator(".citation-toggle", has_text="Sales report").click()
            changed = answer.locator(".passage-changed")
            expect(changed).to_contain_text("has changed since this answer")
            expect(answer.locator(".passage-text")).to_have_count(0)
            # The current version only when asked for, and named as such.
            answer.get_by_role("button", name="Show the current version").click()
            expect(answer.locator(".passage-text")).to_contain_text("57 units")
            expect(answer.locator(".passage")).to_contain_text("not the text this answer quoted")
        finally:
            browser.close()
    assert not problems, problems
