"""HTTP method semantics for the whole app, in one place: HEAD, and a complete `Allow`.

- HEAD is answered wherever GET is (RFC 9110 §9.3.2): the request runs as a GET and
  the response keeps its status and headers (`Content-Length` included) without its
  body. FastAPI's routes list only the methods they declare, so without this a HEAD
  on any GET route was 405.
- A 405 the router answers names every method the path allows (§15.5.6), not only
  those of the first route whose path matched: `/sessions` has a POST route and a GET
  route, and a PUT used to hear `Allow: POST`.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from functools import cache

from fastapi.routing import iter_route_contexts
from starlette.routing import BaseRoute, compile_path
from starlette.types import ASGIApp, Message, Receive, Scope, Send


@cache
def _path_regex(path: str) -> re.Pattern[str]:
    return compile_path(path)[0]


def allowed_methods(routes: Sequence[BaseRoute], path: str) -> set[str]:
    """Return the methods the app's routes accept on `path` (HEAD wherever GET is)."""
    methods: set[str] = set()
    for route in iter_route_contexts(routes):
        route_methods, route_path = route.methods, route.path
        if route_methods and route_path and _path_regex(route_path).match(path):
            methods |= set(route_methods)
    if "GET" in methods:
        methods.add("HEAD")
    return methods


class HttpMethods:
    """ASGI middleware: HEAD as a GET without the body; a 405's `Allow` made complete."""

    def __init__(self, app: ASGIApp, routes: Callable[[], Sequence[BaseRoute]]) -> None:
        """Wrap the app; `routes` returns its routes (read when a 405 is answered)."""
        self.app = app
        self.routes = routes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Run HEAD as GET, drop its body, and complete the `Allow` of a 405."""
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        head = scope["method"] == "HEAD"
        inner = {**scope, "method": "GET"} if head else scope

        async def send_adjusted(message: Message) -> None:
            if message["type"] == "http.response.start" and message["status"] == 405:
                message = self._complete_allow(inner, message)
            elif head and message["type"] == "http.response.body":
                if message.get("more_body", False):
                    return  # a HEAD answer has no body: its parts are dropped
                message = {"type": "http.response.body", "body": b"", "more_body": False}
            await send(message)

        await self.app(inner, receive, send_adjusted)

    def _complete_allow(self, scope: Scope, message: Message) -> Message:
        path = scope["path"]
        root = scope.get("root_path", "")
        if root and path.startswith(root):
            path = path[len(root) :]
        methods = allowed_methods(self.routes(), path)
        if not methods or scope["method"] in methods:
            # A route took the method and refused it itself (`/sessions/import`): its
            # own `Allow` stands.
            return message
        headers = [(k, v) for k, v in message.get("headers", []) if k.lower() != b"allow"]
        headers.append((b"allow", ", ".join(sorted(methods)).encode("ascii")))
        return {**message, "headers": headers}
