"""Reading a question as the passages write it: names, editions and noun compounds."""

import pytest

from threadline.graph.anchors import as_the_passages_write_it
from threadline.graph.names import edition_phrases
from threadline.graph.noun_compounds import noun_compound_after


@pytest.mark.parametrize(
    ("question", "texts", "expected"),
    [
        # Every passage writes "Enterprise" as a name: the plan, typed in lower case.
        (
            "what uptime does the enterprise plan get",
            ["The Enterprise plan SLA guarantees 99.95%.", "au-dessus du plan Enterprise, et"],
            "what uptime does the Enterprise plan get",
        ),
        # Also written in lower case: one of several casinos.
        (
            "what about the casino",
            ["the Monte Carlo Casino opened in 1863.", "the casinos of Las Vegas grew."],
            "what about the casino",
        ),
        # The head of a longer name says which kind, not which one.
        (
            "what did the hurricane destroy",
            ["when Hurricane Sandy struck.", "after Hurricane Irene passed."],
            "what did the hurricane destroy",
        ),
        ("tell me about the city", ["It is the City of Auburn."], "tell me about the city"),
        # Inside a title-case name: an award, not an actor.
        (
            "what awards has the actor received",
            ["won the Best Male Actor award.", "for Outstanding Lead Actor in 2001."],
            "what awards has the actor received",
        ),
        # One passage writing it as a name is no name two documents share.
        (
            "what uptime does the enterprise plan get",
            ["The Enterprise plan SLA guarantees 99.95%."],
            "what uptime does the enterprise plan get",
        ),
    ],
)
def test_a_word_the_passages_only_write_as_a_name_is_read_as_that_name(question, texts, expected):
    assert as_the_passages_write_it(question, texts) == expected


@pytest.mark.parametrize(
    ("question", "anchor", "expected"),
    [
        ("what's the screen lock timeout?", "the screen", "screen lock timeout"),
        # A possessive or an adjective is another construction: no compound of nouns.
        ("what is the actor's approach to fitness?", "the actor's", ""),
        ("how big is the modern smart design segment?", "the modern", ""),
        ("what is the screen?", "the screen", ""),
        ("what's the refund policy for laptops?", "the refund", "refund policy"),
    ],
)
def test_a_definite_anchor_runs_on_into_a_compound_of_nouns_only(question, anchor, expected):
    assert noun_compound_after(question, anchor) == expected


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        ("How much does the Galaxy S24 Ultra cost?", ["S24 Ultra"]),
        ("how much is the iphone 15 pro?", ["15 pro"]),
        ("MacBook Air 13", []),
        # A count before a common word is no model number.
        ("does it cover up to 10 plus devices?", []),
    ],
)
def test_an_edition_word_after_a_model_number_is_read_with_it(question, expected):
    assert edition_phrases(question) == expected
