"""OpenAI-shaped errors for the `/v1` routes.

Errors use OpenAI's shape, `{"error": {"message", "type", "param", "code"}}`, with
threadline's stable codes, so the `openai` client raises its usual exceptions
(`BadRequestError`, `AuthenticationError`, ...). The app-wide handlers answer in
threadline's shape, so the `/v1` router's route class (`OpenAIRoute`) converts errors
itself.
"""

from __future__ import annotations

import inspect
import logging
from collections.abc import Callable, Coroutine, Mapping
from typing import Any

from fastapi import FastAPI, Request, Response
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from fastapi.routing import APIRoute
from starlette.exceptions import HTTPException as StarletteHTTPException

from threadline.api.body_limit import BodyTooLarge
from threadline.api.errors import (
    INTERNAL_ERROR_CODE,
    STORAGE_FULL_CODE,
    STORAGE_FULL_MESSAGE,
    STORAGE_FULL_STATUS,
    ApiError,
    http_error_code,
    internal_error_message,
    is_storage_full,
    llm_error_message,
    llm_error_status,
    service_data_dir,
)
from threadline.api.json_keys import RefusedJsonBody
from threadline.api.query_params import RepeatedQueryParameter
from threadline.models import LLMError
from threadline.store import (
    CorruptSessionError,
    InvalidIdError,
    SessionNotFoundError,
    StoreBusyError,
)

log = logging.getLogger("threadline.api")

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
    headers: Mapping[str, str] | None = None,
) -> JSONResponse:
    """Build an error in OpenAI's shape; `code` is threadline's stable code."""
    kind = _TYPES.get(status, "server_error" if status >= 500 else "invalid_request_error")
    body = {"error": {"message": message, "type": kind, "param": param, "code": code}}
    # The openai client retries 408/409/429/5xx unless told not to: only a busy store
    # (and a rate limit) is worth retrying; a 500 here means the turn itself failed.
    retry = "true" if status in (429, 503) else "false"
    return JSONResponse(
        status_code=status, content=body, headers={"x-should-retry": retry, **(headers or {})}
    )


def _param(loc: tuple | list) -> str | None:
    """Name the request field a validation error points at (`messages.0.content`)."""
    parts = [str(p) for p in loc if p not in ("body", "header", "query", "path")]
    return ".".join(parts) or None


def error_from_exception(request: Request, exc: Exception) -> JSONResponse:
    """Map whatever a `/v1` route raised to an OpenAI-shaped error answer."""
    data_dir = service_data_dir(request)  # where the SQLite files live (`is_storage_full`)
    if isinstance(exc, RepeatedQueryParameter):
        # OpenAI answers 400 to a malformed request, as for a repeated JSON key.
        return openai_error(400, exc.code, exc.message, param=exc.param)
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
    if isinstance(exc, LLMError):
        log.warning("LLM failed: %s (%s)", exc.code, exc)
        return openai_error(
            llm_error_status(exc),
            exc.code,
            llm_error_message(exc),
            headers={"Retry-After": str(exc.retry_after)},
        )
    if isinstance(exc, CorruptSessionError):
        log.error("corrupt session file: %s", exc)
        return openai_error(
            409, "session_corrupt", "This session's file is damaged; it is kept for repair."
        )
    if is_storage_full(exc, data_dir):
        log.error("storage full: %s", exc)
        return openai_error(STORAGE_FULL_STATUS, STORAGE_FULL_CODE, STORAGE_FULL_MESSAGE)
    if isinstance(exc, BodyTooLarge):
        return openai_error(413, "payload_too_large", str(exc.detail))
    if isinstance(exc, RefusedJsonBody):
        # OpenAI answers 400 to a malformed body, and its clients map 400 to BadRequestError.
        return openai_error(400, exc.code, str(exc.detail), param=exc.param)
    if isinstance(exc, StarletteHTTPException):
        code = http_error_code(exc.status_code)
        return openai_error(exc.status_code, code, str(exc.detail), headers=exc.headers)
    log.exception("unhandled error", exc_info=exc)
    return openai_internal_error(request.scope)


def openai_internal_error(scope: Mapping[str, Any]) -> JSONResponse:
    """Return the 500 of an unexpected error in OpenAI's shape (the same code and message)."""
    return openai_error(500, INTERNAL_ERROR_CODE, internal_error_message(scope))


class BadRequest(ApiError):
    """A 400 naming the offending parameter."""

    def __init__(self, code: str, message: str, param: str | None = None) -> None:
        """Keep the error's code, message and the parameter at fault."""
        super().__init__(400, code, message)
        self.param = param


class OpenAIRoute(APIRoute):
    """Answers errors in OpenAI's shape instead of the app-wide threadline shape.

    The wrapped handler is where FastAPI resolves dependencies (authentication),
    validates the body and runs the endpoint, so everything those raise lands here
    before the app's exception handlers see it.
    """

    def get_route_handler(self) -> Callable[[Request], Coroutine[Any, Any, Response]]:
        """Wrap FastAPI's handler so every error it raises is answered in OpenAI's shape."""
        handler = super().get_route_handler()

        async def openai_handler(request: Request) -> Response:
            try:
                return await handler(request)
            except Exception as exc:  # every error becomes an OpenAI-shaped answer
                return error_from_exception(request, exc)

        return openai_handler


OPENAI_PREFIX = "/v1"


def under_openai_prefix(request: Request) -> bool:
    """Say whether a request's path is under `/v1` (the mount point the app was given aside)."""
    path = request.url.path
    root = request.scope.get("root_path", "")
    if root and path.startswith(root):
        path = path[len(root) :]
    return path == OPENAI_PREFIX or path.startswith(OPENAI_PREFIX + "/")


def install_openai_routing_errors(app: FastAPI) -> None:
    """Answer routing errors under `/v1` (404 no such path, 405 wrong method) in OpenAI's shape.

    The router refuses them before any `/v1` route runs, so `OpenAIRoute` never sees
    them; the app-wide handler of HTTP errors is wrapped to answer paths under `/v1`
    in OpenAI's shape, with the same stable codes as the rest of the API.
    """
    threadline_handler = app.exception_handlers[StarletteHTTPException]

    async def routing_error(request: Request, exc: Exception) -> Response:
        if under_openai_prefix(request):
            return error_from_exception(request, exc)
        answer = threadline_handler(request, exc)
        return await answer if inspect.isawaitable(answer) else answer

    app.add_exception_handler(StarletteHTTPException, routing_error)
