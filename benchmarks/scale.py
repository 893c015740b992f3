"""How ingestion time and query latency grow from 10k to 200k chunks (issue 17).

Embedding 200k chunks with the real dense model on 2 cores takes hours (about 100
CPU-ms a chunk for MiniLM at 256 word pieces, `results/ingestion-pipeline.md`), so
this benchmark does not run it; it composes the ingestion time from parts, each
labelled in the result as measured at that size or as a measured rate times a count:

1. **dense model** (rate × count): the real model's `embed_documents` on synthetic
   chunks, one document a call as `ingest_paths` does, timed in this run (wall and
   CPU seconds per chunk), times the size;
2. **the rest of `ingest_paths`** (rate × count): sparse-only ingestion through the
   real path (read Markdown, chunk, BM25, payloads, upsert into a small index, the
   per-document journal), timed in this run on a small set of files, times the size;
3. **the engine at this size** (measured): the index grown for real to the size
   through `EdgeEngine.add_documents` with the payloads, ids and batches of
   `KnowledgeBase`, real BM25 vectors and random unit dense vectors
   (`synthetic_index.grow_index`): the upserts summed from empty, plus the HNSW and
   sparse-index build (`optimize`) at that size.

Part 2 already contains a small index's upserts, so the total counts the upsert once
too often; the result says so.

Query latency at each size is a whole turn through `ChatService.run_turn` (the
`turns` benchmark's conversations and probes, offline model; the query embeddings are
the real model's), end to end and the retrieval step (`KnowledgeBase.search`).

Usage::

    python -m benchmarks scale --out benchmarks/results/scale.json \
        [--sizes 10000,50000,100000,200000] [--turns 200]
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from benchmarks.load import DEFAULT_SAMPLE_DIR
from benchmarks.report import environment, machine_line, write_outputs
from benchmarks.synthetic_index import SECTIONS_PER_DOC, SyntheticDocs, bulk_documents

DEFAULT_SIZES = (10_000, 50_000, 100_000, 200_000)


def measure_model(chunks: int, log: Callable[[str], None]) -> dict[str, Any]:
    """Time the default dense model per chunk: one synthetic document per call."""
    from threadline.knowledge.embeddings import load_dense_model
    from threadline.settings import Settings

    settings = Settings(_env_file=None)
    dense = load_dense_model(settings.dense_model_path, settings.dense_runtime)
    documents, _ = bulk_documents(SyntheticDocs(seed=6), chunks)
    texts = [d.page_content for d in documents]
    dense.embed_documents(texts[:2])  # warm the runtime before timing
    t0, c0 = time.perf_counter(), time.process_time()
    for start in range(0, len(texts), SECTIONS_PER_DOC):
        dense.embed_documents(texts[start : start + SECTIONS_PER_DOC])
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    log(f"dense model: {len(texts)} chunks in {wall:.1f}s wall, {cpu:.1f} CPU-s")
    return {
        "model": str(settings.dense_model_path or "default"),
        "chunks": len(texts),
        "wall_s_per_chunk": wall / len(texts),
        "cpu_s_per_chunk": cpu / len(texts),
        "load_average": round(os.getloadavg()[0], 2),
    }


def measure_rest_of_ingestion(
    workdir: Path, chunks: int, log: Callable[[str], None]
) -> dict[str, Any]:
    """`ingest_paths` without the dense model (sparse only), per chunk, on Markdown files."""
    from threadline.services import Services
    from threadline.settings import Settings

    docs_dir = workdir / "rest-docs"
    docs_dir.mkdir(parents=True, exist_ok=True)
    gen = SyntheticDocs(seed=5)
    for _ in range(max(1, chunks // SECTIONS_PER_DOC)):
        name, _, text = gen.document()
        (docs_dir / f"{name}.md").write_text(text, "utf-8")
    data_dir = workdir / "rest-data"
    settings = Settings(
        _env_file=None, data_dir=data_dir, embeddings="sparse", llm="offline", qdrant_url=None
    )
    services = Services(settings)
    services.kb  # noqa: B018 - open the engine before timing
    t0, c0 = time.perf_counter(), time.process_time()
    report = services.kb.ingest_paths([docs_dir])
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    services.close()
    shutil.rmtree(data_dir, ignore_errors=True)
    shutil.rmtree(docs_dir, ignore_errors=True)
    written = max(report.chunks_written, 1)
    log(f"ingest_paths, sparse only: {written} chunks in {wall:.1f}s wall, {cpu:.1f} CPU-s")
    return {
        "chunks": report.chunks_written,
        "wall_s_per_chunk": wall / written,
        "cpu_s_per_chunk": cpu / written,
        "load_average": round(os.getloadavg()[0], 2),
    }


def ingestion_rows(
    sizes: Sequence[dict[str, Any]], model: dict[str, Any], rest: dict[str, Any]
) -> list[dict[str, Any]]:
    """Per size, the ingestion time from empty, in seconds, by part.

    ``sizes`` are the measured growth steps in increasing order, each with ``chunks``
    (the index's size after the step) and ``growth`` (`grow_index`'s result, or None
    when the index was already that large). Upserts add up from empty; the optimize
    is the one at that size (an ingestion optimizes once at its end).
    """
    rows = []
    upsert_total = 0.0
    for entry in sizes:
        growth = entry.get("growth") or {}
        upsert_total += growth.get("upsert_s", 0.0)
        chunks = entry["chunks"]
        model_s = model["wall_s_per_chunk"] * chunks
        rest_s = rest["wall_s_per_chunk"] * chunks
        engine_s = upsert_total + growth.get("optimize_s", 0.0)
        rows.append(
            {
                "chunks": chunks,
                "model_s": round(model_s, 1),
                "model_cpu_s": round(model["cpu_s_per_chunk"] * chunks, 1),
                "rest_s": round(rest_s, 1),
                "engine_upsert_s": round(upsert_total, 1),
                "engine_optimize_s": growth.get("optimize_s", 0.0),
                "total_s": round(model_s + rest_s + engine_s, 1),
            }
        )
    return rows


def run(
    *,
    sizes: Sequence[int] = DEFAULT_SIZES,
    turns: int = 200,
    model_chunks: int = 100,
    rest_chunks: int = 1_000,
    sample_dir: Path = DEFAULT_SAMPLE_DIR,
    workdir: Path | None = None,
    out: Path | None = None,
    log: Callable[[str], None] = print,
) -> dict[str, Any]:
    """Measure the parts and every size; JSON-ready results.

    With ``out`` the results so far are written after each size, so the sizes that
    finished are kept if a larger one does not.
    """
    from benchmarks.turns import measure_sizes
    from threadline.settings import Settings

    base = Path(workdir) if workdir else Path(tempfile.mkdtemp(prefix="threadline-scale-"))
    base.mkdir(parents=True, exist_ok=True)
    data_dir = base / "data"
    started = time.perf_counter()
    results: dict[str, Any] = {"benchmark": "scale", "sizes": [], "config": {"turns": turns}}
    try:
        results["model"] = measure_model(model_chunks, log)
        results["rest_of_ingestion"] = measure_rest_of_ingestion(base, rest_chunks, log)
        settings = Settings(
            _env_file=None, data_dir=data_dir, embeddings="hybrid", llm="offline", qdrant_url=None
        )
        for at_size in measure_sizes(settings, sizes, turns, "scale", log, sample_dir=sample_dir):
            measured = at_size.measured
            log(
                f"  {at_size.chunks} chunks: turn p50/p99 {measured['e2e_ms']['p50']}/"
                f"{measured['e2e_ms']['p99']} ms, search {measured['search_call_ms']['p50']}/"
                f"{measured['search_call_ms']['p99']} ms "
                f"(load {at_size.load_before} -> {at_size.load_after})"
            )
            results["sizes"].append(
                {
                    "size": at_size.size,
                    "chunks": at_size.chunks,
                    "growth": at_size.growth,
                    "load_average": [at_size.load_before, at_size.load_after],
                    "e2e_ms": measured["e2e_ms"],
                    "search_call_ms": measured["search_call_ms"],
                    "dense_embed_call_ms": measured["dense_embed_call_ms"],
                    "turns": measured["turns"],
                }
            )
            results["ingestion"] = ingestion_rows(
                results["sizes"], results["model"], results["rest_of_ingestion"]
            )
            results["environment"] = environment(data_dir)
            results["elapsed_s"] = round(time.perf_counter() - started, 1)
            if out is not None:
                write_outputs(out, results, to_markdown(results))
    finally:
        if workdir is None:
            shutil.rmtree(base, ignore_errors=True)
    return results


def _minutes(seconds: float) -> str:
    return f"{seconds / 60:,.1f} min" if seconds < 5_400 else f"{seconds / 3600:,.1f} h"


def to_markdown(results: dict[str, Any]) -> str:
    """Render the growth table: ingestion time by part and turn latency, per size."""
    env = results.get("environment") or {}
    model, rest = results["model"], results["rest_of_ingestion"]
    lines = [
        "### Growth from 10k to 200k chunks: ingestion time and query latency",
        "",
        machine_line(env) if env else "",
        "",
        "Ingestion time from an empty index to each size, by part. **dense model**: the "
        f"real model's rate measured in this run ({model['chunks']} synthetic chunks, one "
        f"document a call: {model['wall_s_per_chunk'] * 1000:.0f} ms wall, "
        f"{model['cpu_s_per_chunk'] * 1000:.0f} CPU-ms a chunk, load "
        f"{model['load_average']}) × the count. **rest of `ingest_paths`**: sparse-only "
        f"ingestion through the real path measured in this run ({rest['chunks']} chunks: "
        f"{rest['wall_s_per_chunk'] * 1000:.1f} ms wall, "
        f"{rest['cpu_s_per_chunk'] * 1000:.1f} CPU-ms a chunk, load "
        f"{rest['load_average']}) × the count. **engine**: measured at the size, the "
        "index grown for real (`EdgeEngine.add_documents`, real BM25, random unit dense "
        "vectors): upserts summed from empty, and `optimize` at that size. The rest of "
        "`ingest_paths` includes a small index's upserts, so the total counts the "
        "upsert twice (an overstatement of at most the upsert column). Wall times "
        "depend on the machine's load; the model's CPU time does not (2 idle cores "
        "run it in about half of it). The synthetic chunks mix invented words with real "
        "ones, which may cut into more word pieces than prose: compare the model's rate "
        "on MTRAG passages in `ingestion-pipeline.md`.",
        "",
        "| chunks | dense model (rate × count) | its CPU time | rest of `ingest_paths` "
        "(rate × count) | engine upserts (measured) | engine optimize (measured) | total |",
        "| ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for row in results.get("ingestion", []):
        lines.append(
            f"| {row['chunks']:,} | {_minutes(row['model_s'])} "
            f"| {_minutes(row['model_cpu_s'])} CPU | {_minutes(row['rest_s'])} "
            f"| {_minutes(row['engine_upsert_s'])} "
            f"| {_minutes(row['engine_optimize_s'])} | **{_minutes(row['total_s'])}** |"
        )
    lines += [
        "",
        f"Query latency: {results['config']['turns']} turns per size through "
        "`ChatService.run_turn` (the `turns` benchmark's conversations, offline model, "
        "real MiniLM query embeddings, every chunk in the searched tenant). Milliseconds, "
        "p50 / p99; load average before → after the turns.",
        "",
        "| chunks | turn, end to end | `KnowledgeBase.search` | one query embedding | load |",
        "| ---: | ---: | ---: | ---: | --- |",
    ]
    for s in results["sizes"]:
        e, r, d = s["e2e_ms"], s["search_call_ms"], s["dense_embed_call_ms"]
        lines.append(
            f"| {s['chunks']:,} | **{e['p50']} / {e['p99']}** | {r['p50']} / {r['p99']} "
            f"| {d['p50']} / {d['p99']} | {s['load_average'][0]} → {s['load_average'][1]} |"
        )
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    """Command line: run, write JSON + Markdown (after every size, and at the end)."""
    parser = argparse.ArgumentParser(prog="benchmarks.scale", description=__doc__.split("\n")[0])
    parser.add_argument("--out", type=Path, required=True, help="a .json file (the .md beside it)")
    parser.add_argument(
        "--sizes", default=",".join(str(s) for s in DEFAULT_SIZES), help="index sizes in chunks"
    )
    parser.add_argument("--turns", type=int, default=200, help="turns per size (200)")
    parser.add_argument("--model-chunks", type=int, default=100, help="chunks to time the model")
    parser.add_argument(
        "--rest-chunks", type=int, default=1_000, help="chunks of sparse-only ingest_paths"
    )
    parser.add_argument("--sample-dir", type=Path, default=DEFAULT_SAMPLE_DIR)
    parser.add_argument("--workdir", type=Path, default=None, help="keep the data here")
    args = parser.parse_args(argv)
    results = run(
        sizes=sorted(int(x) for x in args.sizes.split(",") if x),
        turns=args.turns,
        model_chunks=args.model_chunks,
        rest_chunks=args.rest_chunks,
        sample_dir=args.sample_dir,
        workdir=args.workdir,
        out=args.out,
    )
    markdown = to_markdown(results)
    write_outputs(args.out, results, markdown)
    print(markdown)  # noqa: T201 - a command's output
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
