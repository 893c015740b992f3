"""The unit tier: no server, no process, no socket, no database, no model load; seconds.

Every phase of a test in this directory (fixtures of any scope first set up for it
included) runs under support.unit_guard, so a test that starts a process, opens a
socket or imports a model runtime fails here instead of slowing the tier down. Hook
wrappers rather than an autouse fixture: a session- or module-scoped fixture would be
set up before a function-scoped guard; and conftest hooks apply to this directory only.
"""

from __future__ import annotations

from collections.abc import Generator
from typing import Any

import pytest

from support.unit_guard import guarded_phase


@pytest.hookimpl(wrapper=True)
def pytest_runtest_setup(item: pytest.Item) -> Generator[None, Any, Any]:
    return (yield from guarded_phase(item, "setup"))


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Generator[None, Any, Any]:
    return (yield from guarded_phase(item, "call"))


@pytest.hookimpl(wrapper=True)
def pytest_runtest_teardown(
    item: pytest.Item, nextitem: pytest.Item | None
) -> Generator[None, Any, Any]:
    return (yield from guarded_phase(item, "teardown"))
