"""`threadline log`: the queries log of one thread, or the turns users flagged.

`--thread ID` prints one conversation's turns; `--feedback down` (or `up`) prints
every turn whose answer's latest rating is that one, with what a maintainer needs
to see why: the question, the query searched, the route, the follow-up resolution,
the cited sources and the user's reason. `--trace` adds each turn's stored trace.
"""

from __future__ import annotations

import json
from typing import Annotated, Any, Literal

import typer
from rich.table import Table

from threadline.cli_common import console, open_services_unchecked


def _followup(row: dict[str, Any]) -> str:
    if not row["followup_detected"]:
        return "none"
    state = "resolved" if row["followup_resolved"] else "not resolved"
    parts = [state, row["followup_ref_type"], row["followup_section_id"], row["followup_method"]]
    return " · ".join(p for p in parts if p)


def _citations(row: dict[str, Any]) -> list[str]:
    doc_ids = json.loads(row["doc_ids"] or "[]")
    titles = json.loads(row["titles"] or "[]")
    return [f"{title} ({doc_id})" for doc_id, title in zip(doc_ids, titles, strict=False)]


def _print_trace(row: dict[str, Any]) -> None:
    trace = json.loads(row["trace"]) if row.get("trace") else None
    if not trace:
        console.print("  trace: (none stored)")
        return
    console.print("  trace:")
    for entry in trace:
        console.print(f"    {json.dumps(entry, ensure_ascii=False)}", highlight=False)


def _print_flagged(rows: list[dict[str, Any]], *, trace: bool) -> None:
    for r in rows:
        console.print(
            f"[bold]{r['created_at'][:16].replace('T', ' ')}[/bold] "
            f"{r['tenant']}/{r['caller_app']}/{r['thread_id']} turn {r['turn_id']}",
            highlight=False,
        )
        reason = r["feedback_reason"] or "no reason"
        comment = f": {r['feedback_comment']}" if r["feedback_comment"] else ""
        lines = [
            ("feedback", f"{r['feedback']} ({reason}){comment}"),
            ("question", r["question"]),
            ("search query", r["search_query"] or ""),
            ("route", f"{r['route'] or ''} -> {r['outcome'] or ''} ({r['stop_reason'] or ''})"),
            ("follow-up", _followup(r)),
            ("citations", "; ".join(_citations(r)) or "none"),
        ]
        for name, value in lines:
            console.print(f"  {name}: {value}", highlight=False, soft_wrap=True)
        if trace:
            _print_trace(r)
        console.print()
    console.print(f"{len(rows)} flagged turn(s)")


def show_log(
    thread: Annotated[str | None, typer.Option("--thread", help="Thread (session) id.")] = None,
    feedback: Annotated[
        Literal["up", "down"] | None,
        typer.Option("--feedback", help="List the turns whose answer users rated so."),
    ] = None,
    tenant: Annotated[str | None, typer.Option(help="Only this tenant.")] = None,
    caller_app: Annotated[str | None, typer.Option(help="Only this caller app.")] = None,
    trace: Annotated[bool, typer.Option("--trace", help="Also print each turn's trace.")] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print rows as JSON lines.")] = False,
) -> None:
    """Print the queries log of one thread, or the turns users flagged (--feedback down)."""
    if (thread is None) == (feedback is None):
        console.print("[red]give --thread ID or --feedback up|down[/red]")
        raise typer.Exit(2)
    log = open_services_unchecked().querylog
    if feedback is not None:
        rows = log.flagged(feedback, tenant=tenant, caller_app=caller_app)
    else:
        assert thread is not None
        rows = log.thread(thread, tenant=tenant, caller_app=caller_app)
    if as_json:
        for row in rows:
            typer.echo(json.dumps(row, ensure_ascii=False))
        return
    if feedback is not None:
        _print_flagged(rows, trace=trace)
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
    if trace:
        for r in rows:
            console.print(f"{r['created_at'][:16].replace('T', ' ')} {r['question']}")
            _print_trace(r)
