"""The HTTP server's own limits, and its answers to requests that never reach the app.

uvicorn picks httptools when it is installed, and httptools reads a request head of
any size: a 200 KB header was read, kept and handed to the app. h11 refuses a head
past `h11_max_incomplete_event_size` bytes, so `threadline serve` runs h11 with that
bound. A request h11 cannot read (a head too large, a malformed request line, a bad
header) is refused before any app code runs; uvicorn answers it with a plain-text
400, this protocol with the API's JSON error (431 `headers_too_large` or 400
`malformed_request`) and closes the connection, as uvicorn does.

What cannot be answered in JSON at this layer: a connection that closes or stops
mid-head has no request to answer (uvicorn closes it); a client that is not speaking
HTTP/1.x (a TLS handshake, HTTP/2 without upgrade) gets the JSON 400 it cannot read.
"""

from __future__ import annotations

import json
from typing import Any

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol

MAX_HEADER_BYTES = 16 * 1024
"""The largest request head (request line and headers) read: h11's own default, stated."""

_MESSAGES = {
    431: (
        "headers_too_large",
        f"The request line and headers are limited to {MAX_HEADER_BYTES} bytes.",
    ),
    400: ("malformed_request", "The request is not valid HTTP/1.1."),
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

    def data_received(self, data: bytes) -> None:
        """Read as uvicorn does, but drop what comes after a refusal unparsed."""
        if self.refused:
            return
        super().data_received(data)

    def eof_received(self) -> None:
        """Close once a refused client has sent everything (uvicorn ignores the end)."""
        if self.refused:
            self.transport.close()

    def send_400_response(self, msg: str) -> None:
        """Answer a request h11 refused (uvicorn's hook), then close the connection."""
        # h11 refuses a head still incomplete past the bound: what it holds unread is
        # then over the bound, and that is a 431; anything else it refuses is malformed.
        unread, _ = self.conn.trailing_data
        status = 431 if len(unread) > MAX_HEADER_BYTES else 400
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
