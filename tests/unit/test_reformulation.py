"""Deterministic reformulation: condensation, salient words, query variants and their fusion."""

from __future__ import annotations

import pytest

from support.paths import ROOT
from threadline.graph.fusion import DEFAULT_FUSION, FusionConfig
from threadline.graph.reformulation import (
    PreviousTurn,
    condense,
    previous_turn,
    query_variants,
    recurring_words,
    salient_words,
)
from threadline.graph.retrieval import fuse_rankings
from threadline.knowledge.documents import Chunk
from threadline.knowledge.index import ScoredChunk
from threadline.store.models import ThreadState

SRC = ROOT / "src" / "threadline"

HISTORY = [
    {
        "question": "What happens to Toby at the end of The Office?",
        "search_query": "What happens to Toby at the end of The Office?",
        "titles": ["The Office (U.S. season 9)"],
        "answer": "At the end of The Office, Toby Flenderson moves to Costa Rica. "
        "The documents do not provide specific information about his last day at the office.",
        "route": "standalone",
    },
    {
        "question": "any reason for the series to end?",
        "search_query": "any reason for the series to end? (toby office)",
        "titles": ["The Office (U.S. TV series)"],
        "answer": "The producer Greg Daniels felt that season 9 of The Office was the last "
        "chance; the office series ended after nine seasons.",
        "route": "followup_context",
    },
]
THREAD_STATE = ThreadState(
    last_search_query="any reason for the series to end? (toby office)",
    last_titles=["The Office (U.S. TV series)", ""],
    last_doc_ids=["office-tv", "office-tv", "office-s9"],
)


def chunk(doc: str, pos: int = 0) -> Chunk:
    return Chunk(f"{doc}:{pos}", doc, doc.title(), "", pos, "text", "src")


def scored(doc: str, score: float, pos: int = 0) -> ScoredChunk:
    return ScoredChunk(chunk(doc, pos), score)


# --- condensation -----------------------------------------------------------------------


def test_condense_carries_salient_terms_after_the_question():
    query = condense("and for P2?", "What SLA applies to the enterprise plan?", [])
    assert query.startswith("and for P2?")
    carried = query[len("and for P2?") :]
    assert {"sla", "enterprise", "plan"} <= set(carried.strip(" ()").split())


def test_condense_keeps_the_questions_terms_and_does_not_repeat_them():
    query = condense("Which plan covers P2 incidents?", "enterprise plan SLA", [])
    assert query.startswith("Which plan covers P2 incidents?")
    assert query.count("plan") == 1  # already the question's own: not carried again
    assert "enterprise" in query and "sla" in query


def test_condense_ignores_request_words():
    query = condense("and the price?", "Can you tell me more about the warranty, please?", [])
    assert "warranty" in query
    for word in ("tell", "more", "please", "can"):
        assert word not in query.split("(")[1]


def test_condense_names_the_title_a_follow_up_points_to():
    titles = ["Apple iPhone 15", "Samsung Galaxy A55 5G"]
    query = condense("Tell me more about the Samsung one", "phones under 500", titles)
    assert query == "Samsung Galaxy A55 5G — Tell me more about the Samsung one"


@pytest.mark.parametrize(
    ("question", "title"),
    [
        ("Are there any other river systems?", "Penobscot River"),
        ("another river system?", "Penobscot River"),
        ("d'autres rivières ?", "Rivières du Maine"),
    ],
)
def test_condense_names_no_title_when_the_message_asks_for_others(question, title):
    query = condense(question, "where does the penobscot river start", [title])
    assert f"{title} —" not in query and query.startswith(question)


def test_condense_still_names_the_title_other_words_point_to():
    titles = ["Apple iPhone 15", "Samsung Galaxy A55 5G"]
    query = condense("What other features does the Samsung one have?", "phones", titles)
    assert query.startswith("Samsung Galaxy A55 5G — ")
    query = condense("what else is on the Penobscot?", "penobscot river", ["Penobscot River"])
    assert query.startswith("Penobscot River — ")


def test_condense_chains_stay_bounded():
    query = "and the rest?"
    for turn in range(30):
        query = condense("and the rest?", f"{query} topic{turn}", [])
    assert len(query.split("(")[1].split()) <= 12


def test_condense_without_history_is_the_question():
    assert condense("  What is an ETF?  ", None, []) == "What is an ETF?"


def test_salient_words_drop_answer_filler_and_rank_by_frequency():
    answer = (
        "The documents do not provide specific information about dividends. "
        "Dividends are taxed; qualified dividends are taxed at capital gains rates."
    )
    words = salient_words(answer, limit=3, by_frequency=True)
    assert words[:2] == ["dividends", "taxed"]
    assert not {"documents", "provide", "specific", "information"} & set(words)


def test_recurring_words_are_the_ones_several_messages_share():
    exchanges = [(t["question"], t["answer"]) for t in HISTORY]
    words = recurring_words(exchanges, limit=4)
    assert {"office", "series"} <= set(words)  # said in several messages
    assert "toby" in recurring_words(exchanges, limit=8)
    assert "costa" not in words  # said once: a detail, not the topic
    assert (
        recurring_words(exchanges, limit=4, exclude={"offic"})
        == [w for w in recurring_words(exchanges, limit=5) if w != "office"][:4]
    )


# --- query variants ---------------------------------------------------------------------


def test_first_turn_searches_the_question_alone():
    variants = query_variants("What is an ETF?", None, followup=False)
    assert [(v.name, v.text) for v in variants] == [("question", "What is an ETF?")]


def test_follow_up_variants_keep_the_question_dominant():
    previous = previous_turn(HISTORY, THREAD_STATE)
    variants = query_variants("any awards?", previous, followup=True)
    names = [v.name for v in variants]
    assert names[0] == "question" and variants[0].text == "any awards?"
    assert {"condensed", "answer", "recurring"} <= set(names)
    assert all(v.text.startswith("any awards?") for v in variants)
    top = max(v.weight for v in variants)
    assert variants[0].weight == top and all(v.weight < top for v in variants[1:])
    recurring = next(v for v in variants if v.name == "recurring")
    assert "office" in recurring.text and "series" in recurring.text


def test_carried_words_never_repeat_the_questions_own_terms():
    previous = previous_turn(HISTORY, THREAD_STATE)
    variants = query_variants("Which office season won awards?", previous, followup=True)
    carried = [v for v in variants if v.name in ("answer", "recurring")]
    assert len(carried) == 2
    for variant in carried:
        assert variant.text.lower().count("office") == 1


def test_standalone_scale_and_zero_weights_leave_variants_out():
    previous = previous_turn(HISTORY, THREAD_STATE)
    config = FusionConfig(standalone=0.0)
    variants = query_variants("any awards?", previous, followup=False, config=config)
    assert [v.name for v in variants] == ["question"]
    config = FusionConfig(answer=0.0, recurring=0.0)
    names = [v.name for v in query_variants("any awards?", previous, followup=True, config=config)]
    assert names == ["question", "condensed"]


def test_an_llm_rewrite_is_one_more_variant():
    previous = previous_turn(HISTORY, THREAD_STATE)
    rewrite = "Did The Office win any awards?"
    variants = query_variants("any awards?", previous, followup=True, llm_rewrite=rewrite)
    llm = next(v for v in variants if v.name == "llm")
    assert llm.text == rewrite and llm.weight == DEFAULT_FUSION.llm


def test_previous_turn_reads_the_thread_state_not_document_text():
    previous = previous_turn(HISTORY, THREAD_STATE)
    assert previous is not None
    assert previous.titles == ("The Office (U.S. TV series)",)  # empty titles dropped
    assert previous.doc_ids == ("office-tv", "office-s9")  # deduplicated, in order
    assert previous.answer == HISTORY[-1]["answer"]
    assert previous_turn([], THREAD_STATE) is None


def test_variants_are_deterministic():
    previous = previous_turn(HISTORY, THREAD_STATE)
    runs = {tuple(query_variants("any awards?", previous, followup=True)) for _ in range(5)}
    assert len(runs) == 1
    again = PreviousTurn(**previous.__dict__)
    assert query_variants("any awards?", again, followup=True) == list(runs.pop())


# --- fusion ---------------------------------------------------------------------------


def test_fusion_weights_the_rankings():
    question = [scored("a", 0.9), scored("b", 0.8)]
    variant = [scored("b", 0.7), scored("c", 0.6)]
    fused = fuse_rankings([(1.0, question), (0.5, variant)])
    assert [c.chunk.doc_id for c in fused] == ["b", "a", "c"]
    assert fused[0].score == 0.8  # the best engine score survives, for min_score
    fused = fuse_rankings([(1.0, question), (0.01, variant)])
    assert [c.chunk.doc_id for c in fused] == ["a", "b", "c"]


def test_fusion_orders_engine_ties_by_chunk_id():
    one = fuse_rankings([(1.0, [scored("z", 0.5), scored("m", 0.5), scored("a", 0.9)])])
    other = fuse_rankings([(1.0, [scored("m", 0.5), scored("a", 0.9), scored("z", 0.5)])])
    assert [c.chunk.doc_id for c in one] == [c.chunk.doc_id for c in other] == ["a", "m", "z"]


def test_prior_reorders_only_what_a_query_found():
    ranking = [scored("a", 0.9), scored("b", 0.8)]
    fused = fuse_rankings([(1.0, ranking)], prior=["b", "x"], prior_weight=1.0)
    assert [c.chunk.doc_id for c in fused] == ["b", "a"]


# --- the benchmark's promise -------------------------------------------------------------


@pytest.mark.parametrize("field", ["gold_rewrite"])
def test_no_code_reads_the_human_rewrite(field):
    offenders = [p for p in SRC.rglob("*.py") if field in p.read_text(encoding="utf-8")]
    assert offenders == []
