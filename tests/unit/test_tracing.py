"""The stored trace: no document text under any key, strings and size bounded."""

from __future__ import annotations

import json

from threadline.tracing import STRING_MAX, context_entry, sanitize_trace, stored_trace

PASSAGE = "Le chiffre d'affaires 2024 de Brightwell s'élève à 486,3 millions de dollars."


def test_text_is_dropped_wherever_it_is_and_ids_titles_scores_stay() -> None:
    trace = [
        {
            "node": "retrieve",
            "scores": [{"chunk_id": "c1", "title": "Rapport", "score": 0.123456789}],
            "nested": {"deeper": [{"text": PASSAGE, "doc_id": "d1"}]},
            "content": PASSAGE,
        },
        {"node": "generate", "answer": PASSAGE, "prompt": PASSAGE, "cited": ["1"]},
        "not a dict",
    ]
    cleaned = sanitize_trace(trace)
    assert PASSAGE not in json.dumps(cleaned, ensure_ascii=False)
    assert cleaned[0]["scores"] == [{"chunk_id": "c1", "title": "Rapport", "score": 0.1235}]
    assert cleaned[0]["nested"] == {"deeper": [{"doc_id": "d1"}]}
    assert cleaned[1] == {"node": "generate", "cited": ["1"]}
    assert len(cleaned) == 2


def test_a_long_string_is_cut_so_text_cannot_ride_under_another_name() -> None:
    [entry] = sanitize_trace([{"node": "x", "query": "y" * 5000}])
    assert len(entry["query"]) == STRING_MAX and entry["query"].endswith("\u2026")


def test_the_size_is_capped_by_cutting_lists_then_keeping_node_names() -> None:
    big = [{"node": f"n{i}", "ids": [f"chunk-{j}" for j in range(500)]} for i in range(30)]
    cleaned = sanitize_trace(big, max_chars=4000)
    assert len(json.dumps(cleaned, separators=(",", ":"))) <= 4000
    assert cleaned[0]["node"] == "n0" and cleaned[0]["ids"][-1].endswith("more")
    tiny = sanitize_trace(big, max_chars=200)
    assert len(json.dumps(tiny, separators=(",", ":"))) <= 200
    assert tiny and all(e["truncated"] is True for e in tiny)


def test_the_context_entry_names_the_passages_without_their_text() -> None:
    chunks = [
        {
            "label": "1",
            "chunk_id": "c1",
            "doc_id": "d1",
            "title": "Rapport",
            "section": "S2",
            "source": "docs",
            "text": PASSAGE,
            "score": 0.5,
        }
    ]
    entry = context_entry(chunks, llm_calls=1)
    assert entry["packed"][0] == {k: v for k, v in chunks[0].items() if k != "text"}
    kept = stored_trace([{"node": "route_turn", "route": "standalone"}], chunks, 1)
    assert [e["node"] for e in kept] == ["route_turn", "context"]
    assert PASSAGE not in json.dumps(kept, ensure_ascii=False)
