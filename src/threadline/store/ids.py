"""Ids of the conversation store: validation and generation, the same for every backend.

Every backend must accept and reject exactly the same tenant, caller app and session
ids, and generate ids of the same shape, so both live here. A valid id is also a
safe file name (no separator, no ``..``), which the JSON store relies on.
"""

from __future__ import annotations

import re
import secrets
import uuid
from datetime import UTC, datetime

from threadline.store.errors import InvalidIdError

ID_PATTERN = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.:-]{0,127}")
"""Allowed ids: ASCII letters/digits first, then ``_ . : -``; at most 128 chars."""

_SHOWN_CHARS = 40


def validate_id(value: object, kind: str) -> str:
    """Check that ``value`` is a safe tenant, caller app or session id.

    The checks before the regex are redundant with it on purpose: each names the
    exact problem in the error, and they keep holding if the pattern is ever widened.

    Args:
        value: The candidate id.
        kind: What the id is (``"tenant"``, ``"caller_app"``, ``"session_id"``); used
            in the error message.

    Returns:
        The id, unchanged.

    Raises:
        InvalidIdError: If the id is not a string, is empty, too long, non-ASCII,
            contains NUL, slashes, backslashes or ``..``, or does not match
            ``ID_PATTERN``.
    """
    if not isinstance(value, str):
        raise InvalidIdError(f"{kind} must be a string, got {type(value).__name__}")
    if not value:
        raise InvalidIdError(f"{kind} must not be empty")
    # Truncated repr: the value is untrusted and may be huge or hold control chars.
    shown = repr(value[:_SHOWN_CHARS]) + ("..." if len(value) > _SHOWN_CHARS else "")
    if "\x00" in value:
        raise InvalidIdError(f"{kind} must not contain NUL: {shown}")
    if not value.isascii():
        # Unicode look-alikes (e.g. fullwidth solidus, Cyrillic letters) are refused wholesale.
        raise InvalidIdError(f"{kind} must be ASCII: {shown}")
    if "/" in value or "\\" in value:
        raise InvalidIdError(f"{kind} must not contain slashes or backslashes: {shown}")
    if ".." in value:
        raise InvalidIdError(f"{kind} must not contain '..': {shown}")
    # fullmatch, not match with "$": "$" also matches before a trailing newline.
    if ID_PATTERN.fullmatch(value) is None:
        raise InvalidIdError(
            f"{kind} must match {ID_PATTERN.pattern} (1-128 chars, letter or digit first): {shown}"
        )
    return value


def is_valid_id(value: str) -> bool:
    """Whether ``validate_id`` accepts ``value`` (for filtering names, not for input)."""
    try:
        validate_id(value, "id")
    except InvalidIdError:
        return False
    return True


def new_session_id() -> str:
    """Return a fresh session id: ``sess_<yyyymmddHHMMSS>_<8 hex>`` (UTC)."""
    return f"sess_{datetime.now(UTC):%Y%m%d%H%M%S}_{secrets.token_hex(4)}"


def new_message_id() -> str:
    """Return a fresh message id: ``msg_<32 hex>``."""
    return f"msg_{uuid.uuid4().hex}"


def new_turn_id() -> str:
    """Return a fresh turn id: ``turn_<32 hex>``."""
    return f"turn_{uuid.uuid4().hex}"
