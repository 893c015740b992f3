"""A process killed while qdrant-client's local mode sets payload fields point by point.

`VectorEngine.set_metadata_where` is one operation in Qdrant Edge and a server, but the
local mode writes (and commits) each point on its own: a crash stops it part-way. The
callers must come out whole anyway. Each case runs in a child process that kills itself
(`os._exit`, no clean-up) just before its Nth point write of the pass under test, then
the index is opened again as a restart would.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from support.conversations import add_turns
from support.services import make_settings
from threadline.conversations.worker import ConversationIndexer
from threadline.knowledge.filters import SearchFilters
from threadline.knowledge.payloads import document_state
from threadline.services import Services

TURNS = [
    ("What SLA applies to the enterprise plan?", "The Enterprise plan guarantees 99.95% uptime."),
    ("and for P2?", "P2 incidents get a first response within 1 hour."),
    ("who do I call at night?", "The on-call desk answers around the clock."),
]
KEY = ("t1", "web", "sla")

RENAME_AND_DIE = r"""
import os, sys
from pathlib import Path
from support.crash import die_before_the_nth_write
from support.services import make_settings
from threadline.conversations.worker import ConversationIndexer
from threadline.knowledge.filters import SearchFilters
from threadline.knowledge.payloads import document_state
from threadline.services import Services

data_dir, die_at = Path(sys.argv[1]), int(sys.argv[2])
services = Services(make_settings(data_dir, vector_engine="local"))
index = services.conversations
services.store.update_session(tenant="t1", caller_app="web", session_id="sla", title="Renamed")
local = index.engine.client._client  # qdrant-client's QdrantLocal
storage = local.collections[index.engine.collection].storage.storage  # its sqlite3 connection
die_before_the_nth_write(storage, die_at)
ConversationIndexer(services.store, index).run_once(force=True)
os._exit(0)
"""


def run_until_killed(script: str, *args: str) -> subprocess.CompletedProcess[str]:
    """Run a script that kills itself at a chosen write (exit 9), or finishes (exit 0)."""
    killed = subprocess.run(
        [sys.executable, "-c", script, *args],
        env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)},
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert killed.returncode in (0, 9), killed.stderr[-3000:]
    return killed


@pytest.mark.parametrize("die_at", [1, 2, 3, 4, 5])
def test_a_rename_cut_short_by_a_crash_is_finished_by_the_next_pass(
    tmp_path: Path, die_at: int
) -> None:
    # The summary (whose version stamp says the session is indexed) was written
    # first, the other chunks' title after: killed in between, the session looked
    # indexed with chunks showing the old title, and no pass ever fixed them.
    data_dir = tmp_path / "data"
    services = Services(make_settings(data_dir, vector_engine="local"))
    add_turns(services.store, *KEY, TURNS)
    ConversationIndexer(services.store, services.conversations).run_once(force=True)
    assert {c["title"] for c in services.conversations.session_chunks(KEY)} != {"Renamed"}
    services.close()

    killed = run_until_killed(RENAME_AND_DIE, str(data_dir), str(die_at))

    services = Services(make_settings(data_dir, vector_engine="local"))
    try:
        ConversationIndexer(services.store, services.conversations).run_once(force=True)
        chunks = services.conversations.session_chunks(KEY)
        assert len(chunks) == 4
        assert {c["title"] for c in chunks} == {"Renamed"}, (killed.returncode, chunks)
    finally:
        services.close()


def _section(n: int, word: str) -> str:
    return f"## Part {n}\n\n" + " ".join(
        f"{word} sentence {n}.{i} about the plan." for i in range(60)
    )


VERSION = {word: "\n\n".join(_section(n, word) for n in range(4)) for word in ("old", "new")}

REUPLOAD_AND_DIE = r"""
import os, sys
from pathlib import Path
from support.crash import die_before_the_nth_write
from support.services import make_settings
from threadline.knowledge.filters import SearchFilters
from threadline.knowledge.payloads import document_state
from threadline.services import Services

data_dir, die_at, text = Path(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
services = Services(make_settings(data_dir, vector_engine="local"))
kb = services.kb
storage = kb._engine.client._client.collections[kb._engine.collection].storage.storage
(data_dir / "in" / "plan.md").write_text(text, encoding="utf-8")
die_before_the_nth_write(storage, die_at)
kb.ingest_paths([data_dir / "in" / "plan.md"])
os._exit(0)
"""


def _document(services: Services) -> tuple[int, set[str]]:
    kb = services.kb
    [info] = kb.list_documents(tenant="default")
    hits = kb._engine.metadatas(  # noqa: SLF001 - every chunk, as stored
        SearchFilters(tenant="default", doc_ids=(info.doc_id,)).to_qdrant()
    )
    metas = list(hits)
    assert document_state(metas).complete, metas
    return info.chunks, {m["content_hash"] for m in metas}


@pytest.mark.parametrize("die_at", range(1, 17, 3))
def test_a_document_replaced_and_cut_short_by_a_crash_is_whole_after_reopening(
    tmp_path: Path, die_at: int
) -> None:
    # Staging writes each chunk, publishing sets `tenant` on each one by one: a kill
    # anywhere in between must leave one whole version (the journal's repair).
    data_dir = tmp_path / "data"
    (data_dir / "in").mkdir(parents=True)
    (data_dir / "in" / "plan.md").write_text(VERSION["old"], encoding="utf-8")
    services = Services(make_settings(data_dir, vector_engine="local"))
    services.kb.ingest_paths([data_dir / "in" / "plan.md"])
    old = _document(services)
    services.close()

    killed = run_until_killed(REUPLOAD_AND_DIE, str(data_dir), str(die_at), VERSION["new"])

    services = Services(make_settings(data_dir, vector_engine="local"))
    try:
        chunks, hashes = _document(services)
        assert len(hashes) == 1
        assert (chunks, hashes) == old or hashes != old[1], killed.returncode
    finally:
        services.close()
