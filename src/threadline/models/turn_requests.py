"""How many model requests each turn made, counted where they are sent.

A turn's `llm_calls` is summed by the graph's nodes from what they return; a node
that fails half-way returns nothing, so a turn that the offline model finishes after
a failed call (the fallback) would not count the requests the failed run sent. The
bounded model counts every request it starts under the turn's token (`TURN_KEY`, in
the run's metadata), and the chat facade adds the failed run's count to the result.

The counts are kept for the last `KEPT` turns only, so the table never grows without
bound.
"""

from __future__ import annotations

import threading
from collections import OrderedDict

KEPT = 1024

_requests: OrderedDict[str, int] = OrderedDict()
_lock = threading.Lock()


def count_request(token: str | None) -> None:
    """Count one model request of the turn `token` (nothing for no token)."""
    if not token:
        return
    with _lock:
        _requests[token] = _requests.get(token, 0) + 1
        _requests.move_to_end(token)
        while len(_requests) > KEPT:
            _requests.popitem(last=False)


def requests_of(token: str | None) -> int:
    """Return how many model requests the turn `token` has made so far."""
    if not token:
        return 0
    with _lock:
        return _requests.get(token, 0)
