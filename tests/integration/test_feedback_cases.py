"""Feedback becomes a test: flagged turns written as answers-benchmark tasks, then replayed
against the deployment's current index, each compared with the answer users flagged.

The whole loop on the sample data: converse, rate, `threadline bench cases`, `threadline
bench answers --tasks` (which runs `python -m benchmarks answers` from the checkout).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from typer.testing import CliRunner

from benchmarks.answers import run_answers_benchmark
from benchmarks.feedback_replay import compare_replay
from support.paths import ROOT
from support.services import make_services
from threadline.chat import ChatService, TurnRequest
from threadline.cli import app
from threadline.feedback import set_rating
from threadline.settings import get_settings


@pytest.fixture
def deployment(tmp_path, monkeypatch):
    """A data directory with the sample indexed, two conversations, one answer flagged down."""
    services = make_services(tmp_path)
    chat = ChatService(services)
    chat.run_turn(TurnRequest(query="Résume le rapport annuel 2024", thread_id="loop"))
    flagged = chat.run_turn(TurnRequest(query="Détaille S2", thread_id="loop"))
    liked = chat.run_turn(
        TurnRequest(query="What SLA applies to the enterprise plan?", thread_id="ok")
    )
    for result, rating, reason in ((flagged, "down", "incomplete"), (liked, "up", None)):
        set_rating(
            services,
            tenant="default",
            caller_app="default",
            session_id=result.session_id,
            message_id=result.message_ids[1],
            user="local",
            rating=rating,
            reason=reason,
            comment="the gross margin is missing" if rating == "down" else None,
        )
    services.close()
    monkeypatch.setenv("THREADLINE_DATA_DIR", str(tmp_path))
    monkeypatch.setenv("THREADLINE_EMBEDDINGS", "sparse")
    monkeypatch.setenv("THREADLINE_LLM", "offline")
    monkeypatch.chdir(tmp_path)
    get_settings.cache_clear()
    yield tmp_path, flagged
    get_settings.cache_clear()


def test_flagged_turns_become_tasks_with_the_conversation_up_to_them(deployment):
    data_dir, flagged = deployment
    out = data_dir / "cases.jsonl"
    made = CliRunner().invoke(app, ["bench", "cases", "--from-feedback", "down", "--out", str(out)])
    assert made.exit_code == 0, made.output
    assert "1 flagged turn(s) written" in made.output
    [case] = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert [t["role"] for t in case["turns"]] == ["user", "assistant", "user"]
    assert case["turns"][-1]["text"] == "Détaille S2"
    earlier = case["turns"][1]["metadata"]
    assert [o["id"] for o in earlier["outline"]][:2] == ["S1", "S2"]  # S2 resolves on replay
    assert case["labels"] == {
        "feedback": "down",
        "reason": "incomplete",
        "comment": "the gross margin is missing",
    }
    cited = [c["chunk_id"] for c in flagged.citations]
    assert case["wrong_passage_ids"] == cited and case["flagged"]["answer"] == flagged.answer
    assert case["domain"] is None and case["tenant"] == "default"


def test_replaying_the_cases_says_what_became_of_each_flagged_answer(deployment):
    data_dir, _ = deployment
    cases, run = data_dir / "cases.jsonl", data_dir / "run.jsonl"
    assert CliRunner().invoke(app, ["bench", "cases", "--out", str(cases)]).exit_code == 0
    services = make_services(data_dir)
    log_rows = len(services.querylog.query("SELECT id FROM queries_log"))
    services.close()

    run_answers_benchmark(None, cases, run)
    [line] = [json.loads(x) for x in run.read_text(encoding="utf-8").splitlines()]
    assert line["outcome"] == "grounded_answer"  # "Détaille S2" resolved against the outline
    assert compare_replay(cases, run).counts() == {"unchanged": 1}  # same index, same answer

    # The team fixes the knowledge base: the report is taken out for a rewrite.
    services = make_services(data_dir, corpus=[])
    report = json.loads(cases.read_text().splitlines()[0])["wrong_doc_ids"][0]
    assert services.kb.delete_document(report) > 0
    # The replay wrote its conversation elsewhere: the deployment's log is as it was.
    assert len(services.querylog.query("SELECT id FROM queries_log")) == log_rows
    services.close()
    run_answers_benchmark(None, cases, run)
    # The flagged passages are gone: the new version answers from others (offline, the
    # annual report's neighbours), which is what a maintainer now reviews.
    assert compare_replay(cases, run).counts() == {"other_passages": 1}


def test_threadline_bench_answers_runs_the_repository_benchmark(deployment):
    data_dir, _ = deployment
    cases, run = data_dir / "cases.jsonl", data_dir / "run.jsonl"
    assert CliRunner().invoke(app, ["bench", "cases", "--out", str(cases)]).exit_code == 0
    elsewhere = CliRunner().invoke(app, ["bench", "answers", "--tasks", str(cases)])
    assert elsewhere.exit_code == 2 and "repository" in elsewhere.output
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT / "src"), str(ROOT)])}
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "threadline.cli",
            "bench",
            "answers",
            "--tasks",
            str(cases),
            "--out",
            str(run),
        ],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr
    assert "1 flagged turn(s) replayed: unchanged 1" in done.stdout
    assert json.loads(run.read_text().splitlines()[0])["task_id"].startswith("feedback:default:")
