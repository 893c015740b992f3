"""One write of the API on a full disk, in a child process: what the client gets, what is kept.

Run as `python -m support.full_disk <data_dir> <write> [engine] [how]`: `engine` is
the embedded vector engine (`edge`, `local`); `how` is `rlimit` (below), `rlimit-small`
(the limit at 512 bytes: small new files are still written) or `filled` (`FilledDisk`:
the data directory's own small file system filled up). For a document write it also
reports the documents the index holds once opened again, as after a restart. The
child builds the real services over `data_dir`, prepares what the write needs, then
sets its own file-size limit to 0 bytes with SIGXFSZ ignored: from there every write
to a file fails with EFBIG, as on a full disk. It makes the one request, lifts the
limit, and prints one JSON line: the answer, and what the service holds afterwards.
The limit lives in the child only, so the test process keeps writing normally.
"""

from __future__ import annotations

import errno
import json
import resource
import signal
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from fastapi.testclient import TestClient

from support.services import make_services, make_settings
from threadline.api.main import create_app
from threadline.conversations.worker import ConversationIndexer
from threadline.services import Services

FIRST = "What SLA applies to the enterprise plan?"
CATALOG = {"products": [{"id": "fd-1", "name": "Orbit Lamp", "brand": "Orbit", "price_usd": 40}]}
MARKDOWN = b"# Full disk policy\n\nThe zebra-quartz procedure moves logs to cold storage.\n"


class FullDisk:
    """While inside, every write to a file of this process past `limit` bytes fails with EFBIG.

    0 (the default): every write fails, as on a full disk. A few hundred bytes: a small
    new file (a journal entry) is still written, a write further into a larger file is
    not, as when the disk fills up between the two.
    """

    def __init__(self, limit: int = 0) -> None:
        self.limit = limit

    def __enter__(self) -> None:
        self._saved = resource.getrlimit(resource.RLIMIT_FSIZE)
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # EFBIG instead of being killed
        resource.setrlimit(resource.RLIMIT_FSIZE, (self.limit, self._saved[1]))

    def __exit__(self, *_: object) -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, self._saved)


class FilledDisk:
    """While inside, the file system holding `folder` has no free block: ENOSPC for real.

    A filler file beside `folder` takes every free block and is removed on the way
    out. Meant for a small file system of the test's own (a tmpfs it mounted):
    SQLite reports ENOSPC as SQLITE_FULL, which the file-size limit cannot produce.
    """

    def __init__(self, folder: Path) -> None:
        self.filler = folder.parent / "filler"

    def __enter__(self) -> None:
        block = b"\0" * (1 << 20)
        with self.filler.open("wb", buffering=0) as out:
            for size in (1 << 20, 4096, 1):
                try:
                    while True:
                        out.write(block[:size])
                except OSError as exc:
                    if exc.errno != errno.ENOSPC:
                        raise

    def __exit__(self, *_: object) -> None:
        self.filler.unlink()


def user_turns(client: TestClient, thread: str) -> list[str]:
    stored = client.get(f"/sessions/{thread}/messages").json()["data"]
    return [m["content"] for m in stored if m["role"] == "user"]


def body_of(response: Any) -> Any:
    """The JSON of an answer, or its text (a stream's events)."""
    if response.headers.get("content-type", "").startswith("application/json"):
        return response.json()
    return response.text


def prepare(
    client: TestClient, data_dir: Path, write: str
) -> tuple[Callable[[], Any], Callable[[], Any]]:
    """Return the write to make on the full disk, and what to read back afterwards."""
    if write == "documents":
        files = {"file": ("full-disk.md", MARKDOWN, "text/markdown")}
        return (
            lambda: client.post("/documents", files=files, data={"doc_id": "full-disk"}),
            lambda: sorted(d["doc_id"] for d in client.get("/documents").json()["data"]),
        )
    if write == "catalog":  # catalogs come in through `threadline ingest`, not the API
        kb = client.app.state.services.kb
        source = data_dir / "in" / "gadgets.json"
        source.parent.mkdir()
        source.write_text(json.dumps(CATALOG), encoding="utf-8")
        return (
            lambda: kb.ingest_paths([source]).errors,
            lambda: sorted(p.name for p in kb.catalog.products("default")),
        )
    if write == "delete-document":
        doc = sorted(d["doc_id"] for d in client.get("/documents").json()["data"])[0]
        return (
            lambda: client.delete(f"/documents/{doc}"),
            lambda: sorted(d["doc_id"] for d in client.get("/documents").json()["data"]),
        )
    if write == "v1":
        body = {"model": "threadline", "messages": [{"role": "user", "content": FIRST}]}
        return (
            lambda: client.post("/v1/chat/completions", json=body),
            lambda: sorted(s["id"] for s in client.get("/sessions").json()["data"]),
        )
    thread = client.post("/chat", json={"query": FIRST}).json()["session_id"]
    if write == "stream":
        body = {"query": "And for P2?", "thread_id": thread}
        return (
            lambda: client.post("/chat/stream", json=body),
            lambda: user_turns(client, thread),
        )
    if write == "turn":
        return (
            lambda: client.post("/chat", json={"query": "And for P2?", "thread_id": thread}),
            lambda: user_turns(client, thread),
        )
    if write == "rating":
        answer = client.get(f"/sessions/{thread}/messages").json()["data"][-1]["id"]
        rate = f"/sessions/{thread}/messages/{answer}/feedback"
        return (
            lambda: client.post(rate, json={"rating": "down", "reason": "incomplete"}),
            lambda: client.get(f"/sessions/{thread}/messages").json()["data"][-1]["metadata"],
        )
    if write == "delete-session":
        index = client.app.state.services.conversations
        ConversationIndexer(client.app.state.services.store, index).run_once(force=True)

        def read_back() -> dict[str, list[str]]:
            indexed = sorted(k[2] for k in index.indexed_versions())
            # The worker's next pass: it forgets indexed sessions the store lacks.
            ConversationIndexer(client.app.state.services.store, index).run_once()
            return {
                "sessions": sorted(s["id"] for s in client.get("/sessions").json()["data"]),
                "indexed": indexed,
                "indexed_after_pass": sorted(k[2] for k in index.indexed_versions()),
            }

        return lambda: client.delete(f"/sessions/{thread}"), read_back
    if write == "import":
        exported = client.get(f"/sessions/{thread}/export?format=json").json()
        return (
            lambda: client.post("/sessions/import?session_id=imported-copy", json=exported),
            lambda: sorted(s["id"] for s in client.get("/sessions").json()["data"]),
        )
    raise SystemExit(f"unknown write {write!r}")


def main(data_dir: Path, write: str, engine: str = "edge", how: str = "rlimit") -> None:
    services = make_services(data_dir, vector_engine=engine)
    try:
        with TestClient(create_app(services), raise_server_exceptions=False) as client:
            attempt, read_back = prepare(client, data_dir, write)
            before = read_back()
            with full_disk(how, data_dir):
                response = attempt()
            after = read_back()
    finally:
        services.close()
    reopened = documents_on_reopening(data_dir, engine) if "document" in write else None
    answer = (
        {"errors": response}
        if isinstance(response, dict)
        else {"status": response.status_code, "body": body_of(response)}
    )
    # Temp files of a write: `.<name>.<random>.tmp`, `<journal>.tmp`, `.tmp-<random>.json`.
    temps = sorted(
        str(p.relative_to(data_dir))
        for p in data_dir.rglob("*")
        if p.is_file() and (p.suffix == ".tmp" or p.name.startswith(".tmp"))
    )
    seen = {"before": before, "after": after, "reopened": reopened, "temp_files": temps}
    print(json.dumps({**answer, **seen}))


def full_disk(how: str, data_dir: Path) -> FullDisk | FilledDisk:
    """`rlimit`: no write; `rlimit-small`: no write past 512 bytes; `filled`: a filled disk."""
    if how == "filled":
        return FilledDisk(data_dir)
    return FullDisk(512 if how == "rlimit-small" else 0)


def documents_on_reopening(data_dir: Path, engine: str) -> list[str]:
    """The documents the index holds once opened again (its repair run), as a restart sees."""
    services = Services(make_settings(data_dir, vector_engine=engine))  # nothing ingested
    try:
        return sorted(d.doc_id for d in services.kb.list_documents(tenant="default"))
    finally:
        services.close()


if __name__ == "__main__":
    main(Path(sys.argv[1]), *sys.argv[2:])
