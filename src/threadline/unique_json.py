"""JSON text that names a key twice in one object is refused, wherever it is read.

`{"level": 1, "level": 2}` says two things: Python's parser keeps the last value,
others (a gateway, a WAF, the tool that wrote a catalog, a log reader) the first,
so a check made on one reading passes a value the service does not act on. One
parser for every JSON text a caller hands in: request bodies (`api.json_keys`), an
upload's `metadata` field, catalog files.
"""

from __future__ import annotations

import json
from typing import Any

DUPLICATE_KEY_CODE = "duplicate_json_key"


class RepeatedJsonKey(ValueError):
    """A JSON object naming a key twice; `key` is the key (the client's text)."""

    def __init__(self, key: str) -> None:
        """Name the repeated key (shortened in the message: it is the client's text)."""
        shown = key if len(key) <= 64 else key[:64] + "..."
        super().__init__(f"the JSON names the key {shown!r} twice in one object")
        self.key = key


def _refuse_repeats(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """Build one JSON object, refusing a key it names twice."""
    seen: dict[str, Any] = {}
    for key, value in pairs:
        if key in seen:
            raise RepeatedJsonKey(key)
        seen[key] = value
    return seen


def loads_unique(text: str | bytes) -> Any:
    """Parse JSON like `json.loads`, refusing an object that repeats a key.

    Raises:
        RepeatedJsonKey: an object names a key twice (a `ValueError`: catch it first
            where invalid JSON is answered otherwise).
        ValueError: the text is not JSON (`json.JSONDecodeError`, as `json.loads`).
        RecursionError: the text is nested too deeply to parse.
    """
    return json.loads(text, object_pairs_hook=_refuse_repeats)
