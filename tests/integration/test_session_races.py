"""One session's delete, rename and import racing each other over a real server.

Many clients import the same session id at once (one wins, the others hear 409),
rename it while others delete it, and fork it while it is deleted: every answer is
a status the API documents (never a 500), and what is left is whole.
"""

from __future__ import annotations

from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx
import pytest

from support.server import Server

ENV = {"THREADLINE_EMBEDDINGS": "sparse", "THREADLINE_LLM": "offline"}
WORKERS = 8


@pytest.fixture(scope="module")
def server(tmp_path_factory) -> Iterator[Server]:
    data: Path = tmp_path_factory.mktemp("session-races") / "data"
    data.mkdir()
    with Server(data, **ENV) as running:
        yield running


def exported_session(server: Server, sid: str) -> dict:
    server.chat(query="What is the refund policy?", thread_id=sid)
    server.chat(query="And for annual plans?", thread_id=sid)
    answer = httpx.get(f"{server.url}/sessions/{sid}/export?format=json", timeout=60)
    assert answer.status_code == 200, answer.text
    return answer.json()


def test_concurrent_imports_of_one_id_store_it_once(server):
    exported = exported_session(server, "import-source")

    def import_it(_: int) -> int:
        url = f"{server.url}/sessions/import?session_id=imported-once"
        return httpx.post(url, json=exported, timeout=60).status_code

    with ThreadPoolExecutor(WORKERS) as pool:
        statuses = sorted(pool.map(import_it, range(WORKERS)))
    assert statuses == [201] + [409] * (WORKERS - 1), statuses
    stored = httpx.get(f"{server.url}/sessions/imported-once/messages", timeout=60).json()
    assert stored["count"] == 4


def test_renames_deletes_and_forks_of_one_session_never_fail_with_a_500(server):
    for round_ in range(3):
        sid = f"churn-{round_}"
        exported_session(server, sid)

        def act(n: int, sid: str = sid) -> tuple[int, str | None]:
            base = f"{server.url}/sessions/{sid}"
            if n % 3 == 0:
                return httpx.delete(base, timeout=60).status_code, None
            if n % 3 == 1:
                return httpx.patch(base, json={"title": f"t{n}"}, timeout=60).status_code, None
            fork = httpx.post(f"{base}/fork", json={}, timeout=60)
            return fork.status_code, fork.json().get("id") if fork.status_code == 201 else None

        with ThreadPoolExecutor(WORKERS) as pool:
            results = list(pool.map(act, range(WORKERS * 2)))
        statuses = [status for status, _ in results]
        assert set(statuses) <= {200, 201, 404}, statuses
        assert 200 in statuses
        assert httpx.get(f"{server.url}/sessions/{sid}", timeout=60).status_code == 404
        for fork_id in [fork for _, fork in results if fork]:  # a fork taken is whole
            messages = httpx.get(f"{server.url}/sessions/{fork_id}/messages", timeout=60)
            assert messages.status_code == 200 and messages.json()["count"] == 4
