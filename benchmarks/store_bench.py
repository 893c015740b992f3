"""Conversation store append throughput under contention.

``P`` writer processes (8 by default) each call ``ConversationStore.add_turn`` ``N``
times, all released together by a barrier, in three layouts:

* ``one``: every writer appends to the same session (the worst case: one lock, one
  file; the store's group commit hands appends over to the lock holder);
* ``many``: each writer has its own session (no lock contention, only the disk's);
* ``threads``: ``P`` threads of one process share one session, as the server's
  thread pool does when several turns of one thread arrive together.

One append is one ``add_turn``: a question and an answer (with realistic turn
metadata) written atomically and fsynced. Throughput is appends over the wall time
from the barrier to the last writer's end. Afterwards every session is read back:
the count of messages must be exactly ``2 x`` the appends, and each writer's turns
must be in its order. A single-writer run gives the uncontended baseline.

With ``--backend postgres`` the same runs go to PostgreSQL: ``--database-url`` names
a database (migrated here), or a throw-away cluster is started from Debian's
``postgresql`` (``benchmarks.pg_cluster``). One append is then one transaction
committed with the server's defaults (``synchronous_commit=on``: flushed to disk).

Why one module of about 475 lines: the writer processes, the three layouts, both
backends, the read-back check and the table are one experiment read top to bottom.

Usage::

    python -m benchmarks.store_bench --out bench-out/store.json [--turns 100]
    python -m benchmarks.store_bench --backend postgres --layouts one \
        --out bench-out/store-postgres.json
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import queue
import shutil
import sys
import tempfile
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from benchmarks.report import environment, machine_line, percentiles, write_outputs

TENANT = "bench"
CALLER_APP = "store"
TARGET_APPENDS_PER_S = 500.0
_ANSWER = (
    "The Enterprise plan SLA guarantees 99.95% monthly uptime, which allows about 22 "
    "minutes of downtime a month. [1] P1 incidents get a first response within 15 "
    "minutes, 24/7, and P2 incidents within 1 hour. [2] Service credits apply when the "
    "monthly uptime falls below the guarantee. [1] "
)


def _metadata() -> Any:
    from threadline.store import FollowupInfo, OutlineItem, TurnMetadata

    return TurnMetadata(
        search_query="What SLA applies to the enterprise plan?",
        doc_ids=["support-support-policy", "support-support-policy"],
        titles=[
            "Brightwell support policy — Service level agreements",
            "Brightwell support policy — Incident priorities",
        ],
        outline=[OutlineItem(id=f"S{i}", title=f"Section {i}") for i in range(1, 5)],
        route="standalone",
        outcome="grounded_answer",
        stop_reason="completed",
        followup=FollowupInfo(detected=False, resolved=False),
        citations=[
            {
                "id": str(i),
                "doc_id": "support-support-policy",
                "chunk_id": f"00000000-0000-0000-0000-00000000000{i}",
                "title": "Brightwell support policy",
                "section": "Service level agreements",
                "source": "support",
            }
            for i in (1, 2)
        ],
        llm_calls=1,
    )


def _writer(
    root: str,
    session_id: str,
    worker: str,
    count: int,
    answer_chars: int,
    start: Any,
    results: Any,
    done: Any = None,
) -> None:
    """Append ``count`` turns once ``start`` releases; put timings on ``results``."""
    from threadline.store import StoreBusyError
    from threadline.store.backends import close_store, open_store

    store = open_store(root, lock_timeout=60.0)
    metadata = _metadata()
    answer = (_ANSWER * (answer_chars // len(_ANSWER) + 1))[:answer_chars]
    latencies: list[float] = []
    busy = 0
    cpu0 = time.process_time()
    start.wait()
    began = time.monotonic()
    for index in range(count):
        t0 = time.perf_counter()
        try:
            store.add_turn(
                tenant=TENANT,
                caller_app=CALLER_APP,
                session_id=session_id,
                question=f"{worker}-t{index}: What SLA applies to the enterprise plan?",
                answer=answer,
                metadata=metadata,
                turn_id=f"{worker}-t{index}",
                create=True,
            )
        except StoreBusyError:
            busy += 1
        latencies.append((time.perf_counter() - t0) * 1000)
    ended = time.monotonic()
    cpu = time.process_time() - cpu0
    if done is not None:
        # Keep the connection until every writer is done, so the server's CPU for it
        # is still in /proc when the parent reads it.
        results.put(
            {
                "worker": worker,
                "began": began,
                "ended": ended,
                "ms": latencies,
                "busy": busy,
                "cpu_s": cpu,
            }
        )
        done.wait()
        close_store(store)
        return
    close_store(store)
    results.put(
        {
            "worker": worker,
            "began": began,
            "ended": ended,
            "ms": latencies,
            "busy": busy,
            "cpu_s": cpu,
        }
    )


def _verify(target: str, sessions: dict[str, list[str]], count: int) -> dict[str, Any]:
    """Read every session back: message count and each writer's order."""
    from threadline.store.backends import close_store, is_database_url, open_store

    store = open_store(target)
    root = Path("/nonexistent") if is_database_url(target) else Path(target)
    problems: list[str] = []
    messages = 0
    sizes = []
    for session_id, workers in sessions.items():
        session = store.get_session(tenant=TENANT, caller_app=CALLER_APP, session_id=session_id)
        stored = session.messages if session else []
        messages += len(stored)
        expected = 2 * count * len(workers)
        if len(stored) != expected:
            problems.append(f"{session_id}: {len(stored)} messages, expected {expected}")
        for worker in workers:
            order = [
                int(m.turn_id.rsplit("-t", 1)[1])
                for m in stored
                if m.role == "user" and m.turn_id and m.turn_id.startswith(f"{worker}-t")
            ]
            if order != list(range(count)):
                problems.append(f"{session_id}: turns of {worker} missing or out of order")
        path = root / TENANT / CALLER_APP / f"{session_id}.json"
        if path.exists():
            sizes.append(path.stat().st_size)
    close_store(store)
    return {
        "messages": messages,
        "ok": not problems,
        "problems": problems[:20],
        "largest_file_kb": round(max(sizes, default=0) / 1024, 1),
    }


def _empty_database(url: str) -> None:
    """Remove the benchmark tenant's sessions (and so their messages) from the database."""
    import psycopg

    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute("DELETE FROM sessions WHERE tenant_id = %s", (TENANT,))


def run_layout(
    layout: str,
    workers: int,
    count: int,
    answer_chars: int,
    workdir: Path,
    database_url: str | None = None,
    server_cpu: Any = None,
) -> dict[str, Any]:
    """One measurement: ``workers`` writers x ``count`` appends in a fresh store.

    ``server_cpu`` (PostgreSQL in a cluster this run owns) reads the server's CPU
    seconds, so the result also gives the CPU one append costs on both sides.
    """
    root = workdir / f"{layout}-{workers}"
    shutil.rmtree(root, ignore_errors=True)
    root.mkdir(parents=True)
    if database_url is not None:
        _empty_database(database_url)
    target = database_url or str(root)
    names = [f"w{i}" for i in range(workers)]
    if layout == "many":
        sessions = {f"sess-{name}": [name] for name in names}
        session_of = {name: f"sess-{name}" for name in names}
    else:
        sessions = {"sess-shared": names}
        session_of = dict.fromkeys(names, "sess-shared")
    rows: list[dict[str, Any]] = []
    server_cpu_s: float | None = None
    if layout == "threads":
        start: Any = threading.Barrier(workers)
        results: Any = queue.Queue()
        threads = [
            threading.Thread(
                target=_writer,
                args=(target, session_of[n], n, count, answer_chars, start, results),
            )
            for n in names
        ]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        while not results.empty():
            rows.append(results.get())
    else:
        ctx = multiprocessing.get_context("spawn")  # children import only the store
        start = ctx.Barrier(workers)
        results = ctx.Queue()
        done = ctx.Event() if server_cpu is not None else None
        server0 = server_cpu() if server_cpu is not None else None
        procs = [
            ctx.Process(
                target=_writer,
                args=(target, session_of[n], n, count, answer_chars, start, results, done),
            )
            for n in names
        ]
        for p in procs:
            p.start()
        for _ in procs:
            rows.append(results.get(timeout=600))
        if done is not None:
            server1 = server_cpu()
            done.set()
            if server0 is not None and server1 is not None:
                server_cpu_s = server1 - server0
        for p in procs:
            p.join(timeout=60)
    elapsed = max(r["ended"] for r in rows) - min(r["began"] for r in rows)
    appends = workers * count
    latencies = [ms for r in rows for ms in r["ms"]]
    verified = _verify(target, sessions, count)
    shutil.rmtree(root, ignore_errors=True)
    if database_url is not None:
        _empty_database(database_url)
    return {
        "layout": layout,
        "writers": workers,
        "appends_per_writer": count,
        "appends": appends,
        "elapsed_s": round(elapsed, 3),
        "appends_per_s": round(appends / elapsed, 1),
        "latency_ms": percentiles(latencies),
        "store_busy_errors": sum(r["busy"] for r in rows),
        "verified": verified,
        **_cpu_per_append(layout, rows, appends, server_cpu_s),
    }


def _cpu_per_append(
    layout: str, rows: list[dict[str, Any]], appends: int, server_cpu_s: float | None
) -> dict[str, Any]:
    """CPU one append cost: the writers' (processes only) and the database server's."""
    if layout == "threads" or server_cpu_s is None:
        return {}
    client_ms = 1000 * sum(r["cpu_s"] for r in rows) / appends
    server_ms = 1000 * server_cpu_s / appends
    cores = os.cpu_count() or 1
    return {
        "client_cpu_ms_per_append": round(client_ms, 3),
        "server_cpu_ms_per_append": round(server_ms, 3),
        # What the machine's cores could do if writers and server had them to themselves.
        "appends_per_s_cpu_bound": round(cores * 1000 / (client_ms + server_ms), 1),
    }


def run(
    processes: int = 8,
    count: int = 100,
    layouts: Sequence[str] = ("one", "many", "threads"),
    answer_chars: int = 800,
    workdir: Path | None = None,
    log: Any = print,
    backend: str = "json",
    database_url: str | None = None,
) -> dict[str, Any]:
    """Measure the baseline and each layout; JSON-ready results."""
    base = Path(workdir) if workdir else Path(tempfile.mkdtemp(prefix="threadline-store-bench-"))
    base.mkdir(parents=True, exist_ok=True)
    runs = []
    cluster = None
    try:
        if backend == "postgres":
            from benchmarks.pg_cluster import migrated_database

            database_url, cluster = migrated_database(database_url, log)
        log(f"baseline: 1 writer x {count} appends")
        runs.append(run_layout("one", 1, count, answer_chars, base, database_url))
        for layout in layouts:
            log(f"{layout}: {processes} writers x {count} appends")
            runs.append(
                run_layout(
                    layout,
                    processes,
                    count,
                    answer_chars,
                    base,
                    database_url,
                    server_cpu=cluster.cpu_seconds if cluster is not None else None,
                )
            )
            log(f"  {runs[-1]['appends_per_s']} appends/s, verified={runs[-1]['verified']['ok']}")
        env = environment(base)
    finally:
        if cluster is not None:
            cluster.stop()
        if workdir is None:
            shutil.rmtree(base, ignore_errors=True)
    contended = [r for r in runs if r["writers"] > 1]
    worst = min((r["appends_per_s"] for r in contended), default=None)
    return {
        "benchmark": "store",
        "environment": env,
        "config": {
            "backend": backend,
            "processes": processes,
            "appends_per_writer": count,
            "answer_chars": answer_chars,
            "layouts": list(layouts),
        },
        "targets": {"appends_per_s_under_contention": TARGET_APPENDS_PER_S},
        "runs": runs,
        "verdict": {
            "worst_contended_appends_per_s": worst,
            "met": worst is not None and worst >= TARGET_APPENDS_PER_S,
            "all_verified": all(r["verified"]["ok"] and not r["store_busy_errors"] for r in runs),
        },
    }


_LAYOUTS = {
    "one": "processes, one session",
    "many": "processes, one session each",
    "threads": "threads of one process, one session",
}


def to_markdown(results: dict[str, Any]) -> str:
    """Return the table for the README."""
    env = results["environment"]
    cfg = results["config"]
    backend = cfg.get("backend", "json")
    durable = (
        "committed in one PostgreSQL transaction (synchronous_commit=on)"
        if backend == "postgres"
        else "fsynced"
    )
    lines = [
        "### Store appends under contention" + (" (PostgreSQL)" if backend == "postgres" else ""),
        "",
        f"{machine_line(env)} One append = one `add_turn` (question + "
        f"{cfg['answer_chars']}-char answer with metadata), {durable}.",
        "",
        "| writers | layout | appends | appends/s | p50 ms | p95 ms | p99 ms | max ms "
        "| largest file | verified |",
        "| ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |",
    ]
    for r in results["runs"]:
        lat = r["latency_ms"]
        layout = "single writer" if r["writers"] == 1 else _LAYOUTS[r["layout"]]
        ok = "yes" if r["verified"]["ok"] and not r["store_busy_errors"] else "**NO**"
        lines.append(
            f"| {r['writers']} | {layout} | {r['appends']} | **{r['appends_per_s']:,.0f}** "
            f"| {lat['p50']} | {lat['p95']} | {lat['p99']} | {lat['max']} "
            f"| {r['verified']['largest_file_kb']} KB | {ok} |"
        )
    for r in results["runs"]:
        if "appends_per_s_cpu_bound" in r:
            lines.append(
                f"\n{r['writers']} writers ({_LAYOUTS[r['layout']]}): one append cost "
                f"{r['client_cpu_ms_per_append']} ms of writer CPU and "
                f"{r['server_cpu_ms_per_append']} ms of PostgreSQL CPU, so the machine's "
                f"cores alone would bound it at about {r['appends_per_s_cpu_bound']:,.0f}/s."
            )
    verdict = results["verdict"]
    lines += [
        "",
        f"Target ≥ {TARGET_APPENDS_PER_S:,.0f} appends/s under contention: "
        f"{'met' if verdict['met'] else 'NOT met'} "
        f"(worst contended layout {verdict['worst_contended_appends_per_s']:,.0f}/s).",
    ]
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    """Command line: run, write JSON + Markdown; exit 1 if a turn was lost or refused.

    A missed throughput target is reported in the table, not turned into a failure.
    """
    parser = argparse.ArgumentParser(
        prog="benchmarks.store_bench", description=__doc__.split("\n")[0]
    )
    parser.add_argument(
        "--out", type=Path, required=True, help="a .json file (the .md goes next to it)"
    )
    parser.add_argument("--processes", type=int, default=8, help="writers (default 8)")
    parser.add_argument("--turns", type=int, default=100, help="appends per writer (default 100)")
    parser.add_argument(
        "--layouts", default="one,many,threads", help="comma-separated: one, many, threads"
    )
    parser.add_argument("--answer-chars", type=int, default=800, help="answer length")
    parser.add_argument("--workdir", type=Path, default=None, help="where the stores are written")
    parser.add_argument(
        "--backend", choices=("json", "postgres"), default="json", help="the store to measure"
    )
    parser.add_argument(
        "--database-url",
        default=None,
        help="with --backend postgres: a database to use (default: a throw-away cluster)",
    )
    args = parser.parse_args(argv)
    layouts = [x for x in args.layouts.split(",") if x]
    for layout in layouts:
        if layout not in _LAYOUTS:
            parser.error(f"unknown layout {layout!r}")
    results = run(
        args.processes,
        args.turns,
        layouts,
        args.answer_chars,
        args.workdir,
        backend=args.backend,
        database_url=args.database_url,
    )
    markdown = to_markdown(results)
    write_outputs(args.out, results, markdown)
    print(markdown)  # noqa: T201 - a command's output
    verdict = results["verdict"]
    return 0 if verdict["all_verified"] else 1


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
