"""The dense models benchmark's table: each rate per wall second and per CPU-second."""

from __future__ import annotations

from benchmarks.models import MODELS, markdown

_ROW = {
    "model": "minilm-int8",
    "load_s": 0.1,
    "rss_mib": 773.6,
    "chunks_per_s": 96.1,
    "chunks_per_cpu_s": 51.3,
    "query_p50_ms": 1.56,
    "query_p99_ms": 3.05,
    "install_mib": 163.8,
    "cached_model_mib": 21.8,
}


def test_a_row_gives_wall_and_cpu_rates_and_a_dash_without_an_ingestion_run():
    ingested = {**_ROW, "hybrid_ingest_chunks_per_s": 56.8, "hybrid_ingest_chunks_per_cpu_s": 41.9}
    report = {"machine": "2 cores", "load_average_end": [2.5], "results": [ingested, _ROW]}
    lines = markdown(report)
    assert "load average at the end 2.50" in lines[2]
    assert lines[-2].startswith("| minilm-int8 | 0.1 | 773.6 | 96.1 (51.3) | 56.8 (41.9) | 1.56")
    assert "| 96.1 (51.3) | – |" in lines[-1]
    assert "(+21.8 made on first use)" in lines[-1]


def test_every_variant_of_minilm_is_measured():
    assert {"minilm", "minilm-fused", "minilm-int8"} <= set(MODELS)
