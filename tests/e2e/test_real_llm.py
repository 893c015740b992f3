"""threadline's LLM path against a real model: llama.cpp's server with SmolLM2-135M.

`threadline serve` runs on a loopback port with `OPENAI_BASE_URL` pointing at a
logging proxy in front of `python -m llama_cpp.server` (benchmarks/llama_server.py
builds it once per machine). A 135M-parameter model answers badly, and differently
from one llama.cpp build to the next, so what is asserted is what must hold whatever
it writes:

* no 5xx, and no runaway: each turn ends within its deadline setting, and every
  request carries the token cap of its kind;
* every answer carries valid citations (each cited id is a marker in the text), or
  is a decline or a question (no citation);
* the calls are counted at the proxy: a reference into an outline costs exactly one
  request, a context follow-up at most two, and a turn's `llm_calls` is what the
  proxy saw;
* nothing half-stored: each session holds exactly the turns answered, in order.

The structured-output mode is learnt on the first answer (llama.cpp refuses
`json_schema`): the turns after it make no probing call.
"""

from __future__ import annotations

import json
import threading
import time

import httpx
import pytest

from benchmarks.llama_server import MODEL_ALIAS
from benchmarks.llm_proxy import CountingProxy, ProxyRecord
from support.paths import SAMPLE
from support.server import Server, ingest

# A turn may wait this long on the model; the check allows the rest of the turn on top.
DEADLINE = 150
SLACK = 30
CAPS = {"answer": 64, "text": 32, "tool_choice": 64}
ENV = {"THREADLINE_EMBEDDINGS": "sparse"}
LLM_ENV = {
    # A small context keeps a prompt near a thousand tokens: CPU prompt processing is
    # what a turn's time goes to with a local model.
    "THREADLINE_MAX_CHARS": "1500",
    "THREADLINE_MAX_CHUNKS": "4",
    "THREADLINE_LLM": "openai",
    "OPENAI_API_KEY": "not-needed",
    "THREADLINE_CHAT_MODEL": MODEL_ALIAS,
    "THREADLINE_LLM_MAX_TOKENS": str(CAPS["answer"]),
    "THREADLINE_LLM_REWRITE_MAX_TOKENS": str(CAPS["text"]),
    "THREADLINE_LLM_TOOL_MAX_TOKENS": str(CAPS["tool_choice"]),
    "THREADLINE_LLM_TIMEOUT": str(DEADLINE),
    "THREADLINE_TURN_DEADLINE_SECONDS": str(DEADLINE),
}

pytestmark = [pytest.mark.e2e, pytest.mark.real_llm, pytest.mark.timeout(1800)]


class Conversation:
    """The threadline server, the proxy in front of the model, and the turns asked."""

    def __init__(self, server: Server, proxy: CountingProxy) -> None:
        self.server = server
        self.proxy = proxy
        self.turns: dict[str, list[str]] = {}

    def chat(self, query: str, thread: str) -> tuple[dict, list[ProxyRecord]]:
        """Ask one turn; check what must hold; return the body and the model requests."""
        mark = self.proxy.mark()
        started = time.monotonic()
        response = httpx.post(
            f"{self.server.url}/chat",
            json={"query": query, "thread_id": thread},
            timeout=DEADLINE + SLACK + 60,
        )
        elapsed = time.monotonic() - started
        requests = self.proxy.since(mark)
        assert response.status_code == 200, (query, response.status_code, response.text)
        assert elapsed <= DEADLINE + SLACK, (query, elapsed)
        body = response.json()
        check_answer(body)
        check_requests(body, requests)
        self.turns.setdefault(thread, []).append(body["answer"])
        return body, requests

    def check_stored(self) -> None:
        """Each session holds exactly its answered turns: question, answer, in order."""
        for thread, answers in self.turns.items():
            page = httpx.get(f"{self.server.url}/sessions/{thread}/messages", timeout=30).json()
            roles = [m["role"] for m in page["data"]]
            assert roles == ["user", "assistant"] * len(answers), thread
            assert [m["content"] for m in page["data"][1::2]] == answers, thread


def check_answer(body: dict) -> None:
    """An answer with valid citations, or a decline or a question without any."""
    if body["outcome"] in ("grounded_answer", "tool_answer"):
        assert body["citations"], body
        for citation in body["citations"]:
            assert f"[{citation['id']}]" in body["answer"], (citation, body["answer"])
    else:
        assert body["outcome"] in ("clarify", "reply"), body
        assert body["citations"] == [] and body["answer"].strip(), body


def check_requests(body: dict, requests: list[ProxyRecord]) -> None:
    """Every request capped for its kind, answered, and counted in the turn's `llm_calls`."""
    for record in requests:
        assert record.body.get("max_tokens") == CAPS[record.kind], record.body
        assert record.status == 200 or is_format_refusal(record), (record.status, record.body)
    if body.get("llm_fallback") is None:  # a fallback answers after a failed call
        assert body["llm_calls"] == len(requests), (body["llm_calls"], requests)


def is_format_refusal(record: ProxyRecord) -> bool:
    """llama.cpp's 500 for `response_format: json_schema` (the once-per-server probe)."""
    return record.status == 500 and record.body["response_format"]["type"] == "json_schema"


@pytest.fixture(scope="module")
def conversation(llama_server, tmp_path_factory):
    data_dir = tmp_path_factory.mktemp("real-llm")
    ingest(data_dir, SAMPLE, **ENV)
    # Threads that a reference will point into are begun with the offline model, whose
    # summary always has an outline: the reference's cost is then the LLM's alone.
    offline = Server(data_dir, **ENV)
    try:
        summary = offline.chat(query="Résume le rapport annuel 2024", thread_id="rapport")
        assert len(summary["outline"]) >= 4
    finally:
        offline.stop()
    with CountingProxy(llama_server.base_url) as proxy:
        server = Server(data_dir, **ENV, **LLM_ENV, OPENAI_BASE_URL=proxy.base_url)
        try:
            chat = Conversation(server, proxy)
            chat.turns["rapport"] = [summary["answer"]]
            yield chat
        finally:
            server.stop()


def test_a_first_answer_learns_the_structured_mode(conversation):
    body, requests = conversation.chat("How much does the Galaxy S25 cost?", "demo-no")
    health = httpx.get(f"{conversation.server.url}/health", timeout=30).json()
    answers = [r for r in requests if r.kind == "answer"]
    if answers:  # the evidence check may decline without asking the model
        assert answers[0].body["response_format"]["type"] == "json_schema"
        assert health["structured_output"] == "json_object"
    body, requests = conversation.chat("What is the warranty?", "demo-warranty")
    assert all(r.body["response_format"]["type"] == "json_object" for r in requests)
    # Whichever verdict the model gives, the check found several products' warranties:
    # the reply asks which one, naming them (SmolLM2's "not_in_documents" was a decline
    # saying the documents do not answer it).
    assert (body["outcome"], body["stop_reason"]) == ("clarify", "ambiguous"), body
    assert len(body["clarify"]["options"]) >= 2, body


def test_readme_conversations(conversation):
    for query, thread in [
        ("Quel temps fera-t-il à Lyon demain ?", "demo-x"),
        ("Résume le manuel de sécurité", "demo-manuel"),
    ]:
        conversation.chat(query, thread)


def test_the_tool_route_keeps_the_words_price(conversation):
    body, requests = conversation.chat("What phones do you have under $500?", "demo-phones")
    assert body["route"] == "tool"
    # The parse's call (phones under $500) wins over invented arguments: its products.
    assert body["search_query"] == (
        "Nokia G42 5G; Motorola Moto G Power 5G (2024); Xiaomi Redmi Note 13 Pro 5G; "
        "Samsung Galaxy A55 5G; Google Pixel 8a"
    )
    assert len(requests) <= 2  # the tool choice and the answer


def test_a_reference_into_an_outline_costs_one_request(conversation):
    body, requests = conversation.chat("Détaille S2", "rapport")
    assert body["followup"]["resolved"] and body["followup"]["section_id"] == "S2"
    assert len(requests) == 1 and requests[0].kind == "answer"


def test_a_context_followup_costs_at_most_two_requests(conversation):
    conversation.chat("What SLA applies to the enterprise plan?", "demo-sla")
    body, requests = conversation.chat("and for P2?", "demo-sla")
    assert "P2" in (body["search_query"] or "")  # the new message's words survive
    assert len(requests) <= 2


def test_chat_stream_ends_with_the_stored_answer(conversation):
    thread = "stream-1"
    mark = conversation.proxy.mark()
    with httpx.stream(
        "POST",
        f"{conversation.server.url}/chat/stream",
        json={"query": "What uptime does the enterprise plan SLA guarantee?", "thread_id": thread},
        timeout=DEADLINE + SLACK + 60,
    ) as response:
        assert response.status_code == 200
        events = sse_events(response.iter_lines())
    names = [name for name, _ in events]
    assert "error" not in names and names[-1] == "final"
    final = events[-1][1]
    check_answer(final)
    check_requests(final, conversation.proxy.since(mark))
    conversation.turns[thread] = [final["answer"]]


def test_openai_route_streams_and_stores(conversation):
    mark = conversation.proxy.mark()
    body = {
        "model": "threadline",
        "stream": True,
        "messages": [{"role": "user", "content": "What does the Business plan include?"}],
    }
    with httpx.stream(
        "POST",
        f"{conversation.server.url}/v1/chat/completions",
        json=body,
        headers={"X-Threadline-Thread-Id": "oai-1"},
        timeout=DEADLINE + SLACK + 60,
    ) as response:
        assert response.status_code == 200
        lines = [line for line in response.iter_lines() if line]
    assert lines[-1] == "data: [DONE]"
    last = json.loads(lines[-2].removeprefix("data: "))
    assert last["choices"][0]["finish_reason"] == "stop"
    extra = last["threadline"]
    content = "".join(
        chunk["choices"][0]["delta"].get("content") or ""
        for chunk in (json.loads(line.removeprefix("data: ")) for line in lines[:-1])
        if chunk.get("choices")
    )
    check_answer({**extra, "answer": content})
    assert len(conversation.proxy.since(mark)) <= 1
    conversation.turns["oai-1"] = [content]


def test_an_answer_another_request_interrupts_is_no_decline(conversation, llama_server):
    # llama-cpp-python's server ends a streamed answer early, with no finish reason, when
    # another request waits (its `interrupt_requests`). The cut reply (often nothing) was
    # read as the model's decline: "the documents do not answer this", false. Now the
    # model failed (503 llm_unavailable, nothing stored) and the turn may be asked again.
    mark = conversation.proxy.mark()
    replies: list[httpx.Response] = []
    turn = threading.Thread(
        target=lambda: replies.append(
            httpx.post(
                f"{conversation.server.url}/chat",
                json={"query": "What are the support hours?", "thread_id": "interrupted"},
                timeout=DEADLINE + SLACK + 60,
            )
        )
    )
    turn.start()
    waited = time.monotonic() + DEADLINE
    # The answer is being generated once the server has begun its response (200: a
    # first answer call's refused probe for json_schema is a 500).
    while not any(r.kind == "answer" and r.status == 200 for r in conversation.proxy.since(mark)):
        assert time.monotonic() < waited and turn.is_alive(), "no answer request was made"
        time.sleep(0.01)
    other = {"model": MODEL_ALIAS, "messages": [{"role": "user", "content": "Hi"}], "max_tokens": 1}
    httpx.post(f"{llama_server.base_url}/chat/completions", json=other, timeout=2 * DEADLINE)
    turn.join()
    (reply,) = replies
    assert reply.status_code == 503, reply.text
    assert reply.json()["error"]["code"] == "llm_unavailable", reply.text
    assert httpx.get(f"{conversation.server.url}/sessions/interrupted/messages").status_code == 404


def test_nothing_is_half_stored(conversation):
    conversation.check_stored()


def sse_events(lines) -> list[tuple[str, dict]]:
    """Parse `event:`/`data:` lines into (name, data) pairs."""
    events, name = [], "message"
    for line in lines:
        if line.startswith("event:"):
            name = line.removeprefix("event:").strip()
        elif line.startswith("data:"):
            events.append((name, json.loads(line.removeprefix("data:").strip())))
    return events
