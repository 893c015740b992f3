"""The follow-up benchmark (shared/bench/followups) against a live server: every case passes."""

from __future__ import annotations

import subprocess
import sys

import pytest

from support.paths import FOLLOWUP_CORPUS
from support.server import Server, ingest

BENCH = FOLLOWUP_CORPUS.parent / "followup_bench.py"
CASES = FOLLOWUP_CORPUS.parent / "dev_cases.jsonl"

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.skipif(not BENCH.exists(), reason="shared/bench/followups not beside the repo"),
]


def test_followup_bench_dev_cases_all_pass(tmp_path):
    env = {"THREADLINE_EMBEDDINGS": "sparse"}
    ingest(tmp_path, FOLLOWUP_CORPUS, **env)
    server = Server(tmp_path, **env)
    try:
        run = subprocess.run(
            [sys.executable, str(BENCH), "--base-url", server.url, "--cases", str(CASES)],
            capture_output=True,
            text=True,
            timeout=300,
        )
    finally:
        server.stop()
    last = run.stdout.strip().splitlines()[-1]
    assert last.startswith("accuracy=1.000"), run.stdout
