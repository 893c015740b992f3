"""Error answers of the routes that change stored turns (feedback, regenerate, import).

Installed by `create_app` beside the common handlers of `errors.py`; the bodies have
the same shape (`{"error": {"code", "message", "details"}}`).
"""

from __future__ import annotations

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse

from threadline.api.errors import error_response
from threadline.store.errors import MessageNotFoundError, NotAnAnswerError, TurnConflictError


def install_turn_error_handlers(app: FastAPI) -> None:
    """Map the store's message-level errors to 404 / 400 / 409 with stable codes."""

    @app.exception_handler(MessageNotFoundError)
    async def _message_not_found(_: Request, exc: MessageNotFoundError) -> JSONResponse:
        return error_response(404, "message_not_found", "Message not found in this session")

    @app.exception_handler(NotAnAnswerError)
    async def _not_an_answer(_: Request, exc: NotAnAnswerError) -> JSONResponse:
        return error_response(400, "not_an_answer", str(exc))

    @app.exception_handler(TurnConflictError)
    async def _turn_conflict(_: Request, exc: TurnConflictError) -> JSONResponse:
        return error_response(409, "turn_conflict", f"{exc}; reload the session and retry.")
