"""The `threadline` command: ingest, serve, chat, sessions, log."""

from __future__ import annotations

import json
import uuid
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.table import Table

from threadline.settings import get_settings

app = typer.Typer(no_args_is_help=True, help="Multi-turn, strictly grounded chat over documents.")
sessions_app = typer.Typer(no_args_is_help=True, help="List, show and delete sessions.")
app.add_typer(sessions_app, name="sessions")
bench_app = typer.Typer(no_args_is_help=True, help="Benchmarks of the service's own pipeline.")
app.add_typer(bench_app, name="bench")
console = Console()

TenantOpt = Annotated[str, typer.Option(help="Tenant that owns the data.")]
CallerOpt = Annotated[str, typer.Option(help="Calling application.")]


def _services():
    from threadline.services import Services

    return Services(get_settings())


@app.command()
def ingest(
    paths: Annotated[list[Path], typer.Argument(help="Files or directories to ingest.")],
    tenant: TenantOpt = "default",
    source_app: Annotated[str | None, typer.Option(help="Tag chunks with an app.")] = None,
    workspace: Annotated[str | None, typer.Option(help="Tag chunks with a workspace.")] = None,
    prune: Annotated[bool, typer.Option(help="Remove documents whose file is gone.")] = False,
) -> None:
    """Ingest Markdown/text documents and JSON product catalogs (unchanged files are skipped)."""
    services = _services()
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
    console.print(report.summary())
    if report.errors:
        raise typer.Exit(1)


@app.command()
def serve(
    host: Annotated[str | None, typer.Option(help="Interface to bind.")] = None,
    port: Annotated[int | None, typer.Option(help="Port to listen on.")] = None,
) -> None:
    """Serve the HTTP API."""
    import uvicorn

    settings = get_settings()
    uvicorn.run(
        "threadline.api.main:create_app",
        factory=True,
        host=host or settings.host,
        port=port or settings.port,
        log_level="info",
    )


@app.command()
def chat(
    thread_id: Annotated[str | None, typer.Option(help="Continue this conversation.")] = None,
    tenant: TenantOpt = "default",
    caller_app: CallerOpt = "cli",
    message: Annotated[
        list[str] | None, typer.Option("--message", "-m", help="Send these and exit.")
    ] = None,
) -> None:
    """Chat in the terminal through the same graph as the API."""
    from threadline.chat import ChatService, TurnRequest

    services = _services()
    service = ChatService(services)
    thread = thread_id or f"cli-{uuid.uuid4().hex[:10]}"
    console.print(f"[dim]thread {thread} (Ctrl-D to quit)[/dim]")

    def turn(text: str) -> None:
        result = service.run_turn(
            TurnRequest(query=text, thread_id=thread, tenant=tenant, caller_app=caller_app)
        )
        console.print(result.answer, markup=False, highlight=False)
        for c in result.citations:
            section = f" — {c['section']}" if c.get("section") else ""
            console.print(f"[dim]  [{c['id']}] {c['title']}{section}[/dim]", highlight=False)
        if result.outline:
            chips = "  ".join(f"{o['id']} {o['title']}" for o in result.outline)
            console.print(f"[cyan]SUIVI[/cyan] {chips}", highlight=False)
        fu = result.followup
        console.print(
            f"[dim]route={result.route} outcome={result.outcome} "
            f"followup={fu['ref_type']}:{fu['section_id']} query={result.search_query!r}[/dim]",
            highlight=False,
        )

    try:
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
    finally:
        services.close()


@sessions_app.command("list")
def sessions_list(
    tenant: TenantOpt = "default",
    caller_app: Annotated[str | None, typer.Option(help="Only this caller app.")] = None,
    limit: int = 50,
) -> None:
    """List sessions, most recent first."""
    from threadline.store import ConversationStore

    settings = get_settings()
    store = ConversationStore(settings.sessions_dir, lock_timeout=settings.lock_timeout)
    summaries, total = store.list_sessions(tenant=tenant, caller_app=caller_app, limit=limit)
    table = Table("id", "caller_app", "title", "messages", "updated")
    for s in summaries:
        table.add_row(
            s.id, s.caller_app, s.title or "", str(s.message_count), s.updated_at.isoformat()
        )
    console.print(table)
    console.print(f"{total} session(s)")


@sessions_app.command("show")
def sessions_show(
    session_id: str, tenant: TenantOpt = "default", caller_app: CallerOpt = "default"
) -> None:
    """Print a session as JSON."""
    from threadline.store import ConversationStore

    settings = get_settings()
    store = ConversationStore(settings.sessions_dir, lock_timeout=settings.lock_timeout)
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
    from threadline.store import ConversationStore

    settings = get_settings()
    store = ConversationStore(settings.sessions_dir, lock_timeout=settings.lock_timeout)
    if not store.delete_session(tenant=tenant, caller_app=caller_app, session_id=session_id):
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
    from threadline.store import ConversationStore

    settings = get_settings()
    store = ConversationStore(settings.sessions_dir, lock_timeout=settings.lock_timeout)
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
    from threadline.querylog import QueryLog

    rows = QueryLog(get_settings().queries_log_path).thread(thread)
    if as_json:
        for row in rows:
            typer.echo(json.dumps(row, ensure_ascii=False))
        return
    table = Table("created_at", "question", "route", "ref", "section", "method", "outcome", "llm")
    for r in rows:
        table.add_row(
            r["created_at"][:19],
            r["question"][:40],
            r["route"] or "",
            r["followup_ref_type"] or "",
            r["followup_section_id"] or "",
            r["followup_method"] or "",
            r["outcome"] or "",
            str(r["llm_calls"]),
        )
    console.print(table)


@bench_app.command("retrieval")
def bench_retrieval(
    corpus: Annotated[Path, typer.Option(help="Corpus JSONL: id, title, text, domain.")],
    tasks: Annotated[Path, typer.Option(help="Tasks JSONL: task_id, domain, turns.")],
    out: Annotated[Path, typer.Option(help="Where to write the run JSONL.")],
    embeddings: Annotated[
        str, typer.Option(help="hybrid, sparse or dense (a fresh index is built).")
    ] = "hybrid",
    k: Annotated[int, typer.Option(help="Passage ids written per task.", min=10, max=30)] = 20,
    limit: Annotated[int | None, typer.Option(help="Only the first N tasks.", min=1)] = None,
    qrels: Annotated[Path | None, typer.Option(help="Qrels TSV, to score the run.")] = None,
    score: Annotated[bool, typer.Option("--score", help="Score the run (needs --qrels).")] = False,
    index_dir: Annotated[
        Path | None, typer.Option(help="Keep the index here and reuse it across runs.")
    ] = None,
    fusion: Annotated[
        list[str] | None,
        typer.Option(help="Override a fusion weight, NAME=VALUE (repeatable), for ablations."),
    ] = None,
    trace: Annotated[
        Path | None, typer.Option(help="Also write each task's route and query variants.")
    ] = None,
) -> None:
    """Replay multi-turn tasks through router, reformulator and retriever; rank passages."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeElapsedColumn

    from threadline.bench.retrieval import parse_fusion, run_benchmark, score_run

    if embeddings not in ("hybrid", "sparse", "dense"):
        console.print("[red]--embeddings must be hybrid, sparse or dense[/red]")
        raise typer.Exit(2)
    if score and qrels is None:
        console.print("[red]--score needs --qrels[/red]")
        raise typer.Exit(2)
    try:
        config = parse_fusion(fusion or [])
    except ValueError as exc:
        console.print(f"[red]{exc}[/red]")
        raise typer.Exit(2) from exc
    err = Console(stderr=True)
    with Progress(
        "[progress.description]{task.description}",
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=err,
    ) as bar:
        bars: dict[str, object] = {}

        def progress(phase: str, done: int, total: int) -> None:
            if phase not in bars:
                bars[phase] = bar.add_task(f"{phase:<6}", total=total)
            bar.update(bars[phase], completed=done)

        report = run_benchmark(
            corpus,
            tasks,
            out,
            embeddings=embeddings,
            k=k,
            limit=limit,
            index_dir=index_dir,
            fusion=config,
            progress=progress,
            trace_path=trace,
        )
    err.print(report.summary(), highlight=False)
    err.print(f"run written to {out}", highlight=False)
    if score and qrels is not None:
        typer.echo(score_run(out, qrels, tasks_path=tasks), nl=False)


@bench_app.command("answers")
def bench_answers(
    corpus: Annotated[Path, typer.Option(help="Corpus JSONL: id, title, text, domain.")],
    tasks: Annotated[
        Path, typer.Option(help="Tasks JSONL: task_id, conversation_id, domain, turns.")
    ],
    out: Annotated[Path, typer.Option(help="Where to write the run JSONL.")],
    embeddings: Annotated[
        str, typer.Option(help="hybrid, sparse or dense (a fresh index is built).")
    ] = "hybrid",
    limit: Annotated[int | None, typer.Option(help="Only the first N tasks.", min=1)] = None,
    score: Annotated[
        bool, typer.Option("--score", help="Score the run with score.py beside the tasks file.")
    ] = False,
    index_dir: Annotated[
        Path | None, typer.Option(help="Keep the index here and reuse it across runs.")
    ] = None,
    scorer: Annotated[
        Path | None, typer.Option(help="score.py to use (default: beside the tasks file).")
    ] = None,
) -> None:
    """Replay conversations (dataset answers as history); answer, decline or ask at the end."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeElapsedColumn

    from threadline.bench.answers import run_answers_benchmark, score_answers

    if embeddings not in ("hybrid", "sparse", "dense"):
        console.print("[red]--embeddings must be hybrid, sparse or dense[/red]")
        raise typer.Exit(2)
    err = Console(stderr=True)
    with Progress(
        "[progress.description]{task.description}",
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=err,
    ) as bar:
        bars: dict[str, object] = {}

        def progress(phase: str, done: int, total: int) -> None:
            if phase not in bars:
                bars[phase] = bar.add_task(f"{phase:<6}", total=total)
            bar.update(bars[phase], completed=done)

        report = run_answers_benchmark(
            corpus,
            tasks,
            out,
            embeddings=embeddings,
            limit=limit,
            index_dir=index_dir,
            progress=progress,
        )
    err.print(report.summary(), highlight=False)
    err.print(f"run written to {out}", highlight=False)
    if score:
        typer.echo(score_answers(out, tasks, script=scorer), nl=False)


if __name__ == "__main__":  # pragma: no cover
    app()
