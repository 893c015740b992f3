"""Appends of the JSON store: one writer leads, the writers waiting hand their lines over.

An append (``add_turn``, ``add_message``) is prepared and validated outside the lock
(``Append``). A writer that gets the session lock leads: it reads line 1 of the file
(``layout.py``; a checksum match proves the message lines are what this store last
wrote, so new lines are spliced in without parsing the history), applies every
append handed over to it and its own, and writes them all with one rewrite and one
set of fsyncs. A writer that finds the lock taken publishes its prepared lines as a
ticket in the session's spool (``spool.py``) and polls for the outcome, trying the
lock itself now and then in case no leader is running.

Durability. The data is fsynced before the rename, inside the lock. When only the
leader's own append was written, the directory fsync that makes the rename durable
happens right after the lock is released (a later writer's version contains this
one's data) and before the call returns. Appends handed over by other writers are
reported ``done`` only after the directory fsync. A claimed ticket is always
answered ``done`` or ``rejected``; one left by a leader that died is decided by its
owner from the file.
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

from threadline.store import files
from threadline.store.errors import (
    CorruptSessionError,
    SessionNotFoundError,
    StoreBusyError,
    StoreError,
)
from threadline.store.files import Key
from threadline.store.layout import SessionDoc, dump_message
from threadline.store.locking import POLL_FIRST, SessionLock
from threadline.store.models import Message
from threadline.store.paths import lock_path
from threadline.store.rules import new_session, title_from_question, utcnow
from threadline.store.spool import (
    OpKind,
    SpooledOp,
    Ticket,
    claim_pending,
    encode_op,
    report,
    spool_dir,
)

_LOGGER = logging.getLogger(__name__)

HANDOFF_POLL_MAX = 0.002
"""A writer that handed its append over checks for the outcome at least this often."""
HANDOFF_LOCK_RETRY = 0.005
"""... and tries the lock itself (in case no leader is running) this often."""
LEAD_MAX_ROUNDS = 16
LEAD_EXTRA_S = 0.05
"""A leader keeps writing handed-over appends for at most this many rounds or seconds."""


@dataclass
class Append:
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


def append(path: Path, key: Key, op: Append, *, lock_timeout: float) -> list[Message]:
    """Persist ``op``: lead a write if the lock is free, else hand it to the holder.

    Args:
        path: The session file.
        key: ``(tenant, caller_app, session_id)``.
        op: The prepared append.
        lock_timeout: Seconds to wait for the lock or for a leader's answer.

    Returns:
        The messages as stored (for an idempotent retry, the earlier ones).

    Raises:
        SessionNotFoundError: If the session is missing and ``op`` may not create it.
        CorruptSessionError: If the file cannot be read or parsed.
        StoreError: If a turn id is stored with an answer but no question.
        StoreBusyError: If neither the lock nor a leader's answer came in time.
    """
    files.ensure_dir(path.parent)
    lock = SessionLock(lock_path(path))
    try:
        return _append_with(lock, path, key, op, lock_timeout)
    finally:
        lock.close()


def _append_with(
    lock: SessionLock, path: Path, key: Key, op: Append, lock_timeout: float
) -> list[Message]:
    if lock.try_acquire():
        return _lead(path, key, op, lock)
    deadline = time.monotonic() + lock_timeout
    try:
        ticket = Ticket.publish(
            spool_dir(path),
            op.messages[0].id,
            encode_op(
                kind=op.kind,
                create=op.create,
                turn_id=op.turn_id,
                question=op.question,
                expires=time.time() + lock_timeout,
                lines=op.lines,
            ),
        )
    except OSError as exc:
        _LOGGER.warning("cannot hand an append over, waiting for the lock: %s", exc)
        lock.acquire(lock_timeout)
        return _lead(path, key, op, lock)
    delay = POLL_FIRST
    next_try = time.monotonic() + POLL_FIRST
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
            return _lead(path, key, op, lock, maybe_written=unknown)
        if now >= next_try:
            next_try = now + HANDOFF_LOCK_RETRY
        if now >= deadline:
            if ticket.withdraw():
                raise StoreBusyError(lock.path, lock_timeout)  # never written
            if ticket.outcome() == "rejected":
                ticket.discard()
                raise StoreBusyError(lock.path, lock_timeout)  # not written
            if now >= deadline + lock_timeout:
                # Claimed by a leader that neither finishes nor dies (a hung disk):
                # give up like a timeout on the wire; a retry with the same turn
                # id is idempotent.
                raise StoreBusyError(lock.path, lock_timeout)
        time.sleep(delay)
        delay = min(delay * 2, HANDOFF_POLL_MAX)


def _lead(
    path: Path, key: Key, op: Append, lock: SessionLock, *, maybe_written: bool = False
) -> list[Message]:
    """Apply the handed-over appends and ``op`` in one write, holding ``lock``.

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
    stop_at = time.monotonic() + LEAD_EXTRA_S
    try:
        claims = claim_pending(spool)
        try:
            data = files.read_bytes(path)
            doc = None if data is None else files.load_doc(path, data, key)
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
                    doc, ok = apply_handed_over(doc, claim.op, key)
                    if ok:
                        applied.add(claim.name)
            if own_pending:
                own_pending = False
                try:
                    doc, result = apply_own(path, key, doc, op)
                except StoreError as exc:  # e.g. not found: still write the others
                    own_error = exc
            if doc is not None and doc.added:
                try:
                    data, next_doc = doc.rendered()
                    files.atomic_write(path, data)
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
                    files.fsync_dir(path.parent)  # durable before anyone is told "done"
                    fsync_later = False
                else:
                    fsync_later = True
            for claim in claims:
                report(spool, claim.name, "done" if claim.name in applied else "rejected")
            # Flat combining: while writers keep handing appends over, keep writing
            # them (bounded, so our own caller is not held back for long).
            rounds += 1
            if rounds >= LEAD_MAX_ROUNDS or time.monotonic() >= stop_at:
                break
            claims = claim_pending(spool)
            if not claims:
                break
    finally:
        lock.release()
    if fsync_later:
        files.fsync_dir(path.parent)
    if own_error is not None:
        raise own_error
    return result


def touch(doc: SessionDoc) -> None:
    """Set ``updated_at`` to now, never backwards (clocks of two writer hosts may disagree)."""
    doc.header.updated_at = max(utcnow(), doc.header.updated_at)


def apply_handed_over(
    doc: SessionDoc | None, op: SpooledOp, key: Key
) -> tuple[SessionDoc | None, bool]:
    """Apply a handed-over append if it needs no decision; ``False`` rejects it."""
    if doc is None:
        if op.kind != "turn" or not op.create:
            return doc, False
        doc = SessionDoc.from_session(new_session(*key, None))
    elif op.turn_id is not None and doc.may_hold_turn(op.turn_id):
        return doc, False  # maybe a retry: its owner decides with the full history
    doc.extend(op.lines)
    if op.kind == "turn" and doc.header.title is None:
        doc.header.title = title_from_question(op.question or "")
    touch(doc)
    return doc, True


def apply_own(
    path: Path, key: Key, doc: SessionDoc | None, op: Append
) -> tuple[SessionDoc, list[Message]]:
    """Apply the caller's append with the full semantics of ``add_turn``/``add_message``."""
    if doc is None:
        if op.kind != "turn" or not op.create:
            raise SessionNotFoundError(*key)
        doc = SessionDoc.from_session(new_session(*key, None))
    to_add = result = op.messages
    if op.kind == "turn" and op.turn_id is not None and doc.may_hold_turn(op.turn_id):
        # A retry, or a turn started with add_message: decide on the parsed history.
        stored = files.parse_session(path, doc.render(), key).messages
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
        doc.header.title = title_from_question(op.question or "")
    touch(doc)
    return doc, result
