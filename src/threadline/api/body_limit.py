"""A ceiling on request bodies, checked before they are read (pure ASGI middleware).

Bodies are read as sent: one declaring a content coding (gzip...) is refused with 415
`unsupported_media_type` at its first read, before any byte is parsed.

FastAPI reads a JSON body whole and Starlette spools a multipart body whole before a
route runs: without a ceiling, one request of a few hundred megabytes of JSON (an
OpenAI `messages` history nobody reads, whitespace around a query) takes that much
memory to parse, and one huge upload that much disk before the route's own limit
refuses it. A declared `Content-Length` over the ceiling is refused at the first read;
a body sent without one (chunked) is counted as it arrives and refused when it passes
the ceiling. A body still arriving `THREADLINE_MAX_REQUEST_BODY_SECONDS` after its first
read is refused with 408 `request_timeout`.
"""

from __future__ import annotations

import asyncio

from starlette.exceptions import HTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send


class BodyTooLarge(HTTPException):
    """A body past the ceiling, found while it was being read (413 `payload_too_large`).

    An HTTPException, so FastAPI's body parsing lets it through as it is, and the
    app's handlers (threadline's and the OpenAI routes') answer it with their shape.
    """

    def __init__(self, limit: int) -> None:
        """Say what the ceiling is."""
        super().__init__(413, f"Request bodies are limited to {limit} bytes.")


class EncodedBody(HTTPException):
    """A body sent with a content coding (gzip, ...): 415 `unsupported_media_type`.

    The app reads bodies as sent: a gzip body would fail as broken JSON (or a plain
    body labelled gzip be read as if the label were not there), and the ceiling
    would count compressed bytes. Refused at the first read, like a body too large.
    """

    def __init__(self, coding: str) -> None:
        """Say which coding was refused and which one is read."""
        super().__init__(
            415,
            f"Request bodies are read as sent: Content-Encoding {coding!r} is not supported.",
            headers={"Accept-Encoding": "identity"},
        )


def _content_coding(scope: Scope) -> str | None:
    """Return the request's content coding other than `identity`, or None."""
    for name, value in scope.get("headers", []):
        if name == b"content-encoding":
            coding = value.decode("latin-1").strip().lower()
            if coding and coding != "identity":
                return coding
    return None


class BodyTooSlow(HTTPException):
    """A request body still incomplete past its deadline (408 `request_timeout`)."""

    def __init__(self, seconds: float) -> None:
        """Name the deadline."""
        super().__init__(
            status_code=408,
            detail=f"The request body was not received within {seconds:g} seconds.",
            headers={"Connection": "close"},
        )


class BodyLimit:
    """Refuse request bodies too large (413) or too slow to arrive (408).

    Larger than `limit` bytes: 413 `payload_too_large`; still arriving `seconds` after
    their first read: 408 `request_timeout`.
    """

    def __init__(self, app: ASGIApp, limit: int, seconds: float = 120.0) -> None:
        """Wrap the app."""
        self.app = app
        self.limit = limit
        self.seconds = seconds

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Check the declared length, then count what arrives."""
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        declared = next(
            (value for name, value in scope.get("headers", []) if name == b"content-length"),
            b"",
        )
        # A declared length over the ceiling is refused at the first read, before any
        # byte is kept; the app's handlers answer, in the shape of the route's API.
        too_long = declared.strip().isdigit() and int(declared) > self.limit
        coding = _content_coding(scope)
        received = 0
        deadline: float | None = None  # set at the first read
        whole = False  # once the body is in, a read waits for the client leaving: no deadline

        async def counted() -> Message:
            nonlocal received, deadline, whole
            if coding:
                raise EncodedBody(coding)
            if too_long:
                raise BodyTooLarge(self.limit)
            if whole:
                return await receive()
            # A body sent a byte at a time (slowloris) held its connection and its task
            # for as long as the client liked: the whole body has `seconds` to arrive.
            loop = asyncio.get_running_loop()
            if deadline is None:
                deadline = loop.time() + self.seconds
            try:
                message = await asyncio.wait_for(receive(), max(deadline - loop.time(), 0))
            except TimeoutError:
                raise BodyTooSlow(self.seconds) from None
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > self.limit:
                    raise BodyTooLarge(self.limit)
                whole = not message.get("more_body", False)
            return message

        await self.app(scope, counted, send)
