"""The HTTP server's own limits, and its answers to requests that never reach the app.

uvicorn picks httptools when it is installed, and httptools reads a request head of
any size: a 200 KB header was read, kept and handed to the app. h11 refuses a head
past `h11_max_incomplete_event_size` bytes, so `threadline serve` runs h11 with that
bound. A request h11 cannot read (a head too large, a malformed request line, a bad
header) is refused before any app code runs; uvicorn answers it with a plain-text
400, this protocol with the API's JSON error (431 `headers_too_large` or 400
`malformed_request`) and closes the connection, as uvicorn does.

A head has a deadline too: uvicorn has none (its keep-alive timer only covers the
wait between requests and is cancelled by every byte received), so a client sending a
head a byte at a time held its connection for as long as it kept sending. A head not
whole `THREADLINE_MAX_REQUEST_HEAD_SECONDS` after the server starts waiting for it (the
connection opened, or the previous answer sent) is answered 408 `request_timeout` in the
same JSON shape and the connection closed; a connection that sent nothing of it is
closed without an answer, as there is no request to answer.

What cannot be answered in JSON at this layer: a connection that closes mid-head has
no request to answer (uvicorn closes it); a client that is not speaking HTTP/1.x (a TLS
handshake, HTTP/2 without upgrade) gets the JSON 400 it cannot read.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol

from threadline.settings import get_settings

MAX_HEADER_BYTES = 16 * 1024
"""The largest request head (request line and headers) read: h11's own default, stated."""

_MESSAGES = {
    431: (
        "headers_too_large",
        f"The request line and headers are limited to {MAX_HEADER_BYTES} bytes.",
    ),
    400: ("malformed_request", "The request is not valid HTTP/1.1."),
    408: ("request_timeout", "The request line and headers did not arrive in time."),
}


def protocol_error_body(status: int) -> bytes:
    """Return the JSON error body of a request the server could not read."""
    code, message = _MESSAGES[status]
    return json.dumps({"error": {"code": code, "message": message, "details": None}}).encode()


DRAIN_SECONDS = 2.0
"""How long the rest of a refused request is read and dropped before the connection closes."""


class JsonErrorsH11Protocol(H11Protocol):
    """uvicorn's h11 protocol, answering the requests it cannot read in the API's JSON shape."""

    refused = False
    """Set once the answer to an unreadable request is sent: what arrives after is dropped."""

    head_deadline: asyncio.TimerHandle | None = None
    """Fires when the head being waited for is still incomplete; None once it is read."""

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        """Start waiting for the first request head, with its deadline."""
        super().connection_made(transport)
        self._arm_head_deadline()

    def connection_lost(self, exc: Exception | None) -> None:
        """Forget the deadline with the connection."""
        self._disarm_head_deadline()
        super().connection_lost(exc)

    def data_received(self, data: bytes) -> None:
        """Read as uvicorn does, but drop what comes after a refusal unparsed."""
        if self.refused:
            return
        super().data_received(data)
        if self.conn.their_state is not h11.IDLE:
            self._disarm_head_deadline()  # the head is read: the body has its own deadline

    def on_response_complete(self) -> None:
        """Wait for the next head (keep-alive) with a deadline of its own."""
        super().on_response_complete()
        if not self.transport.is_closing() and self.conn.their_state is h11.IDLE:
            self._arm_head_deadline()

    def _arm_head_deadline(self) -> None:
        self._disarm_head_deadline()
        seconds = get_settings().max_request_head_seconds
        self.head_deadline = self.loop.call_later(seconds, self._head_deadline_passed)

    def _disarm_head_deadline(self) -> None:
        if self.head_deadline is not None:
            self.head_deadline.cancel()
            self.head_deadline = None

    def _head_deadline_passed(self) -> None:
        self.head_deadline = None
        if self.refused or self.transport.is_closing() or self.conn.their_state is not h11.IDLE:
            return
        unread, _ = self.conn.trailing_data
        if not unread:
            # Nothing of a request arrived: there is nothing to answer (uvicorn's own
            # keep-alive timer closes an idle connection between requests the same way).
            self.transport.close()
            return
        self.logger.warning("Request head incomplete at its deadline: closing the connection.")
        self._refuse(408)

    def eof_received(self) -> None:
        """Close once a refused client has sent everything (uvicorn ignores the end)."""
        if self.refused:
            self.transport.close()

    def send_400_response(self, msg: str) -> None:
        """Answer a request h11 refused (uvicorn's hook), then close the connection."""
        # h11 refuses a head still incomplete past the bound: what it holds unread is
        # then over the bound, and that is a 431; anything else it refuses is malformed.
        unread, _ = self.conn.trailing_data
        self._refuse(431 if len(unread) > MAX_HEADER_BYTES else 400)

    def _refuse(self, status: int) -> None:
        """Answer a head that will not be read with the JSON error, then close."""
        self._disarm_head_deadline()
        body = protocol_error_body(status)
        headers = [
            (b"content-type", b"application/json"),
            (b"content-length", str(len(body)).encode()),
            (b"connection", b"close"),
        ]
        events: list[Any] = [
            h11.Response(status_code=status, headers=headers),
            h11.Data(data=body),
            h11.EndOfMessage(),
        ]
        for event in events:
            self.transport.write(self.conn.send(event))
        # Closing now, with the rest of the head unread (a 200 KB header arrives in many
        # reads), makes the kernel reset the connection, and the client loses the answer
        # it was sent. So: end our side, drop what still arrives, close once the client
        # has finished or after DRAIN_SECONDS.
        self.refused = True
        if self.transport.can_write_eof():
            self.transport.write_eof()
        self.loop.call_later(DRAIN_SECONDS, self.transport.close)


SERVER_OPTIONS: dict[str, Any] = {
    "http": JsonErrorsH11Protocol,
    "h11_max_incomplete_event_size": MAX_HEADER_BYTES,
}
"""What `threadline serve` passes to `uvicorn.run` beside the app, host and port."""
