"""Security headers on every response, and the API docs served from local files.

The page and the docs load nothing from elsewhere, so the policy allows only this
origin: a script injected into an answer or a title has nowhere to load from and
nowhere to send a key to, and no other site may frame the page.
"""

from __future__ import annotations

import logging

from fastapi import FastAPI
from fastapi.responses import HTMLResponse
from starlette.requests import Request
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from threadline.api.errors import internal_error_response
from threadline.api.openai_errors import openai_internal_error, under_openai_prefix
from threadline.api.static_files import WholeStaticFiles

log = logging.getLogger("threadline.api")

PAGE_POLICY = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; font-src 'self'; object-src 'none'; base-uri 'none'; "
    "form-action 'self'; frame-ancestors 'none'"
)
# Swagger UI sets style attributes from its script; everything else is as strict.
DOCS_POLICY = PAGE_POLICY.replace("style-src 'self'", "style-src 'self' 'unsafe-inline'")
DOCS_ASSETS = "/docs-assets"

_COMMON_HEADERS = [
    (b"x-content-type-options", b"nosniff"),
    (b"x-frame-options", b"DENY"),
    (b"referrer-policy", b"no-referrer"),
    (b"cross-origin-opener-policy", b"same-origin"),
]


class SecurityHeaders:
    """ASGI middleware adding the headers (pure ASGI: streamed answers stay streamed)."""

    def __init__(self, app: ASGIApp) -> None:
        """Wrap the app."""
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Add the headers to the start of every HTTP response."""
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        path: str = scope.get("path", "")
        docs = path == "/docs" or path.startswith(DOCS_ASSETS)
        policy = (DOCS_POLICY if docs else PAGE_POLICY).encode()

        started = False

        async def send_with_headers(message: Message) -> None:
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
                headers = list(message.get("headers", []))
                present = {name.lower() for name, _ in headers}
                for name, value in [*_COMMON_HEADERS, (b"content-security-policy", policy)]:
                    if name not in present:
                        headers.append((name, value))
                message = {**message, "headers": headers}
            await send(message)

        try:
            await self.app(scope, receive, send_with_headers)
        except Exception:
            if started:
                raise  # a streamed answer already under way: only closing is left
            # Answered here rather than by Starlette's outermost handler, which re-raises
            # to the server: uvicorn then drops the keep-alive connection, and the client's
            # next request on it fails.
            # The app's own handlers' body, in the shape of the path's API: a client
            # sees one answer to an unexpected error, whichever layer raised it.
            log.exception("unhandled error")
            if under_openai_prefix(Request(scope)):
                answer = openai_internal_error(scope)
            else:
                answer = internal_error_response(scope)
            await answer(scope, receive, send_with_headers)


_DOCS_PAGE = """<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>{title} — API</title>
  <link rel="stylesheet" href="{assets}/swagger-ui.css">
  <link rel="icon" href="/static/favicon.svg">
</head>
<body>
  <div id="swagger-ui"></div>
  <script src="{assets}/swagger-ui-bundle.js"></script>
  <script src="/static/docs.js"></script>
</body>
</html>
"""


def install_docs(app: FastAPI) -> None:
    """`/docs`: Swagger UI from the files of the `swagger-ui-bundle` package."""
    from swagger_ui_bundle import swagger_ui_path

    app.mount(DOCS_ASSETS, WholeStaticFiles(directory=str(swagger_ui_path)), name="docs-assets")
    page = _DOCS_PAGE.format(title=app.title, assets=DOCS_ASSETS)

    @app.get("/docs", include_in_schema=False)
    async def read_docs() -> HTMLResponse:
        return HTMLResponse(page)
