"""The retrieve node in a turn: the broader retry, then clarify; context windows.

Windows and clarify run through the whole graph on a real index; the retry, checked
on `search_candidates` with a recording knowledge base, is in unit/test_retrieval_retry.py.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from support.services import make_services
from threadline.chat import ChatService, TurnRequest


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
