"""`threadline sessions`: list, show, delete, check, export and import conversations."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer
from rich.table import Column, Table

from threadline.cli_common import (
    CallerOpt,
    SessionIdArg,
    TenantOpt,
    checked_id,
    console,
    open_store,
)
from threadline.settings import get_settings

sessions_app = typer.Typer(no_args_is_help=True, help="List, show and delete sessions.")


@sessions_app.command("list")
def sessions_list(
    tenant: TenantOpt = "default",
    caller_app: Annotated[
        str | None,
        typer.Option(help="Only this caller app.", callback=checked_id("caller_app")),
    ] = None,
    limit: int = 50,
) -> None:
    """List sessions, most recent first."""
    with open_store() as store:
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
    session_id: SessionIdArg, tenant: TenantOpt = "default", caller_app: CallerOpt = "default"
) -> None:
    """Print a session as JSON."""
    with open_store() as store:
        session = store.get_session(tenant=tenant, caller_app=caller_app, session_id=session_id)
    if session is None:
        console.print("[red]Session not found[/red]")
        raise typer.Exit(1)
    typer.echo(json.dumps(session.model_dump(mode="json"), ensure_ascii=False, indent=2))


@sessions_app.command("delete")
def sessions_delete(
    session_id: SessionIdArg, tenant: TenantOpt = "default", caller_app: CallerOpt = "default"
) -> None:
    """Delete a session."""
    with open_store() as store:
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
    with open_store() as store:
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


@sessions_app.command("export")
def sessions_export(
    session_id: SessionIdArg,
    tenant: TenantOpt = "default",
    caller_app: CallerOpt = "default",
    fmt: Annotated[str, typer.Option("--format", help="md (readable) or json (imports).")] = "md",
    out: Annotated[Path | None, typer.Option(help="Write to this file, not stdout.")] = None,
) -> None:
    """Export a conversation: Markdown with citations as footnotes, or JSON to import."""
    from threadline.export import to_export, to_markdown
    from threadline.policy import may_debug

    if fmt not in ("md", "json"):
        console.print("[red]--format must be md or json[/red]")
        raise typer.Exit(2)
    with open_store() as store:
        session = store.get_session(tenant=tenant, caller_app=caller_app, session_id=session_id)
    if session is None:
        console.print("[red]Session not found[/red]")
        raise typer.Exit(1)
    if fmt == "md":
        text = to_markdown(session)
    else:
        with_trace = may_debug(get_settings().debug_caller_apps, caller_app)
        export = to_export(session, with_trace=with_trace).model_dump(mode="json")
        text = json.dumps(export, ensure_ascii=False, indent=1) + "\n"
    if out is None:
        typer.echo(text, nl=False)
    else:
        try:
            out.write_text(text, encoding="utf-8")
        except OSError as exc:  # a directory, a missing parent, no permission
            console.print(f"[red]cannot write {out}: {exc.strerror}[/red]", highlight=False)
            raise typer.Exit(1) from exc
        console.print(f"wrote {out}", highlight=False)


@sessions_app.command("import")
def sessions_import(
    path: Path,
    tenant: TenantOpt = "default",
    caller_app: CallerOpt = "default",
    session_id: Annotated[
        str | None,
        typer.Option(help="Store it under this id.", callback=checked_id("session_id")),
    ] = None,
) -> None:
    """Import a conversation exported as JSON (the id must be free)."""
    from pydantic import ValidationError

    from threadline.export import from_export, read_export
    from threadline.store import InvalidIdError, SessionExistsError

    try:
        export = read_export(path.read_bytes())
        session = from_export(export, tenant=tenant, caller_app=caller_app, session_id=session_id)
    except (OSError, ValidationError, InvalidIdError) as exc:
        console.print(f"[red]not a threadline session export: {exc}[/red]", highlight=False)
        raise typer.Exit(2) from exc
    try:
        with open_store() as store:
            store.import_session(session=session)
    except SessionExistsError as exc:
        console.print(f"[red]{exc}[/red]", highlight=False)
        raise typer.Exit(1) from exc
    console.print(f"imported {session.id} ({len(session.messages)} messages)", highlight=False)
