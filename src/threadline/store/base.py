"""Backend-neutral contract of the conversation store.

``ConversationStoreProtocol`` is what the graph and the API depend on, so a
PostgreSQL backend can replace the JSON-file one later. ``validate_id`` lives here
too because every backend must accept and reject exactly the same ids.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Protocol, runtime_checkable

from threadline.store.errors import InvalidIdError

if TYPE_CHECKING:
    from pathlib import Path

    from langchain_core.messages import BaseMessage

    from threadline.store.models import (
        Message,
        Role,
        Session,
        SessionCheck,
        SessionSummary,
        ThreadState,
        TurnMetadata,
    )

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


@runtime_checkable
class ConversationStoreProtocol(Protocol):
    """Public API of a conversation store. All methods are blocking and keyword-only."""

    def create_session(
        self,
        *,
        tenant: str,
        caller_app: str,
        session_id: str | None = None,
        title: str | None = None,
    ) -> Session:
        """Create an empty session, generating an id when none is given."""
        ...

    def get_session(self, *, tenant: str, caller_app: str, session_id: str) -> Session | None:
        """Return the session, or ``None`` if it does not exist."""
        ...

    def get_or_create_session(
        self,
        *,
        tenant: str,
        caller_app: str,
        session_id: str,
        title: str | None = None,
    ) -> tuple[Session, bool]:
        """Return ``(session, created)``; race-safe."""
        ...

    def list_sessions(
        self,
        *,
        tenant: str,
        caller_app: str | None = None,
        offset: int = 0,
        limit: int = 50,
    ) -> tuple[list[SessionSummary], int]:
        """Return one page of summaries (most recently updated first) and the total."""
        ...

    def update_session(
        self, *, tenant: str, caller_app: str, session_id: str, title: str
    ) -> Session:
        """Set the session title."""
        ...

    def delete_session(self, *, tenant: str, caller_app: str, session_id: str) -> bool:
        """Delete the session; ``True`` if it existed."""
        ...

    def add_message(
        self,
        *,
        tenant: str,
        caller_app: str,
        session_id: str,
        role: Role,
        content: str,
        metadata: TurnMetadata | None = None,
        turn_id: str | None = None,
    ) -> Message:
        """Append and persist one message."""
        ...

    def add_turn(
        self,
        *,
        tenant: str,
        caller_app: str,
        session_id: str,
        question: str,
        answer: str,
        metadata: TurnMetadata,
        turn_id: str | None = None,
        create: bool = False,
    ) -> tuple[Message, Message]:
        """Persist a question/answer pair in one atomic, idempotent write."""
        ...

    def get_history(
        self, *, tenant: str, caller_app: str, session_id: str, limit: int | None = None
    ) -> list[Message]:
        """Return the last ``limit`` messages in chronological order."""
        ...

    def get_langchain_messages(
        self, *, tenant: str, caller_app: str, session_id: str, limit: int | None = None
    ) -> list[BaseMessage]:
        """Return the history as LangChain messages."""
        ...

    def get_thread_state(self, *, tenant: str, caller_app: str, session_id: str) -> ThreadState:
        """Derive the per-thread state from the stored assistant turns."""
        ...

    def quarantine_session(self, *, tenant: str, caller_app: str, session_id: str) -> Path:
        """Move the session's data aside for repair (never deleting it); the id is free again."""
        ...

    def check_sessions(
        self, *, repair: bool = False, quarantine: bool = False
    ) -> list[SessionCheck]:
        """Check every session; optionally salvage damaged ones or move them aside."""
        ...
