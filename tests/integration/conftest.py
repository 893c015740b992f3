"""The integration tier: the real engine, store and databases on temp dirs, in this process.

Fixtures only this tier uses: the sample services (embedded Qdrant, JSON store, SQLite
log) shared by a module, sparse or hybrid as the default deployment, and the store
suite's backend (JSON files or PostgreSQL).
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator

import pytest

from support.services import make_services
from threadline.services import Services


@pytest.fixture(scope="module")
def sample_services(tmp_path_factory) -> Iterator[Services]:
    """The sample knowledge base, sparse embeddings, offline model (one per test module)."""
    data_dir = tmp_path_factory.mktemp("data")
    services = make_services(data_dir)
    yield services
    services.close()
    shutil.rmtree(data_dir, ignore_errors=True)


@pytest.fixture(scope="module")
def minilm_services(tmp_path_factory) -> Iterator[Services]:
    """The sample documents indexed as the default deployment does: hybrid, with MiniLM."""
    data_dir = tmp_path_factory.mktemp("minilm")
    services = make_services(data_dir, embeddings="hybrid", dense_model="minilm")
    yield services
    services.close()
    shutil.rmtree(data_dir, ignore_errors=True)


@pytest.fixture(params=["json", "postgres"])
def backend(request, tmp_path):
    """The store suite's backend: JSON files under tmp_path, or a fresh PostgreSQL database."""
    from support.backends import JsonBackend, PostgresBackend

    if request.param == "json":
        chosen = JsonBackend(tmp_path / "data")
    else:
        chosen = PostgresBackend(request.getfixturevalue("pg_url"))
    yield chosen
    chosen.close()
