"""Where the JSON store keeps what: session, lock, temp and quarantine paths.

``root/<tenant>/<caller_app>/<session_id>.json`` per session, its lock beside it as
``<session_id>.json.lock``, temp files of a write as ``.<session_id>.json.<random>.tmp``,
the hand-over directory of ``spool.py`` as ``.<session_id>.json.spool``, and damaged
files moved aside under ``root/.quarantine/``. Ids are validated before they become a
path, and no session path may resolve outside the data directory.

An id is a file (or directory) name through ``file_stem``, which a file system that
ignores case (macOS's and Windows' defaults) cannot fold onto another id's: ``Abc`` and
``abc`` were one file there. Names written before that rule (an id with capitals or a
colon as it is) are still found and kept where they are.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Literal, NamedTuple

from threadline.store.errors import InvalidIdError
from threadline.store.ids import is_valid_id, validate_id
from threadline.store.rules import utcnow
from threadline.store.spool import SPOOL_SUFFIX

JSON_SUFFIX = ".json"
LOCK_SUFFIX = ".lock"
TMP_SUFFIX = ".tmp"
QUARANTINE_DIR = ".quarantine"
"""Directory under the root where damaged files are moved; never a valid tenant id."""

FileKind = Literal["session", "temp", "spool"]


class StoreFile(NamedTuple):
    """One file (or hand-over directory) of the store, found by ``StorePaths.scan``."""

    tenant: str
    caller_app: str
    session_id: str
    path: Path
    kind: FileKind
    """``session`` (a session file), ``temp`` (a temp file of an interrupted write) or
    ``spool`` (a session's hand-over directory)."""


_CASE_MARK = "+"
"""Separates an id's lower-cased letters from the mask of those that were capitals."""
_COLON = "="
"""Stands for ``:`` in a file name (Windows refuses a colon; NTFS reads it as a stream)."""


def file_stem(id_: str) -> str:
    """Return the name an id's file or directory takes: distinct ids, distinct names, in any case.

    The id lower-cased, ``:`` written ``=``, then, if it had capitals, ``+`` and the hex
    mask of their positions: ``Abc`` is ``abc+1``, ``abc`` stays ``abc``. Neither ``+``
    nor ``=`` is allowed in an id, so a name never reads as another id, and no two
    names differ only by case. At most 128 + 1 + 32 characters.
    """
    mask = sum(1 << i for i, char in enumerate(id_) if char.isupper())
    stem = id_.lower().replace(":", _COLON)
    return f"{stem}{_CASE_MARK}{mask:x}" if mask else stem


def id_of_stem(stem: str) -> str | None:
    """Return the id a file name stands for (``file_stem``'s or one written before it), or None.

    Names this store did not write (a non-canonical mask, characters no id holds) are
    None, so a listing never shows an id twice or an id of a file it did not write.
    """
    if is_valid_id(stem):  # a lower-case id, or a name written before file_stem
        return stem
    base, _, mask_hex = stem.partition(_CASE_MARK)
    try:
        mask = int(mask_hex, 16) if mask_hex else 0
    except ValueError:
        return None
    chars = list(base.replace(_COLON, ":"))
    if mask >> len(chars):
        return None
    for i, char in enumerate(chars):
        if mask >> i & 1:
            chars[i] = char.upper()
    id_ = "".join(chars)
    return id_ if is_valid_id(id_) and file_stem(id_) == stem else None


def _named(parent: Path, id_: str, suffix: str = "") -> Path:
    """Return the entry of an id in ``parent``: its ``file_stem`` name, or the name written before.

    An id that ``file_stem`` writes otherwise (capitals, a colon) was written as it is
    before that rule: such an entry is used while it exists under exactly that name
    (compared with the directory's listing, as a file system ignoring case would also
    say the name of another id exists).
    """
    current = parent / f"{file_stem(id_)}{suffix}"
    if current.name == f"{id_}{suffix}" or os.path.lexists(current):
        return current
    earlier = parent / f"{id_}{suffix}"
    if os.path.lexists(earlier) and earlier.name in os.listdir(parent):
        return earlier
    return current


def lock_path(path: Path) -> Path:
    """Return the lock file of a session file: ``<file>.lock`` beside it, never the file itself."""
    return path.with_name(path.name + LOCK_SUFFIX)


class StorePaths:
    """The paths of one data directory.

    Attributes:
        root: The data directory.
    """

    def __init__(self, root: Path) -> None:
        """Paths under ``root``; nothing is created."""
        self.root = root
        self._root_resolved = root.resolve()

    def session(self, tenant: str, caller_app: str, session_id: str) -> Path:
        """Return the file of one session, after validating its ids.

        Args:
            tenant: Tenant id.
            caller_app: Caller app id.
            session_id: Session id.

        Returns:
            ``root/<tenant>/<caller_app>/<session_id>.json``.

        Raises:
            InvalidIdError: If an id is invalid or the path resolves outside the root.
        """
        validate_id(session_id, "session_id")
        path = _named(self.app_dir(tenant, caller_app), session_id, JSON_SUFFIX)
        # Defence in depth: the id checks already forbid traversal, but a symlinked
        # tenant or app directory could still point outside the data directory.
        if not path.resolve().is_relative_to(self._root_resolved):
            raise InvalidIdError(f"session path for {session_id!r} escapes the data directory")
        return path

    def tenant_dir(self, tenant: str) -> Path:
        """Return the directory of a tenant's sessions (not created here).

        Raises:
            InvalidIdError: If the id is invalid.
        """
        return _named(self.root, validate_id(tenant, "tenant"))

    def app_dir(self, tenant: str, caller_app: str) -> Path:
        """Return the directory of a caller app's sessions (not created here).

        Raises:
            InvalidIdError: If an id is invalid.
        """
        return _named(self.tenant_dir(tenant), validate_id(caller_app, "caller_app"))

    def tenants(self) -> list[str]:
        """Return the tenants with a directory under the root, sorted (not the quarantine)."""
        if not self.root.is_dir():
            return []
        found = (id_of_stem(entry.name) for entry in self.root.iterdir() if entry.is_dir())
        return sorted({tenant for tenant in found if tenant is not None})

    def caller_apps(self, tenant: str) -> list[str]:
        """Return the caller apps with a directory under a tenant's, sorted."""
        tenant_dir = self.tenant_dir(tenant)
        if not tenant_dir.is_dir():
            return []
        found = (id_of_stem(entry.name) for entry in tenant_dir.iterdir() if entry.is_dir())
        return sorted({app for app in found if app is not None})

    def quarantine_dir(self, tenant: str, caller_app: str) -> Path:
        """``root/.quarantine/<tenant>/<caller_app>`` (``file_stem`` names; not created here)."""
        return self.root / QUARANTINE_DIR / file_stem(tenant) / file_stem(caller_app)

    def quarantine_target(self, tenant: str, caller_app: str, session_id: str) -> Path:
        """Return a free ``<id>.<utc timestamp>.json`` path in an existing quarantine directory."""
        directory = self.quarantine_dir(tenant, caller_app)
        stamp = f"{utcnow():%Y%m%dT%H%M%S%fZ}"
        stem = file_stem(session_id)
        candidate = directory / f"{stem}.{stamp}{JSON_SUFFIX}"
        counter = 1
        while candidate.exists():
            candidate = directory / f"{stem}.{stamp}-{counter}{JSON_SUFFIX}"
            counter += 1
        return candidate

    def session_files(self, tenant: str, caller_app: str) -> Iterator[tuple[str, Path]]:
        """``(session_id, path)`` of every session file of one caller app (unvalidated)."""
        app_dir = self.app_dir(tenant, caller_app)
        if not app_dir.is_dir():
            return
        for file in app_dir.glob(f"*{JSON_SUFFIX}"):
            sid = id_of_stem(file.name[: -len(JSON_SUFFIX)])
            if sid is not None and not file.name.startswith("."):
                yield sid, file

    def scan(self) -> Iterator[StoreFile]:
        """Every file this store wrote, in sorted order.

        Only directories and names that are valid ids count, which leaves out the
        quarantine (its name starts with a dot) and anything this store did not write.
        """
        if not self.root.is_dir():
            return
        for tenant_dir in sorted(self.root.iterdir()):
            tenant = id_of_stem(tenant_dir.name)
            if not tenant_dir.is_dir() or tenant is None:
                continue
            for app_dir in sorted(tenant_dir.iterdir()):
                app = id_of_stem(app_dir.name)
                if not app_dir.is_dir() or app is None:
                    continue
                for file in sorted(app_dir.iterdir()):
                    found = _classify(file.name)
                    if found is None:
                        continue
                    sid, kind = found
                    if not (file.is_dir() if kind == "spool" else file.is_file()):
                        continue
                    yield StoreFile(tenant, app, sid, file, kind)


def _classify(name: str) -> tuple[str, FileKind] | None:
    """Return the session id and kind of a file name in an app directory, or ``None``."""
    kind: FileKind
    if name.endswith(JSON_SUFFIX) and not name.startswith("."):
        sid, kind = name[: -len(JSON_SUFFIX)], "session"
    elif name.startswith(".") and name.endswith(TMP_SUFFIX):
        # ".<id>.json.<random>.tmp", as written by files.atomic_write.
        cut = name.rfind(JSON_SUFFIX + ".")
        if cut <= 1:
            return None
        sid, kind = name[1:cut], "temp"
    elif name.startswith(".") and name.endswith(JSON_SUFFIX + SPOOL_SUFFIX):
        sid, kind = name[1 : -len(JSON_SUFFIX + SPOOL_SUFFIX)], "spool"
    else:
        return None
    session_id = id_of_stem(sid)
    if session_id is None:
        return None
    return session_id, kind
