"""The server's startup heap leaves the garbage collector's full passes."""

from __future__ import annotations

import gc
import weakref

from fastapi.testclient import TestClient

from threadline.api.main import create_app
from threadline.heap import freeze_startup_heap
from threadline.services import Services


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
