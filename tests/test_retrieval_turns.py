"""The retrieve node in a turn: the broader retry, then clarify; context windows.

The retry is checked on `search_candidates` with a recording knowledge base (which
queries ran, in what order); windows and clarify run through the whole graph on a
real index.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from support.services import make_services
from threadline.chat import ChatService, TurnRequest
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


def test_a_turn_with_nothing_to_ground_it_asks_instead_of_answering(tmp_path):
    services = make_services(tmp_path / "data")
    chat = ChatService(services)
    try:
        result = chat.run_turn(TurnRequest(query="qwzx vrbnk plorf", thread_id="nothing"))
        assert result.outcome == "clarify"
        assert result.stop_reason == "no_context"
        assert result.citations == [] and result.llm_calls == 0  # the model is never asked
        retrieve = next(t for t in result.trace if t["node"] == "retrieve")
        assert retrieve["selected"] == []
    finally:
        services.close()


# --- context windows through the graph -----------------------------------------------

SECTIONS = [
    ("Intake", "Every device is logged at the intake desk with its serial number."),
    ("Diagnosis", "A technician runs the diagnostic suite and records the fault code."),
    ("Soldering", "Board repairs use lead-free solder at the bench reserved for rework."),
    ("Testing", "The repaired device is burned in for twelve hours before release."),
    ("Return", "Devices go back by courier with the repair report attached."),
]


@pytest.fixture()
def repair_corpus(tmp_path: Path) -> Path:
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    body = "\n\n".join(f"## {title}\n\n{text}" for title, text in SECTIONS)
    (corpus / "repair-process.md").write_text(
        f"---\ntitle: Repair process\nsource: workshop\n---\n\n{body}\n", encoding="utf-8"
    )
    (corpus / "other.md").write_text(
        "---\ntitle: Parking\nsource: workshop\n---\n\n## Lots\n\nStaff park north.\n",
        encoding="utf-8",
    )
    return corpus


def retrieved(tmp_path: Path, corpus: Path, query: str, **settings):
    services = make_services(tmp_path / "data", corpus=[corpus], **settings)
    try:
        result = ChatService(services).run_turn(TurnRequest(query=query, thread_id="w"))
        node = next(t for t in result.trace if t["node"] == "retrieve")
        return result, node
    finally:
        services.close()


def test_without_windows_only_the_hit_is_packed(tmp_path, repair_corpus):
    result, node = retrieved(tmp_path, repair_corpus, "lead-free solder rework bench")
    assert "window" not in node
    assert len(node["selected"]) == 1  # only the Soldering section has these words
    assert [c["section"] for c in result.citations] == ["Soldering"]


def test_a_window_packs_the_neighbours_of_the_hit_in_reading_order(tmp_path, repair_corpus):
    result, node = retrieved(
        tmp_path,
        repair_corpus,
        "lead-free solder rework bench",
        context_window_before=1,
        context_window_after=1,
        max_chunks=3,
    )
    assert node["window"]["before"] == 1 and node["window"]["after"] == 1
    assert len(node["selected"]) == 3
    # One hit (a third of max_chunks) and its two neighbours, in reading order.
    assert node["window"]["added"] == [node["selected"][0], node["selected"][2]]
    assert result.outcome == "grounded_answer"
    cited_sections = {c["section"] for c in result.citations}
    assert cited_sections <= {"Diagnosis", "Soldering", "Testing"}
    assert "Soldering" in cited_sections


def test_window_chunks_are_marked_and_stay_in_the_same_document(tmp_path, repair_corpus):
    services = make_services(
        tmp_path / "data",
        corpus=[repair_corpus],
        context_window_before=2,
        context_window_after=0,
        max_chunks=8,
    )
    try:
        from threadline.graph.graph import build_graph

        graph = build_graph(services)
        state = graph.invoke(
            {"query": "burned in for twelve hours", "thread_id": "w2", "tenant": "default"}
        )
        chunks = state["chunks"]
        hits = [c for c in chunks if c["hit"]]
        neighbours = [c for c in chunks if not c["hit"]]
        testing = next(c for c in hits if c["section"] == "Testing")
        same_doc = [c for c in chunks if c["doc_id"] == testing["doc_id"]]
        # Two sections before the Testing hit come along, and nothing after it.
        window_sections = [c["section"] for c in same_doc]
        assert window_sections[window_sections.index("Testing") - 2 :][:3] == [
            "Diagnosis",
            "Soldering",
            "Testing",
        ]
        assert "Return" not in [c["section"] for c in neighbours]
        assert all(c["score"] == 0.0 for c in neighbours)
        assert [c["label"] for c in chunks] == [str(i) for i in range(1, len(chunks) + 1)]
    finally:
        services.close()
