"""`threadline chat`: a conversation in the terminal, in this process or through a server."""

from __future__ import annotations

import uuid
from collections.abc import Callable
from typing import Annotated, Any

import typer

from threadline.cli_common import TenantOpt, console, open_services, running_server_url


def _print_turn(result: dict[str, Any]) -> None:
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
    from threadline.heap import freeze_startup_heap

    services = open_services("talk to it with `threadline chat --url {url}`, or stop it.")
    service = ChatService(services)
    # The index and model just opened live as long as the conversation: out of the
    # garbage collector's full passes, as the server's are (at 10k chunks a full pass
    # over what startup loaded took 135 ms of CPU).
    freeze_startup_heap()
    console.print(f"[dim]thread {thread} (Ctrl-D to quit)[/dim]", highlight=False)

    def turn(text: str) -> None:
        """Run one turn in this process and print it."""
        result = service.run_turn(
            TurnRequest(query=text, thread_id=thread, tenant=tenant, caller_app=caller_app)
        )
        _print_turn(result.to_dict())

    try:
        _converse(turn, message)
    finally:
        services.close()


def _converse(turn: Callable[[str], None], message: list[str] | None) -> None:
    """Send the given messages, or read them from the terminal until end of input."""
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
    """Converse through a running server's `POST /chat`."""
    import httpx

    headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
    console.print(f"[dim]thread {thread} via {url} (Ctrl-D to quit)[/dim]", highlight=False)
    with httpx.Client(base_url=url, headers=headers, timeout=300) as client:

        def turn(text: str) -> None:
            """Send one turn to the server and print its answer."""
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
