"""What a small model's bad output cannot do: a rewrite checked before it is searched, and
an answer without markers cited only where a passage supports it.

Pure checks, plus the reformulation step run with LangChain's fake chat model playing
the model (no server, no socket).
"""

from __future__ import annotations

from types import SimpleNamespace

import pytest
from langchain_core.language_models import FakeListChatModel

from threadline.graph import prompts
from threadline.graph.answering import in_other_languages
from threadline.graph.condensation import check_rewrite
from threadline.graph.context import Context
from threadline.graph.grounding import attribute_sentences, support_check
from threadline.graph.reformulation import reformulate_turn
from threadline.graph.state import State, TurnFollowup
from threadline.models.answer_prompt import (
    AnswerPrompt,
    PromptSource,
    parse_answer_prompt,
    render_answer_prompt,
)
from threadline.settings import Settings
from threadline.store import ThreadState

SLA = "What SLA applies to the enterprise plan?"
CA = "Quel est le chiffre d'affaires de Brightwell en 2024 ?"
PHONES = "What phones do you have under $500?"
SAMSUNG = "Samsung Galaxy A55 5G"


def check(rewrite: str, question: str, previous: str, titles: tuple[str, ...] = ()):
    return check_rewrite(
        rewrite, question, previous_question=previous, previous_query=previous, titles=titles
    )


# --- the rewrite check: one case per reason, in English and French ----------------------


@pytest.mark.parametrize(
    ("rewrite", "question", "previous", "reason"),
    [
        # Refusals and apologies.
        (
            "I'm sorry for the confusion, but as a search engine assistant, I can't browse.",
            "Tell me more about the Samsung one",
            PHONES,
            "refusal",
        ),
        ("Désolé, je ne peux pas reformuler cette question.", "et la marge brute ?", CA, "refusal"),
        # Talk about the task.
        (
            "Sure! Here is the query: Samsung Galaxy A55 5G",
            "Tell me more about the Samsung one",
            PHONES,
            "chatter",
        ),
        ("Voici la requête : marge brute de Brightwell 2024", "et la marge brute ?", CA, "chatter"),
        # Several lines.
        ("enterprise plan SLA P2\nThis query asks about P2.", "and for P2?", SLA, "multi_line"),
        ("marge brute Brightwell\n2024", "et la marge brute ?", CA, "multi_line"),
        # A runaway generation on one line.
        (" ".join(["enterprise plan SLA P2 incidents"] * 12), "and for P2?", SLA, "too_long"),
        (" ".join(["marge brute Brightwell 2024"] * 20), "et la marge brute ?", CA, "too_long"),
        # The previous question back, word for word: the new terms are gone.
        (SLA, "and for P2?", SLA, "copy_of_previous"),
        (f'"{CA}"', "et la marge brute ?", CA, "copy_of_previous"),
        # Something else, still without the new terms.
        ("enterprise support hours", "and for P2?", SLA, "dropped_new_terms"),
        ("résultat net de Brightwell 2024", "et la marge brute ?", CA, "dropped_new_terms"),
        ("  ", "and for P2?", SLA, "empty"),
        ('"?"', "et la marge brute ?", CA, "empty"),
    ],
)
def test_a_bad_rewrite_is_rejected_with_its_reason(rewrite, question, previous, reason):
    assert check(rewrite, question, previous)[1] == reason


@pytest.mark.parametrize(
    ("rewrite", "question", "previous", "titles", "query"),
    [
        ("enterprise plan SLA for P2", "and for P2?", SLA, (), "enterprise plan SLA for P2"),
        (
            '"Samsung Galaxy A55 5G"',
            "Tell me more about the Samsung one",
            PHONES,
            (SAMSUNG,),
            SAMSUNG,
        ),
        (
            "marge brute de Brightwell en 2024",
            "et la marge brute ?",
            CA,
            (),
            "marge brute de Brightwell en 2024",
        ),
        # "Tell me more" has no content term of its own: the previous question is fine.
        (SLA, "Tell me more", SLA, (), SLA),
    ],
)
def test_a_good_rewrite_is_kept(rewrite, question, previous, titles, query):
    assert check(rewrite, question, previous, titles) == (query, None)


def test_a_phrase_the_conversation_itself_uses_is_no_chatter():
    previous = "Which virtual assistant does the Fleet Portal include?"
    rewrite = "Fleet Portal virtual assistant price"
    assert check(rewrite, "and its price?", previous)[1] is None
    assert check("Sure, Fleet Portal assistant price", "and its price?", previous)[1] == "chatter"


# --- the reformulate step with a fake model ---------------------------------------------


def followup_state(question: str, previous: str) -> State:
    return State(
        query=question,
        route="followup_context",
        followup=TurnFollowup(detected=True, ref_type="context"),
        history=[{"question": previous, "search_query": previous, "titles": [], "answer": ""}],
        thread_state=ThreadState(last_search_query=previous),
    )


def reformulate_with(reply: str, question: str, previous: str) -> dict:
    # A second response the step must never reach (the fake cycles back after the last).
    model = FakeListChatModel(responses=[reply, "never asked"])
    services = SimpleNamespace(llm=model, settings=Settings(_env_file=None))
    update = reformulate_turn(followup_state(question, previous), services, Context())
    assert update["llm_calls"] == 1 and model.i == 1  # one call, whatever came back
    return update


def test_a_rejected_rewrite_falls_back_to_the_condensation_and_says_why():
    update = reformulate_with("I'm sorry, as an AI I cannot do that.", "and for P2?", SLA)
    assert update["reformulated_query"].startswith("and for P2?")
    assert "enterprise" in update["reformulated_query"]
    assert update["followup"].method == "heuristic"
    (trace,) = update["trace"]
    assert trace["node"] == "reformulate" and trace["llm_rewrite_rejected"] == "refusal"
    assert trace["query"] == update["reformulated_query"]


def test_a_copy_of_the_previous_question_falls_back_in_french_too():
    update = reformulate_with(CA, "et la marge brute ?", CA)
    assert update["trace"][0]["llm_rewrite_rejected"] == "copy_of_previous"
    assert update["reformulated_query"].startswith("et la marge brute ?")


def test_a_good_rewrite_is_searched_as_the_model_wrote_it():
    update = reformulate_with('"enterprise plan SLA for P2"', "and for P2?", SLA)
    assert update["reformulated_query"] == "enterprise plan SLA for P2"
    assert update["followup"].method == "llm"
    assert "llm_rewrite_rejected" not in update["trace"][0]


# --- attribution of an answer without markers -------------------------------------------

CHUNKS = {
    "1": {"title": "Plans", "section": "Basic", "text": "The Basic plan costs $29 per month."},
    "2": {
        "title": "SLA",
        "section": "Enterprise",
        "text": "The Enterprise plan guarantees 99.95% monthly uptime.",
    },
}


def test_sentences_without_markers_are_cited_to_the_passage_that_supports_them():
    report = attribute_sentences(
        "The Enterprise plan guarantees 99.95% uptime. The Basic plan costs $29 a month.", CHUNKS
    )
    assert report.text == (
        "The Enterprise plan guarantees 99.95% uptime. [2] The Basic plan costs $29 a month. [1]"
    )
    assert report.attributed == 2 and report.dropped == []
    # What attribution cites, the support check keeps.
    assert support_check(report.text, CHUNKS).text == report.text


def test_an_unsupported_sentence_is_dropped_or_kept_uncited_per_policy():
    body = "- The Basic plan costs $29 per month.\n- Dragons guard the enterprise vault."
    dropped = attribute_sentences(body, CHUNKS)
    assert dropped.text == "- The Basic plan costs $29 per month. [1]"
    assert dropped.attributed == 1
    assert dropped.dropped == ["- Dragons guard the enterprise vault."]
    uncited = attribute_sentences(body, CHUNKS, "uncite")
    assert uncited.text.endswith("\n- Dragons guard the enterprise vault.")


def test_an_answer_nothing_supports_attributes_nothing():
    report = attribute_sentences("Sure! Unicorns certify every datacentre quarterly.", CHUNKS)
    assert report.text == "" and report.attributed == 0
    assert report.dropped == ["Sure!", "Unicorns certify every datacentre quarterly."]


# --- the answer prompt a small model reads ----------------------------------------------


def test_the_answer_prompt_numbers_sources_and_shows_the_format_in_the_answer_language():
    parts = AnswerPrompt(
        sources=[PromptSource("1", "Rapport", "Marges", "La marge brute atteint 27,4 %.")],
        question="et la marge brute ?",
        language="fr",
    )
    text = render_answer_prompt(parts)
    assert '[1] <source id="1"' in text
    assert text.endswith(
        '<answer_format language="fr">\nWrite the answer in French. End every sentence with '
        "the number of the source it comes from, in square brackets.\n"
        "Example: Un fait tiré de la source 2. [2] Un autre fait, tiré de la source 1. [1]\n"
        "</answer_format>"
    )
    assert parse_answer_prompt(text) == parts
    # The copied example is no answer: no passage supports it.
    example = "A fact taken from source 2. [2] Another fact, from source 1. [1]"
    assert support_check(example, CHUNKS).text == ""


PLAIN = prompts.AnswerTurn()


def rendered(turn: prompts.AnswerTurn, language: str = "en") -> str:
    return prompts.answer_system_prompt(
        prompts.ANSWER_SYSTEM_PROMPT, turn, language=language, keyword="SUIVI"
    )


def test_a_plain_turns_prompt_shows_no_rule_about_what_it_does_not_have():
    system = rendered(PLAIN)
    assert "SUIVI" not in system and "[S1]" not in system  # no outline asked
    assert "followup_reference" not in system
    assert "translate" not in system
    assert "bullet" not in system
    assert "kind of fact:" not in system
    # What applies to every turn is still said.
    assert "Cite only ids that appear in <context>" in system
    assert "Answer in the language of the question (en)." in system


@pytest.mark.parametrize(
    ("turn", "shown"),
    [
        (prompts.AnswerTurn(deliverable=True), "SUIVI\n[S1] <short title"),
        (prompts.AnswerTurn(reference=True), "<followup_reference> names the section"),
        (prompts.AnswerTurn(listed=True), "one bullet per relevant source"),
        (prompts.AnswerTurn(answer_type="price"), "kind of fact: price."),
        (prompts.AnswerTurn(other_language=True), "translate what you use from them"),
    ],
)
def test_each_rule_is_shown_on_the_turns_it_applies_to(turn, shown):
    assert shown in rendered(turn, "fr")
    assert shown not in rendered(PLAIN, "fr")


def test_a_runs_own_system_prompt_is_filled_in_as_before():
    own = "Answer in {language}; outlines start with {keyword}."
    assert prompts.answer_system_prompt(own, PLAIN, language="fr", keyword="SUIVI") == (
        "Answer in fr; outlines start with SUIVI."
    )


def test_sources_in_another_language_than_the_answers_are_told_apart():
    english = [
        PromptSource("1", "Security handbook", "", "Report a lost laptop to IT within one hour.")
    ]
    french = [
        PromptSource(
            "1", "Rapport annuel", "", "Le chiffre d'affaires atteint 486,3 millions de dollars."
        )
    ]
    assert in_other_languages(english, "fr") and in_other_languages(french, "en-GB")
    assert not in_other_languages(english, "en") and not in_other_languages(french, "fr")


def test_words_a_passage_holds_apart_are_no_sentence_it_supports():
    # SmolLM2's "partial" answers to « et le week-end ? » and « Quel est le chiffre
    # d'affaires 2024 ? »: one word copied from the annual report, or two from different
    # places of it (its heading's "financiers", a sentence's "nettement").
    results = {
        "3": {
            "title": "Rapport annuel 2024 de Brightwell",
            "section": "Résultats financiers",
            "text": "La marge des contrats de support est nettement supérieure. "
            "Brightwell prévoit enfin de recruter environ 300 personnes en 2025.",
        }
    }
    for junk in ("enfin de la question", "financier nettement de la question"):
        report = attribute_sentences(junk, results)
        assert report.text == "" and report.dropped == [junk]
    # What one of its sentences says is cited, as before.
    kept = attribute_sentences("Brightwell recrutera 300 personnes.", results)
    assert kept.text == "Brightwell recrutera 300 personnes. [3]"
