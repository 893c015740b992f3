"""`threadline conversations`: index past conversations and search them from a terminal."""

from __future__ import annotations

import json
from typing import Annotated

import typer
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

from threadline.cli_common import (
    CallerOpt,
    TenantOpt,
    checked_id,
    console,
    index_held,
    open_services_unchecked,
)
from threadline.services import Services

conversations_app = typer.Typer(
    no_args_is_help=True, help="Index past conversations and search them."
)

_HELD = "it indexes conversations itself (POST /sessions/ID/close queues one); or stop it."


def _open() -> Services:
    from threadline.knowledge.engines import IndexLockedError

    services = open_services_unchecked()
    try:
        services.conversations  # noqa: B018 - open now, so a held index is reported here
    except IndexLockedError as exc:
        raise index_held(exc, _HELD) from None
    return services


@conversations_app.command("index")
def conversations_index(
    all_sessions: Annotated[
        bool, typer.Option("--all", help="Index every changed session, idle or not.")
    ] = False,
    session: Annotated[
        str | None,
        typer.Option("--session", help="Only this session.", callback=checked_id("session_id")),
    ] = None,
    tenant: TenantOpt = "default",
    caller_app: CallerOpt = "default",
) -> None:
    """Index the sessions that are due (idle or closed), as the server's worker does."""
    from threadline.conversations.worker import ConversationIndexer

    services = _open()
    try:
        settings = services.settings
        indexer = ConversationIndexer(
            services.store,
            services.conversations,
            idle_minutes=settings.conversation_index_idle_minutes,
        )
        only = (tenant, caller_app, session) if session else None
        with Progress(
            TextColumn("indexing"), BarColumn(), MofNCompleteColumn(), console=console
        ) as bar:
            task = bar.add_task("sessions", total=None)

            def advance(done: int, total: int) -> None:
                bar.update(task, completed=done, total=total)

            report = indexer.run_once(
                force=all_sessions or session is not None, only=only, progress=advance
            )
    finally:
        services.close()
    for sid, error in report.errors.items():
        console.print(f"[red]error[/red] {sid}: {error}")
    console.print(
        f"sessions {report.sessions}, exchanges embedded {report.embedded}, "
        f"unchanged {report.unchanged}, removed {report.removed}, batches {report.batches}"
    )
    if report.errors:
        raise typer.Exit(1)


@conversations_app.command("search")
def conversations_search(
    query: Annotated[str, typer.Argument(help="What to look for.")],
    tenant: TenantOpt = "default",
    caller_app: CallerOpt = "default",
    k: Annotated[int, typer.Option(min=1, max=50, help="Exchanges to find.")] = 5,
    before: Annotated[int, typer.Option(min=0, max=10, help="Exchanges before a hit.")] = 2,
    after: Annotated[int, typer.Option(min=0, max=10, help="Exchanges after a hit.")] = 1,
    as_json: Annotated[bool, typer.Option("--json", help="Print the windows as JSON.")] = False,
) -> None:
    """Search past conversations; each hit is shown inside its window."""
    from dataclasses import asdict

    from threadline.conversations.search import search_windows

    services = _open()
    try:
        page = search_windows(
            services.store,
            services.conversations,
            query=query,
            tenant=tenant,
            caller_app=caller_app,
            k=k,
            before=before,
            after=after,
        )
    finally:
        services.close()
    if as_json:
        for window in page.windows:
            typer.echo(json.dumps(asdict(window), default=str, ensure_ascii=False))
        return
    if not page.windows:
        console.print("no past exchange matches")
    for window in page.windows:
        lineage = f" (forked from {window.parent_session_id})" if window.parent_session_id else ""
        console.print(
            f"[bold]{window.title or window.session_id}[/bold] · {window.session_id}{lineage} · "
            f"{window.updated_at:%Y-%m-%d %H:%M}",
            highlight=False,
        )
        for exchange in window.exchanges:
            mark = "[green]>[/green]" if exchange.hit else " "
            console.print(
                f"{mark} #{exchange.sequence_order} Q: {exchange.question or ''}",
                highlight=False,
                soft_wrap=True,
            )
            console.print(f"    A: {exchange.answer or ''}", highlight=False, soft_wrap=True)
