"""The LLM path's bounds, against the stub: token caps, the turn's deadline, no retry,
clear 503/504 answers with nothing stored, the offline fallback, and the tool route
that needs no LLM.

The real `ChatOpenAI` client talks to `OpenAIStub` over loopback; the stub injects the
failures (a 30 s sleep, a 5xx, a dropped connection, a model that never stops), and a
closed port stands for a server that is not running. Request counts at the stub prove
that nothing is retried.
"""

from __future__ import annotations

import copy
import json
import socket
import time
from typing import Any

import pytest
from fastapi.testclient import TestClient

from support.openai_stub import OpenAIStub, citing_reply
from threadline.api.main import create_app
from threadline.chat import ChatService, TurnRequest
from threadline.models import LLMTimeoutError, LLMUnavailableError
from threadline.services import Services

DEADLINE = 2.0
SLEEP = 30.0

# What the parse's call (`search_products`, phones, `max_price` 500) finds in the sample
# catalog: a tool turn's search_query is the products it found.
PHONES_UNDER_500 = (
    "Nokia G42 5G; Motorola Moto G Power 5G (2024); Xiaomi Redmi Note 13 Pro 5G; "
    "Samsung Galaxy A55 5G; Google Pixel 8a"
)


@pytest.fixture(scope="module")
def stub():
    with OpenAIStub(responder=citing_reply) as server:
        yield server


@pytest.fixture
def fresh_stub(stub):
    """The module's stub with no scripted reply left over from another test."""
    stub.clear_queue()
    yield stub
    stub.clear_queue()


def closed_port_url() -> str:
    """A loopback URL where nothing listens: connections are refused."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    return f"http://127.0.0.1:{port}/v1"


def variant(base: Services, **overrides: Any) -> Services:
    """The sample services with other LLM settings, sharing the store, indexes and log."""
    base.store, base.kb, base.querylog, base.conversations  # noqa: B018 (built once, then shared)
    services = copy.copy(base)
    services.settings = base.settings.model_copy(
        update={"llm": "openai", "openai_api_key": None, **overrides}
    )
    services.__dict__.pop("llm", None)
    return services


@pytest.fixture
def llm_services(sample_services, fresh_stub):
    """Services whose LLM is the stub, a 2 s turn deadline, no fallback."""
    return variant(
        sample_services, openai_base_url=fresh_stub.base_url, turn_deadline_seconds=DEADLINE
    )


@pytest.fixture
def untimed_llm_services(sample_services, fresh_stub):
    """Services whose LLM is the stub, with the default turn deadline.

    For the tests whose subject is not the deadline: on a loaded machine a turn's own
    retrieval can take more than the 2 s of `llm_services`, which would end it as
    llm_timeout before the behaviour under test is reached.
    """
    return variant(sample_services, openai_base_url=fresh_stub.base_url)


def nothing_stored(services: Services, thread_id: str) -> None:
    """The failed turn left no message in the store and no row in the queries log."""
    session = services.store.get_session(
        tenant="default", caller_app="default", session_id=thread_id
    )
    assert session is None or not session.messages
    assert services.querylog.thread(thread_id) == []


def stored_turns(services: Services, thread_id: str) -> int:
    session = services.store.get_session(
        tenant="default", caller_app="default", session_id=thread_id
    )
    assert session is not None
    assert len(services.querylog.thread(thread_id)) == len(session.messages) // 2
    return len(session.messages) // 2


# --- bounded calls -------------------------------------------------------------------


def test_every_call_kind_carries_its_token_cap(untimed_llm_services, fresh_stub):
    chat = ChatService(untimed_llm_services)
    before = fresh_stub.chat_calls()
    chat.run_turn(TurnRequest(query="What SLA applies to the enterprise plan?", thread_id="b-1"))
    chat.run_turn(TurnRequest(query="and for P2?", thread_id="b-1"))
    fresh_stub.queue({"tool_calls": [{"name": "search_products", "arguments": {}}]})
    chat.run_turn(TurnRequest(query="What phones do you have under $500?", thread_id="b-2"))
    requests = fresh_stub.requests[before:]
    settings = untimed_llm_services.settings
    kinds = []
    for request in requests:
        if "response_format" in request:
            kinds.append(("answer", settings.llm_max_tokens))
        elif request.get("tools"):
            kinds.append(("tool", settings.llm_tool_max_tokens))
        else:
            kinds.append(("rewrite", settings.llm_rewrite_max_tokens))
        # A local server reads max_tokens, OpenAI max_completion_tokens: both are sent.
        assert request["max_tokens"] == request["max_completion_tokens"] == kinds[-1][1]
        # A turn nobody streams still streams its model calls, so that a client that
        # leaves can stop them; the short tool choice is asked whole.
        assert bool(request.get("stream")) == (kinds[-1][0] != "tool"), kinds[-1]
    assert {kind for kind, _ in kinds} == {"answer", "tool", "rewrite"}
    assert settings.llm_rewrite_max_tokens == 96


def test_a_runaway_generation_is_cut_at_the_cap_in_one_call(untimed_llm_services, fresh_stub):
    chat = ChatService(untimed_llm_services)
    fresh_stub.queue({"runaway": True})
    before = fresh_stub.chat_calls()
    result = chat.run_turn(
        TurnRequest(query="What uptime does the enterprise plan get?", thread_id="b-3")
    )
    assert fresh_stub.chat_calls() - before == 1 == result.llm_calls
    assert fresh_stub.requests[-1]["max_tokens"] == untimed_llm_services.settings.llm_max_tokens
    # The model wrote nothing citable: a decline, stored as any turn is.
    assert result.outcome == "clarify"
    assert stored_turns(untimed_llm_services, "b-3") == 1


def test_a_slow_model_ends_as_llm_timeout_before_the_sleep_without_a_retry(
    llm_services, fresh_stub
):
    chat = ChatService(llm_services)
    fresh_stub.queue({"content": "too late [1]", "delay": SLEEP})
    before = fresh_stub.chat_calls()
    started = time.perf_counter()
    with pytest.raises(LLMTimeoutError):
        chat.run_turn(
            TurnRequest(query="What uptime does the enterprise plan get?", thread_id="b-4")
        )
    assert time.perf_counter() - started < SLEEP / 3
    assert fresh_stub.chat_calls() - before == 1  # no retry of a timed-out generation
    nothing_stored(llm_services, "b-4")


def test_the_deadline_bounds_the_whole_turn_not_each_call(
    llm_services, untimed_llm_services, fresh_stub
):
    """A context follow-up makes two calls: together they stay within one deadline."""
    # The first turn is not the one timed: it runs under the default deadline.
    ChatService(untimed_llm_services).run_turn(
        TurnRequest(query="What SLA applies to the enterprise plan?", thread_id="b-5")
    )
    chat = ChatService(llm_services)
    fresh_stub.queue({"content": "SLA for P2", "delay": DEADLINE * 0.6})
    fresh_stub.queue({"content": "too late [1]", "delay": SLEEP})
    started = time.perf_counter()
    with pytest.raises(LLMTimeoutError):
        chat.run_turn(TurnRequest(query="and for P2?", thread_id="b-5"))
    assert time.perf_counter() - started < DEADLINE + 3
    assert stored_turns(llm_services, "b-5") == 1  # the first turn only


@pytest.mark.parametrize(
    "reply", [{"error": "overloaded", "status": 503}, {"error": "boom", "status": 500}]
)
def test_a_5xx_is_llm_unavailable_without_a_retry(untimed_llm_services, fresh_stub, reply):
    chat = ChatService(untimed_llm_services)
    fresh_stub.queue(reply)
    before = fresh_stub.chat_calls()
    with pytest.raises(LLMUnavailableError):
        chat.run_turn(
            TurnRequest(query="What uptime does the enterprise plan get?", thread_id="b-6")
        )
    assert fresh_stub.chat_calls() - before == 1
    nothing_stored(untimed_llm_services, "b-6")


def test_a_dropped_connection_is_llm_unavailable(untimed_llm_services, fresh_stub):
    fresh_stub.queue({"drop": True})
    with pytest.raises(LLMUnavailableError):
        ChatService(untimed_llm_services).run_turn(
            TurnRequest(query="What uptime does the enterprise plan get?", thread_id="b-7")
        )
    nothing_stored(untimed_llm_services, "b-7")


# --- the HTTP answers ----------------------------------------------------------------


@pytest.fixture
def down_client(sample_services):
    """The API over an LLM whose server is not running."""
    services = variant(sample_services, openai_base_url=closed_port_url())
    with TestClient(create_app(services)) as client:
        yield client, services


def test_post_chat_answers_503_llm_unavailable_and_stores_nothing(down_client):
    client, services = down_client
    response = client.post(
        "/chat", json={"query": "What uptime does the enterprise plan get?", "thread_id": "h-1"}
    )
    assert response.status_code == 503
    assert response.json()["error"]["code"] == "llm_unavailable"
    assert int(response.headers["retry-after"]) > 0
    nothing_stored(services, "h-1")


def test_post_chat_answers_504_llm_timeout_within_the_deadline(llm_services, fresh_stub):
    fresh_stub.queue({"content": "too late [1]", "delay": SLEEP})
    with TestClient(create_app(llm_services)) as client:
        started = time.perf_counter()
        response = client.post(
            "/chat",
            json={"query": "What uptime does the enterprise plan get?", "thread_id": "h-2"},
        )
    assert time.perf_counter() - started < SLEEP / 3
    assert response.status_code == 504
    assert response.json()["error"]["code"] == "llm_timeout"
    assert "retry-after" in response.headers
    nothing_stored(llm_services, "h-2")


def sse_events(text: str) -> list[tuple[str, dict[str, Any]]]:
    events = []
    for block in text.strip().split("\n\n"):
        name = next((ln[7:] for ln in block.splitlines() if ln.startswith("event: ")), "message")
        data = "\n".join(ln[6:] for ln in block.splitlines() if ln.startswith("data: "))
        events.append((name, json.loads(data) if data.startswith("{") else data))
    return events


def test_chat_stream_ends_with_an_error_event_and_stores_nothing(down_client):
    client, services = down_client
    response = client.post(
        "/chat/stream",
        json={"query": "What uptime does the enterprise plan get?", "thread_id": "h-3"},
    )
    assert response.status_code == 200
    events = sse_events(response.text)
    assert events[-1] == (
        "error",
        {"code": "llm_unavailable", "message": events[-1][1]["message"]},
    )
    assert "final" not in [name for name, _ in events]
    nothing_stored(services, "h-3")


def stored_everywhere(services: Services) -> tuple[int, int]:
    """How many turns the queries log holds and how many messages the store holds."""
    logged = services.querylog.query("SELECT COUNT(*) AS n FROM queries_log")[0]["n"]
    sessions, _ = services.store.list_sessions(tenant="default", limit=1000)
    return logged, sum(s.message_count for s in sessions)


def test_openai_compatible_route_answers_an_openai_shaped_503(down_client):
    client, services = down_client
    before = stored_everywhere(services)
    body = {"model": "threadline", "messages": [{"role": "user", "content": "What uptime?"}]}
    response = client.post("/v1/chat/completions", json=body)
    assert response.status_code == 503
    error = response.json()["error"]
    assert error["code"] == "llm_unavailable" and error["type"] == "server_error"
    assert "retry-after" in response.headers
    streamed = client.post("/v1/chat/completions", json={**body, "stream": True})
    payloads = [data for _, data in sse_events(streamed.text)]
    assert payloads[-1]["error"]["code"] == "llm_unavailable"
    assert stored_everywhere(services) == before


# --- the offline fallback and the tool route -------------------------------------------


def test_offline_fallback_answers_and_says_so(sample_services):
    services = variant(sample_services, openai_base_url=closed_port_url(), llm_fallback="offline")
    with TestClient(create_app(services)) as client:
        response = client.post(
            "/chat",
            json={"query": "What uptime does the enterprise plan get?", "thread_id": "f-1"},
        )
        plain = client.post("/chat", json={"query": "hello", "thread_id": "f-2"})
    assert response.status_code == 200
    body = response.json()
    assert body["llm_fallback"] == "offline"
    assert body["outcome"] == "grounded_answer" and body["citations"]
    assert "llm_fallback" not in plain.json()  # only a fallen-back turn carries the field
    assert stored_turns(services, "f-1") == 1


def test_offline_fallback_in_the_stream(sample_services):
    services = variant(sample_services, openai_base_url=closed_port_url(), llm_fallback="offline")
    with TestClient(create_app(services)) as client:
        response = client.post(
            "/chat/stream",
            json={"query": "What uptime does the enterprise plan get?", "thread_id": "f-3"},
        )
    events = sse_events(response.text)
    assert ("phase", {"node": "llm_fallback", "error": "llm_unavailable"}) in events
    name, final = events[-1]
    assert name == "final" and final["llm_fallback"] == "offline"
    assert stored_turns(services, "f-3") == 1


def test_tool_route_answers_from_the_parse_when_the_llm_is_down(down_client):
    client, services = down_client
    response = client.post(
        "/chat", json={"query": "What phones do you have under $500?", "thread_id": "t-1"}
    )
    assert response.status_code == 200
    body = response.json()
    assert body["route"] == "tool" and body["outcome"] == "tool_answer"
    assert body["search_query"] == PHONES_UNDER_500  # what the parse's call found
    assert body["llm_fallback"] == "offline"
    assert stored_turns(services, "t-1") == 1


def test_tool_route_answers_from_the_parse_when_the_tool_call_times_out(llm_services, fresh_stub):
    fresh_stub.queue({"tool_calls": [{"name": "search_products", "arguments": {}}], "delay": SLEEP})
    before = fresh_stub.chat_calls()
    result = ChatService(llm_services).run_turn(
        TurnRequest(query="What phones do you have under $500?", thread_id="t-2")
    )
    assert result.outcome == "tool_answer" and result.search_query == PHONES_UNDER_500
    assert fresh_stub.chat_calls() - before == 1  # the tool choice, not retried
    assert result.trace[0] == {"node": "llm_fallback", "error": "llm_timeout"}
    # Two model calls: the request the failed run sent (counted though the node that sent
    # it failed) and the offline model's tool choice that answered.
    assert result.llm_calls == 2


def test_unsaid_tool_arguments_lose_to_the_parse(untimed_llm_services, fresh_stub):
    fresh_stub.queue(
        {
            "tool_calls": [
                {"name": "search_products", "arguments": {"brand": "Samsung", "max_price": 10.99}}
            ]
        }
    )
    result = ChatService(untimed_llm_services).run_turn(
        TurnRequest(query="What phones do you have under $500?", thread_id="t-3")
    )
    assert result.outcome == "tool_answer" and result.llm_calls == 2
    tool = next(t for t in result.trace if t["node"] == "use_tool")
    assert tool["parse_wins"] is True
    assert set(tool["unsaid"]) == {"brand", "max_price"} and tool["differ"] == [
        "category",
        "max_price",
    ]
    assert tool["call"]["args"]["max_price"] == 500 and "brand" not in tool["call"]["args"]
    assert result.search_query == PHONES_UNDER_500


@pytest.mark.parametrize(
    "reply",
    [
        {"tool_calls": [{"name": "search_products", "arguments": "{not json"}]},
        {"tool_calls": [{"name": "search_products", "arguments": {"max_price": -3}}]},
        {"tool_calls": [{"name": "no_such_tool", "arguments": {}}]},
        {"error": "bad request", "status": 400},
    ],
)
def test_a_failed_tool_call_falls_back_to_the_parse(untimed_llm_services, fresh_stub, reply):
    fresh_stub.queue(reply)
    before = fresh_stub.chat_calls()
    result = ChatService(untimed_llm_services).run_turn(
        TurnRequest(query="What phones do you have under $500?", thread_id="t-4")
    )
    assert result.outcome == "tool_answer" and result.search_query == PHONES_UNDER_500
    tool = next(t for t in result.trace if t["node"] == "use_tool")
    assert tool.get("model_error")
    assert result.llm_calls == fresh_stub.chat_calls() - before


def test_chat_stream_times_out_within_the_deadline(llm_services, fresh_stub):
    """The streamed answer (the client's streaming path) is bounded by the deadline too."""
    fresh_stub.queue({"content": "too late [1]", "delay": SLEEP})
    before = fresh_stub.chat_calls()
    with TestClient(create_app(llm_services)) as client:
        started = time.perf_counter()
        response = client.post(
            "/chat/stream",
            json={"query": "What uptime does the enterprise plan get?", "thread_id": "h-4"},
        )
    assert time.perf_counter() - started < SLEEP / 3
    name, data = sse_events(response.text)[-1]
    assert name == "error" and data["code"] == "llm_timeout"
    assert fresh_stub.chat_calls() - before == 1
    nothing_stored(llm_services, "h-4")
