"""Which packed passages the offline (quoting) model is shown: the generate node's choice."""

from __future__ import annotations

from threadline.graph.evidence import Evidence
from threadline.graph.nodes.generate import quoted_passages

QUESTION = "I keep seeing the word Kubernetes, but I am not understanding this term"
CHUNKS = [
    {"label": "1", "text": "To see the supported Kubernetes versions, see the version notes."},
    {"label": "2", "text": "Run kubectl to list the Kubernetes nodes of a cluster."},
    {"label": "3", "text": "Kubernetes is an open source platform for managing containers."},
]


def test_a_passage_saying_what_the_word_asked_about_is_is_shown():
    # The check found only the first passage supporting (it holds "see"); the third,
    # about Kubernetes too, says what Kubernetes is and is shown; the second is not.
    evidence = Evidence("answer", "covered", supporting=("1",), about=("1", "2", "3"))
    assert quoted_passages(evidence, CHUNKS, QUESTION) == ["1", "3"]


def test_without_a_definition_asked_only_supporting_passages_follow_the_lead():
    evidence = Evidence("answer", "covered", supporting=("1",), about=("1", "2", "3"))
    assert quoted_passages(evidence, CHUNKS, "Which Kubernetes versions are supported?") == ["1"]
    # None supporting: every passage about the subject is shown.
    assert quoted_passages(Evidence("answer", "covered", about=("2", "3")), CHUNKS, QUESTION) == [
        "2",
        "3",
    ]


def test_passages_ranked_above_a_supporting_one_are_shown_when_none_holds_all_asked():
    # No passage holds every word of the question (coverage below 1): retrieval ranked the
    # second passage above the third, which the check found supporting, so it may say the
    # rest in other words and is shown; the fourth, ranked below, is not.
    chunks = [*CHUNKS, {"label": "4", "text": "Clusters run in several regions."}]
    about = ("1", "2", "3", "4")
    partly = Evidence("answer", "covered", supporting=("3",), about=about, coverage=0.667)
    question = "Which Kubernetes versions are supported?"
    assert quoted_passages(partly, chunks, question) == ["1", "2", "3"]
    # A passage holding every word: only the supporting ones follow the lead.
    wholly = Evidence("answer", "covered", supporting=("3",), about=about, coverage=1.0)
    assert quoted_passages(wholly, chunks, question) == ["1", "3"]


def test_a_passage_saying_the_question_with_synonyms_is_shown():
    # "purchase" is written "buy" in the third passage: with the question's other content
    # word ("preferred") it holds all of it, through a synonym, and is shown after the
    # lead; the second holds only "preferred" and is not. Were the check's decision to
    # read synonyms, it would have found the third supporting: it did not.
    chunks = [
        {"label": "1", "text": "Common stock can be purchased through a broker."},
        {"label": "2", "text": "Preferred dividends are paid before common ones."},
        {"label": "3", "text": "Preferred stock is traded on the market, so you can buy it."},
    ]
    evidence = Evidence(
        "answer",
        "covered",
        supporting=("1",),
        about=("1", "2", "3"),
        coverage=1.0,
        content_terms=("purchas", "prefer"),
    )
    assert quoted_passages(evidence, chunks, "Where to purchase preferred stock?") == ["1", "3"]
