"""A small model's bad outputs through the real `ChatOpenAI` client, against the local stub.

The stub plays what a 135M-parameter model really wrote: condensed queries that are
apologies, chatter or the previous question back, and answers without a single `[n]`
marker. Counting the stub's requests proves the checks cost no extra call: a reference
follow-up is one call (the answer), a context follow-up two (condensation + answer).
"""

from __future__ import annotations

import pytest

from support.openai_stub import OpenAIStub, verdict_reply
from support.services import make_services
from threadline.chat import ChatService, TurnRequest

SLA_QUESTION = "What uptime does the enterprise plan SLA guarantee?"
SLA_ANSWER = "The Enterprise plan SLA guarantees 99.95% monthly uptime."
P2_ANSWER = "On the Enterprise plan, P2 incidents get a first response within 1 hour."
UNICORNS = "Unicorns certify every Brightwell datacentre quarterly."
# What the Escalation section (S3 of the overview's outline) states, in one of its sentences.
ESCALATION_ANSWER = (
    "If a P1 or P2 incident is not resolved within 4 hours, Brightwell escalates it to the "
    "head of customer support."
)


@pytest.fixture(scope="module")
def stub():
    with OpenAIStub() as server:
        yield server


@pytest.fixture(scope="module")
def chat(stub, tmp_path_factory):
    services = make_services(
        tmp_path_factory.mktemp("openai-small-model"),
        llm="openai",
        openai_base_url=stub.base_url,
        openai_api_key="test-key",
    )
    yield ChatService(services)
    services.close()


def run(chat, stub, text: str, thread: str, *replies: str):
    stub.queue(*replies)
    before = stub.chat_calls()
    result = chat.run_turn(TurnRequest(query=text, thread_id=thread))
    assert stub.pending() == 0  # every scripted reply was asked for, no more
    return result, stub.chat_calls() - before


def step(result, node: str) -> dict:
    return next(t for t in result.trace if t.get("node") == node)


# --- answers without markers ------------------------------------------------------------


def test_an_answer_without_markers_is_attributed_and_cited(chat, stub):
    result, calls = run(chat, stub, SLA_QUESTION, "sm-1", SLA_ANSWER)
    assert calls == 1 == result.llm_calls
    assert result.outcome == "grounded_answer" and result.citations
    cited = {c["id"] for c in result.citations}
    assert result.answer.startswith(SLA_ANSWER + " [") and result.answer.endswith("]")
    assert result.answer[len(SLA_ANSWER) + 2 : -1] in cited
    assert step(result, "generate")["attribution"] == {
        "attributed": 1,
        "dropped": [],
        "uncited": [],
    }


def test_a_structured_answer_without_markers_is_attributed_too(chat, stub):
    result, _ = run(chat, stub, SLA_QUESTION, "sm-2", verdict_reply("answer", SLA_ANSWER))
    assert result.outcome == "grounded_answer" and result.citations
    assert step(result, "generate")["attribution"]["attributed"] == 1


def test_an_unsupported_sentence_is_dropped(chat, stub):
    result, _ = run(chat, stub, SLA_QUESTION, "sm-3", f"{SLA_ANSWER} {UNICORNS}")
    assert result.outcome == "grounded_answer"
    assert "Unicorns" not in result.answer and "99.95%" in result.answer
    attribution = step(result, "generate")["attribution"]
    assert attribution["attributed"] == 1 and attribution["dropped"] == [UNICORNS]


def test_an_answer_nothing_supports_is_declined(chat, stub):
    result, calls = run(chat, stub, SLA_QUESTION, "sm-4", f"Sure! {UNICORNS}")
    assert calls == 1
    assert result.outcome == "clarify" and result.stop_reason == "no_valid_citation"
    assert result.citations == [] and "Unicorns" not in result.answer
    assert step(result, "generate")["attribution"]["attributed"] == 0


def test_the_prompt_numbers_sources_and_states_the_language_and_format(chat, stub):
    run(chat, stub, SLA_QUESTION, "sm-5", SLA_ANSWER)
    prompt = stub.requests[-1]["messages"][-1]["content"]
    assert '[1] <source id="1"' in prompt
    assert '<answer_format language="en">\nWrite the answer in English.' in prompt
    assert "Example: A fact taken from source 2. [2]" in prompt


# --- condensed queries, checked -----------------------------------------------------------


def test_a_refusal_is_not_searched_and_the_followup_costs_two_calls(chat, stub):
    run(chat, stub, "What SLA applies to the enterprise plan?", "sm-6", SLA_ANSWER)
    refusal = "I'm sorry for the confusion, but as a search engine assistant, I cannot help."
    result, calls = run(chat, stub, "and for P2?", "sm-6", refusal, P2_ANSWER)
    assert calls == 2 == result.llm_calls  # condensation + answer, nothing more
    reformulate = step(result, "reformulate")
    assert reformulate["llm_rewrite_rejected"] == "refusal"
    assert reformulate["llm_rewrite"] == refusal
    assert result.followup["method"] == "heuristic"
    assert result.search_query.startswith("and for P2?") and "sorry" not in result.search_query
    assert result.outcome == "grounded_answer" and "P2" in result.answer


def test_the_previous_question_back_is_not_searched(chat, stub):
    first = "What SLA applies to the enterprise plan?"
    run(chat, stub, first, "sm-7", SLA_ANSWER)
    result, calls = run(chat, stub, "and for P2?", "sm-7", first, P2_ANSWER)
    assert calls == 2 == result.llm_calls
    assert step(result, "reformulate")["llm_rewrite_rejected"] == "copy_of_previous"
    assert "P2" in result.search_query


def test_french_chatter_is_not_searched(chat, stub):
    first = "Quel est le chiffre d'affaires de Brightwell en 2024 ?"
    run(chat, stub, first, "sm-8", "Le chiffre d'affaires 2024 de Brightwell s'élève à 486,3 M$.")
    chatter = "Voici la requête reformulée : chiffre d'affaires Brightwell 2024 marge brute"
    answer = "La marge brute de Brightwell atteint 27,4 % du chiffre d'affaires."
    result, calls = run(chat, stub, "et la marge brute ?", "sm-8", chatter, answer)
    assert calls == 2 == result.llm_calls
    assert step(result, "reformulate")["llm_rewrite_rejected"] == "chatter"
    assert result.search_query.startswith("et la marge brute ?")
    assert result.outcome == "grounded_answer" and result.citations


def test_a_good_rewrite_is_searched(chat, stub):
    run(chat, stub, "What SLA applies to the enterprise plan?", "sm-9", SLA_ANSWER)
    result, calls = run(
        chat, stub, "and for P2?", "sm-9", "Enterprise plan SLA first response for P2", P2_ANSWER
    )
    assert calls == 2 == result.llm_calls
    assert result.followup["method"] == "llm"
    assert result.search_query == "Enterprise plan SLA first response for P2"
    assert "llm_rewrite_rejected" not in step(result, "reformulate")


def test_a_reference_followup_costs_one_call_even_without_markers(chat, stub):
    overview = "Give me an overview of the support policy"
    sections = ["Priorities", "Response times", "Escalation", "Support hours"]
    outline = "\n".join(
        ["Brightwell support classifies every incident into one of four priorities.", "", "SUIVI"]
        + [f"[S{i}] {title}" for i, title in enumerate(sections, 1)]
    )
    first, _ = run(chat, stub, overview, "sm-10", outline)
    assert len(first.outline) == 4 and first.citations  # attributed, outline kept
    result, calls = run(
        chat, stub, "Détaille S3", "sm-10", verdict_reply("answer", ESCALATION_ANSWER)
    )
    assert calls == 1 == result.llm_calls  # the answer only: the reference costs no call
    assert result.followup["method"] == "deterministic" and result.followup["section_id"] == "S3"
    assert result.outcome == "grounded_answer" and result.citations
