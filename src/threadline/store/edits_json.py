"""The JSON-file store's edits of stored conversations (rules in ``edits.py``).

A mixin of ``ConversationStore``: each edit is a read-modify-write of the session
file under its lock, written atomically (as a rename is), the same way a title
change is. Appends handed over by other writers wait for the lock meanwhile
(``group_commit.py``), so none is lost.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, TypeVar

from threadline.store import files
from threadline.store.errors import SessionExistsError, SessionNotFoundError
from threadline.store.layout import SessionDoc
from threadline.store.locking import locked
from threadline.store.rules import utcnow

if TYPE_CHECKING:
    from threadline.store.edits import SessionEdit
    from threadline.store.models import Session
    from threadline.store.paths import StorePaths

T = TypeVar("T")


class JsonSessionEdits:
    """Edits of whole sessions for ``ConversationStore`` (which provides the attributes)."""

    _paths: StorePaths
    lock_timeout: float

    def edit_session(
        self,
        *,
        tenant: str,
        caller_app: str,
        session_id: str,
        edit: SessionEdit[T],
        touch: bool = False,
    ) -> T:
        """Apply ``edit`` to the session under its lock and write the result atomically.

        Args:
            tenant: Tenant id.
            caller_app: Caller app id.
            session_id: Session id.
            edit: The change (``threadline.store.edits``); what it raises is raised
                and nothing is written.
            touch: Move the session's ``updated_at`` to now (a new answer does; a
                rating does not).

        Returns:
            What ``edit`` returned.

        Raises:
            InvalidIdError: If an id is invalid.
            SessionNotFoundError: If the session does not exist.
            CorruptSessionError: If the file cannot be read or parsed.
            StoreBusyError: If the session lock could not be acquired in time.
        """
        key = (tenant, caller_app, session_id)
        path = self._paths.session(*key)
        # Lock-free pre-check so a missing session leaves no directories or lock file.
        if not path.exists():
            raise SessionNotFoundError(*key)
        with locked(path, self.lock_timeout) as txn:
            session = files.read_session(path, key)
            if session is None:
                raise SessionNotFoundError(*key)
            result = edit(session)
            if touch:
                session.updated_at = max(utcnow(), session.updated_at)
            txn.commit(path, SessionDoc.from_session(session).render())
        return result

    def import_session(self, *, session: Session) -> Session:
        """Store a whole session (an import) under a new id, in one atomic write.

        Args:
            session: The validated session, its tenant and caller app already set.

        Returns:
            The stored session.

        Raises:
            InvalidIdError: If an id is invalid.
            SessionExistsError: If the id is taken (nothing is written).
            StoreBusyError: If the session lock could not be acquired in time.
        """
        path = self._paths.session(session.tenant, session.caller_app, session.id)
        with locked(path, self.lock_timeout) as txn:
            if path.exists():  # a corrupt file still occupies the id
                raise SessionExistsError(session.tenant, session.caller_app, session.id)
            txn.commit(path, SessionDoc.from_session(session).render())
        return session
