"""The ceilings analysis of the answers benchmark: its pure scoring, on the benchmark's scorer."""

from __future__ import annotations

import pytest

from benchmarks.answers_ceilings import (
    first_words,
    holds_gold,
    length_summary,
    load_scorer,
    markdown,
    sentence_windows,
    summarise,
    task_record,
    window_ceiling,
)
from support.paths import SHARED_BENCH

SCORE_PY = SHARED_BENCH / "answers" / "score.py"
pytestmark = pytest.mark.skipif(not SCORE_PY.exists(), reason="the shared benchmark is absent")

PASSAGE = (
    "Roses are shrubs of the genus Rosa. Prune roses in late winter. "
    "Cut above an outward facing bud. Roses need six hours of sun."
)


@pytest.fixture(scope="module")
def scorer():
    return load_scorer(SCORE_PY)


def test_windows_are_runs_of_whole_sentences_within_the_word_cap():
    windows = sentence_windows(PASSAGE, 12)
    texts = [w[0] for w in windows]
    assert "Prune roses in late winter." in texts
    assert "Prune roses in late winter. Cut above an outward facing bud." in texts
    # Three sentences are 16 words: past the cap, so never one window.
    assert not any(w[2] == 3 for w in windows)
    assert all(w[1] <= 12 or w[2] == 1 for w in windows)
    # Nothing cut inside a sentence.
    assert not any(t.endswith("late") or t.startswith("winter") for t in texts)


def test_a_sentence_longer_than_the_cap_is_a_window_of_its_own():
    long = " ".join(["word"] * 30) + "."
    windows = sentence_windows(f"{long} Short one.", 10)
    assert (long, 30, 1) in windows
    assert all(w[2] == 1 for w in windows)


def test_the_oracle_window_is_the_best_scoring_one_per_cap(scorer):
    references = ["Prune roses in late winter, above an outward facing bud."]
    best = window_ceiling([PASSAGE], references, scorer.rouge_l, caps=(6, 12))
    # Under 6 words only single sentences fit; under 12 the two pruning sentences do.
    assert best.score[6] == pytest.approx(
        scorer.rouge_l("Prune roses in late winter.", references[0])
    )
    assert best.score[12] == pytest.approx(
        scorer.rouge_l(
            "Prune roses in late winter. Cut above an outward facing bud.", references[0]
        )
    )
    assert best.score[12] > best.score[6]
    assert best.words[12] == 11


def test_gold_and_prefix_helpers():
    assert holds_gold(["a", "b"], ["b", "z"])
    assert not holds_gold(["a"], ["z"])
    assert not holds_gold([], ["z"])
    assert first_words("one two  three four", 2) == "one two"
    stats = length_summary([10, 20, 30, 40])
    assert stats["n"] == 4 and stats["mean"] == 25.0 and stats["median"] == 25.0
    assert length_summary([])["n"] == 0


def _task(task_id, gold, label="ANSWERABLE"):
    return {
        "task_id": task_id,
        "domain": "garden",
        "labels": {"answerability": label},
        "references": ["Prune roses in late winter."],
        "gold_passage_ids": gold,
    }


def test_a_task_record_reads_packed_retrieved_cited_and_the_decision(scorer):
    passages = {"g-1": PASSAGE, "x": "Tomatoes are pruned in summer."}
    answered = task_record(
        _task("t1", ["g-1"]),
        {
            "outcome": "grounded_answer",
            "answer": "Prune roses in late winter. [1]",
            "cited_doc_ids": ["g-1"],
        },
        retrieved=["x", "a", "b", "c", "d", "e", "g-1"],
        packed=[("x", passages["x"]), ("g-1", PASSAGE)],
        passages=passages,
        scorer=scorer,
    )
    assert answered.answered and answered.cite_hit and answered.gold_packed
    assert not answered.gold_top5 and answered.gold_top10
    # Scored as the benchmark scores it: the citation marker is a token of the answer.
    assert answered.rouge_l == pytest.approx(
        scorer.rouge_l("Prune roses in late winter. [1]", "Prune roses in late winter.")
    )
    assert answered.rouge_l < 1.0 and answered.unmarked_rouge_l == pytest.approx(1.0)
    assert answered.packed_ceiling[100] == pytest.approx(1.0)
    assert answered.lead_rouge_l[20] == pytest.approx(
        scorer.rouge_l("Tomatoes are pruned in summer.", "Prune roses in late winter.")
    )
    declined = task_record(
        _task("t2", ["g-1"]),
        {"outcome": "clarify", "answer": "Which roses?", "cited_doc_ids": []},
        retrieved=["x"],
        packed=[("x", passages["x"])],
        passages=passages,
        scorer=scorer,
    )
    # A non-answer scores 0 but its ceilings are still measured; the gold one from gold.
    assert not declined.answered and declined.rouge_l == 0.0 and not declined.gold_packed
    assert declined.gold_ceiling[100] == pytest.approx(1.0)
    assert declined.packed_ceiling[100] < 1.0
    assert declined.prefix_rouge_l[20] == 0.0

    summary = summarise([answered, declined])
    assert summary["cite_hit"]["run"] == 0.5
    assert summary["cite_hit"]["ceiling_packed"] == 0.5
    assert summary["cite_hit"]["ceiling_top10"] == 0.5
    assert summary["cite_hit"]["ceiling_top5"] == 0.0
    rouge = summary["rouge_l"]
    assert rouge["gold_all"][100] == pytest.approx(1.0)
    # With the run's decisions the declined task scores 0 even from its gold passage.
    assert rouge["gold_decided"][100] == pytest.approx(0.5)
    assert rouge["packed_all"][100] == pytest.approx((1.0 + declined.packed_ceiling[100]) / 2)
    report = markdown(summary, {"cite_hit": 0.85, "rouge_l": 0.25})
    assert "| ceiling if packing kept the top 10" in report and "0.500" in report


def test_a_gold_passage_packed_but_not_cited_is_told_apart_by_the_evidence(scorer):
    passages = {"g-1": PASSAGE, "x": "Tomatoes are pruned in summer."}
    line = {"outcome": "grounded_answer", "answer": "Tomatoes. [1]", "cited_doc_ids": ["x"]}
    packed = [("x", passages["x"]), ("g-1", PASSAGE)]
    supported = task_record(
        _task("t1", ["g-1"]),
        line,
        ["x", "g-1"],
        packed,
        passages,
        scorer,
        evidence={"about": ["x", "g-1"], "supporting": ["g-1"]},
    )
    about_only = task_record(
        _task("t2", ["g-1"]),
        line,
        ["x", "g-1"],
        packed,
        passages,
        scorer,
        evidence={"about": ["x", "g-1"], "supporting": ["x"]},
    )
    assert supported.gold_packed and not supported.cite_hit
    cite = summarise([supported, about_only])["cite_hit"]
    assert cite["answered_gold_packed_not_cited"] == 2
    assert cite["not_cited_gold_supporting"] == 1
    assert cite["not_cited_gold_about_only"] == 1
