"""Shared helpers of the performance benchmarks: the machine, percentiles, output files.

The benchmarks (`load`, `turns`, `store_bench`, `models`) each write a JSON file and
a Markdown table that they render themselves. This module holds what they share
(the machine's description, percentiles, output paths) with the standard library
only, so the load client can import it without loading the service. It imports no
benchmark: the report that merges several results is `combined_report`.
"""

from __future__ import annotations

import json
import math
import os
import platform
import subprocess
import sys
import time
from collections.abc import Iterable, Sequence
from importlib import metadata as importlib_metadata
from pathlib import Path
from typing import Any

__all__ = [
    "environment",
    "machine_line",
    "output_paths",
    "percentiles",
    "write_outputs",
]


def percentiles(values: Iterable[float], points: Sequence[float] = (50, 95, 99)) -> dict[str, Any]:
    """Nearest-rank percentiles (plus count, mean and max) of a list of numbers.

    Args:
        values: The samples (milliseconds, usually).
        points: Which percentiles, as numbers in (0, 100].

    Returns:
        ``{"n", "mean", "max", "p50", "p95", ...}``, rounded to 0.01; ``n`` 0 and None
        values when there are no samples.
    """
    data = sorted(values)
    out: dict[str, Any] = {"n": len(data)}
    if not data:
        out.update({"mean": None, "max": None, **{f"p{_name(p)}": None for p in points}})
        return out
    out["mean"] = round(sum(data) / len(data), 2)
    out["max"] = round(data[-1], 2)
    for p in points:
        rank = max(1, math.ceil(p / 100 * len(data)))
        out[f"p{_name(p)}"] = round(data[rank - 1], 2)
    return out


def _name(p: float) -> str:
    return f"{p:g}".replace(".", "_")


def _version(name: str) -> str | None:
    try:
        return importlib_metadata.version(name)
    except importlib_metadata.PackageNotFoundError:
        return None


def _cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def _memory_gib() -> float | None:
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal:"):
                return round(int(line.split()[1]) / 2**20, 1)
    except OSError:
        pass
    return None


def _filesystem(path: Path) -> str | None:
    """Return the filesystem type holding ``path`` (fsync costs depend on it)."""
    try:
        out = subprocess.run(
            ["df", "--output=fstype", str(path)], capture_output=True, text=True, timeout=5
        ).stdout.split()
        return out[-1] if len(out) >= 2 else None
    except (OSError, subprocess.SubprocessError):
        return None


def environment(data_path: Path | None = None) -> dict[str, Any]:
    """Describe what the numbers were measured on: CPU, cores usable, memory, load, versions.

    The 1-minute load average matters: on a shared 2-core machine another process
    using the CPUs inflates every latency here, so each result carries it.
    """
    try:
        usable = len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not Linux
        usable = os.cpu_count()
    try:
        import torch

        torch_threads: int | None = torch.get_num_threads() if "torch" in sys.modules else None
        del torch
    except ImportError:  # pragma: no cover
        torch_threads = None
    return {
        "cpu": _cpu_model(),
        "cpus": os.cpu_count(),
        "cpus_usable": usable,
        "memory_gib": _memory_gib(),
        "os": f"{platform.system()} {platform.release()}",
        "filesystem": _filesystem(data_path or Path(".")),
        "python": platform.python_version(),
        "load_average": [round(x, 2) for x in os.getloadavg()],
        "torch_threads": torch_threads,
        "versions": {
            name: _version(name)
            for name in (
                "threadline",
                "langgraph",
                "fastapi",
                "uvicorn",
                "qdrant-edge-py",
                "torch",
                "sentence-transformers",
            )
        },
        "date": time.strftime("%Y-%m-%d %H:%M:%S %Z"),
    }


def machine_line(env: dict[str, Any]) -> str:
    """One sentence describing the machine, for the top of a table."""
    load = env.get("load_average") or ["?"]
    return (
        f"{env['cpu']}, {env['cpus_usable']} usable core(s) of {env['cpus']}, "
        f"{env['memory_gib']} GiB RAM, {env['os']}, {env.get('filesystem') or '?'} disk, "
        f"Python {env['python']}; 1-min load average {load[0]} when measured."
    )


def output_paths(out: Path) -> tuple[Path, Path]:
    """``(json_path, markdown_path)`` for ``--out``: a ``.json`` file or a directory."""
    if out.suffix == ".json":
        return out, out.with_suffix(".md")
    if out.suffix == ".md":
        return out.with_suffix(".json"), out
    return out / "result.json", out / "result.md"


def write_outputs(out: Path, results: dict[str, Any], markdown: str) -> tuple[Path, Path]:
    """Write the JSON results and the Markdown table next to each other."""
    json_path, md_path = output_paths(out)
    json_path.parent.mkdir(parents=True, exist_ok=True)
    json_path.write_text(json.dumps(results, indent=2, ensure_ascii=False) + "\n", "utf-8")
    md_path.write_text(markdown.rstrip() + "\n", "utf-8")
    return json_path, md_path
