"""Decide, then answer, through the real `ChatOpenAI` client against the local stub.

One generation call returns the verdict with the answer (a JSON schema response
format); the deterministic evidence check still guards an "answer" verdict; the stub
counts the calls, so "no extra call" is measured, not assumed.
"""

from __future__ import annotations

import json
import re

import pytest

from support.openai_stub import OpenAIStub, verdict_reply
from support.services import make_services
from threadline.chat import ChatService, TurnRequest


@pytest.fixture(scope="module")
def stub():
    with OpenAIStub() as server:
        yield server


@pytest.fixture(scope="module")
def chat(stub, tmp_path_factory):
    services = make_services(
        tmp_path_factory.mktemp("openai-answers"),
        llm="openai",
        openai_base_url=stub.base_url,
        openai_api_key="test-key",
    )
    yield ChatService(services)
    services.close()


def run(chat, stub, text: str, thread: str):
    before = stub.chat_calls()
    result = chat.run_turn(TurnRequest(query=text, thread_id=thread))
    return result, stub.chat_calls() - before


def test_one_call_returns_the_verdict_and_the_answer(chat, stub):
    stub.queue(
        verdict_reply(
            "answer",
            "The Enterprise plan SLA guarantees 99.95% monthly uptime. [1]",
        )
    )
    result, calls = run(chat, stub, "What uptime does the enterprise plan SLA guarantee?", "v-1")
    assert calls == 1 == result.llm_calls
    assert result.outcome == "grounded_answer" and result.citations
    body = stub.requests[-1]
    assert body["response_format"]["type"] == "json_schema"
    assert "verdict" in json.dumps(body["response_format"])


def test_guard_overrides_an_llm_answer_the_passages_cannot_back(chat, stub):
    # The model "answers" with the Motorola's price; the Galaxy S25 is in no passage.
    stub.queue(verdict_reply("answer", "The Galaxy S25 costs $299. [1]"))
    result, calls = run(chat, stub, "How much does the Galaxy S25 cost?", "v-2")
    assert calls == 1  # the guard costs no call
    assert result.outcome == "clarify" and result.stop_reason == "not_in_documents"
    assert result.citations == [] and "$299" not in result.answer
    guard = next(t for t in result.trace if t.get("node") == "generate")
    assert guard["llm_verdict"] == "answer" and guard["guard"].startswith("answer->")


def test_llm_may_decline_where_the_check_would_answer(chat, stub):
    stub.queue(verdict_reply("not_in_documents"))
    result, calls = run(chat, stub, "How do I report a phishing email?", "v-3")
    assert calls == 1
    assert result.outcome == "clarify" and result.stop_reason == "not_in_documents"
    assert result.clarify["reason"] == "not_in_documents" and result.citations == []


def test_llm_ambiguous_verdict_asks_back(chat, stub):
    stub.queue(verdict_reply("ambiguous"))
    result, calls = run(chat, stub, "What does the Business plan include?", "v-4")
    assert calls == 1
    assert result.outcome == "clarify" and result.stop_reason == "ambiguous"
    assert result.answer.endswith("?")


def test_partial_verdict_answers_and_says_what_is_missing(chat, stub):
    stub.queue(
        verdict_reply(
            "partial",
            "The Enterprise plan SLA guarantees 99.95% monthly uptime. [1]",
            ["the price of the Enterprise plan in euros"],
        )
    )
    result, _ = run(chat, stub, "What uptime does the enterprise plan SLA guarantee?", "v-5")
    assert result.outcome == "grounded_answer" and result.stop_reason == "partial"
    assert result.answer.endswith(
        "The documents do not cover: the price of the Enterprise plan in euros."
    )


def test_support_check_drops_an_unsupported_llm_sentence(chat, stub):
    stub.queue(
        verdict_reply(
            "answer",
            "The Enterprise plan SLA guarantees 99.95% monthly uptime. [1] "
            "Unicorns certify every Brightwell datacentre quarterly. [1]",
        )
    )
    result, _ = run(chat, stub, "What uptime does the enterprise plan SLA guarantee?", "v-6")
    assert "Unicorns" not in result.answer and "99.95%" in result.answer
    checked = next(t for t in result.trace if t.get("node") == "generate")
    assert checked["support"]["dropped"] == [
        "Unicorns certify every Brightwell datacentre quarterly. [1]"
    ]


def test_a_model_ignoring_the_schema_still_works(chat, stub):
    # A local server that does not honour response_format answers in plain text.
    stub.queue("The Enterprise plan SLA guarantees 99.95% monthly uptime. [1]")
    result, calls = run(chat, stub, "What uptime does the enterprise plan SLA guarantee?", "v-7")
    assert calls == 1 and result.outcome == "grounded_answer"


def test_document_markers_reach_the_llm_defused(tmp_path, stub):
    doc = tmp_path / "notes.md"
    doc.write_text(
        "---\ntitle: Turbine notes\nsource: notes\n---\n\n# Turbine notes\n\n## Gearbox\n\n"
        "The gearbox oil is changed every 18 months [7]. See also [S2].\n",
        encoding="utf-8",
    )
    services = make_services(
        tmp_path / "data",
        corpus=[doc],
        llm="openai",
        openai_base_url=stub.base_url,
        openai_api_key="test-key",
    )
    try:
        chat = ChatService(services)

        # A model that copies the document sentence verbatim, markers and all.
        def copy_sentence(body):
            prompt = body["messages"][-1]["content"]
            sentence = re.search(r"The gearbox oil[^\n]*", prompt).group(0)
            return verdict_reply("answer", f"{sentence} [1]")

        stub.responder = copy_sentence
        result = chat.run_turn(
            TurnRequest(query="How often is the gearbox oil changed?", thread_id="v-8")
        )
        prompt = stub.requests[-1]["messages"][-1]["content"]
        assert "[7]" not in prompt and "[S2]" not in prompt
        assert [c["id"] for c in result.citations] == ["1"]
        assert "[7]" not in result.answer and result.outline == []
    finally:
        from support.openai_stub import default_responder

        stub.responder = default_responder
        services.close()


def test_list_reference_after_a_catalog_list_needs_no_llm_call_to_resolve(chat, stub):
    stub.queue(
        {
            "tool_calls": [
                {"name": "search_products", "arguments": {"category": "phone", "max_price": 500}}
            ]
        }
    )
    stub.queue(
        "- Nokia G42 5G costs $199. [1]\n- Motorola Moto G Power 5G (2024) costs $299. [2]\n"
        "- Xiaomi Redmi Note 13 Pro 5G costs $349. [3]"
    )
    chat.run_turn(TurnRequest(query="What phones do you have under $500?", thread_id="v-9"))
    stub.queue(verdict_reply("answer", "The Moto G Power 5G costs $299. [1]"))
    result, calls = run(chat, stub, "tell me more about the second one", "v-9")
    assert result.followup["method"] == "deterministic" and result.followup["resolved"]
    assert result.search_query == "Motorola Moto G Power 5G (2024)"  # the product looked up
    assert [c["title"] for c in result.citations] == ["Motorola Moto G Power 5G (2024)"]
    assert calls == 1 == result.llm_calls  # the answer only: the reference costs no call


def test_chat_stream_tokens_are_answer_text_not_json(chat, stub):
    import asyncio

    stub.queue(
        verdict_reply("answer", "The Enterprise plan SLA guarantees 99.95% monthly uptime. [1]")
    )

    async def collect():
        request = TurnRequest(
            query="What uptime does the enterprise plan SLA guarantee?", thread_id="v-10"
        )
        return [e async for e in chat.astream_turn(request)]

    events = asyncio.run(collect())
    text = "".join(e["data"]["text"] for e in events if e["event"] == "token")
    assert text == "The Enterprise plan SLA guarantees 99.95% monthly uptime. [1]"
    assert events[-1]["data"]["outcome"] == "grounded_answer"


def test_the_stream_shows_only_the_sentences_that_stand(chat, stub):
    import asyncio

    # A model that invents a sentence: the support check drops it, and no token event
    # ever carried it, so no client can show it before the final answer replaces it.
    stub.queue(
        verdict_reply(
            "answer",
            "The Enterprise plan SLA guarantees 99.95% monthly uptime. [1] "
            "Brightwell's revenue reached 9 billion dollars in 2023. [1]",
        )
    )

    async def collect():
        request = TurnRequest(
            query="What uptime does the enterprise plan SLA guarantee?", thread_id="v-11"
        )
        return [e async for e in chat.astream_turn(request)]

    events = asyncio.run(collect())
    tokens = [e["data"]["text"] for e in events if e["event"] == "token"]
    final = events[-1]["data"]
    assert final["outcome"] == "grounded_answer" and "9 billion" not in final["answer"]
    assert not any("9 billion" in t for t in tokens)
    assert "".join(tokens) == final["answer"]
    # Sentence by sentence, each one before the final event.
    assert tokens == ["The Enterprise plan SLA guarantees 99.95% monthly uptime. [1]"]


def test_a_sort_of_the_listed_products_needs_no_llm_call_to_choose_the_tool(chat, stub):
    # "sort them by price" names no product: a model choosing the tool sees the message
    # alone. The products are those shown, the call the router's: the answer's call only.
    stub.queue(
        {
            "tool_calls": [
                {"name": "search_products", "arguments": {"category": "phone", "max_price": 500}}
            ]
        }
    )
    stub.queue("- Nokia G42 5G costs $199. [1]\n- Google Pixel 8a costs $499. [5]")
    chat.run_turn(TurnRequest(query="What phones do you have under $500?", thread_id="v-10"))
    stub.queue(verdict_reply("answer", "The Pixel 8a has the biggest battery: 4492 mAh. [1]"))
    result, calls = run(chat, stub, "sort them by battery, biggest first", "v-10")
    assert result.followup["method"] == "deterministic" and result.followup["resolved"]
    tool = next(t for t in result.trace if t["node"] == "use_tool")
    # The products the answer showed (it cited two of the five found).
    assert tool["call"]["args"]["names"] == ["Nokia G42 5G", "Google Pixel 8a"]
    assert tool["call"]["args"]["spec"] == "battery_mah"
    assert calls == 1 == result.llm_calls  # the answer only
