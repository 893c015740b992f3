"""Seed 002's scenario on real processes: converse, restart the server, follow up from disk.

The server runs with the embedded defaults (hybrid embeddings with the bundled
MiniLM, offline model), exactly as `make run` starts it.
"""

from __future__ import annotations

import httpx
import pytest

from conftest import SAMPLE
from support.server import Server, ingest

pytestmark = [pytest.mark.e2e, pytest.mark.dense]


def test_followup_survives_a_server_restart(tmp_path):
    assert "added 4" in ingest(tmp_path, SAMPLE).stdout

    server = Server(tmp_path)
    try:
        first = server.chat(query="Résume le rapport annuel 2024", thread_id="restart-1")
        assert len(first["outline"]) >= 4
        phones = server.chat(query="What phones do you have under $500?", thread_id="phones-1")
        assert phones["outcome"] == "tool_answer"
    finally:
        server.stop()

    server = Server(tmp_path)  # a new process: nothing in memory, only what is on disk
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
