"""A yes/no question whether a named thing is of a quality (issue 11, round 11).

"Is the iPhone 15 waterproof?" over the iPhone's page: its name and model number are two
of the question's three words, a majority, and the page never says waterproof. It was
answered with the page's description; the quality must be written in a passage about the
thing, else the question is declined naming the thing and the quality.
"""

from __future__ import annotations

import pytest

from threadline.graph.evidence import decide
from threadline.graph.polar import is_polar
from threadline.graph.question_terms import named_things
from threadline.graph.replies import decline

IPHONE = {
    "label": "1",
    "title": "Product catalog",
    "section": "Apple iPhone 15",
    "text": (
        "The Apple iPhone 15 is Apple's standard smartphone, sold for $799. The iPhone 15 "
        "phone has a 6.1-inch OLED display, 6 GB of RAM and 128 GB of storage."
    ),
}
GALAXY = {
    "label": "2",
    "title": "Product catalog",
    "section": "Samsung Galaxy A55 5G",
    "text": "The Galaxy A55 suits buyers who want a durable phone with IP67 water resistance.",
}


@pytest.mark.parametrize(
    ("question", "language", "quality"),
    [
        ("Is the iPhone 15 waterproof?", "en", "waterproof"),
        ("Is the iPhone 15 water resistant?", "en", "water resistant"),
        ("Est-ce que l'iPhone 15 est étanche ?", "fr", "étanche"),
    ],
)
def test_a_quality_no_passage_states_is_declined_naming_the_thing(question, language, quality):
    declined = decide(question, [IPHONE, GALAXY], language=language)
    assert declined.verdict == "not_in_documents", declined
    assert declined.reason == "quality_not_stated"
    assert declined.missing_named == ("iPhone 15",) and declined.quality == quality
    text, _ = decline(
        language=language, missing=declined.missing_named, closest=[], quality=quality
    )
    assert "iPhone 15" in text and quality in text


@pytest.mark.parametrize(
    ("question", "language"),
    [
        ("Is the Galaxy A55 water resistant?", "en"),
        ("Est-ce que le Galaxy A55 est étanche ?", "fr"),  # étanche: water-resistant
    ],
)
def test_a_quality_its_passage_states_is_answered(question, language):
    assert decide(question, [IPHONE, GALAXY], language=language).verdict == "answer"


def test_a_judgement_is_no_quality_to_find_written():
    # "important" is what the passage says in its own words of the thing.
    river = {
        "label": "1",
        "title": "Hudson River",
        "section": "",
        "text": "The Hudson River carried most of the state's trade in the 19th century.",
    }
    assert decide("Is the Hudson River important?", [river]).verdict == "answer"


def test_est_ce_que_opens_a_yes_no_question():
    # "est-ce qu\\b" matched only "est-ce qu'": "est-ce que" was read as no yes/no question.
    assert is_polar("Est-ce que l'iPhone 15 est étanche ?")
    assert is_polar("Est-ce qu'il est étanche ?")
    assert not is_polar("Quel est le prix de l'iPhone 15 ?")


def test_a_french_inversion_asks_yes_or_no_unless_an_interrogative_opens_it():
    # Round 12: "L'iPhone 15 est-il étanche ?" was read as no yes/no question.
    assert is_polar("L'iPhone 15 est-il étanche ?")
    assert is_polar("Le plan Basic inclut-il le support par téléphone ?")
    assert is_polar("Ai-je droit à un remboursement ?")
    assert not is_polar("Que se passe-t-il si le SLA n'est pas respecté ?")
    assert not is_polar("Combien coûte-t-il ?")
    assert not is_polar("Pouvez-vous me dire le prix ?")
    assert not is_polar("What does the add-on cost?")


def test_a_french_yes_no_question_typed_fast_or_spoken_asks_yes_or_no():
    # Round 14: "est il" without its hyphen and the spoken "X est étanche ?" were read as
    # no yes/no question, and the phone's description was quoted.
    assert is_polar("l'iphone 15 est il etanche ?")
    assert is_polar("le pixel 8 pro est étanche ?")
    assert not is_polar("le plan basic coute combien ?")
    assert not is_polar("c'est quoi le SLA ?")
    assert not is_polar("le pixel 8 pro est étanche")  # no question mark: a statement


def test_a_name_opening_a_sentence_with_an_inner_capital_is_a_name():
    # "L'iPhone" at the start was read as a sentence's capital: the quality check had
    # no name, and the iPhone's page held "iPhone" as a word asked about.
    assert named_things("L'iPhone 15 est-il étanche ?") == ["L'iPhone", "15"]
    assert named_things("OnePlus 12 price?") == ["OnePlus", "12"]
    assert named_things("Quel est le prix ?") == []
    declined = decide("L'iPhone 15 est-il étanche ?", [IPHONE, GALAXY], language="fr")
    assert declined.reason == "quality_not_stated" and declined.missing_named == ("iPhone 15",)
