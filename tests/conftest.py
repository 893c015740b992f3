"""Shared fixtures: real services (embedded Qdrant, JSON store, SQLite log) on temp dirs."""

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


# ---------------------------------------------------------------------------- PostgreSQL


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
