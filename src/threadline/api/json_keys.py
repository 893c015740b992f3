"""JSON request bodies that name a key twice, or hold a number no store keeps, are refused.

`{"query": "a", "query": "b"}` is one request that says two things: Python's parser
keeps the last value, others (a gateway, a WAF, a log reader) the first, so a check
made in front of the service can pass one value while the service acts on the other.
Refused where the body is read, for every route at once: the body FastAPI would parse
as JSON (no content type, `application/json`, `application/*+json`) is checked whole
once it has arrived, before any route sees it (pure ASGI middleware). The same check
refuses `NaN`, `Infinity`, `1e999` and integers past 64 bits (422 `invalid_json_number`),
which Python's parser reads and the stores cannot keep (`threadline.unique_json`).
"""

from __future__ import annotations

import email.message

from starlette.exceptions import HTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from threadline.unique_json import (
    DUPLICATE_KEY_CODE,
    MAX_OBJECT_KEYS,
    TOO_MANY_KEYS_CODE,
    UNSTORABLE_NUMBER_CODE,
    RepeatedJsonKey,
    TooManyJsonKeys,
    UnstorableJsonNumber,
    loads_unique,
)

DUPLICATE_KEY_STATUS = 422


class RefusedJsonBody(HTTPException):
    """A JSON body refused as it is read: 422 with `code` (400 on `/v1`).

    An HTTPException raised while the body is read, so FastAPI's body parsing lets it
    through as it is and the app's handlers answer it in the route's API's shape.
    `param` names what was refused (the key, the number as written), `details` says
    so in the error body.
    """

    code: str
    param: str
    details: dict[str, str]


class DuplicateJsonKey(RefusedJsonBody):
    """A JSON body naming a key twice in one object: 422 `duplicate_json_key`."""

    code = DUPLICATE_KEY_CODE

    def __init__(self, key: str) -> None:
        """Name the repeated key (shortened: it is the client's text)."""
        shown = key if len(key) <= 64 else key[:64] + "..."
        super().__init__(
            DUPLICATE_KEY_STATUS,
            f"The JSON body names the key {shown!r} twice in one object; each key may appear once.",
        )
        self.key = self.param = key
        self.details = {"key": key}


class UnstorableNumber(RefusedJsonBody):
    """A JSON body holding NaN, infinity or an integer past 64 bits: 422 `invalid_json_number`."""

    code = UNSTORABLE_NUMBER_CODE

    def __init__(self, literal: str) -> None:
        """Name the number as the body wrote it (shortened)."""
        super().__init__(
            DUPLICATE_KEY_STATUS,
            f"The JSON body holds the number {literal}, which cannot be stored: numbers "
            "must be finite, and integers within 64 bits.",
        )
        self.param = literal
        self.details = {"number": literal}


class TooManyKeys(RefusedJsonBody):
    """A JSON object of more than `MAX_OBJECT_KEYS` keys: 422 `json_object_too_large`."""

    code = TOO_MANY_KEYS_CODE

    def __init__(self, count: int) -> None:
        """Say how many keys the object holds."""
        super().__init__(
            DUPLICATE_KEY_STATUS,
            f"A JSON object of the body holds {count} keys; at most {MAX_OBJECT_KEYS} are read.",
        )
        self.param = str(count)
        self.details = {"keys": str(count)}


def check_unique_keys(body: bytes) -> None:
    """Raise `DuplicateJsonKey` or `UnstorableNumber` for a body the stores must not read.

    `DuplicateJsonKey`: a JSON object in `body` repeats a key; `UnstorableNumber`: it
    holds a number no store keeps; `TooManyKeys`: an object of it holds too many keys.

    A body that is not JSON at all is left to the route's own parsing, which answers
    it as it always has (422 invalid JSON, 400 unreadable).
    """
    try:
        loads_unique(body)
    except RepeatedJsonKey as exc:
        raise DuplicateJsonKey(exc.key) from None
    except UnstorableJsonNumber as exc:
        raise UnstorableNumber(exc.literal) from None
    except TooManyJsonKeys as exc:
        raise TooManyKeys(exc.count) from None
    except (ValueError, RecursionError):
        return


def _parsed_as_json(scope: Scope) -> bool:
    """Tell whether FastAPI parses this request's body as JSON (its own content-type rule)."""
    value = next(
        (v for name, v in scope.get("headers", []) if name == b"content-type"),
        None,
    )
    if value is None:
        return True
    message = email.message.Message()
    message["content-type"] = value.decode("latin-1")
    if message.get_content_maintype() != "application":
        return False
    subtype = message.get_content_subtype()
    return subtype == "json" or subtype.endswith("+json")


class UniqueJsonKeys:
    """Refuse JSON bodies that repeat a key within one object or hold unstorable numbers."""

    def __init__(self, app: ASGIApp) -> None:
        """Wrap the app."""
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Keep the body's chunks as they arrive; check them whole at the last one."""
        if scope["type"] != "http" or not _parsed_as_json(scope):
            await self.app(scope, receive, send)
            return
        chunks: list[bytes] = []

        async def checked() -> Message:
            message = await receive()
            if message["type"] == "http.request":
                chunks.append(message.get("body", b""))
                if not message.get("more_body", False):
                    body = b"".join(chunks)
                    chunks.clear()
                    if body:
                        check_unique_keys(body)
            return message

        await self.app(scope, checked, send)
