"""The chat facade: one user turn in, one answer out, through the graph.

The API and the CLI talk to this, never to the graph's nodes, so the HTTP layer
knows nothing of LangGraph and the graph knows nothing of HTTP.
"""

from __future__ import annotations

import time
from collections.abc import AsyncIterator
from dataclasses import asdict, dataclass, field
from typing import Any, cast

from langchain_core.runnables import RunnableConfig
from langgraph.types import StreamMode

from threadline.graph import build_graph
from threadline.graph.answering import STRUCTURED_TAG
from threadline.graph.context import Context
from threadline.graph.state import TurnFollowup
from threadline.services import Services
from threadline.store import Citation


@dataclass(frozen=True)
class TurnRequest:
    """One message and who sends it."""

    query: str
    thread_id: str
    tenant: str = "default"
    caller_app: str = "default"
    source_app: str | None = None
    workspace: str | None = None
    language: str | None = None
    sources: list[str] | None = None
    turn_id: str = ""


@dataclass
class TurnResult:
    """What a turn produced: the fields of the `POST /chat` contract."""

    session_id: str
    answer: str
    outline: list[dict[str, str]]
    citations: list[dict[str, Any]]
    route: str
    outcome: str
    stop_reason: str | None
    search_query: str | None
    reformulated_query: str | None
    followup: dict[str, Any]
    llm_calls: int
    clarify: dict[str, Any] | None = None
    message_ids: list[str] = field(default_factory=list)
    trace: list[dict[str, Any]] = field(default_factory=list)
    latency_ms: float = 0.0

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-ready dict."""
        return asdict(self)


def followup_json(followup: TurnFollowup | None) -> dict[str, Any]:
    """Return the follow-up as the API returns it: the stored fields, never the turn's extras."""
    return (followup or TurnFollowup()).stored().model_dump()


def citation_json(citation: Citation) -> dict[str, Any]:
    """Return a citation as the API returns it, keys in the order of the `/chat` contract."""
    return {
        "id": citation.id,
        "doc_id": citation.doc_id,
        "chunk_id": citation.chunk_id,
        "title": citation.title,
        "section": citation.section,
        "source": citation.source,
    }


STREAM_MODES: list[StreamMode] = ["updates", "messages", "values"]
"""What `astream_turn` listens to: node updates, model tokens, the state."""


class ChatService:
    """Runs turns through the compiled graph over one set of services."""

    def __init__(self, services: Services) -> None:
        """Compile the graph once for these services."""
        self.services = services
        self.graph = build_graph(services)

    def _inputs(self, request: TurnRequest) -> tuple[dict[str, Any], RunnableConfig]:
        started = time.perf_counter()
        inputs = {k: v for k, v in asdict(request).items() if v is not None}
        config: RunnableConfig = {"metadata": {"threadline_started": started}}
        return inputs, config

    def _result(self, state: dict[str, Any], started: float) -> TurnResult:
        return TurnResult(
            session_id=state["thread_id"],
            answer=state.get("answer", ""),
            outline=[o.model_dump() for o in state.get("outline", [])],
            citations=[citation_json(c) for c in state.get("citations", [])],
            route=state.get("route", ""),
            outcome=state.get("outcome", ""),
            stop_reason=state.get("stop_reason"),
            search_query=state.get("search_query") or None,
            reformulated_query=state.get("reformulated_query") or None,
            followup=followup_json(state.get("followup")),
            llm_calls=state.get("llm_calls", 0),
            clarify=state.get("clarify") if state.get("outcome") == "clarify" else None,
            message_ids=state.get("message_ids", []),
            trace=state.get("trace", []),
            latency_ms=round((time.perf_counter() - started) * 1000, 2),
        )

    def run_turn(self, request: TurnRequest, context: Context | None = None) -> TurnResult:
        """Run one turn synchronously (CLI, benchmarks)."""
        inputs, config = self._inputs(request)
        state = self.graph.invoke(inputs, config=config, context=context or Context())
        return self._result(state, config["metadata"]["threadline_started"])

    async def arun_turn(self, request: TurnRequest, context: Context | None = None) -> TurnResult:
        """Run one turn on the event loop; blocking node work runs in threads."""
        inputs, config = self._inputs(request)
        state = await self.graph.ainvoke(inputs, config=config, context=context or Context())
        return self._result(state, config["metadata"]["threadline_started"])

    async def astream_turn(
        self, request: TurnRequest, context: Context | None = None
    ) -> AsyncIterator[dict[str, Any]]:
        """Run one turn, yielding events as the graph runs.

        Events are `{"event": name, "data": {...}}` with name `phase` (a node
        finished: route, reformulated query, sources found...), `token` (a piece
        of the answer as the model writes it, before citation validation) and,
        last, `final`: the same object `run_turn` returns, which is the truth.
        """
        inputs, config = self._inputs(request)
        started = config["metadata"]["threadline_started"]
        state: dict[str, Any] = {}
        structured = StructuredAnswerStream()
        events = self.graph.astream(
            inputs, config=config, context=context or Context(), stream_mode=STREAM_MODES
        )
        # With several stream modes, each event is a (mode, payload) pair.
        async for mode, chunk in cast(AsyncIterator[tuple[str, Any]], events):
            if mode == "values":
                state = chunk
            elif mode == "messages":
                message, meta = chunk
                if meta.get("langgraph_node") == "generate" and message.text:
                    text = message.text
                    if STRUCTURED_TAG in (meta.get("tags") or []):
                        # The structured call writes JSON: stream its "answer" as it comes.
                        text = structured.feed(text)
                    if text:
                        yield {"event": "token", "data": {"text": text}}
            elif mode == "updates":
                for node, update in chunk.items():
                    yield {"event": "phase", "data": phase_summary(node, update or {})}
        yield {"event": "final", "data": self._result(state, started).to_dict()}


class StructuredAnswerStream:
    """The `answer` field of a streamed JSON object, piece by piece, as it arrives.

    A model that ignores the schema and writes plain text is streamed as it is.
    """

    def __init__(self) -> None:
        """Start with nothing received."""
        self.raw = ""
        self.sent = 0

    def feed(self, piece: str) -> str:
        """Add a piece of the model's output; return the new part of the answer text."""
        self.raw += piece
        stripped = self.raw.lstrip()
        if not stripped:
            return ""
        if not stripped.startswith("{"):
            new, self.sent = self.raw[self.sent :], len(self.raw)
            return new
        answer = _partial_json_string(self.raw, "answer")
        new = answer[self.sent :]
        self.sent = len(answer)
        return new


def _partial_json_string(raw: str, key: str) -> str:
    """Return the (possibly unfinished) string value of `key` in a partial JSON object."""
    start = raw.find(f'"{key}"')
    if start < 0:
        return ""
    colon = raw.find(":", start + len(key) + 2)
    quote = raw.find('"', colon + 1) if colon >= 0 else -1
    if quote < 0:
        return ""
    out: list[str] = []
    i = quote + 1
    escapes = {"n": "\n", "t": "\t", '"': '"', "\\": "\\", "/": "/", "r": "", "b": "", "f": ""}
    while i < len(raw):
        ch = raw[i]
        if ch == "\\":
            if i + 1 >= len(raw):
                break  # the escape is split across pieces: wait for the next one
            nxt = raw[i + 1]
            if nxt == "u":
                if i + 6 > len(raw):
                    break
                out.append(chr(int(raw[i + 2 : i + 6], 16)))
                i += 6
                continue
            out.append(escapes.get(nxt, nxt))
            i += 2
            continue
        if ch == '"':
            break
        out.append(ch)
        i += 1
    return "".join(out)


def phase_summary(node: str, update: dict[str, Any]) -> dict[str, Any]:
    """Return what a streaming client may show while a node's work is done (no document text)."""
    summary: dict[str, Any] = {"node": node}
    if node == "route_turn":
        summary["route"] = update.get("route")
        summary["followup"] = followup_json(update.get("followup"))
    elif node == "reformulate":
        summary["reformulated_query"] = update.get("reformulated_query")
    elif node in ("retrieve", "use_tool"):
        summary["search_query"] = update.get("search_query")
        summary["sources"] = [
            {"id": c["label"], "title": c["title"], "section": c.get("section")}
            for c in update.get("chunks", [])
        ]
    elif node in ("generate", "clarify", "reply", "decline", "ask"):
        summary["outcome"] = update.get("outcome")
        if update.get("verdict"):
            summary["verdict"] = update.get("verdict")
    return summary
