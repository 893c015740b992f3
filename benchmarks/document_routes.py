"""How the routes and commands that read the whole index grow with it (issue 17).

Builds (or reuses) a synthetic index at each size under ``--workdir`` (the `turns`
benchmark's synthetic documents, `synthetic_index.grow_index`: real payloads and BM25,
random unit dense vectors), one data directory per size, each a copy of the previous
size grown further. Then, at each size, opens the app in process (`TestClient`, the
server's lifespan and warm-up) and times each route or command whose cost could grow
with the number of chunks or documents rather than with the request.

The start-up is the first open of the data directory by this run: the first open of
an index at a size also computes each new document's vocabulary file (kept after),
and the first open by code that indexes `position` builds that index once.

Usage::

    python -m benchmarks document-routes --out benchmarks/results/document-routes.json \
        [--sizes 10000,50000,200000] [--workdir /tmp/threadline-document-routes] \
        [--label after] [--compare an-earlier-run.json]
"""

from __future__ import annotations

import json
import shutil
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from benchmarks.synthetic_index import SyntheticDocs, grow_index

_BUILT = "built.json"


def _settings(data_dir: Path) -> Any:
    from threadline.settings import Settings

    return Settings(
        _env_file=None, data_dir=data_dir, embeddings="hybrid", llm="offline", qdrant_url=None
    )


def ensure_indexes(workdir: Path, sizes: list[int], log: Callable[[str], None]) -> dict[int, Path]:
    """Return a data directory per size, holding that many synthetic chunks.

    Each size is built once (a copy of the previous size, grown), then reused: the
    benchmark's writes (a delete, an upload) restore what they change.
    """
    built: dict[int, Path] = {}
    gen = SyntheticDocs()
    previous: Path | None = None
    current = 0
    for size in sorted(sizes):
        data_dir = workdir / f"size-{size}" / "data"
        marker = data_dir.parent / _BUILT
        if marker.is_file():
            info = json.loads(marker.read_text())
            # The generator is deterministic: skip what the kept index already holds.
            while gen.count < info["documents"]:
                gen.document()
            log(f"size {size}: reusing {data_dir}")
        else:
            shutil.rmtree(data_dir.parent, ignore_errors=True)
            data_dir.parent.mkdir(parents=True, exist_ok=True)
            if previous is not None:
                shutil.copytree(previous, data_dir)
            else:
                data_dir.mkdir(parents=True)
            growth = grow_index(_settings(data_dir), gen, size - current, log)
            marker.write_text(json.dumps({"documents": gen.count, "growth": growth}))
        built[size] = data_dir
        previous, current = data_dir, size
    return built


# --- measuring ----------------------------------------------------------------------


def _rss_kb(field: str) -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1])
    return 0


def _reset_peak() -> bool:
    """Reset the process's peak RSS (Linux: writing 5 to clear_refs); False if refused."""
    try:
        Path("/proc/self/clear_refs").write_text("5")
    except OSError:
        return False
    return True


def timed(step: Callable[[], Any], repeats: int) -> dict[str, Any]:
    """Wall time of `step` (median and max over `repeats`) and the RSS it added at its peak."""
    times = []
    peak_growth = 0
    for _ in range(repeats):
        before = _rss_kb("VmRSS")
        resettable = _reset_peak()
        t0 = time.perf_counter()
        step()
        times.append(time.perf_counter() - t0)
        if resettable:
            peak_growth = max(peak_growth, _rss_kb("VmHWM") - before)
    times.sort()
    return {
        "ms": round(times[len(times) // 2] * 1000, 1),
        "max_ms": round(times[-1] * 1000, 1),
        "peak_rss_growth_mb": round(peak_growth / 1024, 1),
        "repeats": repeats,
    }


def _document_markdown(doc_id: str, words: int, salt: str) -> str:
    body = " ".join(f"{salt}{i % 97} policy refund warranty" for i in range(words // 4))
    return f"# Bench upload {doc_id}\n\n## Part one\n\n{body}\n\n## Part two\n\n{body}\n"


def measure_size(data_dir: Path, repeats: int, log: Callable[[str], None]) -> dict[str, Any]:
    """Time every route and command of the list at one size (the app in process)."""
    import os
    import tempfile

    from fastapi.testclient import TestClient

    from threadline.api.main import create_app
    from threadline.services import Services

    out: dict[str, Any] = {"load_before": round(os.getloadavg()[0], 2)}
    settings = _settings(data_dir)
    rss_before = _rss_kb("VmRSS")
    _reset_peak()
    t0 = time.perf_counter()
    services = Services(settings)
    client = TestClient(create_app(services))
    client.__enter__()  # the lifespan: open the index, load the models, warm up
    out["start_up"] = {
        "ms": round((time.perf_counter() - t0) * 1000, 1),
        "peak_rss_growth_mb": round((_rss_kb("VmHWM") - rss_before) / 1024, 1),
        "rss_after_mb": round(_rss_kb("VmRSS") / 1024, 1),
    }
    log(f"  start-up {out['start_up']}")
    try:
        kb = services.kb
        chunks = kb.count(tenant="default")
        total = client.get("/documents", params={"limit": 1}).json()["count"]
        out["chunks"], out["documents"] = chunks, total
        steps: dict[str, Callable[[], Any]] = {
            "GET /health": lambda: client.get("/health").raise_for_status(),
            "GET /documents (first page, 50)": lambda: client.get("/documents").raise_for_status(),
            "GET /documents (last page, 50)": lambda: client.get(
                "/documents", params={"offset": max(total - 50, 0), "limit": 50}
            ).raise_for_status(),
            "GET /documents (500)": lambda: client.get(
                "/documents", params={"limit": 500}
            ).raise_for_status(),
            "KnowledgeBase.list_documents (every document)": lambda: kb.list_documents(
                tenant="default"
            ),
            "GET / (web page)": lambda: client.get("/").raise_for_status(),
        }
        for name, step in steps.items():
            out[name] = timed(step, repeats)
            log(f"  {name}: {out[name]}")

        def ask(question: str) -> Callable[[], Any]:
            return lambda: client.post("/chat", json={"query": question}).raise_for_status()

        for name, question in (
            ("POST /chat: what documents do you have?", "What documents do you have?"),
            ("POST /chat: a catalog question", "Which phones do you sell?"),
            ("POST /chat: a document question", "What is the refund policy?"),
        ):
            out[name] = timed(ask(question), repeats)
            log(f"  {name}: {out[name]}")

        def upload(doc_id: str, salt: str) -> Callable[[], Any]:
            def post() -> None:
                text = _document_markdown(doc_id, 600, salt)
                files = {"file": (f"{doc_id}.md", text.encode(), "text/markdown")}
                client.post("/documents", files=files, data={"doc_id": doc_id}).raise_for_status()

            return post

        out["POST /documents (new)"] = timed(upload("bench-upload", "a"), 1)
        salts = iter("bcdefghijklmnop")
        out["POST /documents (replaces)"] = timed(
            lambda: upload("bench-upload", next(salts))(), repeats
        )
        out["DELETE /documents/{id}"] = timed(
            lambda: client.delete("/documents/bench-upload").raise_for_status(), 1
        )
        for name in (
            "POST /documents (new)",
            "POST /documents (replaces)",
            "DELETE /documents/{id}",
        ):
            log(f"  {name}: {out[name]}")
        with tempfile.TemporaryDirectory(prefix="h-doc-routes-") as tmp:
            path = Path(tmp) / "bench-ingest.md"
            path.write_text(_document_markdown("bench-ingest", 600, "z"), encoding="utf-8")
            out["threadline ingest (one new file)"] = timed(lambda: kb.ingest_paths([path]), 1)
            kb.delete_document("bench-ingest", tenant="default")
        log(f"  ingest one file: {out['threadline ingest (one new file)']}")
    finally:
        client.__exit__(None, None, None)
        services.close()
    out["load_after"] = round(os.getloadavg()[0], 2)
    return out


def to_markdown(results: dict[str, Any]) -> str:
    """Return the result as a table: a row per step, a column per size.

    With an earlier run under ``results["before"]`` (``--compare``), each cell reads
    "before → after" at the sizes both measured.
    """
    sizes = results["sizes"]
    before = {s["size"]: s for s in (results.get("before") or {}).get("sizes", [])}
    lines = [
        "### Routes and commands over a growing index",
        "",
        results["machine"],
        "",
        "The app in process (`TestClient`, the server's lifespan and warm-up), over a synthetic "
        "index of each size (`synthetic_index`: real payloads and BM25, random dense vectors), "
        "tenant `default`. Median wall time over the repeats, ms; in brackets the RSS the step "
        "added at its peak, MB. Load average (1 min) before → after each size: "
        + ", ".join(f"{s['size']:,}: {s['load_before']} → {s['load_after']}" for s in sizes)
        + "."
        + (
            f" Each cell: {results['before'].get('label') or 'the earlier run'} → "
            f"{results.get('label') or 'this run'} (the earlier run's load: "
            + ", ".join(
                f"{b['size']:,}: {b['load_before']} → {b['load_after']}" for b in before.values()
            )
            + ")."
            if before
            else ""
        ),
        "",
        "| step | "
        + " | ".join(f"{s['size']:,} chunks ({s['documents']:,} docs)" for s in sizes)
        + " |",
        "| --- |" + " ---: |" * len(sizes),
    ]
    steps = [k for k, v in sizes[0].items() if isinstance(v, dict)]
    for step in steps:
        cells = []
        for s in sizes:
            v = s.get(step, {})
            cell = f"{v.get('ms', '')} ({v.get('peak_rss_growth_mb', '')})"
            was = before.get(s["size"], {}).get(step)
            if was:
                cell = f"{was.get('ms', '')} ({was.get('peak_rss_growth_mb', '')}) → {cell}"
            cells.append(cell)
        lines.append(f"| {step} | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark (see the module's docstring)."""
    import argparse

    from benchmarks.report import environment, machine_line, write_outputs

    parser = argparse.ArgumentParser(prog="python -m benchmarks document-routes")
    parser.add_argument("--out", type=Path, default=Path("benchmarks/results/document-routes.json"))
    parser.add_argument("--sizes", default="10000,50000,200000")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--workdir", type=Path, default=Path("/tmp/threadline-document-routes"))
    parser.add_argument("--label", default="", help="Kept in the result (e.g. the commit).")
    parser.add_argument(
        "--compare", type=Path, help="An earlier run's JSON: the table shows before → after."
    )
    args = parser.parse_args(argv)
    sizes = [int(s) for s in args.sizes.split(",")]
    indexes = ensure_indexes(args.workdir, sizes, print)
    results: dict[str, Any] = {
        "benchmark": "document-routes",
        "label": args.label,
        "environment": environment(args.workdir),
        "sizes": [],
    }
    for size in sizes:
        print(f"size {size}", flush=True)
        results["sizes"].append({"size": size, **measure_size(indexes[size], args.repeats, print)})
    if args.compare:
        results["before"] = json.loads(args.compare.read_text(encoding="utf-8"))
    results["machine"] = machine_line(results["environment"])
    write_outputs(args.out, results, to_markdown(results))
    print(to_markdown(results))
    return 0
