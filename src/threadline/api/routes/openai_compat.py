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
threadline's shape, so this router's route class converts errors itself.
"""

from __future__ import annotations

import hashlib
import json
import logging
import re
import time
import uuid
from collections.abc import AsyncIterator, Callable, Coroutine, Iterable
from typing import Annotated, Any

from fastapi import APIRouter, Header, Request, Response
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, StreamingResponse
from fastapi.routing import APIRoute
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException as StarletteHTTPException

from threadline import __version__
from threadline.api.deps import ChatDep, PrincipalDep, ServicesDep, authorize_caller_app
from threadline.api.errors import ApiError
from threadline.api.openai_schemas import (
    MODEL_ID,
    ChatCompletion,
    ChatCompletionRequest,
    ChatMessageIn,
    ModelCard,
    ModelList,
    OpenAIError,
)
from threadline.api.schemas import ID_SCHEMA, ChatResponse
from threadline.api.sse import OPENAI_DONE, event_stream, sse_event
from threadline.chat import TurnRequest
from threadline.store import (
    ConversationStore,
    CorruptSessionError,
    InvalidIdError,
    SessionExistsError,
    SessionNotFoundError,
    StoreBusyError,
    validate_id,
)

log = logging.getLogger("threadline.api")

THREAD_HEADER = "X-Threadline-Thread-Id"
CALLER_APP_HEADER = "X-Threadline-Caller-App"
OPENWEBUI_CHAT_HEADER = "X-OpenWebUI-Chat-Id"
# Derived ids: one slot per conversation that starts with the same first message.
DERIVED_PREFIX = "oai-"
MAX_DERIVED_SLOTS = 64
_CREATED = int(time.time())
_FINGERPRINT = f"threadline-{__version__}"
# Streamed pieces: each word with the whitespace after it (and leading whitespace on
# its own), so that joining the pieces gives back the text exactly.
_PIECE = re.compile(r"^\s+|\S+\s*")


# --- errors ----------------------------------------------------------------------

_TYPES = {
    401: "authentication_error",
    403: "permission_error",
    404: "invalid_request_error",
    409: "conflict_error",
    429: "rate_limit_error",
}


def openai_error(
    status: int,
    code: str,
    message: str,
    *,
    param: str | None = None,
    headers: dict[str, str] | None = None,
) -> JSONResponse:
    """An error in OpenAI's shape; `code` is threadline's stable code."""
    kind = _TYPES.get(status, "server_error" if status >= 500 else "invalid_request_error")
    body = {"error": {"message": message, "type": kind, "param": param, "code": code}}
    # The openai client retries 408/409/429/5xx unless told not to: only a busy store
    # (and a rate limit) is worth retrying; a 500 here means the turn itself failed.
    retry = "true" if status in (429, 503) else "false"
    return JSONResponse(
        status_code=status, content=body, headers={"x-should-retry": retry, **(headers or {})}
    )


def _param(loc: tuple | list) -> str | None:
    parts = [str(p) for p in loc if p not in ("body", "header", "query", "path")]
    return ".".join(parts) or None


def error_from_exception(exc: Exception) -> JSONResponse:
    """Map whatever a `/v1` route raised to an OpenAI-shaped error answer."""
    if isinstance(exc, ApiError):
        headers = {"WWW-Authenticate": "Bearer"} if exc.status == 401 else None
        return openai_error(
            exc.status, exc.code, exc.message, param=getattr(exc, "param", None), headers=headers
        )
    if isinstance(exc, RequestValidationError):
        errors = list(exc.errors())
        first = errors[0] if errors else {}
        if first.get("type") == "json_invalid":
            return openai_error(400, "validation_error", "The body is not valid JSON.")
        param = _param(first.get("loc", ()))
        where = f" ({param})" if param else ""
        message = f"Invalid request{where}: {first.get('msg', 'not valid')}"
        # OpenAI answers 400 to a malformed request, and its clients map 400 to BadRequestError.
        return openai_error(400, "validation_error", message, param=param)
    if isinstance(exc, InvalidIdError):
        return openai_error(400, "invalid_id", str(exc))
    if isinstance(exc, SessionNotFoundError):
        return openai_error(404, "session_not_found", "Session not found")
    if isinstance(exc, StoreBusyError):
        return openai_error(
            503,
            "store_busy",
            "The session is busy (lock timeout); retry shortly.",
            headers={"Retry-After": "1"},
        )
    if isinstance(exc, CorruptSessionError):
        log.error("corrupt session file: %s", exc)
        return openai_error(
            409, "session_corrupt", "This session's file is damaged; it is kept for repair."
        )
    if isinstance(exc, StarletteHTTPException):
        return openai_error(exc.status_code, "http_error", str(exc.detail), headers=exc.headers)
    log.exception("unhandled error", exc_info=exc)
    return openai_error(500, "internal_error", "Internal error; the turn was not saved.")


class _BadRequest(ApiError):
    """A 400 naming the offending parameter."""

    def __init__(self, code: str, message: str, param: str | None = None) -> None:
        super().__init__(400, code, message)
        self.param = param


class OpenAIRoute(APIRoute):
    """Answers errors in OpenAI's shape instead of the app-wide threadline shape.

    The wrapped handler is where FastAPI resolves dependencies (authentication),
    validates the body and runs the endpoint, so everything those raise lands here
    before the app's exception handlers see it.
    """

    def get_route_handler(self) -> Callable[[Request], Coroutine[Any, Any, Response]]:
        handler = super().get_route_handler()

        async def openai_handler(request: Request) -> Response:
            try:
                return await handler(request)
            except Exception as exc:  # every error becomes an OpenAI-shaped answer
                return error_from_exception(exc)

        return openai_handler


router = APIRouter(prefix="/v1", tags=["openai"], route_class=OpenAIRoute)

ERRORS: dict[int | str, dict[str, Any]] = {
    400: {"model": OpenAIError, "description": "Invalid request"},
    401: {"model": OpenAIError, "description": "Missing or wrong API key"},
    403: {"model": OpenAIError, "description": "Caller app not allowed for this key"},
    404: {"model": OpenAIError, "description": "Unknown model"},
    503: {"model": OpenAIError, "description": "Session busy, retry"},
}


# --- models ----------------------------------------------------------------------


def _model_card() -> dict[str, Any]:
    return ModelCard(id=MODEL_ID, created=_CREATED).model_dump()


@router.get("/models", response_model=ModelList, responses=ERRORS)
async def list_models(principal: PrincipalDep) -> dict[str, Any]:
    """The one model: `threadline`."""
    return {"object": "list", "data": [_model_card()]}


@router.get("/models/{model_id}", response_model=ModelCard, responses=ERRORS)
async def retrieve_model(model_id: str, principal: PrincipalDep) -> dict[str, Any]:
    """`threadline`, or 404."""
    if model_id != MODEL_ID:
        raise ApiError(404, "model_not_found", f"The model {model_id!r} does not exist.")
    return _model_card()


# --- the conversation id ---------------------------------------------------------


def _normalized(text: str) -> str:
    return " ".join(text.split())


def _turns(messages: Iterable[tuple[str, str]]) -> list[tuple[str, str]]:
    """(question, answer) pairs, whitespace-normalized, the way the graph reads history."""
    turns: list[tuple[str, str]] = []
    question = None
    for role, text in messages:
        if role == "user":
            question = text
        elif role == "assistant" and question is not None:
            turns.append((_normalized(question), _normalized(text)))
            question = None
    return turns


def _same_answer(client: str, stored: str) -> bool:
    # Clients resend our `content`: the stored answer followed by the sources footer.
    return bool(client and stored) and (client.startswith(stored) or stored.startswith(client))


def _extra_turns(stored: list[tuple[str, str]], client: list[tuple[str, str]]) -> int | None:
    """How many turns the stored thread has beyond the client's history, or None if they differ."""
    if len(stored) < len(client):
        return None
    for (cq, ca), (sq, sa) in zip(client, stored, strict=False):
        if cq != sq or not _same_answer(ca, sa):
            return None
    return len(stored) - len(client)


def derive_thread_id(
    store: ConversationStore,
    *,
    tenant: str,
    caller_app: str,
    messages: list[ChatMessageIn],
    query_index: int,
) -> tuple[str, str]:
    """A stable id for clients that resend the whole history and send no id.

    The id hashes the tenant, the caller app and the conversation's first user
    message, so every request of one conversation lands on the same thread. Several
    conversations may start with the same message ("hello"), so each hash has
    numbered slots (`oai-<hash>`, `oai-<hash>-1`, ... up to `MAX_DERIVED_SLOTS`):

    * a request with no earlier turn (the client just started a conversation, or
      regenerated its first answer) claims the first free slot, atomically
      (`create_session` refuses an id that exists);
    * otherwise the client's earlier turns (the messages before the query) pick the
      slot whose stored turns start with them: same questions, and each resent
      assistant message starting with the stored answer (clients resend our
      `content`, which is the answer plus the sources footer). A slot holding
      exactly those turns wins over one that holds more (after a regenerate, the
      thread that matches what the client shows). No match (a history from
      elsewhere, a deleted thread) claims a free slot: a new thread.

    Returns:
        The thread id and `"derived"`, or a random id and `"new"` when every slot
        is taken.
    """
    client = _turns((m.role, m.text()) for m in messages[:query_index])
    first_question = next(m.text() for m in messages if m.role == "user")
    key = json.dumps([tenant, caller_app, _normalized(first_question)], ensure_ascii=False)
    base = DERIVED_PREFIX + hashlib.sha256(key.encode("utf-8")).hexdigest()[:32]
    slots = [base] + [f"{base}-{slot}" for slot in range(1, MAX_DERIVED_SLOTS)]
    keys = {"tenant": tenant, "caller_app": caller_app}
    if client:
        best: tuple[int, str] | None = None
        for sid in slots:
            try:
                session = store.get_session(**keys, session_id=sid)
            except CorruptSessionError:
                continue
            if session is None:
                continue
            extra = _extra_turns(_turns((m.role, m.content) for m in session.messages), client)
            if extra is not None and (best is None or extra < best[0]):
                best = (extra, sid)
                if extra == 0:
                    break
        if best is not None:
            return best[1], "derived"
    for sid in slots:
        try:
            store.create_session(**keys, session_id=sid)
        except SessionExistsError:
            continue
        return sid, "derived"
    return f"{DERIVED_PREFIX}{uuid.uuid4().hex}", "new"


def resolve_thread(
    store: ConversationStore,
    *,
    tenant: str,
    caller_app: str,
    header_id: str | None,
    openwebui_id: str | None,
    user: str | None,
    messages: list[ChatMessageIn],
    query_index: int,
) -> tuple[str, str]:
    """The conversation id of a completion request and where it came from.

    Returns:
        `(thread_id, source)`, source one of `header`, `openwebui`, `user`,
        `derived`, `new`.

    Raises:
        InvalidIdError: The header's id is not a valid session id.
    """
    if header_id:
        return validate_id(header_id, "X-Threadline-Thread-Id"), "header"
    if openwebui_id:
        return validate_id(openwebui_id, "X-OpenWebUI-Chat-Id"), "openwebui"
    if user:
        # `user` is free text in OpenAI's API (often an e-mail): used as is when it is
        # a valid session id, otherwise through a hash (the id is returned either way).
        try:
            return validate_id(user, "user"), "user"
        except InvalidIdError:
            digest = hashlib.sha256(user.encode("utf-8")).hexdigest()[:32]
            return f"user-{digest}", "user"
    return derive_thread_id(
        store, tenant=tenant, caller_app=caller_app, messages=messages, query_index=query_index
    )


# --- the answer as OpenAI content ------------------------------------------------


def render_footer(result: dict[str, Any]) -> str:
    """The Markdown after the answer: the cited sources, then the outline's sections."""
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
    return len(text.split())


def _extra(result: dict[str, Any], thread_source: str) -> dict[str, Any]:
    # The same object (and field filter) as `POST /chat`, plus where the id came from.
    public = ChatResponse.model_validate(result).model_dump(mode="json")
    return {**public, "thread_source": thread_source}


# --- chat completions ------------------------------------------------------------


def _query_of(messages: list[ChatMessageIn], max_chars: int) -> tuple[str, int]:
    """The last user message's text, and its index in `messages`.

    Earlier messages are not replayed into the store, and system prompts are not
    used: threadline's own store is the conversation's single source of truth (its
    answers carry the outline, citations and search queries that follow-ups such as
    "Détaille S2" resolve against, which a client's copy of the text does not), and
    the grounding rules are threadline's, not the client's.
    """
    users = [i for i, m in enumerate(messages) if m.role == "user"]
    if not users:
        raise _BadRequest("no_user_message", "messages must contain a user message.", "messages")
    index = users[-1]
    query = messages[index].text().strip()
    if not query:
        raise _BadRequest(
            "empty_query", "The last user message has no text.", f"messages.{index}.content"
        )
    if len(query) > max_chars:
        raise _BadRequest(
            "query_too_long",
            f"The last user message is longer than {max_chars} characters.",
            f"messages.{index}.content",
        )
    return query, index


def _chunk(base: dict[str, Any], delta: dict[str, Any], finish: str | None = None, **extra):
    choice = {"index": 0, "delta": delta, "finish_reason": finish, "logprobs": None}
    body = {**base, "object": "chat.completion.chunk", "choices": [choice], **extra}
    return sse_event(body)


@router.post(
    "/chat/completions",
    response_model=ChatCompletion,
    responses={
        **ERRORS,
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
    caller_app: Annotated[
        str,
        Header(alias=CALLER_APP_HEADER, min_length=1, max_length=128, json_schema_extra=ID_SCHEMA),
    ] = "default",
    # `str`, not `str | None`: a header cannot carry null, so the schema must not offer it.
    thread_header: Annotated[
        str, Header(alias=THREAD_HEADER, max_length=128, json_schema_extra=ID_SCHEMA)
    ] = None,
    openwebui_chat: Annotated[
        str, Header(alias=OPENWEBUI_CHAT_HEADER, max_length=128, json_schema_extra=ID_SCHEMA)
    ] = None,
) -> Response:
    """One threadline turn; the last user message is the query (see the module doc)."""
    if body.model != MODEL_ID:
        raise ApiError(
            404, "model_not_found", f"The model {body.model!r} does not exist; use {MODEL_ID!r}."
        )
    if body.n not in (None, 1):
        raise _BadRequest("unsupported_value", "Only n=1 is supported.", "n")
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

    result = (await chat.arun_turn(turn)).to_dict()
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
    chat,
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
    events = chat.astream_turn(turn)
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
