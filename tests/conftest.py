"""Fixtures more than one tier uses: the throw-away PostgreSQL cluster and its databases.

Each tier has its own conftest.py (tests/unit guards the unit rule; tests/integration
holds the sample services and the store backends). Plain helpers live in tests/support
(importable as `support`, since this directory is on sys.path), not here.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest


@pytest.fixture(scope="session")
def pg_cluster():
    """One throw-away PostgreSQL cluster for the whole run (installed with apt if missing)."""
    from support.postgres import start_cluster

    cluster = start_cluster()
    yield cluster
    cluster.stop()


@pytest.fixture
def pg_url(pg_cluster) -> Iterator[str]:
    """A fresh, migrated database of the test cluster."""
    from support.postgres import fresh_database

    name, url = fresh_database(pg_cluster)
    yield url
    pg_cluster.drop_database(name)


@pytest.fixture(scope="session")
def llama_server(tmp_path_factory):
    """llama.cpp's OpenAI-compatible server with SmolLM2-135M, for the whole run.

    Built once per machine (minutes; see benchmarks/llama_server.py), started once per run.
    """
    from benchmarks.llama_server import LlamaServer, provision

    server = LlamaServer(provision(), log=tmp_path_factory.mktemp("llama") / "server.log")
    yield server
    server.stop()
