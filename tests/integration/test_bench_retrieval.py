"""`python -m benchmarks retrieval` end to end: a tiny corpus, sparse embeddings (fast, offline)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from benchmarks.cli import app
from benchmarks.retrieval import load_tasks, run_benchmark
from support.paths import SHARED_BENCH

SCORE_PY = SHARED_BENCH / "mtrag" / "score.py"

GARDEN = [
    ("g-001_a", "Roses", "Prune roses in the garden in late winter, cutting above an outward bud."),
    ("g-002_a", "Roses", "Roses in the garden need six hours of sun and deep watering."),
    ("g-003_b", "Tomatoes", "Tomatoes in the garden are pruned by pinching the side shoots."),
    ("g-004_b", "Tomatoes", "Stake tomatoes in the garden so the fruit stays off the soil."),
    ("g-005_c", "Compost", "Garden compost mixes green waste and brown leaves."),
    ("g-006_c", "Mulch", "Mulch keeps garden beds moist and suppresses weeds."),
    ("g-007_d", "Lawn", "Mow the garden lawn high in summer to shade the roots."),
    ("g-008_d", "Hedges", "Trim garden hedges after the birds have finished nesting."),
    ("g-009_e", "Bulbs", "Plant garden bulbs in autumn at three times their depth."),
    ("g-010_e", "Herbs", "Garden herbs like basil prefer warm, sheltered spots."),
    ("g-011_f", "Pests", "Aphids in the garden are controlled by ladybirds."),
    ("g-012_f", "Watering", "Water the garden early in the morning to limit evaporation."),
]
TAX = [
    ("Tax.ID-01", "", "Dividends are taxed as income; qualified dividends get lower tax rates."),
    ("Tax.ID-02", "", "Capital gains tax applies when you sell shares for a profit."),
    ("Tax.ID-03", "", "Capital losses offset capital gains tax, then up to 3000 of income."),
    ("Tax.ID-04", "", "A wash sale disallows the tax loss if you rebuy within 30 days."),
    ("Tax.ID-05", "", "Tax on a trust: income kept in the trust is taxed at trust rates."),
    ("Tax.ID-06", "", "Retirement accounts defer tax on dividends and gains."),
    ("Tax.ID-07", "", "Mortgage interest may be deductible from income tax."),
    ("Tax.ID-08", "", "Tax brackets apply progressively to each slice of income."),
    ("Tax.ID-09", "", "Estimated tax payments are due quarterly for the self-employed."),
    ("Tax.ID-10", "", "Tax refunds come when withholding exceeds the tax owed."),
    ("Tax.ID-11", "", "State tax rules differ; some states have no income tax."),
    ("Tax.ID-12", "", "Gifts above the annual exclusion need a gift tax return."),
]
TASKS = [
    {
        "task_id": "conv-a<::>1",
        "domain": "garden",
        "turns": [{"role": "user", "text": "How do I prune roses in the garden?"}],
        "gold_rewrite": "How do I prune roses in the garden?",
        "labels": {"turn": 1, "multi_turn": "N/A"},
    },
    {
        "task_id": "conv-a<::>2",
        "domain": "garden",
        "turns": [
            {"role": "user", "text": "How do I prune roses in the garden?"},
            {"role": "assistant", "text": "Prune roses in late winter, above an outward bud."},
            {"role": "user", "text": "and for tomatoes in the garden?"},
        ],
        "gold_rewrite": "How do I prune tomatoes in the garden?",
        "labels": {"turn": 2, "multi_turn": "Follow-up"},
    },
    {
        "task_id": "conv-b<::>3",
        "domain": "tax",
        "turns": [
            {"role": "user", "text": "How are dividends taxed?"},
            {"role": "user", "text": "What about capital gains tax when I sell?"},
            {"role": "user", "text": "anything on losses?"},
        ],
        "gold_rewrite": "How are capital losses taxed?",
        "labels": {"turn": 3, "multi_turn": "Follow-up"},
    },
    {
        "task_id": "conv-c<::>1",
        "domain": "tax",
        "turns": [{"role": "user", "text": "Is mortgage interest deductible from tax?"}],
        "labels": {"turn": 1, "multi_turn": "N/A"},
    },
]
QRELS = {
    "conv-a<::>1": ["g-001_a"],
    "conv-a<::>2": ["g-003_b"],
    "conv-b<::>3": ["Tax.ID-03"],
    "conv-c<::>1": ["Tax.ID-07"],
}


@pytest.fixture(scope="module")
def bench_files(tmp_path_factory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("bench")
    corpus = root / "corpus.jsonl"
    with corpus.open("w", encoding="utf-8") as f:
        for domain, rows in (("garden", GARDEN), ("tax", TAX)):
            for pid, title, text in rows:
                record = {"id": pid, "title": title, "text": text, "domain": domain}
                f.write(json.dumps(record) + "\n")
    tasks = root / "tasks.jsonl"
    tasks.write_text("".join(json.dumps(t) + "\n" for t in TASKS), encoding="utf-8")
    stripped = root / "tasks_stripped.jsonl"
    stripped.write_text(
        "".join(
            json.dumps({k: v for k, v in t.items() if k != "gold_rewrite"}) + "\n" for t in TASKS
        ),
        encoding="utf-8",
    )
    qrels = root / "dev_qrels.tsv"
    qrels.write_text(
        "query-id\tcorpus-id\tscore\n"
        + "".join(f"{q}\t{d}\t1\n" for q, docs in QRELS.items() for d in docs),
        encoding="utf-8",
    )
    return {"root": root, "corpus": corpus, "tasks": tasks, "stripped": stripped, "qrels": qrels}


def read_run(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def run_cli(files: dict[str, Path], out: Path, *extra: str):
    args = [
        "retrieval",
        "--corpus",
        str(files["corpus"]),
        "--tasks",
        str(files["tasks"]),
        "--out",
        str(out),
        "--embeddings",
        "sparse",
        *extra,
    ]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    return result


def test_run_file_format_scoping_and_replayed_history(bench_files):
    out, trace = bench_files["root"] / "run.jsonl", bench_files["root"] / "trace.jsonl"
    run_cli(bench_files, out, "--trace", str(trace))
    lines = read_run(out)
    assert [line["task_id"] for line in lines] == [t["task_id"] for t in TASKS]
    domain_of = {pid: "garden" for pid, _, _ in GARDEN} | {pid: "tax" for pid, _, _ in TAX}
    for line, task in zip(lines, TASKS, strict=True):
        assert set(line) == {"task_id", "query", "doc_ids"}
        assert line["query"].strip()
        assert len(line["doc_ids"]) >= 10
        assert len(set(line["doc_ids"])) == len(line["doc_ids"])
        # Ids come back exactly as in the corpus (case, dots, dashes), and only the
        # task's own domain is searched.
        assert {domain_of.get(pid) for pid in line["doc_ids"]} == {task["domain"]}
    # The follow-up was condensed with what the replayed first turn found (a title it
    # names), and searched with the dataset's answer standing in for the assistant's.
    assert lines[1]["query"] == "Tomatoes — and for tomatoes in the garden?"
    assert "g-003_b" in lines[1]["doc_ids"][:2]
    variants = {v["variant"]: v["query"] for v in read_run(trace)[1]["variants"]}
    assert variants["question"] == "and for tomatoes in the garden?"
    assert "prune" in variants["answer"] and "roses" in variants["answer"]
    # A user-only history is replayed too: the previous search carries its terms.
    assert lines[2]["query"].startswith("anything on losses? (")
    assert "capital" in lines[2]["query"]


def test_same_output_twice(bench_files):
    first, second = bench_files["root"] / "a.jsonl", bench_files["root"] / "b.jsonl"
    run_cli(bench_files, first)
    run_cli(bench_files, second)
    assert first.read_bytes() == second.read_bytes()


def test_human_rewrites_are_never_read(bench_files):
    assert all("gold_rewrite" not in vars(t) for t in load_tasks(bench_files["tasks"]))
    with_field, without = bench_files["root"] / "with.jsonl", bench_files["root"] / "without.jsonl"
    run_benchmark(bench_files["corpus"], bench_files["tasks"], with_field, embeddings="sparse")
    run_benchmark(bench_files["corpus"], bench_files["stripped"], without, embeddings="sparse")
    assert with_field.read_bytes() == without.read_bytes()


def test_limit_and_reused_index_dir(bench_files):
    out = bench_files["root"] / "limited.jsonl"
    index_dir = bench_files["root"] / "index"
    report = run_benchmark(
        bench_files["corpus"],
        bench_files["tasks"],
        out,
        embeddings="sparse",
        limit=2,
        index_dir=index_dir,
    )
    assert report.indexed == len(GARDEN) + len(TAX) and len(read_run(out)) == 2
    again = run_benchmark(
        bench_files["corpus"], bench_files["tasks"], out, embeddings="sparse", index_dir=index_dir
    )
    assert again.indexed == 0  # unchanged passages are not embedded again
    with pytest.raises(ValueError, match="sparse index"):
        run_benchmark(
            bench_files["corpus"],
            bench_files["tasks"],
            out,
            embeddings="dense",
            index_dir=index_dir,
        )


@pytest.mark.skipif(not SCORE_PY.exists(), reason="the benchmark's score.py is not here")
def test_score_prints_the_summary(bench_files):
    shutil.copy(SCORE_PY, bench_files["qrels"].with_name("score.py"))
    out = bench_files["root"] / "scored.jsonl"
    result = run_cli(bench_files, out, "--qrels", str(bench_files["qrels"]), "--score")
    assert "recall@5=" in result.stdout and "n=4" in result.stdout
    assert "turn>1" in result.stdout  # the task file gives the per-turn breakdown


def test_score_needs_qrels(bench_files):
    args = ["retrieval", "--corpus", str(bench_files["corpus"]), "--tasks"]
    args += [str(bench_files["tasks"]), "--out", str(bench_files["root"] / "x.jsonl"), "--score"]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 2
