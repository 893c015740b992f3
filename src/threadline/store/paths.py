"""Where the JSON store keeps what: session, lock, temp and quarantine paths.

``root/<tenant>/<caller_app>/<session_id>.json`` per session, its lock beside it as
``<session_id>.json.lock``, temp files of a write as ``.<session_id>.json.<random>.tmp``,
the hand-over directory of ``spool.py`` as ``.<session_id>.json.spool``, and damaged
files moved aside under ``root/.quarantine/``. Ids are validated before they become a
path, and no session path may resolve outside the data directory.
"""

from __future__ import annotations

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
        validate_id(tenant, "tenant")
        validate_id(caller_app, "caller_app")
        validate_id(session_id, "session_id")
        path = self.root / tenant / caller_app / f"{session_id}{JSON_SUFFIX}"
        # Defence in depth: the id checks already forbid traversal, but a symlinked
        # tenant or app directory could still point outside the data directory.
        if not path.resolve().is_relative_to(self._root_resolved):
            raise InvalidIdError(f"session path for {session_id!r} escapes the data directory")
        return path

    def quarantine_dir(self, tenant: str, caller_app: str) -> Path:
        """``root/.quarantine/<tenant>/<caller_app>`` (not created here)."""
        return self.root / QUARANTINE_DIR / tenant / caller_app

    def quarantine_target(self, tenant: str, caller_app: str, session_id: str) -> Path:
        """Return a free ``<id>.<utc timestamp>.json`` path in an existing quarantine directory."""
        directory = self.quarantine_dir(tenant, caller_app)
        stamp = f"{utcnow():%Y%m%dT%H%M%S%fZ}"
        candidate = directory / f"{session_id}.{stamp}{JSON_SUFFIX}"
        counter = 1
        while candidate.exists():
            candidate = directory / f"{session_id}.{stamp}-{counter}{JSON_SUFFIX}"
            counter += 1
        return candidate

    def session_files(self, tenant: str, caller_app: str) -> Iterator[tuple[str, Path]]:
        """``(session_id, path)`` of every session file of one caller app (unvalidated)."""
        app_dir = self.root / tenant / caller_app
        if not app_dir.is_dir():
            return
        for file in app_dir.glob(f"*{JSON_SUFFIX}"):
            yield file.name[: -len(JSON_SUFFIX)], file

    def scan(self) -> Iterator[StoreFile]:
        """Every file this store wrote, in sorted order.

        Only directories and names that are valid ids count, which leaves out the
        quarantine (its name starts with a dot) and anything this store did not write.
        """
        if not self.root.is_dir():
            return
        for tenant_dir in sorted(self.root.iterdir()):
            if not tenant_dir.is_dir() or not is_valid_id(tenant_dir.name):
                continue
            for app_dir in sorted(tenant_dir.iterdir()):
                if not app_dir.is_dir() or not is_valid_id(app_dir.name):
                    continue
                for file in sorted(app_dir.iterdir()):
                    found = _classify(file.name)
                    if found is None:
                        continue
                    sid, kind = found
                    if not (file.is_dir() if kind == "spool" else file.is_file()):
                        continue
                    yield StoreFile(tenant_dir.name, app_dir.name, sid, file, kind)


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
    if not is_valid_id(sid):
        return None
    return sid, kind
