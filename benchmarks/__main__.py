"""`python -m benchmarks`: the benchmarks' command line (see benchmarks/cli.py)."""

from benchmarks.cli import app

app(prog_name="python -m benchmarks")
