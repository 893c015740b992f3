"""The unit tier's rule as code: no process, no socket, no model runtime during a unit test.

tests/unit/conftest.py wraps every phase of a unit test (setup, call, teardown) in
`guarded_phase`. Inside it, starting a process (``subprocess``, ``os.fork``,
``posix_spawn``, ``os.system``, ``multiprocessing``) or connecting or binding a socket
raises `UnitTierViolation`, and importing a model runtime (torch, sentence-transformers,
onnxruntime) that was not imported before is recorded. A test that catches the error
still fails: every violation is recorded and reported when the phase ends.
"""

from __future__ import annotations

import multiprocessing.process
import os
import socket
import subprocess
import sys
from collections.abc import Callable, Generator, Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import pytest

# Imported by the model loaders (dense embeddings, ONNX export); seconds to import alone.
MODEL_RUNTIMES = ("torch", "sentence_transformers", "onnxruntime")

# Marks the tests that prove the guard: they must trip it in their call phase.
EXPECTS_VIOLATION = "expects_unit_tier_violation"

# (owner, attribute, name in the error): everything that starts a process or uses a socket.
GUARDED: list[tuple[Any, str, str]] = [
    (subprocess.Popen, "__init__", "subprocess.Popen"),
    (os, "fork", "os.fork"),
    (os, "forkpty", "os.forkpty"),
    (os, "posix_spawn", "os.posix_spawn"),
    (os, "posix_spawnp", "os.posix_spawnp"),
    (os, "system", "os.system"),
    (multiprocessing.process.BaseProcess, "start", "multiprocessing start"),
    (socket.socket, "connect", "socket connect"),
    (socket.socket, "connect_ex", "socket connect"),
    (socket.socket, "bind", "socket bind"),
]


class UnitTierViolation(RuntimeError):
    """A unit test reached for a process, a socket or a model runtime."""


def _refuse(what: str, violations: list[str]) -> Callable[..., Any]:
    def refuse(*args: Any, **kwargs: Any) -> Any:
        violations.append(what)
        raise UnitTierViolation(
            f"{what} in a unit test: move the test to tests/integration or tests/e2e"
        )

    return refuse


@contextmanager
def unit_tier_guard(
    violations: list[str], runtimes: Sequence[str] = MODEL_RUNTIMES
) -> Iterator[None]:
    """Refuse processes and sockets inside the block; record the model runtimes it imports.

    Args:
        violations: Receives one entry per refused call or newly imported runtime.
        runtimes: Module names whose first import inside the block is a violation.
    """
    present = [(owner, name) for owner, name, _ in GUARDED if hasattr(owner, name)]
    saved = [(owner, name, getattr(owner, name)) for owner, name in present]
    runtimes_before = {name for name in runtimes if name in sys.modules}
    for owner, name, what in GUARDED:
        if hasattr(owner, name):
            setattr(owner, name, _refuse(what, violations))
    try:
        yield
    finally:
        for owner, name, original in saved:
            setattr(owner, name, original)
        violations.extend(
            f"import {name}"
            for name in runtimes
            if name in sys.modules and name not in runtimes_before
        )


def guarded_phase(item: pytest.Item, when: str) -> Generator[None, Any, Any]:
    """A pluggy wrapper body: run one phase of a unit test under `unit_tier_guard`.

    Args:
        item: The test being run.
        when: "setup", "call" or "teardown".

    Returns:
        The phase's result, unchanged, when nothing was violated.
    """
    violations: list[str] = []
    with unit_tier_guard(violations):
        result = yield
    expected = item.get_closest_marker(EXPECTS_VIOLATION) is not None
    if violations and not expected:
        found = ", ".join(dict.fromkeys(violations))
        pytest.fail(f"not a unit test ({found}): move it to tests/integration or tests/e2e")
    if expected and when == "call" and not violations:
        pytest.fail("the unit-tier guard did not trip")
    return result
