"""A refused upload to a real `threadline serve` keeps the keep-alive connection usable."""

from __future__ import annotations

import socket

from support.server import Server


def raw_request(sock: socket.socket, request: bytes) -> bytes:
    """Send one HTTP/1.1 request and read its (Content-Length) response."""
    sock.sendall(request)
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = sock.recv(65536)
        assert chunk, "connection closed before a response"
        data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    length = next(
        int(line.split(b":", 1)[1])
        for line in head.split(b"\r\n")
        if line.lower().startswith(b"content-length:")
    )
    while len(body) < length:
        chunk = sock.recv(65536)
        assert chunk, "connection closed in a response"
        body += chunk
    return head


def test_a_refused_upload_keeps_the_keep_alive_connection(tmp_path):
    server = Server(tmp_path, THREADLINE_EMBEDDINGS="sparse", THREADLINE_LLM="offline")
    try:
        boundary = "tlboundary"
        form = (
            f'--{boundary}\r\nContent-Disposition: form-data; name="metadata"\r\n\r\n'
            + "[" * 4000
            + "]" * 4000
            + f'\r\n--{boundary}\r\nContent-Disposition: form-data; name="file"; '
            'filename="a.md"\r\nContent-Type: text/markdown\r\n\r\n## A\nText.\r\n'
            f"--{boundary}--\r\n"
        ).encode()
        upload_request = (
            f"POST /documents HTTP/1.1\r\nHost: x\r\nContent-Length: {len(form)}\r\n"
            f"Content-Type: multipart/form-data; boundary={boundary}\r\n\r\n"
        ).encode() + form
        with socket.create_connection(("127.0.0.1", server.port), timeout=30) as sock:
            assert raw_request(sock, upload_request).startswith(b"HTTP/1.1 400")
            health = raw_request(sock, b"GET /health HTTP/1.1\r\nHost: x\r\n\r\n")
            assert health.startswith(b"HTTP/1.1 200")
    finally:
        server.stop()
