"""Files served whole, without Range requests, so that every error stays JSON.

Starlette's `FileResponse` answers a malformed or unsatisfiable `Range` header itself,
with a plain-text 400 or 416 that no exception handler sees. The page, its assets and
the docs' files are small: they are served whole (a server may ignore `Range`, RFC
9110 §14.2), and no range support is advertised.
"""

from __future__ import annotations

from typing import Any

from fastapi.responses import FileResponse
from fastapi.staticfiles import StaticFiles
from starlette.responses import Response
from starlette.types import Receive, Scope, Send


def _without_range(scope: Scope) -> Scope:
    """Return the request's scope without its `Range` header."""
    if scope["type"] != "http":
        return scope
    return {**scope, "headers": [(k, v) for k, v in scope["headers"] if k.lower() != b"range"]}


def _no_ranges_advertised(response: Response) -> Response:
    if "accept-ranges" in response.headers:
        del response.headers["accept-ranges"]
    return response


class WholeFileResponse(FileResponse):
    """A file answered whole whatever `Range` the request carries."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        """Build the response; it does not advertise ranges."""
        super().__init__(*args, **kwargs)
        _no_ranges_advertised(self)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Send the whole file."""
        await super().__call__(_without_range(scope), receive, send)


class WholeStaticFiles(StaticFiles):
    """A directory of files, each answered whole (its errors are the app's JSON ones)."""

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Serve the file, ignoring `Range`."""
        await super().__call__(_without_range(scope), receive, send)

    def file_response(self, *args: Any, **kwargs: Any) -> Response:
        """Answer the file; no range support is advertised."""
        return _no_ranges_advertised(super().file_response(*args, **kwargs))
