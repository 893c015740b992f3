r"""The LLM path on a local model: llama.cpp's server with SmolLM2-135M, measured.

    python -m benchmarks llm --out benchmarks/results/llm.json  # the turns only
    python -m benchmarks llm --out benchmarks/results/llm.json --limit 20 \
        --corpus ../shared/bench/mtrag/corpus.jsonl --tasks ../shared/bench/answers/dev.jsonl

The model server is built once per machine (`benchmarks.llama_server`) and every
request goes through a logging proxy (`benchmarks.llm_proxy`), so calls and tokens
are counted where they are spent. Two parts:

* **turns**: the README's conversations on the sample data, through the real graph
  in this process: per route (standalone question, tool, context follow-up,
  reference), the model requests and tokens per turn and the turn latency (p50 /
  p95); of the answers the model wrote, the share with valid citation markers as
  written and after attribution (`attribute_sentences`);
* **answers** (with `--tasks`): the answer benchmark (`benchmarks.answers`) on the
  first `--limit` tasks with the local model, beside the offline model on the same
  tasks, scored by the benchmark's own score.py.

The machine's load is recorded with the results: a CPU model's latency is mostly
prompt processing, which other work on the machine slows down.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from benchmarks.llama_server import MODEL_ALIAS, LlamaServer, provision
from benchmarks.llm_proxy import CountingProxy, ProxyRecord

ROOT = Path(__file__).resolve().parents[1]
SAMPLE = ROOT / "data" / "sample"

# (thread, question): the README's conversations. "rapport" is begun by the offline
# model (its summary always has an outline), so "Détaille S2" is a reference into it.
TURNS: list[tuple[str, str]] = [
    ("sla", "What SLA applies to the enterprise plan?"),
    ("sla", "and for P2?"),
    ("phones", "What phones do you have under $500?"),
    ("phones", "tell me more about the second one"),
    ("phones", "is it water resistant?"),
    ("samsung", "What phones do you have under $500?"),
    ("samsung", "Tell me more about the Samsung one"),
    ("laptops", "Which laptop is the lightest?"),
    ("no", "How much does the Galaxy S25 cost?"),
    ("warranty", "What is the warranty?"),
    ("uptime", "What uptime does the enterprise plan SLA guarantee?"),
    ("phishing", "How do I report a phishing email?"),
    ("rapport", "Détaille S2"),
    ("rapport", "Précise ça"),
    ("lyon", "Quel temps fera-t-il à Lyon demain ?"),
    ("manuel", "Résume le manuel de sécurité"),
]
SEEDED = {"rapport": "Résume le rapport annuel 2024"}
DEFAULT_MAX_CHARS = 6000  # the service's default packed context (THREADLINE_MAX_CHARS)


def llm_settings(base_url: str, max_tokens: int, max_chars: int) -> dict[str, Any]:
    """Return the settings that point threadline at the local model, bounded for a CPU."""
    return {
        "llm": "openai",
        "openai_base_url": base_url,
        "chat_model": MODEL_ALIAS,
        "llm_max_tokens": max_tokens,
        "llm_rewrite_max_tokens": 32,
        "llm_tool_max_tokens": 64,
        "llm_timeout": 150.0,
        "turn_deadline_seconds": 150.0,
        "max_chars": max_chars,
    }


def route_of(result: Any) -> str:
    """Return the turn's kind: reference, context follow-up, tool or standalone."""
    followup = result.followup or {}
    if followup.get("resolved") and followup.get("ref_type") not in (None, "context"):
        return "reference"
    if followup.get("ref_type") == "context":
        return "context_followup"
    return "tool" if result.route == "tool" else "standalone"


def percentile(values: list[float], share: float) -> float:
    """Return the `share` percentile (nearest rank) of `values`; 0 for none."""
    if not values:
        return 0.0
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(share * len(ordered)) - 1))]


def run_turns(base_url: str, proxy: CountingProxy, max_tokens: int, max_chars: int) -> dict:
    """Run the README's conversations on the local model; return per-turn rows and a summary."""
    from threadline.chat import ChatService, TurnRequest, offline_services
    from threadline.models import LLMError
    from threadline.services import Services
    from threadline.settings import Settings

    data_dir = Path(tempfile.mkdtemp(prefix="threadline-llm-bench-"))
    settings = Settings(
        _env_file=None,
        data_dir=data_dir,
        embeddings="sparse",
        qdrant_url=None,
        openai_api_key=None,
        **llm_settings(base_url, max_tokens, max_chars),
    )
    services = Services(settings)
    try:
        services.kb.ingest_paths([SAMPLE])
        # The seeded summary is written with the default context budget: a small one
        # leaves too few passages for an outline.
        seeding = offline_services(services)
        seeding.settings = settings.model_copy(update={"max_chars": DEFAULT_MAX_CHARS})
        offline = ChatService(seeding)
        for thread, question in SEEDED.items():
            offline.run_turn(TurnRequest(query=question, thread_id=thread))
        chat = ChatService(services)
        rows = []
        for thread, question in TURNS:
            mark = proxy.mark()
            started = time.perf_counter()
            try:
                result = chat.run_turn(TurnRequest(query=question, thread_id=thread))
            except LLMError as error:
                rows.append({"question": question, "error": error.code})
                continue
            seconds = time.perf_counter() - started
            rows.append(turn_row(question, result, seconds, proxy.since(mark)))
    finally:
        services.close()
    return {"rows": rows, "summary": summarise(rows)}


def turn_row(question: str, result: Any, seconds: float, requests: list[ProxyRecord]) -> dict:
    """Return what one turn cost and how its answer was cited."""
    generate = next((t for t in result.trace if t.get("node") == "generate"), {})
    wrote_answer = generate.get("llm_verdict") in ("answer", "partial")
    return {
        "question": question,
        "route": route_of(result),
        "outcome": result.outcome,
        "stop_reason": result.stop_reason,
        "llm_calls": result.llm_calls,
        "requests": len(requests),
        "request_kinds": [r.kind for r in requests],
        "prompt_tokens": sum(r.usage.get("prompt_tokens", 0) for r in requests),
        "completion_tokens": sum(r.usage.get("completion_tokens", 0) for r in requests),
        "seconds": round(seconds, 2),
        "structured_output": generate.get("structured_output"),
        "model_answered": wrote_answer,
        # Markers valid as the model wrote them: no attribution was needed.
        "cited_as_written": wrote_answer
        and "attribution" not in generate
        and bool(generate.get("cited")),
        "cited_after_attribution": wrote_answer and bool(generate.get("cited")),
        "llm_fallback": result.llm_fallback,
    }


def summarise(rows: list[dict]) -> dict:
    """Return per-route means and latency percentiles, and the citation shares."""
    done = [r for r in rows if "error" not in r]
    routes: dict[str, dict] = {}
    for route in sorted({r["route"] for r in done}):
        mine = [r for r in done if r["route"] == route]
        seconds = [r["seconds"] for r in mine]
        routes[route] = {
            "turns": len(mine),
            "requests_per_turn": round(statistics.mean(r["requests"] for r in mine), 2),
            "max_requests": max(r["requests"] for r in mine),
            "prompt_tokens_per_turn": round(statistics.mean(r["prompt_tokens"] for r in mine)),
            "completion_tokens_per_turn": round(
                statistics.mean(r["completion_tokens"] for r in mine)
            ),
            "p50_seconds": percentile(seconds, 0.5),
            "p95_seconds": percentile(seconds, 0.95),
        }
    answered = [r for r in done if r["model_answered"]]
    seconds = [r["seconds"] for r in done]
    return {
        "turns": len(rows),
        "errors": len(rows) - len(done),
        "routes": routes,
        "p50_seconds": percentile(seconds, 0.5),
        "p95_seconds": percentile(seconds, 0.95),
        "model_answers": len(answered),
        "cited_as_written": sum(r["cited_as_written"] for r in answered),
        "cited_after_attribution": sum(r["cited_after_attribution"] for r in answered),
        "outcomes": {o: sum(r["outcome"] == o for r in done) for o in {r["outcome"] for r in done}},
    }


def run_answers(
    corpus: Path, tasks: Path, limit: int, base_url: str, max_tokens: int, max_chars: int
) -> dict:
    """Run the answer benchmark on the first `limit` tasks: local model, then offline."""
    from benchmarks.answers import run_answers_benchmark, score_answers

    work = Path(tempfile.mkdtemp(prefix="threadline-llm-answers-"))
    subset = work / "tasks.jsonl"
    with tasks.open(encoding="utf-8") as source:
        lines = [line for line in source if line.strip()][:limit]
    subset.write_text("".join(lines), encoding="utf-8")
    scores = {}
    for name, update in (
        ("local_model", llm_settings(base_url, max_tokens, max_chars)),
        ("offline", None),
    ):
        run = work / f"{name}.jsonl"
        started = time.perf_counter()
        report = run_answers_benchmark(
            corpus, subset, run, embeddings="sparse", settings_update=update
        )
        out = work / f"{name}-score.json"
        score_answers(run, subset, script=tasks.with_name("score.py"), extra=["--json", str(out)])
        scores[name] = {
            "seconds": round(time.perf_counter() - started, 1),
            "outcomes": report.outcomes,
            "stop_reasons": report.stop_reasons,
            "score": json.loads(out.read_text(encoding="utf-8")),
        }
    return {"tasks": len(lines), **scores}


def markdown(results: dict) -> str:
    """Return the results as a Markdown report."""
    turns = results["turns"]["summary"]
    load = results["machine"]
    out = [
        "# LLM path on a local model (llama.cpp, SmolLM2-135M-Instruct Q4_1)",
        "",
        f"{load['cpus']} CPUs; load average {load['load_before']} before, "
        f"{load['load_after']} after; answer cap {results['max_tokens']} tokens, "
        f"context {results['max_chars']} characters.",
        "",
        "| route | turns | requests/turn (max) | prompt tok/turn | completion tok/turn "
        "| p50 s | p95 s |",
        "| --- | --- | --- | --- | --- | --- | --- |",
    ]
    for route, row in turns["routes"].items():
        out.append(
            f"| {route} | {row['turns']} | {row['requests_per_turn']} ({row['max_requests']}) "
            f"| {row['prompt_tokens_per_turn']} | {row['completion_tokens_per_turn']} "
            f"| {row['p50_seconds']:.1f} | {row['p95_seconds']:.1f} |"
        )
    out += [
        "",
        f"All turns: p50 {turns['p50_seconds']:.1f} s, p95 {turns['p95_seconds']:.1f} s; "
        f"{turns['errors']} of {turns['turns']} turns failed (503/504); outcomes "
        + ", ".join(f"{k} {v}" for k, v in sorted(turns["outcomes"].items()))
        + ".",
        "",
        f"Answers the model wrote: {turns['model_answers']}; with valid citation markers as "
        f"written: {turns['cited_as_written']}; with valid citations after attribution: "
        f"{turns['cited_after_attribution']}.",
    ]
    answers = results.get("answers")
    if answers:
        out += [
            "",
            f"## Answer benchmark, first {answers['tasks']} dev tasks (sparse embeddings)",
            "",
            "| model | seconds | answer_rate | refusal_rate | cite_hit | token_f1 | balanced_acc |",
            "| --- | --- | --- | --- | --- | --- | --- |",
        ]
        for name in ("local_model", "offline"):
            run = answers[name]
            metrics = run["score"].get("overall", {})  # score.py's aggregate over all tasks

            def metric(key: str, metrics: dict = metrics) -> str:
                value = metrics.get(key)
                return f"{value:.3f}" if isinstance(value, int | float) else "-"

            out.append(
                f"| {name} | {run['seconds']} | {metric('answer_rate')} "
                f"| {metric('refusal_rate')} | {metric('cite_hit')} | {metric('token_f1')} "
                f"| {metric('balanced_acc')} |"
            )
    return "\n".join(out) + "\n"


def rewrite_report(out: Path) -> str:
    """Write the Markdown report again from a results JSON (`--report-only`)."""
    report = markdown(json.loads(out.read_text(encoding="utf-8")))
    out.with_suffix(".md").write_text(report, encoding="utf-8")
    return report


def main(argv: list[str] | None = None) -> int:
    """Build/start the local model, run the parts asked for, write JSON and Markdown."""
    parser = argparse.ArgumentParser(prog="python -m benchmarks llm", description=__doc__)
    parser.add_argument("--out", type=Path, required=True, help="results JSON (and .md beside)")
    parser.add_argument("--corpus", type=Path, help="answer benchmark corpus JSONL")
    parser.add_argument("--tasks", type=Path, help="answer benchmark tasks JSONL (score.py beside)")
    parser.add_argument("--limit", type=int, default=20, help="answer benchmark tasks to run")
    parser.add_argument("--max-tokens", type=int, default=96, help="answer token cap")
    parser.add_argument("--max-chars", type=int, default=2500, help="packed context characters")
    parser.add_argument(
        "--report-only", action="store_true", help="rewrite the .md from the JSON, run nothing"
    )
    args = parser.parse_args(argv)
    if args.report_only:
        print(rewrite_report(args.out))  # noqa: T201 (the benchmark's report)
        return 0
    install = provision(say=lambda text: print(text, file=sys.stderr))
    results: dict[str, Any] = {
        "model": "SmolLM2-135M-Instruct.Q4_1 (llama-cpp-python server)",
        "max_tokens": args.max_tokens,
        "max_chars": args.max_chars,
        "machine": {"cpus": os.cpu_count(), "load_before": round(os.getloadavg()[0], 2)},
    }
    log = Path(tempfile.mkdtemp(prefix="threadline-llama-")) / "server.log"
    args.out.parent.mkdir(parents=True, exist_ok=True)
    server = LlamaServer(install, log=log)
    try:
        with CountingProxy(server.base_url) as proxy:
            results["turns"] = run_turns(proxy.base_url, proxy, args.max_tokens, args.max_chars)
            if args.tasks and args.corpus:
                results["answers"] = run_answers(
                    args.corpus,
                    args.tasks,
                    args.limit,
                    proxy.base_url,
                    args.max_tokens,
                    args.max_chars,
                )
    finally:
        server.stop()
    results["machine"]["load_after"] = round(os.getloadavg()[0], 2)
    args.out.write_text(json.dumps(results, indent=2, ensure_ascii=False) + "\n")
    report = markdown(results)
    args.out.with_suffix(".md").write_text(report, encoding="utf-8")
    print(report)  # noqa: T201 (the benchmark's report)
    return 0


if __name__ == "__main__":
    sys.exit(main())
