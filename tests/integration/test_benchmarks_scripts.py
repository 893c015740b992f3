"""The benchmarks' scripts in a fresh interpreter: `python -m benchmarks`, the PostgreSQL script."""

from __future__ import annotations

import subprocess
import sys

from benchmarks.cli import ARGPARSE_BENCHMARKS
from support.paths import ROOT


def test_the_front_door_runs_from_the_repository_root():
    done = subprocess.run(
        [sys.executable, "-m", "benchmarks", "--help"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    for name in ("retrieval", "answers", *ARGPARSE_BENCHMARKS):
        assert name in done.stdout


def test_the_postgres_support_script_finds_the_cluster_module_from_anywhere(tmp_path):
    """`make test` runs tests/support/postgres.py as a script: benchmarks/ must import."""
    done = subprocess.run(
        [sys.executable, str(ROOT / "tests" / "support" / "postgres.py"), "--check"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert "Traceback" not in done.stderr, done.stderr
    assert done.returncode in (0, 1)  # 1: postgresql is not installed here
