"""A name written as capitals joined by "&" ("R&D") must be in the passages, as written."""

from __future__ import annotations

import pytest

from threadline.graph.evidence import decide
from threadline.graph.question_terms import ampersand_names, holds_ampersand_name

CATALOG = {
    "label": "1",
    "title": "Brightwell product catalog 2024",
    "section": "Xiaomi Redmi Note 13 Pro 5G",
    "text": "The Xiaomi Redmi Note 13 Pro 5G is a budget Xiaomi smartphone priced at $349.",
}
LAB = {
    "label": "2",
    "title": "Brightwell annual report",
    "section": "Innovation",
    "text": "Brightwell's R & D budget was $12 million in 2024.",
}


def test_an_ampersand_name_is_one_name():
    assert ampersand_names("What is the R&D budget? And the M & A plans?") == ["R&D", "M&A"]
    assert ampersand_names("Salt & pepper") == []


def test_an_ampersand_name_is_held_with_or_without_spaces():
    assert holds_ampersand_name("R&D", "our r & d teams")
    assert not holds_ampersand_name("R&D", "a budget phone, rated 4 stars (R) by D. Smith")


@pytest.mark.parametrize(
    "question", ["What is the R&D budget?", "How much did Brightwell spend on R&D in 2024?"]
)
def test_a_passage_without_the_ampersand_name_does_not_answer(question):
    # "R&D" gave no term ("r", "d" are too short): the catalog's "budget" phone and
    # "Brightwell" covered the question, and the Xiaomi's price was quoted.
    found = decide(question, [CATALOG], language="en")
    assert (found.verdict, found.reason) == ("not_in_documents", "named_thing_missing")
    assert found.missing_named == ("R&D",)


def test_a_passage_writing_the_ampersand_name_answers():
    assert decide("What is the R&D budget?", [CATALOG, LAB], language="en").verdict == "answer"
