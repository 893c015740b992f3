"""Store rules that need no store: id validation and the message and metadata models."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from support.ids import BAD_IDS
from threadline.store import (
    Citation,
    InvalidIdError,
    Message,
    TurnMetadata,
    validate_id,
)
from threadline.store.ids import ID_PATTERN, is_valid_id
from threadline.store.paths import file_stem, id_of_stem


@pytest.mark.parametrize("bad", BAD_IDS)
def test_validate_id_rejects(bad: str) -> None:
    with pytest.raises(InvalidIdError, match="session_id"):
        validate_id(bad, "session_id")


@pytest.mark.parametrize("good", ["a", "A9", "sess_20250101000000_deadbeef", "x:y.z-1", "x" * 128])
def test_validate_id_accepts(good: str) -> None:
    assert validate_id(good, "tenant") == good


@given(
    st.lists(
        st.from_regex(ID_PATTERN, fullmatch=True).filter(is_valid_id),
        min_size=2,
        max_size=6,
        unique=True,
    )
)
def test_ids_take_names_no_case_folding_or_colon_rule_joins(ids: list[str]) -> None:
    """Distinct ids, distinct names on a file system that ignores case or refuses `:`."""
    names = [file_stem(i) for i in ids]
    assert len({n.casefold() for n in names}) == len(ids)
    assert all(":" not in n and len(n) <= 161 for n in names)
    assert [id_of_stem(n) for n in names] == ids


@pytest.mark.parametrize(
    ("name", "read"),
    [
        ("abc", "abc"),
        ("abc+1", "Abc"),
        ("Abc", "Abc"),  # a name written before file_stem
        ("a=b", "a:b"),
        ("a:b", "a:b"),  # likewise
        ("abc+01", None),  # not the mask file_stem writes
        ("abc+8", None),  # a capital past the end
        ("1bc+1", None),  # a digit cannot be a capital
        ("abc+z", None),
        ("a b", None),
    ],
)
def test_names_read_as_the_id_they_stand_for(name: str, read: str | None) -> None:
    assert id_of_stem(name) == read


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
