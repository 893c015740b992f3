"""A local stand-in for the OpenAI HTTP API, for tests.

``OpenAIStub`` runs a real HTTP/1.1 server on 127.0.0.1 (a free port) in a background
thread, so the real ``openai`` package and ``langchain_openai`` clients talk to it over
loopback exactly as they would talk to OpenAI. Nothing here reaches the network.

Endpoints (all under ``/v1``):

* ``POST /chat/completions``: non-streaming JSON and ``"stream": true`` Server-Sent
  Events, plain text and tool calls, ``stream_options.include_usage``.
* ``POST /embeddings``: deterministic hashed bag-of-words vectors, ``float`` or
  ``base64`` encoding (the ``openai`` client asks for base64 unless told otherwise).
* ``GET /models`` and ``GET /models/{id}``.

Replies are taken first from :meth:`OpenAIStub.queue` (FIFO), then from the responder,
which receives the full request body. A reply is one of:

* ``"text"``: an assistant message with that content;
* ``{"tool_calls": [{"name": "search", "arguments": {"q": "x"}}]}``: an assistant
  message with OpenAI-format tool calls (ids ``call_1``, ``call_2``, ... counted over the
  stub's lifetime; dict arguments are JSON-encoded, string arguments are sent verbatim);
  ``"content"`` may be given beside ``"tool_calls"``, and ``"finish_reason"`` overrides
  the default (``"stop"`` or ``"tool_calls"``);
* ``{"error": "message", "status": 503}``: an OpenAI-style error answer with that HTTP
  status (optionally ``"type"`` and ``"code"``). Mind that the ``openai`` client retries
  408/409/429/5xx answers itself (``max_retries``, 2 by default), so each retry consumes
  another reply and is recorded as another request.

Error injection, for the bounds of the LLM path:

* ``"delay": seconds`` beside any reply: the stub sleeps that long before answering (a
  slow or stuck model; the sleep ends early when the stub stops);
* ``{"runaway": True}``: a model that never stops on its own: it writes words until the
  request's ``max_tokens`` / ``max_completion_tokens`` (``finish_reason: "length"``), or
  ``RUNAWAY_TOKENS`` words when the request sets no cap;
* ``{"drop": True}``: the connection is closed without an answer (a crashed server).

Every text reply honours the request's token cap the way a server does: content longer
than ``max_tokens`` words is cut there, with ``finish_reason: "length"``.

If the responder raises, the stub answers 500 with ``x-should-retry: false`` (so the
client fails at once instead of retrying) and keeps the exception in ``stub.errors``.
"""

from __future__ import annotations

import base64
import hashlib
import itertools
import json
import math
import re
import socket
import struct
import threading
import time
import traceback
from collections import deque
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Any

Reply = str | dict[str, Any]
Responder = Callable[[dict[str, Any]], Reply]

DEFAULT_ANSWER = "stub answer"
RUNAWAY_TOKENS = 20_000
"""Words a runaway reply writes when the request sets no token cap."""
MODEL_IDS = ("gpt-4o-mini", "text-embedding-3-small")

_WORD = re.compile(r"\w+")
# Streamed content pieces: each word with the whitespace after it, plus any leading
# whitespace on its own, so that joining the pieces gives back the text exactly.
_PIECE = re.compile(r"^\s+|\S+\s*")


def default_responder(body: dict[str, Any]) -> Reply:
    return DEFAULT_ANSWER


_CONTEXT_SOURCE = re.compile(r'<source id="(\d+)"[^>]*>\n(.*?)\n</source>', re.S)


def citing_reply(body: dict[str, Any], *, rewrite_fallback: str | None = None) -> str:
    """A model that reads its prompt: the first source's first sentence, cited.

    A condensation request ("You rewrite...") gets the last message back as typed (or
    `rewrite_fallback` when the prompt does not quote one); a prompt with no numbered
    source gets INSUFFICIENT_CONTEXT.
    """
    system = body["messages"][0]["content"]
    prompt = body["messages"][-1]["content"]
    if system.startswith("You rewrite"):
        found = re.search(r'Last message: "(.*)"', prompt)
        if found is None and rewrite_fallback is None:
            raise AssertionError("a rewrite prompt without its last message")
        return found.group(1) if found else str(rewrite_fallback)
    sources = _CONTEXT_SOURCE.findall(prompt)
    if not sources:
        return "INSUFFICIENT_CONTEXT"
    sid, text = sources[0]
    return f"{text.split('. ')[0].rstrip('.')}. [{sid}]"


def count_tokens(text: str) -> int:
    """A rough, deterministic token count: whitespace-separated words."""
    return len(text.split())


def message_text(message: dict[str, Any]) -> str:
    """The text of one chat message, whether its content is a string or a list of parts."""
    content = message.get("content")
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return " ".join(str(part.get("text", "")) for part in content if isinstance(part, dict))
    return ""


def embed_text(text: str | list[int], dim: int) -> list[float]:
    """Hash the tokens of ``text`` into ``dim`` signed buckets, then L2-normalise.

    Identical texts give identical vectors, and texts sharing words share dimensions (so
    they have a positive cosine). A list of ints (pre-tokenised input) hashes its ids.
    """
    if isinstance(text, str):
        tokens = _WORD.findall(text.lower())
    else:
        tokens = [f"#{token}" for token in text]
    vector = [0.0] * dim
    for token in tokens:
        digest = hashlib.blake2b(token.encode("utf-8"), digest_size=8).digest()
        value = int.from_bytes(digest, "little")
        vector[value % dim] += 1.0 if (value >> 63) & 1 else -1.0
    norm = math.sqrt(sum(x * x for x in vector))
    if norm == 0.0:  # no tokens, or tokens that cancelled out: still a unit vector
        vector[0], norm = 1.0, 1.0
    return [x / norm for x in vector]


def encode_base64(vector: list[float]) -> str:
    """The wire form OpenAI uses for ``encoding_format="base64"``: little-endian float32."""
    return base64.b64encode(struct.pack(f"<{len(vector)}f", *vector)).decode("ascii")


class StubHTTPError(Exception):
    def __init__(
        self,
        status: int,
        message: str,
        *,
        type_: str = "invalid_request_error",
        code: str | None = None,
        param: str | None = None,
        headers: dict[str, str] | None = None,
    ) -> None:
        super().__init__(message)
        self.status = status
        self.payload = {"error": {"message": message, "type": type_, "param": param, "code": code}}
        self.headers = headers or {}


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True

    def __init__(self, stub: OpenAIStub) -> None:
        self.stub = stub
        self.connections: set[socket.socket] = set()
        self.connections_lock = threading.Lock()
        super().__init__(("127.0.0.1", 0), _Handler)

    def process_request(self, request: Any, client_address: Any) -> None:
        with self.connections_lock:
            self.connections.add(request)
        super().process_request(request, client_address)

    def shutdown_request(self, request: Any) -> None:
        with self.connections_lock:
            self.connections.discard(request)
        super().shutdown_request(request)

    def close_connections(self) -> None:
        """Wake handler threads parked on idle keep-alive connections, so they end."""
        with self.connections_lock:
            connections = list(self.connections)
        for connection in connections:
            try:
                connection.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass

    def handle_error(self, request: Any, client_address: Any) -> None:
        # Clients going away mid-answer (or the stub closing) is not worth a traceback.
        pass


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive, as the httpx clients expect
    server_version = "OpenAIStub/1.0"
    timeout = 30  # an idle keep-alive connection is dropped after this many seconds
    server: _Server

    def log_message(self, format: str, *args: Any) -> None:
        pass

    # -- plumbing ---------------------------------------------------------------------

    def do_GET(self) -> None:
        self._dispatch("GET")

    def do_POST(self) -> None:
        self._dispatch("POST")

    def do_DELETE(self) -> None:
        self._dispatch("DELETE")

    def _dispatch(self, method: str) -> None:
        stub = self.server.stub
        try:
            raw = self._read_body()
            path = self.path.split("?", 1)[0].rstrip("/")
            stub._log_http(method, path, {k.lower(): v for k, v in self.headers.items()})
            stub._check_auth(self.headers.get("Authorization"))
            if method == "POST" and path == "/v1/chat/completions":
                self._chat(self._parse_json(raw))
            elif method == "POST" and path == "/v1/embeddings":
                self._send_json(200, stub._embeddings(self._parse_json(raw)))
            elif method == "GET" and path == "/v1/models":
                self._send_json(200, {"object": "list", "data": stub._models()})
            elif method == "GET" and path.startswith("/v1/models/"):
                self._send_json(200, stub._model(path.removeprefix("/v1/models/")))
            else:
                raise StubHTTPError(
                    404, f"Unknown request URL: {method} {self.path}", code="unknown_url"
                )
        except StubHTTPError as error:
            self._send_json(error.status, error.payload, error.headers)

    def _read_body(self) -> bytes:
        if self.headers.get("Transfer-Encoding", "").lower() == "chunked":
            parts = []
            while True:
                size = int(self.rfile.readline().split(b";", 1)[0].strip() or b"0", 16)
                if size == 0:
                    while self.rfile.readline() not in (b"\r\n", b"\n", b""):
                        pass  # trailers
                    return b"".join(parts)
                parts.append(self.rfile.read(size))
                self.rfile.readline()
        length = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(length) if length else b""

    @staticmethod
    def _parse_json(raw: bytes) -> dict[str, Any]:
        try:
            body = json.loads(raw)
        except ValueError as error:
            raise StubHTTPError(
                400,
                "We could not parse the JSON body of your request. (HINT: This likely means"
                f" you aren't using your HTTP library correctly.) [{error}]",
            ) from None
        if not isinstance(body, dict):
            raise StubHTTPError(400, "The request body must be a JSON object.")
        return body

    def _send_json(
        self, status: int, payload: dict[str, Any], headers: dict[str, str] | None = None
    ) -> None:
        data = json.dumps(payload).encode("utf-8")
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(data)
        self.wfile.flush()

    # -- chat -------------------------------------------------------------------------

    def _chat(self, body: dict[str, Any]) -> None:
        stub = self.server.stub
        messages = body.get("messages")
        if not isinstance(messages, list) or not messages:
            raise StubHTTPError(400, "Missing required parameter: 'messages'.", param="messages")
        if not isinstance(body.get("model"), str):
            raise StubHTTPError(400, "Missing required parameter: 'model'.", param="model")
        stub._record_chat(body)
        message, finish_reason = stub._reply_for(body)
        if message.get("drop"):
            self.close_connection = True
            self.connection.shutdown(socket.SHUT_RDWR)
            return
        if body.get("stream"):
            self._send_stream(stub._chat_chunks(body, message, finish_reason))
        else:
            self._send_json(200, stub._chat_completion(body, message, finish_reason))

    def _send_stream(self, events: Iterator[dict[str, Any]]) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream; charset=utf-8")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        stub = self.server.stub
        gate = stub.stream_gate
        try:
            for event in events:
                self._write_chunk(f"data: {json.dumps(event)}\n\n".encode())
                delta = event["choices"][0]["delta"] if event.get("choices") else {}
                if gate is not None and delta.get("content"):
                    stub.stream_paused.set()
                    gate.wait(timeout=60)
                    gate = None
            self._write_chunk(b"data: [DONE]\n\n")
            self.wfile.write(b"0\r\n\r\n")
            self.wfile.flush()
        except (BrokenPipeError, ConnectionResetError):
            with stub._lock:  # the client closed the stream: the generation stops here
                stub.streams_aborted += 1
            self.close_connection = True
            return
        with stub._lock:
            stub.streams_finished += 1

    def _write_chunk(self, data: bytes) -> None:
        self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
        self.wfile.flush()


class Interleave:
    """A responder that first runs what a test set for the next chat completion.

    A turn waiting on its answer is the moment a competing request (a delete, a cut
    database connection) happens every time, not by luck of timing.
    """

    def __init__(self, rewrite_fallback: str) -> None:
        self.action: Callable[[], None] | None = None
        self.rewrite_fallback = rewrite_fallback
        self.lock = threading.Lock()

    def respond(self, body: dict[str, Any]) -> str:
        with self.lock:
            action, self.action = self.action, None
        if action is not None:
            action()
        return citing_reply(body, rewrite_fallback=self.rewrite_fallback)


class OpenAIStub:
    """Context manager: starts a real HTTP server on 127.0.0.1 (free port) in a background
    thread and stops it on exit. See the module docstring for the reply formats.

    ``requests`` holds every accepted ``/v1/chat/completions`` body in arrival order
    (requests refused for a bad key, bad JSON or a missing ``messages``/``model`` are not
    in it); ``embedding_requests`` likewise for ``/v1/embeddings``; ``http_log`` holds
    ``{"method", "path", "headers"}`` (header names lower-cased) for every HTTP request.
    """

    def __init__(
        self,
        responder: Responder | None = None,
        embedding_dim: int = 32,
        *,
        api_key: str | None = None,
    ) -> None:
        if embedding_dim < 1:
            raise ValueError("embedding_dim must be positive")
        self.responder: Responder = responder or default_responder
        self.embedding_dim = embedding_dim
        self.api_key = api_key
        self.requests: list[dict[str, Any]] = []
        self.embedding_requests: list[dict[str, Any]] = []
        self.http_log: list[dict[str, Any]] = []
        self.errors: list[BaseException] = []
        # While `stream_gate` is set to an Event, every stream stops after its first
        # content chunk until the Event is set (`stream_paused` says one is waiting), so a
        # test can act while an answer is half-way through.
        self.stream_gate: threading.Event | None = None
        self.stream_paused = threading.Event()
        self.streams_finished = 0
        self.streams_aborted = 0  # streams the client closed before their end
        self._replies: deque[Reply] = deque()
        self._lock = threading.Lock()
        self._ids = itertools.count(1)
        self._tool_call_ids = itertools.count(1)
        self._server: _Server | None = None
        self._thread: threading.Thread | None = None
        self._stopping = threading.Event()  # ends the sleeps of delayed replies
        self.base_url = ""

    # -- public API -------------------------------------------------------------------

    def chat_calls(self) -> int:
        with self._lock:
            return len(self.requests)

    def queue(self, *replies: Reply) -> None:
        """Script the next replies; they are used first-in first-out before the responder."""
        for reply in replies:
            _normalise(reply)  # fail here, in the test, rather than inside the server
        with self._lock:
            self._replies.extend(replies)

    def clear_queue(self) -> None:
        """Drop the scripted replies not used yet (a test that failed half-way leaves some)."""
        with self._lock:
            self._replies.clear()

    def pending(self) -> int:
        """How many queued replies have not been used yet."""
        with self._lock:
            return len(self._replies)

    def start(self) -> OpenAIStub:
        if self._server is not None:
            raise RuntimeError("OpenAIStub is already running")
        self._stopping.clear()
        server = _Server(self)
        host, port = server.server_address[:2]
        self._server = server
        self.base_url = f"http://{host}:{port}/v1"
        self._thread = threading.Thread(
            target=server.serve_forever,
            kwargs={"poll_interval": 0.05},
            name=f"openai-stub-{port}",
            daemon=True,
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        server, thread = self._server, self._thread
        if server is None:
            return
        self._server = self._thread = None
        self._stopping.set()
        server.shutdown()
        server.close_connections()
        server.server_close()
        if thread is not None:
            thread.join(timeout=5)

    def __enter__(self) -> OpenAIStub:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()

    # -- used by the handler ----------------------------------------------------------

    def _log_http(self, method: str, path: str, headers: dict[str, str]) -> None:
        with self._lock:
            self.http_log.append({"method": method, "path": path, "headers": headers})

    def _check_auth(self, authorization: str | None) -> None:
        if self.api_key is None:
            return
        scheme, _, token = (authorization or "").partition(" ")
        if scheme.lower() == "bearer" and token.strip() == self.api_key:
            return
        shown = token.strip()
        shown = f"{shown[:3]}...{shown[-4:]}" if len(shown) > 8 else shown or "<none>"
        raise StubHTTPError(
            401,
            f"Incorrect API key provided: {shown}. You can find your API key at"
            " https://platform.openai.com/account/api-keys.",
            code="invalid_api_key",
        )

    def _record_chat(self, body: dict[str, Any]) -> None:
        with self._lock:
            self.requests.append(body)

    def _reply_for(self, body: dict[str, Any]) -> tuple[dict[str, Any], str]:
        with self._lock:
            reply = self._replies.popleft() if self._replies else None
        if reply is None:
            try:
                reply = self.responder(body)
                normalised = _normalise(reply)
            except Exception as error:  # the test's responder is broken: say so clearly
                with self._lock:
                    self.errors.append(error)
                raise StubHTTPError(
                    500,
                    "OpenAIStub responder raised "
                    + "".join(traceback.format_exception_only(error)).strip(),
                    type_="server_error",
                    headers={"x-should-retry": "false"},
                ) from None
        else:
            normalised = _normalise(reply)
        if normalised.get("delay"):
            self._stopping.wait(normalised["delay"])
        if "error" in normalised:
            error = normalised["error"]
            raise StubHTTPError(
                error["status"], error["message"], type_=error["type"], code=error["code"]
            )
        if normalised.get("drop"):
            return {"drop": True}, "stop"
        cap = body.get("max_completion_tokens") or body.get("max_tokens")
        content, specs = normalised["content"], normalised["tool_calls"]
        length = False
        if normalised.get("runaway"):
            content = " ".join(["word"] * (cap or RUNAWAY_TOKENS))
            length = True
        elif content and cap and count_tokens(content) > cap:
            content = " ".join(content.split()[:cap])
            length = True
        message: dict[str, Any] = {
            "role": "assistant",
            "content": content,
            "refusal": None,
            "annotations": [],
        }
        if specs:
            message["tool_calls"] = [
                {
                    "id": f"call_{next(self._tool_call_ids)}",
                    "type": "function",
                    "function": {"name": spec["name"], "arguments": spec["arguments"]},
                }
                for spec in specs
            ]
        finish_reason = normalised["finish_reason"] or (
            "length" if length else "tool_calls" if specs else "stop"
        )
        return message, finish_reason

    def _completion_id(self) -> str:
        return f"chatcmpl-stub{next(self._ids)}"

    @staticmethod
    def _usage(body: dict[str, Any], message: dict[str, Any]) -> dict[str, Any]:
        prompt = sum(count_tokens(message_text(m)) for m in body["messages"])
        completion = count_tokens(message.get("content") or "") + sum(
            count_tokens(call["function"]["arguments"]) + 1
            for call in message.get("tool_calls", [])
        )
        return {
            "prompt_tokens": prompt,
            "completion_tokens": completion,
            "total_tokens": prompt + completion,
            "prompt_tokens_details": {"cached_tokens": 0, "audio_tokens": 0},
            "completion_tokens_details": {
                "reasoning_tokens": 0,
                "audio_tokens": 0,
                "accepted_prediction_tokens": 0,
                "rejected_prediction_tokens": 0,
            },
        }

    def _chat_completion(
        self, body: dict[str, Any], message: dict[str, Any], finish_reason: str
    ) -> dict[str, Any]:
        return {
            "id": self._completion_id(),
            "object": "chat.completion",
            "created": int(time.time()),
            "model": body["model"],
            "system_fingerprint": "fp_stub",
            "service_tier": "default",
            "choices": [
                {
                    "index": 0,
                    "message": message,
                    "logprobs": None,
                    "finish_reason": finish_reason,
                }
            ],
            "usage": self._usage(body, message),
        }

    def _chat_chunks(
        self, body: dict[str, Any], message: dict[str, Any], finish_reason: str
    ) -> Iterator[dict[str, Any]]:
        options = body.get("stream_options") or {}
        include_usage = bool(options.get("include_usage"))
        base = {
            "id": self._completion_id(),
            "object": "chat.completion.chunk",
            "created": int(time.time()),
            "model": body["model"],
            "system_fingerprint": "fp_stub",
            "service_tier": "default",
        }

        def chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
            event = {
                **base,
                "choices": [
                    {"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}
                ],
            }
            if include_usage:
                event["usage"] = None
            return event

        content = message["content"]
        tool_calls = message.get("tool_calls", [])
        yield chunk({"role": "assistant", "content": "" if content is not None else None})
        for piece in _PIECE.findall(content or ""):
            yield chunk({"content": piece})
        for index, call in enumerate(tool_calls):
            header = {"name": call["function"]["name"], "arguments": ""}
            yield chunk(
                {
                    "tool_calls": [
                        {"index": index, "id": call["id"], "type": "function", "function": header}
                    ]
                }
            )
            for piece in _split_arguments(call["function"]["arguments"]):
                yield chunk({"tool_calls": [{"index": index, "function": {"arguments": piece}}]})
        yield chunk({}, finish_reason)
        if include_usage:
            yield {**base, "choices": [], "usage": self._usage(body, message)}

    def _embeddings(self, body: dict[str, Any]) -> dict[str, Any]:
        raw_input = body.get("input")
        if isinstance(raw_input, str):
            inputs: list[Any] = [raw_input]
        elif (
            isinstance(raw_input, list) and raw_input and all(isinstance(x, int) for x in raw_input)
        ):
            inputs = [raw_input]  # one pre-tokenised text
        elif isinstance(raw_input, list) and raw_input:
            inputs = raw_input
        else:
            raise StubHTTPError(400, "'input' must be a non-empty string or array.", param="input")
        for item in inputs:
            if not (
                isinstance(item, str)
                or (isinstance(item, list) and all(isinstance(x, int) for x in item))
            ):
                raise StubHTTPError(400, f"Invalid 'input' item: {item!r:.60}", param="input")
        if not isinstance(body.get("model"), str):
            raise StubHTTPError(400, "Missing required parameter: 'model'.", param="model")
        encoding = body.get("encoding_format") or "float"
        if encoding not in ("float", "base64"):
            raise StubHTTPError(
                400, f"Invalid encoding_format: {encoding!r}.", param="encoding_format"
            )
        dim = body.get("dimensions") or self.embedding_dim
        if not isinstance(dim, int) or dim < 1:
            raise StubHTTPError(400, f"Invalid dimensions: {dim!r}.", param="dimensions")
        with self._lock:
            self.embedding_requests.append(body)
        data = []
        tokens = 0
        for index, item in enumerate(inputs):
            vector = embed_text(item, dim)
            tokens += count_tokens(item) if isinstance(item, str) else len(item)
            embedding: Any = encode_base64(vector) if encoding == "base64" else vector
            data.append({"object": "embedding", "index": index, "embedding": embedding})
        return {
            "object": "list",
            "data": data,
            "model": body["model"],
            "usage": {"prompt_tokens": tokens, "total_tokens": tokens},
        }

    @staticmethod
    def _models() -> list[dict[str, Any]]:
        return [
            {"id": model_id, "object": "model", "created": 1700000000, "owned_by": "stub"}
            for model_id in MODEL_IDS
        ]

    def _model(self, model_id: str) -> dict[str, Any]:
        for model in self._models():
            if model["id"] == model_id:
                return model
        raise StubHTTPError(404, f"The model '{model_id}' does not exist", code="model_not_found")


def _normalise(reply: Any) -> dict[str, Any]:
    """Check a reply and bring it to one shape; raise TypeError/ValueError if malformed."""
    if isinstance(reply, str):
        return {"content": reply, "tool_calls": [], "finish_reason": None}
    if not isinstance(reply, dict):
        raise TypeError(f"a reply must be a str or a dict, not {type(reply).__name__}")
    delay = reply.get("delay", 0)
    if not isinstance(delay, int | float) or delay < 0:
        raise ValueError(f"'delay' must be a number of seconds, not {delay!r}")
    if reply.get("drop") or reply.get("runaway"):
        unknown = set(reply) - {"drop", "runaway", "delay"}
        if unknown:
            raise ValueError(f"unknown reply keys: {sorted(unknown)}")
        return {
            "content": None,
            "tool_calls": [],
            "finish_reason": None,
            "delay": delay,
            "drop": bool(reply.get("drop")),
            "runaway": bool(reply.get("runaway")),
        }
    if "error" in reply:
        status = reply.get("status", 500)
        if not isinstance(status, int) or not 400 <= status <= 599:
            raise ValueError(f"error reply status must be 4xx or 5xx, not {status!r}")
        default_type = "server_error" if status >= 500 else "invalid_request_error"
        return {
            "error": {
                "status": status,
                "message": str(reply["error"]),
                "type": reply.get("type", default_type),
                "code": reply.get("code"),
            },
            "delay": delay,
        }
    unknown = set(reply) - {"content", "tool_calls", "finish_reason", "delay"}
    if unknown:
        raise ValueError(f"unknown reply keys: {sorted(unknown)}")
    content = reply.get("content")
    if content is not None and not isinstance(content, str):
        raise TypeError("reply 'content' must be a str or None")
    specs = []
    for spec in reply.get("tool_calls") or []:
        if not isinstance(spec, dict) or not isinstance(spec.get("name"), str):
            raise ValueError(f"a tool call needs a 'name': {spec!r}")
        arguments = spec.get("arguments", {})
        if not isinstance(arguments, str):
            arguments = json.dumps(arguments)
        specs.append({"name": spec["name"], "arguments": arguments})
    if content is None and not specs:
        raise ValueError("a dict reply needs 'content' or 'tool_calls'")
    return {
        "content": content,
        "tool_calls": specs,
        "finish_reason": reply.get("finish_reason"),
        "delay": delay,
    }


def _split_arguments(arguments: str) -> list[str]:
    """Cut a JSON string into a few fragments, as OpenAI streams tool-call arguments."""
    if len(arguments) < 4:
        return [arguments] if arguments else []
    step = max(1, len(arguments) // 3)
    return [arguments[i : i + step] for i in range(0, len(arguments), step)]


def verdict_reply(kind: str, answer: str = "", missing: list[str] | None = None) -> str:
    """The JSON a model returns for threadline's structured answer call (verdict + answer)."""
    return json.dumps({"verdict": kind, "answer": answer, "missing": missing or []})
