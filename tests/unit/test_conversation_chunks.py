"""Pure parts of conversation indexing: pairing exchanges, chunk ids, merging windows."""

from __future__ import annotations

from datetime import UTC, datetime

from threadline.conversations.chunks import chunk_id_for, chunk_session, exchanges
from threadline.conversations.search import merge_spans
from threadline.store.models import Message, Session, TurnMetadata

NOW = datetime(2026, 1, 1, tzinfo=UTC)


def _session(*messages: tuple[str, str]) -> Session:
    return Session(
        id="s",
        tenant="t",
        caller_app="a",
        title="T",
        created_at=NOW,
        updated_at=NOW,
        messages=[
            Message(
                id=f"m{i}",
                role=role,  # type: ignore[arg-type]
                content=text,
                created_at=NOW,
                metadata=TurnMetadata() if role == "assistant" else None,
            )
            for i, (role, text) in enumerate(messages)
        ],
    )


def test_exchanges_pair_questions_with_their_answers() -> None:
    session = _session(
        ("user", "q0"),
        ("assistant", "a0"),
        ("user", "q1"),
        ("user", "q2"),
        ("assistant", "a2"),
        ("assistant", "lone"),
    )
    pairs = exchanges(session)
    assert [
        (
            p.question.content if p.question else None,
            p.answer.content if p.answer else None,
            p.message_index,
        )
        for p in pairs
    ] == [("q0", "a0", 0), ("q1", None, 2), ("q2", "a2", 3), (None, "lone", 5)]


def test_chunk_ids_are_stable_and_distinct() -> None:
    session = _session(("user", "q0"), ("assistant", "a0"))
    first = [c.chunk_id for c in chunk_session(session)]
    assert first == [c.chunk_id for c in chunk_session(session)]
    assert len(set(first)) == 2
    assert chunk_id_for("t", "a", "s", "message_exchange", 0) != chunk_id_for(
        "t", "b", "s", "message_exchange", 0
    )


def test_windows_are_clamped_ordered_and_merged() -> None:
    assert merge_spans([(5, 1.0)], before=2, after=1, last=9) == [(3, 6, {5: 1.0})]
    assert merge_spans([(0, 1.0)], before=2, after=1, last=9) == [(0, 1, {0: 1.0})]
    assert merge_spans([(9, 1.0)], before=0, after=3, last=9) == [(9, 9, {9: 1.0})]
    # Overlapping and touching windows merge; distant ones do not.
    assert merge_spans([(6, 0.5), (3, 0.9)], before=1, after=1, last=9) == [
        (2, 7, {3: 0.9, 6: 0.5})
    ]
    assert merge_spans([(1, 0.5), (8, 0.9)], before=1, after=1, last=9) == [
        (0, 2, {1: 0.5}),
        (7, 9, {8: 0.9}),
    ]
    assert merge_spans([(12, 1.0)], before=1, after=1, last=9) == []  # gone since indexed


def test_an_answer_set_aside_by_regenerate_is_not_an_exchange() -> None:
    session = _session(("user", "q0"), ("assistant", "old"), ("assistant", "new"))
    assert session.messages[1].metadata is not None
    session.messages[1].metadata.superseded = True
    found = exchanges(session)
    assert [(e.question.content, e.answer.content) for e in found] == [("q0", "new")]  # type: ignore[union-attr]
