"""Backend-neutral contract of the conversation store.

``ConversationStoreProtocol`` is what the graph and the API depend on, so a
PostgreSQL backend can replace the JSON-file one. ``validate_id`` and ``ID_PATTERN``
are re-exported from ``ids.py``: every backend accepts and rejects the same ids.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol, TypeVar, runtime_checkable

from threadline.store.ids import ID_PATTERN, validate_id

if TYPE_CHECKING:
    from pathlib import Path

    from langchain_core.messages import BaseMessage

    from threadline.store.edits import SessionEdit
    from threadline.store.models import (
        Message,
        Role,
        Session,
        SessionCheck,
        SessionSummary,
        ThreadState,
        TurnMetadata,
    )

__all__ = ["ID_PATTERN", "ConversationStoreProtocol", "validate_id"]

T = TypeVar("T")


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

    def edit_session(
        self,
        *,
        tenant: str,
        caller_app: str,
        session_id: str,
        edit: SessionEdit[T],
        touch: bool = False,
    ) -> T:
        """Apply one edit of ``threadline.store.edits`` under the session's lock; atomic."""
        ...

    def import_session(self, *, session: Session) -> Session:
        """Store a whole session under an id not taken yet; atomic."""
        ...

    def scan_sessions(self, *, tenant: str | None = None) -> list[SessionSummary]:
        """Summaries of every session (of one tenant, or all): the conversation index's queue."""
        ...

    def fork_session(
        self,
        *,
        tenant: str,
        caller_app: str,
        session_id: str,
        at_message: int | None = None,
        fork_id: str | None = None,
    ) -> Session:
        """Create a session from the first ``at_message`` messages of another, pointing back."""
        ...

    def close_session(self, *, tenant: str, caller_app: str, session_id: str) -> Session:
        """Mark a session closed (queued for conversation indexing)."""
        ...
