"""Concurrent uploads of one doc id through a real `threadline serve`: one version stays, whole."""

from __future__ import annotations

import random
import threading

import httpx
import pytest

from support.server import Server
from support.versioned_documents import assert_whole, versioned_document

SPARSE = {"THREADLINE_EMBEDDINGS": "sparse", "THREADLINE_LLM": "offline"}


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    running = Server(tmp_path_factory.mktemp("race"), **SPARSE)
    yield running
    running.stop()


def upload_together(url: str, doc_id: str, versions: list[tuple[int, int]]) -> list[int]:
    barrier = threading.Barrier(len(versions))
    statuses: list[int] = [0] * len(versions)

    def one(slot: int, version: int, sections: int) -> None:
        with httpx.Client(timeout=120) as client:
            barrier.wait()
            response = client.post(
                f"{url}/documents",
                files={"file": ("race.md", versioned_document(version, sections), "text/markdown")},
                data={"doc_id": doc_id},
            )
            statuses[slot] = response.status_code

    threads = [
        threading.Thread(target=one, args=(slot, version, sections))
        for slot, (version, sections) in enumerate(versions)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return statuses


def read_chunks(url: str, doc_id: str, count: int) -> tuple[list[str], list[int]]:
    """The document's chunks through the passage route (chunk ids follow positions)."""
    import uuid

    from threadline.knowledge.documents import _CHUNK_NAMESPACE

    texts, positions = [], []
    for position in range(count):
        chunk_id = str(uuid.uuid5(_CHUNK_NAMESPACE, f"{doc_id}:{position}"))
        response = httpx.get(f"{url}/documents/{doc_id}/chunks/{chunk_id}", timeout=30)
        assert response.status_code == 200, response.text
        texts.append(response.json()["text"])
        positions.append(position)
    return texts, positions


@pytest.mark.parametrize("repetition", range(20))
def test_concurrent_uploads_of_one_document_leave_one_version_whole(server, repetition):
    doc_id = f"race-{repetition}"
    versions = [(1, 3), (2, 7), (3, 11), (4, 15)]
    random.Random(repetition).shuffle(versions)
    statuses = upload_together(server.url, doc_id, versions)
    assert statuses == [201] * 4
    listing = httpx.get(f"{server.url}/documents", params={"limit": 500}, timeout=30).json()
    [info] = [d for d in listing["data"] if d["doc_id"] == doc_id]
    texts, positions = read_chunks(server.url, doc_id, info["chunks"])
    version, sections = assert_whole(texts, positions)
    assert info["chunks"] == sections and (version, sections) in versions
    # A later concurrent round of updates (versions 5..8) also ends with one of them whole.
    statuses = upload_together(server.url, doc_id, [(5, 2), (6, 9), (7, 4), (8, 12)])
    assert statuses == [201] * 4
    listing = httpx.get(f"{server.url}/documents", params={"limit": 500}, timeout=30).json()
    [info] = [d for d in listing["data"] if d["doc_id"] == doc_id]
    version, _ = assert_whole(*read_chunks(server.url, doc_id, info["chunks"]))
    assert version in {5, 6, 7, 8}
