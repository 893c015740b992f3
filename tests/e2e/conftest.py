"""The end-to-end tier: real `threadline serve` and `langgraph dev` processes, a browser.

Every test here carries the `e2e` marker, so `-m "not e2e"` leaves the tier out
whichever way the tests are selected.
"""

from __future__ import annotations

import pytest


def pytest_itemcollected(item: pytest.Item) -> None:
    # Called through the item's own hooks: only items under this directory get here.
    item.add_marker(pytest.mark.e2e)
