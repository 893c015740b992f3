"""Errors as JSON with a stable `code`: domain errors, validation errors, anything else."""

from __future__ import annotations

import contextlib
import errno
import itertools
import logging
import os
import re
import resource
import sqlite3
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException

from threadline.api.json_keys import RefusedJsonBody
from threadline.api.schemas import ErrorResponse
from threadline.models import LLMError, LLMTimeoutError
from threadline.store import (
    CorruptSessionError,
    InvalidIdError,
    SessionExistsError,
    SessionNotFoundError,
    StoreBusyError,
)

log = logging.getLogger("threadline.api")

_HTTP_CODES = {
    400: "bad_request",
    401: "unauthorized",
    403: "forbidden",
    404: "not_found",
    405: "method_not_allowed",
    408: "request_timeout",
    409: "conflict",
    413: "payload_too_large",
    415: "unsupported_media_type",
    422: "validation_error",
    429: "rate_limited",
    503: "unavailable",
    504: "timeout",
}

# A full disk, a file over the process's size limit, a user's quota used up.
_STORAGE_FULL_ERRNOS = frozenset({errno.ENOSPC, errno.EFBIG, errno.EDQUOT})
# SQLite's "database or disk is full": its word for ENOSPC (the embedded index of
# qdrant-client's local mode, the queries log), which it raises as its own error.
_SQLITE_FULL = 13
# Any other failed write is an SQLITE_IOERR (SQLITE_IOERR_WRITE, _FSYNC, ...), its errno
# dropped (Python does not expose sqlite3_system_errno): EFBIG (the process's file-size
# limit) and EDQUOT (a quota used up; SQLite reports only ENOSPC as SQLITE_FULL) among
# them. Read as storage full under a file-size limit, or when a probe write beside the
# data fails for want of space: that recovers the errno SQLite dropped.
_SQLITE_IOERR = 10
_SQLITE_IOERR_WRITE = 778
# Bigger than the pages SQLite writes at once, so a probe that fits says space is left.
_PROBE_BYTES = 64 << 10

STORAGE_FULL_STATUS = 507
STORAGE_FULL_CODE = "storage_full"
STORAGE_FULL_MESSAGE = (
    "The server's storage is full; nothing of this request was saved. Retry once space is freed."
)
STORAGE_FULL_RESPONSES: dict[int | str, dict[str, Any]] = {
    STORAGE_FULL_STATUS: {
        "model": ErrorResponse,
        "description": "The server's disk is full (storage_full): nothing was saved, "
        "what was stored before is kept",
    },
}
"""The OpenAPI answer of every route that writes (sessions, turns, ratings, documents)."""


def is_storage_full(exc: BaseException, data_dir: Path | None = None) -> bool:
    """Tell whether a write failed because the disk (or the file-size limit, a quota) is full.

    Follows the exception's causes: a library may wrap the `OSError` it got.

    Args:
        exc: What the write raised.
        data_dir: Where the service's SQLite files live (the embedded index, the
            queries log): an SQLite I/O error, whose errno SQLite drops, is storage
            full when a small write there fails for want of space.
    """
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        if isinstance(current, OSError) and current.errno in _STORAGE_FULL_ERRNOS:
            return True
        if isinstance(current, sqlite3.Error) and _sqlite_primary_code(current) == _SQLITE_FULL:
            return True
        if isinstance(current, sqlite3.Error) and _sqlite_write_under_size_limit(current):
            return True
        if (
            isinstance(current, sqlite3.Error)
            and _sqlite_primary_code(current) == _SQLITE_IOERR
            and data_dir is not None
            and _probe_write_errno(data_dir) in _STORAGE_FULL_ERRNOS
        ):
            return True
        seen.add(id(current))
        current = current.__cause__ or current.__context__
    return False


def _probe_write_errno(directory: Path) -> int | None:
    """Write and remove a small file in `directory`; return the errno it failed with.

    None when it was written (space is left), or when the directory is not there.
    The leading dot and `.tmp` suffix keep it out of every listing while it exists.
    """
    try:
        fd, name = tempfile.mkstemp(prefix=".storage-probe-", suffix=".tmp", dir=directory)
    except FileNotFoundError:
        return None
    except OSError as exc:
        return exc.errno
    try:
        block = b"\0" * _PROBE_BYTES
        written = 0
        while written < len(block):
            written += os.write(fd, block[written:])
        os.fsync(fd)
    except OSError as exc:
        return exc.errno
    finally:
        os.close(fd)
        with contextlib.suppress(OSError):
            os.unlink(name)
    return None


def _sqlite_write_under_size_limit(exc: sqlite3.Error) -> bool:
    """Tell whether SQLite failed a write while the process has a file-size limit (EFBIG)."""
    if getattr(exc, "sqlite_errorcode", None) != _SQLITE_IOERR_WRITE:
        return False
    soft, _ = resource.getrlimit(resource.RLIMIT_FSIZE)
    return soft != resource.RLIM_INFINITY


def _sqlite_primary_code(exc: sqlite3.Error) -> int | None:
    """Return the primary result code of a SQLite error (its extended code's low byte)."""
    code = getattr(exc, "sqlite_errorcode", None)
    return None if code is None else code & 0xFF


def service_data_dir(request: Request) -> Path | None:
    """Return the data directory of the app's services (None before they are opened)."""
    services = getattr(request.app.state, "services", None)
    return None if services is None else services.settings.data_dir


def http_error_code(status: int) -> str:
    """Return the stable code of an HTTP error the framework raises (routing, body parsing).

    One table for both APIs: `/v1` answers in OpenAI's shape with these same codes.
    """
    return _HTTP_CODES.get(status, "http_error")


class ApiError(Exception):
    """An error a route raises on purpose, with its status and code."""

    def __init__(self, status: int, code: str, message: str) -> None:
        """Keep status, code and message."""
        super().__init__(message)
        self.status, self.code, self.message = status, code, message


MAX_VALIDATION_DETAILS = 20
"""The problems a 422 lists: a body of 800,000 unknown keys (15 MB, under the request
ceiling) was answered with 72 MB of details, one per key, after 30 s of server CPU."""


def error_response(
    status: int,
    code: str,
    message: str,
    details: object = None,
    headers: Mapping[str, str] | None = None,
) -> JSONResponse:
    """Return the one error body shape."""
    body = {"error": {"code": code, "message": message, "details": details}}
    return JSONResponse(status_code=status, content=body, headers=headers)


def llm_error_status(exc: LLMError) -> int:
    """Return the status of a model failure: 504 for a timeout, 503 for an outage."""
    return 504 if isinstance(exc, LLMTimeoutError) else 503


LLM_ERROR_MESSAGES = {
    "llm_unavailable": "The language model server is unavailable; the turn was not saved. "
    "Retry later.",
    "llm_timeout": "The language model did not answer in time; the turn was not saved. "
    "Retry later.",
}


def llm_error_message(exc: LLMError) -> str:
    """Return the client-facing message of a model failure (never the server's own words)."""
    return LLM_ERROR_MESSAGES.get(exc.code, "The language model failed; the turn was not saved.")


def install_error_handlers(app: FastAPI) -> None:
    """Map every failure to a JSON body with a stable code; never a traceback."""

    @app.exception_handler(ApiError)
    async def _api_error(_: Request, exc: ApiError) -> JSONResponse:
        return error_response(exc.status, exc.code, exc.message)

    @app.exception_handler(InvalidIdError)
    async def _invalid_id(_: Request, exc: InvalidIdError) -> JSONResponse:
        return error_response(400, "invalid_id", str(exc))

    @app.exception_handler(SessionNotFoundError)
    async def _not_found(_: Request, exc: SessionNotFoundError) -> JSONResponse:
        return error_response(404, "session_not_found", "Session not found")

    @app.exception_handler(SessionExistsError)
    async def _exists(_: Request, exc: SessionExistsError) -> JSONResponse:
        return error_response(409, "session_exists", "A session with this id already exists")

    @app.exception_handler(StoreBusyError)
    async def _busy(_: Request, exc: StoreBusyError) -> JSONResponse:
        return error_response(
            503,
            "store_busy",
            "The session is busy (lock timeout); retry shortly.",
            headers={"Retry-After": "1"},
        )

    @app.exception_handler(LLMError)
    async def _llm(_: Request, exc: LLMError) -> JSONResponse:
        log.warning("LLM failed: %s (%s)", exc.code, exc)
        return error_response(
            llm_error_status(exc),
            exc.code,
            llm_error_message(exc),
            headers={"Retry-After": str(exc.retry_after)},
        )

    @app.exception_handler(CorruptSessionError)
    async def _corrupt(_: Request, exc: CorruptSessionError) -> JSONResponse:
        log.error("corrupt session file: %s", exc)
        return error_response(
            409, "session_corrupt", "This session's file is damaged; it is kept for repair."
        )

    # OSError: the files (JSON store, uploads); sqlite3.Error: SQLite files it does not
    # raise OSError for (qdrant-client's local mode).
    @app.exception_handler(OSError)
    @app.exception_handler(sqlite3.Error)
    async def _storage_error(request: Request, exc: Exception) -> JSONResponse:
        if is_storage_full(exc, service_data_dir(request)):
            # The store's writes are atomic (temp file and rename, one transaction): the
            # failed one left no trace. An index delete cut short is finished by its retry.
            log.error("storage full: %s", exc)
            return error_response(STORAGE_FULL_STATUS, STORAGE_FULL_CODE, STORAGE_FULL_MESSAGE)
        return _internal_error(request, exc)

    @app.exception_handler(RequestValidationError)
    async def _validation(_: Request, exc: RequestValidationError) -> JSONResponse:
        errors = exc.errors()
        details = [
            {"loc": list(e.get("loc", ())), "msg": e.get("msg", ""), "type": e.get("type", "")}
            for e in itertools.islice(errors, MAX_VALIDATION_DETAILS)
        ]
        message = "The request is not valid."
        if len(errors) > MAX_VALIDATION_DETAILS:
            message += f" The first {MAX_VALIDATION_DETAILS} of {len(errors)} problems are listed."
        return error_response(422, "validation_error", message, details)

    @app.exception_handler(RefusedJsonBody)
    async def _refused_body(_: Request, exc: RefusedJsonBody) -> JSONResponse:
        return error_response(exc.status_code, exc.code, str(exc.detail), exc.details)

    @app.exception_handler(StarletteHTTPException)
    async def _http(_: Request, exc: StarletteHTTPException) -> JSONResponse:
        code = http_error_code(exc.status_code)
        return error_response(exc.status_code, code, str(exc.detail), headers=exc.headers)

    @app.exception_handler(Exception)
    async def _unexpected(request: Request, exc: Exception) -> JSONResponse:
        return _internal_error(request, exc)


INTERNAL_ERROR_CODE = "internal_error"
INTERNAL_ERROR_MESSAGES = {
    "turn": "Internal error; the turn was not saved.",
    "write": "Internal error; the change may not have been made: read it back before retrying.",
    "read": "Internal error; nothing was changed.",
}
"""The answer to an error nothing expected, one per kind of route, wherever it was raised
(route, middleware): what the client may assume, never what failed inside."""

# The routes that answer a question (and store the turn): a chat turn, streamed or not,
# OpenAI's, and a regenerated answer.
_TURN_PATH = re.compile(r"/chat|/chat/stream|/v1/chat/completions|/sessions/[^/]+/regenerate")
_READ_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})


def internal_error_message(scope: Mapping[str, Any]) -> str:
    """Return the 500's message for a request (its ASGI scope): a turn, a read, a write."""
    path: str = scope.get("path", "")
    root: str = scope.get("root_path", "")
    if root and path.startswith(root):
        path = path[len(root) :]
    if scope.get("method", "GET") in _READ_METHODS:
        return INTERNAL_ERROR_MESSAGES["read"]
    if _TURN_PATH.fullmatch(path.rstrip("/") or "/"):
        return INTERNAL_ERROR_MESSAGES["turn"]
    return INTERNAL_ERROR_MESSAGES["write"]


def internal_error_response(scope: Mapping[str, Any]) -> JSONResponse:
    """Return the 500 of an unexpected error, in threadline's shape."""
    return error_response(500, INTERNAL_ERROR_CODE, internal_error_message(scope))


def _internal_error(request: Request, exc: BaseException) -> JSONResponse:
    """Log an error no handler knows, with its traceback, and answer a 500 in one line."""
    log.exception("unhandled error", exc_info=exc)
    return internal_error_response(request.scope)
