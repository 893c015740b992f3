"""Services: parts built once on first use, released and rebuilt after close."""

from __future__ import annotations

import threading
import time

from support.services import make_settings
from threadline import services as services_module
from threadline.services import Services


class FakeKnowledgeBase:
    """Counts how often the knowledge base is built; slow to build, as the real one is."""

    built = 0

    def __init__(self, settings, *, embeddings=None) -> None:
        type(self).built += 1
        time.sleep(0.2)
        self.closed = False

    def close(self) -> None:
        self.closed = True


class FakeQueryLog:
    def __init__(self, path) -> None:
        self.closed = False

    def close(self) -> None:
        self.closed = True


def test_threads_racing_the_first_use_build_the_knowledge_base_once(tmp_path, monkeypatch):
    monkeypatch.setattr(services_module, "KnowledgeBase", FakeKnowledgeBase)
    FakeKnowledgeBase.built = 0
    services = Services(make_settings(tmp_path))
    start = threading.Barrier(4)
    seen: list[object] = []

    def use() -> None:
        start.wait()
        seen.append(services.kb)

    threads = [threading.Thread(target=use) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert FakeKnowledgeBase.built == 1
    assert len({id(kb) for kb in seen}) == 1


def test_close_releases_the_knowledge_base_even_without_a_queries_log(tmp_path, monkeypatch):
    monkeypatch.setattr(services_module, "KnowledgeBase", FakeKnowledgeBase)
    services = Services(make_settings(tmp_path))
    closed = services.kb
    services.close()
    assert closed.closed
    assert services.kb is not closed  # a closed base is never handed out again


def test_close_releases_the_queries_log_even_without_a_knowledge_base(tmp_path, monkeypatch):
    monkeypatch.setattr(services_module, "QueryLog", FakeQueryLog)
    services = Services(make_settings(tmp_path))
    closed = services.querylog
    services.close()
    assert closed.closed
    assert services.querylog is not closed
