"""The edits of a stored conversation as pure rules: ratings, alternatives, the kept answer."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from threadline.querylog import feedback_columns
from threadline.store import Message, OutlineItem, Session, TurnMetadata
from threadline.store.edits import (
    add_alternative,
    answers_of,
    kept_messages,
    rate_answer,
    select_answer,
)
from threadline.store.errors import MessageNotFoundError, NotAnAnswerError, TurnConflictError
from threadline.store.models import Feedback

T0 = datetime(2026, 1, 1, tzinfo=UTC)


def msg(mid: str, role: str, n: int, **meta) -> Message:
    metadata = TurnMetadata(**meta) if role == "assistant" else None
    return Message(
        id=mid, role=role, content=mid, created_at=T0 + timedelta(seconds=n), metadata=metadata
    )


def session(*messages: Message) -> Session:
    return Session(
        id="s", tenant="t", caller_app="a", created_at=T0, updated_at=T0, messages=list(messages)
    )


def rating(user: str, value: str, minutes: int = 0, reason: str | None = None) -> Feedback:
    return Feedback(
        user=user, rating=value, reason=reason, created_at=T0 + timedelta(minutes=minutes)
    )


def test_a_second_rating_by_the_same_user_replaces_the_first_and_others_stay() -> None:
    s = session(msg("u1", "user", 0), msg("a1", "assistant", 1))
    rate_answer("a1", "ann", rating("ann", "up"))(s)
    rate_answer("a1", "bob", rating("bob", "down", reason="wrong"))(s)
    answer = rate_answer("a1", "ann", rating("ann", "down", 5, "incomplete"))(s)
    assert [(f.user, f.rating) for f in answer.metadata.feedback] == [
        ("bob", "down"),
        ("ann", "down"),
    ]
    rate_answer("a1", "bob", None)(s)
    assert [f.user for f in s.messages[1].metadata.feedback] == ["ann"]


def test_rating_a_question_or_an_unknown_message_is_refused() -> None:
    s = session(msg("u1", "user", 0), msg("a1", "assistant", 1))
    with pytest.raises(NotAnAnswerError):
        rate_answer("u1", "ann", rating("ann", "up"))(s)
    with pytest.raises(MessageNotFoundError):
        rate_answer("nope", "ann", rating("ann", "up"))(s)


def test_the_log_keeps_the_latest_rating_of_an_answer() -> None:
    assert feedback_columns([]) == dict.fromkeys(
        ("feedback", "feedback_reason", "feedback_comment", "feedback_at")
    )
    latest = feedback_columns([rating("bob", "down", 9, "wrong"), rating("ann", "up", 3)])
    assert latest["feedback"] == "down" and latest["feedback_reason"] == "wrong"


def test_regenerate_keeps_the_old_answer_as_a_superseded_alternative() -> None:
    s = session(
        msg("u1", "user", 0),
        msg("a1", "assistant", 1, outline=[OutlineItem(id="S1", title="Old")]),
        msg("u2", "user", 2),
        msg("a2", "assistant", 3, search_query="old query"),
    )
    new = msg("a2b", "assistant", 4, search_query="new query")
    add_alternative("u2", new)(s)
    assert [m.id for m in answers_of(s, "u2")] == ["a2", "a2b"]
    assert s.messages[3].metadata.superseded and new.metadata.alternative_of == "u2"
    assert [m.id for m in kept_messages(s.messages)] == ["u1", "a1", "u2", "a2b"]
    assert s.thread_state().last_search_query == "new query"
    # Picking the first answer back: the state follows it.
    select_answer("a2")(s)
    assert s.thread_state().last_search_query == "old query"
    assert [m.id for m in kept_messages(s.messages)] == ["u1", "a1", "u2", "a2"]


def test_the_outline_follows_the_kept_answer() -> None:
    s = session(
        msg("u1", "user", 0),
        msg("a1", "assistant", 1, outline=[OutlineItem(id="S1", title="First")]),
    )
    add_alternative("u1", msg("a1b", "assistant", 2))(s)
    assert s.thread_state().last_outline == []  # the kept answer has no outline
    select_answer("a1")(s)
    assert [o.title for o in s.thread_state().last_outline] == ["First"]


def test_only_the_last_question_can_be_answered_again() -> None:
    s = session(msg("u1", "user", 0), msg("a1", "assistant", 1), msg("u2", "user", 2))
    with pytest.raises(TurnConflictError):
        add_alternative("u1", msg("x", "assistant", 5))(s)
    with pytest.raises(NotAnAnswerError):
        add_alternative("a1", msg("x", "assistant", 5))(s)
    assert len(s.messages) == 3
