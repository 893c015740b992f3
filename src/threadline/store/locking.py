"""The session lock of the JSON store: one implementation, used by every operation.

A session's lock is ``filelock``'s native lock (``flock`` on Unix) on a separate
``<file>.lock`` beside the session file, never on the JSON itself, which
``os.replace`` swaps out. ``SessionLock`` keeps one descriptor of the lock file open
and tries the lock on it with ``filelock.lock_descriptor``, so a retry costs one
system call; ``FileLock`` would open the file, resolve its path and keep its
bookkeeping on every try (about 0.3 ms, and its ``O_CREAT`` open contends on the
directory with every rename in it), which matters for the writers that poll while
their append is handed over (``group_commit.py``). It is the same lock as
``FileLock``'s on that file, so the two exclude each other (tests and operators may
hold a session with a plain ``FileLock``).

Waiting polls with a short exponential back-off (0.5 ms doubling to 5 ms; filelock's
default is a flat 50 ms, which under contention leaves the lock idle most of the
time) and gives up with ``StoreBusyError``. Locks are blocking: async callers run
store methods in a thread pool.
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from filelock import lock_descriptor, unlock_descriptor

from threadline.store import files
from threadline.store.errors import StoreBusyError
from threadline.store.paths import lock_path

POLL_FIRST = 0.0005
"""First retry of a taken lock after 0.5 ms ..."""
POLL_MAX = 0.005
"""... doubling up to 5 ms."""


class SessionLock:
    """The lock of one session file, tried on a descriptor kept open.

    Not shared between threads: each operation makes its own (``flock`` on separate
    descriptors excludes threads of one process as well as other processes).

    Attributes:
        path: The lock file.
    """

    def __init__(self, path: Path) -> None:
        """Prepare to lock ``path`` (a ``<file>.lock``); nothing is opened yet."""
        self.path = path
        self._fd: int | None = None
        self._held = False

    def try_acquire(self) -> bool:
        """One non-blocking attempt; ``True`` if the lock is now held."""
        if self._fd is None:
            self._fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        if not lock_descriptor(self._fd, blocking=False):
            return False
        if os.fstat(self._fd).st_nlink == 0:
            # delete_session unlinks the lock file while holding it: a lock on that
            # inode guards nothing any more. Retry on the path's current file.
            self.close()
            return False
        self._held = True
        return True

    def acquire(self, timeout: float) -> None:
        """Poll ``try_acquire`` with a short exponential back-off.

        Args:
            timeout: Seconds to keep trying.

        Raises:
            StoreBusyError: If the lock stayed held for ``timeout`` seconds.
        """
        deadline = time.monotonic() + timeout
        delay = POLL_FIRST
        while not self.try_acquire():
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise StoreBusyError(self.path, timeout)
            time.sleep(min(delay, remaining))
            delay = min(delay * 2, POLL_MAX)

    def release(self) -> None:
        """Unlock (and close the descriptor)."""
        if self._fd is not None and self._held:
            unlock_descriptor(self._fd)
        self._held = False
        self.close()

    def close(self) -> None:
        """Close the descriptor if open; releases the lock too."""
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None
        self._held = False


@dataclass
class Txn:
    """What a locked operation wrote: directories to fsync once the lock is released."""

    dirs: set[Path] = field(default_factory=set)

    def commit(self, path: Path, data: bytes) -> None:
        """Atomically replace ``path``; its directory is fsynced after the unlock."""
        files.atomic_write(path, data)
        self.dirs.add(path.parent)


@contextmanager
def locked(path: Path, timeout: float) -> Iterator[Txn]:
    """Hold a session's lock for a read-modify-write.

    Directories written under the lock are fsynced after it is released, before the
    operation returns: a later writer's version contains this one's data, so
    whichever directory fsync comes last covers both.

    Args:
        path: The session file (its directory is created if missing).
        timeout: Seconds to wait for the lock.

    Yields:
        The transaction to write through.

    Raises:
        StoreBusyError: If the lock stayed held for ``timeout`` seconds.
    """
    files.ensure_dir(path.parent)
    lock = SessionLock(lock_path(path))
    try:
        lock.acquire(timeout)
        txn = Txn()
        try:
            yield txn
        finally:
            lock.release()
    finally:
        lock.close()
    for directory in txn.dirs:
        files.fsync_dir(directory)
