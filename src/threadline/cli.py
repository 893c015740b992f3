"""The `threadline` command: ingest, serve, chat, sessions, log, db.

`ingest` and `serve` are here; `chat`, `sessions`, `log` and `db` live in
:mod:`threadline.chat_cli`, :mod:`threadline.sessions_cli`, :mod:`threadline.log_cli`
and :mod:`threadline.db_cli`.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Annotated

import typer

from threadline.bench_cli import bench_app
from threadline.chat_cli import chat
from threadline.cli_common import (
    EXIT_INDEX_HELD,
    SERVER_FILE,
    TenantOpt,
    console,
    open_services,
    running_server_url,
    server_file,
)
from threadline.conversations_cli import conversations_app
from threadline.db_cli import check_database, db_app
from threadline.log_cli import show_log
from threadline.querylog import check_queries_log
from threadline.sessions_cli import sessions_app
from threadline.settings import Settings, get_settings

__all__ = ["EXIT_INDEX_HELD", "SERVER_FILE", "app", "running_server_url", "tenants_hint"]

app = typer.Typer(no_args_is_help=True, help="Multi-turn, strictly grounded chat over documents.")
app.add_typer(db_app, name="db")
app.add_typer(sessions_app, name="sessions")
app.add_typer(bench_app, name="bench")
app.add_typer(conversations_app, name="conversations")


@app.command()
def ingest(
    paths: Annotated[list[Path], typer.Argument(help="Files or directories to ingest.")],
    tenant: TenantOpt = "default",
    source_app: Annotated[str | None, typer.Option(help="Tag chunks with an app.")] = None,
    workspace: Annotated[str | None, typer.Option(help="Tag chunks with a workspace.")] = None,
    prune: Annotated[bool, typer.Option(help="Remove documents whose file is gone.")] = False,
) -> None:
    """Ingest Markdown/text documents and JSON product catalogs (unchanged files are skipped).

    With API keys on, each key sees only its tenant's documents: ingest with
    `--tenant` set to the key's tenant (the default tenant is "default").
    """
    services = open_services(
        "upload through it (curl -F file=@doc.md {url}/documents), or stop it and ingest again."
    )
    try:
        report = services.kb.ingest_paths(
            paths, tenant=tenant, source_app=source_app, workspace=workspace, prune=prune
        )
    except FileNotFoundError as exc:
        console.print(f"[red]{exc}[/red]")
        raise typer.Exit(2) from exc
    finally:
        services.close()
    for path, error in report.errors.items():
        console.print(f"[red]error[/red] {path}: {error}")
    console.print(report.summary(), soft_wrap=True)
    if report.errors:
        raise typer.Exit(1)


_LOOPBACK = {"127.0.0.1", "::1", "localhost"}


@app.command()
def serve(
    host: Annotated[str | None, typer.Option(help="Interface to bind.")] = None,
    port: Annotated[int | None, typer.Option(help="Port to listen on.")] = None,
    workers: Annotated[
        int,
        typer.Option(min=1, help="Worker processes (more than 1 needs QDRANT_URL)."),
    ] = 1,
) -> None:
    """Serve the HTTP API."""
    import uvicorn

    from threadline.api.http_server import SERVER_OPTIONS

    settings = get_settings()
    if workers > 1 and settings.qdrant_url is None:
        # Each worker would open the embedded index, which only one process may hold.
        typer.echo(
            f"error: --workers {workers} needs a Qdrant server (QDRANT_URL): the embedded "
            f"index in {settings.qdrant_path} belongs to one process; serve with --workers 1",
            err=True,
        )
        raise typer.Exit(2)
    problem = check_database(settings) or check_api_keys(settings)
    if problem is None and settings.database_url is None:
        problem = check_queries_log(settings.queries_log_path)
    if problem is not None:
        typer.echo(f"error: {problem}", err=True)
        raise typer.Exit(1)
    host, port = host or settings.host, port or settings.port
    url = running_server_url()
    if url:
        console.print(
            f"[red]A threadline server already serves {settings.data_dir} at {url}:[/red] "
            "stop it first, or give this one another THREADLINE_DATA_DIR.",
            highlight=False,
            soft_wrap=True,
        )
        raise typer.Exit(EXIT_INDEX_HELD)
    services = None
    if settings.qdrant_url is None:
        # The embedded index belongs to one process. Open it before listening, so one
        # held by a process that left no server.json is refused in one line here,
        # not in a traceback from the app's startup.
        services = open_services("stop it first, or give this one another THREADLINE_DATA_DIR.")
    if host not in _LOOPBACK and not (settings.api_keys or settings.api_keys_file):
        console.print(
            f"[yellow]warning:[/yellow] serving on {host} with no API keys: anyone who can "
            "reach this address reads and changes every document and conversation "
            "(see THREADLINE_API_KEYS).",
            highlight=False,
            soft_wrap=True,
        )
    hint = tenants_hint(settings)
    if hint:
        console.print(hint, highlight=False, soft_wrap=True)
    shown_host = "127.0.0.1" if host in {"0.0.0.0", "::"} else host
    record = server_file()
    record.parent.mkdir(parents=True, exist_ok=True)
    record.write_text(
        json.dumps({"pid": os.getpid(), "url": f"http://{shown_host}:{port}"}), encoding="utf-8"
    )
    try:
        if services is not None:
            from threadline.api.main import create_app

            uvicorn.run(
                create_app(services), host=host, port=port, log_level="info", **SERVER_OPTIONS
            )
        else:
            uvicorn.run(
                "threadline.api.main:create_app",
                factory=True,
                host=host,
                port=port,
                log_level="info",
                workers=workers if workers > 1 else None,
                **SERVER_OPTIONS,
            )
    finally:
        record.unlink(missing_ok=True)
        if services is not None:
            services.close()


def check_api_keys(settings: Settings) -> str | None:
    """Return what is wrong with the configured API keys, in one line, or None."""
    from threadline.auth import KeyConfigurationError, load_key_entries

    try:
        load_key_entries(settings.api_keys, settings.api_keys_file)
    except KeyConfigurationError as error:
        return str(error)
    return None


def tenants_hint(settings: Settings) -> str | None:
    """With API keys on, which tenants the keys open, and how to ingest for one.

    Documents ingested without `--tenant` belong to "default": a key of another tenant
    does not see them, which looks like an empty index unless someone says so.
    """
    from threadline.auth import load_key_entries

    entries = load_key_entries(settings.api_keys, settings.api_keys_file)
    if not entries:
        return None
    tenants = sorted({e.tenant for e in entries})
    return (
        f"API keys are on: each key sees only its tenant's documents ({', '.join(tenants)}). "
        "`threadline ingest PATH --tenant TENANT` ingests for one; documents ingested "
        'without --tenant belong to "default".'
    )


# Registered here so `--help` lists the commands in their usual order.
app.command()(chat)


app.command("log")(show_log)


if __name__ == "__main__":  # pragma: no cover
    app()
