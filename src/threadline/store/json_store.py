"""JSON-file backend of the conversation store (DESIGN.md section 3).

One JSON file per session at ``root/<tenant>/<caller_app>/<session_id>.json``. Every
mutation is a read-modify-write under a ``filelock`` held on a separate
``<file>.lock`` (never on the JSON itself, which ``os.replace`` swaps out), and every
write is atomic: temp file in the same directory, fsync, ``os.replace``, fsync of the
directory. Nothing is cached in memory, so any number of store instances, threads
and processes over one directory agree.

Reads take no lock: ``os.replace`` guarantees a reader sees either the old or the new
complete file, and lock-free reads cannot be stalled by a slow writer nor create lock
files for sessions that do not exist. Every read validates the whole file against
the schema (``Session``).

Appends are cheap, without giving up any of that:

- The file is written in a canonical line layout (``layout.py``): line 1 is the
  session without its messages plus the length and CRC-32 of the message lines,
  then one message per line. Under the lock a writer parses line 1 only and checks
  the length and checksum; a match proves the lines are byte for byte what this
  store last wrote from validated messages, so the new lines are spliced in: a
  memory copy and a checksum instead of parsing and re-serialising the history
  (which made a long session quadratic). Anything else (older indented files,
  hand edits, damage) is validated in full first, as before: a damaged file raises
  ``CorruptSessionError``, a valid one is rewritten in the canonical layout.
- Group commit (``spool.py``): a writer that finds the lock taken hands its
  prepared lines to the holder through an op file, and the holder writes all
  pending appends with one rewrite and one set of fsyncs. The append path takes the
  same lock with ``flock`` on a descriptor it keeps (``_AppendLock``), so a writer
  polling for it costs one system call per try.

Durability. The data is fsynced before the rename, inside the lock. The rename is
made durable by an fsync of the directory; when only the caller's own append was
written, that fsync happens right after the lock is released (a later writer's
version contains this one's data, so whichever directory fsync comes last covers
both), and before the call returns. Appends handed over by other writers are
reported written only after the directory fsync. Dropping the directory fsync
would not risk a torn file, only the last acknowledged turns on power loss; it
costs about as much as the file fsync and is kept.

Damaged files are never modified behind the operator's back: reading one raises
``CorruptSessionError`` and ``check_sessions`` reports it; only an explicit repair or
quarantine touches it, and neither deletes anything (the damaged bytes go to
``root/.quarantine/``).
"""

from __future__ import annotations

import logging
import os
import secrets
import tempfile
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from datetime import UTC, datetime
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, get_args

from filelock import FileLock, Timeout
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
from threadline.store.layout import (
    SessionDoc,
    SessionHeader,
    Unsalvageable,
    describe_error,
    dump_message,
    salvage,
)
from threadline.store.models import (
    SCHEMA_VERSION,
    Message,
    Role,
    Session,
    SessionCheck,
    SessionSummary,
    ThreadState,
    TurnMetadata,
)
from threadline.store.spool import (
    SPOOL_SUFFIX,
    OpKind,
    SpooledOp,
    Ticket,
    claim_pending,
    encode_op,
    report,
    spool_dir,
    sweep,
)

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows
    fcntl = None  # type: ignore[assignment]

if TYPE_CHECKING:
    from langchain_core.messages import BaseMessage

_LOGGER = logging.getLogger(__name__)

_ROLES: frozenset[str] = frozenset(get_args(Role))
_TITLE_MAX_CHARS = 80
_JSON_SUFFIX = ".json"
_LOCK_SUFFIX = ".lock"
_TMP_SUFFIX = ".tmp"
QUARANTINE_DIR = ".quarantine"
"""Directory under the root where damaged files are moved; never a valid tenant id."""
LANGCHAIN_KWARGS_KEY = "threadline"
"""Key under ``additional_kwargs`` holding turn id, timestamp and turn metadata."""

_POLL_FIRST = 0.0005
_POLL_MAX = 0.005
"""Lock polling: first retry after 0.5 ms, doubling up to 5 ms (filelock's default is a
flat 50 ms, which under contention leaves the lock idle most of the time)."""
_HANDOFF_POLL_MAX = 0.002
"""A writer that handed its append over checks for the outcome at least this often."""
_HANDOFF_LOCK_RETRY = 0.005
"""... and tries the lock itself (in case no leader is running) this often."""
_LEAD_MAX_ROUNDS = 16
_LEAD_EXTRA_S = 0.05
"""A leader keeps writing handed-over appends for at most this many rounds or seconds."""


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
    """Replace ``path`` with ``data`` so readers see the old or new file, never a mix.

    The caller fsyncs the directory afterwards (see ``ConversationStore._locked``).
    """
    # Same directory as the target so os.replace is a rename, not a cross-device copy.
    # The leading dot and .tmp suffix keep temp files out of "*.json" listings.
    fd, tmp_name = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=_TMP_SUFFIX)
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


def _check_limit(value: int | None, name: str) -> None:
    if value is not None and value < 0:
        raise ValueError(f"{name} must be >= 0, got {value}")


_Key = tuple[str, str, str]
"""``(tenant, caller_app, session_id)``."""


@dataclass
class _Append:
    """An ``add_turn`` or ``add_message``, prepared and validated outside the lock."""

    kind: OpKind
    messages: list[Message]
    create: bool = False
    turn_id: str | None = None
    """The caller's idempotency key (turns only); ``None`` when the turn id is fresh."""
    question: str | None = None

    @cached_property
    def lines(self) -> list[bytes]:
        """The messages as stored lines."""
        return [dump_message(message) for message in self.messages]


class _AppendLock:
    """The session lock as the append path takes it: flock tries on one descriptor.

    The same lock as ``FileLock`` (both ``flock`` the ``.lock`` file, so they exclude
    each other), but a retry costs one system call instead of filelock's open,
    realpath and bookkeeping (about 0.3 ms, and its ``O_CREAT`` open contends on the
    directory with every rename in it). That matters for writers that poll while
    their append is handed over. Falls back to ``FileLock`` without ``fcntl``.
    """

    def __init__(self, lock_path: Path, timeout: float) -> None:
        """Prepare to lock ``lock_path``; nothing is opened yet."""
        self.path = lock_path
        self._fd: int | None = None
        self._held = False
        self._fallback = None if fcntl is not None else FileLock(lock_path, timeout=timeout)

    def try_acquire(self) -> bool:
        """One non-blocking attempt; ``True`` if the lock is now held."""
        if self._fallback is not None:
            try:
                self._fallback.acquire(blocking=False)
            except Timeout:
                return False
            self._held = True
            return True
        if self._fd is None:
            self._fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(self._fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return False
        if os.fstat(self._fd).st_nlink == 0:
            # delete_session unlinks the lock file while holding it: a lock on that
            # inode guards nothing any more. Retry on the path's current file.
            self.close()
            return False
        self._held = True
        return True

    def acquire(self, timeout: float) -> None:
        """Poll ``try_acquire`` with a short exponential backoff.

        Raises:
            StoreBusyError: If the lock stayed held for ``timeout`` seconds.
        """
        deadline = time.monotonic() + timeout
        delay = _POLL_FIRST
        while not self.try_acquire():
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise StoreBusyError(self.path, timeout)
            time.sleep(min(delay, remaining))
            delay = min(delay * 2, _POLL_MAX)

    def release(self) -> None:
        """Unlock (and close the descriptor)."""
        if self._fallback is not None:
            if self._held:
                self._fallback.release()
            self._held = False
            return
        if self._fd is not None and self._held:
            fcntl.flock(self._fd, fcntl.LOCK_UN)
        self._held = False
        self.close()

    def close(self) -> None:
        """Close the descriptor if open; releases the lock too."""
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None
        self._held = False


@dataclass
class _Txn:
    """What a locked operation wrote: directories to fsync once the lock is released."""

    dirs: set[Path] = field(default_factory=set)


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

    def _acquire(self, lock: FileLock, lock_path: Path) -> None:
        """Take ``lock`` within ``lock_timeout``, polling with a short exponential backoff."""
        deadline = time.monotonic() + self.lock_timeout
        delay = _POLL_FIRST
        while True:
            try:
                lock.acquire(blocking=False)
                return
            except Timeout as exc:
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    raise StoreBusyError(lock_path, self.lock_timeout) from exc
            time.sleep(min(delay, remaining))
            delay = min(delay * 2, _POLL_MAX)

    @contextmanager
    def _locked(self, path: Path) -> Iterator[_Txn]:
        """Hold the session's lock file for a read-modify-write.

        Directories written under the lock are fsynced after it is released, before
        the operation returns (see the module docstring).
        """
        self._ensure_dir(path.parent)
        lock_path = self._lock_path(path)
        # A fresh FileLock per operation: instances are not shared between threads,
        # and flock on separate descriptors excludes threads of one process as well.
        lock = FileLock(lock_path, timeout=self.lock_timeout)
        self._acquire(lock, lock_path)
        txn = _Txn()
        try:
            yield txn
        finally:
            lock.release()
        for directory in txn.dirs:
            _fsync_dir(directory)

    @staticmethod
    def _commit(txn: _Txn, path: Path, data: bytes) -> None:
        _atomic_write(path, data)
        txn.dirs.add(path.parent)

    @staticmethod
    def _read_bytes(path: Path) -> bytes | None:
        try:
            return path.read_bytes()
        except FileNotFoundError:
            return None
        except OSError as exc:
            raise CorruptSessionError(path, f"unreadable ({exc.strerror or exc})") from exc

    @staticmethod
    def _parse(path: Path, data: bytes, tenant: str, caller_app: str, session_id: str) -> Session:
        """Validate a whole file; the slow path every read takes."""
        try:
            session = Session.model_validate_json(data)
        except ValidationError as exc:
            raise CorruptSessionError(path, describe_error(exc)) from exc
        if session.schema_version != SCHEMA_VERSION:
            raise CorruptSessionError(
                path,
                f"schema_version {session.schema_version}, this code reads {SCHEMA_VERSION}",
            )
        # A file copied or moved under another tenant must not be served from there.
        if (session.tenant, session.caller_app, session.id) != (tenant, caller_app, session_id):
            raise CorruptSessionError(path, "stored tenant/caller_app/id do not match its path")
        return session

    def _read(self, path: Path, tenant: str, caller_app: str, session_id: str) -> Session | None:
        data = self._read_bytes(path)
        if data is None:
            return None
        return self._parse(path, data, tenant, caller_app, session_id)

    def _require(self, path: Path, tenant: str, caller_app: str, session_id: str) -> Session:
        session = self._read(path, tenant, caller_app, session_id)
        if session is None:
            raise SessionNotFoundError(tenant, caller_app, session_id)
        return session

    def _load_doc(
        self, path: Path, data: bytes, tenant: str, caller_app: str, session_id: str
    ) -> SessionDoc:
        """Fast path for a canonical, checksummed file; full validation otherwise."""
        doc = SessionDoc.trusted(data, tenant, caller_app, session_id)
        if doc is None:
            doc = SessionDoc.from_session(self._parse(path, data, tenant, caller_app, session_id))
        return doc

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
    def _touch(target: Session | SessionHeader) -> None:
        # Never move updated_at backwards if clocks of two writer hosts disagree.
        target.updated_at = max(_utcnow(), target.updated_at)

    # ------------------------------------------------------------------ appends

    def _append(self, path: Path, key: _Key, op: _Append) -> list[Message]:
        """Persist ``op``: lead a write if the lock is free, else hand it to the holder.

        Returns:
            The messages as stored (for an idempotent retry, the earlier ones).
        """
        self._ensure_dir(path.parent)
        lock_path = self._lock_path(path)
        lock = _AppendLock(lock_path, self.lock_timeout)
        try:
            return self._append_with(lock, path, key, op)
        finally:
            lock.close()

    def _append_with(self, lock: _AppendLock, path: Path, key: _Key, op: _Append) -> list[Message]:
        lock_path = lock.path
        if lock.try_acquire():
            return self._lead(path, key, op, lock)
        deadline = time.monotonic() + self.lock_timeout
        try:
            ticket = Ticket.publish(
                spool_dir(path),
                op.messages[0].id,
                encode_op(
                    kind=op.kind,
                    create=op.create,
                    turn_id=op.turn_id,
                    question=op.question,
                    expires=time.time() + self.lock_timeout,
                    lines=op.lines,
                ),
            )
        except OSError as exc:
            _LOGGER.warning("cannot hand an append over, waiting for the lock: %s", exc)
            lock.acquire(self.lock_timeout)
            return self._lead(path, key, op, lock)
        delay = _POLL_FIRST
        next_try = time.monotonic() + _POLL_FIRST
        while True:
            outcome = ticket.outcome()
            if outcome == "done":
                ticket.discard()
                return op.messages
            now = time.monotonic()
            if (outcome == "rejected" or now >= next_try) and lock.try_acquire():
                # While we hold the lock no leader runs, so the ticket's state is final.
                outcome = ticket.outcome()
                if outcome == "done":
                    lock.release()
                    ticket.discard()
                    return op.messages
                withdrawn = ticket.withdraw()
                ticket.discard()
                # Neither withdrawn nor rejected: claimed by a leader that died.
                unknown = not withdrawn and outcome != "rejected"
                return self._lead(path, key, op, lock, maybe_written=unknown)
            if now >= next_try:
                next_try = now + _HANDOFF_LOCK_RETRY
            if now >= deadline:
                if ticket.withdraw():
                    raise StoreBusyError(lock_path, self.lock_timeout)  # never written
                if ticket.outcome() == "rejected":
                    ticket.discard()
                    raise StoreBusyError(lock_path, self.lock_timeout)  # not written
                if now >= deadline + self.lock_timeout:
                    # Claimed by a leader that neither finishes nor dies (a hung disk):
                    # give up like a timeout on the wire; a retry with the same turn
                    # id is idempotent.
                    raise StoreBusyError(lock_path, self.lock_timeout)
            time.sleep(delay)
            delay = min(delay * 2, _HANDOFF_POLL_MAX)

    def _lead(
        self, path: Path, key: _Key, op: _Append, lock: _AppendLock, *, maybe_written: bool = False
    ) -> list[Message]:
        """Holding ``lock``: apply the handed-over appends and ``op`` in one write.

        Releases the lock. Every claimed op is reported ``done`` (only once durable)
        or ``rejected``, whatever happens to ``op``.

        Args:
            path: The session file.
            key: ``(tenant, caller_app, session_id)``.
            op: The caller's own append.
            lock: The session lock, held.
            maybe_written: ``op`` was handed over to a leader that died; the file
                says whether it was written.

        Returns:
            The messages of ``op`` as stored.
        """
        spool = spool_dir(path)
        own_error: StoreError | None = None
        result: list[Message] = []
        fsync_later = False
        stop_at = time.monotonic() + _LEAD_EXTRA_S
        try:
            claims = claim_pending(spool)
            try:
                data = self._read_bytes(path)
                doc = None if data is None else self._load_doc(path, data, *key)
            except CorruptSessionError:
                for claim in claims:
                    report(spool, claim.name, "rejected")
                raise
            own_pending = True
            if maybe_written and doc is not None and doc.holds_message(op.messages[0].id):
                own_pending = False
                result = op.messages
                fsync_later = True  # the dead leader may not have fsynced the directory
            rounds = 0
            while True:
                applied: set[str] = set()
                for claim in claims:
                    if claim.op is not None:
                        doc, ok = self._apply_handed_over(doc, claim.op, key)
                        if ok:
                            applied.add(claim.name)
                if own_pending:
                    own_pending = False
                    try:
                        doc, result = self._apply_own(path, key, doc, op)
                    except StoreError as exc:  # e.g. not found: still write the others
                        own_error = exc
                if doc is not None and doc.added:
                    try:
                        data, next_doc = doc.rendered()
                        _atomic_write(path, data)
                    except BaseException as exc:
                        for claim in claims:
                            report(spool, claim.name, "rejected")
                        if rounds == 0 or not isinstance(exc, Exception):
                            raise
                        # Our own append is already written: only these failed, and
                        # their owners retry them and get the error themselves.
                        _LOGGER.warning("group commit to %s failed: %s", path, exc)
                        break
                    doc = next_doc
                    if applied:
                        _fsync_dir(path.parent)  # durable before anyone is told "done"
                        fsync_later = False
                    else:
                        fsync_later = True
                for claim in claims:
                    report(spool, claim.name, "done" if claim.name in applied else "rejected")
                # Flat combining: while writers keep handing appends over, keep writing
                # them (bounded, so our own caller is not held back for long).
                rounds += 1
                if rounds >= _LEAD_MAX_ROUNDS or time.monotonic() >= stop_at:
                    break
                claims = claim_pending(spool)
                if not claims:
                    break
        finally:
            lock.release()
        if fsync_later:
            _fsync_dir(path.parent)
        if own_error is not None:
            raise own_error
        return result

    def _apply_handed_over(
        self, doc: SessionDoc | None, op: SpooledOp, key: _Key
    ) -> tuple[SessionDoc | None, bool]:
        """Apply a handed-over append if it needs no decision; ``False`` rejects it."""
        if doc is None:
            if op.kind != "turn" or not op.create:
                return doc, False
            doc = SessionDoc.from_session(self._new_session(*key, None))
        elif op.turn_id is not None and doc.may_hold_turn(op.turn_id):
            return doc, False  # maybe a retry: its owner decides with the full history
        doc.extend(op.lines)
        if op.kind == "turn" and doc.header.title is None:
            doc.header.title = _title_from_question(op.question or "")
        self._touch(doc.header)
        return doc, True

    def _apply_own(
        self, path: Path, key: _Key, doc: SessionDoc | None, op: _Append
    ) -> tuple[SessionDoc, list[Message]]:
        """Apply the caller's append with the full semantics of ``add_turn``/``add_message``."""
        if doc is None:
            if op.kind != "turn" or not op.create:
                raise SessionNotFoundError(*key)
            doc = SessionDoc.from_session(self._new_session(*key, None))
        to_add = result = op.messages
        if op.kind == "turn" and op.turn_id is not None and doc.may_hold_turn(op.turn_id):
            # A retry, or a turn started with add_message: decide on the parsed history.
            stored = self._parse(path, doc.render(), *key).messages
            same_turn = [m for m in stored if m.turn_id == op.turn_id]
            user_msg = next((m for m in same_turn if m.role == "user"), None)
            stored_answer = next((m for m in same_turn if m.role == "assistant"), None)
            if stored_answer is not None:
                if user_msg is None:
                    raise StoreError(
                        f"turn {op.turn_id!r} of session {key[2]!r} has an answer but no question"
                    )
                return doc, [user_msg, stored_answer]
            if user_msg is not None:
                # The question was stored earlier with add_message: add the answer only.
                to_add, result = [op.messages[1]], [user_msg, op.messages[1]]
        doc.extend(op.lines if to_add is op.messages else [dump_message(m) for m in to_add])
        if op.kind == "turn" and doc.header.title is None:
            doc.header.title = _title_from_question(op.question or "")
        self._touch(doc.header)
        return doc, result

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
        with self._locked(path) as txn:
            # exists(), not _read(): a corrupt file still occupies the id.
            if path.exists():
                raise SessionExistsError(tenant, caller_app, sid)
            session = self._new_session(tenant, caller_app, sid, title)
            self._commit(txn, path, SessionDoc.from_session(session).render())
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
        with self._locked(path) as txn:
            # Re-check under the lock: another writer may have created it meanwhile.
            existing = self._read(path, tenant, caller_app, session_id)
            if existing is not None:
                return existing, False
            session = self._new_session(tenant, caller_app, session_id, title)
            self._commit(txn, path, SessionDoc.from_session(session).render())
        return session, True

    def _summary(
        self, path: Path, tenant: str, caller_app: str, session_id: str
    ) -> SessionSummary | None:
        """Summary of one file; a checksummed file is summarised from line 1 alone."""
        data = self._read_bytes(path)
        if data is None:
            return None
        doc = SessionDoc.trusted(data, tenant, caller_app, session_id)
        if doc is not None:
            header, count = doc.header, doc.message_count()
        else:
            header = self._parse(path, data, tenant, caller_app, session_id)
            count = len(header.messages)
        return SessionSummary(
            id=header.id,
            tenant=header.tenant,
            caller_app=header.caller_app,
            title=header.title,
            created_at=header.created_at,
            updated_at=header.updated_at,
            message_count=count,
        )

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
        path = self._session_path(tenant, caller_app, session_id)
        # Lock-free pre-check so a missing session leaves no directories or lock file.
        if not path.exists():
            raise SessionNotFoundError(tenant, caller_app, session_id)
        with self._locked(path) as txn:
            session = self._require(path, tenant, caller_app, session_id)
            session.title = title
            self._touch(session)
            self._commit(txn, path, SessionDoc.from_session(session).render())
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
            with suppress(OSError):  # only if empty: a pending append keeps it
                spool_dir(path).rmdir()
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
        message = Message(
            id=_new_message_id(),
            role=role,
            content=content,
            created_at=_utcnow(),
            turn_id=turn_id,
            metadata=metadata,
        )
        op = _Append(kind="message", messages=[message])
        (stored,) = self._append(path, (tenant, caller_app, session_id), op)
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
        path = self._session_path(tenant, caller_app, session_id)
        if not create and not path.exists():
            raise SessionNotFoundError(tenant, caller_app, session_id)
        # Prepared (and validated) before taking the lock, so it can also be handed over.
        now = _utcnow()
        turn = turn_id if turn_id is not None else _new_turn_id()
        user = Message(
            id=_new_message_id(), role="user", content=question, created_at=now, turn_id=turn
        )
        assistant = Message(
            id=_new_message_id(),
            role="assistant",
            content=answer,
            created_at=now,
            turn_id=turn,
            metadata=metadata,
        )
        op = _Append(
            kind="turn",
            messages=[user, assistant],
            create=create,
            turn_id=turn_id,
            question=question,
        )
        user_msg, assistant_msg = self._append(path, (tenant, caller_app, session_id), op)
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
        # Imported here: langchain_core is heavy and writer processes never need it.
        from langchain_core.messages import AIMessage, HumanMessage

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
        return self._require(path, tenant, caller_app, session_id).thread_state()

    # ------------------------------------------------------------------ damaged files

    def _aside_path(self, tenant: str, caller_app: str, session_id: str) -> Path:
        """A fresh ``.quarantine/<tenant>/<caller_app>/<id>.<utc timestamp>.json`` path."""
        directory = self.root / QUARANTINE_DIR / tenant / caller_app
        self._ensure_dir(directory)
        stamp = f"{_utcnow():%Y%m%dT%H%M%S%fZ}"
        candidate = directory / f"{session_id}.{stamp}{_JSON_SUFFIX}"
        counter = 1
        while candidate.exists():
            candidate = directory / f"{session_id}.{stamp}-{counter}{_JSON_SUFFIX}"
            counter += 1
        return candidate

    def _move_aside(self, path: Path, tenant: str, caller_app: str, session_id: str) -> Path:
        """Rename the session file into the quarantine; the caller holds the lock."""
        target = self._aside_path(tenant, caller_app, session_id)
        # Same file system (both under root): a rename, so the bytes never exist twice
        # nor zero times, and nothing is ever deleted.
        os.rename(path, target)
        _fsync_dir(target.parent)
        _fsync_dir(path.parent)
        return target

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
        path = self._session_path(tenant, caller_app, session_id)
        if not path.exists():
            raise SessionNotFoundError(tenant, caller_app, session_id)
        with self._locked(path):
            if not path.exists():
                raise SessionNotFoundError(tenant, caller_app, session_id)
            target = self._move_aside(path, tenant, caller_app, session_id)
        _LOGGER.warning("quarantined session file %s to %s", path, target)
        return target

    def _scan(self) -> Iterator[tuple[str, str, str, Path, str]]:
        """Yield ``(tenant, caller_app, session_id, path, kind)`` for every store file.

        ``kind`` is ``session`` (a session file), ``temp`` (a temp file of an
        interrupted write) or ``spool`` (a session's hand-over directory).

        Only directories and names that are valid ids count, which leaves out the
        quarantine (its name starts with a dot) and anything this store did not write.
        """
        if not self.root.is_dir():
            return
        for tenant_dir in sorted(self.root.iterdir()):
            if not tenant_dir.is_dir() or not _is_valid_id(tenant_dir.name):
                continue
            for app_dir in sorted(tenant_dir.iterdir()):
                if not app_dir.is_dir() or not _is_valid_id(app_dir.name):
                    continue
                for file in sorted(app_dir.iterdir()):
                    name = file.name
                    if name.endswith(_JSON_SUFFIX) and not name.startswith("."):
                        sid, kind = name[: -len(_JSON_SUFFIX)], "session"
                    elif name.startswith(".") and name.endswith(_TMP_SUFFIX):
                        # ".<id>.json.<random>.tmp", as written by _atomic_write.
                        cut = name.rfind(_JSON_SUFFIX + ".")
                        if cut <= 1:
                            continue
                        sid, kind = name[1:cut], "temp"
                    elif name.startswith(".") and name.endswith(_JSON_SUFFIX + SPOOL_SUFFIX):
                        sid, kind = name[1 : -len(_JSON_SUFFIX + SPOOL_SUFFIX)], "spool"
                    else:
                        continue
                    if not _is_valid_id(sid):
                        continue
                    if not (file.is_dir() if kind == "spool" else file.is_file()):
                        continue
                    yield tenant_dir.name, app_dir.name, sid, file, kind

    def _check_file(
        self, tenant: str, caller_app: str, session_id: str, *, repair: bool, quarantine: bool
    ) -> SessionCheck | None:
        path = self._session_path(tenant, caller_app, session_id)
        found = {"tenant": tenant, "caller_app": caller_app, "session_id": session_id, "path": path}
        try:  # a full validation, like every read (not the append path's checksum)
            session = self._read(path, tenant, caller_app, session_id)
        except CorruptSessionError as exc:
            reason = exc.reason
        else:
            if session is None:
                return None  # deleted meanwhile
            return SessionCheck(**found, status="ok", message_count=len(session.messages))
        if not (repair or quarantine):
            return SessionCheck(**found, status="corrupt", reason=reason)
        try:
            with self._locked(path) as txn:
                data = self._read_bytes(path)
                if data is None:
                    return None
                try:  # it may have been repaired or replaced while we waited for the lock
                    session = self._parse(path, data, tenant, caller_app, session_id)
                except CorruptSessionError as exc:
                    reason = exc.reason
                else:
                    return SessionCheck(**found, status="ok", message_count=len(session.messages))
                if repair:
                    try:
                        salvaged, dropped = salvage(data, tenant, caller_app, session_id)
                    except Unsalvageable as exc:
                        reason = f"{reason}; not repairable: {exc}"
                    else:
                        # Keep the damaged bytes before replacing them: repairs never delete.
                        original = self._aside_path(tenant, caller_app, session_id)
                        _atomic_write(original, data)
                        _fsync_dir(original.parent)
                        self._commit(txn, path, SessionDoc.from_session(salvaged).render())
                        _LOGGER.warning("repaired %s (original kept as %s)", path, original)
                        return SessionCheck(
                            **found,
                            status="repaired",
                            reason=reason,
                            message_count=len(salvaged.messages),
                            dropped=dropped,
                            moved_to=original,
                        )
                if quarantine:
                    target = self._move_aside(path, tenant, caller_app, session_id)
                    _LOGGER.warning("quarantined session file %s to %s", path, target)
                    return SessionCheck(
                        **found, status="quarantined", reason=reason, moved_to=target
                    )
        except StoreBusyError:
            reason = f"{reason}; left as is: the session is busy"
        return SessionCheck(**found, status="corrupt", reason=reason)

    def _check_temp(
        self, tenant: str, caller_app: str, session_id: str, temp: Path, *, repair: bool
    ) -> SessionCheck | None:
        found = {"tenant": tenant, "caller_app": caller_app, "session_id": session_id, "path": temp}
        reason = "temp file of an interrupted write (never read as a session)"
        if repair:
            path = self._session_path(tenant, caller_app, session_id)
            try:
                with self._locked(path):
                    # Under the session's lock no write of it is in flight, so any temp
                    # file of it is left over from a writer that died.
                    try:
                        temp.unlink()
                    except FileNotFoundError:
                        return None
                    _fsync_dir(temp.parent)
                return SessionCheck(**found, status="temp_removed", reason=reason)
            except StoreBusyError:
                pass
        return SessionCheck(**found, status="stale_temp", reason=reason)

    def _check_spool(
        self, tenant: str, caller_app: str, session_id: str, spool: Path
    ) -> SessionCheck | None:
        path = self._session_path(tenant, caller_app, session_id)
        try:
            with self._locked(path):
                removed = sweep(spool)
        except StoreBusyError:
            return None  # in use: its leftovers go with a later run or a later write
        if not removed:
            return None
        return SessionCheck(
            tenant=tenant,
            caller_app=caller_app,
            session_id=session_id,
            path=spool,
            status="temp_removed",
            reason=f"{removed} leftover hand-over file(s) of writers that died",
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
        results: list[SessionCheck] = []
        for tenant, caller_app, session_id, file, kind in list(self._scan()):
            try:
                if kind == "spool":
                    result = (
                        self._check_spool(tenant, caller_app, session_id, file) if repair else None
                    )
                elif kind == "temp":
                    result = self._check_temp(tenant, caller_app, session_id, file, repair=repair)
                else:
                    result = self._check_file(
                        tenant, caller_app, session_id, repair=repair, quarantine=quarantine
                    )
            except InvalidIdError:
                continue  # e.g. a symlinked directory leading out of the root
            if result is not None:
                results.append(result)
        results.sort(key=lambda c: (c.tenant, c.caller_app, c.session_id, c.status))
        return results


def _is_valid_id(value: str) -> bool:
    try:
        validate_id(value, "id")
    except InvalidIdError:
        return False
    return True
