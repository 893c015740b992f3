"""What makes a document's versioned write safe: generations, a journal, fair locks.

A version is written under a generation number larger than any before it, staged under
`STAGED_TENANT` (no caller's tenant, so no search sees it) and recorded in a journal
entry that start-up repair reads if the process dies mid-write.
"""

from __future__ import annotations

import json
import os
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

from threadline.store import files

# The tenant chunks are written under until their version is published: no caller's
# tenant, so no search, listing or count of a tenant sees a version being written. A
# tenant is at least one character and a NUL never comes from a key or the CLI.
STAGED_TENANT = "\x00staged"
_last_generation = 0
_generation_guard = threading.Lock()


class FairLock:
    """A lock granted in arrival order (Python's own locks let a releasing thread win again).

    Writes hold it one batch at a time, so a small upload gets its turn after the
    batch being written, however long the document that batch belongs to.
    """

    def __init__(self) -> None:
        """Create a free lock."""
        self._condition = threading.Condition(threading.Lock())
        self._next_ticket = 0
        self._serving = 0

    def __enter__(self) -> FairLock:
        """Wait for this caller's turn, then hold the lock."""
        with self._condition:
            ticket = self._next_ticket
            self._next_ticket += 1
            while ticket != self._serving:
                self._condition.wait()
        return self

    def __exit__(self, *exc_info: object) -> None:
        """Release the lock to the next caller in arrival order."""
        with self._condition:
            self._serving += 1
            self._condition.notify_all()


@dataclass
class RefCountedLock:
    """A document's lock and how many callers hold or wait for it (dropped at zero)."""

    lock: threading.Lock = field(default_factory=threading.Lock)
    users: int = 0


def new_generation() -> int:
    """Return a generation number larger than every earlier one of this process.

    Microseconds since the epoch: exact as floats, which is how range filters compare.
    """
    global _last_generation
    with _generation_guard:
        _last_generation = max(_last_generation + 1, time.time_ns() // 1000)
        return _last_generation


def process_alive(pid: int) -> bool:
    """Tell whether a process with this id still runs (a journal's writer)."""
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def write_journal(
    path: Path, tenant: str, doc_id: str, generation: int, *, deleting: bool = False
) -> None:
    """Record a write under way, durably, before its first chunk is written.

    `deleting`: the write is the document's delete, of every chunk older than
    `generation`; the next open's repair deletes them again.
    """
    entry: dict[str, object] = {
        "tenant": tenant,
        "doc_id": doc_id,
        "generation": generation,
        "pid": os.getpid(),
    }
    if deleting:
        entry["deleting"] = True
    # As the session store writes: a failed write (a full disk) leaves no temp file.
    files.atomic_write(path, json.dumps(entry).encode("utf-8"))
    files.fsync_dir(path.parent)
