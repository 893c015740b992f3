"""Damaged files of the JSON store: checking, repairing and quarantining them.

Damaged files are never modified behind the operator's back: reading one raises
``CorruptSessionError`` and ``check_sessions`` reports it; only an explicit repair or
quarantine touches it, and neither deletes anything (the damaged bytes go to
``root/.quarantine/``). A repair also removes what writers that died left behind:
temp files of an interrupted write and stale hand-over files (``spool.py``).
"""

from __future__ import annotations

import logging
import os
from functools import partial
from pathlib import Path

from threadline.store import files
from threadline.store.errors import (
    CorruptSessionError,
    InvalidIdError,
    SessionNotFoundError,
    StoreBusyError,
)
from threadline.store.layout import SessionDoc, Unsalvageable, salvage
from threadline.store.locking import locked
from threadline.store.models import SessionCheck
from threadline.store.paths import StorePaths
from threadline.store.spool import sweep

_LOGGER = logging.getLogger(__name__)


class SessionRepair:
    """Checks and repairs of one data directory.

    Attributes:
        paths: The store's paths.
        lock_timeout: Seconds to wait for a session's lock.
    """

    def __init__(self, paths: StorePaths, lock_timeout: float) -> None:
        """Repairs under ``paths.root``, taking session locks within ``lock_timeout``."""
        self.paths = paths
        self.lock_timeout = lock_timeout

    def _aside_path(self, tenant: str, caller_app: str, session_id: str) -> Path:
        """Return a fresh ``.quarantine/<tenant>/<caller_app>/<id>.<utc timestamp>.json`` path."""
        files.ensure_dir(self.paths.quarantine_dir(tenant, caller_app))
        return self.paths.quarantine_target(tenant, caller_app, session_id)

    def _move_aside(self, path: Path, tenant: str, caller_app: str, session_id: str) -> Path:
        """Rename the session file into the quarantine; the caller holds the lock."""
        target = self._aside_path(tenant, caller_app, session_id)
        # Same file system (both under root): a rename, so the bytes never exist twice
        # nor zero times, and nothing is ever deleted.
        os.rename(path, target)
        files.fsync_dir(target.parent)
        files.fsync_dir(path.parent)
        return target

    def quarantine_session(self, *, tenant: str, caller_app: str, session_id: str) -> Path:
        """Move a session file aside; see ``ConversationStore.quarantine_session``."""
        path = self.paths.session(tenant, caller_app, session_id)
        if not path.exists():
            raise SessionNotFoundError(tenant, caller_app, session_id)
        with locked(path, self.lock_timeout):
            if not path.exists():
                raise SessionNotFoundError(tenant, caller_app, session_id)
            target = self._move_aside(path, tenant, caller_app, session_id)
        _LOGGER.warning("quarantined session file %s to %s", path, target)
        return target

    def check_sessions(self, *, repair: bool, quarantine: bool) -> list[SessionCheck]:
        """Check every file of the store; see ``ConversationStore.check_sessions``."""
        results: list[SessionCheck] = []
        for tenant, caller_app, session_id, file, kind in list(self.paths.scan()):
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

    def _check_file(
        self, tenant: str, caller_app: str, session_id: str, *, repair: bool, quarantine: bool
    ) -> SessionCheck | None:
        path = self.paths.session(tenant, caller_app, session_id)
        key = (tenant, caller_app, session_id)
        found = partial(
            SessionCheck, tenant=tenant, caller_app=caller_app, session_id=session_id, path=path
        )
        try:  # a full validation, like every read (not the append path's checksum)
            session = files.read_session(path, key)
        except CorruptSessionError as exc:
            reason = exc.reason
        else:
            if session is None:
                return None  # deleted meanwhile
            return found(status="ok", message_count=len(session.messages))
        if not (repair or quarantine):
            return found(status="corrupt", reason=reason)
        try:
            with locked(path, self.lock_timeout) as txn:
                data = files.read_bytes(path)
                if data is None:
                    return None
                try:  # it may have been repaired or replaced while we waited for the lock
                    session = files.parse_session(path, data, key)
                except CorruptSessionError as exc:
                    reason = exc.reason
                else:
                    return found(status="ok", message_count=len(session.messages))
                if repair:
                    try:
                        salvaged, dropped = salvage(data, tenant, caller_app, session_id)
                    except Unsalvageable as exc:
                        reason = f"{reason}; not repairable: {exc}"
                    else:
                        # Keep the damaged bytes before replacing them: repairs never delete.
                        original = self._aside_path(tenant, caller_app, session_id)
                        files.atomic_write(original, data)
                        files.fsync_dir(original.parent)
                        txn.commit(path, SessionDoc.from_session(salvaged).render())
                        _LOGGER.warning("repaired %s (original kept as %s)", path, original)
                        return found(
                            status="repaired",
                            reason=reason,
                            message_count=len(salvaged.messages),
                            dropped=dropped,
                            moved_to=original,
                        )
                if quarantine:
                    target = self._move_aside(path, tenant, caller_app, session_id)
                    _LOGGER.warning("quarantined session file %s to %s", path, target)
                    return found(status="quarantined", reason=reason, moved_to=target)
        except StoreBusyError:
            reason = f"{reason}; left as is: the session is busy"
        return found(status="corrupt", reason=reason)

    def _check_temp(
        self, tenant: str, caller_app: str, session_id: str, temp: Path, *, repair: bool
    ) -> SessionCheck | None:
        found = partial(
            SessionCheck, tenant=tenant, caller_app=caller_app, session_id=session_id, path=temp
        )
        reason = "temp file of an interrupted write (never read as a session)"
        if repair:
            path = self.paths.session(tenant, caller_app, session_id)
            try:
                with locked(path, self.lock_timeout):
                    # Under the session's lock no write of it is in flight, so any temp
                    # file of it is left over from a writer that died.
                    try:
                        temp.unlink()
                    except FileNotFoundError:
                        return None
                    files.fsync_dir(temp.parent)
                return found(status="temp_removed", reason=reason)
            except StoreBusyError:
                pass
        return found(status="stale_temp", reason=reason)

    def _check_spool(
        self, tenant: str, caller_app: str, session_id: str, spool: Path
    ) -> SessionCheck | None:
        path = self.paths.session(tenant, caller_app, session_id)
        try:
            with locked(path, self.lock_timeout):
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
