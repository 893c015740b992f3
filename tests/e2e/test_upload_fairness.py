"""A small upload is not stuck behind a big one, and a big one reports its progress
(issue 14, item 10). Real concurrent uploads through a real server."""

from __future__ import annotations

import threading
import time

import httpx

from support.server import Server


def sections(count: int, word: str) -> bytes:
    return "\n\n".join(
        f"## {word} part {i}\nThe {word} document, part {i}, says something about {word}."
        for i in range(count)
    ).encode()


def test_a_small_upload_passes_a_big_one_that_reports_progress(tmp_path):
    server = Server(tmp_path, THREADLINE_EMBEDDINGS="sparse", THREADLINE_LLM="offline")
    try:
        big_done = threading.Event()
        big_status: list[int] = []

        def upload_big() -> None:
            response = httpx.post(
                f"{server.url}/documents",
                files={"file": ("big.md", sections(6000, "big"), "text/markdown")},
                timeout=600,
            )
            big_status.append(response.status_code)
            big_done.set()

        thread = threading.Thread(target=upload_big)
        thread.start()
        # Wait until the big one is being written (its progress is visible)...
        progress: list[dict] = []
        deadline = time.monotonic() + 300
        while not progress and not big_done.is_set():
            assert time.monotonic() < deadline
            progress = httpx.get(f"{server.url}/ingestions", timeout=30).json()["data"]
            time.sleep(0.05)
        assert progress, "the big upload finished before it was seen writing"
        assert progress[0]["doc_id"] == "big" and progress[0]["chunks_total"] == 6000
        # ...then a small one goes through while the big one is still being written.
        small = httpx.post(
            f"{server.url}/documents",
            files={"file": ("small.md", sections(2, "small"), "text/markdown")},
            timeout=600,
        )
        assert small.status_code == 201, small.text
        assert not big_done.is_set(), "the small upload waited for the whole big one"
        thread.join()
        assert big_status == [201]
        listing = httpx.get(f"{server.url}/documents", timeout=30).json()["data"]
        assert {d["doc_id"]: d["chunks"] for d in listing} == {"big": 6000, "small": 2}
        assert httpx.get(f"{server.url}/ingestions", timeout=30).json()["count"] == 0
    finally:
        server.stop()
