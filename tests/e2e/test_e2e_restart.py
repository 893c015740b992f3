"""Seed 002's scenario on real processes: converse, restart the server, follow up from disk.

The server runs with the embedded defaults (hybrid embeddings with the bundled
MiniLM, offline model), exactly as `make run` starts it; once with the JSON store
and SQLite log, once with both in PostgreSQL (`THREADLINE_DATABASE_URL`).
"""

from __future__ import annotations

import httpx
import pytest

from support.paths import SAMPLE
from support.server import Server, ingest

pytestmark = [pytest.mark.e2e, pytest.mark.dense]


@pytest.fixture(params=["json", "postgres"])
def store_env(request) -> dict[str, str]:
    if request.param == "json":
        return {}
    return {"THREADLINE_DATABASE_URL": request.getfixturevalue("pg_url")}


def test_followup_survives_a_server_restart(tmp_path, store_env):
    assert "added 4" in ingest(tmp_path, SAMPLE).stdout

    server = Server(tmp_path, **store_env)
    try:
        first = server.chat(query="Résume le rapport annuel 2024", thread_id="restart-1")
        assert len(first["outline"]) >= 4
        phones = server.chat(query="What phones do you have under $500?", thread_id="phones-1")
        assert phones["outcome"] == "tool_answer"
    finally:
        server.stop()

    server = Server(tmp_path, **store_env)  # a new process: only what was stored
    try:
        second = server.chat(query="Détaille S2", thread_id="restart-1")
        assert second["followup"]["resolved"] is True
        assert second["followup"]["section_id"] == "S2"
        assert second["search_query"].startswith(first["outline"][1]["title"])
        assert second["outcome"] == "grounded_answer"
        samsung = server.chat(query="Tell me more about the Samsung one", thread_id="phones-1")
        assert "Samsung Galaxy A55" in samsung["search_query"]
        messages = httpx.get(f"{server.url}/sessions/restart-1/messages").json()
    finally:
        server.stop()

    # Every message exactly once, in order: the pipeline is the single writer.
    assert messages["count"] == 4
    contents = [m["content"] for m in messages["data"]]
    assert contents[0] == "Résume le rapport annuel 2024" and contents[2] == "Détaille S2"
    assert len({m["id"] for m in messages["data"]}) == 4
    if store_env:  # nothing went to the JSON files or the SQLite log
        assert not (tmp_path / "sessions").exists()
        assert not (tmp_path / "queries.sqlite3").exists()
