"""A turn whose client went away stops the generation it started.

A streamed turn's answer is written by the model while the client reads it; when
the client disconnects, the API's response is cancelled, but the graph node that
calls the model runs in a worker thread, which a cancelled coroutine cannot stop.
The chat facade marks the turn cancelled (`cancelled_when_abandoned`), and the
bounded model checks the mark between two streamed chunks: it closes the HTTP
response, which is what tells llama.cpp, vLLM or Ollama to stop generating.

Turns are named by a token in the run's metadata (`TURN_KEY`); the marks are kept
for the last `KEPT` cancelled turns only, so the set never grows without bound.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections import OrderedDict
from collections.abc import Iterator
from typing import Any

from threadline.models.errors import LLMError

TURN_KEY = "threadline_turn"
"""Run metadata key: the turn's token (the chat facade sets it)."""
KEPT = 1024

_cancelled: OrderedDict[str, None] = OrderedDict()
_lock = threading.Lock()


class TurnCancelledError(LLMError):
    """The client of a streamed turn went away: its generation was stopped."""

    code = "client_closed"


def cancel_turn(token: str) -> None:
    """Mark the turn `token` cancelled."""
    with _lock:
        _cancelled[token] = None
        while len(_cancelled) > KEPT:
            _cancelled.popitem(last=False)


def turn_cancelled(token: str | None) -> bool:
    """Whether the turn `token` was cancelled (False for no token)."""
    if not token:
        return False
    with _lock:
        return token in _cancelled


@contextlib.contextmanager
def cancelled_when_abandoned(metadata: dict[str, Any]) -> Iterator[None]:
    """Mark the turn of `metadata` cancelled if the block is left by a cancellation.

    Wraps the body of an async generator: a client that disconnects closes it
    (`GeneratorExit`) or cancels the task reading it (`CancelledError`).
    """
    try:
        yield
    except (GeneratorExit, asyncio.CancelledError):
        token = metadata.get(TURN_KEY)
        if isinstance(token, str):
            cancel_turn(token)
        raise
