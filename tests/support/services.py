"""Real services (embedded Qdrant, JSON store, SQLite log) over a temp dir, built by the test."""

from __future__ import annotations

from pathlib import Path

from support.paths import SAMPLE
from threadline.services import Services
from threadline.settings import Settings


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
