"""What happened and what was aimed at: a target is no result, money made is revenue."""

from __future__ import annotations

import pytest

from threadline.graph.evidence import decide
from threadline.graph.results import stated_of_the_year, years_said_relatively
from threadline.knowledge.facts import (
    asks_what_is_now,
    counted_noun,
    has_answer_type,
    revenue_spelled_out,
    states_count_of,
)
from threadline.text import terms

OUTLOOK = {
    "label": "1",
    "title": "Rapport annuel 2024 de Brightwell",
    "section": "Perspectives 2025",
    "text": "Pour l'exercice 2025, Brightwell vise un chiffre d'affaires compris entre 530 et "
    "545 millions de dollars et une marge opérationnelle d'au moins 8,5 %.",
}
RESULTS = {
    "label": "2",
    "title": "Rapport annuel 2024 de Brightwell",
    "section": "Résultats financiers",
    "text": "Le chiffre d'affaires 2024 de Brightwell s'élève à 486,3 millions de dollars, "
    "contre 435,0 millions de dollars en 2023.",
}


@pytest.mark.parametrize(
    ("question", "language"),
    [
        ("What was the revenue in 2025?", "en"),
        ("Quel a été le chiffre d'affaires en 2025 ?", "fr"),
    ],
)
def test_a_target_is_what_the_passages_state_of_a_year_asked_in_the_past(question, language):
    stated = stated_of_the_year(question, terms(question), [OUTLOOK, RESULTS], language)
    assert stated == ("aim", OUTLOOK["text"])


@pytest.mark.parametrize(
    "question",
    [
        "What was the revenue in 2024?",  # a result is stated of 2024
        "What was the revenue target for 2025?",  # the aim is what is asked
        "What is the revenue for 2025?",  # the present asks what the document says
        "What was the revenue?",  # no year: the answer chooses the result (extractive)
    ],
)
def test_no_aim_stands_in_for_a_result_otherwise(question):
    assert stated_of_the_year(question, terms(question), [OUTLOOK, RESULTS], "en")[0] != "aim"


def test_a_year_no_sentence_states_the_thing_asked_of_is_nothing_stated():
    # The results passage holds 2023 (the revenue before) and the net income (of 2024).
    results = {
        **RESULTS,
        "text": f"{RESULTS['text']} Le résultat net atteint 27,1 millions de dollars.",
    }
    question = "What was the net income in 2023?"
    assert stated_of_the_year(question, ["net", "incom"], [results], "en") == ("none", "")
    evidence = decide(question, [results], language="en")
    assert evidence.verdict == "not_in_documents"
    assert evidence.reason == "nothing_stated_of_the_year"
    assert decide("What was the revenue in 2023?", [results], language="en").verdict == "answer"


def test_a_name_written_out_is_stated_of_the_year_by_its_initials():
    # "NPS" is the "Net Promoter Score" the 2024 report states; the sentence also names
    # 2023 (the CSAT before), and was read as saying nothing of the NPS in 2024.
    service = {
        "label": "1",
        "title": "Rapport annuel 2024 de Brightwell",
        "section": "Service client",
        "text": "La satisfaction client (CSAT) du support Brightwell a atteint 91 %, contre "
        "88 % en 2023, et le Net Promoter Score est passé de 41 à 48.",
    }
    assert stated_of_the_year("What was the NPS in 2024?", ["nps"], [service], "en") == (
        "result",
        "",
    )


@pytest.mark.parametrize(
    ("question", "language"),
    [("Quel est le résultat net 2023 ?", "fr"), ("What is the net income in 2023?", "en")],
)
def test_a_year_asked_of_in_the_present_tense_is_the_year_asked_too(question, language):
    # The year a question names is what it asks of, whatever its tense: the 2024 net
    # income was quoted for "Quel est le résultat net 2023 ?".
    results = {
        **RESULTS,
        "text": f"{RESULTS['text']} Le résultat net atteint 27,1 millions de dollars.",
    }
    evidence = decide(question, [results], language=language)
    assert evidence.verdict == "not_in_documents"
    assert evidence.reason == "nothing_stated_of_the_year"
    assert (
        decide("Quel est le chiffre d'affaires 2023 ?", [results], language="fr").verdict
        == "answer"
    )


def test_the_evidence_check_declines_a_result_the_passages_only_aim_at():
    evidence = decide("What was the revenue in 2025?", [OUTLOOK, RESULTS], language="en")
    assert evidence.verdict == "not_in_documents"
    assert evidence.reason == "no_result_only_an_aim"
    assert evidence.aim == OUTLOOK["text"]
    assert decide("What was the revenue in 2024?", [OUTLOOK, RESULTS], language="en").verdict == (
        "answer"
    )


@pytest.mark.parametrize(
    ("question", "spelled"),
    [
        ("how much did Brightwell make in 2024?", "how much revenue did Brightwell make in 2024?"),
        ("How much money did Acme Corp earn?", "How much revenue did Acme Corp earn?"),
        (
            "Combien Brightwell a-t-il gagné en 2024 ?",
            "combien Brightwell a-t-il gagné en chiffre d'affaires en 2024 ?",
        ),
        # The subject after the verb, asked in the past as the direct form is.
        (
            "Combien a gagné Brightwell en 2024 ?",
            "combien Brightwell a-t-il gagné en chiffre d'affaires en 2024 ?",
        ),
        ("Combien a gagné le client ?", "Combien a gagné le client ?"),
        # A person's pay, and the user's own, stay as asked.
        ("How much does a support engineer make?", "How much does a support engineer make?"),
        ("how much did I make last year?", "how much did I make last year?"),
    ],
)
def test_money_a_company_made_is_its_revenue(question, spelled):
    assert revenue_spelled_out(question) == spelled


@pytest.mark.parametrize(
    "text",
    ["486,3 millions de dollars", "2 million euros", "1,2 milliard d'euros", "$2.5 million"],
)
def test_an_amount_with_its_magnitude_is_money(text):
    assert has_answer_type("price", text) and has_answer_type("pay", text)


def test_a_magnitude_without_a_currency_is_no_money():
    assert not has_answer_type("pay", "5 millions de clients")


def test_a_sentence_is_of_the_year_its_title_names():
    # "La satisfaction client (CSAT) ... a atteint 91 %" names no year; the report is 2024's.
    service = {
        "label": "4",
        "title": "Rapport annuel 2024 de Brightwell",
        "section": "Service client",
        "text": "La satisfaction client (CSAT) du support a atteint 91 %, contre 88 % en 2023.",
    }
    assert stated_of_the_year("What was the CSAT in 2024?", ["csat"], [service], "en")[0] == (
        "result"
    )


def test_a_revenue_spelled_out_in_french_is_no_count():
    # "combien de chiffre d'affaires" counted "chiffre": the outlook's "entre 530 et 545
    # millions" was the one sentence left to quote for "Combien Brightwell a-t-il gagné ?".
    assert counted_noun(revenue_spelled_out("Combien Brightwell a-t-il gagné en 2024 ?")) is None


@pytest.mark.parametrize(
    ("question", "now"),
    [
        ("How many stores does Brightwell have?", True),
        ("Combien de magasins a Brightwell ?", True),
        ("How many stores did Brightwell have?", False),
        ("How many stores will Brightwell open?", False),
        ("Combien de magasins Brightwell aura-t-il ?", False),
        ("What is the store target?", False),
    ],
)
def test_a_question_asks_what_is_now_unless_past_future_or_aimed(question, now):
    assert asks_what_is_now(question) is now


def test_a_number_counts_a_noun_of_its_own_clause():
    # "dont 1 230 en magasin, 520 au service client": "magasin, 520" is no store count.
    staff = "2 140 collaborateurs, dont 1 230 en magasin, 520 au service client."
    assert not states_count_of(staff, set(terms("magasins")))
    assert states_count_of("son réseau à 38 magasins", set(terms("magasins")))
    assert states_count_of("a headcount of 2,140", set(terms("headcount")))


STAFF = {
    "label": "3",
    "title": "Rapport annuel 2024 de Brightwell",
    "section": "Ressources humaines",
    "text": "Au 31 décembre 2024, Brightwell Devices comptait 2 140 collaborateurs, contre "
    "1 960 un an plus tôt, dont 1 230 en magasin.",
}


def test_a_year_said_relative_to_the_sentences_own_is_stated():
    # "1 960 un an plus tôt" in a sentence of 2024 is 2023's staff: the question was
    # declined as nothing stated of 2023.
    assert years_said_relatively(STAFF) == {"2023"}
    question = "How many employees did Brightwell have in 2023?"
    assert stated_of_the_year(question, ["employe"], [STAFF], "en") == ("result", "")
    evidence = decide(question, [RESULTS, STAFF], language="en")
    assert evidence.verdict == "answer" and "3" in evidence.supporting
    # Two years back is no year the passage speaks of.
    assert stated_of_the_year(question.replace("2023", "2022"), ["employe"], [STAFF], "en") == (
        "none",
        "",
    )


def test_a_passage_is_read_once_and_each_reading_is_a_copy_of_its_own(monkeypatch):
    from threadline.graph import evidence

    read: list[str] = []

    def counted(passage):
        read.append(str(passage["text"]))
        return years_said_relatively(passage)

    monkeypatch.setattr(evidence, "years_said_relatively", counted)
    evidence.passage_vocabulary.cache_clear()
    passage = {**STAFF, "text": STAFF["text"] + " Lu une fois."}  # no other test's passage
    first, _, _ = evidence.read_passages([passage], None)
    first["3"].add("ajoute")  # a caller's additions (translations) stay its own
    second, _, _ = evidence.read_passages([passage], "fr")
    assert len(read) == 1  # the follow-up's second reading reuses the first
    assert "2023" in second["3"] and "ajoute" not in second["3"]
    # What is remembered is what reading it afresh gives.
    evidence.passage_vocabulary.cache_clear()
    fresh, _, _ = evidence.read_passages([passage], "fr")
    assert fresh == second and len(read) == 2
