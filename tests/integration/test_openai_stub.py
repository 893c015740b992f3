"""The OpenAI stub, exercised through the real openai and langchain_openai clients."""

from __future__ import annotations

import asyncio
import base64
import http.client
import json
import math
import re
import socket
import struct
import time

import httpx
import openai
import pytest
from langchain_core.messages import AIMessageChunk, HumanMessage, SystemMessage
from langchain_core.tools import tool
from langchain_openai import ChatOpenAI, OpenAIEmbeddings

from support.openai_stub import OpenAIStub, embed_text

pytestmark = pytest.mark.timeout(30)


@pytest.fixture
def stub():
    with OpenAIStub() as running:
        yield running


def chat(stub: OpenAIStub, **kwargs) -> ChatOpenAI:
    return ChatOpenAI(
        model="gpt-4o-mini", base_url=stub.base_url, api_key="test", max_retries=0, **kwargs
    )


def embeddings(stub: OpenAIStub, api_key: str = "test") -> OpenAIEmbeddings:
    return OpenAIEmbeddings(
        model="text-embedding-3-small",
        base_url=stub.base_url,
        api_key=api_key,
        check_embedding_ctx_length=False,
        max_retries=0,
    )


def cosine(a: list[float], b: list[float]) -> float:
    return sum(x * y for x, y in zip(a, b, strict=True))


@tool
def search_docs(query: str, limit: int = 3) -> str:
    """Search the team's documents."""
    return query


# -- chat: plain ------------------------------------------------------------------------


def test_invoke_returns_queued_text_and_counts_one_request_per_call(stub):
    llm = chat(stub)
    stub.queue("The deploy runbook is in ops/deploy.md.", "second reply")
    assert stub.chat_calls() == 0

    first = llm.invoke("Where is the deploy runbook?")
    assert first.content == "The deploy runbook is in ops/deploy.md."
    assert stub.chat_calls() == 1
    assert first.response_metadata["model_name"] == "gpt-4o-mini"
    assert first.response_metadata["finish_reason"] == "stop"
    assert first.usage_metadata["input_tokens"] == 5  # "Where is the deploy runbook?"
    assert first.usage_metadata["output_tokens"] == 6

    second = llm.invoke("again")
    assert second.content == "second reply"
    assert stub.chat_calls() == 2
    # Queue exhausted: the default responder answers.
    assert llm.invoke("and again").content == "stub answer"
    assert stub.chat_calls() == 3
    assert stub.pending() == 0
    assert [r["messages"][-1]["content"] for r in stub.requests] == [
        "Where is the deploy runbook?",
        "again",
        "and again",
    ]
    assert all(r["model"] == "gpt-4o-mini" and r["stream"] is False for r in stub.requests)


def test_responder_sees_full_request_and_can_cite_context(stub):
    seen: list[dict] = []

    def responder(body: dict) -> str:
        seen.append(body)
        text = " ".join(m["content"] for m in body["messages"])
        ids = re.findall(r"\[(doc-\d+)\]", text)
        return "Answer citing " + ", ".join(ids)

    stub.responder = responder
    messages = [
        SystemMessage("Context:\n[doc-7] Alpha.\n[doc-12] Beta."),
        HumanMessage("What do we know?"),
    ]
    reply = chat(stub, temperature=0.25).invoke(messages)

    assert reply.content == "Answer citing doc-7, doc-12"
    assert len(seen) == 1
    assert seen[0]["messages"] == [
        {"role": "system", "content": "Context:\n[doc-7] Alpha.\n[doc-12] Beta."},
        {"role": "user", "content": "What do we know?"},
    ]
    assert seen[0]["temperature"] == 0.25
    assert stub.requests == seen


def test_queued_replies_take_precedence_over_responder():
    with OpenAIStub(responder=lambda body: "from responder") as stub:
        llm = chat(stub)
        stub.queue("queued")
        assert llm.invoke("a").content == "queued"
        assert llm.invoke("b").content == "from responder"


def test_stream_yields_several_chunks_that_join_to_the_text(stub):
    text = "Follow-ups keep working and  answers cite their sources."
    stub.queue(text)

    chunks = list(chat(stub).stream("tell me"))

    pieces = [c.content for c in chunks if c.content]
    assert len(pieces) >= 5
    assert "".join(pieces) == text
    assert stub.chat_calls() == 1
    assert stub.requests[0]["stream"] is True
    final = chunks[0]
    for c in chunks[1:]:
        final = final + c
    assert final.content == text
    assert final.response_metadata["finish_reason"] == "stop"


def test_stream_usage_chunk_when_client_asks_for_it(stub):
    stub.queue("one two three")
    chunks = list(chat(stub, stream_usage=True).stream("count"))

    assert stub.requests[0]["stream_options"] == {"include_usage": True}
    usage = [c.usage_metadata for c in chunks if c.usage_metadata]
    assert usage == [
        {
            "input_tokens": 1,
            "output_tokens": 3,
            "total_tokens": 4,
            "input_token_details": {"audio": 0, "cache_read": 0},
            "output_token_details": {"audio": 0, "reasoning": 0},
        }
    ]


def test_raw_sse_stream_format(stub):
    stub.queue("a b")
    body = {
        "model": "gpt-4o-mini",
        "messages": [{"role": "user", "content": "x"}],
        "stream": True,
        "stream_options": {"include_usage": True},
    }
    response = httpx.post(f"{stub.base_url}/chat/completions", json=body)
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/event-stream")
    lines = [line for line in response.text.split("\n") if line]
    assert all(line.startswith("data: ") for line in lines)
    assert lines[-1] == "data: [DONE]"
    events = [json.loads(line.removeprefix("data: ")) for line in lines[:-1]]
    assert {e["object"] for e in events} == {"chat.completion.chunk"}
    assert len({e["id"] for e in events}) == 1
    deltas = [e["choices"][0]["delta"] for e in events if e["choices"]]
    assert deltas[0] == {"role": "assistant", "content": ""}
    assert [d.get("content") for d in deltas[1:-1]] == ["a ", "b"]
    assert events[-2]["choices"][0]["finish_reason"] == "stop"
    assert events[-1]["choices"] == []
    assert events[-1]["usage"]["completion_tokens"] == 2


def test_async_invoke_and_stream(stub):
    stub.queue("async hello", "async streamed reply")
    llm = chat(stub)

    async def run() -> tuple[str, list[str]]:
        reply = await llm.ainvoke("hi")
        pieces = [c.content async for c in llm.astream("hi") if c.content]
        return reply.content, pieces

    content, pieces = asyncio.run(run())
    assert content == "async hello"
    assert pieces == ["async ", "streamed ", "reply"]
    assert stub.http_log[0]["headers"]["x-stainless-async"].startswith("async")


# -- chat: tool calls -------------------------------------------------------------------


def test_bind_tools_and_queued_tool_call(stub):
    stub.queue(
        {
            "tool_calls": [
                {"name": "search_docs", "arguments": {"query": "deploy", "limit": 2}},
                {"name": "search_docs", "arguments": {"query": "rollback"}},
            ]
        }
    )
    reply = chat(stub).bind_tools([search_docs]).invoke("find the deploy docs")

    assert reply.tool_calls == [
        {
            "name": "search_docs",
            "args": {"query": "deploy", "limit": 2},
            "id": "call_1",
            "type": "tool_call",
        },
        {"name": "search_docs", "args": {"query": "rollback"}, "id": "call_2", "type": "tool_call"},
    ]
    assert reply.response_metadata["finish_reason"] == "tool_calls"
    sent_tools = stub.requests[0]["tools"]
    assert [t["function"]["name"] for t in sent_tools] == ["search_docs"]


def test_streamed_tool_call_is_reassembled(stub):
    stub.queue({"tool_calls": [{"name": "search_docs", "arguments": {"query": "on-call rota"}}]})
    chunks = list(chat(stub).bind_tools([search_docs]).stream("who is on call?"))

    assert all(isinstance(c, AIMessageChunk) for c in chunks)
    fragments = [c for c in chunks if c.tool_call_chunks]
    assert len(fragments) >= 3  # header + argument pieces
    final = chunks[0]
    for c in chunks[1:]:
        final = final + c
    assert final.tool_calls == [
        {
            "name": "search_docs",
            "args": {"query": "on-call rota"},
            "id": "call_1",
            "type": "tool_call",
        }
    ]
    assert final.response_metadata["finish_reason"] == "tool_calls"


def test_tool_result_round_trip_reaches_the_stub(stub):
    llm = chat(stub).bind_tools([search_docs])
    stub.queue({"tool_calls": [{"name": "search_docs", "arguments": {"query": "q"}}]}, "done")
    first = llm.invoke("go")
    tool_message = search_docs.invoke(first.tool_calls[0] | {"type": "tool_call"})
    second = llm.invoke([HumanMessage("go"), first, tool_message])

    assert second.content == "done"
    sent = stub.requests[1]["messages"]
    assert sent[1]["tool_calls"][0]["id"] == "call_1"
    assert sent[2] == {"role": "tool", "content": "q", "tool_call_id": "call_1"}


# -- embeddings -------------------------------------------------------------------------


def test_embeddings_are_deterministic_normalised_and_of_the_right_dim():
    with OpenAIStub(embedding_dim=48) as stub:
        emb = embeddings(stub)
        texts = ["The deploy runbook", "the deploy runbook!", "Quarterly budget figures"]
        vectors = emb.embed_documents(texts)
        query = emb.embed_query("The deploy runbook")

    assert [len(v) for v in vectors] == [48, 48, 48]
    assert len(query) == 48
    assert all(math.isclose(cosine(v, v), 1.0, rel_tol=1e-5) for v in vectors)
    # Same words (case and punctuation aside) -> same vector; unrelated text -> different.
    assert vectors[0] == pytest.approx(vectors[1])
    assert query == pytest.approx(vectors[0], abs=1e-6)
    assert vectors[2] != pytest.approx(vectors[0])
    # What went over the wire: base64 by default, and it decodes to the float vectors.
    assert stub.embedding_requests[0]["input"] == texts
    assert stub.embedding_requests[0]["encoding_format"] == "base64"
    assert vectors[0] == pytest.approx(embed_text(texts[0], 48), abs=1e-6)


def test_similar_texts_are_closer_than_unrelated_ones(stub):
    emb = embeddings(stub)
    base, near, far = emb.embed_documents(
        [
            "restart the payments service after deploy",
            "how to restart the payments service",
            "lunch menu for friday",
        ]
    )
    assert cosine(base, near) > 0.3
    assert cosine(base, near) > cosine(base, far) + 0.2


def test_official_client_float_and_base64_agree(stub):
    client = openai.OpenAI(base_url=stub.base_url, api_key="test", max_retries=0)
    as_float = client.embeddings.create(
        model="text-embedding-3-small", input="hello world", encoding_format="float"
    )
    as_default = client.embeddings.create(model="text-embedding-3-small", input="hello world")
    smaller = client.embeddings.create(
        model="text-embedding-3-small", input=["a", "b"], dimensions=8
    )

    assert as_float.data[0].embedding == pytest.approx(embed_text("hello world", 32))
    assert as_default.data[0].embedding == pytest.approx(as_float.data[0].embedding, abs=1e-6)
    assert as_float.usage.prompt_tokens == 2
    assert as_float.model == "text-embedding-3-small"
    assert [d.index for d in smaller.data] == [0, 1]
    assert [len(d.embedding) for d in smaller.data] == [8, 8]
    assert [r["encoding_format"] for r in stub.embedding_requests] == [
        "float",
        "base64",
        "base64",
    ]
    # On the wire, base64 means packed little-endian float32.
    raw = httpx.post(
        f"{stub.base_url}/embeddings",
        json={"model": "m", "input": "hello world", "encoding_format": "base64"},
    ).json()
    packed = base64.b64decode(raw["data"][0]["embedding"])
    decoded = struct.unpack("<32f", packed)
    assert decoded == pytest.approx(as_float.data[0].embedding, abs=1e-6)


# -- models, auth, errors ---------------------------------------------------------------


def test_models_list(stub):
    client = openai.OpenAI(base_url=stub.base_url, api_key="test", max_retries=0)
    ids = [m.id for m in client.models.list()]
    assert "gpt-4o-mini" in ids
    assert client.models.retrieve("gpt-4o-mini").id == "gpt-4o-mini"
    with pytest.raises(openai.NotFoundError):
        client.models.retrieve("no-such-model")


def test_required_api_key():
    with OpenAIStub(api_key="sk-right") as stub:
        with pytest.raises(openai.AuthenticationError) as caught:
            chat(stub).invoke("hi")
        assert caught.value.status_code == 401
        assert caught.value.code == "invalid_api_key"
        with pytest.raises(openai.AuthenticationError):
            embeddings(stub, api_key="sk-wrong").embed_query("hi")
        assert stub.chat_calls() == 0
        assert stub.embedding_requests == []

        ok = ChatOpenAI(model="gpt-4o-mini", base_url=stub.base_url, api_key="sk-right")
        assert ok.invoke("hi").content == "stub answer"
        assert stub.chat_calls() == 1
        assert stub.http_log[-1]["headers"]["authorization"] == "Bearer sk-right"


def test_any_key_accepted_when_none_required(stub):
    client = openai.OpenAI(base_url=stub.base_url, api_key="whatever", max_retries=0)
    reply = client.chat.completions.create(
        model="gpt-4o", messages=[{"role": "user", "content": "hi"}]
    )
    assert reply.choices[0].message.content == "stub answer"
    assert reply.model == "gpt-4o"
    assert reply.object == "chat.completion"
    assert reply.usage.total_tokens == reply.usage.prompt_tokens + reply.usage.completion_tokens


def test_invalid_json_and_unknown_paths(stub):
    bad = httpx.post(
        f"{stub.base_url}/chat/completions",
        content=b"{not json",
        headers={"content-type": "application/json"},
    )
    assert bad.status_code == 400
    assert bad.json()["error"]["type"] == "invalid_request_error"
    assert "parse the JSON body" in bad.json()["error"]["message"]

    missing = httpx.post(f"{stub.base_url}/chat/completions", json={"model": "m"})
    assert missing.status_code == 400
    assert missing.json()["error"]["param"] == "messages"

    unknown = httpx.post(f"{stub.base_url}/responses", json={})
    assert unknown.status_code == 404
    assert set(unknown.json()["error"]) == {"message", "type", "param", "code"}
    assert stub.chat_calls() == 0


def test_queued_error_reply(stub):
    stub.queue({"error": "slow down", "status": 429, "code": "rate_limit_exceeded"}, "after")
    llm = chat(stub)
    with pytest.raises(openai.RateLimitError, match="slow down"):
        llm.invoke("hi")
    assert llm.invoke("hi").content == "after"
    assert stub.chat_calls() == 2


def test_broken_responder_fails_fast_without_retries():
    def responder(body: dict) -> str:
        raise KeyError("oops")

    with OpenAIStub(responder=responder) as stub:
        llm = ChatOpenAI(model="gpt-4o-mini", base_url=stub.base_url, api_key="t")  # retries on
        with pytest.raises(openai.InternalServerError, match="KeyError"):
            llm.invoke("hi")
        assert stub.chat_calls() == 1  # x-should-retry: false -> the client did not retry
        assert isinstance(stub.errors[0], KeyError)


def test_queue_rejects_malformed_replies(stub):
    with pytest.raises(TypeError):
        stub.queue(42)
    with pytest.raises(ValueError):
        stub.queue({"tool_calls": [{"arguments": {}}]})
    assert stub.pending() == 0


# -- lifecycle --------------------------------------------------------------------------


def test_several_stubs_at_once_and_fast_clean_shutdown():
    with OpenAIStub() as one, OpenAIStub() as two:
        assert one.base_url != two.base_url
        one.queue("from one")
        two.queue("from two")
        llm_one, llm_two = chat(one), chat(two)
        assert llm_two.invoke("x").content == "from two"
        assert llm_one.invoke("x").content == "from one"
        assert (one.chat_calls(), two.chat_calls()) == (1, 1)
        # A keep-alive connection held open by a client must not delay shutdown, and the
        # stub must hang up on it rather than leave a handler thread parked on it.
        port = int(one.base_url.rsplit(":", 1)[1].split("/")[0])
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=2)
        conn.request("GET", "/v1/models")
        response = conn.getresponse()
        assert response.status == 200 and response.read()
        assert not response.will_close  # the connection stays open, idle
        started = time.monotonic()
        one.stop()
        assert time.monotonic() - started < 1.0
        assert conn.sock.recv(1) == b""  # hung up by the stub (a timeout would raise here)
        conn.close()
        with pytest.raises(OSError), socket.create_connection(("127.0.0.1", port), timeout=1):
            pass
        assert llm_two.invoke("still up").content == "stub answer"
