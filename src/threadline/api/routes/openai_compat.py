"""OpenAI-compatible routes: `GET /v1/models` and `POST /v1/chat/completions`.

They let the official `openai` clients and chat UIs built for OpenAI (Open WebUI,
LibreChat, ...) talk to threadline. A completion is one threadline turn:

* the query is the LAST user message of `messages`;
* the conversation is threadline's own thread, named by (first match wins) the
  `X-Threadline-Thread-Id` header, Open WebUI's `X-OpenWebUI-Chat-Id` header, the
  `user` field, or an id derived from the conversation's first user message (see
  `resolve_thread`); the id is returned in the `X-Threadline-Thread-Id` response
  header and in the `threadline.session_id` field;
* `X-Threadline-Caller-App` (default `default`) selects the caller app, checked
  against the API key like `caller_app` on `POST /chat`;
* the answer is `choices[0].message.content` (answer, then Markdown sources and
  follow-ups) and the whole `POST /chat` object is in the extra `threadline` field.

Errors use OpenAI's shape, `{"error": {"message", "type", "param", "code"}}`, with
threadline's stable codes, so the `openai` client raises its usual exceptions
(`BadRequestError`, `AuthenticationError`, ...). The app-wide handlers answer in
threadline's shape, so this router's route class converts errors itself (see
:mod:`threadline.api.openai_errors`); how a request finds its thread is in
:mod:`threadline.api.openai_threads`.
"""

from __future__ import annotations

import logging
import re
import time
import uuid
from collections.abc import AsyncGenerator, AsyncIterator
from typing import Annotated, Any, cast

from fastapi import APIRouter, Header, Request, Response
from fastapi.responses import JSONResponse, StreamingResponse
from starlette.concurrency import run_in_threadpool

from threadline import __version__
from threadline.api.deps import ChatDep, PrincipalDep, ServicesDep, authorize_caller_app
from threadline.api.disconnect import client_closed, unless_disconnected
from threadline.api.errors import STORAGE_FULL_STATUS, ApiError, llm_error_message
from threadline.api.openai_errors import (
    BadRequest,
    OpenAIRoute,
    error_from_exception,
    openai_error,
)
from threadline.api.openai_schemas import (
    MODEL_ID,
    ChatCompletion,
    ChatCompletionRequest,
    ChatMessageIn,
    ModelCard,
    ModelList,
    OpenAIError,
)
from threadline.api.openai_threads import (
    DERIVED_PREFIX,
    MAX_DERIVED_SLOTS,
    OPENWEBUI_CHAT_HEADER,
    THREAD_HEADER,
    derive_thread_id,
    resolve_thread,
)
from threadline.api.schemas import ID_SCHEMA, ChatResponse
from threadline.api.sse import OPENAI_DONE, event_stream, sse_event
from threadline.chat import ChatService, TurnRequest
from threadline.models import LLMError
from threadline.store import (
    SessionNotFoundError,
    StoreBusyError,
    validate_id,
)
from threadline.text.visible import is_blank

__all__ = [
    "CALLER_APP_HEADER",
    "DERIVED_PREFIX",
    "MAX_DERIVED_SLOTS",
    "OPENWEBUI_CHAT_HEADER",
    "THREAD_HEADER",
    "derive_thread_id",
    "error_from_exception",
    "openai_error",
    "render_content",
    "render_footer",
    "resolve_thread",
    "router",
]

log = logging.getLogger("threadline.api")

CALLER_APP_HEADER = "X-Threadline-Caller-App"
_CREATED = int(time.time())
_FINGERPRINT = f"threadline-{__version__}"
# Streamed pieces: each word with the whitespace after it (and leading whitespace on
# its own), so that joining the pieces gives back the text exactly.
_PIECE = re.compile(r"^\s+|\S+\s*")


router = APIRouter(prefix="/v1", tags=["openai"], route_class=OpenAIRoute)

ERRORS: dict[int | str, dict[str, Any]] = {
    400: {"model": OpenAIError, "description": "Invalid request"},
    401: {"model": OpenAIError, "description": "Missing or wrong API key"},
    403: {"model": OpenAIError, "description": "Caller app not allowed for this key"},
    404: {
        "model": OpenAIError,
        "description": "Unknown model, or a thread deleted while its turn ran (session_not_found)",
    },
    503: {"model": OpenAIError, "description": "Session busy, retry"},
}


# --- models ----------------------------------------------------------------------


def _model_card() -> dict[str, Any]:
    """Describe threadline's one model the way `GET /v1/models` lists models."""
    return ModelCard(id=MODEL_ID, created=_CREATED).model_dump()


@router.get("/models", response_model=ModelList, responses=ERRORS)
async def list_models(principal: PrincipalDep) -> dict[str, Any]:
    """List the one model: `threadline`."""
    return {"object": "list", "data": [_model_card()]}


@router.get("/models/{model_id}", response_model=ModelCard, responses=ERRORS)
async def retrieve_model(model_id: str, principal: PrincipalDep) -> dict[str, Any]:
    """`threadline`, or 404."""
    if model_id != MODEL_ID:
        raise ApiError(404, "model_not_found", f"The model {model_id!r} does not exist.")
    return _model_card()


# --- the answer as OpenAI content ------------------------------------------------


def render_footer(result: dict[str, Any]) -> str:
    """Render the Markdown after the answer: the cited sources, then the outline's sections."""
    footer = ""
    citations = result.get("citations") or []
    if citations:
        lines = []
        for citation in citations:
            label = f"- [{citation['id']}] {citation['title']}"
            if citation.get("section"):
                label += f" — {citation['section']}"
            lines.append(label)
        footer += "\n\n---\n**Sources**\n" + "\n".join(lines)
    outline = result.get("outline") or []
    if outline:
        items = " · ".join(f"{item['id']} {item['title']}" for item in outline)
        footer += f"\n\n**Follow-ups**: {items}"
    return footer


def render_content(result: dict[str, Any]) -> tuple[str, str]:
    """`(answer, footer)`; `choices[0].message.content` is their concatenation."""
    return result.get("answer", "").rstrip(), render_footer(result)


def _words(text: str) -> int:
    """Count words: the usage figures (threadline has no tokenizer of the model's)."""
    return len(text.split())


def _extra(result: dict[str, Any], thread_source: str) -> dict[str, Any]:
    """Build the `threadline` field: the `POST /chat` object and where the id came from."""
    public = ChatResponse.model_validate(result).model_dump(mode="json")
    return {**public, "thread_source": thread_source}


# --- chat completions ------------------------------------------------------------


def _query_of(messages: list[ChatMessageIn], max_chars: int) -> tuple[str, int]:
    """Return the last user message's text, and its index in `messages`.

    Earlier messages are not replayed into the store, and system prompts are not
    used: threadline's own store is the conversation's single source of truth (its
    answers carry the outline, citations and search queries that follow-ups such as
    "Détaille S2" resolve against, which a client's copy of the text does not), and
    the grounding rules are threadline's, not the client's.
    """
    users = [i for i, m in enumerate(messages) if m.role == "user"]
    if not users:
        raise BadRequest("no_user_message", "messages must contain a user message.", "messages")
    index = users[-1]
    query = messages[index].text().strip()
    if is_blank(query):
        raise BadRequest(
            "empty_query", "The last user message has no text.", f"messages.{index}.content"
        )
    if len(query) > max_chars:
        raise BadRequest(
            "query_too_long",
            f"The last user message is longer than {max_chars} characters.",
            f"messages.{index}.content",
        )
    return query, index


def _chunk(
    base: dict[str, Any], delta: dict[str, Any], finish: str | None = None, **extra: Any
) -> str:
    """Frame one `chat.completion.chunk` carrying `delta` as a Server-Sent Event."""
    choice = {"index": 0, "delta": delta, "finish_reason": finish, "logprobs": None}
    body = {**base, "object": "chat.completion.chunk", "choices": [choice], **extra}
    return sse_event(body)


@router.post(
    "/chat/completions",
    response_model=ChatCompletion,
    responses={
        **ERRORS,
        503: {
            "model": OpenAIError,
            "description": "Session busy (store_busy) or the language model server "
            "unavailable (llm_unavailable): nothing was saved, retry",
        },
        504: {
            "model": OpenAIError,
            "description": "The language model did not answer in time (llm_timeout): "
            "nothing was saved, retry",
        },
        STORAGE_FULL_STATUS: {
            "model": OpenAIError,
            "description": "The server's disk is full (storage_full): nothing was saved",
        },
        200: {
            "description": "A `chat.completion`, or with `stream: true` Server-Sent Events of "
            "`chat.completion.chunk` ending with `data: [DONE]`.",
            "content": {"text/event-stream": {}},
        },
    },
)
async def create_chat_completion(
    body: ChatCompletionRequest,
    chat: ChatDep,
    services: ServicesDep,
    principal: PrincipalDep,
    http: Request,
    caller_app: Annotated[
        str,
        Header(alias=CALLER_APP_HEADER, min_length=1, max_length=128, json_schema_extra=ID_SCHEMA),
    ] = "default",
    # `str`, not `str | None`: a header cannot carry null, so the schema must not offer
    # it; the None default (an absent header) is what the type checker is told to allow.
    thread_header: Annotated[
        str, Header(alias=THREAD_HEADER, max_length=128, json_schema_extra=ID_SCHEMA)
    ] = None,  # type: ignore[assignment]
    openwebui_chat: Annotated[
        str, Header(alias=OPENWEBUI_CHAT_HEADER, max_length=128, json_schema_extra=ID_SCHEMA)
    ] = None,  # type: ignore[assignment]
) -> Response:
    """One threadline turn; the last user message is the query (see the module doc)."""
    if body.model != MODEL_ID:
        raise ApiError(
            404, "model_not_found", f"The model {body.model!r} does not exist; use {MODEL_ID!r}."
        )
    if body.n not in (None, 1):
        raise BadRequest("unsupported_value", "Only n=1 is supported.", "n")
    query, query_index = _query_of(body.messages, services.settings.max_query_length)
    authorize_caller_app(principal, caller_app)
    validate_id(caller_app, "X-Threadline-Caller-App")
    thread_id, source = await run_in_threadpool(
        resolve_thread,
        services.store,
        tenant=principal.tenant,
        caller_app=caller_app,
        header_id=thread_header,
        openwebui_id=openwebui_chat,
        user=body.user,
        messages=body.messages,
        query_index=query_index,
    )
    turn = TurnRequest(
        query=query, thread_id=thread_id, tenant=principal.tenant, caller_app=caller_app
    )
    base = {
        "id": f"chatcmpl-{uuid.uuid4().hex}",
        "created": int(time.time()),
        "model": MODEL_ID,
        "system_fingerprint": _FINGERPRINT,
    }
    headers = {THREAD_HEADER: thread_id}
    if body.stream:
        include_usage = bool(body.stream_options and body.stream_options.include_usage)
        return await _stream(chat, turn, base, headers, source, include_usage)

    finished = await unless_disconnected(http, chat.arun_turn(turn))
    if finished is None:  # the client left: the turn was cancelled, nothing stored
        return client_closed()
    result = finished.to_dict()
    answer, footer = render_content(result)
    content = answer + footer
    completion = {
        **base,
        "object": "chat.completion",
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": content, "refusal": None},
                "finish_reason": "stop",
                "logprobs": None,
            }
        ],
        "usage": {
            "prompt_tokens": _words(query),
            "completion_tokens": _words(content),
            "total_tokens": _words(query) + _words(content),
        },
        "threadline": _extra(result, source),
    }
    return JSONResponse(completion, headers=headers)


async def _stream(
    chat: ChatService,
    turn: TurnRequest,
    base: dict[str, Any],
    headers: dict[str, str],
    source: str,
    include_usage: bool,
) -> StreamingResponse:
    """Stream the turn as `chat.completion.chunk` events.

    Stream policy: the `token` events of `astream_turn` are the model's raw output,
    BEFORE citation validation and before the SUIVI block is parsed out, and an
    OpenAI stream cannot take back text it has sent. Streaming them would show
    readers citations that are later removed and the raw SUIVI block. So the
    content is streamed only from the `final` event (the truth): the validated
    answer in word pieces, then one chunk with the Markdown sources and follow-ups,
    then a chunk with `finish_reason: "stop"` and the `threadline` field, (the
    usage chunk if `stream_options.include_usage`), then `data: [DONE]`. The
    concatenated deltas equal the non-streaming `content`. The role chunk is sent
    at once, so clients see the answer start; offline the turn takes milliseconds,
    with a real LLM the pieces arrive when the answer is complete.

    The graph's first step (loading the conversation) runs before the response
    starts, so a busy or damaged session is still an HTTP error status; later
    failures travel as an OpenAI error event (`data: {"error": {...}}`), which the
    `openai` client raises as `APIError`.
    """
    # `astream_turn` is an async generator (annotated as an iterator): it can be closed.
    events = cast(AsyncGenerator[dict[str, Any], None], chat.astream_turn(turn))
    try:
        first = await anext(events)
    except BaseException:
        await events.aclose()
        raise

    async def body() -> AsyncIterator[str]:
        try:
            yield _chunk(base, {"role": "assistant", "content": ""})
            final = first["data"] if first["event"] == "final" else None
            async for event in events:
                if event["event"] == "final":
                    final = event["data"]
            if final is None:  # astream_turn always ends with `final`; defensive
                raise RuntimeError("the turn ended without a final event")
            answer, footer = render_content(final)
            for piece in _PIECE.findall(answer):
                yield _chunk(base, {"content": piece})
            if footer:
                yield _chunk(base, {"content": footer})
            yield _chunk(base, {}, "stop", threadline=_extra(final, source))
            if include_usage:
                prompt, completion = _words(turn.query), _words(answer + footer)
                usage = {
                    "prompt_tokens": prompt,
                    "completion_tokens": completion,
                    "total_tokens": prompt + completion,
                }
                payload = {**base, "object": "chat.completion.chunk", "choices": [], "usage": usage}
                yield sse_event(payload)
            yield OPENAI_DONE
        except Exception as exc:  # the stream has started: errors travel as an event
            if isinstance(exc, StoreBusyError):
                error = {
                    "message": "Session busy; retry.",
                    "type": "server_error",
                    "code": "store_busy",
                }
            elif isinstance(exc, SessionNotFoundError):  # deleted while the turn ran
                error = {
                    "message": "Session not found; the turn was not saved.",
                    "type": "invalid_request_error",
                    "code": "session_not_found",
                }
            elif isinstance(exc, LLMError):
                log.warning("LLM failed: %s (%s)", exc.code, exc)
                error = {
                    "message": llm_error_message(exc),
                    "type": "server_error",
                    "code": exc.code,
                }
            else:
                log.exception("stream failed")
                error = {
                    "message": "The turn was not saved.",
                    "type": "server_error",
                    "code": "internal_error",
                }
            yield sse_event({"error": {**error, "param": None}})
        finally:
            await events.aclose()

    return event_stream(body(), headers=headers)
