"""A service's startup heap (server, terminal chat) leaves the garbage collector's full passes."""

from __future__ import annotations

import gc
import weakref
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from typer.testing import CliRunner

from threadline.api.main import create_app
from threadline.cli import app
from threadline.heap import freeze_startup_heap
from threadline.services import Services
from threadline.settings import get_settings


def test_the_server_freezes_what_its_startup_loaded(sample_services: Services) -> None:
    gc.unfreeze()
    try:
        with TestClient(create_app(sample_services)) as client:
            # The services, the keyring and the chat facade are out of the collections.
            assert gc.get_freeze_count() > 0
            assert client.get("/health").status_code == 200
    finally:
        gc.unfreeze()


def test_objects_made_after_the_freeze_are_still_collected() -> None:
    gc.unfreeze()
    try:
        frozen = freeze_startup_heap()
        assert frozen == gc.get_freeze_count() > 0
        cycle = _Node()
        cycle.itself = cycle  # only the cycle collector can free it
        gone = weakref.ref(cycle)
        del cycle
        gc.collect()
        assert gone() is None
    finally:
        gc.unfreeze()


class _Node:
    itself: object


def test_the_terminal_chat_freezes_what_its_startup_loaded(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("THREADLINE_DATA_DIR", str(tmp_path))
    monkeypatch.setenv("THREADLINE_EMBEDDINGS", "sparse")
    monkeypatch.setenv("THREADLINE_LLM", "offline")
    monkeypatch.chdir(tmp_path)  # no developer .env
    get_settings.cache_clear()
    gc.unfreeze()
    try:
        chat = CliRunner().invoke(app, ["chat", "--local", "-m", "Hello"])
        assert chat.exit_code == 0, chat.output
        # The services it opened (index, model, store) are out of the collections.
        assert gc.get_freeze_count() > 0
    finally:
        gc.unfreeze()
        get_settings.cache_clear()
