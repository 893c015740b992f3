"""Domain errors raised by the conversation store.

The API layer maps these to HTTP responses (for example ``StoreBusyError`` to a
retryable 503), so they carry the facts a caller needs and nothing backend-specific
beyond an optional file path for operators.
"""

from __future__ import annotations

from pathlib import Path


class StoreError(Exception):
    """Base class of every error the conversation store raises."""


class InvalidIdError(StoreError, ValueError):
    """A tenant, caller app or session id failed validation.

    Also a ``ValueError`` so generic input-validation handlers catch it.
    """


class SessionNotFoundError(StoreError):
    """The addressed session does not exist."""

    def __init__(self, tenant: str, caller_app: str, session_id: str) -> None:
        """Build the error for one session key.

        Args:
            tenant: Tenant id of the missing session.
            caller_app: Caller app id of the missing session.
            session_id: Id of the missing session.
        """
        super().__init__(f"session {session_id!r} not found for {tenant!r}/{caller_app!r}")
        self.tenant = tenant
        self.caller_app = caller_app
        self.session_id = session_id


class SessionExistsError(StoreError):
    """A session with the requested id already exists."""

    def __init__(self, tenant: str, caller_app: str, session_id: str) -> None:
        """Build the error for one session key.

        Args:
            tenant: Tenant id of the existing session.
            caller_app: Caller app id of the existing session.
            session_id: Id of the existing session.
        """
        super().__init__(f"session {session_id!r} already exists for {tenant!r}/{caller_app!r}")
        self.tenant = tenant
        self.caller_app = caller_app
        self.session_id = session_id


class StoreBusyError(StoreError):
    """The session lock could not be acquired in time; the operation may be retried."""

    retryable: bool = True

    def __init__(self, lock_path: Path | str, timeout: float) -> None:
        """Build the error for one lock file.

        Args:
            lock_path: The lock file that stayed held (for PostgreSQL, a description of
                the row lock or connection that could not be had).
            timeout: Seconds waited before giving up.
        """
        super().__init__(f"session lock {lock_path} still held after {timeout:g}s; retry later")
        self.lock_path = lock_path
        self.timeout = timeout


class CorruptSessionError(StoreError):
    """A session file is unreadable, not valid JSON, or does not match the schema.

    The store never renames or repairs such a file by itself: an operator decides.
    """

    def __init__(self, path: Path, reason: str) -> None:
        """Build the error for one session file.

        Args:
            path: The offending session file.
            reason: Short description of what is wrong with it.
        """
        super().__init__(f"corrupt session file {path}: {reason}")
        self.path = path
        self.reason = reason


class MessageNotFoundError(StoreError):
    """The addressed message is not in the session."""

    def __init__(self, session_id: str, message_id: str) -> None:
        """Build the error for one message of one session.

        Args:
            session_id: The session searched.
            message_id: The id not found in it.
        """
        super().__init__(f"message {message_id!r} not found in session {session_id!r}")
        self.session_id = session_id
        self.message_id = message_id


class NotAnAnswerError(StoreError):
    """The operation needs an assistant answer, and the message is something else."""


class TurnConflictError(StoreError):
    """The session changed under the operation (e.g. a newer question arrived); retry."""
