"""Forks, closing and the all-tenant scan, on both store backends."""

from __future__ import annotations

import pytest

from threadline.store import SessionExistsError, SessionNotFoundError
from threadline.store.models import TurnMetadata


def _three_turns(store, session_id: str = "s1") -> None:
    for n in range(3):
        store.add_turn(
            tenant="t1",
            caller_app="web",
            session_id=session_id,
            question=f"question {n}",
            answer=f"answer {n}",
            metadata=TurnMetadata(search_query=f"query {n}"),
            create=True,
        )


def test_fork_keeps_the_first_messages_and_points_back(backend) -> None:
    store = backend.open()
    _three_turns(store)
    fork = store.fork_session(tenant="t1", caller_app="web", session_id="s1", at_message=2)
    assert [m.content for m in fork.messages] == ["question 0", "answer 0"]
    assert (fork.parent_session_id, fork.root_session_id) == ("s1", "s1")
    again = backend.open().get_session(tenant="t1", caller_app="web", session_id=fork.id)
    assert again is not None
    assert [m.content for m in again.messages] == ["question 0", "answer 0"]
    assert (again.parent_session_id, again.root_session_id) == ("s1", "s1")
    # A fork of a fork keeps the first session as its root.
    second = store.fork_session(
        tenant="t1", caller_app="web", session_id=fork.id, fork_id="s3", at_message=None
    )
    assert (second.parent_session_id, second.root_session_id) == (fork.id, "s1")
    assert len(second.messages) == 2
    # The source is untouched.
    source = store.get_session(tenant="t1", caller_app="web", session_id="s1")
    assert source is not None and len(source.messages) == 6
    assert source.parent_session_id is None
    listed = {s.id: s for s in store.list_sessions(tenant="t1")[0]}
    assert listed["s3"].root_session_id == "s1"


def test_fork_refuses_what_it_cannot_do(backend) -> None:
    store = backend.open()
    _three_turns(store)
    with pytest.raises(ValueError, match="at_message"):
        store.fork_session(tenant="t1", caller_app="web", session_id="s1", at_message=7)
    with pytest.raises(SessionNotFoundError):
        store.fork_session(tenant="t1", caller_app="web", session_id="nope")
    with pytest.raises(SessionNotFoundError):  # another tenant does not see it
        store.fork_session(tenant="t2", caller_app="web", session_id="s1")
    with pytest.raises(SessionExistsError):
        store.fork_session(tenant="t1", caller_app="web", session_id="s1", fork_id="s1")


def test_close_marks_without_changing_updated_at(backend) -> None:
    store = backend.open()
    _three_turns(store)
    before = store.get_session(tenant="t1", caller_app="web", session_id="s1")
    closed = store.close_session(tenant="t1", caller_app="web", session_id="s1")
    assert closed.closed_at is not None
    assert before is not None and closed.updated_at == before.updated_at
    reread = backend.open().get_session(tenant="t1", caller_app="web", session_id="s1")
    assert reread is not None and reread.closed_at == closed.closed_at
    with pytest.raises(SessionNotFoundError):
        store.close_session(tenant="t1", caller_app="other", session_id="s1")


def test_scan_lists_every_tenant_with_counts_and_closing(backend) -> None:
    store = backend.open()
    _three_turns(store, "a")
    store.create_session(tenant="t2", caller_app="app2", session_id="b")
    store.close_session(tenant="t2", caller_app="app2", session_id="b")
    found = {(s.tenant, s.caller_app, s.id): s for s in store.scan_sessions()}
    assert set(found) == {("t1", "web", "a"), ("t2", "app2", "b")}
    assert found[("t1", "web", "a")].message_count == 6
    assert found[("t1", "web", "a")].closed_at is None
    assert found[("t2", "app2", "b")].closed_at is not None
