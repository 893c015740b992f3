"""Load test: concurrent multi-turn conversations against a real `threadline serve`.

Starts the server as a child process on a free loopback port over a fresh data
directory with the sample data ingested (hybrid embeddings and the offline model by
default), then runs ``--clients`` concurrent clients (16) for ``--duration`` seconds
(180). Each client holds conversations from a script of realistic turns over the
sample data (a summary, "Détaille S2", context follow-ups, catalog tool questions,
greetings): it sends one turn, waits for the answer, sends the next; when a script
ends it starts a new thread. Traffic goes to 127.0.0.1 only, every request has a
timeout, and the run stops by itself at the deadline (in-flight turns finish).

Then it checks that every answered turn was persisted: for each thread,
``GET /sessions/{id}/messages`` must hold exactly 2 messages per turn sent, the
questions in the order they were sent. It reports turns/s, p50/p95/p99 latency
(overall and per route), errors, and the server's resident memory (``VmRSS`` from
``/proc``) after warm-up, at the end and sampled during the run.

Why one module of about 475 lines: the conversations, the client loop, the
persistence check and the table are one experiment read top to bottom; the server
process and its /proc readings are in `server_process`.

Usage::

    python -m benchmarks.load --out bench-out/load.json [--duration 180] [--clients 16]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

from benchmarks.report import environment, machine_line, percentiles, write_outputs
from benchmarks.server_process import (
    ServerProcess,
    cpu_seconds,
    ingest,
    machine_busy_seconds,
    rss_kb,
    start_py_spy,
    top_frames,
)

TARGET_TURNS_PER_S = 50.0
REQUEST_TIMEOUT_S = 60.0
# The sample data of the checkout that holds benchmarks/, else ./data/sample.
_REPO_SAMPLE = Path(__file__).resolve().parents[1] / "data" / "sample"
DEFAULT_SAMPLE_DIR = _REPO_SAMPLE if _REPO_SAMPLE.is_dir() else Path("data/sample").resolve()

# Realistic conversations over data/sample: summaries and outline references,
# context follow-ups, catalog tool questions, greetings, anaphora (clarify).
CONVERSATIONS: tuple[tuple[str, ...], ...] = (
    (
        "Bonjour",
        "Résume le rapport annuel 2024",
        "Détaille S2",
        "Et pour les ressources humaines ?",
        "le dernier point",
        "Précise ça",
        "Merci !",
    ),
    (
        "Hello",
        "What phones do you have under $500?",
        "Tell me more about the Samsung one",
        "Compare the Pixel 8a and the Galaxy A55",
        "Which laptops cost less than $800?",
        "Thanks!",
    ),
    (
        "What SLA applies to the enterprise plan?",
        "and for P2?",
        "What is the refund policy for annual plans?",
        "the 2nd source",
        "tell me more",
        "thank you",
    ),
    (
        "Summarise the security handbook",
        "Expand S3",
        "go deeper on the second point",
        "How do I report a phishing email?",
        "and a lost badge?",
        "What can you do?",
    ),
)


@dataclass
class TurnSample:
    """One request as the client saw it."""

    thread: str
    index: int
    query: str
    started: float
    latency_ms: float
    status: int | None
    route: str | None = None
    outcome: str | None = None
    error: str | None = None


@dataclass
class LoadState:
    """What all clients share: the samples, the threads and their sent turns."""

    samples: list[TurnSample] = field(default_factory=list)
    sent: dict[str, list[str]] = field(default_factory=lambda: defaultdict(list))


async def _turn(
    client: httpx.AsyncClient, state: LoadState, thread: str, index: int, query: str
) -> TurnSample:
    started = time.perf_counter()
    sample = TurnSample(thread, index, query, started, 0.0, None)
    try:
        response = await client.post("/chat", json={"query": query, "thread_id": thread})
        sample.status = response.status_code
        if response.status_code == 200:
            body = response.json()
            sample.route, sample.outcome = body.get("route"), body.get("outcome")
            if not body.get("answer") or body.get("session_id") != thread:
                sample.error = "bad_body"
        else:
            sample.error = f"http_{response.status_code}"
    except (httpx.HTTPError, ValueError) as exc:
        sample.error = type(exc).__name__
    sample.latency_ms = (time.perf_counter() - started) * 1000
    # A turn counts as sent (so must be persisted) only if the server answered 200.
    if sample.status == 200:
        state.sent[thread].append(query)
    state.samples.append(sample)
    return sample


async def _client(
    number: int, client: httpx.AsyncClient, state: LoadState, deadline: float, prefix: str
) -> None:
    """Hold conversations one after the other until the deadline."""
    conversation = 0
    while time.perf_counter() < deadline:
        script = CONVERSATIONS[(number + conversation) % len(CONVERSATIONS)]
        thread = f"{prefix}-c{number:02d}-n{conversation:04d}"
        for index, query in enumerate(script):
            if time.perf_counter() >= deadline:
                break
            await _turn(client, state, thread, index, query)
        conversation += 1


async def _sample_rss(pid: int, every: float, out: list[tuple[float, int]], stop: asyncio.Event):
    started = time.perf_counter()
    while not stop.is_set():
        value = rss_kb(pid)
        if value is not None:
            out.append((round(time.perf_counter() - started, 1), value))
        try:
            await asyncio.wait_for(stop.wait(), timeout=every)
        except TimeoutError:
            pass


async def drive(
    url: str, pid: int | None, clients: int, duration: float, prefix: str
) -> dict[str, Any]:
    """Run the clients for ``duration`` seconds; the raw measurements."""
    state = LoadState()
    limits = httpx.Limits(max_connections=clients + 4, max_keepalive_connections=clients + 4)
    rss_series: list[tuple[float, int]] = []
    stop = asyncio.Event()
    async with httpx.AsyncClient(base_url=url, timeout=REQUEST_TIMEOUT_S, limits=limits) as client:
        sampler = asyncio.create_task(_sample_rss(pid, 5.0, rss_series, stop)) if pid else None
        started = time.perf_counter()
        deadline = started + duration
        await asyncio.gather(*(_client(i, client, state, deadline, prefix) for i in range(clients)))
        elapsed = time.perf_counter() - started
        stop.set()
        if sampler:
            await sampler
    return {"state": state, "elapsed": elapsed, "rss_series": rss_series}


def verify_persisted(url: str, sent: dict[str, list[str]]) -> dict[str, Any]:
    """Every answered turn is stored: 2 messages per turn, questions in order."""
    problems: list[str] = []
    checked = messages = 0
    with httpx.Client(base_url=url, timeout=REQUEST_TIMEOUT_S) as client:
        for thread, queries in sent.items():
            response = client.get(f"/sessions/{thread}/messages")
            checked += 1
            if response.status_code != 200:
                problems.append(f"{thread}: HTTP {response.status_code}")
                continue
            data = response.json()["data"]
            messages += len(data)
            if len(data) != 2 * len(queries):
                problems.append(f"{thread}: {len(data)} messages for {len(queries)} turns")
                continue
            asked = [m["content"] for m in data if m["role"] == "user"]
            if asked != [q.strip() for q in queries]:
                problems.append(f"{thread}: questions differ from those sent")
    return {
        "threads": checked,
        "messages": messages,
        "ok": not problems,
        "problems": problems[:20],
        "problem_count": len(problems),
    }


def summarise(raw: dict[str, Any], warmup_turns: int) -> dict[str, Any]:
    """Throughput, latency percentiles (overall and per route), errors."""
    state: LoadState = raw["state"]
    samples = state.samples
    ok = [s for s in samples if s.error is None]
    errors = Counter(s.error for s in samples if s.error is not None)
    by_route: dict[str, list[float]] = defaultdict(list)
    for s in ok:
        by_route[s.route or "?"].append(s.latency_ms)
    elapsed = raw["elapsed"]
    return {
        "turns": len(samples),
        "turns_ok": len(ok),
        "errors": sum(errors.values()),
        "error_kinds": dict(errors),
        "threads": len(state.sent),
        "elapsed_s": round(elapsed, 2),
        "turns_per_s": round(len(ok) / elapsed, 2),
        "latency_ms": percentiles(s.latency_ms for s in ok),
        "latency_by_route_ms": {
            route: percentiles(values) for route, values in sorted(by_route.items())
        },
        "outcomes": dict(Counter(s.outcome for s in ok)),
        "warmup_turns": warmup_turns,
    }


def run(
    *,
    duration: float = 180.0,
    clients: int = 16,
    embeddings: str = "hybrid",
    sample_dir: Path = DEFAULT_SAMPLE_DIR,
    warmup: float = 10.0,
    workdir: Path | None = None,
    server_extra_env: dict[str, str] | None = None,
    profile: Path | None = None,
    log: Any = print,
) -> dict[str, Any]:
    """Set up a server, warm it up, load it, verify; JSON-ready results."""
    base = Path(workdir) if workdir else Path(tempfile.mkdtemp(prefix="threadline-load-"))
    data_dir = base / "data"
    data_dir.mkdir(parents=True, exist_ok=True)
    log(f"ingesting {sample_dir} ({embeddings}) into {data_dir}")
    ingest_s = ingest(data_dir, sample_dir, embeddings)
    server = ServerProcess(data_dir, embeddings, base / "server.log", server_extra_env)
    try:
        t0 = time.perf_counter()
        health = server.wait_healthy()
        startup_s = time.perf_counter() - t0
        log(f"server pid {server.pid} on {server.url}: healthy in {startup_s:.1f}s ({health})")
        rss_boot = rss_kb(server.pid)
        log(f"warm-up: {clients} clients for {warmup:.0f}s")
        warm = asyncio.run(drive(server.url, None, clients, warmup, "warm"))
        rss_start = rss_kb(server.pid)
        load_before = os.getloadavg()[0]
        log(f"load: {clients} clients for {duration:.0f}s (RSS {rss_start} KiB)")
        spy = start_py_spy(server.pid, duration, profile) if profile else None
        cpu0, busy0, client0 = cpu_seconds(server.pid), machine_busy_seconds(), time.process_time()
        raw = asyncio.run(drive(server.url, server.pid, clients, duration, "load"))
        cpu1, busy1, client1 = cpu_seconds(server.pid), machine_busy_seconds(), time.process_time()
        rss_end = rss_kb(server.pid)
        if spy is not None:
            try:
                spy.wait(timeout=60)
            except subprocess.TimeoutExpired:
                spy.kill()
        log("verifying persistence")
        verified = verify_persisted(server.url, raw["state"].sent)
        verified_warm = verify_persisted(server.url, warm["state"].sent)
        summary = summarise(raw, len(warm["state"].samples))
        server_errors = server.log_errors()
    finally:
        server.stop()
        if workdir is None:
            shutil.rmtree(base, ignore_errors=True)
    turns_ok = max(summary["turns_ok"], 1)
    cpu = {
        "server_cpu_s": round(cpu1 - cpu0, 2) if cpu0 is not None and cpu1 is not None else None,
        "client_cpu_s": round(client1 - client0, 2),
        "machine_busy_cpu_s": round(busy1 - busy0, 2) if busy0 is not None else None,
        "cores": os.cpu_count(),
        "elapsed_s": summary["elapsed_s"],
    }
    if cpu["server_cpu_s"] is not None:
        cpu["server_cpu_ms_per_turn"] = round(1000 * cpu["server_cpu_s"] / turns_ok, 2)
        cpu["client_cpu_ms_per_turn"] = round(1000 * cpu["client_cpu_s"] / turns_ok, 2)
        # What the rest of the machine (other processes than this server and client) used.
        if cpu["machine_busy_cpu_s"] is not None:
            others = cpu["machine_busy_cpu_s"] - cpu["server_cpu_s"] - cpu["client_cpu_s"]
            cpu["other_processes_cpu_s"] = round(max(others, 0.0), 2)
        # Throughput if the server had the machine's cores to itself.
        cpu["turns_per_s_cpu_bound"] = round(
            (os.cpu_count() or 1) * 1000 / cpu["server_cpu_ms_per_turn"], 1
        )
    hot = top_frames(profile) if profile and profile.exists() else []
    series = raw["rss_series"]
    half = [kb for t, kb in series if t >= duration / 2]
    env = environment(data_dir if workdir else None)
    env["load_average_at_start"] = round(load_before, 2)
    return {
        "benchmark": "load",
        "environment": env,
        "config": {
            "clients": clients,
            "duration_s": duration,
            "warmup_s": warmup,
            "embeddings": embeddings,
            "llm": "offline",
            "conversations": [list(c) for c in CONVERSATIONS],
            "request_timeout_s": REQUEST_TIMEOUT_S,
        },
        "setup": {"ingest_s": round(ingest_s, 2), "server_startup_s": round(startup_s, 2)},
        "summary": summary,
        "cpu": cpu,
        "profile_top": hot,
        "persistence": {"load": verified, "warmup": verified_warm},
        "server_log_errors": server_errors[:20],
        "rss_kib": {
            "after_boot": rss_boot,
            "start": rss_start,
            "end": rss_end,
            "max": max((kb for _, kb in series), default=None),
            "second_half_min": min(half, default=None),
            "second_half_max": max(half, default=None),
            "series": series,
        },
        "targets": {"turns_per_s": TARGET_TURNS_PER_S},
        "verdict": {
            "zero_errors": summary["errors"] == 0 and not server_errors,
            "all_persisted": verified["ok"] and verified_warm["ok"],
            "turns_per_s_met": summary["turns_per_s"] >= TARGET_TURNS_PER_S,
        },
    }


def _mib(kib: int | None) -> str:
    return "?" if kib is None else f"{kib / 1024:,.0f} MiB"


def to_markdown(results: dict[str, Any]) -> str:
    """Return the load test as a README section."""
    env, cfg, s = results["environment"], results["config"], results["summary"]
    lat, rss, v = s["latency_ms"], results["rss_kib"], results["verdict"]
    persisted = results["persistence"]["load"]
    on_postgres = cfg.get("backend") == "postgres"
    lines = [
        "### Load: concurrent conversations against a real server"
        + (" (PostgreSQL store)" if on_postgres else ""),
        "",
        f"{machine_line(env)} `threadline serve` (one uvicorn worker"
        + (", sessions and queries log in PostgreSQL" if on_postgres else "")
        + ") with "
        f"{cfg['embeddings']} embeddings and the offline model over `data/sample`; "
        f"{cfg['clients']} clients on loopback, each holding multi-turn conversations "
        f"(summary → `Détaille S2` → follow-ups → tool questions → greetings) for "
        f"{cfg['duration_s']:.0f} s after a {cfg['warmup_s']:.0f} s warm-up.",
        "",
        "| clients | turns | errors | turns/s | p50 ms | p95 ms | p99 ms | max ms "
        "| persisted | RSS start → end (max) |",
        "| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- | --- |",
        f"| {cfg['clients']} | {s['turns']:,} | {s['errors']} | **{s['turns_per_s']:.1f}** "
        f"| {lat['p50']} | {lat['p95']} | {lat['p99']} | {lat['max']} "
        f"| {'all' if persisted['ok'] else 'NO'} ({s['threads']} threads, "
        f"{persisted['messages']:,} messages) "
        f"| {_mib(rss['start'])} → {_mib(rss['end'])} ({_mib(rss['max'])}) |",
        "",
        "| route | turns | p50 ms | p95 ms | p99 ms |",
        "| --- | ---: | ---: | ---: | ---: |",
    ]
    for route, r in s["latency_by_route_ms"].items():
        lines.append(f"| {route} | {r['n']} | {r['p50']} | {r['p95']} | {r['p99']} |")
    lines += [
        "",
        f"Zero errors: {'yes' if v['zero_errors'] else 'NO ' + str(s['error_kinds'])}; "
        f"every turn persisted: {'yes' if v['all_persisted'] else 'NO'}; "
        f"target ≥ {TARGET_TURNS_PER_S:g} turns/s: {'met' if v['turns_per_s_met'] else 'NOT met'}.",
    ]
    cpu = results.get("cpu") or {}
    if cpu.get("server_cpu_ms_per_turn"):
        lines += [
            "",
            f"CPU: the server used {cpu['server_cpu_ms_per_turn']} ms of CPU per turn and the "
            f"load client {cpu['client_cpu_ms_per_turn']} ms; other processes on the machine "
            f"used {cpu.get('other_processes_cpu_s', '?')} CPU-s of the "
            f"{cpu['cores']} x {cpu['elapsed_s']:.0f} s. With the {cpu['cores']} cores to "
            f"itself the server would be bounded at about {cpu['turns_per_s_cpu_bound']} turns/s.",
        ]
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    """Command line: run, write JSON + Markdown; exit 1 on an error or a lost turn."""
    parser = argparse.ArgumentParser(prog="benchmarks.load", description=__doc__.split("\n")[0])
    parser.add_argument("--out", type=Path, required=True, help="a .json file (the .md beside it)")
    parser.add_argument("--duration", type=float, default=180.0, help="seconds of load (180)")
    parser.add_argument("--clients", type=int, default=16, help="concurrent clients (16)")
    parser.add_argument("--warmup", type=float, default=10.0, help="seconds of warm-up (10)")
    parser.add_argument(
        "--embeddings", default="hybrid", choices=("hybrid", "sparse", "dense"), help="(hybrid)"
    )
    parser.add_argument("--sample-dir", type=Path, default=DEFAULT_SAMPLE_DIR)
    parser.add_argument("--workdir", type=Path, default=None, help="keep data and server log here")
    parser.add_argument(
        "--profile", type=Path, default=None, help="py-spy collapsed stacks of the server here"
    )
    parser.add_argument(
        "--backend",
        choices=("json", "postgres"),
        default="json",
        help="the server's store: JSON files + SQLite, or PostgreSQL (a throw-away cluster "
        "unless --database-url)",
    )
    parser.add_argument("--database-url", default=None, help="with --backend postgres")
    parser.add_argument(
        "--server-env",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="extra environment for the server (repeatable)",
    )
    args = parser.parse_args(argv)
    if not 1 <= args.duration <= 1800:
        parser.error("--duration must be within 1..1800 seconds")
    if not 1 <= args.clients <= 256:
        parser.error("--clients must be within 1..256")
    extra = dict(item.split("=", 1) for item in args.server_env)
    cluster = None
    if args.backend == "postgres":
        from benchmarks.pg_cluster import migrated_database

        extra["THREADLINE_DATABASE_URL"], cluster = migrated_database(args.database_url)
    try:
        results = run(
            duration=args.duration,
            clients=args.clients,
            embeddings=args.embeddings,
            sample_dir=args.sample_dir,
            warmup=args.warmup,
            workdir=args.workdir,
            server_extra_env=extra,
            profile=args.profile,
        )
    finally:
        if cluster is not None:
            cluster.stop()
    results["config"]["backend"] = args.backend
    markdown = to_markdown(results)
    write_outputs(args.out, results, markdown)
    print(markdown)  # noqa: T201 - a command's output
    v = results["verdict"]
    return 0 if v["zero_errors"] and v["all_persisted"] else 1


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
