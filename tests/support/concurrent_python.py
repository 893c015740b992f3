"""Run one Python snippet in several processes at once, as concurrent first uses do."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path

SRC = Path(__file__).resolve().parents[2] / "src"


def run_at_once(
    code: str,
    *args: str,
    processes: int = 2,
    timeout: float = 600,
    extra_env: Mapping[str, str] | None = None,
) -> list[str]:
    """Start `processes` interpreters on `code` with `args`, wait for all; their stdouts.

    The project's `src` leads `PYTHONPATH`, so a clone that is not installed runs its own
    code. Each process must exit 0 (its stderr is the assertion's message).
    """
    path = os.pathsep.join([str(SRC), os.environ.get("PYTHONPATH", "")])
    env = {**os.environ, "PYTHONPATH": path, **(extra_env or {})}
    workers = [
        subprocess.Popen(
            [sys.executable, "-c", code, *args],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=env,
        )
        for _ in range(processes)
    ]
    outputs = []
    for worker in workers:
        out, err = worker.communicate(timeout=timeout)
        assert worker.returncode == 0, err
        outputs.append(out)
    return outputs
