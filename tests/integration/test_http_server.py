"""Requests the HTTP server refuses before the app runs, over a real `threadline serve`.

A head past the bound (a 200 KB header, many headers) is 431 and a request h11 cannot
read is 400, each with the API's JSON error body, never a plain-text answer; a head
within the bound is read; the server keeps serving afterwards.
"""

from __future__ import annotations

import contextlib
import itertools
import json
import socket
import time
from collections.abc import Iterable, Iterator
from pathlib import Path

import httpx
import pytest

from support.server import Server
from threadline.api.http_server import MAX_HEADER_BYTES

ENV = {"THREADLINE_EMBEDDINGS": "sparse", "THREADLINE_LLM": "offline"}


@pytest.fixture(scope="module")
def server(tmp_path_factory) -> Iterator[Server]:
    data: Path = tmp_path_factory.mktemp("http-server") / "data"
    data.mkdir()
    with Server(data, **ENV) as running:
        yield running


def raw_exchange(server: Server, request: bytes) -> tuple[int, dict[str, str], bytes]:
    """Send bytes as they are; return the status, headers and body of the answer."""
    with socket.create_connection(("127.0.0.1", server.port), timeout=30) as sock:
        try:
            sock.sendall(request)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the server answered and closed before reading the whole head
        received = b""
        while chunk := sock.recv(65536):
            received += chunk
    head, _, body = received.partition(b"\r\n\r\n")
    status_line, *lines = head.decode("latin-1").split("\r\n")
    headers = {k.strip().lower(): v.strip() for k, _, v in (line.partition(":") for line in lines)}
    return int(status_line.split()[1]), headers, body


def json_error(headers: dict[str, str], body: bytes) -> dict:
    assert headers["content-type"] == "application/json", headers
    assert int(headers["content-length"]) == len(body)
    parsed = json.loads(body)
    assert set(parsed) == {"error"} and set(parsed["error"]) == {"code", "message", "details"}
    return parsed["error"]


HEADS_TOO_LARGE = {
    "one 200 KB header": b"X-Big: " + b"a" * 200_000 + b"\r\n",
    "many headers": b"".join(b"X-H%d: %s\r\n" % (i, b"v" * 60) for i in range(2000)),
}


@pytest.mark.parametrize("headers", HEADS_TOO_LARGE.values(), ids=HEADS_TOO_LARGE.keys())
def test_a_request_head_past_the_bound_is_a_json_431(server, headers):
    request = b"GET /health HTTP/1.1\r\nHost: x\r\n" + headers + b"\r\n"
    status, answer_headers, body = raw_exchange(server, request)
    assert status == 431
    assert json_error(answer_headers, body)["code"] == "headers_too_large"
    assert httpx.get(f"{server.url}/health", timeout=30).status_code == 200


def test_a_head_within_the_bound_is_read(server):
    padding = "a" * (MAX_HEADER_BYTES // 2)
    response = httpx.get(f"{server.url}/health", headers={"X-Pad": padding}, timeout=30)
    assert response.status_code == 200


MALFORMED = {
    "garbage request line": b"NOT HTTP AT ALL\r\n\r\n",
    "space in a header name": b"GET /health HTTP/1.1\r\nHost: x\r\nBad Name: v\r\n\r\n",
    "two content lengths": b"POST /chat HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n"
    b"Content-Length: 5\r\n\r\n{}",
    "no host": b"GET /health HTTP/1.1\r\n\r\n",
    "bad chunk size": b"POST /chat HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n"
    b"Content-Type: application/json\r\n\r\nzz\r\n{}\r\n0\r\n\r\n",
}


@pytest.mark.parametrize("request_bytes", MALFORMED.values(), ids=MALFORMED.keys())
def test_a_request_the_server_cannot_read_is_a_json_400(server, request_bytes):
    status, headers, body = raw_exchange(server, request_bytes)
    assert status == 400
    assert json_error(headers, body)["code"] == "malformed_request"
    assert httpx.get(f"{server.url}/health", timeout=30).status_code == 200


def test_a_body_sent_a_byte_at_a_time_is_refused_at_its_deadline(tmp_path: Path) -> None:
    # Slowloris: a body that never finishes held its connection and its task as long as
    # the client kept sending, with no answer. Now: 408 request_timeout, in JSON.
    data = tmp_path / "data"
    data.mkdir()
    with Server(data, THREADLINE_MAX_REQUEST_BODY_SECONDS="2", **ENV) as running:
        with socket.create_connection(("127.0.0.1", running.port), timeout=30) as sock:
            sock.sendall(
                b"POST /chat HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                b"Content-Length: 1000\r\n\r\n" + b'{"query": "'
            )
            # A byte a second, never the whole body.
            received = trickle(sock, itertools.repeat(b"a"), wait=1)
        status_line, headers, body = parse_answer(received)
        assert int(status_line.split()[1]) == 408, received
        assert json_error(headers, body)["code"] == "request_timeout"
        # A body sent at once is read as before.
        answer = httpx.post(f"{running.url}/chat", json={"query": "hello"}, timeout=60)
        assert answer.status_code == 200, answer.text


def test_a_head_sent_a_byte_at_a_time_is_refused_at_its_deadline(tmp_path: Path) -> None:
    # Slowloris on the head: uvicorn's keep-alive timer is cancelled by every byte, so a
    # request line and headers trickled a byte a second held the connection for as long
    # as the client kept sending, within the 16 KiB bound. Now: 408 request_timeout.
    data = tmp_path / "data"
    data.mkdir()
    with Server(data, THREADLINE_MAX_REQUEST_HEAD_SECONDS="2", **ENV) as running:
        with socket.create_connection(("127.0.0.1", running.port), timeout=30) as sock:
            started = time.monotonic()
            head = b"GET /health HTTP/1.1\r\nHost: x\r\n" + b"X-Slow: " + b"a" * 5000
            # A byte every half second, never the end of the head.
            received = trickle(sock, (bytes([byte]) for byte in head), wait=0.5)
            elapsed = time.monotonic() - started
        status_line, headers, body = parse_answer(received)
        assert int(status_line.split()[1]) == 408, received
        assert json_error(headers, body)["code"] == "request_timeout"
        assert elapsed < 10
        # An idle connection that sends nothing is closed at the deadline, unanswered.
        with socket.create_connection(("127.0.0.1", running.port), timeout=30) as idle:
            assert idle.recv(65536) == b""
        # A head sent at once, and a second one on the same connection, are read as before.
        with httpx.Client(timeout=30) as client:
            assert client.get(f"{running.url}/health").status_code == 200
            time.sleep(1)
            assert client.get(f"{running.url}/health").status_code == 200


def trickle(sock: socket.socket, pieces: Iterable[bytes], wait: float) -> bytes:
    """Send `pieces` one at a time, reading between them, until the server has answered
    in full (a JSON body) or closed the connection; what it sent. Fails past 20 s."""
    started = time.monotonic()
    received = b""
    with contextlib.suppress(BrokenPipeError, ConnectionResetError):
        for piece in pieces:
            if b"\r\n\r\n" in received and received.rstrip().endswith(b"}"):
                break
            sock.sendall(piece)
            sock.settimeout(wait)
            with contextlib.suppress(TimeoutError):
                chunk = sock.recv(65536)
                if not chunk:
                    break
                received += chunk
            assert time.monotonic() - started < 20, received
    return received


def parse_answer(received: bytes) -> tuple[str, dict[str, str], bytes]:
    head, _, body = received.partition(b"\r\n\r\n")
    status_line, *lines = head.decode("latin-1").split("\r\n")
    headers = {k.strip().lower(): v.strip() for k, _, v in (ln.partition(":") for ln in lines)}
    return status_line, headers, body
