"""Text every store and index can keep: no NUL character, no lone surrogate.

PostgreSQL's text and JSONB refuse NUL characters, and a lone surrogate (which JSON
and YAML escapes can spell) is not Unicode at all: no UTF-8 file, database or index
holds it. Such text is refused where it comes in, with a 4xx, rather than failing a
write with a 500 (on one backend only, for NUL).
"""

from __future__ import annotations

from typing import Annotated

from pydantic import AfterValidator


def unstorable_text(value: object, where: str = "") -> str | None:
    """Say where a string of a value (nested in lists and dicts) cannot be stored, or None.

    Args:
        value: A string, or lists and dicts holding strings.
        where: The value's place, for the message.

    Returns:
        `<where>: <why>`, or None when every string can be stored.
    """
    if isinstance(value, str):
        if "\x00" in value:
            return f"{where or 'text'}: contains a NUL character"
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            return f"{where or 'text'}: is not valid Unicode (a lone surrogate)"
        return None
    items = (
        value.items()
        if isinstance(value, dict)
        else enumerate(value)
        if isinstance(value, list)
        else ()
    )
    for key, item in items:
        found = unstorable_text(key, f"{where}.key") if isinstance(key, str) else None
        found = found or unstorable_text(item, f"{where}.{key}" if where else str(key))
        if found:
            return found
    return None


def storable(text: str) -> str:
    """Return the text, or refuse one no store can keep (a pydantic validator).

    Raises:
        ValueError: naming what is wrong (NUL, lone surrogate).
    """
    problem = unstorable_text(text)
    if problem:
        raise ValueError(problem)
    return text


StorableText = Annotated[str, AfterValidator(storable)]
"""A request's text that is stored or searched with (a 422 `validation_error` otherwise).

Not a schema `pattern`: the API's schema-driven tests would have to generate strings
of a field's exact maximum length through the regex, which is too slow; the refusal
is documented in the README and the error names the rule."""
