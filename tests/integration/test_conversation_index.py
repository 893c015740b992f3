"""The conversation index on the real store and engine: lazy, batched, incremental."""

from __future__ import annotations

import pytest

from support.conversations import FakeClock, add_turns, counting_setup
from support.services import make_settings
from threadline.conversations.index import ConversationIndex
from threadline.conversations.worker import ConversationIndexer
from threadline.store.models import TurnMetadata

SLA = [
    ("What SLA applies to the enterprise plan?", "The Enterprise plan guarantees 99.95% uptime."),
    ("and for P2?", "P2 incidents get a first response within 1 hour."),
    ("who do I call at night?", "The on-call desk answers around the clock."),
]
LAPTOPS = [
    ("Compare the XPS 13 and the MacBook Air", "The XPS 13 weighs 1.19 kg, the Air 1.24 kg."),
    ("which one has more battery?", "The MacBook Air lasts longer on battery."),
]


@pytest.fixture
def parts(tmp_path, backend):
    """Index, indexer and a fake clock over the store suite's backend (JSON or PostgreSQL)."""
    settings = make_settings(tmp_path / "index")
    setup, counter = counting_setup()
    index = ConversationIndex(settings, embeddings=setup, batch_size=4)
    store = backend.open()
    clock = FakeClock()
    indexer = ConversationIndexer(store, index, idle_minutes=15, clock=clock)
    yield settings, store, index, indexer, clock, counter
    index.close()


def _upserts(index, monkeypatch) -> list[int]:
    calls: list[int] = []
    real = index.engine.add_documents

    def counted(documents, ids, batch_size):
        calls.append(len(documents))
        return real(documents, ids, batch_size)

    monkeypatch.setattr(index.engine, "add_documents", counted)
    return calls


def test_idle_session_is_indexed_only_after_the_idle_period(parts) -> None:
    _, store, index, indexer, clock, _ = parts
    add_turns(store, "t1", "web", "sla", SLA)
    assert indexer.run_once().sessions == 0
    assert index.search("P2 first response", tenant="t1", caller_app="web", k=3) == []
    clock.advance(minutes=14)
    assert indexer.run_once().sessions == 0
    clock.advance(minutes=2)
    report = indexer.run_once()
    assert report.sessions == 1 and report.embedded == 4  # summary + 3 exchanges
    hits = index.search("P2 first response", tenant="t1", caller_app="web", k=3)
    assert hits[0].payload["session_id"] == "sla"
    assert hits[0].payload["sequence_order"] == 1
    assert hits[0].payload["search_query"] is None
    # Nothing changed: the next pass does nothing.
    assert indexer.run_once().sessions == 0


def test_closing_queues_the_session_at_once(parts) -> None:
    _, store, index, indexer, _, _ = parts
    add_turns(store, "t1", "web", "sla", SLA)
    add_turns(store, "t1", "web", "laptops", LAPTOPS)
    store.close_session(tenant="t1", caller_app="web", session_id="laptops")
    report = indexer.run_once()
    assert report.sessions == 1
    assert set(index.indexed_versions()) == {("t1", "web", "laptops")}


def test_one_embedding_batch_and_one_upsert_per_batch(parts, monkeypatch) -> None:
    _, store, index, indexer, _, counter = parts
    upserts = _upserts(index, monkeypatch)
    add_turns(store, "t1", "web", "sla", SLA)  # 4 chunks
    add_turns(store, "t1", "web", "laptops", LAPTOPS)  # 3 chunks
    report = indexer.run_once(force=True)
    assert report.embedded == 7
    assert upserts == [4, 3]  # batch_size 4: two upserts for two sessions' chunks
    assert report.batches == 2
    assert len(counter.embedded) == 7


def test_changed_session_reembeds_only_what_changed(parts) -> None:
    _, store, index, indexer, clock, counter = parts
    add_turns(store, "t1", "web", "sla", SLA)
    indexer.run_once(force=True)
    counter.embedded.clear()
    add_turns(store, "t1", "web", "sla", [("and P1?", "P1 gets 15 minutes.")])
    clock.advance(minutes=16)
    report = indexer.run_once()
    assert report.sessions == 1
    # Only the new exchange: the summary (title, first question, outline) is unchanged.
    assert counter.embedded == ["User: and P1?\nAssistant: P1 gets 15 minutes."]
    assert report.unchanged == 4
    chunks = index.session_chunks(("t1", "web", "sla"))
    assert [c["sequence_order"] for c in chunks] == [-1, 0, 1, 2, 3]
    # A renamed session: the summary changes, the exchanges keep their vectors but
    # show the new title.
    store.update_session(tenant="t1", caller_app="web", session_id="sla", title="SLA talk")
    counter.embedded.clear()
    clock.advance(minutes=16)
    indexer.run_once()
    assert len(counter.embedded) == 1 and counter.embedded[0].startswith("Conversation: SLA talk")
    assert {c["title"] for c in index.session_chunks(("t1", "web", "sla"))} == {"SLA talk"}


def test_deleted_session_loses_its_chunks(parts) -> None:
    _, store, index, indexer, _, _ = parts
    add_turns(store, "t1", "web", "sla", SLA)
    add_turns(store, "t1", "web", "laptops", LAPTOPS)
    indexer.run_once(force=True)
    store.delete_session(tenant="t1", caller_app="web", session_id="sla")
    report = indexer.run_once()
    assert report.removed == 1
    assert index.session_chunks(("t1", "web", "sla")) == []
    assert index.session_chunks(("t1", "web", "laptops"))


def test_a_session_deleted_while_it_is_being_indexed_leaves_no_chunk(parts) -> None:
    # The worker reads a session, then embeds and writes it. A DELETE in between
    # removed the session and its chunks (`forget_session`) before the worker's write
    # put them back: the deleted conversation stayed searchable, and citable by later
    # turns, until the next pass. The index's own write lock is the meeting point: the
    # test holds it while the worker waits on it with the session already read.
    import sys
    import threading
    import time

    from threadline.conversations.index import session_filter

    _, store, index, indexer, _, _ = parts
    add_turns(store, "t1", "web", "sla", SLA)
    key = ("t1", "web", "sla")
    with index._write_lock:
        worker = threading.Thread(target=indexer.run_once, kwargs={"force": True})
        worker.start()
        deadline = time.monotonic() + 30
        while "index_sessions" not in _stack_of(worker, sys):
            assert time.monotonic() < deadline, "the worker never reached index_sessions"
            time.sleep(0.01)
        # What DELETE /sessions/{id} does: the store, then the index (its lock is ours).
        assert store.delete_session(tenant="t1", caller_app="web", session_id="sla")
        index.engine.delete_where(session_filter(key))
    worker.join(timeout=60)
    assert not worker.is_alive()
    assert index.session_chunks(key) == []
    assert index.search("enterprise plan uptime", tenant="t1", caller_app="web", k=5) == []


def _stack_of(thread, sys) -> str:
    frame = sys._current_frames().get(thread.ident)
    names = []
    while frame is not None:
        names.append(frame.f_code.co_name)
        frame = frame.f_back
    return " ".join(names)


def test_the_queue_survives_a_restart(tmp_path, backend) -> None:
    settings = make_settings(tmp_path / "index")
    store = backend.open()
    add_turns(store, "t1", "web", "sla", SLA)
    add_turns(store, "t1", "web", "laptops", LAPTOPS)
    store.close_session(tenant="t1", caller_app="web", session_id="sla")
    store.close_session(tenant="t1", caller_app="web", session_id="laptops")
    setup, _ = counting_setup()
    first = ConversationIndex(settings, embeddings=setup)
    # One session indexed, then the process stops with the other still queued.
    ConversationIndexer(store, first, sessions_per_batch=1).run_once(only=("t1", "web", "laptops"))
    first.close()
    setup, counter = counting_setup()
    second = ConversationIndex(settings, embeddings=setup)
    try:
        report = ConversationIndexer(backend.open(), second).run_once()
        assert report.sessions == 1 and len(counter.embedded) == 4  # only "sla"
        assert set(second.indexed_versions()) == {("t1", "web", "sla"), ("t1", "web", "laptops")}
    finally:
        second.close()


def test_tool_interactions_are_stored_but_never_indexed(parts) -> None:
    _, store, index, indexer, _, counter = parts
    store.add_turn(
        tenant="t1",
        caller_app="web",
        session_id="tools",
        question="What phones do you have under $500?",
        answer="- Nokia G42 5G costs $199. [1]",
        metadata=TurnMetadata(
            route="tool",
            outcome="tool_answer",
            search_query="filter_products({'category': 'phone', 'max_price': 500})",
        ),
        create=True,
    )
    indexer.run_once(force=True)
    chunks = index.session_chunks(("t1", "web", "tools"))
    assert {c["chunk_type"] for c in chunks} == {"session_summary", "message_exchange"}
    assert not any("filter_products" in text for text in counter.embedded)
    assert index.search("filter_products", tenant="t1", caller_app="web", k=5) == []
    from threadline.conversations.chunks import chunk_session

    session = store.get_session(tenant="t1", caller_app="web", session_id="tools")
    tools = [c for c in chunk_session(session) if c.chunk_type == "tool_interaction"]
    assert tools[0].tool_details["tool_name"] == "filter_products"
    assert tools[0].tool_details["status"] == "success"


def test_search_is_scoped_to_tenant_and_caller_app(parts) -> None:
    _, store, index, indexer, _, _ = parts
    add_turns(store, "t1", "web", "sla", SLA)
    add_turns(store, "t2", "web", "sla", SLA)
    add_turns(store, "t1", "support", "sla", SLA)
    indexer.run_once(force=True)
    for tenant, app in (("t1", "web"), ("t2", "web"), ("t1", "support")):
        hits = index.search("P2 first response", tenant=tenant, caller_app=app, k=10)
        assert hits and {h.key for h in hits} == {(tenant, app, "sla")}
