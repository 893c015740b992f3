"""Uploads racing each other, a delete, and a slow client, over a real server on loopback.

Many clients upload the same document id at once, or different ones of one tenant;
uploads and deletes of one id interleave; one client sends its body a little at a
time. Afterwards the server is stopped and the index opened from its files: each
document holds the chunks of exactly one upload (no mix of versions, no orphan
chunk), and every document whose upload was answered 201 is listed.
"""

from __future__ import annotations

import socket
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx
import pytest

from support.server import Server
from support.services import make_settings
from threadline.knowledge.index import KnowledgeBase

ENV = {"THREADLINE_EMBEDDINGS": "sparse", "THREADLINE_LLM": "offline"}
WORKERS = 8


def version_text(doc: str, version: int, sections: int) -> bytes:
    """A Markdown document whose every chunk names its version."""
    parts = [f"# {doc} version {version}\n"]
    for n in range(sections):
        parts.append(
            f"\n## Section {n}\n\nMarker v{version}-marker. The {doc} procedure step {n} "
            f"applies in version {version}.\n"
        )
    return "".join(parts).encode()


@pytest.fixture
def server(tmp_path: Path) -> Iterator[Server]:
    data = tmp_path / "data"
    data.mkdir()
    with Server(data, **ENV) as running:
        yield running


def upload(url: str, doc: str, body: bytes) -> int:
    files = {"file": (f"{doc}.md", body, "text/markdown")}
    return httpx.post(
        f"{url}/documents", files=files, data={"doc_id": doc}, timeout=120
    ).status_code


def stored_versions(data: Path, doc: str) -> tuple[set[str], int]:
    """The version markers of a document's chunks, and how many: the stopped server's index."""
    kb = KnowledgeBase(make_settings(data))
    try:
        chunks = kb.document_chunks(doc, tenant="default")
    finally:
        kb.close()
    markers = {word for c in chunks for word in c.text.split() if word.endswith("-marker.")}
    return markers, len(chunks)


def test_concurrent_uploads_of_one_id_leave_one_whole_version(server, tmp_path):
    # Versions of different lengths: a mix would show as a marker too many or a count off.
    bodies = {v: version_text("race", v, sections=2 + v) for v in range(WORKERS)}
    with ThreadPoolExecutor(WORKERS) as pool:
        statuses = list(pool.map(lambda v: upload(server.url, "race", bodies[v]), bodies))
    assert set(statuses) == {201}, statuses
    listed = httpx.get(f"{server.url}/documents", timeout=60).json()["data"]
    assert [d["doc_id"] for d in listed] == ["race"]
    server.stop()
    markers, count = stored_versions(tmp_path / "data", "race")
    assert len(markers) == 1, markers
    version = int(next(iter(markers))[1:].split("-")[0])
    assert count == listed[0]["chunks"]
    assert count >= 2 + version  # every section of that one version


def test_concurrent_uploads_of_one_tenant_are_all_kept(server, tmp_path):
    docs = [f"doc-{n}" for n in range(WORKERS * 2)]
    with ThreadPoolExecutor(WORKERS) as pool:
        statuses = list(pool.map(lambda d: upload(server.url, d, version_text(d, 1, 3)), docs))
    assert set(statuses) == {201}, statuses
    listed = httpx.get(f"{server.url}/documents?limit=500", timeout=60).json()["data"]
    assert sorted(d["doc_id"] for d in listed) == sorted(docs)
    assert all(d["chunks"] >= 3 for d in listed), listed
    server.stop()
    for listed_doc in listed:
        doc = listed_doc["doc_id"]
        assert stored_versions(tmp_path / "data", doc) == ({"v1-marker."}, listed_doc["chunks"])


def test_uploads_racing_deletes_of_one_id_end_whole_or_absent(server, tmp_path):
    def upload_then_delete(round_: int) -> tuple[int, int]:
        up = upload(server.url, "flip", version_text("flip", round_, sections=1 + round_ % 4))
        gone = httpx.delete(f"{server.url}/documents/flip", timeout=120).status_code
        return up, gone

    with ThreadPoolExecutor(WORKERS) as pool:
        results = list(pool.map(upload_then_delete, range(WORKERS * 2)))
    # An upload overtaken by a delete is a 409 that says so; a delete of what is gone, 404.
    assert {up for up, _ in results} <= {201, 409}, results
    assert {gone for _, gone in results} <= {200, 404}, results
    last = upload(server.url, "flip", version_text("flip", 99, sections=3))
    assert last == 201
    server.stop()
    markers, count = stored_versions(tmp_path / "data", "flip")
    assert markers == {"v99-marker."}, markers
    assert count >= 3


def test_a_slow_upload_holds_no_lock_others_wait_on(server):
    body = version_text("slow", 1, sections=2)
    boundary = "slowboundary"
    form = (
        (
            f'--{boundary}\r\nContent-Disposition: form-data; name="doc_id"\r\n\r\nslow\r\n'
            f'--{boundary}\r\nContent-Disposition: form-data; name="file"; filename="slow.md"\r\n'
            "Content-Type: text/markdown\r\n\r\n"
        ).encode()
        + body
        + f"\r\n--{boundary}--\r\n".encode()
    )
    head = (
        f"POST /documents HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: {len(form)}\r\n"
        f"Content-Type: multipart/form-data; boundary={boundary}\r\n\r\n"
    ).encode()
    with socket.create_connection(("127.0.0.1", server.port), timeout=60) as slow:
        slow.sendall(head + form[: len(form) // 2])
        time.sleep(0.5)  # the server holds half a body
        started = time.monotonic()
        assert upload(server.url, "slow", version_text("slow", 2, sections=2)) == 201
        assert httpx.delete(f"{server.url}/documents/slow", timeout=60).status_code == 200
        assert upload(server.url, "other", version_text("other", 1, sections=1)) == 201
        assert time.monotonic() - started < 20
        slow.sendall(form[len(form) // 2 :])
        answer = slow.recv(65536).decode()
    assert answer.startswith("HTTP/1.1 201"), answer[:300]
    listed = httpx.get(f"{server.url}/documents", timeout=60).json()["data"]
    assert sorted(d["doc_id"] for d in listed) == ["other", "slow"]
