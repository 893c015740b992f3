"""A document replaced while the disk fills up: readers never see two versions of it.

In qdrant-client's local mode a new version is published point by point, then the old
one deleted point by point, one SQLite commit each. A write that fails part-way (the
disk filling up between two commits) left the new version's published part and the old
version both live: every reader saw both versions' passages until the next open, whose
repair (the ingest journal) kept one. Now the failed write is repaired at once, and
when the repair cannot be written either (the disk still full), the versions it would
delete are hidden from every reader until it is.

Each case runs in a child process over a real embedded index: an SQLite trace callback
counts the index's writes, and at the chosen one the process's file-size limit drops to
0 (`support.full_disk.FullDisk`): from there every write fails with EFBIG, as on a
full disk. `freed`: the limit is lifted at the first delete after the failure (space
freed before the repair); `full`: it stays until the reads are done; `full at restart`:
as `full`, and the process opens the index again under the limit (a restart with the
disk still full) before it opens it with space.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from support.children import run_python_reporting_json

CHUNKS = 8  # 4 sections of 60 sentences: 8 chunks a version


def _section(n: int, word: str) -> str:
    return f"## Part {n}\n\n" + " ".join(
        f"{word} sentence {n}.{i} about the plan." for i in range(60)
    )


VERSION = {word: "\n\n".join(_section(n, word) for n in range(4)) for word in ("old", "new")}

REPLACE_ON_A_FILLING_DISK = r"""
import json, re, sys
from pathlib import Path
from support.full_disk import FullDisk
from support.services import make_settings
from threadline.knowledge.filters import SearchFilters
from threadline.services import Services

data_dir, fail_at, how, text = Path(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4]
write = sys.argv[5]


def versions(kb):
    # What a reader sees of the document: its chunks, a search, the listing.
    words = lambda texts: sorted({w for t in texts for w in re.findall(r"(old|new) sentence", t)})
    chunks = kb.document_chunks("plan")
    hits = kb.search("sentence about the plan", k=64, filters=SearchFilters(tenant="default"))
    return {
        "chunks": words(c.text for c in chunks),
        "chunk_count": len(chunks),
        "search": words(h.chunk.text for h in hits),
        "listed": [(d.doc_id, d.chunks) for d in kb.list_documents(tenant="default")],
    }


services = Services(make_settings(data_dir, vector_engine="local"))
kb = services.kb
storage = kb._engine.client._client.collections[kb._engine.collection].storage.storage
disk, full = FullDisk(0), False
counted = {"write": 0, "delete": 0}  # "write 12": the 12th insert; "delete 3": the 3rd delete
kind, nth = fail_at.split()


def fill_the_disk_at_the_nth_write(statement):
    global full
    word = statement.lstrip().split(None, 1)[0].upper()
    if word == "DELETE" and full and how == "freed":
        disk.__exit__()
        full = False
    seen = {"INSERT": "write", "REPLACE": "write", "UPDATE": "write", "DELETE": "delete"}
    if word in seen:
        counted[seen[word]] += 1
        if seen[word] == kind and counted[kind] == int(nth) and not full:
            disk.__enter__()
            full = True


path = data_dir / "in" / "plan.md"
path.write_text(text, encoding="utf-8")
storage.set_trace_callback(fill_the_disk_at_the_nth_write)
try:
    kb.ingest_paths([path]) if write == "replace" else kb.delete_document("plan")
    error = None
except Exception as exc:
    error = type(exc).__name__
seen = {"error": error, "during": versions(kb)}
storage.set_trace_callback(None)
if full:
    disk.__exit__()
seen["after"] = versions(kb)
seen["journal"] = sorted(p.name for p in (data_dir / "ingest-journal").glob("*"))
services.close()
if how == "full at restart":  # the process restarts with the disk still full
    disk.__enter__()
    services = Services(make_settings(data_dir, vector_engine="local"))
    seen["reopened full"] = versions(services.kb)
    services.close()
    disk.__exit__()
services = Services(make_settings(data_dir, vector_engine="local"))
seen["reopened"] = versions(services.kb)
services.close()
seen["journal at last"] = sorted(p.name for p in (data_dir / "ingest-journal").glob("*"))
print(json.dumps(seen))
"""


def write_on_a_filling_disk(data_dir: Path, fail_at: str, how: str, write: str) -> dict:
    return run_python_reporting_json(
        "-c", REPLACE_ON_A_FILLING_DISK, str(data_dir), fail_at, how, VERSION["new"], write
    )


@pytest.mark.parametrize(
    ("fail_at", "write", "kept"),
    [
        ("write 12", "replace", ["old"]),
        ("delete 4", "replace", ["new"]),
        ("delete 4", "delete", []),
    ],
    ids=["publish", "old version's delete", "document delete"],
)
def test_a_restart_with_the_disk_still_full_opens_and_shows_one_version(
    indexed: Path, fail_at: str, write: str, kept: list[str]
) -> None:
    # The repair a failed write left for the next open failed there too when the disk
    # was still full: the index did not open at all (a disk I/O error from the repair's
    # first delete), though reading needs no space. Now it opens, and what the repair
    # would delete is hidden, as it was before the restart; the next open with space
    # finishes the repair.
    seen = write_on_a_filling_disk(indexed, fail_at, "full at restart", write)

    assert seen["error"] is not None and seen["journal"]  # the repair waits for the next open
    for moment in ("after", "reopened full", "reopened"):
        versions = seen[moment]
        assert versions["chunks"] == versions["search"] == kept, (moment, seen)
        expected = ONE_VERSION if kept else {"chunk_count": 0, "listed": []}
        assert {k: versions[k] for k in expected} == expected, (moment, seen)
    assert seen["journal at last"] == []


@pytest.fixture
def indexed(tmp_path: Path) -> Path:
    """A data directory whose index holds the old version of `plan`."""
    from support.services import make_settings
    from threadline.services import Services

    data_dir = tmp_path / "data"
    (data_dir / "in").mkdir(parents=True)
    (data_dir / "in" / "plan.md").write_text(VERSION["old"], encoding="utf-8")
    services = Services(make_settings(data_dir, vector_engine="local"))
    try:
        services.kb.ingest_paths([data_dir / "in" / "plan.md"])
        [info] = services.kb.list_documents(tenant="default")
        assert info.chunks == CHUNKS
    finally:
        services.close()
    return data_dir


ONE_VERSION = {"chunk_count": CHUNKS, "listed": [["plan", CHUNKS]]}

CASES = {
    # Writes 1-8 stage the new version, 9-16 publish it: failing at the 12th leaves 3 of
    # its 8 chunks published beside the whole old version.
    "publish, freed": ("write 12", "freed", "old"),
    "publish, full": ("write 12", "full", "old"),
    "first publish, full": ("write 9", "full", "old"),
    "last publish, full": ("write 16", "full", "old"),
    # Then the old version's 8 chunks are deleted: failing at the 4th leaves 5 of them
    # beside the whole new version.
    "old version's delete, freed": ("delete 4", "freed", "new"),
    "old version's delete, full": ("delete 4", "full", "new"),
}


@pytest.mark.parametrize(("fail_at", "how", "kept"), CASES.values(), ids=CASES)
def test_a_replace_failing_part_way_shows_readers_one_whole_version(
    indexed: Path, fail_at: str, how: str, kept: str
) -> None:
    seen = write_on_a_filling_disk(indexed, fail_at, how, "replace")

    assert seen["error"] is not None  # the write failed, and said so
    for moment in ("during", "after", "reopened"):
        versions = seen[moment]
        assert versions["chunks"] == versions["search"] == [kept], (moment, seen)
        assert {k: versions[k] for k in ONE_VERSION} == ONE_VERSION, (moment, seen)
    if how == "freed":
        assert seen["journal"] == []  # repaired at once: nothing left for the next open


def test_a_document_delete_failing_part_way_leaves_readers_nothing_of_it(indexed: Path) -> None:
    # The 4th of its 8 chunk deletes fails and the disk stays full: 5 chunks of the
    # document were searchable until the next open finished the delete.
    seen = write_on_a_filling_disk(indexed, "delete 4", "full", "delete")

    assert seen["error"] is not None
    for moment in ("during", "after", "reopened"):
        nothing = {"chunks": [], "chunk_count": 0, "search": [], "listed": []}
        assert seen[moment] == nothing, (moment, seen)
