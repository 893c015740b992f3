"""JSON-file backend of the conversation store (DESIGN.md section 3): the repository.

One JSON file per session at ``root/<tenant>/<caller_app>/<session_id>.json``
(``paths.py``). Every mutation is a read-modify-write under the session's lock
(``locking.py``: a separate ``<file>.lock``, never the JSON itself), and every write is
atomic: temp file in the same directory, fsync, ``os.replace``, fsync of the directory
(``files.py``). Nothing is cached in memory, so any number of store instances, threads
and processes over one directory agree.

Reads take no lock: ``os.replace`` guarantees a reader sees either the old or the new
complete file, and lock-free reads cannot be stalled by a slow writer nor create lock
files for sessions that do not exist. Every read validates the whole file against
the schema (``Session``).

Appends (``add_turn``, ``add_message``) go through the group commit of
``group_commit.py``, on the canonical line layout of ``layout.py``; checks, repairs and
quarantine of damaged files are in ``repair.py``.

Over 400 lines only by the docstrings of the public methods, the store's contract
written out once (the PostgreSQL store refers to them); the code is a third of it.
"""

from __future__ import annotations

import logging
from contextlib import suppress
from pathlib import Path
from typing import TYPE_CHECKING

from threadline.store import files
from threadline.store.edits_json import JsonSessionEdits
from threadline.store.errors import (
    CorruptSessionError,
    InvalidIdError,
    SessionExistsError,
    SessionNotFoundError,
)
from threadline.store.group_commit import Append, append
from threadline.store.ids import new_message_id, new_session_id, new_turn_id, validate_id
from threadline.store.langchain_messages import LANGCHAIN_KWARGS_KEY, to_langchain_messages
from threadline.store.layout import SessionDoc, SessionHeader
from threadline.store.lineage import forked_session
from threadline.store.locking import locked
from threadline.store.models import (
    Message,
    Role,
    Session,
    SessionCheck,
    SessionSummary,
    ThreadState,
    TurnMetadata,
)
from threadline.store.paths import QUARANTINE_DIR, StorePaths, lock_path
from threadline.store.repair import SessionRepair
from threadline.store.rules import check_limit, check_role, new_session, utcnow
from threadline.store.spool import spool_dir

if TYPE_CHECKING:
    from langchain_core.messages import BaseMessage

__all__ = ["LANGCHAIN_KWARGS_KEY", "QUARANTINE_DIR", "ConversationStore"]

_LOGGER = logging.getLogger(__name__)


class ConversationStore(JsonSessionEdits):
    """Sessions, messages and thread state in JSON files; see the module docstring.

    All methods are blocking on purpose (file locks have no asyncio support); async
    callers run them in a thread pool. Instances hold no mutable state, so one
    instance may be shared across threads.

    Attributes:
        root: The data directory holding ``<tenant>/<caller_app>/<session_id>.json``.
        lock_timeout: Seconds to wait for a session lock before ``StoreBusyError``.
    """

    def __init__(self, root: Path, *, lock_timeout: float = 10.0) -> None:
        """Create a store over ``root``; directories are created on first write.

        Args:
            root: Data directory.
            lock_timeout: Seconds to wait for a session lock.

        Raises:
            ValueError: If ``lock_timeout`` is negative.
        """
        if lock_timeout < 0:
            # Refused rather than read as 0 or, as filelock reads it, as "wait forever"
            # (a hung writer would then hang every request, not raise StoreBusyError).
            raise ValueError(f"lock_timeout must be >= 0, got {lock_timeout}")
        self.root = Path(root)
        self.lock_timeout = lock_timeout
        self._paths = StorePaths(self.root)
        self._repair = SessionRepair(self._paths, lock_timeout)

    def _require(self, path: Path, tenant: str, caller_app: str, session_id: str) -> Session:
        session = files.read_session(path, (tenant, caller_app, session_id))
        if session is None:
            raise SessionNotFoundError(tenant, caller_app, session_id)
        return session

    # ------------------------------------------------------------------ sessions

    def create_session(
        self,
        *,
        tenant: str,
        caller_app: str,
        session_id: str | None = None,
        title: str | None = None,
    ) -> Session:
        """Create and persist an empty session.

        Args:
            tenant: Tenant id.
            caller_app: Caller app id.
            session_id: Client-chosen id; generated as ``sess_<yyyymmddHHMMSS>_<8 hex>``
                when ``None``.
            title: Optional title.

        Returns:
            The new session.

        Raises:
            InvalidIdError: If an id is invalid.
            SessionExistsError: If a file for that session already exists.
            StoreBusyError: If the session lock could not be acquired in time.
        """
        sid = session_id if session_id is not None else new_session_id()
        path = self._paths.session(tenant, caller_app, sid)
        with locked(path, self.lock_timeout) as txn:
            # exists(), not a read: a corrupt file still occupies the id.
            if path.exists():
                raise SessionExistsError(tenant, caller_app, sid)
            session = new_session(tenant, caller_app, sid, title)
            txn.commit(path, SessionDoc.from_session(session).render())
        return session

    def get_session(self, *, tenant: str, caller_app: str, session_id: str) -> Session | None:
        """Read a session from disk.

        Args:
            tenant: Tenant id.
            caller_app: Caller app id.
            session_id: Session id.

        Returns:
            The session, or ``None`` if it does not exist.

        Raises:
            InvalidIdError: If an id is invalid.
            CorruptSessionError: If the file cannot be read or parsed.
        """
        path = self._paths.session(tenant, caller_app, session_id)
        return files.read_session(path, (tenant, caller_app, session_id))

    @staticmethod
    def _summary(
        path: Path, tenant: str, caller_app: str, session_id: str
    ) -> SessionSummary | None:
        """Summary of one file; a checksummed file is summarised from line 1 alone."""
        data = files.read_bytes(path)
        if data is None:
            return None
        header: Session | SessionHeader
        doc = SessionDoc.trusted(data, tenant, caller_app, session_id)
        if doc is not None:
            header, count = doc.header, doc.message_count()
        else:
            session = files.parse_session(path, data, (tenant, caller_app, session_id))
            header, count = session, len(session.messages)
        return SessionSummary(
            id=header.id,
            tenant=header.tenant,
            caller_app=header.caller_app,
            title=header.title,
            created_at=header.created_at,
            updated_at=header.updated_at,
            message_count=count,
            parent_session_id=header.parent_session_id,
            root_session_id=header.root_session_id,
            closed_at=header.closed_at,
        )

    def tenants(self) -> list[str]:
        """Return the tenants holding a directory of sessions, sorted."""
        return self._paths.tenants()

    def list_sessions(
        self,
        *,
        tenant: str,
        caller_app: str | None = None,
        offset: int = 0,
        limit: int = 50,
    ) -> tuple[list[SessionSummary], int]:
        """List sessions, most recently updated first.

        Corrupt files are logged and skipped so one bad file cannot hide a tenant's
        other sessions. This reads every session file of the scope: fine for the JSON
        backend's intended size; a database backend would page in SQL.

        Args:
            tenant: Tenant id.
            caller_app: Restrict to one caller app; ``None`` lists all of the tenant's.
            offset: Number of summaries to skip.
            limit: Maximum number of summaries to return.

        Returns:
            ``(page, total)`` where ``total`` counts all readable sessions in scope.

        Raises:
            InvalidIdError: If an id is invalid.
            ValueError: If ``offset`` or ``limit`` is negative.
        """
        validate_id(tenant, "tenant")
        check_limit(offset, "offset")
        check_limit(limit, "limit")
        if caller_app is not None:
            apps = [validate_id(caller_app, "caller_app")]
        else:
            apps = self._paths.caller_apps(tenant)

        summaries: list[SessionSummary] = []
        for app in apps:
            for sid, _file in self._paths.session_files(tenant, app):
                try:
                    path = self._paths.session(tenant, app, sid)
                    summary = self._summary(path, tenant, app, sid)
                except InvalidIdError:
                    continue  # not a file this store wrote (or a directory it must not follow)
                except CorruptSessionError as exc:
                    _LOGGER.warning("skipping session in listing: %s", exc)
                    continue
                if summary is None:
                    continue  # deleted between glob and read
                summaries.append(summary)
        # Id as tie-breaker keeps pages stable when timestamps are equal.
        summaries.sort(key=lambda s: (s.updated_at, s.caller_app, s.id), reverse=True)
        return summaries[offset : offset + limit], len(summaries)

    def update_session(
        self, *, tenant: str, caller_app: str, session_id: str, title: str
    ) -> Session:
        """Set a session's title.

        Args:
            tenant: Tenant id.
            caller_app: Caller app id.
            session_id: Session id.
            title: New title.

        Returns:
            The updated session.

        Raises:
            InvalidIdError: If an id is invalid.
            SessionNotFoundError: If the session does not exist.
            CorruptSessionError: If the file cannot be read or parsed.
            StoreBusyError: If the session lock could not be acquired in time.
        """
        path = self._paths.session(tenant, caller_app, session_id)
        # Lock-free pre-check so a missing session leaves no directories or lock file.
        if not path.exists():
            raise SessionNotFoundError(tenant, caller_app, session_id)
        with locked(path, self.lock_timeout) as txn:
            session = self._require(path, tenant, caller_app, session_id)
            session.title = title
            # Never move updated_at backwards if clocks of two writer hosts disagree.
            session.updated_at = max(utcnow(), session.updated_at)
            txn.commit(path, SessionDoc.from_session(session).render())
        return session

    def delete_session(self, *, tenant: str, caller_app: str, session_id: str) -> bool:
        """Delete a session file and its lock file.

        Works on corrupt files too, so deleting is a way out for an operator.

        Args:
            tenant: Tenant id.
            caller_app: Caller app id.
            session_id: Session id.

        Returns:
            ``True`` if the session existed.

        Raises:
            InvalidIdError: If an id is invalid.
            StoreBusyError: If the session lock could not be acquired in time.
            CorruptSessionError: If a directory stands where the file should be.
        """
        path = self._paths.session(tenant, caller_app, session_id)
        lock_file = lock_path(path)
        if not path.exists() and not lock_file.exists():
            return False  # nothing to remove; avoid creating a lock file to find nothing
        with locked(path, self.lock_timeout):
            try:
                path.unlink()
                existed = True
            except FileNotFoundError:
                existed = False
            except IsADirectoryError as exc:  # not a file: left for an operator, as reads do
                raise CorruptSessionError(path, "unreadable (Is a directory)") from exc
            # Unlinked while still held and after the JSON is gone: waiters that opened
            # the old inode see st_nlink == 0 and retry on a fresh file, and whoever
            # locks the fresh file finds the session already deleted.
            with suppress(FileNotFoundError):
                lock_file.unlink()
            with suppress(OSError):  # only if empty: a pending append keeps it
                spool_dir(path).rmdir()
            files.fsync_dir(path.parent)
        return existed

    def scan_sessions(self, *, tenant: str | None = None) -> list[SessionSummary]:
        """Summaries of every session of every tenant (the conversation index's queue).

        Corrupt files are skipped, as in ``list_sessions``.

        Args:
            tenant: Only this tenant's sessions; ``None`` scans them all.

        Returns:
            The summaries, in no particular order.
        """
        found: list[SessionSummary] = []
        for entry in self._paths.scan():
            if entry.kind != "session" or tenant not in (None, entry.tenant):
                continue
            try:
                summary = self._summary(
                    entry.path, entry.tenant, entry.caller_app, entry.session_id
                )
            except CorruptSessionError as exc:
                _LOGGER.warning("skipping session in scan: %s", exc)
                continue
            if summary is not None:
                found.append(summary)
        return found

    def fork_session(
        self,
        *,
        tenant: str,
        caller_app: str,
        session_id: str,
        at_message: int | None = None,
        fork_id: str | None = None,
    ) -> Session:
        """Create a session from the first messages of another (see ``lineage.py``).

        Args:
            tenant: Tenant id.
            caller_app: Caller app id (the fork stays in it).
            session_id: The session forked from.
            at_message: Keep the messages before this index; ``None`` keeps all.
            fork_id: The fork's id; generated when ``None``.

        Returns:
            The new session.

        Raises:
            InvalidIdError: If an id is invalid.
            SessionNotFoundError: If the source session does not exist.
            SessionExistsError: If ``fork_id`` is taken.
            ValueError: If ``at_message`` is out of range.
        """
        source = self._require(
            self._paths.session(tenant, caller_app, session_id), tenant, caller_app, session_id
        )
        fork = forked_session(source, fork_id or new_session_id(), at_message)
        path = self._paths.session(tenant, caller_app, fork.id)
        with locked(path, self.lock_timeout) as txn:
            if path.exists():
                raise SessionExistsError(tenant, caller_app, fork.id)
            txn.commit(path, SessionDoc.from_session(fork).render())
        return fork

    def close_session(self, *, tenant: str, caller_app: str, session_id: str) -> Session:
        """Mark a session closed now (``updated_at`` is left as it is).

        Args:
            tenant: Tenant id.
            caller_app: Caller app id.
            session_id: Session id.

        Returns:
            The closed session.

        Raises:
            InvalidIdError: If an id is invalid.
            SessionNotFoundError: If the session does not exist.
            StoreBusyError: If the session lock could not be acquired in time.
        """
        path = self._paths.session(tenant, caller_app, session_id)
        if not path.exists():
            raise SessionNotFoundError(tenant, caller_app, session_id)
        with locked(path, self.lock_timeout) as txn:
            session = self._require(path, tenant, caller_app, session_id)
            session.closed_at = utcnow()
            txn.commit(path, SessionDoc.from_session(session).render())
        return session

    # ------------------------------------------------------------------ messages

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
        """Append one message and persist it immediately.

        Args:
            tenant: Tenant id.
            caller_app: Caller app id.
            session_id: Session id.
            role: ``"user"`` or ``"assistant"``.
            content: Message text.
            metadata: Turn metadata; assistant messages only.
            turn_id: Optional id grouping a question with its answer.

        Returns:
            The stored message.

        Raises:
            ValueError: If ``role`` is invalid or a user message carries metadata.
            InvalidIdError: If an id is invalid.
            SessionNotFoundError: If the session does not exist.
            CorruptSessionError: If the file cannot be read or parsed.
            StoreBusyError: If the session lock could not be acquired in time.
        """
        check_role(role, has_metadata=metadata is not None)
        path = self._paths.session(tenant, caller_app, session_id)
        # Lock-free pre-check so a missing session leaves no directories or lock file.
        if not path.exists():
            raise SessionNotFoundError(tenant, caller_app, session_id)
        message = Message(
            id=new_message_id(),
            role=role,
            content=content,
            created_at=utcnow(),
            turn_id=turn_id,
            metadata=metadata,
        )
        op = Append(kind="message", messages=[message])
        key = (tenant, caller_app, session_id)
        (stored,) = append(path, key, op, lock_timeout=self.lock_timeout)
        return stored

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
        """Persist a user question and the assistant answer in one atomic write.

        Idempotent by ``turn_id``: if both messages of that turn are already stored
        they are returned and nothing is written, so a retried persist never
        duplicates. If only the user message of the turn exists (it was stored
        earlier with ``add_message``), only the answer is appended. The stored
        messages win over the arguments of a retry.

        Args:
            tenant: Tenant id.
            caller_app: Caller app id.
            session_id: Session id.
            question: The user's question.
            answer: The assistant's answer.
            metadata: Turn metadata for the assistant message.
            turn_id: Idempotency key; generated when ``None``.
            create: Create the session if missing (client-chosen thread ids).

        Returns:
            ``(user_message, assistant_message)``.

        Raises:
            InvalidIdError: If an id is invalid.
            SessionNotFoundError: If the session is missing and ``create`` is false.
            CorruptSessionError: If the file cannot be read or parsed.
            StoreError: If the turn id is stored with an answer but no question.
            StoreBusyError: If the session lock could not be acquired in time.
        """
        path = self._paths.session(tenant, caller_app, session_id)
        if not create and not path.exists():
            raise SessionNotFoundError(tenant, caller_app, session_id)
        # Prepared (and validated) before taking the lock, so it can also be handed over.
        now = utcnow()
        turn = turn_id if turn_id is not None else new_turn_id()
        user = Message(
            id=new_message_id(), role="user", content=question, created_at=now, turn_id=turn
        )
        assistant = Message(
            id=new_message_id(),
            role="assistant",
            content=answer,
            created_at=now,
            turn_id=turn,
            metadata=metadata,
        )
        op = Append(
            kind="turn",
            messages=[user, assistant],
            create=create,
            turn_id=turn_id,
            question=question,
        )
        key = (tenant, caller_app, session_id)
        user_msg, assistant_msg = append(path, key, op, lock_timeout=self.lock_timeout)
        return user_msg, assistant_msg

    def get_history(
        self, *, tenant: str, caller_app: str, session_id: str, limit: int | None = None
    ) -> list[Message]:
        """Return the most recent messages in chronological order.

        Args:
            tenant: Tenant id.
            caller_app: Caller app id.
            session_id: Session id.
            limit: Keep only the last ``limit`` messages; ``None`` keeps all.

        Returns:
            The messages, oldest first.

        Raises:
            ValueError: If ``limit`` is negative.
            InvalidIdError: If an id is invalid.
            SessionNotFoundError: If the session does not exist.
            CorruptSessionError: If the file cannot be read or parsed.
        """
        check_limit(limit, "limit")
        path = self._paths.session(tenant, caller_app, session_id)
        messages = self._require(path, tenant, caller_app, session_id).messages
        if limit is None:
            return messages
        # Explicit: messages[-0:] would return everything.
        return messages[-limit:] if limit else []

    def get_langchain_messages(
        self, *, tenant: str, caller_app: str, session_id: str, limit: int | None = None
    ) -> list[BaseMessage]:
        """Return the history as ``HumanMessage``/``AIMessage`` objects.

        See ``langchain_messages.to_langchain_messages`` for the conversion.

        Args:
            tenant: Tenant id.
            caller_app: Caller app id.
            session_id: Session id.
            limit: Keep only the last ``limit`` messages; ``None`` keeps all.

        Returns:
            The LangChain messages, oldest first.

        Raises:
            ValueError: If ``limit`` is negative.
            InvalidIdError: If an id is invalid.
            SessionNotFoundError: If the session does not exist.
            CorruptSessionError: If the file cannot be read or parsed.
        """
        return to_langchain_messages(
            self.get_history(
                tenant=tenant, caller_app=caller_app, session_id=session_id, limit=limit
            )
        )

    def get_thread_state(self, *, tenant: str, caller_app: str, session_id: str) -> ThreadState:
        """Derive the thread state from the stored assistant turns.

        ``last_outline`` comes from the most recent assistant turn whose outline is
        non-empty, so an answer without outline (e.g. a tool answer) does not make
        "section 2" unresolvable. ``last_doc_ids``, ``last_titles`` and
        ``last_search_query`` come together from the most recent assistant turn that
        has a search query or doc ids, so they always describe the same retrieval.
        ``updated_at`` is the time of the newest turn that contributed.

        Args:
            tenant: Tenant id.
            caller_app: Caller app id.
            session_id: Session id.

        Returns:
            The thread state; empty for a session without such turns.

        Raises:
            InvalidIdError: If an id is invalid.
            SessionNotFoundError: If the session does not exist.
            CorruptSessionError: If the file cannot be read or parsed.
        """
        path = self._paths.session(tenant, caller_app, session_id)
        return self._require(path, tenant, caller_app, session_id).thread_state()

    # ------------------------------------------------------------------ damaged files

    def quarantine_session(self, *, tenant: str, caller_app: str, session_id: str) -> Path:
        """Move a session file aside (typically a damaged one); never deletes it.

        The file goes to ``<root>/.quarantine/<tenant>/<caller_app>/<id>.<utc
        timestamp>.json`` and the session id is free again. Healthy files are moved
        too: this is an operator's decision.

        Args:
            tenant: Tenant id.
            caller_app: Caller app id.
            session_id: Session id.

        Returns:
            The file's new path.

        Raises:
            InvalidIdError: If an id is invalid.
            SessionNotFoundError: If there is no file for that session.
            StoreBusyError: If the session lock could not be acquired in time.
        """
        return self._repair.quarantine_session(
            tenant=tenant, caller_app=caller_app, session_id=session_id
        )

    def check_sessions(
        self, *, repair: bool = False, quarantine: bool = False
    ) -> list[SessionCheck]:
        """Check every session file of the store; optionally repair or quarantine.

        Every ``<tenant>/<caller_app>/<id>.json`` is validated like a read. A damaged
        one is reported ``corrupt`` with the reason. With ``repair``, the session is
        rebuilt from what still validates (the session fields and the intact
        messages, in order; for a truncated file, the messages before the cut) and
        written back atomically, the damaged original moved to the quarantine first.
        With ``quarantine``, a file that is still damaged is moved aside (see
        ``quarantine_session``). Temp files left by writers that died are reported as
        ``stale_temp`` (they are never read as sessions) and removed by ``repair``,
        which also sweeps hand-over files of dead writers past their age limit (see
        ``spool.py``). Healthy files are never rewritten.

        Args:
            repair: Try to salvage damaged files and remove leftovers of dead writers.
            quarantine: Move files that remain damaged aside.

        Returns:
            One ``SessionCheck`` per file, sorted by tenant, caller app and session id.

        Raises:
            OSError: If a repair or a move itself fails (e.g. a read-only disk);
                damaged or busy sessions are reported, not raised.
        """
        return self._repair.check_sessions(repair=repair, quarantine=quarantine)
