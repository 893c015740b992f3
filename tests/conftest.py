"""Shared fixtures: real services (embedded Qdrant, JSON store, SQLite log) on temp dirs."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from threadline.services import Services
from threadline.settings import Settings

ROOT = Path(__file__).resolve().parents[1]
SAMPLE = ROOT / "data" / "sample"
FOLLOWUP_CORPUS = ROOT.parent / "shared" / "bench" / "followups" / "corpus"


def make_settings(data_dir: Path, **overrides) -> Settings:
    """Settings isolated from the developer's environment and .env file."""
    values = {
        "data_dir": data_dir,
        "embeddings": "sparse",
        "llm": "offline",
        "qdrant_url": None,
        "openai_api_key": None,
        "openai_base_url": None,
    }
    values.update(overrides)
    return Settings(_env_file=None, **values)


def make_services(data_dir: Path, corpus: list[Path] | None = None, **overrides) -> Services:
    """Services over a fresh data dir, with the given documents ingested."""
    services = Services(make_settings(data_dir, **overrides))
    report = services.kb.ingest_paths(corpus if corpus is not None else [SAMPLE])
    assert not report.errors, report.errors
    return services


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
