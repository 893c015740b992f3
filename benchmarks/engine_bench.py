"""Benchmark the vector engines: Qdrant Edge against qdrant-client's local mode.

Measures, at several corpus sizes, what `KnowledgeBase` asks of an engine:

* ingestion throughput in chunks/s, sparse only (BM25 embedding included) and dense +
  sparse (random unit vectors stand in for the dense model, so the model's own cost is
  left out), then the time Qdrant Edge's ``optimize`` takes to build its indexes;
* search latency, p50 and p99, of a top-10 query filtered on a tenant (what every
  threadline search is): hybrid (dense + sparse, RRF), dense only, sparse only; plus
  hybrid with a filter matching every chunk (a deployment with a single tenant).
  Searches go through the same calls as `KnowledgeBase.search` (over-fetch, then cut).

The corpus is synthetic, deterministic and cheap: Zipf-distributed words (a real English
head, a generated long tail), chunk lengths like the chunker's, ten tenants, metadata
like the knowledge base's. qdrant-client's local mode scans everything in Python, so its
runs are capped: sizes above ``--local-max-size`` are skipped and each measurement stops
after ``--local-budget`` seconds (the table says how many queries ran).

Why one module of about 540 lines: the synthetic corpus, the runs of both engines
and the table are one experiment read top to bottom.

Usage::

    python -m benchmarks.engine_bench bench-out/ --sizes 1000,10000,50000
"""

from __future__ import annotations

import argparse
import json
import platform
import shutil
import statistics
import tempfile
import time
import uuid
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from importlib import metadata as importlib_metadata
from pathlib import Path
from typing import Any

import numpy as np
from langchain_core.documents import Document
from langchain_core.embeddings import Embeddings
from qdrant_client import QdrantClient, models

from threadline.knowledge.embeddings import EmbeddingSetup
from threadline.knowledge.engines import EdgeEngine, QdrantClientEngine, VectorEngine
from threadline.knowledge.sparse import Bm25SparseEmbeddings

__all__ = ["BenchConfig", "SyntheticCorpus", "main", "run"]

DIM = 384
TOP_K = 10
TENANTS = 10
CHUNKS_PER_DOC = 12
_BATCH = 256
TARGET_P50_MS = 10.0
TARGET_P99_MS = 30.0
TARGET_SPARSE_CPS = 1000.0

# Frequent English words (function words included: the analyser drops its stopwords, as
# it does on real text), then a generated long tail.
_HEAD = """the of and to in a is that for it as was with be by on not he this are or his
from at which but have an they you were her she there been one all we their has would
when if so no will can more about its other into time only some could new them these
may two then do first any my now such like our over man me even most made after also did
many before must through back years where much your way well down should because each
just those people how too little state good very make world still own see men work long
get here between both life being under never day same another know while last might us
great old year off come since against go came right used take three states himself few
house use during without again place around however home small found thus every part
customer account refund order invoice payment shipping delivery warranty return policy
support ticket agent password login email device battery screen repair replacement
contract licence subscription plan upgrade billing tax discount store credit card bank
transfer report quarter revenue growth margin forecast budget team manager release
version feature bug incident outage latency server network backup restore security
badge access vpn laptop printer meeting holiday leave training onboarding handbook""".split()
_SYLLABLES = "ka to ri mel san dor vi lu pe qua zen bro tin sal mar nor fi gal pol dre".split()


@dataclass
class BenchConfig:
    """What to run.

    Attributes:
        sizes: Corpus sizes, in chunks.
        queries: Queries per latency measurement.
        engines: "edge" and/or "local".
        local_max_size: Largest size qdrant-client's local mode runs at.
        local_budget_s: Seconds one local-mode measurement may take.
        workdir: Where the engines write (a temporary directory when None).
        seed: Seed of everything random.
    """

    sizes: tuple[int, ...] = (1_000, 10_000, 50_000)
    queries: int = 300
    engines: tuple[str, ...] = ("edge", "local")
    local_max_size: int = 10_000
    local_budget_s: float = 120.0
    workdir: Path | None = None
    seed: int = 7


@dataclass
class Latency:
    """Latencies of one kind of query, in milliseconds."""

    p50_ms: float
    p99_ms: float
    mean_ms: float
    queries: int
    capped: bool = False


@dataclass
class EngineRun:
    """Everything measured for one engine at one size."""

    engine: str
    size: int
    skipped: str | None = None
    ingest_sparse_cps: float | None = None
    ingest_hybrid_cps: float | None = None
    optimize_s: float | None = None
    disk_mb: float | None = None
    latency: dict[str, Latency] = field(default_factory=dict)


class SyntheticCorpus:
    """Deterministic chunks, metadata, queries and dense vectors.

    Args:
        size: Number of chunks.
        queries: Number of queries.
        seed: Seed of the generator.
    """

    def __init__(self, size: int, queries: int, seed: int = 7) -> None:
        rng = np.random.default_rng(seed)
        vocabulary = _vocabulary(20_000, seed)
        ranks = np.arange(1, len(vocabulary) + 1)
        weights = 1.0 / ranks**1.05
        weights /= weights.sum()
        lengths = rng.integers(60, 190, size=size)
        words = rng.choice(len(vocabulary), size=int(lengths.sum()), p=weights)
        self.texts: list[str] = []
        start = 0
        for n in lengths:
            chunk = [vocabulary[i] for i in words[start : start + n]]
            start += n
            # Sentences of 8 to 20 words, as prose has.
            sentences, cut = [], 0
            while cut < len(chunk):
                step = 8 + (cut * 7 + len(chunk)) % 13
                sentence = " ".join(chunk[cut : cut + step])
                sentences.append(sentence[:1].upper() + sentence[1:] + ".")
                cut += step
            self.texts.append(" ".join(sentences))
        self.metadatas = [self._metadata(i) for i in range(size)]
        self.ids = [str(uuid.UUID(int=i + 1)) for i in range(size)]
        # Queries use content words: not the 40 most frequent, not the rarest.
        self.queries: list[str] = []
        for _ in range(queries):
            n = int(rng.integers(2, 7))
            picks = rng.choice(np.arange(40, 8_000), size=n, p=_renorm(weights[40:8_000]))
            self.queries.append(" ".join(vocabulary[i] for i in picks))
        self.query_tenants = [f"t{int(t)}" for t in rng.integers(0, TENANTS, size=queries)]
        vectors = rng.standard_normal((size + queries, DIM), dtype=np.float32)
        vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
        self.dense = PrecomputedEmbeddings(
            dict(zip(self.texts + self.queries, vectors.tolist(), strict=True))
        )

    @staticmethod
    def _metadata(i: int) -> dict[str, Any]:
        doc = i // CHUNKS_PER_DOC
        return {
            "tenant": f"t{doc % TENANTS}",
            "doc_id": f"doc-{doc}",
            "chunk_id": str(uuid.UUID(int=i + 1)),
            "title": f"Document {doc}",
            "section": f"Section {i % CHUNKS_PER_DOC // 3}",
            "position": i % CHUNKS_PER_DOC,
            "source": ("support", "guides", "reports")[doc % 3],
            "source_app": "bench",
            "path": f"/data/bench/doc-{doc}.md",
            "updated_at": "2025-01-01",
            "content_hash": f"{doc:032x}",
            "chunk_count": CHUNKS_PER_DOC,
        }

    def documents(self, size: int) -> tuple[list[Document], list[str]]:
        """Return the first ``size`` chunks as documents (metadata carries the text, as ours do)."""
        docs = [
            Document(page_content=text, metadata={**meta, "text": text})
            for text, meta in zip(self.texts[:size], self.metadatas[:size], strict=True)
        ]
        return docs, self.ids[:size]


class PrecomputedEmbeddings(Embeddings):
    """Dense "embeddings" looked up from a table (random unit vectors, no model)."""

    def __init__(self, table: dict[str, list[float]]) -> None:
        self.table = table

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        """Return the vectors of known texts (a fixed one for anything else)."""
        return [self.embed_query(t) for t in texts]

    def embed_query(self, text: str) -> list[float]:
        """Return the vector of a known text (a fixed one for anything else)."""
        return self.table.get(text) or next(iter(self.table.values()))


def _vocabulary(n: int, seed: int) -> list[str]:
    rng = np.random.default_rng(seed + 1)
    words = list(dict.fromkeys(_HEAD))
    seen = set(words)
    while len(words) < n:
        word = "".join(rng.choice(_SYLLABLES, size=int(rng.integers(2, 5))))
        if word not in seen:
            seen.add(word)
            words.append(word)
    return words


def _renorm(weights: np.ndarray) -> np.ndarray:
    return weights / weights.sum()


def _tenant_filter(tenant: str) -> models.Filter:
    return models.Filter(
        must=[models.FieldCondition(key="metadata.tenant", match=models.MatchValue(value=tenant))]
    )


_ALL_FILTER = models.Filter(
    must=[models.FieldCondition(key="metadata.source_app", match=models.MatchValue(value="bench"))]
)


def _open(kind: str, engine: str, path: Path, dense: Embeddings | None) -> VectorEngine:
    setup = EmbeddingSetup(dense, Bm25SparseEmbeddings(), DIM if dense else None, kind)
    if engine == "edge":
        return EdgeEngine(path, setup)
    client = QdrantClient(path=str(path))
    return QdrantClientEngine(client, "bench", setup, payload_indexes=False, name="local")


def _ingest(engine: VectorEngine, docs: list[Document], ids: list[str]) -> float:
    started = time.perf_counter()
    for i in range(0, len(docs), _BATCH):
        engine.add_documents(docs[i : i + _BATCH], ids[i : i + _BATCH], _BATCH)
    return len(docs) / (time.perf_counter() - started)


def _latency(search: Callable[[int], object], queries: int, budget_s: float | None) -> Latency:
    for i in range(min(10, queries)):  # warm-up: caches, lazily loaded segments
        search(i)
    times: list[float] = []
    started = time.perf_counter()
    capped = False
    for i in range(queries):
        t0 = time.perf_counter()
        search(i)
        times.append((time.perf_counter() - t0) * 1000)
        if budget_s is not None and time.perf_counter() - started > budget_s and i >= 19:
            capped = i + 1 < queries
            break
    times.sort()
    return Latency(
        p50_ms=round(statistics.median(times), 3),
        p99_ms=round(times[min(len(times) - 1, int(len(times) * 0.99))], 3),
        mean_ms=round(statistics.fmean(times), 3),
        queries=len(times),
        capped=capped,
    )


def _search_calls(engine: VectorEngine, corpus: SyntheticCorpus) -> dict[str, Callable]:
    fetch = max(TOP_K * 3, 20)  # what KnowledgeBase.search asks for, then cuts to k
    queries, tenants = corpus.queries, corpus.query_tenants
    store: Any = engine.store

    def hybrid(i: int) -> object:
        return engine.search(queries[i], fetch, _tenant_filter(tenants[i]))[:TOP_K]

    def hybrid_all(i: int) -> object:
        return engine.search(queries[i], fetch, _ALL_FILTER)[:TOP_K]

    def dense(i: int) -> object:
        vector = corpus.dense.embed_query(queries[i])
        flt = _tenant_filter(tenants[i])
        return store.similarity_search_with_score_by_vector(vector, k=TOP_K, filter=flt)

    return {"hybrid_tenant": hybrid, "hybrid_all": hybrid_all, "dense_tenant": dense}


def _disk_mb(path: Path) -> float:
    size = sum(f.stat().st_size for f in path.rglob("*") if f.is_file())
    return round(size / 2**20, 1)


def run_engine(
    engine_name: str, size: int, corpus: SyntheticCorpus, config: BenchConfig, workdir: Path
) -> list[EngineRun]:
    """Measure one engine at one size (edge also reports its optimized state)."""
    if engine_name == "local" and size > config.local_max_size:
        reason = f"skipped: brute force in Python, above {config.local_max_size} chunks"
        return [EngineRun(engine_name, size, skipped=reason)]
    budget = config.local_budget_s if engine_name == "local" else None
    docs, ids = corpus.documents(size)
    result = EngineRun(engine_name, size)
    runs = [result]

    sparse_path = workdir / f"{engine_name}-{size}-sparse"
    sparse = _open("sparse", engine_name, sparse_path, None)
    result.ingest_sparse_cps = round(_ingest(sparse, docs, ids), 1)

    def sparse_search(i: int) -> object:
        flt = _tenant_filter(corpus.query_tenants[i])
        return sparse.search(corpus.queries[i], max(TOP_K * 3, 20), flt)[:TOP_K]

    hybrid_path = workdir / f"{engine_name}-{size}-hybrid"
    hybrid = _open("hybrid", engine_name, hybrid_path, corpus.dense)
    try:
        result.ingest_hybrid_cps = round(_ingest(hybrid, docs, ids), 1)
        calls = _search_calls(hybrid, corpus)
        calls["sparse_tenant"] = sparse_search
        for name, call in calls.items():
            result.latency[name] = _latency(call, config.queries, budget)
        if engine_name == "edge":
            optimized = EngineRun("edge (optimized)", size)
            started = time.perf_counter()
            hybrid.optimize()
            sparse.optimize()
            optimized.optimize_s = round(time.perf_counter() - started, 2)
            for name, call in calls.items():
                optimized.latency[name] = _latency(call, config.queries, budget)
            runs.append(optimized)
    finally:
        hybrid.close()
        sparse.close()
    result.disk_mb = _disk_mb(hybrid_path)
    shutil.rmtree(sparse_path, ignore_errors=True)
    shutil.rmtree(hybrid_path, ignore_errors=True)
    return runs


def run(config: BenchConfig, log: Callable[[str], None] = lambda _: None) -> dict[str, Any]:
    """Run the benchmark and return its results as JSON-ready data."""
    own_workdir = config.workdir is None
    workdir = Path(tempfile.mkdtemp(prefix="engine-bench-")) if own_workdir else config.workdir
    assert workdir is not None
    workdir.mkdir(parents=True, exist_ok=True)
    started = time.perf_counter()
    log(f"generating {max(config.sizes)} chunks and {config.queries} queries")
    corpus = SyntheticCorpus(max(config.sizes), config.queries, config.seed)
    runs: list[EngineRun] = []
    try:
        for size in sorted(config.sizes):
            for engine in config.engines:
                log(f"{engine} at {size} chunks")
                runs.extend(run_engine(engine, size, corpus, config, workdir))
    finally:
        if own_workdir:
            shutil.rmtree(workdir, ignore_errors=True)
    return {
        "environment": _environment(),
        "config": {
            "sizes": list(config.sizes),
            "queries": config.queries,
            "engines": list(config.engines),
            "local_max_size": config.local_max_size,
            "local_budget_s": config.local_budget_s,
            "top_k": TOP_K,
            "tenants": TENANTS,
            "dense_dim": DIM,
            "seed": config.seed,
        },
        "targets": {
            "edge_hybrid_tenant_p50_ms_at_50k": TARGET_P50_MS,
            "edge_hybrid_tenant_p99_ms_at_50k": TARGET_P99_MS,
            "ingest_sparse_cps": TARGET_SPARSE_CPS,
        },
        "runs": [asdict(r) for r in runs],
        "elapsed_s": round(time.perf_counter() - started, 1),
    }


def _environment() -> dict[str, Any]:
    import os

    def version(name: str) -> str | None:
        try:
            return importlib_metadata.version(name)
        except importlib_metadata.PackageNotFoundError:
            return None

    return {
        "python": platform.python_version(),
        "machine": platform.machine(),
        "cpus": os.cpu_count(),
        # Other work on the machine skews latencies: the 1-minute load when the run ended.
        "load_average_1m": round(os.getloadavg()[0], 2),
        "qdrant-edge-py": version("qdrant-edge-py"),
        "qdrant-client": version("qdrant-client"),
        "langchain-qdrant": version("langchain-qdrant"),
        "date": time.strftime("%Y-%m-%d %H:%M:%S %Z"),
    }


_COLUMNS = (
    ("hybrid_tenant", "hybrid, tenant filter"),
    ("hybrid_all", "hybrid, filter = all"),
    ("dense_tenant", "dense, tenant filter"),
    ("sparse_tenant", "sparse, tenant filter"),
)


def to_markdown(results: dict[str, Any]) -> str:
    """Return the results as a Markdown report (one table, then the verdict on the targets)."""
    env = results["environment"]
    lines = [
        "# Vector engine benchmark",
        "",
        f"{env['cpus']} CPUs (load {env['load_average_1m']} at the end), "
        f"Python {env['python']}, qdrant-edge-py {env['qdrant-edge-py']}, "
        f"qdrant-client {env['qdrant-client']}; top-{results['config']['top_k']}, "
        f"{results['config']['tenants']} tenants, {results['config']['queries']} queries "
        f"per cell, dense = random unit vectors of {results['config']['dense_dim']} dims.",
        "Latencies in ms as p50 / p99 (a `*` marks a measurement cut by its time budget,"
        " with the number of queries run).",
        "",
        "| chunks | engine | ingest sparse (chunks/s) | ingest dense+sparse (chunks/s) "
        "| optimize (s) | " + " | ".join(title for _, title in _COLUMNS) + " |",
        "|---:|---|---:|---:|---:|" + "---:|" * len(_COLUMNS),
    ]
    for run_ in results["runs"]:
        if run_["skipped"]:
            cells = [run_["skipped"]] + [""] * (3 + len(_COLUMNS))
        else:
            cells = [
                _num(run_["ingest_sparse_cps"]),
                _num(run_["ingest_hybrid_cps"]),
                _num(run_["optimize_s"]),
            ]
            cells += [_lat(run_["latency"].get(key)) for key, _ in _COLUMNS]
        lines.append(f"| {run_['size']:,} | {run_['engine']} | " + " | ".join(cells) + " |")
    lines += ["", *_verdict(results)]
    return "\n".join(lines) + "\n"


def _num(value: float | None) -> str:
    if value is None:
        return "–"
    return f"{value:,.0f}" if value >= 100 else f"{value:,.2f}"


def _lat(latency: dict[str, Any] | None) -> str:
    if not latency:
        return "–"
    text = f"{latency['p50_ms']:.2f} / {latency['p99_ms']:.2f}"
    return f"{text} *{latency['queries']}" if latency["capped"] else text


def _verdict(results: dict[str, Any]) -> list[str]:
    lines = []
    edge = [r for r in results["runs"] if r["engine"] == "edge" and not r["skipped"]]
    if edge:
        largest = max(edge, key=lambda r: r["size"])
        lat = largest["latency"]["hybrid_tenant"]
        ok = lat["p50_ms"] <= TARGET_P50_MS and lat["p99_ms"] <= TARGET_P99_MS
        lines.append(
            f"- Edge, filtered hybrid top-10 at {largest['size']:,} chunks: p50 "
            f"{lat['p50_ms']:.2f} ms, p99 {lat['p99_ms']:.2f} ms "
            f"(target ≤ {TARGET_P50_MS:g} / ≤ {TARGET_P99_MS:g}): {'met' if ok else 'NOT met'}."
        )
        slowest = min(r["ingest_sparse_cps"] for r in edge)
        lines.append(
            f"- Edge, sparse ingestion: ≥ {slowest:,.0f} chunks/s at every size "
            f"(target ≥ {TARGET_SPARSE_CPS:,.0f}): "
            f"{'met' if slowest >= TARGET_SPARSE_CPS else 'NOT met'}."
        )
    return lines


def main(argv: Sequence[str] | None = None) -> int:
    """Command line entry point: run the benchmark, write JSON and Markdown.

    Args:
        argv: Arguments (``sys.argv[1:]`` when None). The first is the output: a
            ``.json`` file (the Markdown goes next to it, as ``.md``) or a directory
            (``engine_bench.json`` and ``engine_bench.md`` in it).

    Returns:
        The process exit code: 0, or 1 when an edge target is missed.
    """
    parser = argparse.ArgumentParser(prog="engine_bench", description=__doc__.split("\n")[0])
    parser.add_argument("output", type=Path, help="a .json file or a directory")
    parser.add_argument("--sizes", default="1000,10000,50000", help="comma-separated")
    parser.add_argument("--queries", type=int, default=300)
    parser.add_argument("--engines", default="edge,local", help="edge and/or local")
    parser.add_argument("--local-max-size", type=int, default=10_000)
    parser.add_argument("--local-budget", type=float, default=120.0, help="seconds")
    parser.add_argument("--workdir", type=Path, default=None)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args(argv)
    config = BenchConfig(
        sizes=tuple(int(s) for s in args.sizes.split(",") if s),
        queries=args.queries,
        engines=tuple(e for e in args.engines.split(",") if e),
        local_max_size=args.local_max_size,
        local_budget_s=args.local_budget,
        workdir=args.workdir,
        seed=args.seed,
    )
    unknown = set(config.engines) - {"edge", "local"}
    if unknown:
        parser.error(f"unknown engines: {', '.join(sorted(unknown))}")
    output: Path = args.output
    if output.suffix == ".json":
        json_path, md_path = output, output.with_suffix(".md")
    else:
        json_path, md_path = output / "engine_bench.json", output / "engine_bench.md"
    json_path.parent.mkdir(parents=True, exist_ok=True)

    def log(message: str) -> None:
        print(f"[engine_bench] {message}", flush=True)  # noqa: T201 - a CLI's progress

    results = run(config, log)
    json_path.write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")
    report = to_markdown(results)
    md_path.write_text(report, encoding="utf-8")
    print(report)  # noqa: T201 - the CLI's output
    missed = any("NOT met" in line for line in _verdict(results))
    return 1 if missed else 0


if __name__ == "__main__":
    raise SystemExit(main())
