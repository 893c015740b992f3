"""The CLI beside a running server (issue 14, items 12 and 13): one clear line instead of a
WouldBlock traceback, and `threadline chat` talking to the server's HTTP API, continuing
the same conversations as the API and the page."""

from __future__ import annotations

import httpx
import pytest

from support.paths import SAMPLE
from support.server import Server, ingest, run_cli

ENV = {"THREADLINE_EMBEDDINGS": "sparse", "THREADLINE_LLM": "offline"}


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    data_dir = tmp_path_factory.mktemp("beside")
    ingest(data_dir, SAMPLE, **ENV)
    server = Server(data_dir, **ENV)
    yield data_dir, server
    server.stop()


def one_clear_line(result, url: str) -> None:
    assert result.returncode == 3, (result.stdout, result.stderr)
    lines = [line for line in result.stdout.splitlines() if line.strip()]
    assert len(lines) == 1, result.stdout
    assert f"held by a threadline server at {url}" in lines[0]
    assert "Traceback" not in result.stdout + result.stderr
    assert "WouldBlock" not in result.stdout + result.stderr


def test_ingest_beside_a_server_says_so_in_one_line(served):
    data_dir, server = served
    result = run_cli(data_dir, "ingest", str(SAMPLE), **ENV)
    one_clear_line(result, server.url)
    assert "/documents" in result.stdout  # what to do instead


def test_local_chat_beside_a_server_says_so_in_one_line(served):
    data_dir, server = served
    result = run_cli(data_dir, "chat", "--local", "-m", "hello", **ENV)
    one_clear_line(result, server.url)
    assert f"threadline chat --url {server.url}" in result.stdout


def test_chat_talks_to_the_running_server_and_shares_its_conversations(served):
    data_dir, server = served
    result = run_cli(
        data_dir,
        "chat",
        "--thread-id",
        "demo-rapport",
        "-m",
        "Résume le rapport annuel 2024",
        **ENV,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert f"via {server.url}" in result.stdout and "SUIVI" in result.stdout
    # The HTTP conversation of the same id is the CLI's: the follow-up resolves against it.
    followup = server.chat(query="Détaille S2", thread_id="demo-rapport")
    assert followup["followup"]["section_id"] == "S2" and followup["followup"]["resolved"]
    messages = httpx.get(f"{server.url}/sessions/demo-rapport/messages", timeout=30).json()
    assert messages["count"] == 4
    # And the other way round, with an explicit --url.
    again = run_cli(
        data_dir,
        "chat",
        "--url",
        server.url,
        "--thread-id",
        "demo-rapport",
        "-m",
        "Détaille S3",
        **ENV,
    )
    assert again.returncode == 0 and "followup=section:S3" in again.stdout, again.stdout


def test_serve_beside_a_server_says_so_in_one_line(served):
    data_dir, server = served
    result = run_cli(data_dir, "serve", "--port", "1", **ENV)
    assert result.returncode == 3 and server.url in result.stdout
    assert "Traceback" not in result.stdout + result.stderr
