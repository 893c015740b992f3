"""A message that corrects the previous question: read, searched as that question corrected."""

from __future__ import annotations

import pytest

from threadline.followups.anaphora import Correction, read_correction
from threadline.graph.condensation import condense
from threadline.graph.fusion import DEFAULT_FUSION, FusionConfig
from threadline.graph.reformulation import (
    PreviousTurn,
    corrected_query,
    query_variants,
)

PLANES = "who takes photos of planes in the air"
RIVER = "Which is the largest river in America?"
RIVER_ANSWER = "The Mississippi River is the longest river in the United States."
AMERICA = (
    'That was not my question. When I say "America," I\'m referring to the continent, '
    "not the United States of America."
)


@pytest.mark.parametrize(
    ("message", "meant", "rejected"),
    [
        ("No, I meant photos in the air.", "photos in the air", ""),
        (AMERICA, '"America," the continent', "the United States of America"),
        (
            "I meant all those games in general, not specific to the Mars game.",
            "all those games in general",
            "specific to the Mars game",
        ),
        ("Sorry, I was asking about the West branch", "the West branch", ""),
        ("Non, je voulais dire les photos en vol.", "les photos en vol", ""),
        (
            "Je parlais de tous ces jeux en général, pas spécialement du jeu sur Mars",
            "tous ces jeux en général",
            "spécialement du jeu sur Mars",
        ),
        (
            "Ce n'est pas ma question. Quand je dis « Amérique », je parle du continent.",
            "« Amérique », continent",
            "",
        ),
    ],
)
def test_a_correction_is_read_as_what_it_means_and_what_it_rejects(message, meant, rejected):
    assert read_correction(message) == Correction(meant=meant, rejected=rejected)


@pytest.mark.parametrize(
    "message",
    [
        "I do not know how to set up namespaces ...",
        "What is it called outside of the USA?",
        "Not payment",
        "Je ne sais pas comment configurer les espaces de noms ...",
        "Is it similar to rugby, not soccer?",  # a contrast, but no correction formula
        "No problem at all",
        "I'm thinking of buying a house, what should I know?",
        "Je voulais savoir si les frais sont remboursables",
        "Je pense à acheter une maison, que dois-je savoir ?",
    ],
)
def test_a_verbs_negation_or_a_plain_question_corrects_nothing(message):
    assert read_correction(message) is None


def river_turn() -> PreviousTurn:
    return PreviousTurn(
        search_query=RIVER,
        titles=("United States", "Mississippi River"),
        answer=RIVER_ANSWER,
        exchanges=((RIVER, RIVER_ANSWER),),
    )


def test_a_correction_searches_the_previous_question_corrected_above_the_message():
    variants = {v.name: v for v in query_variants(AMERICA, river_turn(), followup=False)}
    corrected = variants["corrected"]
    assert corrected.text == '"America," the continent (largest river)'
    assert corrected.weight == DEFAULT_FUSION.corrected > variants["question"].weight
    assert variants["question"].text == AMERICA  # the message as typed still takes part
    # The answer is what the user did not mean: it counts less than on another turn.
    assert variants["answer"].weight == DEFAULT_FUSION.answer * DEFAULT_FUSION.corrected_answer
    # What the message rejects is carried by no variant: "United States" is the misreading.
    for variant in variants.values():
        carried = variant.text.removeprefix(AMERICA)
        assert "united" not in carried.lower() and "states" not in carried.lower()


def test_another_message_gets_no_corrected_variant_and_a_zero_weight_reads_none():
    plain = query_variants("Is the Amazon longer?", river_turn(), followup=True)
    assert "corrected" not in {v.name for v in plain}
    off = query_variants(AMERICA, river_turn(), followup=True, config=FusionConfig(corrected=0.0))
    assert "corrected" not in {v.name for v in off}
    answer = next(v for v in off if v.name == "answer")
    assert answer.weight == DEFAULT_FUSION.answer


def test_a_french_correction_over_english_documents_is_also_searched_in_translation():
    previous = PreviousTurn(
        search_query="qui prend des photos d'avions en vol",
        answer="In ground-to-air photography, photos of aircraft in flight are taken.",
        exchanges=(
            (
                "qui prend des photos d'avions en vol",
                "In ground-to-air photography, photos of aircraft in flight are taken.",
            ),
        ),
    )
    variants = query_variants(
        "Non, je voulais dire les photos prises depuis un avion.",
        previous,
        followup=False,
        document_languages={"en": 1.0},
    )
    translated = next(v for v in variants if v.name == "corrected_translated")
    assert "photo" in translated.text and "plane" in translated.text
    assert translated.weight == DEFAULT_FUSION.corrected


def test_condense_neither_carries_nor_names_what_a_correction_rejects():
    assert condense("all those games", "Mars game sprites", ["Mars game"], exclude={"mar"}) == (
        "all those games (sprites)"
    )


def test_the_corrected_question_is_the_previous_question_narrowed():
    assert corrected_query("No, I meant photos in the air.", PLANES) == (
        "photos in the air (takes planes)"
    )
    assert corrected_query("Who else takes them?", PLANES) is None
