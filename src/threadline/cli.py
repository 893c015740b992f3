"""The `threadline` command: ingest, serve, chat, sessions, log."""

from __future__ import annotations

import json
import os
import uuid
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.table import Column, Table

from threadline.db_cli import check_database, db_app
from threadline.settings import get_settings

app = typer.Typer(no_args_is_help=True, help="Multi-turn, strictly grounded chat over documents.")
app.add_typer(db_app, name="db")
sessions_app = typer.Typer(no_args_is_help=True, help="List, show and delete sessions.")
app.add_typer(sessions_app, name="sessions")
console = Console()

TenantOpt = Annotated[str, typer.Option(help="Tenant that owns the data.")]
CallerOpt = Annotated[str, typer.Option(help="Calling application.")]


def _services():
    from threadline.services import Services

    return Services(get_settings())


def _open_store():
    """The conversation store the settings select, as a block that closes it."""
    from threadline.store.backends import configured_store

    return configured_store(get_settings())


# --- beside a running server ----------------------------------------------------
# `serve` leaves the address it listens on in the data directory, so a command that
# cannot open the index (the server holds it) can say where to go instead.
SERVER_FILE = "server.json"
EXIT_INDEX_HELD = 3


def _server_file() -> Path:
    return get_settings().data_dir / SERVER_FILE


def running_server_url() -> str | None:
    """The URL of the `threadline serve` running on this data directory, if one is."""
    try:
        info = json.loads(_server_file().read_text(encoding="utf-8"))
        pid, url = int(info["pid"]), str(info["url"])
        os.kill(pid, 0)  # raises when no such process
    except (OSError, ValueError, KeyError, TypeError):
        return None
    import httpx

    try:  # the pid may have been reused since a crash: ask the server itself
        if httpx.get(f"{url}/health", timeout=3).status_code != 200:
            return None
    except httpx.HTTPError:
        return None
    return url


def _index_held(exc: Exception, hint: str) -> typer.Exit:
    """Say in one line who holds the index and what to do; the exit to raise."""
    url = running_server_url()
    where = f"a threadline server at {url}" if url else "another process (a threadline server?)"
    todo = hint.format(url=url or "http://HOST:PORT")
    console.print(
        f"[red]The index in {get_settings().data_dir} is held by {where}:[/red] {todo}",
        highlight=False,
        soft_wrap=True,
    )
    return typer.Exit(EXIT_INDEX_HELD)


def _open_services(hint: str):
    """Services with the index open, or a one-line explanation and exit 3."""
    from threadline.knowledge.engines import IndexLockedError

    services = _services()
    try:
        services.kb  # noqa: B018 - opens the index now, so a held one is reported here
    except IndexLockedError as exc:
        raise _index_held(exc, hint) from None
    return services


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
    services = _open_services(
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

    settings = get_settings()
    if workers > 1 and settings.qdrant_url is None:
        # Each worker would open the embedded index, which only one process may hold.
        typer.echo(
            f"error: --workers {workers} needs a Qdrant server (QDRANT_URL): the embedded "
            f"index in {settings.qdrant_path} belongs to one process; serve with --workers 1",
            err=True,
        )
        raise typer.Exit(2)
    problem = check_database(settings)
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
    server_file = _server_file()
    server_file.parent.mkdir(parents=True, exist_ok=True)
    server_file.write_text(
        json.dumps({"pid": os.getpid(), "url": f"http://{shown_host}:{port}"}), encoding="utf-8"
    )
    try:
        uvicorn.run(
            "threadline.api.main:create_app",
            factory=True,
            host=host,
            port=port,
            log_level="info",
            workers=workers if workers > 1 else None,
        )
    finally:
        server_file.unlink(missing_ok=True)


def tenants_hint(settings) -> str | None:
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


def _print_turn(result: dict) -> None:
    """One answer with its citations, outline and how it was routed."""
    console.print(result.get("answer", ""), markup=False, highlight=False)
    for c in result.get("citations") or []:
        section = f" — {c['section']}" if c.get("section") else ""
        console.print(
            f"[dim]  [{c.get('id', '')}] {c.get('title', '')}{section}[/dim]", highlight=False
        )
    if result.get("outline"):
        chips = "  ".join(f"{o['id']} {o['title']}" for o in result["outline"])
        console.print(f"[cyan]SUIVI[/cyan] {chips}", highlight=False)
    fu = result.get("followup") or {}
    console.print(
        f"[dim]route={result.get('route')} outcome={result.get('outcome')} "
        f"followup={fu.get('ref_type')}:{fu.get('section_id')} "
        f"query={result.get('search_query')!r}[/dim]",
        highlight=False,
    )


@app.command()
def chat(
    thread_id: Annotated[str | None, typer.Option(help="Continue this conversation.")] = None,
    tenant: TenantOpt = "default",
    caller_app: Annotated[
        str,
        typer.Option(
            help="Calling application. A conversation is keyed by (tenant, caller app, id): "
            'keep "default" to continue one started through the HTTP API or the page.'
        ),
    ] = "default",
    message: Annotated[
        list[str] | None, typer.Option("--message", "-m", help="Send these and exit.")
    ] = None,
    url: Annotated[
        str | None,
        typer.Option(
            help="Talk to a running server's HTTP API (the default when `threadline serve` "
            "runs on this data directory)."
        ),
    ] = None,
    api_key: Annotated[
        str | None,
        typer.Option(envvar="THREADLINE_API_KEY", help="API key for --url (its tenant applies)."),
    ] = None,
    local: Annotated[
        bool, typer.Option("--local", help="Open the index in this process, never a server.")
    ] = False,
) -> None:
    """Chat in the terminal: through the same graph as the API, or through a server's API."""
    thread = thread_id or f"cli-{uuid.uuid4().hex[:10]}"
    url = url or (None if local else running_server_url())
    if url:
        _chat_over_http(url.rstrip("/"), thread, caller_app, api_key, message)
        return

    from threadline.chat import ChatService, TurnRequest

    services = _open_services("talk to it with `threadline chat --url {url}`, or stop it.")
    service = ChatService(services)
    console.print(f"[dim]thread {thread} (Ctrl-D to quit)[/dim]", highlight=False)

    def turn(text: str) -> None:
        result = service.run_turn(
            TurnRequest(query=text, thread_id=thread, tenant=tenant, caller_app=caller_app)
        )
        _print_turn(result.to_dict())

    try:
        _converse(turn, message)
    finally:
        services.close()


def _converse(turn, message: list[str] | None) -> None:
    if message:
        for text in message:
            console.print(f"[bold]> {text}[/bold]", highlight=False)
            turn(text)
        return
    while True:
        try:
            text = console.input("[bold]> [/bold]").strip()
        except EOFError:
            break
        if text:
            turn(text)


def _chat_over_http(
    url: str, thread: str, caller_app: str, api_key: str | None, message: list[str] | None
) -> None:
    import httpx

    headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
    console.print(f"[dim]thread {thread} via {url} (Ctrl-D to quit)[/dim]", highlight=False)
    with httpx.Client(base_url=url, headers=headers, timeout=300) as client:

        def turn(text: str) -> None:
            body = {"query": text, "thread_id": thread, "caller_app": caller_app}
            try:
                response = client.post("/chat", json=body)
            except httpx.HTTPError as exc:
                console.print(f"[red]{url} did not answer: {exc}[/red]", highlight=False)
                raise typer.Exit(1) from exc
            if response.status_code != 200:
                try:
                    error = response.json()["error"]
                    reason = f"{error['code']}: {error['message']}"
                except (ValueError, KeyError, TypeError):
                    reason = response.text[:200]
                console.print(f"[red]{response.status_code} {reason}[/red]", highlight=False)
                raise typer.Exit(1)
            _print_turn(response.json())

        _converse(turn, message)


@sessions_app.command("list")
def sessions_list(
    tenant: TenantOpt = "default",
    caller_app: Annotated[str | None, typer.Option(help="Only this caller app.")] = None,
    limit: int = 50,
) -> None:
    """List sessions, most recent first."""
    with _open_store() as store:
        summaries, total = store.list_sessions(tenant=tenant, caller_app=caller_app, limit=limit)
    # Ids are for copying: never cut or ellipsised, whatever the terminal's width.
    widest = max((len(s.id) for s in summaries), default=2)
    table = Table(
        Column("id", no_wrap=True, min_width=widest),
        *(Column(name, overflow="fold") for name in ("caller_app", "title", "messages", "updated")),
    )
    for s in summaries:
        table.add_row(
            s.id,
            s.caller_app,
            s.title or "",
            str(s.message_count),
            s.updated_at.strftime("%Y-%m-%d %H:%M"),
        )
    console.print(table)
    console.print(f"{total} session(s)")


@sessions_app.command("show")
def sessions_show(
    session_id: str, tenant: TenantOpt = "default", caller_app: CallerOpt = "default"
) -> None:
    """Print a session as JSON."""
    with _open_store() as store:
        session = store.get_session(tenant=tenant, caller_app=caller_app, session_id=session_id)
    if session is None:
        console.print("[red]Session not found[/red]")
        raise typer.Exit(1)
    typer.echo(json.dumps(session.model_dump(mode="json"), ensure_ascii=False, indent=2))


@sessions_app.command("delete")
def sessions_delete(
    session_id: str, tenant: TenantOpt = "default", caller_app: CallerOpt = "default"
) -> None:
    """Delete a session."""
    with _open_store() as store:
        deleted = store.delete_session(tenant=tenant, caller_app=caller_app, session_id=session_id)
    if not deleted:
        console.print("[red]Session not found[/red]")
        raise typer.Exit(1)
    console.print(f"deleted {session_id}")


@sessions_app.command("check")
def sessions_check(
    repair: Annotated[
        bool, typer.Option(help="Salvage damaged sessions (the original is kept aside).")
    ] = False,
    quarantine: Annotated[
        bool, typer.Option(help="Move sessions that stay damaged to the quarantine.")
    ] = False,
) -> None:
    """Check every session file; exit 1 if a damaged one remains in place."""
    with _open_store() as store:
        checks = store.check_sessions(repair=repair, quarantine=quarantine)
    colors = {"ok": "green", "corrupt": "red", "repaired": "yellow", "quarantined": "yellow"}
    table = Table("status", "tenant", "caller_app", "session", "messages", "details")
    for check in checks:
        color = colors.get(check.status, "dim")
        details = check.reason or ""
        if check.dropped:
            details += f" (dropped {check.dropped})"
        if check.moved_to is not None:
            details += f" -> {check.moved_to}"
        table.add_row(
            f"[{color}]{check.status}[/{color}]",
            check.tenant,
            check.caller_app,
            check.session_id,
            "" if check.message_count is None else str(check.message_count),
            details,
        )
    console.print(table)
    counts: dict[str, int] = {}
    for check in checks:
        counts[check.status] = counts.get(check.status, 0) + 1
    summary = ", ".join(f"{n} {status}" for status, n in sorted(counts.items()))
    console.print(summary or "no session files")
    if any(check.is_corrupt for check in checks):
        raise typer.Exit(1)


@app.command("log")
def show_log(
    thread: Annotated[str, typer.Option("--thread", help="Thread (session) id.")],
    as_json: Annotated[bool, typer.Option("--json", help="Print rows as JSON lines.")] = False,
) -> None:
    """Print the queries log of one thread."""
    rows = _services().querylog.thread(thread)
    if as_json:
        for row in rows:
            typer.echo(json.dumps(row, ensure_ascii=False))
        return
    table = Table("created_at", "question", "route", "ref", "section", "method", "outcome", "llm")
    for column in table.columns:
        column.overflow = "fold"  # wrapped when narrow, never ellipsised
    for r in rows:
        table.add_row(
            r["created_at"][:16].replace("T", " "),
            r["question"],
            r["route"] or "",
            r["followup_ref_type"] or "",
            r["followup_section_id"] or "",
            r["followup_method"] or "",
            r["outcome"] or "",
            str(r["llm_calls"]),
        )
    console.print(table)


if __name__ == "__main__":  # pragma: no cover
    app()
