"""JSON-file backend of the conversation store (DESIGN.md section 3).

One JSON file per session at ``root/<tenant>/<caller_app>/<session_id>.json``. Every
mutation is a read-modify-write under a ``filelock`` held on a separate
``<file>.lock`` (never on the JSON itself, which ``os.replace`` swaps out), and every
write is atomic: temp file in the same directory, fsync, ``os.replace``, fsync of the
directory. Nothing is cached in memory, so any number of store instances, threads
and processes over one directory agree.

Reads take no lock: ``os.replace`` guarantees a reader sees either the old or the new
complete file, and lock-free reads cannot be stalled by a slow writer nor create lock
files for sessions that do not exist.
"""

from __future__ import annotations

import logging
import os
import secrets
import tempfile
import uuid
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from datetime import UTC, datetime
from pathlib import Path
from typing import get_args

from filelock import FileLock, Timeout
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage
from pydantic import ValidationError

from threadline.store.base import validate_id
from threadline.store.errors import (
    CorruptSessionError,
    InvalidIdError,
    SessionExistsError,
    SessionNotFoundError,
    StoreBusyError,
    StoreError,
)
from threadline.store.models import (
    SCHEMA_VERSION,
    Message,
    Role,
    Session,
    SessionSummary,
    ThreadState,
    TurnMetadata,
)

_LOGGER = logging.getLogger(__name__)

_ROLES: frozenset[str] = frozenset(get_args(Role))
_TITLE_MAX_CHARS = 80
_JSON_SUFFIX = ".json"
_LOCK_SUFFIX = ".lock"
LANGCHAIN_KWARGS_KEY = "threadline"
"""Key under ``additional_kwargs`` holding turn id, timestamp and turn metadata."""


def _utcnow() -> datetime:
    return datetime.now(UTC)


def _new_session_id() -> str:
    return f"sess_{_utcnow():%Y%m%d%H%M%S}_{secrets.token_hex(4)}"


def _new_message_id() -> str:
    return f"msg_{uuid.uuid4().hex}"


def _new_turn_id() -> str:
    return f"turn_{uuid.uuid4().hex}"


def _title_from_question(question: str) -> str | None:
    """Collapse whitespace and cut to ``_TITLE_MAX_CHARS`` (ellipsis included)."""
    text = " ".join(question.split())
    if not text:
        return None
    if len(text) <= _TITLE_MAX_CHARS:
        return text
    return text[: _TITLE_MAX_CHARS - 1].rstrip() + "\u2026"


def _fsync_dir(directory: Path) -> None:
    """Persist directory entries (a rename, create or unlink) across a crash."""
    flags = os.O_RDONLY | getattr(os, "O_DIRECTORY", 0)
    try:
        fd = os.open(directory, flags)
    except OSError:
        # Windows cannot open directories; its rename is already durable enough there.
        return
    try:
        os.fsync(fd)
    except OSError:
        # Some filesystems (and Windows) refuse fsync on directories; the data file
        # itself was fsynced, which is the part that matters most.
        pass
    finally:
        os.close(fd)


def _atomic_write(path: Path, data: bytes) -> None:
    """Replace ``path`` with ``data`` so readers see the old or new file, never a mix."""
    # Same directory as the target so os.replace is a rename, not a cross-device copy.
    # The leading dot and .tmp suffix keep temp files out of "*.json" listings.
    fd, tmp_name = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp_name, path)
    except BaseException:
        with suppress(FileNotFoundError):
            os.unlink(tmp_name)
        raise
    _fsync_dir(path.parent)


def _check_limit(value: int | None, name: str) -> None:
    if value is not None and value < 0:
        raise ValueError(f"{name} must be >= 0, got {value}")


class ConversationStore:
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
            # filelock treats a negative timeout as "wait forever": a hung writer
            # would then hang every request instead of surfacing StoreBusyError.
            raise ValueError(f"lock_timeout must be >= 0, got {lock_timeout}")
        self.root = Path(root)
        self.lock_timeout = lock_timeout
        self._root_resolved = self.root.resolve()

    # ------------------------------------------------------------------ paths and I/O

    def _session_path(self, tenant: str, caller_app: str, session_id: str) -> Path:
        validate_id(tenant, "tenant")
        validate_id(caller_app, "caller_app")
        validate_id(session_id, "session_id")
        path = self.root / tenant / caller_app / f"{session_id}{_JSON_SUFFIX}"
        # Defence in depth: the id checks already forbid traversal, but a symlinked
        # tenant or app directory could still point outside the data directory.
        if not path.resolve().is_relative_to(self._root_resolved):
            raise InvalidIdError(f"session path for {session_id!r} escapes the data directory")
        return path

    @staticmethod
    def _lock_path(path: Path) -> Path:
        return path.with_name(path.name + _LOCK_SUFFIX)

    def _ensure_dir(self, directory: Path) -> None:
        if directory.is_dir():
            return
        missing: list[Path] = []
        probe = directory
        while not probe.exists():
            missing.append(probe)
            probe = probe.parent
        directory.mkdir(parents=True, exist_ok=True)
        # A new file in a new directory is only durable once each new entry is.
        for created in reversed(missing):
            _fsync_dir(created.parent)

    @contextmanager
    def _locked(self, path: Path) -> Iterator[None]:
        """Hold the session's lock file for a read-modify-write."""
        self._ensure_dir(path.parent)
        lock_path = self._lock_path(path)
        # A fresh FileLock per operation: instances are not shared between threads,
        # and flock on separate descriptors excludes threads of one process as well.
        lock = FileLock(lock_path, timeout=self.lock_timeout)
        try:
            lock.acquire()
        except Timeout as exc:
            raise StoreBusyError(lock_path, self.lock_timeout) from exc
        try:
            yield
        finally:
            lock.release()

    def _read(self, path: Path, tenant: str, caller_app: str, session_id: str) -> Session | None:
        try:
            data = path.read_bytes()
        except FileNotFoundError:
            return None
        except OSError as exc:
            raise CorruptSessionError(path, f"unreadable ({exc.strerror or exc})") from exc
        try:
            session = Session.model_validate_json(data)
        except ValidationError as exc:
            raise CorruptSessionError(
                path, f"invalid JSON or schema ({exc.error_count()} errors)"
            ) from exc
        if session.schema_version != SCHEMA_VERSION:
            raise CorruptSessionError(
                path,
                f"schema_version {session.schema_version}, this code reads {SCHEMA_VERSION}",
            )
        # A file copied or moved under another tenant must not be served from there.
        if (session.tenant, session.caller_app, session.id) != (tenant, caller_app, session_id):
            raise CorruptSessionError(path, "stored tenant/caller_app/id do not match its path")
        return session

    def _require(self, path: Path, tenant: str, caller_app: str, session_id: str) -> Session:
        session = self._read(path, tenant, caller_app, session_id)
        if session is None:
            raise SessionNotFoundError(tenant, caller_app, session_id)
        return session

    @staticmethod
    def _write(path: Path, session: Session) -> None:
        _atomic_write(path, session.model_dump_json(indent=2).encode("utf-8"))

    @staticmethod
    def _new_session(tenant: str, caller_app: str, session_id: str, title: str | None) -> Session:
        now = _utcnow()
        return Session(
            id=session_id,
            tenant=tenant,
            caller_app=caller_app,
            title=title,
            created_at=now,
            updated_at=now,
        )

    @staticmethod
    def _touch(session: Session) -> None:
        # Never move updated_at backwards if clocks of two writer hosts disagree.
        session.updated_at = max(_utcnow(), session.updated_at)

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
        sid = session_id if session_id is not None else _new_session_id()
        path = self._session_path(tenant, caller_app, sid)
        with self._locked(path):
            # exists(), not _read(): a corrupt file still occupies the id.
            if path.exists():
                raise SessionExistsError(tenant, caller_app, sid)
            session = self._new_session(tenant, caller_app, sid, title)
            self._write(path, session)
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
        path = self._session_path(tenant, caller_app, session_id)
        return self._read(path, tenant, caller_app, session_id)

    def get_or_create_session(
        self,
        *,
        tenant: str,
        caller_app: str,
        session_id: str,
        title: str | None = None,
    ) -> tuple[Session, bool]:
        """Return the session, creating it first if missing.

        Args:
            tenant: Tenant id.
            caller_app: Caller app id.
            session_id: Session id.
            title: Title used only when the session is created.

        Returns:
            ``(session, created)``; exactly one concurrent caller sees ``created=True``.

        Raises:
            InvalidIdError: If an id is invalid.
            CorruptSessionError: If an existing file cannot be read or parsed.
            StoreBusyError: If the session lock could not be acquired in time.
        """
        path = self._session_path(tenant, caller_app, session_id)
        # Lock-free fast path: the common case is an existing session.
        existing = self._read(path, tenant, caller_app, session_id)
        if existing is not None:
            return existing, False
        with self._locked(path):
            # Re-check under the lock: another writer may have created it meanwhile.
            existing = self._read(path, tenant, caller_app, session_id)
            if existing is not None:
                return existing, False
            session = self._new_session(tenant, caller_app, session_id, title)
            self._write(path, session)
        return session, True

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
        _check_limit(offset, "offset")
        _check_limit(limit, "limit")
        tenant_dir = self.root / tenant
        if caller_app is not None:
            apps = [validate_id(caller_app, "caller_app")]
        elif tenant_dir.is_dir():
            apps = sorted(entry.name for entry in tenant_dir.iterdir() if entry.is_dir())
        else:
            apps = []

        summaries: list[SessionSummary] = []
        for app in apps:
            app_dir = tenant_dir / app
            if not app_dir.is_dir():
                continue
            for file in app_dir.glob(f"*{_JSON_SUFFIX}"):
                sid = file.name[: -len(_JSON_SUFFIX)]
                try:
                    path = self._session_path(tenant, app, sid)
                    session = self._read(path, tenant, app, sid)
                except InvalidIdError:
                    continue  # not a file this store wrote (or a directory it must not follow)
                except CorruptSessionError as exc:
                    _LOGGER.warning("skipping session in listing: %s", exc)
                    continue
                if session is None:
                    continue  # deleted between glob and read
                summaries.append(
                    SessionSummary(
                        id=session.id,
                        tenant=session.tenant,
                        caller_app=session.caller_app,
                        title=session.title,
                        created_at=session.created_at,
                        updated_at=session.updated_at,
                        message_count=len(session.messages),
                    )
                )
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
        path = self._session_path(tenant, caller_app, session_id)
        # Lock-free pre-check so a missing session leaves no directories or lock file.
        if not path.exists():
            raise SessionNotFoundError(tenant, caller_app, session_id)
        with self._locked(path):
            session = self._require(path, tenant, caller_app, session_id)
            session.title = title
            self._touch(session)
            self._write(path, session)
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
        """
        path = self._session_path(tenant, caller_app, session_id)
        lock_path = self._lock_path(path)
        if not path.exists() and not lock_path.exists():
            return False  # nothing to remove; avoid creating a lock file to find nothing
        with self._locked(path):
            try:
                path.unlink()
                existed = True
            except FileNotFoundError:
                existed = False
            # Unlinked while still held and after the JSON is gone: filelock waiters
            # that opened the old inode see st_nlink == 0 and retry on a fresh file,
            # and whoever locks the fresh file finds the session already deleted.
            with suppress(FileNotFoundError):
                lock_path.unlink()
            _fsync_dir(path.parent)
        return existed

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
        if role not in _ROLES:
            raise ValueError(f"role must be one of {sorted(_ROLES)}, got {role!r}")
        if role == "user" and metadata is not None:
            raise ValueError("metadata is only allowed on assistant messages")
        path = self._session_path(tenant, caller_app, session_id)
        # Lock-free pre-check so a missing session leaves no directories or lock file.
        if not path.exists():
            raise SessionNotFoundError(tenant, caller_app, session_id)
        with self._locked(path):
            session = self._require(path, tenant, caller_app, session_id)
            message = Message(
                id=_new_message_id(),
                role=role,
                content=content,
                created_at=_utcnow(),
                turn_id=turn_id,
                metadata=metadata,
            )
            session.messages.append(message)
            self._touch(session)
            self._write(path, session)
        return message

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
        path = self._session_path(tenant, caller_app, session_id)
        if not create and not path.exists():
            raise SessionNotFoundError(tenant, caller_app, session_id)
        with self._locked(path):
            session = self._read(path, tenant, caller_app, session_id)
            if session is None:
                if not create:
                    raise SessionNotFoundError(tenant, caller_app, session_id)
                session = self._new_session(tenant, caller_app, session_id, None)

            user_msg: Message | None = None
            if turn_id is not None:
                same_turn = [m for m in session.messages if m.turn_id == turn_id]
                user_msg = next((m for m in same_turn if m.role == "user"), None)
                stored_answer = next((m for m in same_turn if m.role == "assistant"), None)
                if stored_answer is not None:
                    if user_msg is None:
                        raise StoreError(
                            f"turn {turn_id!r} of session {session_id!r} has an answer "
                            "but no question"
                        )
                    return user_msg, stored_answer
            else:
                turn_id = _new_turn_id()

            now = _utcnow()
            if user_msg is None:
                user_msg = Message(
                    id=_new_message_id(),
                    role="user",
                    content=question,
                    created_at=now,
                    turn_id=turn_id,
                )
                session.messages.append(user_msg)
            assistant_msg = Message(
                id=_new_message_id(),
                role="assistant",
                content=answer,
                created_at=now,
                turn_id=turn_id,
                metadata=metadata,
            )
            session.messages.append(assistant_msg)
            if session.title is None:
                session.title = _title_from_question(question)
            self._touch(session)
            self._write(path, session)
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
        _check_limit(limit, "limit")
        path = self._session_path(tenant, caller_app, session_id)
        messages = self._require(path, tenant, caller_app, session_id).messages
        if limit is None:
            return messages
        # Explicit: messages[-0:] would return everything.
        return messages[-limit:] if limit else []

    def get_langchain_messages(
        self, *, tenant: str, caller_app: str, session_id: str, limit: int | None = None
    ) -> list[BaseMessage]:
        """Return the history as ``HumanMessage``/``AIMessage`` objects.

        Each message keeps the stored id as ``id``. The turn id, the timestamp and
        (for answers) the turn metadata sit under
        ``additional_kwargs["threadline"]``, one namespaced key so provider
        integrations that read well-known keys such as ``name`` are not affected.

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
        converted: list[BaseMessage] = []
        for message in self.get_history(
            tenant=tenant, caller_app=caller_app, session_id=session_id, limit=limit
        ):
            extra = {
                LANGCHAIN_KWARGS_KEY: {
                    "turn_id": message.turn_id,
                    "created_at": message.created_at.isoformat(),
                    "metadata": (
                        message.metadata.model_dump(mode="json")
                        if message.metadata is not None
                        else None
                    ),
                }
            }
            if message.role == "user":
                converted.append(
                    HumanMessage(content=message.content, id=message.id, additional_kwargs=extra)
                )
            else:
                converted.append(
                    AIMessage(content=message.content, id=message.id, additional_kwargs=extra)
                )
        return converted

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
        path = self._session_path(tenant, caller_app, session_id)
        session = self._require(path, tenant, caller_app, session_id)
        outline_msg: Message | None = None
        search_msg: Message | None = None
        for message in reversed(session.messages):
            meta = message.metadata
            if message.role != "assistant" or meta is None:
                continue
            if outline_msg is None and meta.outline:
                outline_msg = message
            if search_msg is None and (meta.search_query or meta.doc_ids):
                search_msg = message
            if outline_msg is not None and search_msg is not None:
                break

        state = ThreadState()
        if outline_msg is not None and outline_msg.metadata is not None:
            state.last_outline = [item.model_copy() for item in outline_msg.metadata.outline]
        if search_msg is not None and search_msg.metadata is not None:
            state.last_doc_ids = list(search_msg.metadata.doc_ids)
            state.last_titles = list(search_msg.metadata.titles)
            state.last_search_query = search_msg.metadata.search_query
        contributors = [m.created_at for m in (outline_msg, search_msg) if m is not None]
        state.updated_at = max(contributors) if contributors else None
        return state
