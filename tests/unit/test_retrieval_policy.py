"""Retrieval policy (seed 003): intent validation, source allowlists, packing, windows."""

from __future__ import annotations

import pytest

from threadline.graph.retrieval import (
    Budget,
    RetrievalIntent,
    pack_context,
    validate_intent,
)
from threadline.graph.windows import expand_windows
from threadline.knowledge.documents import Chunk
from threadline.knowledge.index import ScoredChunk
from threadline.policy import PolicyViolation, allowed_sources


def chunk(doc: str, pos: int, text: str = "x" * 100) -> Chunk:
    return Chunk(f"{doc}-{pos}", doc, doc.title(), f"S{pos}", pos, text, "src")


def scored(doc: str, pos: int, score: float, text: str = "x" * 100) -> ScoredChunk:
    return ScoredChunk(chunk(doc, pos, text), score)


POLICY = {"support-bot": ["support", "catalog"], "*": ["support"]}


def test_sources_are_the_allowlist_narrowed_never_widened():
    assert allowed_sources(POLICY, "support-bot", None) == ("support", "catalog")
    assert allowed_sources(POLICY, "support-bot", ["catalog"]) == ("catalog",)
    assert allowed_sources(POLICY, "other-app", None) == ("support",)
    assert allowed_sources({}, "any", None) is None
    assert allowed_sources({}, "any", ["hr"]) == ("hr",)
    with pytest.raises(PolicyViolation) as denied:
        allowed_sources(POLICY, "support-bot", ["catalog", "hr", "finance"])
    assert denied.value.reason == "source_denied:finance,hr"
    with pytest.raises(PolicyViolation, match="source_denied:catalog"):
        allowed_sources(POLICY, "other-app", ["catalog"])


@pytest.mark.parametrize(
    ("intent", "reason"),
    [
        (RetrievalIntent("   ", 5), "invalid_intent:empty_query"),
        (RetrievalIntent("q" * 1001, 5), "invalid_intent:query_too_long"),
        (RetrievalIntent("ok", 0), "invalid_intent:top_k_out_of_bounds"),
        (RetrievalIntent("ok", 21), "invalid_intent:top_k_out_of_bounds"),
    ],
)
def test_invalid_intents_stop_with_a_reason(intent, reason):
    with pytest.raises(PolicyViolation) as stop:
        validate_intent(intent, Budget(max_top_k=20, max_query_chars=1000))
    assert stop.value.reason == reason


def test_valid_intent_is_trimmed():
    assert validate_intent(RetrievalIntent("  q  ", 3), Budget()).query == "q"


def test_packing_respects_min_score_max_chunks_and_max_chars():
    candidates = [
        scored("a", 0, 0.9),
        scored("a", 0, 0.9),  # duplicate
        scored("b", 0, 0.8, "y" * 500),
        scored("c", 0, 0.7),
        scored("d", 0, 0.1),
        scored("e", 0, 0.6),
    ]
    pack = pack_context(candidates, Budget(min_score=0.5, max_chunks=3, max_chars=450))
    assert [c.chunk.doc_id for c in pack.chunks] == ["a", "c", "e"]
    assert pack.total_chars == 300
    reasons = {(r["chunk_id"], r["reason"]) for r in pack.rejected}
    assert reasons == {
        ("a-0", "duplicate"),
        ("b-0", "max_chars"),
        ("d-0", "below_min_score"),
    }
    full = pack_context(candidates[:1] + candidates[2:], Budget(max_chunks=2, max_chars=10_000))
    assert [r["reason"] for r in full.rejected] == ["max_chunks"] * 3


def document(doc: str, n: int) -> list[Chunk]:
    return [chunk(doc, i) for i in range(n)]


def test_windows_add_neighbours_merge_overlaps_and_mark_hits():
    docs = {"a": document("a", 10), "b": document("b", 3)}
    hits = [scored("a", 5, 0.9), scored("b", 0, 0.8), scored("a", 7, 0.7)]
    out = expand_windows(hits, docs.__getitem__, before=1, after=1, max_chunks=20, max_chars=10_000)
    assert [(w.chunk.doc_id, w.chunk.position, w.hit) for w in out] == [
        ("a", 4, False),
        ("a", 5, True),
        ("a", 6, False),
        ("a", 7, True),
        ("a", 8, False),
        ("b", 0, True),
        ("b", 1, False),
    ]


def test_windows_stay_within_budget_hits_first():
    docs = {"a": document("a", 10)}
    hits = [scored("a", 2, 0.9), scored("a", 8, 0.5)]
    out = expand_windows(hits, docs.__getitem__, before=2, after=2, max_chunks=4, max_chars=10_000)
    assert sum(w.hit for w in out) == 2 and len(out) == 4
    assert [w.chunk.position for w in out] == [1, 2, 3, 8]  # nearest neighbours of the best hit
    tight = expand_windows(hits, docs.__getitem__, before=1, after=1, max_chunks=10, max_chars=250)
    assert [w.chunk.position for w in tight] == [2, 8]


def test_no_window_is_the_hits_themselves():
    hits = [scored("a", 2, 0.9)]
    out = expand_windows(hits, lambda d: [], before=0, after=0, max_chunks=5, max_chars=1000)
    assert [(w.chunk.position, w.hit) for w in out] == [(2, True)]
