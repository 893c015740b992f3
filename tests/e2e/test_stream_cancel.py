"""A client that leaves stops the model's generation, not only the reply.

A real `threadline serve` answers from the stub playing a model that would write
20,000 tokens; the stub holds it after its first word while the client hangs up.
Once released, the stub finds its stream closed by threadline (counted as aborted):
without the stop, threadline would read the whole runaway generation to its end, as
a server keeps generating for a client that is still connected.

The same holds for the routes that answer once, at the end (`POST /chat`, and
`POST /v1/chat/completions` without `stream`): their client waits for one JSON body,
and leaving cancels the turn; the model call streams underneath, so it can be closed.
"""

from __future__ import annotations

import threading
import time

import httpx
import pytest
from test_stream_disconnect import hang_up_while_generating

from support.openai_stub import OpenAIStub
from support.paths import SAMPLE
from support.server import Server, ingest

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(180)]

QUESTION = "What SLA applies to the enterprise plan?"

ROUTES = {
    "/chat/stream": {"query": QUESTION, "thread_id": "cancel"},
    "/chat": {"query": QUESTION, "thread_id": "cancel"},
    "/v1/chat/completions": {
        "model": "threadline",
        "messages": [{"role": "user", "content": QUESTION}],
    },
}


@pytest.mark.parametrize("path", list(ROUTES))
def test_hanging_up_stops_the_generation(tmp_path, path):
    env = {"THREADLINE_EMBEDDINGS": "sparse"}
    ingest(tmp_path, SAMPLE, **env)
    with OpenAIStub() as stub:
        server = Server(
            tmp_path,
            **env,
            THREADLINE_LLM="openai",
            OPENAI_BASE_URL=stub.base_url,
            OPENAI_API_KEY="test-key",
            THREADLINE_LLM_MAX_TOKENS="20000",
        )
        try:
            stub.stream_gate = threading.Event()
            stub.queue({"runaway": True})
            events = hang_up_while_generating(server.url, ROUTES[path], stub.stream_paused, path)
            assert "event: token" not in events and "event: final" not in events
            time.sleep(0.5)  # the server notices the closed socket
            stub.stream_gate.set()
            stub.stream_gate = None
            deadline = time.monotonic() + 60
            while not (stub.streams_aborted or stub.streams_finished) and (
                time.monotonic() < deadline
            ):
                time.sleep(0.05)
            assert stub.streams_aborted == 1 and stub.streams_finished == 0
            assert stub.chat_calls() == 1  # and nothing asked again
            time.sleep(0.5)  # time for a (wrong) late write to land
            # No turn is stored (the OpenAI route opens its derived session beforehand).
            for session in httpx.get(f"{server.url}/sessions").json()["data"]:
                messages = httpx.get(f"{server.url}/sessions/{session['id']}/messages")
                assert messages.json()["count"] == 0
        finally:
            server.stop()
        assert "Traceback" not in server.process.stderr.read().decode()
