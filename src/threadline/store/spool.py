"""Group commit for appends to one session: writers that wait hand their lines over.

Every append rewrites the session file atomically (temp file, fsync, rename,
directory fsync). Those syncs, not the CPU, bound how many appends per second one
session takes while its lock serialises them: a few milliseconds each. So a writer
that finds the lock taken does not only wait: it *publishes* its prepared, validated
message lines as an op file in the session's spool directory
(``<caller_app dir>/.<id>.json.spool/``), and whoever holds the lock next applies
every pending op in one write (group commit), then keeps doing so for the ops that
arrived meanwhile, for a bounded number of rounds (flat combining). Under contention
one rewrite and one set of fsyncs thus carries several appends.

An op file is ``<name>.<state>``; every transition is a rename or an unlink, atomic
on a local file system:

- ``tmp``: being written by its owner; ignored (removed once a minute old).
- ``op``: published. Its owner may withdraw it (unlink) at any time; a leader claims
  it (rename to ``claimed``) only while holding the session lock. Whichever comes
  first wins, so a withdrawn op is never written and a claimed one is never
  reported as not written.
- ``claimed``: a leader is applying it; exists only while that leader holds the lock.
- ``done``: renamed so only after the session file and its directory were fsynced;
  the owner removes it and returns success.
- ``rejected``: not applied (session missing or damaged, the turn id may already be
  stored, unreadable op); the owner removes it and runs its append itself under
  the lock, which gives it the exact result or error.

A ``claimed`` (or vanished) op its owner finds while itself holding the lock was
left by a leader that died: the session file tells whether it was written (the op's
first message id is in it). An op whose owner died is dropped once past its expiry
(the owner's own deadline, at which it would have withdrawn it), or written if a
leader claims it before: the same outcome as a writer killed just after its rename,
and as then its caller never got an answer. Markers nobody collects are removed
after ten minutes. Op files are not fsynced: they only matter while their owner
lives.

The one case where an owner gives up on an op it cannot withdraw: a leader claimed it
and then neither finished nor died within a further lock timeout (a hung disk). The
owner raises ``StoreBusyError`` like a timeout on the wire; the write may still land,
and a retry with the same turn id is idempotent.
"""

from __future__ import annotations

import json
import os
import time
from contextlib import suppress
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from threadline.store.models import Message

SPOOL_SUFFIX = ".spool"
_STALE_MARKER_S = 600.0
_STALE_TMP_S = 60.0
_EXPIRY_GRACE_S = 2.0

OpKind = Literal["turn", "message"]


def spool_dir(path: Path) -> Path:
    """Return the spool directory of the session file ``path``."""
    return path.with_name(f".{path.name}{SPOOL_SUFFIX}")


@dataclass(frozen=True)
class SpooledOp:
    """A published append, as a leader reads it back."""

    name: str
    kind: OpKind
    create: bool
    turn_id: str | None
    question: str | None
    expires: float
    lines: list[bytes]


def encode_op(
    *,
    kind: OpKind,
    create: bool,
    turn_id: str | None,
    question: str | None,
    expires: float,
    lines: list[bytes],
) -> bytes:
    """Line 1: what to do (JSON); then the message lines exactly as they will be stored.

    Args:
        kind: ``"turn"`` (may create the session, sets the title) or ``"message"``.
        create: Create the session if it is missing (turns only).
        turn_id: The caller's idempotency key, or ``None`` if the turn id is fresh.
        question: The turn's question, for the title.
        expires: Wall-clock time after which the owner has given up.
        lines: Serialised messages (``layout.dump_message``).

    Returns:
        The op file's bytes.
    """
    meta = {
        "v": 1,
        "kind": kind,
        "create": create,
        "turn_id": turn_id,
        "question": question,
        "expires": expires,
    }
    return b"\n".join([json.dumps(meta, separators=(",", ":")).encode("ascii"), *lines])


def decode_op(name: str, data: bytes) -> SpooledOp:
    """Read an op file back, validating every message line again.

    Args:
        name: The op's name (``<ns>-<first message id>``).
        data: The file's bytes.

    Returns:
        The op.

    Raises:
        ValueError: If the file is not a complete, valid op of that name.
    """
    meta_line, *lines = data.split(b"\n")
    meta = json.loads(meta_line)
    if not isinstance(meta, dict) or meta.get("v") != 1 or not lines:
        raise ValueError("not an op file")
    kind, turn_id = meta.get("kind"), meta.get("turn_id")
    if kind not in ("turn", "message") or not isinstance(meta.get("expires"), int | float):
        raise ValueError("not an op file")
    messages = [Message.model_validate_json(line) for line in lines]
    if not name.endswith(f"-{messages[0].id}"):
        raise ValueError("op name and first message disagree")
    if turn_id is not None and any(m.turn_id != turn_id for m in messages):
        raise ValueError("messages of another turn")
    return SpooledOp(
        name=name,
        kind=kind,
        create=bool(meta.get("create")),
        turn_id=turn_id,
        question=meta.get("question"),
        expires=float(meta["expires"]),
        lines=lines,
    )


class Ticket:
    """The owner's handle on its published op."""

    def __init__(self, spool: Path, name: str) -> None:
        """Refer to op ``name`` in ``spool``."""
        self.spool = spool
        self.name = name
        # Plain strings: the owner polls these paths in a loop.
        base = os.path.join(spool, name)
        self._op, self._claimed = f"{base}.op", f"{base}.claimed"
        self._done, self._rejected = f"{base}.done", f"{base}.rejected"

    @classmethod
    def publish(cls, spool: Path, first_message_id: str, payload: bytes) -> Ticket:
        """Write the op under a temp name, then rename it to ``.op`` (complete or absent).

        Raises:
            OSError: If the spool cannot be written.
        """
        name = f"{time.time_ns():020d}-{first_message_id}"
        tmp = spool / f"{name}.tmp"
        try:
            try:
                handle = open(tmp, "xb")
            except FileNotFoundError:  # first hand-over for this session
                spool.mkdir(exist_ok=True)
                handle = open(tmp, "xb")
            with handle:
                handle.write(payload)
            os.rename(tmp, spool / f"{name}.op")
        except BaseException:
            with suppress(FileNotFoundError):
                tmp.unlink()
            raise
        return cls(spool, name)

    def outcome(self) -> Literal["done", "rejected"] | None:
        """``done`` or ``rejected`` once a leader has reported; ``None`` before."""
        if os.path.exists(self._done):
            return "done"
        if os.path.exists(self._rejected):
            return "rejected"
        return None

    def withdraw(self) -> bool:
        """Take the op back; ``True`` if no leader had claimed it (it will never be written)."""
        try:
            os.unlink(self._op)
        except FileNotFoundError:
            return False
        return True

    def discard(self) -> None:
        """Remove whatever marker of this op is left."""
        for marker in (self._done, self._rejected, self._claimed):
            with suppress(FileNotFoundError):
                os.unlink(marker)


@dataclass(frozen=True)
class Claim:
    """An op a leader claimed; ``op`` is ``None`` if it could not be read (rejected)."""

    name: str
    op: SpooledOp | None


def claim_pending(spool: Path) -> list[Claim]:
    """Claim every published op, oldest first; the caller holds the session lock.

    Also drops ops whose owner is gone and removes markers nobody collected.

    Args:
        spool: The session's spool directory (may not exist).

    Returns:
        The claims; each must be reported with ``report``.
    """
    try:
        entries = sorted(os.listdir(spool))
    except FileNotFoundError:
        return []
    now = time.time()
    claims: list[Claim] = []
    for entry in entries:
        stem, _, state = entry.rpartition(".")
        path = spool / entry
        if state == "op":
            claimed = spool / f"{stem}.claimed"
            try:
                os.rename(path, claimed)
            except FileNotFoundError:
                continue  # withdrawn by its owner meanwhile
            try:
                op = decode_op(stem, claimed.read_bytes())
            except (OSError, ValueError):
                claims.append(Claim(stem, None))
                continue
            if op.expires + _EXPIRY_GRACE_S < now:
                # Its owner withdraws at that deadline, so it is gone: drop the op unwritten.
                with suppress(FileNotFoundError):
                    claimed.unlink()
                continue
            claims.append(Claim(stem, op))
        else:
            _remove_if_stale(path, state, now)
    return claims


def _remove_if_stale(path: Path, state: str, now: float) -> bool:
    if state not in ("tmp", "claimed", "done", "rejected"):
        return False
    limit = _STALE_TMP_S if state == "tmp" else _STALE_MARKER_S
    try:
        if now - path.stat().st_mtime <= limit:
            return False
        path.unlink()
    except FileNotFoundError:
        return False
    return True


def sweep(spool: Path) -> int:
    """Remove the spool's leftovers of dead writers, and the spool itself if empty.

    Only files past the age limits go (a ``claimed`` file is only ever left by a
    dead leader once its owner had time to collect it). The caller holds the lock.

    Returns:
        How many files were removed.
    """
    try:
        entries = os.listdir(spool)
    except FileNotFoundError:
        return 0
    now = time.time()
    removed = 0
    for entry in entries:
        state = entry.rpartition(".")[2]
        removed += _remove_if_stale(spool / entry, state, now)
    with suppress(OSError):
        spool.rmdir()
    return removed


def report(spool: Path, name: str, state: Literal["done", "rejected"]) -> None:
    """Tell the owner of a claimed op what became of it."""
    with suppress(FileNotFoundError):
        os.rename(spool / f"{name}.claimed", spool / f"{name}.{state}")
