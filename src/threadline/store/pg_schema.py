"""Versioned schema of the PostgreSQL backend: migrations, and the start-up check.

Each migration is applied once, in order, in its own transaction, by
``threadline db migrate`` (never on the request path). ``threadline_schema`` records
what was applied; a process whose code expects a newer version refuses to start
(``SchemaVersionError``) instead of failing later on a missing column.

Keys follow the SUIVI note (000): sessions and messages keyed by ``(tenant_id,
caller_app, session_id)``, per-turn metadata in ``jsonb``, and ``thread_state``
keyed ``(tenant_id, caller_app, thread_id)``: a view over the newest answers with
an outline and with a retrieval (partial indexes make both one index probe), so
the note's debug query reads one row per thread. ``queries_log`` has the SQLite
log's columns.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from threadline.store.errors import StoreError


@dataclass(frozen=True)
class Migration:
    """One schema step."""

    version: int
    name: str
    sql: str


MIGRATIONS: tuple[Migration, ...] = (
    Migration(
        1,
        "sessions, messages, thread_state, queries_log",
        """
CREATE TABLE sessions (
    tenant_id text NOT NULL,
    caller_app text NOT NULL,
    session_id text NOT NULL,
    title text,
    created_at timestamptz NOT NULL,
    updated_at timestamptz NOT NULL,
    PRIMARY KEY (tenant_id, caller_app, session_id)
);
CREATE INDEX sessions_thread ON sessions (caller_app, session_id);

-- One number per append (a turn's question and answer share it, ``pos`` orders them), so
-- concurrent appends never interleave inside a turn.
CREATE SEQUENCE messages_append_seq;

CREATE TABLE messages (
    tenant_id text NOT NULL,
    caller_app text NOT NULL,
    session_id text NOT NULL,
    seq bigint NOT NULL,
    pos smallint NOT NULL,
    id text NOT NULL,
    role text NOT NULL CHECK (role IN ('user', 'assistant')),
    content text NOT NULL,
    created_at timestamptz NOT NULL,
    turn_id text,
    metadata jsonb,
    PRIMARY KEY (tenant_id, caller_app, session_id, seq, pos),
    FOREIGN KEY (tenant_id, caller_app, session_id)
        REFERENCES sessions (tenant_id, caller_app, session_id) ON DELETE CASCADE
);
-- One question and one answer per turn id: a retried turn conflicts instead of doubling.
CREATE UNIQUE INDEX messages_turn ON messages (tenant_id, caller_app, session_id, turn_id, role)
    WHERE turn_id IS NOT NULL;
CREATE INDEX messages_outline ON messages (tenant_id, caller_app, session_id, seq)
    WHERE role = 'assistant' AND metadata -> 'outline' <> '[]'::jsonb;
CREATE INDEX messages_search ON messages (tenant_id, caller_app, session_id, seq)
    WHERE role = 'assistant' AND (coalesce(metadata ->> 'search_query', '') <> ''
                                  OR metadata -> 'doc_ids' <> '[]'::jsonb);

-- Derived from the stored answers, so it cannot drift from them and needs no
-- per-session row lock (appends from many processes commit together).
CREATE VIEW thread_state AS
SELECT s.tenant_id, s.caller_app, s.session_id AS thread_id,
       coalesce(o.metadata -> 'outline', '[]'::jsonb) AS last_outline,
       coalesce(q.metadata -> 'doc_ids', '[]'::jsonb) AS last_doc_ids,
       coalesce(q.metadata -> 'titles', '[]'::jsonb) AS last_titles,
       q.metadata ->> 'search_query' AS last_search_query,
       greatest(o.created_at, q.created_at) AS updated_at
FROM sessions s
LEFT JOIN LATERAL (
    SELECT m.metadata, m.created_at FROM messages m
    WHERE m.tenant_id = s.tenant_id AND m.caller_app = s.caller_app
      AND m.session_id = s.session_id
      AND m.role = 'assistant' AND m.metadata -> 'outline' <> '[]'::jsonb
    ORDER BY m.seq DESC, m.pos DESC LIMIT 1
) o ON true
LEFT JOIN LATERAL (
    SELECT m.metadata, m.created_at FROM messages m
    WHERE m.tenant_id = s.tenant_id AND m.caller_app = s.caller_app
      AND m.session_id = s.session_id
      AND m.role = 'assistant' AND (coalesce(m.metadata ->> 'search_query', '') <> ''
                                    OR m.metadata -> 'doc_ids' <> '[]'::jsonb)
    ORDER BY m.seq DESC, m.pos DESC LIMIT 1
) q ON true
WHERE o.created_at IS NOT NULL OR q.created_at IS NOT NULL;

CREATE TABLE sessions_quarantine (
    id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    tenant_id text NOT NULL,
    caller_app text NOT NULL,
    session_id text NOT NULL,
    moved_at timestamptz NOT NULL DEFAULT now(),
    session jsonb NOT NULL
);

CREATE TABLE queries_log (
    id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    created_at timestamptz NOT NULL,
    tenant text NOT NULL,
    caller_app text NOT NULL,
    thread_id text NOT NULL,
    turn_id text,
    question text NOT NULL,
    route text,
    followup_detected boolean NOT NULL DEFAULT false,
    followup_resolved boolean NOT NULL DEFAULT false,
    followup_section_id text,
    followup_ref_type text,
    followup_method text,
    search_query text,
    doc_ids jsonb NOT NULL DEFAULT '[]',
    titles jsonb NOT NULL DEFAULT '[]',
    outline jsonb NOT NULL DEFAULT '[]',
    outcome text,
    stop_reason text,
    llm_calls integer NOT NULL DEFAULT 0,
    latency_ms double precision
);
CREATE INDEX queries_log_thread ON queries_log (caller_app, thread_id, created_at);
""",
    ),
    Migration(
        2,
        "feedback and trace in queries_log; thread_state follows the kept answers",
        """
ALTER TABLE queries_log
    ADD COLUMN trace jsonb,
    ADD COLUMN feedback text CHECK (feedback IN ('up', 'down')),
    ADD COLUMN feedback_reason text,
    ADD COLUMN feedback_comment text,
    ADD COLUMN feedback_at timestamptz;
CREATE INDEX queries_log_turn ON queries_log (tenant, caller_app, thread_id, turn_id);
CREATE INDEX queries_log_feedback ON queries_log (feedback) WHERE feedback IS NOT NULL;

-- An answer the user replaced (regenerate, select) is not what follow-ups resolve against.
CREATE OR REPLACE VIEW thread_state AS
SELECT s.tenant_id, s.caller_app, s.session_id AS thread_id,
       coalesce(o.metadata -> 'outline', '[]'::jsonb) AS last_outline,
       coalesce(q.metadata -> 'doc_ids', '[]'::jsonb) AS last_doc_ids,
       coalesce(q.metadata -> 'titles', '[]'::jsonb) AS last_titles,
       q.metadata ->> 'search_query' AS last_search_query,
       greatest(o.created_at, q.created_at) AS updated_at
FROM sessions s
LEFT JOIN LATERAL (
    SELECT m.metadata, m.created_at FROM messages m
    WHERE m.tenant_id = s.tenant_id AND m.caller_app = s.caller_app
      AND m.session_id = s.session_id
      AND m.role = 'assistant' AND m.metadata -> 'outline' <> '[]'::jsonb
      AND NOT coalesce((m.metadata ->> 'superseded')::boolean, false)
    ORDER BY m.seq DESC, m.pos DESC LIMIT 1
) o ON true
LEFT JOIN LATERAL (
    SELECT m.metadata, m.created_at FROM messages m
    WHERE m.tenant_id = s.tenant_id AND m.caller_app = s.caller_app
      AND m.session_id = s.session_id
      AND m.role = 'assistant' AND (coalesce(m.metadata ->> 'search_query', '') <> ''
                                    OR m.metadata -> 'doc_ids' <> '[]'::jsonb)
      AND NOT coalesce((m.metadata ->> 'superseded')::boolean, false)
    ORDER BY m.seq DESC, m.pos DESC LIMIT 1
) q ON true
WHERE o.created_at IS NOT NULL OR q.created_at IS NOT NULL;
""",
    ),
    Migration(
        3,
        "session lineage (forks) and closing",
        """
ALTER TABLE sessions ADD COLUMN parent_session_id text;
ALTER TABLE sessions ADD COLUMN root_session_id text;
ALTER TABLE sessions ADD COLUMN closed_at timestamptz;
""",
    ),
    Migration(
        4,
        "queries_log marks the answers set aside by regenerate or select",
        """
ALTER TABLE queries_log ADD COLUMN superseded boolean NOT NULL DEFAULT false;
""",
    ),
)

LATEST_VERSION = MIGRATIONS[-1].version
"""The schema version this code reads and writes."""

_LOCK_KEY = 0x7468726C  # "thrl": one advisory lock serialises concurrent migrators

_VERSION_TABLE = """
CREATE TABLE IF NOT EXISTS threadline_schema (
    version integer PRIMARY KEY,
    name text NOT NULL,
    applied_at timestamptz NOT NULL DEFAULT now()
)
"""


class SchemaVersionError(StoreError):
    """The database is not at the schema version this code needs."""


def current_version(conn: Any) -> int:
    """Return the highest applied migration, 0 for a database threadline never migrated.

    Args:
        conn: A psycopg connection.

    Returns:
        The schema version.
    """
    row = conn.execute("SELECT to_regclass('threadline_schema') IS NOT NULL AS present").fetchone()
    if not _value(row, "present"):
        return 0
    row = conn.execute(
        "SELECT coalesce(max(version), 0) AS version FROM threadline_schema"
    ).fetchone()
    return int(_value(row, "version"))


def _value(row: Any, key: str) -> Any:
    return row[key] if isinstance(row, dict) else row[0]


def migrate(conn: Any) -> list[Migration]:
    """Apply every missing migration, each in its own transaction.

    Safe to run from several processes at once: an advisory lock makes them take
    turns, and each re-reads the version under it.

    Args:
        conn: A psycopg connection in autocommit mode.

    Returns:
        The migrations applied now (empty when the schema was current).

    Raises:
        SchemaVersionError: If the database is newer than this code.
    """
    applied: list[Migration] = []
    with conn.transaction():
        conn.execute("SELECT pg_advisory_xact_lock(%s)", (_LOCK_KEY,))
        conn.execute(_VERSION_TABLE)
    for migration in MIGRATIONS:
        with conn.transaction():
            conn.execute("SELECT pg_advisory_xact_lock(%s)", (_LOCK_KEY,))
            version = current_version(conn)
            if version > LATEST_VERSION:
                raise SchemaVersionError(_newer_message(version))
            if migration.version <= version:
                continue
            conn.execute(migration.sql)
            conn.execute(
                "INSERT INTO threadline_schema (version, name) VALUES (%s, %s)",
                (migration.version, migration.name),
            )
            applied.append(migration)
    return applied


def _newer_message(version: int) -> str:
    return (
        f"the database schema is at version {version}, newer than this threadline "
        f"(version {LATEST_VERSION}); upgrade threadline"
    )


def check_schema(conn: Any) -> None:
    """Refuse to run on a database whose schema is not the one this code expects.

    Args:
        conn: A psycopg connection.

    Raises:
        SchemaVersionError: If the schema is older (run ``threadline db migrate``)
            or newer than this code.
    """
    version = current_version(conn)
    if version < LATEST_VERSION:
        raise SchemaVersionError(
            f"the database schema is at version {version}, this threadline needs version "
            f"{LATEST_VERSION}: run `threadline db migrate` first"
        )
    if version > LATEST_VERSION:
        raise SchemaVersionError(_newer_message(version))
