"""Seed 002's scenario on real processes: converse, restart the server, follow up from disk.

The server runs with the embedded defaults (hybrid embeddings with the bundled
MiniLM, offline model), exactly as `make run` starts it.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from conftest import SAMPLE

pytestmark = [pytest.mark.e2e, pytest.mark.dense]
CLI = [sys.executable, "-m", "threadline.cli"]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def server_env(data_dir: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("THREADLINE_", "OPENAI_"))}
    env.pop("QDRANT_URL", None)
    env["THREADLINE_DATA_DIR"] = str(data_dir)
    return env


class Server:
    """`threadline serve` as a child process on a loopback port."""

    def __init__(self, data_dir: Path) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.process = subprocess.Popen(
            [*CLI, "serve", "--host", "127.0.0.1", "--port", str(self.port)],
            env=server_env(data_dir),
            cwd=data_dir,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
        )
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(self.process.stderr.read().decode()[-2000:])
            try:
                if httpx.get(f"{self.url}/health", timeout=2).status_code == 200:
                    return
            except httpx.HTTPError:
                time.sleep(0.3)
        self.stop()
        raise TimeoutError("server did not become healthy")

    def chat(self, **body) -> dict:
        response = httpx.post(f"{self.url}/chat", json=body, timeout=60)
        assert response.status_code == 200, response.text
        return response.json()

    def stop(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


def test_followup_survives_a_server_restart(tmp_path):
    ingest = subprocess.run(
        [*CLI, "ingest", str(SAMPLE)], env=server_env(tmp_path), cwd=tmp_path,
        capture_output=True, text=True, timeout=300,
    )
    assert ingest.returncode == 0, ingest.stderr
    assert "added 4" in ingest.stdout

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
