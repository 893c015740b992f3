"""The unit tier's guard trips on processes, sockets and model runtimes, even when caught."""

from __future__ import annotations

import multiprocessing
import os
import socket
import subprocess
import sys
import types

import pytest

from support.unit_guard import UnitTierViolation, guarded_phase, unit_tier_guard

trips = pytest.mark.expects_unit_tier_violation


@trips
def test_starting_a_process_trips_the_guard():
    with pytest.raises(UnitTierViolation, match=r"subprocess\.Popen"):
        subprocess.run([sys.executable, "-c", "pass"], check=True)
    with pytest.raises(UnitTierViolation, match=r"os\.system"):
        os.system("true")
    with pytest.raises(UnitTierViolation, match="multiprocessing"):
        multiprocessing.get_context("spawn").Process(target=print).start()


@trips
def test_connecting_or_binding_a_socket_trips_the_guard():
    with socket.socket() as sock, pytest.raises(UnitTierViolation, match="connect"):
        sock.connect(("127.0.0.1", 9))
    with socket.socket() as sock, pytest.raises(UnitTierViolation, match="bind"):
        sock.bind(("127.0.0.1", 0))
    with pytest.raises(UnitTierViolation):
        socket.create_connection(("127.0.0.1", 9), timeout=0.1)


class _Item:
    """The one thing `guarded_phase` asks of a test item: its markers."""

    def get_closest_marker(self, name: str) -> None:
        return None


def test_a_caught_violation_still_fails_the_test():
    phase = guarded_phase(_Item(), "call")  # type: ignore[arg-type]
    next(phase)  # the guard is on, as while a unit test runs
    try:
        subprocess.run(["true"])
    except Exception:  # code under test that swallows every error
        pass
    with pytest.raises(pytest.fail.Exception, match=r"not a unit test \(subprocess\.Popen\)"):
        phase.send(None)
    assert subprocess.Popen.__init__ is not None  # restored: this process can spawn again


def test_a_model_runtime_imported_by_the_test_is_a_violation():
    violations: list[str] = []
    with unit_tier_guard(violations, runtimes=["fake_model_runtime"]):
        sys.modules["fake_model_runtime"] = types.ModuleType("fake_model_runtime")
    del sys.modules["fake_model_runtime"]
    assert violations == ["import fake_model_runtime"]


def test_the_guard_is_lifted_after_the_block():
    violations: list[str] = []
    original = socket.socket.connect
    with unit_tier_guard(violations):
        assert socket.socket.connect is not original
    assert socket.socket.connect is original
    assert violations == []


def test_each_test_module_name_is_unique_across_the_tiers():
    # pytest imports test modules by their file name (the tiers have no __init__.py), so
    # tests/unit/test_vocabulary.py and tests/integration/test_vocabulary.py stopped
    # `make test` at collection ("import file mismatch"), though each tier ran alone.
    from collections import Counter
    from pathlib import Path

    tests = Path(__file__).resolve().parents[1]
    names = Counter(
        path.name
        for tier in ("unit", "integration", "e2e")
        for path in (tests / tier).rglob("test_*.py")
    )
    assert [name for name, n in names.items() if n > 1] == []
