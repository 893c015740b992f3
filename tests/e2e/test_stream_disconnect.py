"""A client that hangs up in the middle of a streamed answer leaves no half-written turn.

A real `threadline serve` (sparse embeddings, the OpenAI path against the local stub)
streams an answer; the stub holds the answer after its first words, the client reads
that token and closes the connection. The turn the client never saw end is not stored
(neither the question alone nor a partial answer), the session file stays valid, and
the next turn on the same session is stored whole.
"""

from __future__ import annotations

import json
import socket
import threading
import time

import httpx
import pytest

from support.openai_stub import OpenAIStub
from support.paths import SAMPLE
from support.server import Server, ingest, run_cli

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(180)]


def hang_up_while_generating(
    url: str, body: dict, generating: threading.Event, path: str = "/chat/stream"
) -> list[str]:
    """POST to `path` over a raw socket, read what comes (the events of a stream) until
    the model is writing the answer (`generating` set by the stub), then close the
    socket without reading further (a user closing the tab)."""
    host, port = url.removeprefix("http://").split(":")
    payload = json.dumps(body).encode()
    sock = socket.create_connection((host, int(port)), timeout=30)
    try:
        sock.sendall(
            f"POST {path} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n".encode()
            + f"Content-Length: {len(payload)}\r\n\r\n".encode()
            + payload
        )
        sock.settimeout(0.2)
        received = b""
        deadline = time.monotonic() + 30
        while not generating.is_set():
            assert time.monotonic() < deadline, f"no generation began: {received[-500:]!r}"
            try:
                data = sock.recv(65536)
            except TimeoutError:
                continue
            assert data, f"the stream ended before the answer: {received[-500:]!r}"
            received += data
        # Chunked transfer encoding puts chunk sizes between events: keep the event lines.
        text = received.decode(errors="replace")
        return [e[e.index("event:") :].splitlines()[0] for e in text.split("\n\n") if "event:" in e]
    finally:
        sock.close()


def test_hanging_up_mid_stream_stores_nothing_of_that_turn(tmp_path):
    env = {"THREADLINE_EMBEDDINGS": "sparse"}
    ingest(tmp_path, SAMPLE, **env)
    with OpenAIStub() as stub:
        server = Server(
            tmp_path,
            **env,
            THREADLINE_LLM="openai",
            OPENAI_BASE_URL=stub.base_url,
            OPENAI_API_KEY="test-key",
        )
        try:
            stub.queue("The Enterprise plan has a 99.95% uptime SLA. [1]")
            first = server.chat(query="What SLA applies to the enterprise plan?", thread_id="hang")
            assert first["outcome"] == "grounded_answer"
            before = httpx.get(f"{server.url}/sessions/hang/messages").json()
            assert before["count"] == 2

            stub.stream_gate = threading.Event()
            stub.queue("Passwords must be at least 14 characters long. [1]")
            ended = stub.streams_finished + stub.streams_aborted
            calls = stub.chat_calls()
            events = hang_up_while_generating(
                server.url,
                {
                    "query": "What does the security handbook say about passwords?",
                    "thread_id": "hang",
                },
                stub.stream_paused,  # the answer is half-way when the client leaves
            )
            # Phases came; no token did: the sentences are sent once checked.
            assert "event: phase" in events
            assert "event: token" not in events and "event: final" not in events
            time.sleep(0.5)  # the server notices the closed socket
            stub.stream_gate.set()
            stub.stream_gate = None
            deadline = time.monotonic() + 30
            # The held stream ends, read to its end or closed by threadline (the client
            # left: tests/e2e/test_stream_cancel.py), and nothing of the turn is stored.
            while (
                stub.streams_finished + stub.streams_aborted == ended
                and time.monotonic() < deadline
            ):
                time.sleep(0.05)
            assert stub.streams_finished + stub.streams_aborted == ended + 1
            assert stub.chat_calls() == calls + 1  # the held stream was the answer itself
            assert "<source id=" in stub.requests[-1]["messages"][-1]["content"]
            time.sleep(1.0)  # time for a (wrong) late write to land

            after = httpx.get(f"{server.url}/sessions/hang/messages").json()
            assert [m["id"] for m in after["data"]] == [m["id"] for m in before["data"]]

            # The session is intact and the next turn is stored whole, once.
            stub.queue("Passwords must be at least 14 characters long. [1]")
            again = server.chat(
                query="What does the security handbook say about passwords?", thread_id="hang"
            )
            assert again["outcome"] == "grounded_answer"
            final = httpx.get(f"{server.url}/sessions/hang/messages").json()
            assert final["count"] == 4
            assert [m["role"] for m in final["data"]] == ["user", "assistant"] * 2
            check = run_cli(tmp_path, "sessions", "check", **env)
            assert check.returncode == 0, check.stdout + check.stderr
        finally:
            server.stop()
        assert "Traceback" not in server.process.stderr.read().decode()
