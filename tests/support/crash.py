"""Kill a child process at a chosen point of its SQLite writes, for crash tests."""

from __future__ import annotations

import os
import sqlite3


def die_before_the_nth_write(connection: sqlite3.Connection, n: int) -> None:
    """Exit the process (`os._exit(9)`, no clean-up) just before the nth write statement.

    Counted on this connection's statements as SQLite is given them (its trace
    callback): INSERT, UPDATE and REPLACE.
    """
    writes = 0

    def count(statement: str) -> None:
        nonlocal writes
        if statement.lstrip().upper().startswith(("INSERT", "UPDATE", "REPLACE")):
            writes += 1
            if writes == n:
                os._exit(9)

    connection.set_trace_callback(count)
