"""Turn overhead without an LLM: per graph node and end to end, at 1k, 10k and 50k chunks.

For each index size the benchmark

1. grows one embedded (Qdrant Edge) index to that many chunks: `data/sample` is
   ingested first through `KnowledgeBase.ingest_paths` with the real default
   embeddings (hybrid: MiniLM + BM25); the bulk is synthetic Markdown documents
   (Zipf-distributed English/French words around the sample data's vocabulary, cut
   by the real chunker, with the metadata `KnowledgeBase` writes), all in the tenant
   every turn searches (the worst case for the tenant filter);
2. runs conversations (summaries, outline references such as "Détaille S2", context
   follow-ups, catalog tool questions, greetings) through `ChatService.run_turn` with
   the offline model, timing every graph node (a LangChain callback handler keyed on
   the ``langgraph_node`` metadata: wall and CPU time) and the whole turn;
3. serves the same data directory with `threadline serve` and measures ``POST /chat``
   throughput with concurrent clients on loopback;
4. starts `threadline serve` afresh and times its first ``POST /chat`` (as soon as
   ``/health`` answers) against the same question asked again afterwards: what a
   server had not loaded before its first question shows as the difference.

It also measures ingestion throughput through the real path (`ingest_paths` over
Markdown files: load, chunk, embed, upsert, optimize) with sparse-only and with hybrid
embeddings, and the dense model's own speed.

**The bulk path.** Embedding 50k chunks with MiniLM on 2 CPU cores takes minutes to
tens of minutes (the result says how long, from the measured chunks/s), so the
synthetic bulk is written with random unit vectors for the dense part (BM25 sparse
vectors are real) through `EdgeEngine.add_documents` with a stand-in `Embeddings`,
i.e. the same payload layout, point ids and upsert batches as `KnowledgeBase`, then
`optimize()` builds the HNSW and sparse indexes. The sample documents and every query
use the real model. Random vectors are no easier for HNSW than real ones.

Turns with no callback handler give the end-to-end numbers; the node numbers come
from every other conversation, run with the handler (same scripts in both halves).

Why one module of about 740 lines: the node probes, the conversation runner, the
JSON-vs-PostgreSQL comparison, the ingestion and HTTP measurements and the table all
fill one result and change together; the corpus generator (`synthetic_index`) and
the server process (`server_process`) are apart.

Usage::

    python -m benchmarks.turns --out bench-out/turns.json [--sizes 1000,10000,50000]
"""

from __future__ import annotations

import argparse
import asyncio
import contextvars
import gc
import os
import shutil
import sys
import tempfile
import time
from collections import Counter, defaultdict
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx

from benchmarks.load import CONVERSATIONS, DEFAULT_SAMPLE_DIR, drive, summarise
from benchmarks.report import environment, machine_line, percentiles, write_outputs
from benchmarks.server_process import ServerProcess, rss_kb
from benchmarks.synthetic_index import SECTIONS_PER_DOC, SyntheticDocs, bulk_documents, grow_index

TARGET_P50_MS = 20.0
TARGET_P99_MS = 60.0
TARGET_SIZE = 10_000
TARGET_TURNS_PER_S = 50.0
NODES = (
    "load_conversation",
    "route_turn",
    "reformulate",
    "retrieve",
    "use_tool",
    "generate",
    "reply",
    "clarify",
    "persist",
)
# --- per-node timing ------------------------------------------------------------------

_HANDLER: contextvars.ContextVar[Any] = contextvars.ContextVar(
    "threadline_bench_nodes", default=None
)
_HOOKED = False


def _node_handler_class() -> type:
    from langchain_core.callbacks import BaseCallbackHandler

    class NodeTimer(BaseCallbackHandler):
        """Wall and CPU time of each graph node run (chain runs named as their node)."""

        def __init__(self) -> None:
            self.open: dict[Any, tuple[str, float, float]] = {}
            self.turn: list[tuple[str, float, float]] = []

        def on_chain_start(self, serialized, inputs, *, run_id, metadata=None, **kwargs):  # noqa: ANN001
            node = (metadata or {}).get("langgraph_node")
            if node and kwargs.get("name") == node:
                self.open[run_id] = (node, time.perf_counter(), time.thread_time())

        def on_chain_end(self, outputs, *, run_id, **kwargs):  # noqa: ANN001
            entry = self.open.pop(run_id, None)
            if entry:
                node, wall, cpu = entry
                self.turn.append(
                    (node, (time.perf_counter() - wall) * 1000, (time.thread_time() - cpu) * 1000)
                )

        on_chain_error = on_chain_end

    return NodeTimer


def _install_hook() -> None:
    """Let a handler in ``_HANDLER`` see every run, without touching `ChatService`."""
    global _HOOKED
    if not _HOOKED:
        from langchain_core.tracers.context import register_configure_hook

        register_configure_hook(_HANDLER, inheritable=True)
        _HOOKED = True


class Probes:
    """Counts and times dense query embeddings and `KnowledgeBase.search` calls per turn.

    Wraps the methods on the instances (the process-wide cached MiniLM and this
    knowledge base), not the modules.
    """

    def __init__(self, kb: Any, dense: Any | None) -> None:
        self.embed_ms: list[float] = []
        self.search_ms: list[float] = []
        original_search = kb.search

        def search(*args: Any, **kwargs: Any) -> Any:
            t0 = time.perf_counter()
            try:
                return original_search(*args, **kwargs)
            finally:
                self.search_ms.append((time.perf_counter() - t0) * 1000)

        kb.search = search
        self._kb, self._dense = kb, dense
        # A batched search counts as one search, whole chunks or hits only (`rank_many`,
        # whose kept chunks `hit_chunks` reads afterwards, within the retrieve node).
        for name in ("search_many", "rank_many"):
            original_many = getattr(kb, name, None)
            if original_many is not None:
                setattr(kb, name, self._timed(original_many))
        if dense is not None:
            original_embed = dense.embed_query

            def embed_query(text: str) -> Any:
                t0 = time.perf_counter()
                try:
                    return original_embed(text)
                finally:
                    self.embed_ms.append((time.perf_counter() - t0) * 1000)

            object.__setattr__(dense, "embed_query", embed_query)
            original_batch = dense.embed_query_batch

            def embed_query_batch(texts: list[str]) -> Any:
                # A batch of queries (one call, its passes grouped by length) counts as
                # one embedding call.
                t0 = time.perf_counter()
                try:
                    return original_batch(texts)
                finally:
                    self.embed_ms.append((time.perf_counter() - t0) * 1000)

            object.__setattr__(dense, "embed_query_batch", embed_query_batch)

    def _timed(self, batched: Callable[..., Any]) -> Callable[..., Any]:
        def timed(*args: Any, **kwargs: Any) -> Any:
            t0 = time.perf_counter()
            try:
                return batched(*args, **kwargs)
            finally:
                self.search_ms.append((time.perf_counter() - t0) * 1000)

        return timed

    def close(self) -> None:
        """Remove the wrappers."""
        for name in ("search", "search_many", "rank_many"):
            self._kb.__dict__.pop(name, None)
        for name in ("embed_query", "embed_query_batch"):
            if self._dense is not None and name in self._dense.__dict__:
                object.__delattr__(self._dense, name)

    def take(self) -> tuple[list[float], list[float]]:
        """Return this turn's (embed ms, search ms) lists and reset them."""
        out = (self.embed_ms, self.search_ms)
        self.embed_ms, self.search_ms = [], []
        return out


def run_conversations(
    chat: Any, probes: Probes, turns: int, prefix: str, warmup: int = 1
) -> dict[str, Any]:
    """Run ~``turns`` turns, alternating plain and instrumented conversations.

    Conversations alternate per full round of the scripts between plain (end-to-end
    numbers) and instrumented (node numbers).
    """
    from threadline.chat import TurnRequest

    _install_hook()
    timer_class = _node_handler_class()
    e2e: list[float] = []
    e2e_cpu: list[float] = []
    e2e_process_cpu: list[float] = []
    e2e_instrumented: list[float] = []
    e2e_by_route: dict[str, list[float]] = defaultdict(list)
    node_wall: dict[str, list[float]] = defaultdict(list)
    node_cpu: dict[str, list[float]] = defaultdict(list)
    embed_calls: list[int] = []
    embed_call_ms: list[float] = []
    search_calls: list[int] = []
    search_call_ms: list[float] = []
    outcomes: Counter[str] = Counter()
    done = conversation = 0
    rounds = len(CONVERSATIONS)
    while done < turns:
        script = CONVERSATIONS[conversation % rounds]
        instrumented = (conversation // rounds) % 2 == 1
        counted = conversation >= warmup * rounds
        timer = timer_class() if instrumented else None
        thread = f"{prefix}-{conversation:05d}"
        for query in script:
            token = _HANDLER.set(timer)
            try:
                t0, c0, p0 = time.perf_counter(), time.thread_time(), time.process_time()
                result = chat.run_turn(TurnRequest(query=query, thread_id=thread))
                ms = (time.perf_counter() - t0) * 1000
                cpu_ms = (time.thread_time() - c0) * 1000
                # The whole process's CPU: with ONNX Runtime's and the engine's threads,
                # which the turn's own thread time leaves out (nothing else runs here).
                process_cpu_ms = (time.process_time() - p0) * 1000
            finally:
                _HANDLER.reset(token)
            embeds, searches = probes.take()
            rows = timer.turn if timer else []
            if timer:
                timer.turn = []
            if not counted:
                continue
            done += 1
            outcomes[f"{result.route}/{result.outcome}"] += 1
            embed_calls.append(len(embeds))
            embed_call_ms.extend(embeds)
            search_calls.append(len(searches))
            search_call_ms.extend(searches)
            if instrumented:
                e2e_instrumented.append(ms)
                for node, wall, cpu in rows:
                    node_wall[node].append(wall)
                    node_cpu[node].append(cpu)
            else:
                e2e.append(ms)
                e2e_cpu.append(cpu_ms)
                e2e_process_cpu.append(process_cpu_ms)
                e2e_by_route[result.route].append(ms)
        conversation += 1
    return {
        "turns": done,
        "e2e_ms": percentiles(e2e, (50, 95, 99)),
        "e2e_cpu_ms": percentiles(e2e_cpu, (50, 95, 99)),
        "e2e_process_cpu_ms": percentiles(e2e_process_cpu, (50, 95, 99)),
        "e2e_instrumented_ms": percentiles(e2e_instrumented, (50, 99)),
        "e2e_by_route_ms": {r: percentiles(v, (50, 99)) for r, v in sorted(e2e_by_route.items())},
        "nodes_ms": {n: percentiles(node_wall[n], (50, 99)) for n in NODES if node_wall.get(n)},
        "nodes_cpu_ms": {n: percentiles(node_cpu[n], (50, 99)) for n in NODES if node_cpu.get(n)},
        "dense_embed_calls_per_turn": round(sum(embed_calls) / max(len(embed_calls), 1), 2),
        "dense_embed_call_ms": percentiles(embed_call_ms, (50, 99)),
        "searches_per_turn": round(sum(search_calls) / max(len(search_calls), 1), 2),
        "search_call_ms": percentiles(search_call_ms, (50, 99)),
        "outcomes": dict(outcomes),
    }


def compare_stores(
    settings: Any, postgres_url: str, turns: int, prefix: str, log: Callable[[str], None]
) -> dict[str, Any]:
    """Run the same conversations with the JSON store and with PostgreSQL, interleaved.

    One index and one model serve both (the embedded index allows one holder), and
    conversations alternate between the two stores, so both see the same machine load
    (on a shared machine, two runs one after the other can differ by more than the
    difference being measured).
    """
    from pydantic import SecretStr

    from threadline.chat import ChatService, TurnRequest
    from threadline.services import Services

    on_json = Services(settings)
    on_pg = Services(settings.model_copy(update={"database_url": SecretStr(postgres_url)}))
    on_pg.__dict__["kb"] = on_json.kb  # the same open index for both
    on_pg.__dict__["llm"] = on_json.llm
    chats = {"json": ChatService(on_json), "postgres": ChatService(on_pg)}
    wall: dict[str, list[float]] = {name: [] for name in chats}
    cpu: dict[str, list[float]] = {name: [] for name in chats}
    rounds = len(CONVERSATIONS)
    conversation = 0
    try:
        while min(len(v) for v in wall.values()) < turns:
            script = CONVERSATIONS[conversation % rounds]
            for name, chat in chats.items():
                thread = f"{prefix}-{name}-{conversation:05d}"
                for query in script:
                    t0, c0 = time.perf_counter(), time.thread_time()
                    chat.run_turn(TurnRequest(query=query, thread_id=thread))
                    if conversation >= rounds:  # the first round of scripts warms up
                        wall[name].append((time.perf_counter() - t0) * 1000)
                        cpu[name].append((time.thread_time() - c0) * 1000)
            conversation += 1
    finally:
        on_pg.__dict__.pop("kb", None)
        on_pg.close()
        on_json.close()
    result = {
        name: {
            "turns": len(wall[name]),
            "e2e_ms": percentiles(wall[name], (50, 95, 99)),
            "e2e_cpu_ms": percentiles(cpu[name], (50, 95, 99)),
        }
        for name in chats
    }
    result["p50_difference_ms"] = round(
        result["postgres"]["e2e_ms"]["p50"] - result["json"]["e2e_ms"]["p50"], 2
    )
    log(
        f"  interleaved: JSON p50 {result['json']['e2e_ms']['p50']} ms, PostgreSQL p50 "
        f"{result['postgres']['e2e_ms']['p50']} ms ({result['p50_difference_ms']:+.2f} ms)"
    )
    return result


# --- ingestion ------------------------------------------------------------------------


def _write_markdown(directory: Path, gen: SyntheticDocs, chunks: int) -> None:
    directory.mkdir(parents=True, exist_ok=True)
    written = 0
    while written < chunks:
        name, _, text = gen.document()
        (directory / f"{name}.md").write_text(text, "utf-8")
        written += SECTIONS_PER_DOC


def measure_ingestion(
    workdir: Path, chunks: int, hybrid_chunks: int, log: Callable[[str], None]
) -> dict[str, Any]:
    """Real-path ingestion (`ingest_paths`: load, chunk, embed, upsert, optimize) in chunks/s.

    Sparse-only over ``chunks`` chunks, hybrid over ``hybrid_chunks`` (the dense model
    makes it ~100x slower, so it gets fewer).
    """
    from threadline.knowledge.embeddings import load_dense_model
    from threadline.services import Services
    from threadline.settings import Settings

    out: dict[str, Any] = {"chunks_requested": {"sparse": chunks, "hybrid": hybrid_chunks}}
    for mode, size in (("sparse", chunks), ("hybrid", hybrid_chunks)):
        docs_dir = workdir / f"ingest-docs-{mode}"
        _write_markdown(docs_dir, SyntheticDocs(seed=5), size)
        data_dir = workdir / f"ingest-{mode}"
        settings = Settings(
            _env_file=None, data_dir=data_dir, embeddings=mode, llm="offline", qdrant_url=None
        )
        services = Services(settings)
        services.kb  # noqa: B018 - open the engine and load the model before timing
        t0 = time.perf_counter()
        report = services.kb.ingest_paths([docs_dir])
        elapsed = time.perf_counter() - t0
        services.close()
        shutil.rmtree(data_dir, ignore_errors=True)
        shutil.rmtree(docs_dir, ignore_errors=True)
        out[mode] = {
            "chunks": report.chunks_written,
            "seconds": round(elapsed, 2),
            "chunks_per_s": round(report.chunks_written / elapsed, 1),
        }
        log(f"  ingest {mode}: {report.chunks_written} chunks in {elapsed:.1f}s")
    # The dense model alone, on chunk-sized texts (what bounds hybrid ingestion).
    dense = load_dense_model()
    gen = SyntheticDocs(seed=6)
    texts, _ = bulk_documents(gen, 256)
    t0 = time.perf_counter()
    dense.embed_documents([d.page_content for d in texts])
    per_s = 256 / (time.perf_counter() - t0)
    out["dense_model_chunks_per_s"] = round(per_s, 1)
    out["dense_model_50k_minutes"] = round(50_000 / per_s / 60, 1)
    return out


# --- POST /chat -----------------------------------------------------------------------


def measure_http(
    data_dir: Path, clients: int, seconds: float, warmup: float, env: dict[str, str]
) -> dict[str, Any]:
    """``POST /chat`` throughput of `threadline serve` over this data directory."""
    server = ServerProcess(data_dir, "hybrid", data_dir.parent / "http-server.log", env)
    try:
        server.wait_healthy(timeout=300)
        if warmup:
            asyncio.run(drive(server.url, None, clients, warmup, "hwarm"))
        rss = rss_kb(server.pid)
        raw = asyncio.run(drive(server.url, server.pid, clients, seconds, "http"))
        summary = summarise(raw, 0)
        errors = server.log_errors()
    finally:
        server.stop()
    return {
        "clients": clients,
        "seconds": seconds,
        "turns": summary["turns"],
        "errors": summary["errors"] + len(errors),
        "turns_per_s": summary["turns_per_s"],
        "latency_ms": summary["latency_ms"],
        "rss_mib": round((rss or 0) / 1024),
    }


# --- the first POST /chat after start --------------------------------------------------

FIRST_QUESTION = CONVERSATIONS[0][1]
"""The question asked first ("Résume le rapport annuel 2024"): a search, the evidence
check and an answer, every stage a question's first run may find unloaded."""


def measure_first_turn(data_dir: Path, asks: int, env: dict[str, str]) -> dict[str, Any]:
    """``POST /chat`` of a server's first question against the same question asked later.

    Starts `threadline serve` over this data directory, asks `FIRST_QUESTION` as soon
    as ``/health`` answers, then again ``asks - 1`` times, each in a new conversation:
    the same work every time, so what the first costs more is what the server had not
    loaded yet.
    """
    started = time.perf_counter()
    server = ServerProcess(data_dir, "hybrid", data_dir.parent / "first-turn-server.log", env)
    try:
        server.wait_healthy(timeout=300)
        ready_s = time.perf_counter() - started
        rss_ready = rss_kb(server.pid)
        times: list[float] = []
        with httpx.Client(base_url=server.url, timeout=120) as client:
            for number in range(asks):
                t0 = time.perf_counter()
                response = client.post(
                    "/chat", json={"query": FIRST_QUESTION, "thread_id": f"first-{number}"}
                )
                times.append((time.perf_counter() - t0) * 1000)
                response.raise_for_status()
        errors = server.log_errors()
    finally:
        server.stop()
    return {
        "question": FIRST_QUESTION,
        "start_to_health_s": round(ready_s, 2),
        "first_ms": round(times[0], 2),
        "later_ms": percentiles(times[1:], (50, 99)),
        "errors": len(errors),
        "rss_mib_at_health": round((rss_ready or 0) / 1024),
    }


# --- the whole run --------------------------------------------------------------------


@dataclass(frozen=True)
class SizeMeasurement:
    """The turns timed on the index grown to one size."""

    size: int
    chunks: int
    growth: dict[str, Any] | None  # `grow_index`'s result, None when already that large
    load_before: float  # 1-min load average when the turns started and ended
    load_after: float
    measured: dict[str, Any]  # `run_conversations`'s result


def measure_sizes(
    settings: Any,
    sizes: Sequence[int],
    turns: int,
    label: str,
    log: Callable[[str], None],
    *,
    sample_dir: Path = DEFAULT_SAMPLE_DIR,
    profile_dir: Path | None = None,
) -> Iterator[SizeMeasurement]:
    """Ingest the sample data, then grow the index to each size and time turns on it.

    The services are opened afresh at each size (as a restarted server opens them) and
    closed before the size's measurement is yielded, so the caller may start other
    users of the same data directory (a server process, a PostgreSQL-backed service)
    between two sizes.
    """
    from threadline.chat import ChatService
    from threadline.heap import freeze_startup_heap
    from threadline.knowledge.embeddings import load_dense_model
    from threadline.services import Services

    services = Services(settings)
    t0 = time.perf_counter()
    report = services.kb.ingest_paths([sample_dir])  # with the real dense model
    current = services.kb.count()
    log(f"sample data: {report.summary()} in {time.perf_counter() - t0:.1f}s")
    services.close()
    gen = SyntheticDocs()
    for size in sorted(sizes):
        log(f"size {size}")
        growth = None
        if size > current:
            growth = grow_index(settings, gen, size - current, log)
            current = growth["total"]
        services = Services(settings)
        services.kb  # noqa: B018 - open the index before timing
        chat = ChatService(services)
        dense = load_dense_model(settings.dense_model_path, settings.dense_runtime)
        probes = Probes(services.kb, dense)
        freeze_startup_heap()  # as the server does once its startup is done
        load_before = round(os.getloadavg()[0], 2)
        measured = run_conversations(chat, probes, turns, f"{label}-{size}")
        load_after = round(os.getloadavg()[0], 2)
        if profile_dir is not None:
            _profile(chat, probes, profile_dir / f"{label}-{size}", size)
        chunks = services.kb.count()
        probes.close()
        services.close()
        del chat, services, probes
        gc.unfreeze()  # the next size starts its services afresh: these may go
        gc.collect()
        yield SizeMeasurement(size, chunks, growth, load_before, load_after, measured)


def run(
    *,
    sizes: Sequence[int] = (1_000, 10_000, 50_000),
    turns: int = 240,
    http_seconds: float = 30.0,
    http_clients: int = 16,
    first_turn_asks: int = 10,
    ingest_chunks: int = 2_000,
    ingest_hybrid_chunks: int = 300,
    torch_threads: int | None = None,
    server_env: dict[str, str] | None = None,
    sample_dir: Path = DEFAULT_SAMPLE_DIR,
    profile_dir: Path | None = None,
    workdir: Path | None = None,
    log: Callable[[str], None] = print,
    postgres_url: str | None = None,
) -> dict[str, Any]:
    """Measure every size; JSON-ready results.

    With ``postgres_url`` the same conversations run a second time at each size with the
    store and queries log in that (migrated) database, on the same index, right after
    the JSON-store run, so the two end-to-end numbers compare under the same load.
    """
    from threadline.settings import Settings

    if torch_threads:
        import torch

        torch.set_num_threads(torch_threads)
    base = Path(workdir) if workdir else Path(tempfile.mkdtemp(prefix="threadline-turns-"))
    base.mkdir(parents=True, exist_ok=True)
    data_dir = base / "data"
    started = time.perf_counter()
    results: dict[str, Any] = {"benchmark": "turns", "sizes": []}
    try:
        if ingest_chunks:
            log(f"ingestion throughput over {ingest_chunks} chunks")
            results["ingestion"] = measure_ingestion(base, ingest_chunks, ingest_hybrid_chunks, log)
        settings = Settings(
            _env_file=None, data_dir=data_dir, embeddings="hybrid", llm="offline", qdrant_url=None
        )
        for at_size in measure_sizes(
            settings, sizes, turns, "turns", log, sample_dir=sample_dir, profile_dir=profile_dir
        ):
            measured = at_size.measured
            log(
                f"  e2e p50 {measured['e2e_ms']['p50']} ms, p99 {measured['e2e_ms']['p99']} ms; "
                + ", ".join(f"{n} {v['p50']}/{v['p99']}" for n, v in measured["nodes_ms"].items())
            )
            size = at_size.size
            on_postgres = None
            if postgres_url is not None:
                on_postgres = compare_stores(settings, postgres_url, turns, f"cmp-{size}", log)
            entry: dict[str, Any] = {
                "size": size,
                "chunks": at_size.chunks,
                "growth": at_size.growth,
                "load_average_before": at_size.load_before,
                **measured,
            }
            if on_postgres is not None:
                entry["store_comparison"] = on_postgres
            if http_seconds:
                log(f"  POST /chat: {http_clients} clients for {http_seconds:.0f}s")
                entry["http"] = measure_http(
                    data_dir, http_clients, http_seconds, min(5.0, http_seconds), server_env or {}
                )
                log(
                    f"  {entry['http']['turns_per_s']} turns/s, p50 "
                    f"{entry['http']['latency_ms']['p50']} ms, errors {entry['http']['errors']}"
                )
            if first_turn_asks:
                log(f"  first POST /chat after start, then {first_turn_asks - 1} more")
                entry["first_turn"] = measure_first_turn(
                    data_dir, first_turn_asks, server_env or {}
                )
                first = entry["first_turn"]
                log(
                    f"  /health after {first['start_to_health_s']} s; first turn "
                    f"{first['first_ms']} ms, later p50 {first['later_ms']['p50']} ms"
                )
            results["sizes"].append(entry)
        results["environment"] = environment(data_dir)
    finally:
        if workdir is None:
            shutil.rmtree(base, ignore_errors=True)
    results["config"] = {
        "sizes": list(sizes),
        "turns_per_size": turns,
        "embeddings": "hybrid (MiniLM + BM25); synthetic bulk with random dense vectors",
        "llm": "offline",
        "conversations": [list(c) for c in CONVERSATIONS],
        "http_clients": http_clients,
        "http_seconds": http_seconds,
        "first_turn_asks": first_turn_asks,
        "torch_threads": torch_threads,
        "server_env": server_env or {},
    }
    results["targets"] = {
        "size": TARGET_SIZE,
        "e2e_p50_ms": TARGET_P50_MS,
        "e2e_p99_ms": TARGET_P99_MS,
        "turns_per_s": TARGET_TURNS_PER_S,
    }
    results["verdict"] = _verdict(results)
    results["elapsed_s"] = round(time.perf_counter() - started, 1)
    return results


def _profile(chat: Any, probes: Probes, out: Path, size: int) -> None:
    """Write a pyinstrument profile of one round of the scripts (if pyinstrument is installed)."""
    try:
        from pyinstrument import Profiler
    except ImportError:
        return
    profiler = Profiler(interval=0.0005)
    profiler.start()
    run_conversations(chat, probes, len(sum(CONVERSATIONS, ())) * 2, f"prof-{size}", warmup=0)
    profiler.stop()
    out.parent.mkdir(parents=True, exist_ok=True)
    out.with_suffix(".txt").write_text(profiler.output_text(unicode=True, show_all=False), "utf-8")
    out.with_suffix(".html").write_text(profiler.output_html(), "utf-8")


def _verdict(results: dict[str, Any]) -> dict[str, Any]:
    at = next((s for s in results["sizes"] if s["size"] == TARGET_SIZE), None)
    verdict: dict[str, Any] = {"measured_at_target_size": at is not None}
    if at is not None:
        verdict["e2e_p50_met"] = at["e2e_ms"]["p50"] <= TARGET_P50_MS
        verdict["e2e_p99_met"] = at["e2e_ms"]["p99"] <= TARGET_P99_MS
        if "http" in at:
            verdict["turns_per_s_met"] = at["http"]["turns_per_s"] >= TARGET_TURNS_PER_S
    return verdict


def _cell(p: dict[str, Any] | None) -> str:
    if not p or p.get("p50") is None:
        return "–"
    return f"{p['p50']:.1f} / {p['p99']:.1f}"


def to_markdown(results: dict[str, Any]) -> str:
    """Tables for the README: per node and end to end, POST /chat, ingestion."""
    env = results.get("environment") or {}
    shown = [n for n in NODES if any(n in s["nodes_ms"] for s in results["sizes"])]
    # Results kept from before the column was measured render as they were.
    process_cpu = any("e2e_process_cpu_ms" in s for s in results["sizes"])
    lines = [
        "### Turn overhead without an LLM (offline model)",
        "",
        (machine_line(env) + " ") if env else "",
        "Hybrid embeddings (MiniLM query embeddings + BM25), embedded Qdrant Edge index, "
        f"{results['config']['turns_per_size']} turns per size through `ChatService.run_turn` "
        "(summaries, `Détaille S2`, context follow-ups, tool questions, greetings). "
        "Milliseconds, p50 / p99; a node's numbers cover the turns that ran it.",
        "",
        "| chunks | end to end | end to end, CPU | "
        + ("process CPU | " if process_cpu else "")
        + " | ".join(shown)
        + " | dense embeds / turn | one embed | one search |",
        "| ---: | ---: | ---: | "
        + ("---: | " if process_cpu else "")
        + " | ".join("---:" for _ in shown)
        + " | ---: | ---: | ---: |",
    ]
    for s in results["sizes"]:
        nodes = " | ".join(_cell(s["nodes_ms"].get(n)) for n in shown)
        lines.append(
            f"| {s['chunks']:,} | **{_cell(s['e2e_ms'])}** | {_cell(s.get('e2e_cpu_ms'))} "
            + (f"| {_cell(s.get('e2e_process_cpu_ms'))} " if process_cpu else "")
            + f"| {nodes} "
            f"| {s['dense_embed_calls_per_turn']} | {_cell(s['dense_embed_call_ms'])} "
            f"| {_cell(s['search_call_ms'])} |"
        )
    if any("store_comparison" in s for s in results["sizes"]):
        lines += [
            "",
            "Store comparison (the same conversations alternating between the two stores "
            "on one index, so both see the same machine load):",
            "",
            "| chunks | store | turns | end to end p50 / p95 / p99 ms | CPU p50 / p99 ms |",
            "| ---: | --- | ---: | ---: | ---: |",
        ]
        for s in results["sizes"]:
            cmp = s.get("store_comparison")
            if not cmp:
                continue
            for name, label in (("json", "JSON files + SQLite log"), ("postgres", "PostgreSQL")):
                e, c = cmp[name]["e2e_ms"], cmp[name]["e2e_cpu_ms"]
                lines.append(
                    f"| {s['chunks']:,} | {label} | {cmp[name]['turns']} "
                    f"| {e['p50']} / {e['p95']} / {e['p99']} | {c['p50']} / {c['p99']} |"
                )
            lines.append(f"| | p50 difference | | **{cmp['p50_difference_ms']:+.2f} ms** | |")
    if any("http" in s for s in results["sizes"]):
        lines += [
            "",
            "| chunks | `POST /chat` clients | turns/s | p50 ms | p99 ms | errors | server RSS |",
            "| ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
        ]
        for s in results["sizes"]:
            h = s.get("http")
            if h:
                lines.append(
                    f"| {s['chunks']:,} | {h['clients']} | **{h['turns_per_s']:.1f}** "
                    f"| {h['latency_ms']['p50']} | {h['latency_ms']['p99']} | {h['errors']} "
                    f"| {h['rss_mib']} MiB |"
                )
    if any("first_turn" in s for s in results["sizes"]):
        lines += [
            "",
            "The first question after `threadline serve` starts (the same question asked "
            "again in new conversations afterwards):",
            "",
            "| chunks | start to `/health` | first `POST /chat` | the same later, p50 / p99 "
            "| server RSS at `/health` |",
            "| ---: | ---: | ---: | ---: | ---: |",
        ]
        for s in results["sizes"]:
            f = s.get("first_turn")
            if f:
                lines.append(
                    f"| {s['chunks']:,} | {f['start_to_health_s']} s | **{f['first_ms']:.1f} ms** "
                    f"| {_cell(f['later_ms'])} ms | {f['rss_mib_at_health']} MiB |"
                )
    ing = results.get("ingestion")
    if ing:
        lines += [
            "",
            "| ingestion (`ingest_paths`, Markdown → chunks → embeddings → index) | chunks "
            "| chunks/s |",
            "| --- | ---: | ---: |",
            f"| sparse only (BM25) | {ing['sparse']['chunks']} "
            f"| {ing['sparse']['chunks_per_s']:,.0f} |",
            f"| hybrid (MiniLM + BM25) | {ing['hybrid']['chunks']} "
            f"| {ing['hybrid']['chunks_per_s']:,.0f} |",
            f"| MiniLM alone (`embed_documents`) | 256 | {ing['dense_model_chunks_per_s']:,.0f} "
            f"(50k chunks ≈ {ing['dense_model_50k_minutes']} min) |",
        ]
    growth = [s["growth"] for s in results["sizes"] if s.get("growth")]
    if growth:
        lines += [
            "",
            "Synthetic bulk (random dense vectors + real BM25, `EdgeEngine.add_documents`): "
            + "; ".join(
                f"+{g['added']:,} at {g['upsert_chunks_per_s']:,.0f} chunks/s, optimize "
                f"{g['optimize_s']} s"
                for g in growth
            )
            + ".",
        ]
    v = results.get("verdict", {})
    if v.get("measured_at_target_size"):
        lines += [
            "",
            f"Targets at {TARGET_SIZE:,} chunks: p50 ≤ {TARGET_P50_MS:g} ms "
            f"{'met' if v['e2e_p50_met'] else 'NOT met'}, p99 ≤ {TARGET_P99_MS:g} ms "
            f"{'met' if v['e2e_p99_met'] else 'NOT met'}"
            + (
                f", ≥ {TARGET_TURNS_PER_S:g} turns/s {'met' if v['turns_per_s_met'] else 'NOT met'}"
                if "turns_per_s_met" in v
                else ""
            )
            + ".",
        ]
    return "\n".join(line for line in lines if line is not None)


def main(argv: Sequence[str] | None = None) -> int:
    """Command line: run, write JSON + Markdown; exit 0 (targets are reported, not enforced)."""
    parser = argparse.ArgumentParser(prog="benchmarks.turns", description=__doc__.split("\n")[0])
    parser.add_argument("--out", type=Path, required=True, help="a .json file (the .md beside it)")
    parser.add_argument("--sizes", default="1000,10000,50000", help="index sizes in chunks")
    parser.add_argument("--turns", type=int, default=240, help="measured turns per size (240)")
    parser.add_argument(
        "--http-seconds", type=float, default=30.0, help="POST /chat load per size; 0 skips"
    )
    parser.add_argument("--http-clients", type=int, default=16)
    parser.add_argument(
        "--first-turn-asks",
        type=int,
        default=10,
        help="a fresh server's first POST /chat, then the same question again (10 asks "
        "in all); 0 skips",
    )
    parser.add_argument(
        "--ingest-chunks", type=int, default=2000, help="sparse ingestion chunks; 0 skips both"
    )
    parser.add_argument("--ingest-hybrid-chunks", type=int, default=300, help="hybrid ingestion")
    parser.add_argument(
        "--torch-threads", type=int, default=None, help="torch.set_num_threads in this process"
    )
    parser.add_argument(
        "--server-env",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="extra environment for the POST /chat server, e.g. OMP_NUM_THREADS=1",
    )
    parser.add_argument("--sample-dir", type=Path, default=DEFAULT_SAMPLE_DIR)
    parser.add_argument("--profile-dir", type=Path, default=None, help="pyinstrument profiles")
    parser.add_argument("--workdir", type=Path, default=None, help="keep the data here")
    parser.add_argument(
        "--postgres",
        action="store_true",
        help="also run the conversations with the store in PostgreSQL (a throw-away "
        "cluster unless --database-url) and compare",
    )
    parser.add_argument("--database-url", default=None, help="with --postgres")
    args = parser.parse_args(argv)
    sizes = sorted(int(x) for x in args.sizes.split(",") if x)
    cluster = postgres_url = None
    if args.postgres:
        from benchmarks.pg_cluster import migrated_database

        postgres_url, cluster = migrated_database(args.database_url)
    try:
        results = _run_from_args(args, sizes, postgres_url)
    finally:
        if cluster is not None:
            cluster.stop()
    markdown = to_markdown(results)
    write_outputs(args.out, results, markdown)
    print(markdown)  # noqa: T201 - a command's output
    return 0


def _run_from_args(args: Any, sizes: list[int], postgres_url: str | None) -> dict[str, Any]:
    return run(
        sizes=sizes,
        turns=args.turns,
        http_seconds=args.http_seconds,
        http_clients=args.http_clients,
        first_turn_asks=args.first_turn_asks,
        ingest_chunks=args.ingest_chunks,
        ingest_hybrid_chunks=args.ingest_hybrid_chunks,
        torch_threads=args.torch_threads,
        server_env=dict(item.split("=", 1) for item in args.server_env),
        sample_dir=args.sample_dir,
        profile_dir=args.profile_dir,
        workdir=args.workdir,
        postgres_url=postgres_url,
    )


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
