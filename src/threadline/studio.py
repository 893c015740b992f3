"""threadline's HTTP API inside the LangGraph dev server (`make studio`).

`langgraph.json` names this module's `app` as `http.app`, so `langgraph dev`
serves LangGraph's own routes (`/threads`, `/runs`, `/assistants`: what Studio
talks to) and threadline's (`/chat`, `/sessions`, `/health`) from ONE process.
That process owns the embedded index under the data directory (one process per
storage path), so nothing else may serve the same data directory while it runs:
use this server's `/chat` instead of also starting `make run` on the same data.

Both paths share one `Services`, the process-wide `get_services()` that the
Studio graph (`threadline.graph.graph:graph`) uses too: one store, one
knowledge base (one Qdrant client), one queries log. The API's lifespan opens
them before the first request; they are closed here when the server stops.

Only the LangGraph server imports this module; `threadline serve` does not.
"""

from __future__ import annotations

import inspect
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from typing import Any

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.responses import PlainTextResponse, Response
from starlette.routing import BaseRoute, Match

from threadline.api.main import create_app
from threadline.auth import keys_configured
from threadline.services import get_services
from threadline.settings import Settings

# FastAPI's type for `app.exception_handlers` values: each handler takes the exception type
# it is registered for, and may answer directly or with an awaitable.
Handler = Callable[[Request, Any], Response | Awaitable[Response]]


def _own_routes(app: FastAPI) -> list[BaseRoute]:
    """Return threadline's routes, without FastAPI's docs pages (LangGraph serves /docs there)."""
    docs = {app.openapi_url, app.docs_url, app.redoc_url, app.swagger_ui_oauth2_redirect_url}
    return [route for route in app.routes if getattr(route, "path", None) not in docs]


async def _langgraph_http_error(request: Request, exc: StarletteHTTPException) -> Response:
    """LangGraph's own body for its routes (`{"detail": ...}`), as Studio and the SDK expect."""
    if exc.status_code < 200 or exc.status_code in (204, 205, 304):
        return Response(status_code=exc.status_code, headers=exc.headers)
    detail = exc.detail if isinstance(exc.detail, str) and exc.detail else "unknown error"
    return JSONResponse({"detail": detail}, status_code=exc.status_code, headers=exc.headers)


async def _plain_server_error(request: Request, exc: Exception) -> Response:
    """Answer as Starlette does for an unhandled error when no handler is installed."""
    return PlainTextResponse("Internal Server Error", status_code=500)


def _scope_error_handlers(app: FastAPI) -> None:
    """Keep threadline's error bodies on threadline's routes only.

    The LangGraph server merges this app's exception handlers into its own and
    lets ours win, so threadline's catch-alls (HTTPException, Exception) would
    also reshape errors of `/threads` and `/runs`. Route them by path instead.
    """
    own = _own_routes(app)  # taken now, before the LangGraph server adds its routes

    def is_threadline(request: Request) -> bool:
        # Routing rewrites the scope in place (a mount's root_path): match on the bare path.
        scope = {
            "type": request.scope["type"],
            "path": request.scope["path"],
            "root_path": "",
            "method": request.scope.get("method", "GET"),
        }
        return any(route.matches(scope)[0] != Match.NONE for route in own)

    fallbacks: dict[type[Exception], Handler] = {
        StarletteHTTPException: _langgraph_http_error,
        Exception: _plain_server_error,
    }
    for exc_type, fallback in fallbacks.items():
        threadline_handler = app.exception_handlers.get(exc_type)
        if threadline_handler is None:
            continue

        async def dispatch(
            request: Request,
            exc: Exception,
            mine: Handler = threadline_handler,
            theirs: Handler = fallback,
        ) -> Response:
            handler = mine if is_threadline(request) else theirs
            response = handler(request, exc)
            return await response if inspect.isawaitable(response) else response

        app.exception_handlers[exc_type] = dispatch


def _close_services_on_shutdown(app: FastAPI) -> None:
    """Run the API's lifespan, then release the shared services when the server stops.

    `create_app(services)` leaves services it was given open (they are not its
    own); here they belong to the process, so the process closes them.
    """
    api_lifespan = app.router.lifespan_context

    @asynccontextmanager
    async def lifespan(app_: FastAPI) -> AsyncIterator[None]:
        try:
            async with api_lifespan(app_):
                yield
        finally:
            await run_in_threadpool(get_services().close)

    app.router.lifespan_context = lifespan


class StudioKeysError(RuntimeError):
    """API keys are configured: Studio's LangGraph routes would run any tenant without one."""


def refuse_api_keys(settings: Settings) -> None:
    """Refuse to serve Studio when API keys are configured.

    LangGraph's own routes (`/threads`, `/runs`) take no API key, and a run's input
    names its `tenant` and `caller_app`: beside threadline's routes, which answer 401
    without a key, they would let anyone read and write any tenant's documents and
    conversations. Studio is a development tool: serve it on data without keys.

    Raises:
        StudioKeysError: If a key is configured inline or a keys file is named (even
            one missing or empty: keys are on, and Studio's routes would bypass them).
    """
    if keys_configured(settings.api_keys, settings.api_keys_file):
        raise StudioKeysError(
            "LangGraph Studio's routes (/threads, /runs) take no API key and let a run "
            "name any tenant: unset THREADLINE_API_KEYS and THREADLINE_API_KEYS_FILE "
            "for `make studio`, and serve keyed clients with `threadline serve`"
        )


refuse_api_keys(get_services().settings)
app = create_app(get_services())
"""The API over the process-wide services (the same ones the Studio graph uses)."""
_scope_error_handlers(app)
_close_services_on_shutdown(app)
