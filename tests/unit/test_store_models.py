"""Store rules that need no store: id validation and the message and metadata models."""

from __future__ import annotations

import pytest

from support.ids import BAD_IDS
from threadline.store import (
    Citation,
    InvalidIdError,
    Message,
    TurnMetadata,
    validate_id,
)


@pytest.mark.parametrize("bad", BAD_IDS)
def test_validate_id_rejects(bad: str) -> None:
    with pytest.raises(InvalidIdError, match="session_id"):
        validate_id(bad, "session_id")


@pytest.mark.parametrize("good", ["a", "A9", "sess_20250101000000_deadbeef", "x:y.z-1", "x" * 128])
def test_validate_id_accepts(good: str) -> None:
    assert validate_id(good, "tenant") == good


def test_validate_id_rejects_non_string() -> None:
    with pytest.raises(InvalidIdError, match="caller_app"):
        validate_id(None, "caller_app")


def test_message_model_rules() -> None:
    from datetime import datetime, timedelta, timezone

    with pytest.raises(ValueError):
        Message(id="m", role="user", content="x", created_at=datetime(2025, 1, 1))  # naive
    plus2 = timezone(timedelta(hours=2))
    m = Message(
        id="m", role="assistant", content="x", created_at=datetime(2025, 1, 1, 2, tzinfo=plus2)
    )
    assert m.created_at.utcoffset() == timedelta(0) and m.created_at.hour == 0
    with pytest.raises(ValueError):
        Message(id="m", role="user", content="x", created_at=m.created_at, metadata=TurnMetadata())
    # Mutable defaults are not shared between instances.
    a, b = TurnMetadata(), TurnMetadata()
    a.doc_ids.append("d")
    assert b.doc_ids == []
    c = Citation(id="1", doc_id="d", title="T", score=0.5)  # extra allowed
    assert c.model_dump()["score"] == 0.5
