"""A write on a full disk: a clear 507 `storage_full`, nothing earlier lost, no temp file left.

Each case runs in a child process (`support.full_disk`) whose file-size limit is set to
0 with SIGXFSZ ignored, so every file write fails with EFBIG as on a full disk, through
the real store, index and catalog.
"""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from support.children import run_python_reporting_json
from support.full_disk import CATALOG
from support.services import make_settings
from threadline.api.main import create_app
from threadline.services import Services


def write_on_full_disk(data_dir: Path, write: str, *options: str) -> dict:
    return run_python_reporting_json("-m", "support.full_disk", str(data_dir), write, *options)


@pytest.mark.parametrize("write", ["turn", "rating", "import", "documents"])
def test_a_write_on_a_full_disk_answers_507_and_keeps_what_was_stored(
    tmp_path: Path, write: str
) -> None:
    seen = write_on_full_disk(tmp_path / "data", write)

    assert seen["status"] == 507, seen["body"]
    assert seen["body"]["error"]["code"] == "storage_full"
    assert "nothing" in seen["body"]["error"]["message"]
    assert seen["after"] == seen["before"]  # nothing earlier lost, nothing half saved
    assert seen["temp_files"] == []


def test_an_openai_turn_on_a_full_disk_answers_507_in_openai_shape(tmp_path: Path) -> None:
    seen = write_on_full_disk(tmp_path / "data", "v1")

    assert seen["status"] == 507, seen["body"]
    assert seen["body"]["error"]["code"] == "storage_full"
    assert seen["after"] == seen["before"]
    assert seen["temp_files"] == []


def test_a_streamed_turn_on_a_full_disk_ends_with_a_storage_full_event(tmp_path: Path) -> None:
    seen = write_on_full_disk(tmp_path / "data", "stream")

    assert seen["status"] == 200  # the stream had started: the error travels as an event
    assert "event: error" in seen["body"] and '"code": "storage_full"' in seen["body"]
    assert seen["after"] == seen["before"]
    assert seen["temp_files"] == []


def test_a_catalog_ingested_on_a_full_disk_is_reported_and_leaves_no_temp_file(
    tmp_path: Path,
) -> None:
    seen = write_on_full_disk(tmp_path / "data", "catalog")

    [error] = seen["errors"].values()
    assert "File too large" in error
    assert CATALOG["products"][0]["name"] not in seen["after"]
    assert seen["after"] == seen["before"]
    assert seen["temp_files"] == []


def test_every_route_that_writes_documents_507_and_no_read_does(tmp_path: Path) -> None:
    services = Services(make_settings(tmp_path / "data"))
    try:
        spec = create_app(services).openapi()
    finally:
        services.close()
    documented = {
        (method.upper(), path)
        for path, operations in spec["paths"].items()
        for method, operation in operations.items()
        if "507" in operation.get("responses", {})
    }

    assert {
        ("POST", "/chat"),
        ("POST", "/v1/chat/completions"),
        ("POST", "/documents"),
        ("POST", "/sessions/import"),
        ("POST", "/sessions/{session_id}/messages/{message_id}/feedback"),
        ("POST", "/sessions/{session_id}/regenerate"),
    } <= documented
    assert not {(method, path) for method, path in documented if method == "GET"}


DELETE_CASES = {
    # No write at all: the delete's journal entry is refused with EFBIG, nothing deleted.
    "edge, no write": ("edge", "rlimit", 507),
    "local, no write": ("local", "rlimit", 507),
    # Small files still written: the journal is; SQLite's page writes are not, and it
    # reports EFBIG as a bare disk I/O error (was a 500 internal_error); Edge's update
    # goes through, and the delete is done.
    "local, journal written": ("local", "rlimit-small", 507),
    "edge, journal written": ("edge", "rlimit-small", 200),
}


@pytest.mark.parametrize(("engine", "how", "status"), DELETE_CASES.values(), ids=DELETE_CASES)
def test_a_document_delete_on_a_full_disk_is_refused_whole_or_done_for_good(
    tmp_path: Path, engine: str, how: str, status: int
) -> None:
    seen = write_on_full_disk(tmp_path / "data", "delete-document", engine, how)

    assert seen["status"] == status, seen["body"]
    if status == 507:
        assert seen["body"]["error"]["code"] == "storage_full"
        # Whole in this process and after a restart (the index opened again, repaired).
        assert seen["after"] == seen["reopened"] == seen["before"]
    else:
        assert seen["after"] == seen["reopened"] == seen["before"][1:]
    assert seen["temp_files"] == []
    assert not list((tmp_path / "data" / "ingest-journal").glob("*"))


@pytest.fixture
def small_disk(tmp_path: Path) -> Iterator[Path]:
    """A 96 MB tmpfs of the test's own, unmounted at the end (skipped where mount is denied).

    The file-size limit cannot stand for a full disk in SQLite: it retries a short write
    and reports the EFBIG that follows as a disk I/O error; a real ENOSPC is
    SQLITE_FULL ("database or disk is full"), which needs a real full file system.
    """
    mount_point = tmp_path / "disk"
    mount_point.mkdir()
    mounted = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=96m", "tmpfs", str(mount_point)],
        capture_output=True,
        text=True,
    )
    if mounted.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {mounted.stderr.strip()}")
    try:
        yield mount_point
    finally:
        subprocess.run(["umount", str(mount_point)], check=True)


def test_a_document_delete_on_a_full_disk_in_the_local_engine_answers_507(small_disk):
    # qdrant-client's local mode keeps its points in SQLite, whose "database or disk
    # is full" is an sqlite3 error, not an OSError: it answered 500 internal_error.
    seen = write_on_full_disk(small_disk / "data", "delete-document", "local", "filled")

    assert seen["status"] == 507, seen["body"]
    assert seen["body"]["error"]["code"] == "storage_full"
    assert seen["after"] == seen["before"]
    assert seen["temp_files"] == []


@pytest.mark.parametrize("engine", ["local", "edge"])
def test_a_session_deleted_on_a_full_disk_is_deleted_and_its_chunks_go_on_the_next_pass(
    small_disk, engine
):
    # The store deletes the session (an unlink needs no space); the conversation index
    # could not be written, and its error answered the done delete with a 500.
    seen = write_on_full_disk(small_disk / "data", "delete-session", engine, "filled")

    assert seen["status"] == 200, seen["body"]
    [session] = seen["before"]["sessions"]
    assert seen["before"]["indexed"] == [session]
    assert seen["after"]["sessions"] == []
    assert seen["after"]["indexed_after_pass"] == []
    assert seen["temp_files"] == []


SQLITE_IO_ERROR_ON_A_FULL_DISK = r"""
import json, os, resource, signal, sqlite3, sys
from pathlib import Path
from threadline.api.errors import is_storage_full

disk, roomy = Path(sys.argv[1]), Path(sys.argv[2])
# A real SQLITE_IOERR_WRITE, its errno dropped as for EDQUOT: made under a file-size
# limit (a quota cannot be set up here), then the limit is lifted before the check.
signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
conn = sqlite3.connect(roomy / "queries.sqlite3")
conn.execute("create table t (x)")
conn.commit()
soft, hard = resource.getrlimit(resource.RLIMIT_FSIZE)
resource.setrlimit(resource.RLIMIT_FSIZE, ((roomy / "queries.sqlite3").stat().st_size, hard))
try:
    conn.execute("insert into t values (?)", (b"x" * 100_000,))
    conn.commit()
except sqlite3.Error as exc:
    error = exc
resource.setrlimit(resource.RLIMIT_FSIZE, (soft, hard))
fd = os.open(disk / "filler", os.O_WRONLY | os.O_CREAT)
try:
    while True:
        os.write(fd, b"\0" * (1 << 20))
except OSError:
    os.close(fd)
print(json.dumps({
    "code": error.sqlite_errorcode,
    "full": is_storage_full(error, disk),
    "roomy": is_storage_full(error, roomy),
    "no_dir": is_storage_full(error, None),
    "left": sorted(os.listdir(disk)),
}))
"""


def test_an_sqlite_io_error_with_no_size_limit_is_storage_full_when_the_disk_is(
    small_disk, tmp_path: Path
) -> None:
    # A quota used up (EDQUOT) reaches Python as SQLite's "disk I/O error", errno
    # dropped and no file-size limit set: it answered 500 internal_error. A probe
    # write in the data directory recovers why.
    roomy = tmp_path / "roomy"
    roomy.mkdir()
    seen = run_python_reporting_json(
        "-c", SQLITE_IO_ERROR_ON_A_FULL_DISK, str(small_disk), str(roomy)
    )

    assert seen["code"] == 778  # SQLITE_IOERR_WRITE
    assert seen["full"] is True
    assert seen["roomy"] is False  # an I/O error with space left stays a 500
    assert seen["no_dir"] is False
    assert seen["left"] == ["filler"]  # the probe left no file behind
