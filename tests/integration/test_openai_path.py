"""The OpenAI path end to end: the real `ChatOpenAI` client, over HTTP, against a local stub.

The stub answers like a careful LLM would (citing source ids it finds in the
prompt, ending deliverables with a SUIVI block), so the graph's parsing and
validation run on real client output. Counting the stub's requests proves how
many LLM calls each kind of turn costs.
"""

from __future__ import annotations

import re

import pytest

from support.openai_stub import OpenAIStub, verdict_reply
from support.services import make_services
from threadline.chat import ChatService, TurnRequest
from threadline.settings import Settings

SOURCE = re.compile(
    r'<source id="(\d+)" title="([^"]*)" section="([^"]*)">\n(.*?)\n</source>', re.S
)


def careful_llm(body: dict) -> str:
    """Answer from the prompt's sources only; outline when the prompt asks for one."""
    system = body["messages"][0]["content"]
    prompt = body["messages"][-1]["content"]
    if system.startswith("You rewrite"):  # the condensation prompt
        trail = re.findall(r"found: \[(.*?)\]", prompt)
        last = re.search(r'Last message: "(.*)"', prompt).group(1)
        return f"{trail[-1].split(',')[0].strip(chr(34))} {last}" if trail else last
    sources = SOURCE.findall(prompt)
    if not sources:
        return "INSUFFICIENT_CONTEXT"
    sentences = [f"{text.split('. ')[0].rstrip('.')}. [{sid}]" for sid, _, _, text in sources[:3]]
    answer = " ".join(sentences)
    if "<deliverable>yes</deliverable>" in prompt:
        sections = list(dict.fromkeys(section for _, _, section, _ in sources))[:8]
        answer += "\n\n**SUIVI**\n" + "\n".join(f"[S{i}] {s}" for i, s in enumerate(sections, 1))
    return answer


@pytest.fixture(scope="module")
def stub():
    with OpenAIStub(responder=careful_llm) as server:
        yield server


@pytest.fixture(scope="module")
def chat(stub, tmp_path_factory):
    services = make_services(
        tmp_path_factory.mktemp("openai"),
        llm="openai",
        openai_base_url=stub.base_url,
        openai_api_key="test-key",
    )
    yield ChatService(services)
    services.close()


def test_settings_pick_openai_when_a_base_url_is_set(stub):
    settings = Settings(_env_file=None, openai_base_url=stub.base_url)
    assert settings.llm == "openai"
    assert Settings(_env_file=None, openai_base_url=None, openai_api_key=None).llm == "offline"


def test_a_question_about_the_assistant_costs_no_llm_call(chat, stub):
    # Deterministic: what threadline does and the caller's titles, nothing generated.
    before = len(stub.requests)
    result = chat.run_turn(TurnRequest(query="What documents do you have?", thread_id="about"))
    assert result.outcome == "reply" and result.citations == [] and result.llm_calls == 0
    assert "- Brightwell support policy" in result.answer
    assert len(stub.requests) == before


def test_grounded_answer_with_outline_through_chatopenai(chat, stub):
    before = stub.chat_calls()
    result = chat.run_turn(TurnRequest(query="Summarise the support policy", thread_id="oa-1"))
    assert stub.chat_calls() - before == 1 == result.llm_calls
    assert result.outcome == "grounded_answer"
    assert len(result.outline) >= 4 and "SUIVI" not in result.answer
    assert result.citations and all(
        c["doc_id"] == "support-support-policy" for c in result.citations
    )
    request = stub.requests[-1]
    assert request["model"] == "gpt-4o-mini"
    assert "<context>" in request["messages"][-1]["content"]


def test_explicit_reference_costs_exactly_one_call_the_answer(chat, stub):
    first = chat.run_turn(
        TurnRequest(query="Give me an overview of the support policy", thread_id="oa-2")
    )
    title = first.outline[2]["title"]
    before = stub.chat_calls()
    result = chat.run_turn(TurnRequest(query="Détaille S3", thread_id="oa-2"))
    assert stub.chat_calls() - before == 1 == result.llm_calls
    assert result.followup["method"] == "deterministic" and result.followup["section_id"] == "S3"
    assert result.search_query.startswith(title)
    assert "FOLLOWUP_REFERENCE=S3" in stub.requests[-1]["messages"][-1]["content"]


def test_context_followup_condenses_with_one_llm_call(chat, stub):
    chat.run_turn(TurnRequest(query="What SLA applies to the enterprise plan?", thread_id="oa-3"))
    before = stub.chat_calls()
    result = chat.run_turn(TurnRequest(query="and for P2?", thread_id="oa-3"))
    assert stub.chat_calls() - before == 2 == result.llm_calls  # condense + answer
    assert result.followup["method"] == "llm"
    condense_prompt = stub.requests[-2]["messages"][-1]["content"]
    assert 'searched: "What SLA applies to the enterprise plan?"' in condense_prompt
    assert "P2" in result.search_query


def test_citations_to_unknown_sources_are_removed(chat, stub):
    stub.queue("The Enterprise plan has a 99.95% uptime SLA. [1] Invented fact. [99]")
    result = chat.run_turn(
        TurnRequest(query="What uptime does the enterprise plan get?", thread_id="oa-4")
    )
    assert "[99]" not in result.answer and "[1]" in result.answer
    assert [c["id"] for c in result.citations] == ["1"]


def test_answer_without_valid_citation_is_refused(chat, stub):
    # Its one marker names no source, and no passage supports the sentence, so
    # attributing it to a passage (a model that forgot its markers) finds none either.
    stub.queue("Unicorns certify every Brightwell datacentre quarterly. [42]")
    result = chat.run_turn(
        TurnRequest(query="What uptime does the enterprise plan get?", thread_id="oa-5")
    )
    assert result.outcome == "clarify"
    assert result.stop_reason == "no_valid_citation"
    assert result.citations == []


def test_refuse_policy_refuses_an_answer_citing_outside_the_context(stub, tmp_path):
    services = make_services(
        tmp_path,
        llm="openai",
        openai_base_url=stub.base_url,
        openai_api_key="test-key",
        citation_policy="refuse",
    )
    try:
        strict = ChatService(services)
        stub.queue("The Enterprise plan has a 99.95% uptime SLA. [1] Invented fact. [99]")
        result = strict.run_turn(
            TurnRequest(query="What uptime does the enterprise plan get?", thread_id="oa-7")
        )
        assert result.outcome == "clarify"
        assert result.stop_reason == "invalid_answer:citations_out_of_context"
        assert "Invented fact" not in result.answer and result.citations == []
        generate = next(t for t in result.trace if t["node"] == "generate")
        assert generate["invalid_citations"] == ["99"]
        # What is stored is the refusal, never the answer with the forged citation.
        stored = services.store.get_session(
            tenant="default", caller_app="default", session_id="oa-7"
        )
        assert "Invented fact" not in stored.messages[-1].content
        # The same policy lets an answer whose citations are all in the context through.
        stub.queue("The Enterprise plan has a 99.95% uptime SLA. [1]")
        fine = strict.run_turn(
            TurnRequest(query="What uptime does the enterprise plan get?", thread_id="oa-8")
        )
        assert fine.outcome == "grounded_answer" and [c["id"] for c in fine.citations] == ["1"]
    finally:
        services.close()


def test_tool_calling_with_the_llm_choosing_typed_arguments(chat, stub):
    stub.queue(
        {
            "tool_calls": [
                {"name": "search_products", "arguments": {"category": "laptop", "max_price": 800}}
            ]
        }
    )
    result = chat.run_turn(TurnRequest(query="Which laptops cost at most $800?", thread_id="oa-6"))
    assert result.route == "tool" and result.outcome == "tool_answer"
    assert result.llm_calls == 2  # tool choice + answer
    titles = {c["title"] for c in result.citations}
    assert titles and titles <= {
        "Acer Aspire 5 (A515-58)",
        "HP Pavilion 15",
        "Lenovo IdeaPad Slim 5 14",
    }
    tool_request = stub.requests[-2]
    assert {t["function"]["name"] for t in tool_request["tools"]} == {
        "search_products",
        "compare_products",
        "rank_products",
        "get_product",
    }


def test_an_outline_on_a_turn_that_is_no_deliverable_is_dropped(chat, stub):
    # The summary's outline is what "Détaille S2" points into; a block a model appends to
    # an ordinary answer later is no outline: shown, it would replace the summary's.
    summary = chat.run_turn(TurnRequest(query="Summarise the support policy", thread_id="oa-7"))
    assert len(summary.outline) >= 4
    stub.queue(
        verdict_reply(
            "answer",
            "The Enterprise plan SLA guarantees 99.95% monthly uptime. [1]\n\n"
            "SUIVI\n[S1] Invented pricing\n[S2] Invented roadmap\n[S3] Invented team",
        )
    )
    result = chat.run_turn(
        TurnRequest(query="What uptime does the enterprise plan SLA guarantee?", thread_id="oa-7")
    )
    assert result.outcome == "grounded_answer", result.answer
    assert result.outline == [] and "Invented" not in result.answer
    detail = chat.run_turn(TurnRequest(query="Détaille S2", thread_id="oa-7"))
    assert detail.followup["section_id"] == "S2"
    assert detail.search_query.startswith(summary.outline[1]["title"])


def test_a_french_question_answered_in_english_says_the_sources_language(chat, stub):
    # The stub copies its sources' first sentences as written: English, for a French
    # question over the English handbook. The reply says so in French, as a quote's does.
    result = chat.run_turn(
        TurnRequest(query="Que faire si je perds mon ordinateur portable ?", thread_id="oa-8")
    )
    assert result.outcome == "grounded_answer", result.answer
    assert result.answer.startswith("D'après "), result.answer
    assert "(en anglais) :" in result.answer.splitlines()[0]
    english = chat.run_turn(
        TurnRequest(query="What should I do if I lose my laptop?", thread_id="oa-9")
    )
    assert english.outcome == "grounded_answer" and not english.answer.startswith("From ")
