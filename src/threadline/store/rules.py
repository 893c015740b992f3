"""Rules every backend of the conversation store applies alike.

Clock, session titles, roles, paging limits and the wording of a validation error:
the JSON-file store and the PostgreSQL store import them from here so the two
cannot drift apart.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import TYPE_CHECKING, get_args

from threadline.store.models import Role, Session

if TYPE_CHECKING:
    from pydantic import ValidationError

ROLES: frozenset[str] = frozenset(get_args(Role))
"""The message roles a store accepts."""
TITLE_MAX_CHARS = 80
"""Longest title derived from a thread's first question (ellipsis included)."""


def utcnow() -> datetime:
    """Return the current time, timezone-aware UTC (every stored timestamp is)."""
    return datetime.now(UTC)


def title_from_question(question: str) -> str | None:
    """Return a session title from its first question.

    Args:
        question: The user's question.

    Returns:
        The question with whitespace collapsed, cut to ``TITLE_MAX_CHARS`` (ellipsis
        included); ``None`` if it is blank.
    """
    text = " ".join(question.split())
    if not text:
        return None
    if len(text) <= TITLE_MAX_CHARS:
        return text
    return text[: TITLE_MAX_CHARS - 1].rstrip() + "\u2026"


def new_session(tenant: str, caller_app: str, session_id: str, title: str | None) -> Session:
    """Return an empty session created now.

    Args:
        tenant: Tenant id.
        caller_app: Caller app id.
        session_id: Session id.
        title: Title, or ``None``.

    Returns:
        The session, with ``created_at`` and ``updated_at`` set to now.
    """
    now = utcnow()
    return Session(
        id=session_id,
        tenant=tenant,
        caller_app=caller_app,
        title=title,
        created_at=now,
        updated_at=now,
    )


def check_role(role: str, *, has_metadata: bool) -> None:
    """Reject a message the store cannot hold.

    Args:
        role: The message role.
        has_metadata: Whether the message carries turn metadata.

    Raises:
        ValueError: If ``role`` is not a known role, or a user message has metadata.
    """
    if role not in ROLES:
        raise ValueError(f"role must be one of {sorted(ROLES)}, got {role!r}")
    if role == "user" and has_metadata:
        raise ValueError("metadata is only allowed on assistant messages")


def check_limit(value: int | None, name: str) -> None:
    """Reject a negative ``offset`` or ``limit``.

    Args:
        value: The value; ``None`` means no limit.
        name: The parameter's name, for the error.

    Raises:
        ValueError: If ``value`` is negative.
    """
    if value is not None and value < 0:
        raise ValueError(f"{name} must be >= 0, got {value}")


def describe_error(exc: ValidationError) -> str:
    """Return a short reason for stored data that failed ``Session`` validation.

    Args:
        exc: The validation error of the whole session.

    Returns:
        ``invalid JSON ...`` or ``does not match the session schema: <where>: ...``.
    """
    errors = exc.errors(include_url=False, include_input=False)
    if any(error["type"] == "json_invalid" for error in errors):
        return f"invalid JSON (truncated or damaged): {errors[0]['msg']}"
    first = errors[0]
    where = ".".join(str(part) for part in first["loc"]) or "<root>"
    more = f" (+{len(errors) - 1} more)" if len(errors) > 1 else ""
    return f"does not match the session schema: {where}: {first['msg']}{more}"
