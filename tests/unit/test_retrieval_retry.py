"""The one retry when nothing is found, on a recording knowledge base (no engine)."""

from __future__ import annotations

from threadline.graph.retrieval import Budget, search_candidates
from threadline.knowledge.documents import Chunk
from threadline.knowledge.index import ScoredChunk, SearchFilters
from threadline.store.models import ThreadState


class RecordingKb:
    """Answers only queries containing `needle`, with a fixed score; records every query."""

    def __init__(self, needle: str, score: float = 1.0) -> None:
        self.needle = needle
        self.score = score
        self.queries: list[str] = []

    def search(self, query: str, *, k: int, filters: SearchFilters) -> list[ScoredChunk]:
        self.queries.append(query)
        if self.needle not in query:
            return []
        chunk = Chunk("warranty-0", "warranty", "Warranty", "Terms", 0, "Two years.", "support")
        return [ScoredChunk(chunk, self.score)]


def search(kb: RecordingKb, question: str, *, previous_query: str | None, min_score: float = 0.0):
    thread_state = ThreadState(last_search_query=previous_query)
    return search_candidates(
        kb,
        question=question,
        query=question,
        top_k=5,
        filters=SearchFilters(tenant="default"),
        budget=Budget(min_score=min_score),
        route="standalone",
        history=[],
        thread_state=thread_state,
    )


def test_nothing_found_retries_once_with_the_previous_search_plus_the_question():
    kb = RecordingKb("warranty")
    found = search(kb, "and the battery?", previous_query="warranty terms")
    assert kb.queries == ["and the battery?", "warranty terms and the battery?"]
    assert [c.chunk.chunk_id for c in found.pack.chunks] == ["warranty-0"]
    assert found.query == "warranty terms and the battery?"  # the search that found them
    assert found.attempts[-1]["retry"] is True


def test_the_retry_runs_once_and_an_empty_pack_stays_empty():
    kb = RecordingKb("nowhere")
    found = search(kb, "and the battery?", previous_query="warranty terms")
    assert len(kb.queries) == 2  # the question, then one broader retry: no loop
    assert not found.pack.chunks
    assert sum(1 for a in found.attempts if a.get("retry")) == 1


def test_candidates_all_below_min_score_trigger_the_retry_too():
    kb = RecordingKb("battery", score=0.2)
    found = search(kb, "and the battery?", previous_query="warranty terms", min_score=0.5)
    assert len(kb.queries) == 2
    assert {r["reason"] for r in found.pack.rejected} == {"below_min_score"}
    assert not found.pack.chunks


def test_no_retry_without_a_previous_search_or_when_the_first_search_packed():
    kb = RecordingKb("warranty")
    search(kb, "and the battery?", previous_query=None)
    assert kb.queries == ["and the battery?"]
    kb = RecordingKb("warranty")
    search(kb, "warranty length?", previous_query="battery life")
    assert kb.queries == ["warranty length?"]
