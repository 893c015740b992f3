"""`python -m benchmarks`: one front door listing every benchmark, each with its own options."""

from __future__ import annotations

import subprocess
import sys

from typer.testing import CliRunner

from benchmarks.cli import ARGPARSE_BENCHMARKS, app
from conftest import ROOT


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


def test_each_argparse_benchmark_gets_every_argument_help_included():
    runner = CliRunner()
    for name in ARGPARSE_BENCHMARKS:
        result = runner.invoke(app, [name, "--help"])
        assert result.exit_code == 0, (name, result.output)
        assert "usage:" in result.output, name  # argparse's help, not the front door's
    missing = runner.invoke(app, ["history", "--no-such-option"])
    assert missing.exit_code == 2  # argparse refused it: the argument reached the benchmark
