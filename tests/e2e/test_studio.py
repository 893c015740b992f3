"""`langgraph dev` (what `make studio` runs) on the real langgraph.json, driven by langgraph-sdk.

One child process serves LangGraph's API (threads, runs: what Studio calls)
and threadline's API (mounted through langgraph.json's `http.app`) over one
data directory. A two-turn thread started the way Studio starts it (an empty
`thread_id` in the input: the LangGraph thread id is used) must give the same
turns as `POST /chat`, and both must land in threadline's conversation store.
Loopback only; analytics and the version check are switched off; the server is
killed at the end, pass or fail.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from support.paths import ROOT, SAMPLE
from support.server import CLI, free_port, server_env

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(120)]

LANGGRAPH = Path(sys.executable).with_name("langgraph")
GRAPH_ID = "threadline"
SUMMARY = "Résume le rapport annuel 2024"
DETAIL = "Détaille S2"
STARTUP_SECONDS = 60
# The fields of a turn that must not depend on whether Studio or POST /chat ran it.
SAME_TURN = ("answer", "outline", "route", "outcome", "search_query", "followup")


def studio_config(tmp_path: Path) -> Path:
    """The repository's langgraph.json with its paths made absolute.

    `langgraph dev` resolves paths from its working directory and writes its own
    state (`.langgraph_api/`) there; running it in tmp_path keeps the work tree
    clean and keeps a developer's `.env` out of the test.
    """
    config = json.loads((ROOT / "langgraph.json").read_text())

    def absolute(spec: str) -> str:
        path, _, attribute = spec.partition(":")
        return f"{(ROOT / path).resolve()}:{attribute}"

    config["dependencies"] = [str((ROOT / dep).resolve()) for dep in config["dependencies"]]
    config["graphs"] = {name: absolute(spec) for name, spec in config["graphs"].items()}
    config["http"]["app"] = absolute(config["http"]["app"])
    target = tmp_path / "langgraph.json"
    target.write_text(json.dumps(config, indent=2))
    return target


def studio_env(data_dir: Path) -> dict[str, str]:
    return server_env(
        data_dir,
        THREADLINE_EMBEDDINGS="sparse",
        THREADLINE_LLM="offline",
        LANGGRAPH_CLI_NO_ANALYTICS="1",
        LANGGRAPH_NO_VERSION_CHECK="true",
        LANGSMITH_TRACING="false",
        LANGCHAIN_TRACING_V2="false",
    )


class DevServer:
    """`langgraph dev --no-reload` as a child process (its own process group) on loopback."""

    def __init__(self, workdir: Path, config: Path, env: dict[str, str]) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.log_path = workdir / "langgraph-dev.log"
        self._log = self.log_path.open("wb")
        self.process = subprocess.Popen(
            [
                str(LANGGRAPH),
                "dev",
                "--config",
                str(config),
                "--host",
                "127.0.0.1",
                "--port",
                str(self.port),
                "--no-browser",
                "--no-reload",
            ],
            cwd=workdir,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=self._log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )

    def log_tail(self) -> str:
        self._log.flush()
        return self.log_path.read_text(errors="replace")[-4000:]

    def wait_ready(self, timeout: float) -> None:
        """Until LangGraph answers /ok and threadline's /health says the index is open."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"langgraph dev exited early:\n{self.log_tail()}")
            try:
                ok = httpx.get(f"{self.url}/ok", timeout=2).status_code == 200
                if ok and httpx.get(f"{self.url}/health", timeout=5).status_code == 200:
                    return
            except httpx.HTTPError:
                pass
            time.sleep(0.3)
        raise TimeoutError(f"langgraph dev not ready in {timeout:.0f}s:\n{self.log_tail()}")

    def stop(self) -> None:
        """SIGTERM the server's process group, SIGKILL it if it lingers."""
        try:
            if self.process.poll() is None:
                os.killpg(self.process.pid, signal.SIGTERM)
                try:
                    self.process.wait(timeout=15)
                except subprocess.TimeoutExpired:
                    os.killpg(self.process.pid, signal.SIGKILL)
                    self.process.wait(timeout=10)
        except ProcessLookupError:
            pass
        finally:
            self._log.close()


async def studio_thread(url: str) -> tuple[str, dict, dict]:
    """Two runs in one LangGraph thread, input as Studio sends it (no thread_id)."""
    from langgraph_sdk import get_client

    client = get_client(url=url, timeout=60)
    thread = await client.threads.create()
    thread_id = thread["thread_id"]
    first = await client.runs.wait(thread_id, GRAPH_ID, input={"query": SUMMARY})
    second = await client.runs.wait(thread_id, GRAPH_ID, input={"query": DETAIL})
    return thread_id, first, second


def test_studio_runs_share_the_api_store_and_turns(tmp_path):
    if not LANGGRAPH.exists():
        pytest.fail(f"{LANGGRAPH} is missing: install langgraph-cli[inmem] (see pyproject.toml)")
    data_dir = tmp_path / "data"
    env = studio_env(data_dir)
    ingest = subprocess.run(
        [*CLI, "ingest", str(SAMPLE)],
        env=env,
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert ingest.returncode == 0, ingest.stdout + ingest.stderr

    server = DevServer(tmp_path, studio_config(tmp_path), env)
    try:
        server.wait_ready(STARTUP_SECONDS)
        thread_id, first, second = asyncio.run(studio_thread(server.url))

        # The same two turns through the mounted threadline API, in the same process.
        with httpx.Client(base_url=server.url, timeout=60) as http:
            api_first = http.post("/chat", json={"query": SUMMARY, "thread_id": "api-twin"})
            api_second = http.post("/chat", json={"query": DETAIL, "thread_id": "api-twin"})
            messages = http.get(f"/sessions/{thread_id}/messages")
            unknown_session = http.get("/sessions/no-such-session/messages")
            unknown_thread = http.get(f"/threads/{'0' * 8}-0000-4000-8000-{'0' * 12}")
    finally:
        server.stop()

    # Turn 1: a summary with an outline, under the LangGraph thread id.
    assert first["thread_id"] == thread_id
    assert first["outcome"] == "grounded_answer", first.get("stop_reason")
    assert len(first["outline"]) >= 4
    s2_title = next(o["title"] for o in first["outline"] if o["id"] == "S2")

    # Turn 2, same LangGraph thread: S2 resolved from the first turn, a fresh turn state.
    assert second["thread_id"] == thread_id
    assert second["followup"]["resolved"] is True
    assert second["followup"]["section_id"] == "S2"
    assert second["followup"]["method"] == "deterministic"
    assert second["search_query"].startswith(s2_title)
    assert second["outcome"] == "grounded_answer"
    assert second["trace"][0] == {"node": "load_conversation", "turns": 1}
    assert second["message_ids"] != first["message_ids"], "the second run was taken for a retry"

    # Studio and POST /chat produce the same turns.
    assert api_first.status_code == 200, api_first.text
    assert api_second.status_code == 200, api_second.text
    for studio_turn, api_turn in ((first, api_first.json()), (second, api_second.json())):
        studio_view = {k: studio_turn[k] for k in SAME_TURN}
        studio_view["followup"] = {k: studio_turn["followup"].get(k) for k in api_turn["followup"]}
        assert studio_view == {k: api_turn[k] for k in SAME_TURN}

    # Both Studio runs were written to threadline's store, once each, in order.
    assert messages.status_code == 200, messages.text
    body = messages.json()
    assert body["count"] == 4
    assert [m["content"] for m in body["data"][::2]] == [SUMMARY, DETAIL]
    assert [m["role"] for m in body["data"]] == ["user", "assistant"] * 2
    turn_ids = [m["turn_id"] for m in body["data"]]
    assert turn_ids[0] == turn_ids[1] != turn_ids[2] == turn_ids[3]
    assert [m["id"] for m in body["data"]] == first["message_ids"] + second["message_ids"]
    assert body["data"][1]["content"] == first["answer"]
    assert body["data"][3]["content"] == second["answer"]
    assert body["data"][3]["metadata"]["followup"]["section_id"] == "S2"

    # Each API keeps its own error body: threadline's on its routes, LangGraph's on its own.
    assert unknown_session.status_code == 404
    assert unknown_session.json()["error"]["code"] == "session_not_found"
    assert unknown_thread.status_code == 404
    assert "detail" in unknown_thread.json()
