"""`threadline db`: the PostgreSQL schema (migrate) and moving a JSON store into it (copy)."""

from __future__ import annotations

import sqlite3
from contextlib import closing
from datetime import datetime
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console

from threadline.settings import Settings, get_settings

db_app = typer.Typer(
    no_args_is_help=True, help="PostgreSQL (THREADLINE_DATABASE_URL): migrate, copy."
)
console = Console()

_SQLITE_JSON = ("doc_ids", "titles", "outline")


def database_url(settings: Settings) -> str:
    """Return the configured URL, or exit with one line saying how to set it."""
    if settings.database_url is None:
        console.print("[red]error:[/red] THREADLINE_DATABASE_URL is not set (postgresql://...)")
        raise typer.Exit(2)
    return settings.database_url.get_secret_value()


def connect(url: str) -> Any:
    """One autocommit connection, or exit with one line naming what failed."""
    import psycopg
    from psycopg.rows import dict_row

    try:
        return psycopg.connect(url, autocommit=True, row_factory=dict_row, connect_timeout=10)
    except psycopg.OperationalError as exc:
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        console.print(f"[red]error:[/red] cannot connect to PostgreSQL: {first}")
        raise typer.Exit(1) from exc


def check_database(settings: Settings) -> str | None:
    """Why a server must not start on the configured database, or ``None`` if it may."""
    import psycopg

    from threadline.store.pg_schema import SchemaVersionError, check_schema

    if settings.database_url is None:
        return None
    try:
        with psycopg.connect(
            settings.database_url.get_secret_value(), autocommit=True, connect_timeout=10
        ) as conn:
            check_schema(conn)
    except SchemaVersionError as exc:
        return str(exc)
    except psycopg.OperationalError as exc:
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        return f"cannot connect to PostgreSQL: {first}"
    return None


@db_app.command("migrate")
def migrate() -> None:
    """Create or upgrade the schema (versioned; safe to run again and from several hosts)."""
    from threadline.store.pg_schema import LATEST_VERSION, SchemaVersionError
    from threadline.store.pg_schema import migrate as apply

    with connect(database_url(get_settings())) as conn:
        try:
            applied = apply(conn)
        except SchemaVersionError as exc:
            console.print(f"[red]error:[/red] {exc}")
            raise typer.Exit(1) from exc
    for migration in applied:
        console.print(f"applied {migration.version}: {migration.name}")
    console.print(f"schema at version {LATEST_VERSION}")


@db_app.command("copy")
def copy(
    from_json: Annotated[
        Path,
        typer.Option(
            "--from-json",
            help="A data directory: its sessions/ (JSON store) and queries.sqlite3 (log).",
        ),
    ],
) -> None:
    """Copy a JSON store and its SQLite queries log into PostgreSQL (idempotent)."""
    from threadline.store import ConversationStore, CorruptSessionError
    from threadline.store.postgres import PostgresStore

    settings = get_settings()
    url = database_url(settings)
    sessions_dir = from_json / "sessions"
    log_path = from_json / "queries.sqlite3"
    if not sessions_dir.is_dir() and not log_path.is_file():
        console.print(f"[red]error:[/red] {from_json} has neither sessions/ nor queries.sqlite3")
        raise typer.Exit(2)
    with connect(url) as conn:
        from threadline.store.pg_schema import SchemaVersionError, check_schema

        try:
            check_schema(conn)
        except SchemaVersionError as exc:
            console.print(f"[red]error:[/red] {exc}")
            raise typer.Exit(1) from exc

    source = ConversationStore(sessions_dir)
    target = PostgresStore.connect(url, lock_timeout=settings.lock_timeout)
    sessions = added = skipped = 0
    try:
        for tenant in source.tenants():
            page, _ = source.list_sessions(tenant=tenant, limit=10**9)
            for summary in page:
                try:
                    session = source.get_session(
                        tenant=tenant, caller_app=summary.caller_app, session_id=summary.id
                    )
                except CorruptSessionError as exc:
                    console.print(f"[yellow]skipped[/yellow] {exc}")
                    skipped += 1
                    continue
                if session is None:
                    continue
                added += target.copy_session(session)
                sessions += 1
    finally:
        target.close()
    rows = _copy_log(log_path, url) if log_path.is_file() else 0
    console.print(
        f"{sessions} sessions ({added} messages added), {rows} queries-log rows added"
        + (f", {skipped} damaged sessions skipped" if skipped else "")
    )
    if skipped:
        raise typer.Exit(1)


def _copy_log(path: Path, url: str) -> int:
    """Insert the SQLite log's rows that PostgreSQL does not have yet; returns how many."""
    from psycopg.types.json import Jsonb

    with closing(sqlite3.connect(path)) as db:
        db.row_factory = sqlite3.Row
        source = [dict(r) for r in db.execute("SELECT * FROM queries_log ORDER BY id")]
    with connect(url) as conn, conn.transaction():
        # The same turn logged twice is the same row: (time, tenant, app, thread, question).
        present = {
            (r["created_at"], r["tenant"], r["caller_app"], r["thread_id"], r["question"])
            for r in conn.execute(
                "SELECT created_at, tenant, caller_app, thread_id, question FROM queries_log"
            ).fetchall()
        }
        missing = []
        for row in source:
            row.pop("id", None)
            row["created_at"] = datetime.fromisoformat(row["created_at"])
            key = (row["created_at"], row["tenant"], row["caller_app"], row["thread_id"])
            if (*key, row["question"]) in present:
                continue
            for name in _SQLITE_JSON:
                row[name] = Jsonb(_loads(row[name]))
            for name in ("followup_detected", "followup_resolved", "superseded"):
                if name in row:  # a log from before alternatives has no `superseded`
                    row[name] = bool(row[name])
            missing.append(row)
        if missing:
            columns = ", ".join(missing[0])
            marks = ", ".join(f"%({k})s" for k in missing[0])
            with conn.cursor() as cur:
                cur.executemany(f"INSERT INTO queries_log ({columns}) VALUES ({marks})", missing)
    return len(missing)


def _loads(value: str | None) -> Any:
    import json

    return json.loads(value) if value else []
