"""The structured-output mode of a model server, learnt on its first answer call.

The stub plays llama.cpp's server (llama-cpp-python 0.3), which refuses
`response_format: {"type": "json_schema"}` with a 500 naming the two types it takes,
and servers that take no `response_format` at all. Counting the stub's requests shows
the probe is paid once: the first turn tries JSON schema then JSON object, the later
turns make one call in the mode learnt.
"""

from __future__ import annotations

import asyncio
import json
import threading

import pytest
from fastapi.testclient import TestClient

from support.openai_stub import OpenAIStub, verdict_reply
from support.services import make_services
from threadline.api.main import create_app
from threadline.chat import ChatService, TurnRequest
from threadline.models import LLMUnavailableError
from threadline.models.structured import STRUCTURED_MODES, server_key

SLA_QUESTION = "What uptime does the enterprise plan SLA guarantee?"
SLA_ANSWER = "The Enterprise plan SLA guarantees 99.95% monthly uptime. [1]"
# What llama-cpp-python 0.3.36's server answers to a json_schema response_format (HTTP 500).
LLAMA_CPP_REFUSAL = (
    "1 validation error:\n  {'type': 'literal_error', 'loc': ('body', 'response_format', "
    "'type'), 'msg': \"Input should be 'text' or 'json_object'\", 'input': 'json_schema', "
    "'ctx': {'expected': \"'text' or 'json_object'\"}}"
)


def format_type(body: dict) -> str | None:
    return (body.get("response_format") or {}).get("type")


def llama_cpp_like(body: dict):
    """Refuse json_schema as llama.cpp does; answer JSON for json_object, text otherwise."""
    kind = format_type(body)
    if kind == "json_schema":
        return {"error": LLAMA_CPP_REFUSAL, "status": 500}
    if kind == "json_object":
        return verdict_reply("answer", SLA_ANSWER)
    return SLA_ANSWER


def text_only(body: dict):
    """A server that takes no response_format at all (400, naming it)."""
    if format_type(body):
        return {"error": "response_format is not supported by this server", "status": 400}
    return SLA_ANSWER.removesuffix(" [1]")  # and a small model forgets its marker


@pytest.fixture(scope="module")
def stub():
    with OpenAIStub() as server:
        yield server


@pytest.fixture(scope="module")
def services(stub, tmp_path_factory):
    services = make_services(
        tmp_path_factory.mktemp("structured-modes"),
        llm="openai",
        openai_base_url=stub.base_url,
        openai_api_key="test-key",
    )
    yield services
    services.close()


@pytest.fixture
def chat(services, stub):
    """The chat facade over a server nothing is known about yet."""
    STRUCTURED_MODES.forget()
    stub.clear_queue()
    yield ChatService(services)
    stub.responder = lambda body: "stub answer"
    STRUCTURED_MODES.forget()


def run(chat, stub, text: str, thread: str):
    before = len(stub.requests)
    result = chat.run_turn(TurnRequest(query=text, thread_id=thread))
    return result, stub.requests[before:]


def generate_step(result) -> dict:
    return next(t for t in result.trace if t.get("node") == "generate")


def test_llama_cpp_is_probed_once_then_asked_for_json_objects(chat, stub):
    stub.responder = llama_cpp_like
    first, requests = run(chat, stub, SLA_QUESTION, "m-1")
    assert [format_type(r) for r in requests] == ["json_schema", "json_object"]
    assert first.outcome == "grounded_answer" and first.citations
    assert first.llm_calls == 2  # the refused call is counted: it was made
    step = generate_step(first)
    assert step["structured_output"] == "json_object"
    assert step["structured_refused"][0].startswith("json_schema: 500")
    # llama.cpp turns the schema beside json_object into a grammar; the prompt shows one.
    assert "verdict" in json.dumps(requests[1]["response_format"]["schema"])
    assert '"verdict" (answer, partial' in requests[1]["messages"][-1]["content"]

    again, requests = run(chat, stub, SLA_QUESTION, "m-2")
    assert [format_type(r) for r in requests] == ["json_object"]  # no probing call
    assert again.llm_calls == 1 and again.outcome == "grounded_answer"
    assert generate_step(again)["structured_output"] == "json_object"
    assert "structured_refused" not in generate_step(again)


def test_a_server_without_response_format_gets_plain_text(chat, stub):
    stub.responder = text_only
    first, requests = run(chat, stub, SLA_QUESTION, "t-1")
    assert [format_type(r) for r in requests] == ["json_schema", "json_object", None]
    # The plain answer carries the answer's cap, not the condensation's short one.
    assert requests[-1]["max_tokens"] == chat.services.settings.llm_max_tokens
    # The marker the model forgot is given back by attribution.
    assert first.outcome == "grounded_answer" and first.citations
    assert generate_step(first)["structured_output"] == "text"

    _, requests = run(chat, stub, SLA_QUESTION, "t-2")
    assert [format_type(r) for r in requests] == [None]


def test_an_outage_teaches_nothing(chat, stub):
    # A 503 naming the format is the server being down, not a refusal of the format;
    # a dropped connection says nothing either: both fail the turn, nothing is learnt.
    stub.queue({"error": "response_format: model overloaded", "status": 503}, {"drop": True})
    for thread in ("o-1", "o-2"):
        with pytest.raises(LLMUnavailableError):
            chat.run_turn(TurnRequest(query=SLA_QUESTION, thread_id=thread))
    assert STRUCTURED_MODES.known(server_key(chat.services.llm)) is None
    for thread in ("o-1", "o-2"):  # nothing half-stored
        session = chat.services.store.get_session(
            tenant="default", caller_app="default", session_id=thread
        )
        assert session is None or not session.messages

    stub.responder = llama_cpp_like
    _, requests = run(chat, stub, SLA_QUESTION, "o-3")
    assert [format_type(r) for r in requests] == ["json_schema", "json_object"]


def test_a_probe_cut_short_resumes_after_the_refused_mode(chat, stub):
    # json_schema is refused, then the json_object call times out: the turn fails, and
    # the next turn starts at json_object instead of asking for json_schema again.
    stub.queue({"error": LLAMA_CPP_REFUSAL, "status": 500}, {"drop": True})
    with pytest.raises(LLMUnavailableError):
        chat.run_turn(TurnRequest(query=SLA_QUESTION, thread_id="r-1"))
    stub.responder = llama_cpp_like
    result, requests = run(chat, stub, SLA_QUESTION, "r-2")
    assert [format_type(r) for r in requests] == ["json_object"]
    assert result.outcome == "grounded_answer"


def test_concurrent_first_turns_probe_once(chat, stub):
    def slow_llama_cpp(body: dict):
        reply = llama_cpp_like(body)
        return {**reply, "delay": 0.3} if isinstance(reply, dict) else reply

    stub.responder = slow_llama_cpp
    before = len(stub.requests)
    results: list = []
    threads = [
        threading.Thread(
            target=lambda t=t: results.append(
                chat.run_turn(TurnRequest(query=SLA_QUESTION, thread_id=f"c-{t}"))
            )
        )
        for t in range(3)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    kinds = [format_type(r) for r in stub.requests[before:] if format_type(r)]
    assert kinds.count("json_schema") == 1 and len(results) == 3
    assert all(r.outcome == "grounded_answer" for r in results)


def test_a_streamed_json_object_answer_streams_its_text(chat, stub):
    stub.responder = llama_cpp_like
    run(chat, stub, SLA_QUESTION, "s-1")  # learn the mode

    async def collect():
        request = TurnRequest(query=SLA_QUESTION, thread_id="s-2")
        return [event async for event in chat.astream_turn(request)]

    events = asyncio.run(collect())
    tokens = "".join(e["data"]["text"] for e in events if e["event"] == "token")
    assert "{" not in tokens and "99.95%" in tokens  # the answer's text, not its JSON
    final = events[-1]["data"]
    assert final["outcome"] == "grounded_answer" and final["citations"]


def test_health_reports_the_mode_once_learnt(services, chat, stub):
    with TestClient(create_app(services)) as client:
        assert client.get("/health").json()["structured_output"] is None
        stub.responder = llama_cpp_like
        run(chat, stub, SLA_QUESTION, "h-1")
        assert client.get("/health").json()["structured_output"] == "json_object"
