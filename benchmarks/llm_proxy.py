"""A logging HTTP proxy in front of a model server: every request threadline makes, counted.

Put between threadline and a real OpenAI-compatible server (llama.cpp in the tests
and the LLM benchmark), it forwards each request as it is, streams answers through
chunk by chunk, and keeps one `ProxyRecord` per request: what was asked (the body,
parsed), the status, the token usage the server reported, how long it took, and
whether the client went away before the answer ended (then the upstream response is
closed too, which is what tells the server to stop generating).
"""

from __future__ import annotations

import json
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Any

import httpx

_HOP_BY_HOP = {"connection", "keep-alive", "transfer-encoding", "content-length", "host"}


@dataclass
class ProxyRecord:
    """One request that went through the proxy."""

    method: str
    path: str
    body: dict[str, Any]
    status: int = 0
    usage: dict[str, Any] = field(default_factory=dict)
    seconds: float = 0.0
    aborted: bool = False

    @property
    def kind(self) -> str:
        """What the call was: answer (a response format or the answer's cap), tools, text."""
        if self.body.get("tools"):
            return "tool_choice"
        if self.body.get("response_format"):
            return "answer"
        return "text"


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: _Server

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def do_GET(self) -> None:
        self._forward("GET")

    def do_POST(self) -> None:
        self._forward("POST")

    def _forward(self, method: str) -> None:
        proxy = self.server.proxy
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        try:
            body = json.loads(raw) if raw else {}
        except ValueError:
            body = {}
        record = ProxyRecord(method=method, path=self.path, body=body)
        with proxy.lock:  # logged as it arrives: a call still running is counted
            proxy.records.append(record)
        headers = {k: v for k, v in self.headers.items() if k.lower() not in _HOP_BY_HOP}
        started = time.perf_counter()
        try:
            with proxy.client.stream(
                method, proxy.upstream + self.path, content=raw, headers=headers
            ) as upstream:
                record.status = upstream.status_code
                streamed = "text/event-stream" in upstream.headers.get("content-type", "")
                self.send_response(upstream.status_code)
                for name, value in upstream.headers.items():
                    if name.lower() not in _HOP_BY_HOP:
                        self.send_header(name, value)
                if streamed:
                    self.send_header("Transfer-Encoding", "chunked")
                    self.end_headers()
                    for chunk in upstream.iter_raw():
                        self.wfile.write(b"%x\r\n%s\r\n" % (len(chunk), chunk))
                        self.wfile.flush()
                    self.wfile.write(b"0\r\n\r\n")
                    self.wfile.flush()
                else:
                    data = upstream.read()
                    self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)
                    self.wfile.flush()
                    try:
                        record.usage = json.loads(data).get("usage") or {}
                    except (ValueError, AttributeError):
                        pass
        except (BrokenPipeError, ConnectionResetError):
            record.aborted = True  # the client left: leaving the block closed upstream
            self.close_connection = True
        except httpx.HTTPError:
            record.status = record.status or 502
            self.close_connection = True
        finally:
            record.seconds = time.perf_counter() - started


class _Server(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, proxy: CountingProxy) -> None:
        self.proxy = proxy
        super().__init__(("127.0.0.1", 0), _Handler)

    def handle_error(self, request: Any, client_address: Any) -> None:
        pass  # a client going away is recorded, not printed


class CountingProxy:
    """Context manager: a proxy on a free loopback port in front of `upstream`.

    Args:
        upstream: The model server's base URL with its `/v1` (as `OPENAI_BASE_URL`).
    """

    def __init__(self, upstream: str) -> None:
        """Keep the upstream; the proxy starts on `start()` or entering the context."""
        self.upstream = upstream.rstrip("/").removesuffix("/v1")
        self.records: list[ProxyRecord] = []
        self.lock = threading.Lock()
        self.client = httpx.Client(timeout=None)
        self._server = _Server(self)
        self.base_url = f"http://127.0.0.1:{self._server.server_address[1]}/v1"
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    def start(self) -> CountingProxy:
        """Start serving."""
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop serving and close the upstream connections."""
        self._server.shutdown()
        self._server.server_close()
        self.client.close()

    def __enter__(self) -> CountingProxy:
        """Start serving."""
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        """Stop serving."""
        self.stop()

    def mark(self) -> int:
        """Return a position in the log, for `since`."""
        with self.lock:
            return len(self.records)

    def since(self, mark: int) -> list[ProxyRecord]:
        """Return the chat completion requests logged after `mark`."""
        with self.lock:
            return [r for r in self.records[mark:] if r.path.endswith("/chat/completions")]
