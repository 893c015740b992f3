"""An elliptical follow-up ("and X?") is the previous question asked of X."""

from __future__ import annotations

import pytest

from threadline.graph.condensation import PreviousTurn
from threadline.graph.ellipsis import (
    corrected_name,
    read_ellipsis,
    substituted_question,
    with_the_year_meant,
)
from threadline.graph.picked import picked_by_the_answer
from threadline.graph.reformulation import query_variants


@pytest.mark.parametrize(
    ("previous", "message", "meant"),
    [
        # A name of the same shape: a word for a word, a code for a code.
        (
            "Quel est le SLA du plan Business ?",
            "Et pour le plan Enterprise ?",
            "Quel est le SLA du plan Enterprise ?",
        ),
        (
            "How much does the Basic plan cost?",
            "and Business?",
            "How much does the Business plan cost?",
        ),
        (
            "What is the SLA of the Business plan?",
            "and Basic?",
            "What is the SLA of the Basic plan?",
        ),
        (
            "What is the response time for P1 on the Business plan?",
            "and on Enterprise?",
            "What is the response time for P1 on the Enterprise plan?",
        ),
        (
            "What is the response time for P1 on the Business plan?",
            "and P2?",
            "What is the response time for P2 on the Business plan?",
        ),
        (
            "Quelle est la garantie du Pixel 8a ?",
            "Et celle de l'iPhone 15 ?",
            "Quelle est la garantie du iPhone 15 ?",
        ),
        (
            "What is the warranty on the Dell XPS 13?",
            "and the MacBook Air?",
            "What is the warranty on the MacBook Air?",
        ),
        # The noun phrase holding the same noun.
        (
            "How many devices does the Basic plan cover?",
            "And the Enterprise plan?",
            "How many devices does the Enterprise plan cover?",
        ),
        # The noun group after the same possessive or plural determiner.
        (
            "Comment chiffrer mon ordinateur portable ?",
            "Et sur mon téléphone ?",
            "Comment chiffrer mon téléphone ?",
        ),
        (
            "Quelle est la part des smartphones dans le chiffre d'affaires ?",
            "Et les ordinateurs portables ?",
            "Quelle est la part des ordinateurs portables dans le chiffre d'affaires ?",
        ),
        # A model for the one model among the names: the feature asked is no model.
        ("Does the iPhone 15 have USB-C?", "et le Galaxy S24 ?", "Does the Galaxy S24 have USB-C?"),
        # A sibling kind of the catalog's for the other, in its number: the fee to return
        # is what is still asked ("and for laptops?" led with the lost-device rule).
        (
            "is there a fee to return a phone?",
            "and for laptops?",
            "is there a fee to return a laptop?",
        ),
        (
            "Y a-t-il des frais pour retourner un téléphone ?",
            "et pour les ordinateurs portables ?",
            "Y a-t-il des frais pour retourner un ordinateur portable ?",
        ),
        ("What is the warranty on laptops?", "and phones?", "What is the warranty on phones?"),
        # An elided article before a name opening with a consonant is written out (the
        # search query read "Parle-moi de l'Galaxy S24").
        ("Parle-moi de l'iPhone 15", "et le Galaxy S24 ?", "Parle-moi du Galaxy S24"),
    ],
)
def test_the_message_replaces_the_part_of_the_previous_question_it_aligns_with(
    previous, message, meant
):
    assert substituted_question(message, previous) == meant


@pytest.mark.parametrize(
    ("previous", "message"),
    [
        ("Detail S4", "What about refunds?"),  # nothing of the same form to replace
        ("Quels sont les horaires du support ?", "Et le week-end ?"),
        ("Tell me about the Pixel 8", "and what is the price?"),  # a clause of its own
        ("Does the iPhone 15 have USB-C?", "and the Zenbook?"),  # a name: two of its shape
        ("How much does the Basic plan cost?", "What does the Business plan include?"),
        # The noun both ask about ("objectifs") is no part that changes.
        (
            "Quels sont les objectifs scientifiques de la mission prolongée Deep Impact ?",
            "et l'objectif de la mission Deep Impact ?",
        ),
    ],
)
def test_other_messages_are_no_ellipsis_of_the_previous_question(previous, message):
    assert substituted_question(message, previous) is None


def test_an_ellipsis_is_a_connective_and_a_short_phrase():
    assert read_ellipsis("Et pour le plan Enterprise ?").phrase == "pour le plan Enterprise"
    assert read_ellipsis("and on Enterprise?").core == "Enterprise"
    # An article is a word of its own: "laptops" does not open with "la" ("ptops").
    assert read_ellipsis("and for laptops?").core == "laptops"
    assert read_ellipsis("et pour l'iPhone ?").core == "iPhone"
    assert read_ellipsis("Et celle de l'iPhone 15 ?").core == "iPhone 15"
    assert read_ellipsis("and what does it cost?") is None
    assert read_ellipsis("What is the SLA?") is None


def test_the_substituted_question_is_searched_before_the_message():
    previous = PreviousTurn(
        search_query="How much does the Basic plan cost?",
        titles=("Support policy — Support plans",),
        doc_ids=("policy",),
        answer="The Basic plan costs $29 per month.",
        exchanges=(("How much does the Basic plan cost?", "The Basic plan costs $29 per month."),),
    )
    variants = {v.name: v for v in query_variants("and Business?", previous, followup=True)}
    assert variants["substituted"].text == "How much does the Business plan cost?"
    assert variants["substituted"].weight > variants["question"].weight
    # The previous answer is about the Basic plan: it counts less.
    plain = {v.name: v for v in query_variants("and the refunds?", previous, followup=True)}
    assert "substituted" not in plain
    assert variants["answer"].weight < plain["answer"].weight


@pytest.mark.parametrize(
    ("previous", "message", "searched", "meant"),
    [
        # The previous question's plural noun is what "the cheapest one" ranks.
        ("Tell me about the plans", "the cheapest one", "", "What is the cheapest plan?"),
        (
            "What plans do you offer?",
            "and the most expensive?",
            "",
            "What is the most expensive plan?",
        ),
        (
            "Quels plans de support proposez-vous ?",
            "le moins cher ?",
            "",
            "Quel est le plan le moins cher ?",
        ),
        # After "the cheapest one", what it ranked is in the search that turn ran.
        (
            "the cheapest one",
            "and the most expensive?",
            "What is the cheapest plan?",
            "What is the most expensive plan?",
        ),
    ],
)
def test_a_superlative_with_no_noun_ranks_what_the_previous_question_spoke_of(
    previous, message, searched, meant
):
    assert substituted_question(message, previous, searched) == meant


@pytest.mark.parametrize(
    ("previous", "message"),
    [
        ("Tell me about the plans", "the second one"),  # an ordinal, no superlative
        ("What is the SLA?", "the cheapest one"),  # nothing plural to rank
    ],
)
def test_no_superlative_or_no_plural_is_no_ranking_of_the_previous_question(previous, message):
    assert substituted_question(message, previous) is None


def test_a_verb_after_which_is_no_plural_noun_to_rank():
    # "has" is the verb of "which phone has": nothing plural was spoken of.
    assert substituted_question("and the smallest?", "Which phone has the biggest screen?") is None


@pytest.mark.parametrize(
    ("previous", "message", "meant"),
    [
        # A French noun comes first, its adjective after: the laptop, not "le portable".
        (
            "Parle-moi des ordinateurs portables",
            "lequel est le plus léger ?",
            "Quel est l'ordinateur portable le plus léger ?",
        ),
        (
            "tell me about your laptops",
            "which one is the lightest?",
            "What is the lightest laptop?",
        ),
    ],
)
def test_which_one_is_the_x_est_ranks_what_the_previous_question_spoke_of(previous, message, meant):
    assert substituted_question(message, previous) == meant


@pytest.mark.parametrize(
    ("previous", "message", "meant"),
    [
        # A name of a shape the previous question has none of: asked of it.
        (
            "What happens if I miss the SLA?",
            "et pour le plan Basic ?",
            "What happens if I miss the SLA for le plan Basic?",
        ),
        (
            "Quel est le délai pour un P1 ?",
            "and for Basic customers?",
            "Quel est le délai pour un P1 pour Basic customers ?",
        ),
        # The pronoun's place.
        ("is it water resistant?", "and the iPhone?", "is the iPhone water resistant?"),
    ],
)
def test_a_named_thing_the_question_had_no_part_for_is_what_it_is_asked_of(
    previous, message, meant
):
    assert substituted_question(message, previous) == meant


def test_a_named_thing_does_not_take_an_objects_pronoun():
    # "it" is the password: "et le MFA ?" asks about MFA, not how often to change it.
    assert substituted_question("et le MFA ?", "how often must I change it?") is None


@pytest.mark.parametrize(
    ("previous", "searched", "message", "meant"),
    [
        # "and on Enterprise?" after "and P3?" kept the Basic plan's times.
        (
            "and P3?",
            "Quel est le délai de réponse P3 sur le plan Basic ?",
            "and on Enterprise?",
            "Quel est le délai de réponse P3 sur le plan Enterprise ?",
        ),
        (
            "and for phones?",
            "is there a fee to return a phone?",
            "and for laptops?",
            "is there a fee to return a laptop?",
        ),
    ],
)
def test_an_ellipsis_after_an_ellipsis_swaps_in_the_question_it_stood_for(
    previous, searched, message, meant
):
    assert substituted_question(message, previous, searched) == meant


def test_an_ellipsis_after_a_condensed_ellipsis_has_no_question_to_swap_in():
    # The previous ellipsis was searched with words carried after it: no question.
    assert substituted_question("and on Enterprise?", "and P3?", "and P3? (plan basic)") is None


def test_an_ellipsis_after_a_circumstance_changes_the_question_it_continued():
    # "and on weekends?" named no thing: it swapped nothing in "What are the support
    # hours?", which "what about Enterprise customers?" is asked of.
    assert (
        substituted_question(
            "what about Enterprise customers?",
            "and on weekends?",
            "and on weekends? (support hours)",
            "What are the support hours?",
        )
        == "What are the support hours for Enterprise customers?"
    )
    # "and P3?" named a code: what it changed in the question before is not said.
    assert (
        substituted_question(
            "and on Enterprise?", "and P3?", "and P3? (plan basic)", "What is a P1 incident?"
        )
        is None
    )


def test_an_ellipsis_after_a_catalog_lookup_has_no_question_to_swap_in():
    # "and the battery?" was looked up as "Samsung Galaxy S24": "what about the Pixel 8
    # Pro?" became "Samsung Pixel 8 Pro".
    assert (
        substituted_question(
            "what about the Pixel 8 Pro?", "and the battery?", "Samsung Galaxy S24"
        )
        is None
    )


@pytest.mark.parametrize(
    ("message", "previous_question", "meant"),
    [
        ("and the year before?", "what was the revenue last year?", "and in 2023?"),
        ("et l'année d'avant ?", "quel était le chiffre d'affaires l'an dernier ?", "et en 2023 ?"),
        ("and the year after?", "what was the revenue in 2022?", "and in 2023?"),
        # No year said anywhere, or no year asked: as typed.
        ("and the plan?", "what was the revenue last year?", "and the plan?"),
    ],
)
def test_a_year_said_relatively_is_the_year_before_or_after_the_one_discussed(
    message, previous_question, meant
):
    answer = "Le chiffre d'affaires 2024 s'élève à 486,3 millions, contre 435,0 millions en 2023."
    assert with_the_year_meant(message, previous_question, answer) == meant


def test_a_year_said_relatively_with_no_year_before_stays_as_typed():
    assert with_the_year_meant("and the year before?", "what is the SLA?", "99.9%") == (
        "and the year before?"
    )


@pytest.mark.parametrize(
    ("previous", "message", "meant"),
    [
        (
            "How much RAM does the Galaxy S24 have?",
            "no, I meant the Pixel 8 Pro",
            "How much RAM does the Pixel 8 Pro have?",
        ),
        (
            "Quel est le SLA du plan Business ?",
            "non, je voulais dire Enterprise",
            "Quel est le SLA du plan Enterprise ?",
        ),
    ],
)
def test_a_correction_naming_one_name_asks_the_previous_question_of_it(previous, message, meant):
    assert substituted_question(message, previous) == meant


@pytest.mark.parametrize(
    "message",
    ["No, I meant photos in the air.", "no, I meant the Pixel 8 Pro, not the Pixel 8a"],
)
def test_a_correction_saying_more_than_a_name_is_no_name_corrected(message):
    # Narrowed ("photos in the air") or naming what it rejects: searched as a correction.
    assert corrected_name(message) is None


@pytest.mark.parametrize(
    ("message", "question", "answer", "picked"),
    [
        (
            "how much is it per year?",
            "Which support plan includes a Slack channel?",
            "Enterprise plan customers have 24/7 phone support and a private Slack channel.",
            "Enterprise plan",
        ),
        (
            "combien coûte-t-il ?",
            "Quel plan inclut un canal Slack ?",
            "Le plan Enterprise inclut un canal Slack privé.",
            "plan Enterprise",
        ),
        (
            "what's its warranty?",
            "Which phone sold the most?",
            "The Samsung Galaxy A55 5G phone sold the most.",
            "Samsung Galaxy A55 5G phone",
        ),
        # No "it": the message asks of its own words.
        (
            "how much per year?",
            "Which support plan includes a Slack channel?",
            "Enterprise plan",
            None,
        ),
        # No kind chosen by the previous question.
        ("how much is it?", "Does any plan include Slack?", "Enterprise plan customers ...", None),
    ],
)
def test_it_after_a_which_question_is_the_thing_the_answer_picked(
    message, question, answer, picked
):
    assert picked_by_the_answer(message, question, answer) == picked
