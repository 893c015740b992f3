"""The graph's paths on the sample data, offline: tool, retrieve, follow-ups, clarify, greeting."""

from __future__ import annotations

import re
import uuid

import pytest
from langchain_core.callbacks import BaseCallbackHandler

from threadline.chat import ChatService, TurnRequest
from threadline.graph.catalog_requests import parse_catalog_request
from threadline.graph.routing import plan_turn


class CountingHandler(BaseCallbackHandler):
    """Counts chat model starts, whatever the model."""

    def __init__(self) -> None:
        self.calls = 0

    def on_chat_model_start(self, *args, **kwargs) -> None:
        self.calls += 1


@pytest.fixture(scope="module")
def chat(sample_services) -> ChatService:
    return ChatService(sample_services)


def turn(chat: ChatService, thread: str, text: str):
    return chat.run_turn(TurnRequest(query=text, thread_id=thread))


def new_thread() -> str:
    return f"t-{uuid.uuid4().hex[:8]}"


def test_greeting_is_a_reply_without_facts_or_model_call(chat):
    result = turn(chat, new_thread(), "Hello!")
    assert result.route == "reply"
    assert result.outcome == "reply"
    assert result.citations == []
    assert result.llm_calls == 0


def test_catalog_question_goes_through_the_tool(chat):
    result = turn(chat, new_thread(), "What phones do you have under $500?")
    assert result.route == "tool"
    assert result.outcome == "tool_answer"
    titles = [c["title"] for c in result.citations]
    assert "Samsung Galaxy A55 5G" in titles
    assert "Samsung Galaxy S24" not in titles  # $799: filtered by price
    prices = [int(p.replace(",", "")) for p in re.findall(r"\$(\d[\d,]*)", result.answer)]
    assert prices and max(prices) <= 500


def test_followup_after_tool_names_the_listed_product(chat):
    # Issue 11: a reference into the listed products resolves to the listed product
    # deterministically and answers from the catalog (it was a document search before).
    thread = new_thread()
    turn(chat, thread, "What phones do you have under $500?")
    result = turn(chat, thread, "Tell me more about the Samsung one")
    assert result.route == "tool"
    assert result.followup["detected"] and result.followup["resolved"]
    assert result.followup["method"] == "deterministic"
    assert "Samsung Galaxy A55" in result.search_query
    assert result.outcome == "tool_answer"
    assert "$449" in result.answer and "5000 mAh" in result.answer
    assert [c["title"] for c in result.citations] == ["Samsung Galaxy A55 5G"]


def test_sla_followup_keeps_the_plan(chat):
    thread = new_thread()
    first = turn(chat, thread, "What SLA applies to the enterprise plan?")
    assert first.outcome == "grounded_answer"
    assert "99.95" in first.answer
    second = turn(chat, thread, "and for P2?")
    assert second.route == "followup_context"
    assert "enterprise" in second.search_query.lower()
    assert "P2" in second.answer and "1 hour" in second.answer


def test_summary_outline_then_explicit_reference_without_extra_calls(chat):
    thread = new_thread()
    first = turn(chat, thread, "Résume le rapport annuel 2024")
    assert first.outcome == "grounded_answer"
    assert 4 <= len(first.outline) <= 8
    assert [o["id"] for o in first.outline] == [f"S{i}" for i in range(1, len(first.outline) + 1)]
    assert "SUIVI" not in first.answer
    s2 = first.outline[1]["title"]

    counter = CountingHandler()
    state = chat.graph.invoke(
        {"query": "Détaille S2", "thread_id": thread}, config={"callbacks": [counter]}
    )
    assert state["followup"].resolved and state["followup"].section_id == "S2"
    assert state["followup"].ref_type == "section"
    assert state["followup"].method == "deterministic"
    assert state["search_query"].startswith(f"{s2} — ")
    # Zero calls to resolve the reference: the only model call is the answer itself.
    assert counter.calls == 1 == state["llm_calls"]
    assert all(c.section == s2 for c in state["citations"])


def test_pure_anaphora_after_an_outline_asks_which_section(chat):
    thread = new_thread()
    turn(chat, thread, "Give me an overview of the support policy")
    result = turn(chat, thread, "Tell me more")
    assert result.outcome == "clarify"
    assert result.followup["ref_type"] == "anaphora"
    assert not result.followup["resolved"]
    assert "S1" in result.answer and "S2" in result.answer
    assert result.search_query is None  # no retrieval, no guess


def test_reference_beyond_the_outline_lists_the_sections(chat):
    thread = new_thread()
    first = turn(chat, thread, "Give me an overview of the support policy")
    result = turn(chat, thread, f"Detail S{len(first.outline) + 5}")
    assert result.outcome == "clarify"
    assert result.followup["detected"] and not result.followup["resolved"]
    assert result.followup["section_id"] is None
    assert first.outline[0]["title"] in result.answer


def test_no_grounded_answer_means_clarify(chat):
    result = turn(chat, new_thread(), "What is the boiling point of mercury on Jupiter?")
    assert result.outcome == "clarify"
    assert result.citations == []
    # Issue 11: a decline is "not_in_documents" (named thing or content absent).
    assert result.stop_reason in {"no_context", "not_in_documents", "no_valid_citation"}
    assert result.clarify["reason"] == "not_in_documents"


def test_turns_are_persisted_once_with_their_metadata(chat, sample_services):
    thread = new_thread()
    turn(chat, thread, "Résume le rapport annuel 2024")
    turn(chat, thread, "Détaille S3")
    store = sample_services.store
    messages = store.get_history(tenant="default", caller_app="default", session_id=thread)
    assert [m.role for m in messages] == ["user", "assistant", "user", "assistant"]
    last = messages[-1].metadata
    assert last.followup.section_id == "S3" and last.followup.resolved
    assert last.route == "followup_reference"
    state = store.get_thread_state(tenant="default", caller_app="default", session_id=thread)
    assert len(state.last_outline) >= 4  # kept from the summary turn
    assert state.last_search_query.endswith("Détaille S3")
    dumped = state.model_dump_json()
    assert "chiffre" not in dumped.lower()  # titles and ids only, never document text
    rows = sample_services.querylog.thread(thread)
    assert [r["followup_section_id"] for r in rows] == [None, "S3"]


def test_router_is_deterministic_and_ordered():
    outline = []
    plan = plan_turn("hello", outline=outline, source_titles=[], has_previous_turn=True)
    assert plan.route == "reply"
    plan = plan_turn("thanks", outline=outline, source_titles=[], has_previous_turn=True)
    assert plan.route == "reply"
    plan = plan_turn(
        "Which laptops under $1000?", outline=outline, source_titles=[], has_previous_turn=True
    )
    assert plan.route == "tool"
    plan = plan_turn(
        "Summarise the security handbook",
        outline=outline,
        source_titles=[],
        has_previous_turn=False,
    )
    assert plan.route == "standalone" and plan.deliverable


def test_catalog_request_parser_extracts_typed_arguments():
    brands = ["Samsung", "Dell", "Apple"]
    call = parse_catalog_request("Dell laptops between $500 and $1,500", brands)
    assert call.name == "search_products"
    assert call.args == {"category": "laptop", "brand": "Dell", "min_price": 500, "max_price": 1500}
    call = parse_catalog_request("Quels téléphones à moins de 400 € ?", brands)
    assert call.args == {"category": "phone", "max_price": 400}
    call = parse_catalog_request("Compare the Galaxy S24 and the iPhone 15", brands)
    assert call.name == "compare_products" and len(call.args["names"]) == 2
    assert parse_catalog_request("What SLA applies to the enterprise plan?", brands) is None
