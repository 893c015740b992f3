r"""One Markdown report from several benchmark JSON files, for the README.

Each benchmark renders its own results (its ``to_markdown``); this module only picks
the renderer by the kind of result and joins the sections in the order given. It
sits above the benchmarks it renders, and none of them imports it, so the shared
helpers (`report`) never need to import a benchmark back::

    python -m benchmarks report --out bench-out/report.md \
        bench-out/load.json bench-out/turns.json bench-out/store.json
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from benchmarks import history, load, store_bench, turns

__all__ = ["combine", "main"]

RENDERERS: dict[str, Callable[[dict[str, Any]], str]] = {
    "load": load.to_markdown,
    "turns": turns.to_markdown,
    "store": store_bench.to_markdown,
}
"""Renderer per value of a result's ``benchmark`` key."""


def _section(results: dict[str, Any]) -> str:
    render = RENDERERS.get(results.get("benchmark"))
    if render is not None:
        return render(results)
    if isinstance(results, dict) and "minimal_trail" in results:  # history.py's output
        return "### History characters per turn in prompts\n\n" + history.to_markdown(results)
    raise ValueError(f"unknown benchmark result (no 'benchmark' key): {sorted(results)[:5]}")


def combine(paths: Sequence[Path]) -> str:
    """One Markdown report from several benchmark JSON files.

    Args:
        paths: Result files of `load`, `turns`, `store_bench` or `history`, in the
            order their sections should appear.

    Returns:
        The report: a "Performance" heading, then each file's table.

    Raises:
        ValueError: A file is not the result of one of those benchmarks.
    """
    parts = ["## Performance", ""]
    for path in paths:
        results = json.loads(path.read_text("utf-8"))
        parts += [_section(results).rstrip(), ""]
    return "\n".join(parts)


def main(argv: Sequence[str] | None = None) -> int:
    """`python -m benchmarks report --out report.md a.json b.json ...`."""
    parser = argparse.ArgumentParser(
        prog="benchmarks.combined_report", description=__doc__.split("\n")[0]
    )
    parser.add_argument("inputs", nargs="+", type=Path, help="benchmark JSON files")
    parser.add_argument("--out", type=Path, required=True, help="the Markdown report to write")
    args = parser.parse_args(argv)
    text = combine(args.inputs)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(text, "utf-8")
    print(text)  # noqa: T201 - a command's output
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
