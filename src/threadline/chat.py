"""The chat facade: one user turn in, one answer out, through the graph.

The API and the CLI talk to this, never to the graph's nodes, so the HTTP layer
knows nothing of LangGraph and the graph knows nothing of HTTP.
"""

from __future__ import annotations

import copy
import logging
import re
import time
import uuid
from collections.abc import AsyncIterator
from dataclasses import asdict, dataclass, field
from typing import Any, cast

from langchain_core.runnables import RunnableConfig
from langgraph.types import StreamMode

from threadline.graph import build_graph
from threadline.graph.context import Context, bind_services
from threadline.graph.state import TurnFollowup
from threadline.models import LLMError, create_chat_model
from threadline.models.cancellation import TURN_KEY, cancelled_when_abandoned
from threadline.models.errors import DEADLINE_KEY
from threadline.models.turn_requests import requests_of
from threadline.services import Services
from threadline.store import Citation

log = logging.getLogger("threadline.chat")

OFFLINE_FALLBACK = "offline"
"""`TurnResult.llm_fallback` of a turn the offline model answered because the LLM failed."""


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
    regenerate: str = ""
    """The last user message's id: answer it again instead of a new message."""


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
    llm_fallback: str | None = None
    """`offline` when the LLM was down or too slow and the offline model answered."""
    kept_trace: list[dict[str, Any]] = field(default_factory=list)
    """The trace as stored with the answer: sanitised and bounded (`threadline.tracing`)."""

    def to_dict(self, *, debug: bool = False) -> dict[str, Any]:
        """Return the plain JSON-ready dict a client receives.

        Args:
            debug: Include `trace`: the trace as stored (sanitised), for a caller app
                allowed to debug. Without it neither trace is in the dict.

        Returns:
            The result's fields.
        """
        data = asdict(self)
        del data["trace"]
        kept = data.pop("kept_trace")
        if debug:
            data["trace"] = kept
        return data


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
        "text_sha256": citation.text_sha256,
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
        # The deadline travels in the run's metadata down to every model call, whose
        # timeout is what is left of it (`threadline.models.bounded`).
        deadline = started + self.services.settings.turn_deadline_seconds
        config: RunnableConfig = {
            # The turn's token lets a streamed turn's generation be stopped when its
            # client goes away (`threadline.models.cancellation`).
            "metadata": {
                "threadline_started": started,
                DEADLINE_KEY: deadline,
                TURN_KEY: uuid.uuid4().hex,
            }
        }
        return inputs, config

    def _fallback_config(
        self, config: RunnableConfig, error: LLMError, seen: dict[str, Any]
    ) -> RunnableConfig:
        """Return the config that reruns a failed turn with the offline model, or re-raise.

        The offline model answers when `THREADLINE_LLM_FALLBACK=offline`, and always on
        the tool route: the router's parse of the words and the offline composition need
        no LLM. Nothing was stored by the failed run (the store is written by the last
        node), so the turn runs again from the start over the same store and base.

        Args:
            config: The failed run's config (its deadline is kept).
            error: What the model did.
            seen: The failed run's last state (its route, if routing was done).

        Raises:
            LLMError: the error itself, when no fallback applies.
        """
        tool_turn = seen.get("route") == "tool" and seen.get("tool_call") is not None
        if self.services.settings.llm_fallback != OFFLINE_FALLBACK and not tool_turn:
            raise error
        log.warning("LLM failed (%s): the offline model answers this turn", error.code)
        return {**config, **bind_services(offline_services(self.services))}

    def _fallback_result(
        self, result: TurnResult, error: LLMError, config: RunnableConfig
    ) -> TurnResult:
        # The failed run's requests reached the model server (or tried to): they are
        # counted where they were sent, since the node that failed returned no count.
        result.llm_calls += requests_of((config.get("metadata") or {}).get(TURN_KEY))
        result.llm_fallback = OFFLINE_FALLBACK
        result.trace.insert(0, {"node": "llm_fallback", "error": error.code})
        return result

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
            kept_trace=state.get("kept_trace", []),
            latency_ms=round((time.perf_counter() - started) * 1000, 2),
        )

    def _run(
        self, inputs: dict[str, Any], config: RunnableConfig, context: Context | None, seen: dict
    ) -> dict[str, Any]:
        """Run the graph; `seen` holds the last state even when a node raises."""
        for values in self.graph.stream(
            inputs, config=config, context=context or Context(), stream_mode="values"
        ):
            seen.clear()
            seen.update(values)
        return seen

    async def _arun(
        self, inputs: dict[str, Any], config: RunnableConfig, context: Context | None, seen: dict
    ) -> dict[str, Any]:
        """Run the graph on the event loop; `seen` holds the last state as in `_run`."""
        async for values in self.graph.astream(
            inputs, config=config, context=context or Context(), stream_mode="values"
        ):
            seen.clear()
            seen.update(values)
        return seen

    def run_turn(self, request: TurnRequest, context: Context | None = None) -> TurnResult:
        """Run one turn synchronously (CLI, benchmarks).

        Raises:
            LLMError: the model is down or too slow and no fallback applies (nothing
                was stored).
        """
        inputs, config = self._inputs(request)
        started = config["metadata"]["threadline_started"]
        seen: dict[str, Any] = {}
        try:
            state = self._run(inputs, config, context, seen)
        except LLMError as error:
            fallback = self._fallback_config(config, error, seen)
            state = self._run(inputs, fallback, context, {})
            return self._fallback_result(self._result(state, started), error, config)
        return self._result(state, started)

    async def arun_turn(self, request: TurnRequest, context: Context | None = None) -> TurnResult:
        """Run one turn on the event loop; blocking node work runs in threads.

        Raises:
            LLMError: the model is down or too slow and no fallback applies (nothing
                was stored).
        """
        inputs, config = self._inputs(request)
        started = config["metadata"]["threadline_started"]
        seen: dict[str, Any] = {}
        # A caller that cancels the turn (its client left) stops the model's generation.
        with cancelled_when_abandoned(config["metadata"]):
            try:
                state = await self._arun(inputs, config, context, seen)
            except LLMError as error:
                fallback = self._fallback_config(config, error, seen)
                state = await self._arun(inputs, fallback, context, {})
                return self._fallback_result(self._result(state, started), error, config)
        return self._result(state, started)

    async def astream_turn(
        self, request: TurnRequest, context: Context | None = None, *, debug: bool = False
    ) -> AsyncIterator[dict[str, Any]]:
        """Run one turn, yielding events as the graph runs.

        Events are `{"event": name, "data": {...}}` with name `phase` (a node
        finished: route, reformulated query, sources found...), `token` (a sentence of
        the answer, once the support check has kept it) and, last, `final`: the same
        object `run_turn` returns, which is the truth (with its stored trace when
        `debug` is set).

        Raises:
            LLMError: the model is down or too slow (nothing was stored), unless the
                offline fallback is on: then a `phase` event `llm_fallback` says so and
                the turn streams again from the offline model.
        """
        inputs, config = self._inputs(request)
        started = config["metadata"]["threadline_started"]
        seen: dict[str, Any] = {}
        with cancelled_when_abandoned(config["metadata"]):  # a client that leaves stops it
            try:
                async for event in self._astream_run(inputs, config, context, seen):
                    if event["event"] == "final":
                        result = self._result(event["data"], started)
                        event["data"] = result.to_dict(debug=debug)
                    yield event
            except LLMError as error:
                fallback = self._fallback_config(config, error, seen)
                yield {"event": "phase", "data": {"node": "llm_fallback", "error": error.code}}
                async for event in self._astream_run(inputs, fallback, context, {}):
                    if event["event"] == "final":
                        result = self._fallback_result(
                            self._result(event["data"], started), error, config
                        )
                        event["data"] = result.to_dict(debug=debug)
                    yield event

    async def _astream_run(
        self, inputs: dict[str, Any], config: RunnableConfig, context: Context | None, seen: dict
    ) -> AsyncIterator[dict[str, Any]]:
        """Yield `phase` and `token` events, then `final` carrying the last state (`seen`).

        Tokens are the answer's sentences once the generate step has checked them, never
        the model's raw output: the support check may drop a sentence the model wrote (an
        invented figure), and a client must not show what the `final` answer will not
        contain. The model still streams (the `messages` mode), so a client that leaves
        stops its generation between two chunks.
        """
        state = seen
        events = self.graph.astream(
            inputs, config=config, context=context or Context(), stream_mode=STREAM_MODES
        )
        # With several stream modes, each event is a (mode, payload) pair.
        async for mode, chunk in cast(AsyncIterator[tuple[str, Any]], events):
            if mode == "values":
                state.clear()
                state.update(chunk)
            elif mode == "updates":
                for node, update in chunk.items():
                    answer = (update or {}).get("answer") if node == "generate" else None
                    for sentence in sentence_pieces(answer or ""):
                        yield {"event": "token", "data": {"text": sentence}}
                    yield {"event": "phase", "data": phase_summary(node, update or {})}
        yield {"event": "final", "data": state}


# A sentence ends at . ! ? (and the citation markers after it) before a space or a line
# break; "99.95%" or "v4.2" do not end one.
_SENTENCE_PIECE = re.compile(r".+?(?:[.!?](?:\s*\[[^\]\n]*\])*(?:\s+|$)|\n+|$)", re.S)


def sentence_pieces(text: str) -> list[str]:
    """Split an answer into sentences, spaces kept, so that the pieces join back to it."""
    return [m.group() for m in _SENTENCE_PIECE.finditer(text) if m.group()]


def offline_services(services: Services) -> Services:
    """Return services sharing `services`' store, knowledge base and log, with the offline model.

    The shared parts are built first, so the copy never opens a second vector engine
    on the same files.
    """
    services.store, services.kb, services.querylog  # noqa: B018 (built here, then shared)
    fallback = copy.copy(services)
    fallback.__dict__["llm"] = create_chat_model(
        services.settings.model_copy(update={"llm": "offline"})
    )
    return fallback


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
