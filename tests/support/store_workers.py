"""Writer processes for tests/integration/test_store_reliability.py.

Module-level functions so 'spawn' children can import them. They import only the
store (not langchain or the service), so a child starts fast.
"""

from __future__ import annotations

import multiprocessing
import os
import random
import signal
import time
from multiprocessing.connection import Connection
from multiprocessing.synchronize import Barrier, Event

from threadline.store import TurnMetadata
from threadline.store.backends import close_store, open_store

TENANT = "acme"
CALLER_APP = "web"


def turn_question(worker: str, index: int) -> str:
    """The question of turn ``index`` of ``worker``: unique, parseable, e.g. ``w3-t117``."""
    return f"{worker}-t{index}"


def turn_answer(worker: str, index: int) -> str:
    """The answer stored with ``turn_question(worker, index)``."""
    return f"a:{worker}-t{index}"


def append_turns(
    root: str,
    session_id: str,
    worker: str,
    count: int,
    start: Barrier | Event | None = None,
    lock_timeout: float = 60.0,
) -> None:
    """Append ``count`` turns to one session, in order, once ``start`` is set.

    Args:
        root: The store's data directory or PostgreSQL URL (``open_store``).
        session_id: The session to write to (created on first use).
        worker: Name used in the contents and turn ids, e.g. ``"w3"``.
        count: Number of turns.
        start: Waited on before the first write, so all writers contend.
        lock_timeout: The store's lock timeout.
    """
    store = open_store(root, lock_timeout=lock_timeout)
    metadata = TurnMetadata(search_query=f"query of {worker}", doc_ids=["d1"], route="search")
    if start is not None:
        start.wait()
    for index in range(count):
        store.add_turn(
            tenant=TENANT,
            caller_app=CALLER_APP,
            session_id=session_id,
            question=turn_question(worker, index),
            answer=turn_answer(worker, index),
            metadata=metadata,
            turn_id=turn_question(worker, index),
            create=True,
        )
    close_store(store)


def write_until_killed(
    root: str, session_ids: list[str], worker: str, acks: Connection, lock_timeout: float = 5.0
) -> None:
    """Append turns round-robin over ``session_ids`` until killed, acknowledging each.

    After every ``add_turn`` that returned, ``"<session id> <turn id>"`` is sent on
    ``acks`` (one small write, so a kill never leaves half a message): the test
    checks that every acknowledged turn survived the SIGKILL.

    Args:
        root: The store's data directory or PostgreSQL URL (``open_store``).
        session_ids: Sessions to write to, in turn.
        worker: Unique per process, e.g. ``"i17-w0"``.
        acks: Write end of a pipe to the test.
        lock_timeout: The store's lock timeout.
    """
    store = open_store(root, lock_timeout=lock_timeout)
    metadata = TurnMetadata(doc_ids=["d1", "d2"], titles=["Doc 1", "Doc 2"])
    index = 0
    while True:
        session_id = session_ids[index % len(session_ids)]
        turn_id = turn_question(worker, index)
        store.add_turn(
            tenant=TENANT,
            caller_app=CALLER_APP,
            session_id=session_id,
            question=turn_id,
            answer=turn_answer(worker, index),
            metadata=metadata,
            turn_id=turn_id,
            create=True,
        )
        acks.send_bytes(f"{session_id} {turn_id}".encode())
        index += 1


def _drain(conn: Connection) -> list[str]:
    lines = []
    try:
        while conn.poll():
            lines.append(conn.recv_bytes().decode())
    except EOFError:
        pass
    return lines


def crash_driver(conn: Connection, root: str, seed: int, max_delay: float = 0.08) -> None:
    """Serve kill rounds: fork two writers, SIGKILL them at random moments, report.

    Runs in its own (spawned, single-threaded) process, so forking writers from it is
    safe and fast (~1 ms) where forking the test process, which may run threads, is
    not. Each request is ``(iteration, [session ids])``; the reply is ``(exit codes,
    acknowledged "<session id> <turn id>" lines)``. ``None`` ends the driver.

    Args:
        conn: Pipe to the test.
        root: The store's data directory or PostgreSQL URL.
        seed: Seeds the kill delays, so a failing run can be replayed.
        max_delay: Longest delay before the first kill, in seconds.
    """
    from threadline.store.backends import is_database_url

    if is_database_url(root):
        # Imported once here, so forked writers start connecting at once.
        import threadline.store.postgres  # noqa: F401
    ctx = multiprocessing.get_context("fork")
    rng = random.Random(seed)
    while (request := conn.recv()) is not None:
        iteration, session_ids = request
        writers = []
        for w in range(2):
            receive, send = ctx.Pipe(duplex=False)
            order = session_ids if w == 0 else session_ids[::-1]
            proc = ctx.Process(
                target=write_until_killed, args=(root, order, f"i{iteration}-w{w}", send)
            )
            proc.start()
            send.close()
            writers.append((proc, receive))
        time.sleep(rng.uniform(0.0, max_delay))
        first, second = rng.sample(writers, 2)
        os.kill(first[0].pid, signal.SIGKILL)
        time.sleep(rng.uniform(0.0, 0.02))  # the survivor may meet the other's leftovers
        os.kill(second[0].pid, signal.SIGKILL)
        exitcodes, acks = [], []
        for proc, receive in writers:
            proc.join()
            exitcodes.append(proc.exitcode)
            acks.extend(_drain(receive))
            receive.close()
        conn.send((exitcodes, acks))
