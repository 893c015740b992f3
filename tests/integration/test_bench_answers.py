"""`python -m benchmarks answers` end to end on a tiny corpus (sparse embeddings, offline)."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

import benchmarks.answers as answers_module
from benchmarks.answers import READ_FIELDS, load_answer_tasks, run_answers_benchmark
from benchmarks.cli import app
from support.paths import SHARED_BENCH

SCORE_PY = SHARED_BENCH / "answers" / "score.py"

PASSAGES = [
    ("g-1", "Roses", "Prune roses in late winter, cutting above an outward bud."),
    ("g-2", "Roses", "Roses need six hours of sun and deep watering every week."),
    ("g-3", "Tomatoes", "Tomatoes are pruned by pinching the side shoots in summer."),
    ("g-4", "Compost", "Compost mixes green waste and brown leaves."),
]
TASKS = [
    {
        "task_id": "c1<::>1",
        "conversation_id": "c1",
        "domain": "garden",
        "turns": [{"role": "user", "text": "When do I prune roses?"}],
        "labels": {
            "answerability": "ANSWERABLE",
            "multi_turn": "N/A",
            "question_type": ["Factoid"],
            "turn": 1,
        },
        "references": ["In late winter."],
        "gold_passage_ids": ["g-1"],
    },
    {
        "task_id": "c1<::>2",
        "conversation_id": "c1",
        "domain": "garden",
        "turns": [
            {"role": "user", "text": "When do I prune roses?"},
            {"role": "assistant", "text": "DATASET-ANSWER: prune roses in late winter."},
            {"role": "user", "text": "How much does a rose bush cost at Kew Gardens?"},
        ],
        "labels": {
            "answerability": "UNANSWERABLE",
            "multi_turn": "Follow-up",
            "question_type": ["Factoid"],
            "turn": 2,
        },
        "references": ["I do not know."],
        "gold_passage_ids": [],
    },
]


class SpyRecord(dict):
    """A task record that remembers which keys were read."""

    read: set[str] = set()

    def __getitem__(self, key):
        SpyRecord.read.add(key)
        return super().__getitem__(key)

    def get(self, key, default=None):
        SpyRecord.read.add(key)
        return super().get(key, default)


@pytest.fixture()
def files(tmp_path):
    corpus = tmp_path / "corpus.jsonl"
    corpus.write_text(
        "".join(
            json.dumps({"id": i, "title": t, "text": x, "domain": "garden"}) + "\n"
            for i, t, x in PASSAGES
        ),
        encoding="utf-8",
    )
    tasks = tmp_path / "tasks.jsonl"
    tasks.write_text("".join(json.dumps(t) + "\n" for t in TASKS), encoding="utf-8")
    return corpus, tasks


def test_only_the_allowed_task_fields_are_read(files, monkeypatch):
    _, tasks = files
    real_loads = json.loads

    def spy_loads(text, *args, **kwargs):
        return SpyRecord(real_loads(text, *args, **kwargs))

    SpyRecord.read = set()
    monkeypatch.setattr(answers_module.json, "loads", spy_loads)
    loaded = load_answer_tasks(tasks)
    monkeypatch.undo()
    assert [t.task_id for t in loaded] == ["c1<::>1", "c1<::>2"]
    assert SpyRecord.read and SpyRecord.read <= set(READ_FIELDS)
    assert not SpyRecord.read & {"labels", "references", "gold_passage_ids"}


def test_run_seeds_dataset_answers_and_answers_the_last_turn(files, tmp_path):
    corpus, tasks = files
    out = tmp_path / "run.jsonl"
    index_dir = tmp_path / "index"
    report = run_answers_benchmark(corpus, tasks, out, embeddings="sparse", index_dir=index_dir)
    lines = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert [line["task_id"] for line in lines] == ["c1<::>1", "c1<::>2"]
    assert set(lines[0]) >= {"task_id", "outcome", "answer", "cited_doc_ids"}
    first, second = lines
    assert first["outcome"] == "grounded_answer" and first["cited_doc_ids"] == ["g-1"]
    # Kew Gardens is in no passage: declined, nothing cited.
    assert second["outcome"] == "clarify" and second["cited_doc_ids"] == []
    assert report.outcomes == {"grounded_answer": 1, "clarify": 1}
    # The history of the second task holds the dataset's answer, not a generated one.
    from benchmarks.answers import AnswerTask, thread_id_for
    from benchmarks.retrieval import CALLER_APP, TENANT, open_index

    task = load_answer_tasks(tasks)[1]
    assert isinstance(task, AnswerTask)
    with open_index("sparse", index_dir) as (services, _):
        stored = services.store.get_history(
            tenant=TENANT, caller_app=CALLER_APP, session_id=thread_id_for(task)
        )
    assert stored[1].content == "DATASET-ANSWER: prune roses in late winter."
    assert stored[1].metadata.search_query  # seeded with what the service would store
    assert stored[-1].content == second["answer"]


@pytest.mark.skipif(not SCORE_PY.exists(), reason="the shared benchmark is not beside the repo")
def test_cli_writes_the_run_and_scores_it(files, tmp_path):
    corpus, tasks = files
    out = tmp_path / "run.jsonl"
    result = CliRunner().invoke(
        app,
        [
            "answers",
            "--corpus",
            str(corpus),
            "--tasks",
            str(tasks),
            "--out",
            str(out),
            "--embeddings",
            "sparse",
            "--score",
            "--scorer",
            str(SCORE_PY),
        ],
    )
    assert result.exit_code == 0, result.output
    assert "balanced_acc=1.000" in result.output
    assert len(out.read_text(encoding="utf-8").splitlines()) == 2


@pytest.mark.skipif(not SCORE_PY.exists(), reason="the shared benchmark is not beside the repo")
def test_ceilings_cli_runs_the_same_tasks_and_writes_its_report(files, tmp_path):
    corpus, tasks = files
    out, results = tmp_path / "run.jsonl", tmp_path / "results"
    result = CliRunner().invoke(
        app,
        [
            "answers-ceilings",
            "--corpus",
            str(corpus),
            "--tasks",
            str(tasks),
            "--out",
            str(out),
            "--results",
            str(results),
            "--embeddings",
            "sparse",
            "--scorer",
            str(SCORE_PY),
        ],
    )
    assert result.exit_code == 0, result.output
    # The same run as `benchmarks answers`, scored by score.py.
    assert "balanced_acc=1.000" in result.output
    report = json.loads((results / "answers-ceilings.json").read_text(encoding="utf-8"))
    (record,) = report["tasks"]  # the one ANSWERABLE task
    assert record["task_id"] == "c1<::>1" and record["answered"]
    assert record["packed"][0] == "g-1" and record["gold_packed"] and record["cite_hit"]
    assert record["retrieved"][0] == "g-1" and record["gold_top5"]
    # The evidence check's passages, read from the turn's trace, as passage ids.
    assert "g-1" in record["about"] and "g-1" in record["supporting"]
    # "In late winter." is a part of the gold passage's one sentence.
    assert record["gold_ceiling"]["100"] == pytest.approx(record["packed_ceiling"]["100"])
    assert report["summary"]["cite_hit"]["ceiling_packed"] == 1.0
    assert (results / "answers-ceilings.md").read_text(encoding="utf-8").startswith("# Answers")


def test_a_model_that_fails_on_a_task_leaves_a_non_answer_and_the_run_goes_on(files, tmp_path):
    # One model timeout aborted the whole run (the LLM benchmark on SmolLM2 at load 30):
    # a failed turn answers nothing for its task, as the service's 503 does, and the
    # other tasks are still run and written.
    from support.openai_stub import OpenAIStub

    corpus, tasks = files
    out = tmp_path / "run.jsonl"
    failing = {"error": "the model is down", "status": 503}
    with OpenAIStub(responder=lambda body: failing) as stub:
        report = run_answers_benchmark(
            corpus,
            tasks,
            out,
            embeddings="sparse",
            settings_update={
                "llm": "openai",
                "openai_base_url": stub.base_url,
                "openai_api_key": "test-key",
            },
        )
    lines = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert [line["task_id"] for line in lines] == ["c1<::>1", "c1<::>2"]
    failed = [line for line in lines if line["outcome"] == "error"]
    assert failed, lines
    assert all(line["stop_reason"].startswith("llm_error:") for line in failed)
    assert all(line["answer"] == "" and line["cited_doc_ids"] == [] for line in failed)
    assert report.outcomes.get("error") == len(failed)
