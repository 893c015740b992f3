"""The scale benchmark's arithmetic: ingestion time by part per size, and its table."""

from __future__ import annotations

import pytest

from benchmarks.scale import ingestion_rows, to_markdown

MODEL = {"chunks": 100, "wall_s_per_chunk": 0.1, "cpu_s_per_chunk": 0.2, "load_average": 3.0}
REST = {"chunks": 1000, "wall_s_per_chunk": 0.005, "cpu_s_per_chunk": 0.004, "load_average": 3.0}


def _size(chunks: int, upsert_s: float | None, optimize_s: float = 0.0) -> dict:
    growth = None if upsert_s is None else {"upsert_s": upsert_s, "optimize_s": optimize_s}
    latency = {"p50": 10.0, "p99": 30.0}
    return {
        "size": chunks,
        "chunks": chunks,
        "growth": growth,
        "load_average": [3.0, 3.5],
        "e2e_ms": latency,
        "search_call_ms": latency,
        "dense_embed_call_ms": latency,
        "turns": 100,
    }


def test_upserts_add_up_from_empty_and_only_the_sizes_own_optimize_counts():
    rows = ingestion_rows(
        [_size(10_000, 5.0, optimize_s=2.0), _size(50_000, 20.0, optimize_s=30.0)], MODEL, REST
    )
    assert [r["engine_upsert_s"] for r in rows] == [5.0, 25.0]
    assert [r["engine_optimize_s"] for r in rows] == [2.0, 30.0]
    assert rows[1]["model_s"] == pytest.approx(5_000.0)  # 0.1 s a chunk × 50k
    assert rows[1]["model_cpu_s"] == pytest.approx(10_000.0)
    assert rows[1]["rest_s"] == pytest.approx(250.0)
    assert rows[1]["total_s"] == pytest.approx(5_000.0 + 250.0 + 25.0 + 30.0)


def test_a_size_the_index_already_had_adds_no_engine_time():
    rows = ingestion_rows([_size(1_000, None)], MODEL, REST)
    assert rows[0]["engine_upsert_s"] == 0.0
    assert rows[0]["total_s"] == pytest.approx(100.0 + 5.0)


def test_the_table_labels_each_part_measured_or_rate_times_count():
    sizes = [_size(10_000, 5.0, 2.0), _size(200_000, 100.0, 600.0)]
    results = {
        "model": MODEL,
        "rest_of_ingestion": REST,
        "sizes": sizes,
        "ingestion": ingestion_rows(sizes, MODEL, REST),
        "config": {"turns": 100},
    }
    text = to_markdown(results)
    assert "dense model (rate × count)" in text
    assert "engine optimize (measured)" in text
    # 200k chunks × 0.1 s = 20,000 s: shown in hours once past 90 minutes.
    assert "| 200,000 | 5.6 h | 11.1 h CPU |" in text
    assert "| 10,000 | **10.0 / 30.0** |" in text
