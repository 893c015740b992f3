"""The benchmarks package: its front door (`python -m benchmarks`), its imports, its report."""

from __future__ import annotations

import ast
import json
from graphlib import CycleError, TopologicalSorter

import pytest
from typer.testing import CliRunner

from benchmarks.cli import ARGPARSE_BENCHMARKS, app
from benchmarks.combined_report import combine
from support.paths import ROOT

BENCHMARKS = ROOT / "benchmarks"
RESULTS = BENCHMARKS / "results"


def test_each_argparse_benchmark_gets_every_argument_help_included():
    runner = CliRunner()
    for name in ARGPARSE_BENCHMARKS:
        result = runner.invoke(app, [name, "--help"])
        assert result.exit_code == 0, (name, result.output)
        assert "usage:" in result.output, name  # argparse's help, not the front door's
    missing = runner.invoke(app, ["history", "--no-such-option"])
    assert missing.exit_code == 2  # argparse refused it: the argument reached the benchmark


def _imported_benchmarks(path) -> set[str]:
    """The benchmarks modules a file imports, at any depth of the file (lazy ones too)."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module:
            names = [node.module] + [f"{node.module}.{alias.name}" for alias in node.names]
        else:
            continue
        for name in names:
            parts = name.split(".")
            if parts[0] == "benchmarks" and len(parts) > 1:
                if (BENCHMARKS / f"{parts[1]}.py").is_file():
                    found.add(parts[1])
    return found


def test_the_benchmarks_import_each_other_without_a_circle():
    graph = {
        path.stem: _imported_benchmarks(path) - {path.stem}
        for path in BENCHMARKS.glob("*.py")
        if path.stem != "__main__"
    }
    try:
        tuple(TopologicalSorter(graph).static_order())
    except CycleError as exc:  # pragma: no cover - the failure message
        pytest.fail(f"import circle among benchmarks: {exc.args[1]}")
    assert graph["report"] == set()  # the shared helpers import no benchmark


@pytest.mark.parametrize("name", ["load", "turns", "store", "store-postgres"])
def test_the_combined_report_repeats_each_kept_table(name, tmp_path):
    """Each benchmark renders its own table; the combined report holds it unchanged."""
    result = RESULTS / f"{name}.json"
    text = combine([result])
    kept = result.with_suffix(".md").read_text(encoding="utf-8").rstrip()
    assert text == "## Performance\n\n" + kept + "\n"
    assert json.loads(result.read_text(encoding="utf-8"))["benchmark"] in ("load", "turns", "store")


def test_the_turns_table_shows_a_fresh_servers_first_question():
    """A result with `first_turn` renders its row; a result kept from before renders none."""
    from benchmarks.turns import to_markdown

    kept = json.loads((RESULTS / "turns.json").read_text(encoding="utf-8"))
    assert "first `POST /chat`" not in to_markdown(kept)
    size = kept["sizes"][0]
    size["first_turn"] = {
        "question": "Résume le rapport annuel 2024",
        "start_to_health_s": 7.57,
        "first_ms": 77.55,
        "later_ms": {"n": 9, "mean": 28.03, "max": 44.07, "p50": 25.39, "p99": 44.07},
        "errors": 0,
        "rss_mib_at_health": 556,
    }
    row = f"| {size['chunks']:,} | 7.57 s | **77.5 ms** | 25.4 / 44.1 ms | 556 MiB |"
    assert row in to_markdown(kept).splitlines()
