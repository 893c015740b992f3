"""What the `threadline` commands share: options, the console, the services, the store.

A command that opens the index finds out here whether a `threadline serve` on the same
data directory holds it, and says in one line where to go instead: `serve` leaves the
address it listens on in the data directory (`SERVER_FILE`).
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.console import Console

from threadline.settings import get_settings

if TYPE_CHECKING:
    from threadline.services import Services
    from threadline.store import ConversationStoreProtocol

console = Console()


def checked_id(kind: str) -> Callable[[str | None], str | None]:
    """Return a parameter callback that refuses an id the store would refuse.

    An id the store refuses (a path, a look-alike letter, the empty string) used to
    reach it and end the command in an `InvalidIdError` traceback; checked as the
    command line is parsed, it is one line naming the option (exit code 2).
    """

    def check(value: str | None) -> str | None:
        from threadline.store.errors import InvalidIdError
        from threadline.store.ids import validate_id

        if value is None:
            return None
        try:
            return validate_id(value, kind)
        except InvalidIdError as exc:
            raise typer.BadParameter(str(exc)) from exc

    return check


TenantOpt = Annotated[
    str, typer.Option(help="Tenant that owns the data.", callback=checked_id("tenant"))
]
CallerOpt = Annotated[
    str, typer.Option(help="Calling application.", callback=checked_id("caller_app"))
]
SessionIdArg = Annotated[str, typer.Argument(callback=checked_id("session_id"))]


def open_services_unchecked() -> Services:
    """Build the services from the settings (the index opens on first use)."""
    from threadline.services import Services

    return Services(get_settings())


@contextmanager
def open_store() -> Iterator[ConversationStoreProtocol]:
    """Open the conversation store the settings select, closed when the block ends.

    PostgreSQL when ``database_url`` is set (with a pool of its own, sized and timed
    out as configured), else the JSON files under ``sessions_dir``.

    Raises:
        SchemaVersionError: If the database's schema is not this code's version.
    """
    from threadline.store.backends import close_store

    settings = get_settings()
    store: ConversationStoreProtocol
    if settings.database_url is not None:
        from threadline.store.postgres import PostgresStore

        store = PostgresStore.connect(
            settings.database_url.get_secret_value(),
            lock_timeout=settings.lock_timeout,
            max_size=settings.database_pool_size,
            statement_timeout=settings.database_statement_timeout,
        )
    else:
        from threadline.store.json_store import ConversationStore

        store = ConversationStore(settings.sessions_dir, lock_timeout=settings.lock_timeout)
    try:
        yield store
    finally:
        close_store(store)


# --- beside a running server ----------------------------------------------------
SERVER_FILE = "server.json"
EXIT_INDEX_HELD = 3


def server_file() -> Path:
    """Return where `serve` records the address it listens on."""
    return get_settings().data_dir / SERVER_FILE


def running_server_url() -> str | None:
    """Return the URL of the `threadline serve` running on this data directory, if any."""
    try:
        info = json.loads(server_file().read_text(encoding="utf-8"))
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


def index_holder(index_dir: Path) -> str | None:
    """Name the process that holds the embedded index's lock, as "process PID (command)".

    The engine takes a `flock` on its write-ahead log directory; Linux lists the
    holders of every such lock in /proc/locks by inode. ``None`` where that cannot be
    read (another system) or no holder is found.
    """
    try:
        candidates = [index_dir, *index_dir.glob("wal"), *index_dir.glob("*/wal")]
        inodes = {path.stat().st_ino for path in candidates}
        locks = Path("/proc/locks").read_text(encoding="ascii").splitlines()
    except OSError:
        return None
    for entry in locks:
        fields = entry.split()
        # "1: FLOCK  ADVISORY  WRITE 15500 fe:00:2811820 0 EOF"
        if len(fields) < 6 or fields[1] != "FLOCK":
            continue
        pid, inode = fields[4], fields[5].rsplit(":", 1)[-1]
        if inode.isdigit() and int(inode) in inodes and pid.isdigit():
            try:
                raw = Path(f"/proc/{pid}/cmdline").read_bytes()
            except OSError:
                return f"process {pid}"
            command = " ".join(part.decode(errors="replace") for part in raw.split(b"\0") if part)
            return f"process {pid} ({command})" if command else f"process {pid}"
    return None


def index_held(exc: Exception, hint: str) -> typer.Exit:
    """Say in one line who holds the index and what to do; the exit to raise."""
    from threadline.knowledge.engines import IndexLockedError

    url = running_server_url()
    holder = index_holder(exc.path) if isinstance(exc, IndexLockedError) else None
    if url:
        where = f"a threadline server at {url}"
    else:
        where = holder or "another process (a threadline server?)"
    todo = hint.format(url=url or "http://HOST:PORT")
    console.print(
        f"[red]The index in {get_settings().data_dir} is held by {where}:[/red] {todo}",
        highlight=False,
        soft_wrap=True,
    )
    return typer.Exit(EXIT_INDEX_HELD)


def open_services(hint: str) -> Services:
    """Services with the index open, or a one-line explanation and exit 3."""
    from threadline.knowledge.engines import IndexLockedError

    services = open_services_unchecked()
    try:
        services.kb  # noqa: B018 - opens the index now, so a held one is reported here
    except IndexLockedError as exc:
        raise index_held(exc, hint) from None
    return services
