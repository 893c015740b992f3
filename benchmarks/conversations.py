"""Conversations as knowledge: recall of past exchanges, indexing throughput, search latency.

Recall: every MTRAG dev conversation becomes a stored session (its user and
assistant turns); each task's standalone rewrite (``gold_rewrite``) is a query
whose target is that task's exchange (its last user turn). Reported: exchange
Recall@1 and @5, session Recall@5, and the same with windows (a target counts when
it lies in the window, 2 before and 1 after, of one of the top hits). The rewrite is
allowed here because it is the query, not an input to MTRAG's own retrieval.

Scale: synthetic sessions of 10 exchanges (a question of 10 words, an answer of 40,
drawn from 20,000 pseudo-words with Zipf frequencies) are indexed (exchanges/s,
through the same `ConversationIndex.index_sessions` the worker uses), then searched
(p50/p99 of one 6-word query, filtered by tenant and caller app as the API does).
"""

from __future__ import annotations

import argparse
import itertools
import json
import random
import statistics
import tempfile
import time
from collections import defaultdict
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from threadline.conversations.index import ConversationIndex
from threadline.conversations.search import merge_spans
from threadline.conversations.worker import ConversationIndexer
from threadline.settings import Settings
from threadline.store import ConversationStore
from threadline.store.models import Message, Session, TurnMetadata

TENANT, APP = "bench", "bench"
BEFORE, AFTER = 2, 1


def _settings(data_dir: Path, embeddings: str) -> Settings:
    return Settings(
        _env_file=None, data_dir=data_dir, embeddings=embeddings, llm="offline", qdrant_url=None
    )


# --- recall on MTRAG -------------------------------------------------------------------


def load_conversations(tasks_path: Path) -> tuple[dict[str, list[dict]], list[dict[str, Any]]]:
    """Conversations (their longest task's turns) and the queries with their targets."""
    tasks = [json.loads(line) for line in tasks_path.read_text(encoding="utf-8").splitlines()]
    longest: dict[str, list[dict]] = {}
    queries = []
    for task in tasks:
        conv = task["task_id"].split("<::>")[0]
        turns = task["turns"]
        if len(turns) > len(longest.get(conv, [])):
            longest[conv] = turns
        exchange = sum(1 for t in turns if t["role"] == "user") - 1
        queries.append({"query": task["gold_rewrite"], "session": conv, "exchange": exchange})
    return longest, queries


def _session_id(conv: str) -> str:
    return "mtrag-" + "".join(c for c in conv if c.isalnum())[:40]


def recall(tasks_path: Path, embeddings: str, data_dir: Path) -> dict[str, Any]:
    """Store the conversations, index them, and score the rewrites' hits."""
    settings = _settings(data_dir, embeddings)
    store = ConversationStore(settings.sessions_dir)
    conversations, queries = load_conversations(tasks_path)
    for conv, turns in conversations.items():
        sid = _session_id(conv)
        store.create_session(tenant=TENANT, caller_app=APP, session_id=sid)
        for turn in turns:
            store.add_message(
                tenant=TENANT,
                caller_app=APP,
                session_id=sid,
                role=turn["role"],
                content=turn["text"],
                metadata=TurnMetadata() if turn["role"] == "assistant" else None,
            )
    index = ConversationIndex(settings)
    try:
        ConversationIndexer(store, index).run_once(force=True)
        exchanges_per_session = {
            key[2]: len(index.session_chunks(key)) - 1 for key in index.indexed_versions()
        }
        hits_at: dict[str, int] = defaultdict(int)
        for q in queries:
            target = (_session_id(q["session"]), q["exchange"])
            hits = index.search(q["query"], tenant=TENANT, caller_app=APP, k=5)
            found = [(h.payload["session_id"], int(h.payload["sequence_order"])) for h in hits]
            hits_at["exchange@1"] += target in found[:1]
            hits_at["exchange@5"] += target in found[:5]
            hits_at["session@5"] += target[0] in {s for s, _ in found[:5]}
            for k in (1, 5):
                covered = set()
                for sid in {s for s, _ in found[:k]}:
                    orders = [(o, 1.0) for s, o in found[:k] if s == sid]
                    last = exchanges_per_session.get(sid, 0) - 1
                    for lo, hi, _ in merge_spans(orders, before=BEFORE, after=AFTER, last=last):
                        covered.update((sid, o) for o in range(lo, hi + 1))
                hits_at[f"window@{k}"] += target in covered
    finally:
        index.close()
    n = len(queries)
    return {
        "embeddings": embeddings,
        "sessions": len(conversations),
        "queries": n,
        "exchange_recall@1": round(hits_at["exchange@1"] / n, 3),
        "exchange_recall@5": round(hits_at["exchange@5"] / n, 3),
        "session_recall@5": round(hits_at["session@5"] / n, 3),
        "window_recall@1": round(hits_at["window@1"] / n, 3),
        "window_recall@5": round(hits_at["window@5"] / n, 3),
    }


# --- scale -----------------------------------------------------------------------------

_SYLLABLES = "ka lo mi ne ru sa ti vo pe da gu fi ho ze ba".split()


def _vocabulary(size: int = 20_000) -> list[str]:
    """Distinct pseudo-words (two to four syllables), the same on every run."""
    words: list[str] = []
    seen: set[str] = set()
    rng = random.Random(3)
    while len(words) < size:
        word = "".join(rng.choices(_SYLLABLES, k=rng.randint(2, 4)))
        if word not in seen:
            seen.add(word)
            words.append(word)
    return words


_VOCABULARY = _vocabulary()
# Word frequencies follow Zipf's law, as in real text: a few words are everywhere, most
# are rare. (A small uniform vocabulary would put every word in a third of the exchanges,
# which no conversation corpus does, and measure the worst case of a sparse index.)
_ZIPF = list(itertools.accumulate(1 / rank for rank in range(1, len(_VOCABULARY) + 1)))


def _text(rng: random.Random, words: int) -> str:
    return " ".join(rng.choices(_VOCABULARY, cum_weights=_ZIPF, k=words))


def synthetic_sessions(count: int, exchanges: int, seed: int = 7) -> list[Session]:
    """Sessions of random-vocabulary questions and answers (deterministic)."""
    rng = random.Random(seed)
    start = datetime(2026, 1, 1, tzinfo=UTC)
    sessions = []
    for n in range(count):
        messages = []
        for e in range(exchanges):
            when = start + timedelta(minutes=n * exchanges + e)
            question = _text(rng, 10) + "?"
            answer = _text(rng, 40) + "."
            messages.append(Message(id=f"q{e}", role="user", content=question, created_at=when))
            messages.append(
                Message(
                    id=f"a{e}",
                    role="assistant",
                    content=answer,
                    created_at=when,
                    metadata=TurnMetadata(),
                )
            )
        sessions.append(
            Session(
                id=f"syn-{n}",
                tenant=TENANT,
                caller_app=APP,
                title=_text(rng, 4),
                created_at=start,
                updated_at=messages[-1].created_at,
                messages=messages,
            )
        )
    return sessions


def scale(
    exchanges_total: int, embeddings: str, data_dir: Path, queries: int, per_session: int = 10
) -> dict[str, Any]:
    """Index ``exchanges_total`` synthetic exchanges, then time single searches."""
    settings = _settings(data_dir, embeddings)
    index = ConversationIndex(settings, batch_size=256)
    sessions = synthetic_sessions(exchanges_total // per_session, per_session)
    try:
        started = time.perf_counter()
        for start in range(0, len(sessions), 64):
            index.index_sessions(sessions[start : start + 64])
        seconds = time.perf_counter() - started
        index.engine.optimize()
        rng = random.Random(11)
        timings = []
        for _ in range(queries):
            query = _text(rng, 6)
            began = time.perf_counter()
            index.search(query, tenant=TENANT, caller_app=APP, k=5)
            timings.append((time.perf_counter() - began) * 1000)
    finally:
        index.close()
    timings.sort()
    return {
        "embeddings": embeddings,
        "exchanges": exchanges_total,
        "index_exchanges_per_s": round(exchanges_total / seconds, 1),
        "search_p50_ms": round(statistics.median(timings), 2),
        "search_p99_ms": round(timings[max(0, int(len(timings) * 0.99) - 1)], 2),
        "queries": queries,
    }


# --- report ----------------------------------------------------------------------------


def to_markdown(results: dict[str, Any]) -> str:
    """Tables for the README."""
    lines = [
        "| embeddings | queries | exchange R@1 | exchange R@5 | session R@5 "
        "| in a window @1 | in a window @5 |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for r in results["recall"]:
        lines.append(
            f"| {r['embeddings']} | {r['queries']} | {r['exchange_recall@1']} "
            f"| {r['exchange_recall@5']} | {r['session_recall@5']} "
            f"| {r['window_recall@1']} | {r['window_recall@5']} |"
        )
    lines += [
        "",
        "| embeddings | exchanges | indexing (exchanges/s) | search p50 (ms) | search p99 (ms) |",
        "| --- | ---: | ---: | ---: | ---: |",
    ]
    for r in results["scale"]:
        lines.append(
            f"| {r['embeddings']} | {r['exchanges']:,} | {r['index_exchanges_per_s']} "
            f"| {r['search_p50_ms']} | {r['search_p99_ms']} |"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark; print the tables and write JSON and Markdown when asked."""
    parser = argparse.ArgumentParser(prog="python -m benchmarks conversations")
    parser.add_argument("--tasks", type=Path, default=Path("../shared/bench/mtrag/dev.jsonl"))
    parser.add_argument("--out", type=Path, default=None, help="Where to write the JSON.")
    parser.add_argument(
        "--recall-embeddings", default="hybrid,sparse", help="Embeddings for the recall runs."
    )
    parser.add_argument(
        "--scale",
        default="sparse:10000,sparse:100000,hybrid:10000",
        help="embeddings:exchanges pairs for the throughput and latency runs.",
    )
    parser.add_argument("--queries", type=int, default=200, help="Searches timed per size.")
    args = parser.parse_args(argv)
    results: dict[str, Any] = {"recall": [], "scale": []}
    for embeddings in filter(None, args.recall_embeddings.split(",")):
        with tempfile.TemporaryDirectory(prefix="threadline-conv-recall-") as tmp:
            results["recall"].append(recall(args.tasks, embeddings, Path(tmp)))
        print(json.dumps(results["recall"][-1]), flush=True)
    for spec in filter(None, args.scale.split(",")):
        embeddings, size = spec.split(":")
        with tempfile.TemporaryDirectory(prefix="threadline-conv-scale-") as tmp:
            results["scale"].append(scale(int(size), embeddings, Path(tmp), args.queries))
        print(json.dumps(results["scale"][-1]), flush=True)
    print(to_markdown(results))
    if args.out is not None:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")
        args.out.with_suffix(".md").write_text(to_markdown(results) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
