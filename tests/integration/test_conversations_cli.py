"""`threadline conversations index` and `search` over a real store and index."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from support.conversations import add_turns
from threadline.cli import app
from threadline.settings import get_settings
from threadline.store import ConversationStore


@pytest.fixture
def runner(monkeypatch, tmp_path):
    monkeypatch.setenv("THREADLINE_DATA_DIR", str(tmp_path))
    monkeypatch.setenv("THREADLINE_EMBEDDINGS", "sparse")
    monkeypatch.setenv("THREADLINE_LLM", "offline")
    monkeypatch.chdir(tmp_path)  # no developer .env
    get_settings.cache_clear()
    yield CliRunner()
    get_settings.cache_clear()


def test_index_then_search(runner, tmp_path) -> None:
    store = ConversationStore(tmp_path / "sessions")
    add_turns(
        store,
        "default",
        "default",
        "sla",
        [
            ("What SLA applies to the enterprise plan?", "99.95% uptime."),
            ("and for P2?", "P2 gets a first response within 1 hour."),
        ],
    )
    add_turns(store, "default", "default", "other", [("hello there", "hi")])
    # Not idle yet: the plain command leaves them queued.
    result = runner.invoke(app, ["conversations", "index"])
    assert result.exit_code == 0, result.output
    assert "sessions 0" in result.output
    result = runner.invoke(app, ["conversations", "index", "--session", "sla"])
    assert result.exit_code == 0, result.output
    assert "sessions 1, exchanges embedded 3" in result.output
    result = runner.invoke(app, ["conversations", "index", "--all"])
    assert "sessions 1, exchanges embedded 2" in result.output  # only "other" was left
    result = runner.invoke(app, ["conversations", "search", "P2 first response", "--json"])
    assert result.exit_code == 0, result.output
    windows = [json.loads(line) for line in result.output.splitlines() if line.startswith("{")]
    assert windows[0]["session_id"] == "sla"
    assert [e["hit"] for e in windows[0]["exchanges"]] == [False, True]
