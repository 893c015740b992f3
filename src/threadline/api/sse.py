"""Server-Sent Events: how both streaming endpoints frame their events.

FastAPI's own SSE mode (a path operation that yields, with
`response_class=EventSourceResponse`) starts the generator after the response
has begun, so a busy or missing session could no longer be an HTTP error status,
and `POST /v1/chat/completions` answers JSON or a stream from one route. The
routes therefore build their stream themselves and return FastAPI's
`EventSourceResponse` (a `StreamingResponse` of `text/event-stream`); events are
framed here, one `data:` line of compact JSON each.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Mapping
from typing import Any

from fastapi.sse import EventSourceResponse

# No caching, and no buffering by a proxy in front (nginx honours this header).
_STREAM_HEADERS = {"Cache-Control": "no-cache", "X-Accel-Buffering": "no"}

# The end-of-stream marker of OpenAI's chat completion streams.
OPENAI_DONE = "data: [DONE]\n\n"


def sse_event(data: Any, *, event: str | None = None) -> str:
    """One event: an optional `event:` line, then `data:` with the JSON of `data`.

    Args:
        data: Any JSON-serialisable value (JSON escapes newlines, so it fits one line).
        event: The event's name; without one, clients dispatch it as `message`.

    Returns:
        The event's text, ending with the blank line that closes it.
    """
    head = f"event: {event}\n" if event is not None else ""
    return f"{head}data: {json.dumps(data, ensure_ascii=False)}\n\n"


def event_stream(
    events: AsyncIterator[str], *, headers: Mapping[str, str] | None = None
) -> EventSourceResponse:
    """Return a `text/event-stream` response of already framed events.

    Args:
        events: The events, framed by `sse_event`.
        headers: Headers to send besides the no-cache, no-buffering ones.
    """
    return EventSourceResponse(events, headers={**_STREAM_HEADERS, **(headers or {})})
