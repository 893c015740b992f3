"""File I/O of the JSON store: atomic writes, durable directories, reading a session.

A write goes to a temp file in the target's directory (so ``os.replace`` is a rename,
not a copy), is fsynced, then renamed over the target: readers see the old or the
new file, never a mix. The rename becomes durable with an fsync of the directory,
which the caller does (after releasing the session lock, see ``locking.locked``).

Every read validates the whole file against the schema (``Session``), except the
append path's trusted fast path for a checksummed canonical file (``layout.py``).
"""

from __future__ import annotations

import os
import tempfile
from contextlib import suppress
from pathlib import Path

from pydantic import ValidationError

from threadline.store.errors import CorruptSessionError
from threadline.store.layout import SessionDoc
from threadline.store.models import SCHEMA_VERSION, Session
from threadline.store.paths import TMP_SUFFIX
from threadline.store.rules import describe_error

Key = tuple[str, str, str]
"""``(tenant, caller_app, session_id)``."""


def fsync_dir(directory: Path) -> None:
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


def atomic_write(path: Path, data: bytes) -> None:
    """Replace ``path`` with ``data`` so readers see the old or new file, never a mix.

    The caller fsyncs the directory afterwards.

    Args:
        path: The file to replace (or create).
        data: Its new content.
    """
    # The leading dot and .tmp suffix keep temp files out of "*.json" listings.
    fd, tmp_name = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=TMP_SUFFIX)
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


def ensure_dir(directory: Path) -> None:
    """Create ``directory`` and its missing parents, each new entry made durable."""
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
        fsync_dir(created.parent)


def read_bytes(path: Path) -> bytes | None:
    """Return the file's bytes, or ``None`` if it does not exist.

    Raises:
        CorruptSessionError: If the file exists but cannot be read.
    """
    try:
        return path.read_bytes()
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise CorruptSessionError(path, f"unreadable ({exc.strerror or exc})") from exc


def parse_session(path: Path, data: bytes, key: Key) -> Session:
    """Validate a whole session file; the slow path every read takes.

    Args:
        path: The file (for the error).
        data: Its bytes.
        key: ``(tenant, caller_app, session_id)`` its path says it holds.

    Returns:
        The session.

    Raises:
        CorruptSessionError: If it is not a valid session of this schema version, or
            holds another session than its path says.
    """
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
    if (session.tenant, session.caller_app, session.id) != key:
        raise CorruptSessionError(path, "stored tenant/caller_app/id do not match its path")
    return session


def read_session(path: Path, key: Key) -> Session | None:
    """Read and validate a session file; ``None`` if it does not exist.

    Raises:
        CorruptSessionError: If the file cannot be read or parsed.
    """
    data = read_bytes(path)
    if data is None:
        return None
    return parse_session(path, data, key)


def load_doc(path: Path, data: bytes, key: Key) -> SessionDoc:
    """Split a session file for appending: trusted if checksummed, validated otherwise.

    Raises:
        CorruptSessionError: If a file that fails the checksum does not validate.
    """
    doc = SessionDoc.trusted(data, *key)
    if doc is None:
        doc = SessionDoc.from_session(parse_session(path, data, key))
    return doc
