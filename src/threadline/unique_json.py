"""JSON text that names a key twice in one object, or a number no store keeps, is refused.

`{"level": 1, "level": 2}` says two things: Python's parser keeps the last value,
others (a gateway, a WAF, the tool that wrote a catalog, a log reader) the first,
so a check made on one reading passes a value the service does not act on.

Python's parser also reads numbers JSON has not (`NaN`, `Infinity`), a literal past a
double's range (`1e999`) as infinity, and integers of any size. None of them round-trips:
PostgreSQL's jsonb refuses them, SQLite's integers and the index's payloads stop at 64
bits, the JSON a service writes back holds `NaN` that strict parsers (a browser's) refuse,
and a float of a 400-digit integer raises. So a number is read only when every store
keeps it: finite, an integer within 64 bits (RFC 7493, I-JSON, says the same of
interoperable numbers).

An object of more than `MAX_OBJECT_KEYS` keys is refused too: no object the service
reads has that many, and a model refusing unknown keys lists one problem per key (a
15 MB body of 800,000 keys cost 30 s of CPU and a 72 MB answer).

One parser for every JSON text a caller hands in: request bodies (`api.json_keys`), an
upload's `metadata` field, catalog files.
"""

from __future__ import annotations

import json
import math
from typing import Any

DUPLICATE_KEY_CODE = "duplicate_json_key"
UNSTORABLE_NUMBER_CODE = "invalid_json_number"

TOO_MANY_KEYS_CODE = "json_object_too_large"
MAX_OBJECT_KEYS = 1000
"""The most keys one JSON object may hold."""

STORABLE_INTEGERS = range(-(2**63), 2**63)
"""Integers every store keeps: 64-bit, as SQLite, PostgreSQL's bigint and the index do."""


class RepeatedJsonKey(ValueError):
    """A JSON object naming a key twice; `key` is the key (the client's text)."""

    def __init__(self, key: str) -> None:
        """Name the repeated key (shortened in the message: it is the client's text)."""
        shown = key if len(key) <= 64 else key[:64] + "..."
        super().__init__(f"the JSON names the key {shown!r} twice in one object")
        self.key = key


class UnstorableJsonNumber(ValueError):
    """A JSON number no store keeps; `literal` is how the text wrote it (shortened)."""

    def __init__(self, literal: str) -> None:
        """Name the number as written."""
        shown = literal if len(literal) <= 32 else literal[:32] + "..."
        super().__init__(
            f"the JSON holds the number {shown}, which cannot be stored: numbers must be "
            "finite, and integers within 64 bits"
        )
        self.literal = shown


class TooManyJsonKeys(ValueError):
    """A JSON object of more than `MAX_OBJECT_KEYS` keys; `count` is how many it holds."""

    def __init__(self, count: int) -> None:
        """Say how many keys the object holds."""
        super().__init__(
            f"a JSON object holds {count} keys; at most {MAX_OBJECT_KEYS} are read in one object"
        )
        self.count = count


def _refuse_constant(literal: str) -> Any:
    """Refuse `NaN`, `Infinity` and `-Infinity`, which are not JSON."""
    raise UnstorableJsonNumber(literal)


def _finite_float(literal: str) -> float:
    """Read a float literal, refusing one past a double's range (`1e999` reads as inf)."""
    number = float(literal)
    if not math.isfinite(number):
        raise UnstorableJsonNumber(literal)
    return number


_LONGEST_STORABLE_INT = len(str(-(2**63)))
"""The most characters a 64-bit integer is written with (sign included): 20."""


def _storable_int(literal: str) -> int:
    """Read an integer literal, refusing one outside 64 bits."""
    if len(literal) > _LONGEST_STORABLE_INT:
        # Before int(): past 4,300 digits it raises a ValueError of its own, which read
        # as JSON the parser could not read (400) rather than a number no store keeps.
        raise UnstorableJsonNumber(literal)
    number = int(literal)
    if number not in STORABLE_INTEGERS:
        raise UnstorableJsonNumber(literal)
    return number


def _refuse_repeats(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """Build one JSON object, refusing a key it names twice, or too many keys."""
    if len(pairs) > MAX_OBJECT_KEYS:
        raise TooManyJsonKeys(len(pairs))
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
        UnstorableJsonNumber: a number no store keeps (a `ValueError` too).
        TooManyJsonKeys: an object of more than `MAX_OBJECT_KEYS` keys (a `ValueError` too).
        ValueError: the text is not JSON (`json.JSONDecodeError`, as `json.loads`).
        RecursionError: the text is nested too deeply to parse.
    """
    return json.loads(
        text,
        object_pairs_hook=_refuse_repeats,
        parse_constant=_refuse_constant,
        parse_float=_finite_float,
        parse_int=_storable_int,
    )
