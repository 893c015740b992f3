"""A turn answered as one JSON response is cancelled when its client leaves.

A streamed turn learns that its client left when writing to it fails; a turn that
answers once, at its end (`POST /chat`, `POST /v1/chat/completions` without
`stream`), writes nothing until then, so it would run to its end (or its deadline)
for nobody, and keep the model server generating. Here the turn runs beside a
listener on the request's channel, where the ASGI server posts `http.disconnect`
when the connection closes; the first to finish wins. A cancelled turn stores
nothing (the store is written by the graph's last node) and its model call is
stopped between two chunks (`threadline.models.cancellation`).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Coroutine
from typing import Any, TypeVar

from fastapi import Request
from fastapi.responses import JSONResponse

T = TypeVar("T")

CLIENT_CLOSED = 499
"""The status nginx logs for a request whose client closed the connection first."""


async def _disconnected(request: Request) -> None:
    """Return once the request's client has closed the connection."""
    # The body was read already: the channel's next message is the disconnect (posted
    # by the server when the socket closes, or when the response has been sent).
    while (await request.receive())["type"] != "http.disconnect":
        pass


async def unless_disconnected(request: Request, turn: Coroutine[Any, Any, T]) -> T | None:
    """Run `turn`; cancel it and return None if the client disconnects first."""
    running = asyncio.ensure_future(turn)
    listening = asyncio.ensure_future(_disconnected(request))
    try:
        await asyncio.wait({running, listening}, return_when=asyncio.FIRST_COMPLETED)
    except asyncio.CancelledError:  # the route itself was cancelled: so is the turn
        running.cancel()
        raise
    finally:
        listening.cancel()
    if running.done():
        return running.result()
    running.cancel()
    # Whatever the turn was doing when cancelled (even failing), nobody will read it.
    with contextlib.suppress(Exception, asyncio.CancelledError):
        await running
    return None


def client_closed() -> JSONResponse:
    """Answer a client that is gone (for the access log: nobody reads it)."""
    body = {"code": "client_closed", "message": "The client closed the connection."}
    return JSONResponse(body, status_code=CLIENT_CLOSED)
