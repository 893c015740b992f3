"""The conversation store suite, run on both backends (JSON files and PostgreSQL).

Tests taking ``store`` or ``backend`` run once per backend (the ``backend`` fixture of
integration/conftest.py); tests of the JSON files themselves (paths, lock files, atomic
renames, damaged files) take ``json_store``. The rules that need no store (ids, models)
are in unit/test_store_models.py.
"""

from __future__ import annotations

import inspect
import json
import multiprocessing
import os
import re
import threading
from pathlib import Path

import pytest
from langchain_core.messages import AIMessage, HumanMessage

import threadline.store.files as store_files_module
from support.ids import BAD_IDS
from threadline.store import (
    LANGCHAIN_KWARGS_KEY,
    Citation,
    ConversationStore,
    ConversationStoreProtocol,
    CorruptSessionError,
    FollowupInfo,
    InvalidIdError,
    OutlineItem,
    SessionExistsError,
    SessionNotFoundError,
    StoreBusyError,
    StoreError,
    ThreadState,
    TurnMetadata,
)

T, A = "acme", "web"


@pytest.fixture
def store(backend) -> ConversationStore:
    return backend.open(lock_timeout=5.0)


@pytest.fixture
def json_store(tmp_path: Path) -> ConversationStore:
    return ConversationStore(tmp_path / "data", lock_timeout=5.0)


def _files(root: Path) -> list[str]:
    """All files under root, relative, sorted (directories excluded)."""
    if not root.exists():
        return []
    return sorted(str(p.relative_to(root)) for p in root.rglob("*") if p.is_file())


def _meta(**kwargs: object) -> TurnMetadata:
    return TurnMetadata(**kwargs)  # type: ignore[arg-type]


# ---------------------------------------------------------------------------- sessions


def test_json_session_is_one_file(json_store: ConversationStore) -> None:
    json_store.create_session(tenant=T, caller_app=A, session_id="s1", title="Hello")
    path = json_store.root / T / A / "s1.json"
    assert path.is_file()
    on_disk = json.loads(path.read_text())
    assert on_disk["id"] == "s1" and on_disk["tenant"] == T and on_disk["schema_version"] == 1


def test_create_and_get_roundtrip(store: ConversationStore) -> None:
    created = store.create_session(tenant=T, caller_app=A, session_id="s1", title="Hello")
    got = store.get_session(tenant=T, caller_app=A, session_id="s1")
    assert got == created
    assert got is not None and got.created_at.utcoffset() is not None
    assert got.title == "Hello" and got.messages == []


def test_create_generates_id(store: ConversationStore) -> None:
    a = store.create_session(tenant=T, caller_app=A)
    b = store.create_session(tenant=T, caller_app=A)
    pattern = re.compile(r"sess_\d{14}_[0-9a-f]{8}")
    assert pattern.fullmatch(a.id) and pattern.fullmatch(b.id)
    assert a.id != b.id
    assert store.get_session(tenant=T, caller_app=A, session_id=a.id) == a


def test_create_existing_raises(store: ConversationStore) -> None:
    store.create_session(tenant=T, caller_app=A, session_id="s1", title="first")
    with pytest.raises(SessionExistsError):
        store.create_session(tenant=T, caller_app=A, session_id="s1", title="second")
    got = store.get_session(tenant=T, caller_app=A, session_id="s1")
    assert got is not None and got.title == "first"


def test_get_missing_returns_none_and_writes_nothing(store: ConversationStore, backend) -> None:
    assert store.get_session(tenant=T, caller_app=A, session_id="nope") is None
    assert backend.is_empty()


def test_list_ordering_pagination_and_scope(store: ConversationStore) -> None:
    for sid in ["s1", "s2", "s3", "s4", "s5"]:
        store.create_session(tenant=T, caller_app=A, session_id=sid)
    store.create_session(tenant=T, caller_app="mobile", session_id="m1")
    store.create_session(tenant="other", caller_app=A, session_id="o1")
    # Touch s2 so it becomes the most recently updated.
    store.add_message(tenant=T, caller_app=A, session_id="s2", role="user", content="hi")

    page, total = store.list_sessions(tenant=T, caller_app=A)
    assert total == 5
    assert [s.id for s in page] == ["s2", "s5", "s4", "s3", "s1"]
    assert page[0].message_count == 1 and page[1].message_count == 0

    page, total = store.list_sessions(tenant=T, caller_app=A, offset=1, limit=2)
    assert total == 5 and [s.id for s in page] == ["s5", "s4"]
    page, total = store.list_sessions(tenant=T, caller_app=A, offset=10)
    assert total == 5 and page == []

    all_apps, total_all = store.list_sessions(tenant=T)
    assert total_all == 6
    assert {s.id for s in all_apps} == {"s1", "s2", "s3", "s4", "s5", "m1"}
    assert all_apps[0].id == "s2"  # m1 was created before the touch of s2

    assert store.list_sessions(tenant="nobody") == ([], 0)
    with pytest.raises(ValueError):
        store.list_sessions(tenant=T, limit=-1)


def test_update_session(store: ConversationStore, backend) -> None:
    created = store.create_session(tenant=T, caller_app=A, session_id="s1")
    updated = store.update_session(tenant=T, caller_app=A, session_id="s1", title="New")
    assert updated.title == "New" and updated.updated_at >= created.updated_at
    got = store.get_session(tenant=T, caller_app=A, session_id="s1")
    assert got is not None and got.title == "New"
    with pytest.raises(SessionNotFoundError):
        store.update_session(tenant=T, caller_app=A, session_id="missing", title="x")
    if backend.name == "json":
        assert not (store.root / T / A / "missing.json.lock").exists()


def test_delete_session(store: ConversationStore, backend) -> None:
    store.create_session(tenant=T, caller_app=A, session_id="s1")
    store.create_session(tenant=T, caller_app=A, session_id="s2")
    store.add_turn(
        tenant=T, caller_app=A, session_id="s1", question="q", answer="a", metadata=_meta()
    )
    assert store.delete_session(tenant=T, caller_app=A, session_id="s1") is True
    assert store.get_session(tenant=T, caller_app=A, session_id="s1") is None
    assert [s.id for s in store.list_sessions(tenant=T)[0]] == ["s2"]
    if backend.name == "json":
        assert _files(store.root / T / A) == ["s2.json", "s2.json.lock"]
    else:
        assert backend.rows("messages") == 0  # the session's messages went with it
    assert store.delete_session(tenant=T, caller_app=A, session_id="s1") is False
    assert store.delete_session(tenant="ghost", caller_app=A, session_id="s1") is False
    if backend.name == "json":
        assert not (store.root / "ghost").exists()
    # The id can be reused after deletion.
    store.create_session(tenant=T, caller_app=A, session_id="s1")


def test_store_satisfies_protocol_with_keyword_only_api(store: ConversationStore) -> None:
    assert isinstance(store, ConversationStoreProtocol)
    for name, member in inspect.getmembers(ConversationStoreProtocol, inspect.isfunction):
        if name.startswith("_"):
            continue
        params = list(inspect.signature(getattr(store, name)).parameters.values())
        assert params, name
        assert all(p.kind is inspect.Parameter.KEYWORD_ONLY for p in params), name
        proto_params = list(inspect.signature(member).parameters)[1:]
        assert [p.name for p in params] == proto_params, name


# ---------------------------------------------------------------------------- ids


@pytest.mark.parametrize("bad", BAD_IDS)
@pytest.mark.parametrize("position", ["tenant", "caller_app", "session_id"])
def test_bad_ids_raise_and_write_nothing(tmp_path: Path, bad: str, position: str) -> None:
    root = tmp_path / "data"
    _bad_ids_raise(ConversationStore(root), bad, position)
    assert not root.exists()
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("position", ["tenant", "caller_app", "session_id"])
def test_bad_ids_raise_and_write_nothing_on_postgres(pg_url: str, position: str) -> None:
    from support.backends import PostgresBackend

    backend = PostgresBackend(pg_url)
    try:
        store = backend.open()
        for bad in BAD_IDS:  # one database for all ids: a fresh one per id costs too much
            _bad_ids_raise(store, bad, position)
        assert backend.is_empty()
    finally:
        backend.close()


def _bad_ids_raise(store: ConversationStore, bad: str, position: str) -> None:
    ids = {"tenant": T, "caller_app": A, "session_id": "s1"}
    ids[position] = bad
    meta = _meta()
    calls = [
        lambda: store.create_session(**ids),
        lambda: store.get_session(**ids),
        lambda: store.add_message(**ids, role="user", content="q"),
        lambda: store.add_turn(**ids, question="q", answer="a", metadata=meta, create=True),
        lambda: store.update_session(**ids, title="t"),
        lambda: store.delete_session(**ids),
        lambda: store.get_history(**ids),
        lambda: store.get_thread_state(**ids),
    ]
    for call in calls:
        with pytest.raises(InvalidIdError, match=position):
            call()
    if position != "session_id":
        kwargs = {"tenant": ids["tenant"], "caller_app": ids["caller_app"]}
        with pytest.raises(InvalidIdError, match=position):
            store.list_sessions(**kwargs)


def test_symlink_escaping_root_is_rejected(tmp_path: Path) -> None:
    root = tmp_path / "data"
    outside = tmp_path / "outside"
    outside.mkdir()
    root.mkdir()
    (root / "evil").symlink_to(outside, target_is_directory=True)
    store = ConversationStore(root)
    with pytest.raises(InvalidIdError):
        store.create_session(tenant="evil", caller_app=A, session_id="s1")
    assert list(outside.iterdir()) == []


CASE_IDS = [("Acme", "Web", "Abc"), ("acme", "web", "abc"), ("ACME", "wEb", "ABC")]
"""Tenants, caller apps and session ids that differ only by case (and a colon below)."""


def test_ids_differing_by_case_are_files_no_case_folding_joins(
    json_store: ConversationStore,
) -> None:
    """On macOS's or Windows' default file system, `Abc.json` and `abc.json` are one file.

    Simulated here by folding the case of each file's path: the paths must stay
    distinct, and each id reads back its own conversation.
    """
    keys = [*CASE_IDS, ("acme", "web", "a:b"), ("acme", "web", "A:b"), ("acme", "web", "a=b")]
    for tenant, app, sid in keys:
        if sid == "a=b":
            with pytest.raises(InvalidIdError):
                json_store.create_session(tenant=tenant, caller_app=app, session_id=sid)
            continue
        json_store.create_session(tenant=tenant, caller_app=app, session_id=sid)
        json_store.add_turn(
            tenant=tenant,
            caller_app=app,
            session_id=sid,
            question=f"question of {tenant}/{app}/{sid}",
            answer="a",
            metadata=_meta(),
        )
    files = [f for f in _files(json_store.root) if not f.endswith(".lock")]
    assert len(files) == 5
    assert len({f.casefold() for f in files}) == len(files), files
    assert not any(":" in f for f in files)  # Windows refuses a colon in a name
    for tenant, app, sid in keys[:-1]:
        history = json_store.get_history(tenant=tenant, caller_app=app, session_id=sid)
        assert history[0].content == f"question of {tenant}/{app}/{sid}"
    for tenant, sessions in [("Acme", {"Abc"}), ("ACME", {"ABC"}), ("acme", {"abc", "a:b", "A:b"})]:
        listed, _ = json_store.list_sessions(tenant=tenant)
        assert {s.id for s in listed} == sessions
    assert {c.status for c in json_store.check_sessions()} == {"ok"}
    assert len(json_store.check_sessions()) == 5


def test_a_store_written_with_ids_as_file_names_still_opens(tmp_path: Path) -> None:
    """Files named by their ids as they are (before case-safe names) stay where they are."""
    root = tmp_path / "data"
    before = ConversationStore(root, lock_timeout=5.0)
    for sid in ("Abc", "a:b", "plain"):
        before.create_session(tenant="Acme", caller_app="Web", session_id=sid)
        before.add_turn(
            tenant="Acme",
            caller_app="Web",
            session_id=sid,
            question="q1",
            answer="a1",
            metadata=_meta(),
        )
    # Rename what was written into the layout of before: every name the id itself.
    for path in sorted(root.rglob("*"), key=lambda p: -len(p.parts)):
        if path.name.endswith(".lock"):
            path.unlink()
            continue
        stem, dot, suffix = path.name.partition(".json")
        legacy = {"abc+1": "Abc", "a=b": "a:b", "acme+1": "Acme", "web+1": "Web"}.get(stem, stem)
        path.rename(path.with_name(legacy + dot + suffix))
    written = _files(root)
    assert written == ["Acme/Web/Abc.json", "Acme/Web/a:b.json", "Acme/Web/plain.json"]

    reopened = ConversationStore(root, lock_timeout=5.0)
    assert {c.status for c in reopened.check_sessions()} == {"ok"}
    listed, total = reopened.list_sessions(tenant="Acme")
    assert total == 3 and {s.id for s in listed} == {"Abc", "a:b", "plain"}
    for sid in ("Abc", "a:b", "plain"):
        reopened.add_turn(
            tenant="Acme",
            caller_app="Web",
            session_id=sid,
            question="q2",
            answer="a2",
            metadata=_meta(),
        )
        history = reopened.get_history(tenant="Acme", caller_app="Web", session_id=sid)
        assert [m.content for m in history] == ["q1", "a1", "q2", "a2"]
    assert [f for f in _files(root) if not f.endswith(".lock")] == written  # nothing moved
    reopened.create_session(tenant="Acme", caller_app="Web", session_id="abc")
    assert reopened.get_history(tenant="Acme", caller_app="Web", session_id="abc") == []
    assert len(reopened.get_history(tenant="Acme", caller_app="Web", session_id="Abc")) == 4


# ---------------------------------------------------------------------------- messages


def test_add_message_persists_and_validates(store: ConversationStore, backend) -> None:
    store.create_session(tenant=T, caller_app=A, session_id="s1")
    msg = store.add_message(tenant=T, caller_app=A, session_id="s1", role="user", content="q1")
    assert msg.role == "user" and msg.created_at.utcoffset() is not None
    # A fresh instance proves the write was persisted, not cached.
    other = backend.open()
    assert other.get_history(tenant=T, caller_app=A, session_id="s1") == [msg]

    with pytest.raises(ValueError, match="role"):
        store.add_message(tenant=T, caller_app=A, session_id="s1", role="system", content="x")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="metadata"):
        store.add_message(
            tenant=T, caller_app=A, session_id="s1", role="user", content="x", metadata=_meta()
        )
    with pytest.raises(SessionNotFoundError):
        store.add_message(tenant=T, caller_app=A, session_id="nope", role="user", content="x")
    assert len(store.get_history(tenant=T, caller_app=A, session_id="s1")) == 1


def test_add_turn_single_write_and_title(
    store: ConversationStore, backend, monkeypatch: pytest.MonkeyPatch
) -> None:
    store.create_session(tenant=T, caller_app=A, session_id="s1")
    writes: list[Path] = []
    real = store_files_module.atomic_write

    def counting(path: Path, data: bytes) -> None:
        writes.append(path)
        real(path, data)

    monkeypatch.setattr(store_files_module, "atomic_write", counting)
    long_q = "  How   do I " + "configure " * 20
    user, asst = store.add_turn(
        tenant=T,
        caller_app=A,
        session_id="s1",
        question=long_q,
        answer="Like this.",
        metadata=_meta(search_query="configure", doc_ids=["d1"]),
    )
    # One file write (JSON); one transaction on PostgreSQL: see the rollback test.
    assert len(writes) == (1 if backend.name == "json" else 0)
    assert user.role == "user" and asst.role == "assistant"
    assert user.turn_id == asst.turn_id and user.turn_id is not None
    assert user.metadata is None and asst.metadata is not None
    session = store.get_session(tenant=T, caller_app=A, session_id="s1")
    assert session is not None
    assert [m.id for m in session.messages] == [user.id, asst.id]
    assert session.title is not None and len(session.title) <= 80
    assert session.title.startswith("How do I configure")
    store.add_turn(
        tenant=T, caller_app=A, session_id="s1", question="second", answer="a", metadata=_meta()
    )
    session = store.get_session(tenant=T, caller_app=A, session_id="s1")
    assert session is not None and session.title.startswith("How do I")  # type: ignore[union-attr]


def test_add_turn_keeps_existing_title(store: ConversationStore) -> None:
    store.create_session(tenant=T, caller_app=A, session_id="s1", title="Mine")
    store.add_turn(
        tenant=T, caller_app=A, session_id="s1", question="q", answer="a", metadata=_meta()
    )
    got = store.get_session(tenant=T, caller_app=A, session_id="s1")
    assert got is not None and got.title == "Mine"


def test_add_turn_failed_statement_persists_neither_message(
    pg_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    import psycopg
    from psycopg.types.json import Jsonb

    import threadline.store.postgres as postgres_module
    from support.backends import PostgresBackend

    backend = PostgresBackend(pg_url)
    store = backend.open()
    store.create_session(tenant=T, caller_app=A, session_id="s1")
    # The answer's row is refused by the server (jsonb has no NUL) after the question's
    # row was built: the one statement writing both fails whole.
    monkeypatch.setattr(
        postgres_module, "_metadata_json", lambda m: None if m is None else Jsonb({"x": "\x00"})
    )
    with pytest.raises(psycopg.DataError):
        store.add_turn(
            tenant=T, caller_app=A, session_id="s1", question="q", answer="a", metadata=_meta()
        )
    monkeypatch.undo()
    assert store.get_history(tenant=T, caller_app=A, session_id="s1") == []
    assert backend.rows("messages") == 0
    backend.close()


def test_add_turn_failed_write_persists_neither_message(
    json_store: ConversationStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = json_store
    store.create_session(tenant=T, caller_app=A, session_id="s1")

    def boom(src: str, dst: str) -> None:
        raise OSError("disk full")

    monkeypatch.setattr(store_files_module.os, "replace", boom)
    with pytest.raises(OSError, match="disk full"):
        store.add_turn(
            tenant=T, caller_app=A, session_id="s1", question="q", answer="a", metadata=_meta()
        )
    monkeypatch.undo()
    assert store.get_history(tenant=T, caller_app=A, session_id="s1") == []
    assert _files(store.root) == [f"{T}/{A}/s1.json", f"{T}/{A}/s1.json.lock"]


def test_add_turn_idempotent_by_turn_id(store: ConversationStore, backend) -> None:
    store.create_session(tenant=T, caller_app=A, session_id="s1")
    first = store.add_turn(
        tenant=T,
        caller_app=A,
        session_id="s1",
        question="q",
        answer="a",
        metadata=_meta(doc_ids=["d1"]),
        turn_id="t-1",
    )
    if backend.name == "json":
        path = store.root / T / A / "s1.json"
        before = path.read_bytes()
        stat_before = path.stat()
    again = store.add_turn(
        tenant=T,
        caller_app=A,
        session_id="s1",
        question="q",
        answer="a (retry)",
        metadata=_meta(doc_ids=["d2"]),
        turn_id="t-1",
    )
    assert again == first
    if backend.name == "json":
        assert path.read_bytes() == before
        assert path.stat().st_ino == stat_before.st_ino  # not even rewritten
    history = store.get_history(tenant=T, caller_app=A, session_id="s1")
    assert [m.turn_id for m in history] == ["t-1", "t-1"]
    assert history[1].content == "a"


def test_add_turn_completes_turn_started_with_add_message(store: ConversationStore) -> None:
    store.create_session(tenant=T, caller_app=A, session_id="s1")
    q = store.add_message(
        tenant=T, caller_app=A, session_id="s1", role="user", content="q", turn_id="t-1"
    )
    user, asst = store.add_turn(
        tenant=T,
        caller_app=A,
        session_id="s1",
        question="q",
        answer="a",
        metadata=_meta(),
        turn_id="t-1",
    )
    assert user == q
    assert [m.id for m in store.get_history(tenant=T, caller_app=A, session_id="s1")] == [
        q.id,
        asst.id,
    ]


def test_add_turn_answer_without_question_is_an_error(store: ConversationStore) -> None:
    store.create_session(tenant=T, caller_app=A, session_id="s1")
    store.add_message(
        tenant=T, caller_app=A, session_id="s1", role="assistant", content="a", turn_id="t-1"
    )
    with pytest.raises(StoreError):
        store.add_turn(
            tenant=T,
            caller_app=A,
            session_id="s1",
            question="q",
            answer="a",
            metadata=_meta(),
            turn_id="t-1",
        )


def test_add_turn_create_flag(store: ConversationStore, backend) -> None:
    with pytest.raises(SessionNotFoundError):
        store.add_turn(
            tenant=T,
            caller_app=A,
            session_id="client-1",
            question="q",
            answer="a",
            metadata=_meta(),
        )
    assert backend.is_empty()
    user, asst = store.add_turn(
        tenant=T,
        caller_app=A,
        session_id="client-1",
        question="What is X?",
        answer="X is Y.",
        metadata=_meta(),
        create=True,
    )
    session = store.get_session(tenant=T, caller_app=A, session_id="client-1")
    assert session is not None and session.title == "What is X?"
    assert [m.id for m in session.messages] == [user.id, asst.id]


def test_get_history_limit(store: ConversationStore) -> None:
    store.create_session(tenant=T, caller_app=A, session_id="s1")
    for i in range(3):
        store.add_turn(
            tenant=T,
            caller_app=A,
            session_id="s1",
            question=f"q{i}",
            answer=f"a{i}",
            metadata=_meta(),
        )
    full = store.get_history(tenant=T, caller_app=A, session_id="s1")
    assert [m.content for m in full] == ["q0", "a0", "q1", "a1", "q2", "a2"]
    last3 = store.get_history(tenant=T, caller_app=A, session_id="s1", limit=3)
    assert [m.content for m in last3] == ["a1", "q2", "a2"]
    assert store.get_history(tenant=T, caller_app=A, session_id="s1", limit=0) == []
    assert len(store.get_history(tenant=T, caller_app=A, session_id="s1", limit=100)) == 6
    with pytest.raises(ValueError):
        store.get_history(tenant=T, caller_app=A, session_id="s1", limit=-1)
    with pytest.raises(SessionNotFoundError):
        store.get_history(tenant=T, caller_app=A, session_id="missing")


def test_langchain_conversion(store: ConversationStore) -> None:
    store.create_session(tenant=T, caller_app=A, session_id="s1")
    meta = _meta(
        search_query="x", doc_ids=["d1"], citations=[Citation(id="1", doc_id="d1", title="D")]
    )
    user, asst = store.add_turn(
        tenant=T,
        caller_app=A,
        session_id="s1",
        question="q",
        answer="a",
        metadata=meta,
        turn_id="t-1",
    )
    lc = store.get_langchain_messages(tenant=T, caller_app=A, session_id="s1")
    assert [type(m) for m in lc] == [HumanMessage, AIMessage]
    assert [m.content for m in lc] == ["q", "a"]
    assert [m.id for m in lc] == [user.id, asst.id]
    human_extra = lc[0].additional_kwargs[LANGCHAIN_KWARGS_KEY]
    ai_extra = lc[1].additional_kwargs[LANGCHAIN_KWARGS_KEY]
    assert human_extra["turn_id"] == "t-1" and human_extra["metadata"] is None
    assert ai_extra["metadata"]["search_query"] == "x"
    assert ai_extra["metadata"]["citations"][0]["doc_id"] == "d1"
    json.dumps(ai_extra)  # JSON-serialisable, e.g. for checkpointers
    only_last = store.get_langchain_messages(tenant=T, caller_app=A, session_id="s1", limit=1)
    assert len(only_last) == 1 and isinstance(only_last[0], AIMessage)


# ---------------------------------------------------------------------------- thread state


def test_thread_state_empty_for_new_session(store: ConversationStore) -> None:
    store.create_session(tenant=T, caller_app=A, session_id="s1")
    assert store.get_thread_state(tenant=T, caller_app=A, session_id="s1") == ThreadState()


def test_thread_state_derivation(store: ConversationStore) -> None:
    store.create_session(tenant=T, caller_app=A, session_id="s1")
    outline_a = [OutlineItem(id="s1", title="Install"), OutlineItem(id="s2", title="Configure")]
    store.add_turn(
        tenant=T,
        caller_app=A,
        session_id="s1",
        question="q1",
        answer="long answer text",
        metadata=_meta(
            search_query="install guide",
            doc_ids=["d1", "d2"],
            titles=["Guide", "FAQ"],
            outline=outline_a,
            route="search",
        ),
    )
    # A tool answer: no outline, no retrieval. It must not wipe the state.
    _, tool_answer = store.add_turn(
        tenant=T,
        caller_app=A,
        session_id="s1",
        question="what time is it",
        answer="noon",
        metadata=_meta(route="tool"),
    )
    state = store.get_thread_state(tenant=T, caller_app=A, session_id="s1")
    assert state.last_outline == outline_a
    assert state.last_doc_ids == ["d1", "d2"]
    assert state.last_titles == ["Guide", "FAQ"]
    assert state.last_search_query == "install guide"
    assert state.updated_at is not None and state.updated_at < tool_answer.created_at

    # A new retrieval without outline: retrieval fields move on, outline is kept.
    _, third = store.add_turn(
        tenant=T,
        caller_app=A,
        session_id="s1",
        question="q3",
        answer="short",
        metadata=_meta(search_query="pricing", doc_ids=["d9"], titles=["Prices"]),
    )
    state = store.get_thread_state(tenant=T, caller_app=A, session_id="s1")
    assert state.last_outline == outline_a
    assert state.last_doc_ids == ["d9"] and state.last_titles == ["Prices"]
    assert state.last_search_query == "pricing"
    assert state.updated_at == third.created_at

    # A newer outline replaces the older one.
    outline_b = [OutlineItem(id="p1", title="Plans")]
    store.add_turn(
        tenant=T,
        caller_app=A,
        session_id="s1",
        question="q4",
        answer="x",
        metadata=_meta(outline=outline_b),
    )
    state = store.get_thread_state(tenant=T, caller_app=A, session_id="s1")
    assert state.last_outline == outline_b and state.last_doc_ids == ["d9"]


def test_thread_state_holds_no_document_text(store: ConversationStore) -> None:
    assert set(ThreadState.model_fields) == {
        "last_outline",
        "last_doc_ids",
        "last_titles",
        "last_search_query",
        "updated_at",
    }
    with pytest.raises(ValueError):
        ThreadState(text="leak")  # type: ignore[call-arg]
    store.create_session(tenant=T, caller_app=A, session_id="s1")
    secret = "SECRET DOCUMENT BODY"
    store.add_turn(
        tenant=T,
        caller_app=A,
        session_id="s1",
        question="q",
        answer=secret,
        metadata=_meta(doc_ids=["d1"], outline=[OutlineItem(id="1", title="t")]),
    )
    dumped = store.get_thread_state(tenant=T, caller_app=A, session_id="s1").model_dump_json()
    assert secret not in dumped


# ---------------------------------------------------------------------------- concurrency


def test_two_instances_see_each_others_writes(backend) -> None:
    one = backend.open()
    two = backend.open()
    one.create_session(tenant=T, caller_app=A, session_id="s1")
    two.add_message(tenant=T, caller_app=A, session_id="s1", role="user", content="from two")
    one.add_message(tenant=T, caller_app=A, session_id="s1", role="assistant", content="from one")
    for s in (one, two):
        assert [m.content for m in s.get_history(tenant=T, caller_app=A, session_id="s1")] == [
            "from two",
            "from one",
        ]
    two.update_session(tenant=T, caller_app=A, session_id="s1", title="t2")
    got = one.get_session(tenant=T, caller_app=A, session_id="s1")
    assert got is not None and got.title == "t2"
    assert one.delete_session(tenant=T, caller_app=A, session_id="s1")
    assert two.get_session(tenant=T, caller_app=A, session_id="s1") is None


def _mp_worker(target: str, worker: int, count: int) -> None:
    from threadline.store.backends import close_store, open_store

    store = open_store(target, lock_timeout=30.0)
    for i in range(count):
        store.add_message(
            tenant=T, caller_app=A, session_id="shared", role="user", content=f"{worker}-{i}"
        )
    close_store(store)


def test_multiprocess_appends_are_not_lost(backend) -> None:
    backend.open().create_session(tenant=T, caller_app=A, session_id="shared")
    ctx = multiprocessing.get_context("spawn")
    procs = [ctx.Process(target=_mp_worker, args=(backend.target, w, 25)) for w in range(4)]
    for p in procs:
        p.start()
    for p in procs:
        p.join(timeout=60)
    assert [p.exitcode for p in procs] == [0, 0, 0, 0]

    stored = backend.open().get_history(tenant=T, caller_app=A, session_id="shared")
    contents = [m.content for m in stored]
    assert len(contents) == 100
    assert sorted(contents) == sorted(f"{w}-{i}" for w in range(4) for i in range(25))
    # Each worker's own appends stay in order.
    for w in range(4):
        mine = [c for c in contents if c.startswith(f"{w}-")]
        assert mine == [f"{w}-{i}" for i in range(25)]
    assert len({m.id for m in stored}) == 100
    if backend.name == "json":
        raw = json.loads((backend.root / T / A / "shared.json").read_text())
        assert [m["content"] for m in raw["messages"]] == contents
        assert _files(backend.root) == [f"{T}/{A}/shared.json", f"{T}/{A}/shared.json.lock"]


def test_threads_appends_are_not_lost(store: ConversationStore) -> None:
    store.create_session(tenant=T, caller_app=A, session_id="s1")

    def worker(w: int) -> None:
        for i in range(10):
            store.add_message(
                tenant=T, caller_app=A, session_id="s1", role="user", content=f"{w}-{i}"
            )

    threads = [threading.Thread(target=worker, args=(w,)) for w in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(store.get_history(tenant=T, caller_app=A, session_id="s1")) == 40


def test_lock_timeout_raises_store_busy(backend) -> None:
    store = backend.open(lock_timeout=0.2)
    store.create_session(tenant=T, caller_app=A, session_id="s1")
    with backend.hold_lock(T, A, "s1"):
        with pytest.raises(StoreBusyError) as excinfo:
            store.add_message(tenant=T, caller_app=A, session_id="s1", role="user", content="x")
        assert excinfo.value.retryable
        if backend.name == "json":
            assert excinfo.value.lock_path == store.root / T / A / "s1.json.lock"
        # Lock-free reads still work while a writer holds the lock.
        assert store.get_session(tenant=T, caller_app=A, session_id="s1") is not None
    store.add_message(tenant=T, caller_app=A, session_id="s1", role="user", content="x")
    assert len(store.get_history(tenant=T, caller_app=A, session_id="s1")) == 1


# ---------------------------------------------------------------------------- corruption


def test_corrupt_file_is_isolated(
    json_store: ConversationStore, caplog: pytest.LogCaptureFixture
) -> None:
    store = json_store
    store.create_session(tenant=T, caller_app=A, session_id="bad")
    store.create_session(tenant=T, caller_app=A, session_id="good")
    bad_path = store.root / T / A / "bad.json"
    truncated = bad_path.read_bytes()[:25]
    bad_path.write_bytes(truncated)

    with pytest.raises(CorruptSessionError) as excinfo:
        store.get_session(tenant=T, caller_app=A, session_id="bad")
    assert excinfo.value.path == bad_path and str(bad_path) in str(excinfo.value)
    with pytest.raises(CorruptSessionError):
        store.add_message(tenant=T, caller_app=A, session_id="bad", role="user", content="x")
    with pytest.raises(CorruptSessionError):
        store.get_thread_state(tenant=T, caller_app=A, session_id="bad")

    store.add_message(tenant=T, caller_app=A, session_id="good", role="user", content="ok")
    page, total = store.list_sessions(tenant=T, caller_app=A)
    assert total == 1 and [s.id for s in page] == ["good"]
    assert "bad.json" in caplog.text
    # Nothing renamed or repaired behind the operator's back.
    assert bad_path.read_bytes() == truncated
    assert sorted(p.name for p in bad_path.parent.iterdir() if p.name.startswith("bad")) == [
        "bad.json",
        "bad.json.lock",
    ]


@pytest.mark.parametrize(
    "mutate",
    [
        lambda d: d.update(schema_version=99),
        lambda d: d.update(tenant="someone-else"),
        lambda d: d.update(messages=[{"id": "m", "role": "robot", "content": "x"}]),
    ],
    ids=["schema-version", "key-mismatch", "invalid-message"],
)
def test_wrong_schema_is_corrupt(json_store: ConversationStore, mutate: object) -> None:
    store = json_store
    store.create_session(tenant=T, caller_app=A, session_id="s1")
    path = store.root / T / A / "s1.json"
    data = json.loads(path.read_text())
    mutate(data)  # type: ignore[operator]
    path.write_text(json.dumps(data))
    with pytest.raises(CorruptSessionError):
        store.get_session(tenant=T, caller_app=A, session_id="s1")


def test_delete_removes_corrupt_session(json_store: ConversationStore) -> None:
    store = json_store
    store.create_session(tenant=T, caller_app=A, session_id="bad")
    (store.root / T / A / "bad.json").write_text("{")
    assert store.delete_session(tenant=T, caller_app=A, session_id="bad") is True
    assert store.get_session(tenant=T, caller_app=A, session_id="bad") is None


# ---------------------------------------------------------------------------- atomic writes


def test_atomic_writes_leave_no_temp_files(json_store: ConversationStore) -> None:
    store = json_store
    store.create_session(tenant=T, caller_app=A, session_id="s1")
    for i in range(5):
        store.add_turn(
            tenant=T, caller_app=A, session_id="s1", question=f"q{i}", answer="a", metadata=_meta()
        )
    store.update_session(tenant=T, caller_app=A, session_id="s1", title="t")
    assert _files(store.root) == [f"{T}/{A}/s1.json", f"{T}/{A}/s1.json.lock"]


def test_failed_write_keeps_old_file_and_cleans_temp(
    json_store: ConversationStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = json_store
    store.create_session(tenant=T, caller_app=A, session_id="s1", title="old")
    path = store.root / T / A / "s1.json"
    before = path.read_bytes()
    fsynced: list[int] = []
    real_fsync = os.fsync

    def tracking_fsync(fd: int) -> None:
        fsynced.append(fd)
        real_fsync(fd)

    def failing_replace(src: str, dst: str) -> None:
        assert Path(src).parent == path.parent  # temp file lives next to the target
        assert fsynced, "data must be fsynced before the rename"
        raise OSError("rename failed")

    monkeypatch.setattr(store_files_module.os, "fsync", tracking_fsync)
    monkeypatch.setattr(store_files_module.os, "replace", failing_replace)
    with pytest.raises(OSError, match="rename failed"):
        store.update_session(tenant=T, caller_app=A, session_id="s1", title="new")
    monkeypatch.undo()
    assert path.read_bytes() == before
    assert _files(store.root) == [f"{T}/{A}/s1.json", f"{T}/{A}/s1.json.lock"]


def test_followup_info_roundtrip(store: ConversationStore, backend) -> None:
    store.create_session(tenant=T, caller_app=A, session_id="s1")
    meta = _meta(
        followup=FollowupInfo(
            detected=True,
            resolved=True,
            ref_type="section",
            section_id="s2",
            method="deterministic",
        ),
        llm_calls=2,
        outcome="answered",
        stop_reason="done",
    )
    store.add_turn(tenant=T, caller_app=A, session_id="s1", question="q", answer="a", metadata=meta)
    reread = backend.open().get_history(tenant=T, caller_app=A, session_id="s1")
    assert reread[1].metadata == meta
