"""Draining the indexing queue: one pass (`ConversationIndexer`), and the server's thread.

The server starts an `IndexWorker` in its lifespan: a thread that runs a pass, then
waits for the interval or for a wake-up (a closed session), until it is stopped.
Store and engine calls block, so a thread rather than an asyncio task keeps them
off the event loop.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Any

from threadline.conversations.index import ConversationIndex, IndexReport
from threadline.conversations.queue import read_queue
from threadline.store.base import ConversationStoreProtocol
from threadline.store.errors import StoreError
from threadline.store.models import Session
from threadline.store.rules import utcnow

_LOGGER = logging.getLogger(__name__)

Clock = Callable[[], datetime]


class ConversationIndexer:
    """One pass over the queue: index due sessions in batches, drop deleted ones.

    Args:
        store: The conversation store.
        index: The conversation index.
        idle_minutes: How long a session stays unchanged before it is due.
        sessions_per_batch: Sessions read and indexed together.
        clock: Returns the current time (tests pass a fake one).
    """

    def __init__(
        self,
        store: ConversationStoreProtocol,
        index: ConversationIndex,
        *,
        idle_minutes: float = 15.0,
        sessions_per_batch: int = 32,
        clock: Clock = utcnow,
    ) -> None:
        self.store = store
        self.index = index
        self.idle = timedelta(minutes=idle_minutes)
        self.sessions_per_batch = sessions_per_batch
        self.clock = clock

    def run_once(
        self,
        *,
        force: bool = False,
        only: tuple[str, str, str] | None = None,
        progress: Callable[[int, int], None] | None = None,
    ) -> IndexReport:
        """Index what is due now and remove what was deleted.

        Args:
            force: Index every changed session, idle or not.
            only: Index just this session (tenant, caller_app, session_id), if changed.
            progress: Called with (sessions done, sessions due) after each batch.

        Returns:
            The sum of the batches' reports.
        """
        state = read_queue(self.store, self.index, now=self.clock(), idle=self.idle, force=force)
        due = state.due
        if only is not None:
            due = [s for s in due if (s.tenant, s.caller_app, s.id) == only]
        total = IndexReport()
        for key in state.deleted if only is None else []:
            self.index.delete_session(key)
            total.removed += 1
        done = 0
        for start in range(0, len(due), self.sessions_per_batch):
            batch = due[start : start + self.sessions_per_batch]
            sessions: list[Session] = []
            for summary in batch:
                try:
                    session = self.store.get_session(
                        tenant=summary.tenant, caller_app=summary.caller_app, session_id=summary.id
                    )
                except StoreError as exc:  # a damaged session must not stop the others
                    total.errors[summary.id] = str(exc)
                    continue
                if session is not None:
                    sessions.append(session)
            report = self.index.index_sessions(sessions)
            total.removed += self._forget_deleted(sessions)
            total.sessions += report.sessions
            total.embedded += report.embedded
            total.unchanged += report.unchanged
            total.removed += report.removed
            total.batches += report.batches
            done += len(batch)
            if progress is not None:
                progress(done, len(due))
        return total

    def _forget_deleted(self, sessions: list[Session]) -> int:
        """Remove what was just written of sessions deleted since they were read.

        A DELETE between this pass's read and its write removed the session's chunks
        before the write put them back. Checked after the write, the store's answer
        settles it: a delete after this check removes the chunks itself (the route
        forgets the session once its file or row is gone).

        Returns:
            How many sessions were removed again.
        """
        removed = 0
        for session in sessions:
            key = (session.tenant, session.caller_app, session.id)
            try:
                stored = self.store.get_session(tenant=key[0], caller_app=key[1], session_id=key[2])
            except StoreError:  # damaged, not deleted: it stays as indexed
                continue
            if stored is None:
                self.index.delete_session(key)
                removed += 1
        return removed


class IndexWorker:
    """The server's background indexing thread.

    Args:
        indexer: The pass it runs.
        interval_seconds: Time between passes.
    """

    def __init__(self, indexer: ConversationIndexer, *, interval_seconds: float = 30.0) -> None:
        self.indexer = indexer
        self.interval = interval_seconds
        self._stop = threading.Event()
        self._wake = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        """Start the thread (a pass runs at once, then every interval)."""
        self._thread = threading.Thread(target=self._run, name="conversation-indexer", daemon=True)
        self._thread.start()

    def wake(self) -> None:
        """Run a pass now (a session was closed)."""
        self._wake.set()

    def stop(self, timeout: float = 30.0) -> None:
        """Ask the thread to stop and wait for the pass in progress to end."""
        self._stop.set()
        self._wake.set()
        if self._thread is not None:
            self._thread.join(timeout)

    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                self.indexer.run_once()
            except Exception:  # keep the worker alive; the next pass retries
                _LOGGER.exception("conversation indexing pass failed")
            self._wake.wait(self.interval)
            self._wake.clear()


def start_worker(services: Any) -> IndexWorker | None:
    """Start the server's indexing worker when the settings ask for it.

    Args:
        services: The process's services (store, conversation index, settings).

    Returns:
        The running worker, or ``None`` when it is turned off.
    """
    settings = services.settings
    if not settings.conversation_index_worker:
        return None
    indexer = ConversationIndexer(
        services.store,
        services.conversations,
        idle_minutes=settings.conversation_index_idle_minutes,
    )
    worker = IndexWorker(indexer, interval_seconds=settings.conversation_index_interval_seconds)
    worker.start()
    return worker
