"""The request-counting proxy of the real-model tests, in front of the OpenAI stub.

What the real-model tests and the LLM benchmark count is only as good as the proxy:
every request logged as it arrives, its body, status and token usage kept, streams
passed through whole, and a client that hangs up recorded as such.
"""

from __future__ import annotations

import subprocess
import sys

import openai

from benchmarks.llama_server import build_key
from benchmarks.llm_proxy import CountingProxy
from support.openai_stub import OpenAIStub
from support.paths import ROOT


def test_requests_are_logged_with_their_usage_and_streams_pass_whole():
    with OpenAIStub() as stub, CountingProxy(stub.base_url) as proxy:
        client = openai.OpenAI(base_url=proxy.base_url, api_key="x", max_retries=0)
        mark = proxy.mark()
        reply = client.chat.completions.create(
            model="m", messages=[{"role": "user", "content": "hi"}], max_tokens=5
        )
        stream = client.chat.completions.create(
            model="m", messages=[{"role": "user", "content": "hi"}], stream=True
        )
        streamed = "".join(c.choices[0].delta.content or "" for c in stream if c.choices)
        records = proxy.since(mark)
    assert reply.choices[0].message.content == "stub answer" == streamed
    assert len(records) == 2 == stub.chat_calls()
    assert records[0].body["max_tokens"] == 5 and records[0].kind == "text"
    assert records[0].status == 200 and records[0].usage["completion_tokens"] == 2
    assert not any(r.aborted for r in records)


def test_a_refused_request_is_logged_with_its_status():
    with OpenAIStub() as stub, CountingProxy(stub.base_url) as proxy:
        stub.queue({"error": "no json_schema here", "status": 500})
        client = openai.OpenAI(base_url=proxy.base_url, api_key="x", max_retries=0)
        body = {"type": "json_schema", "json_schema": {"name": "x", "schema": {}}}
        try:
            client.chat.completions.create(
                model="m", messages=[{"role": "user", "content": "hi"}], response_format=body
            )
        except openai.InternalServerError:
            pass
        (record,) = proxy.since(0)
    assert record.status == 500 and record.kind == "answer"


def test_the_build_script_runs_from_anywhere(tmp_path):
    """`make test` runs tests/support/llama_server.py as a script: benchmarks/ must import."""
    done = subprocess.run(
        [sys.executable, str(ROOT / "tests" / "support" / "llama_server.py"), "--check"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
        env={"THREADLINE_LLAMA_CACHE": str(tmp_path), "PATH": "/usr/bin:/bin"},
    )
    assert "Traceback" not in done.stderr, done.stderr
    assert done.returncode == 1 and f"llama-{build_key()}" in done.stdout  # nothing built here
