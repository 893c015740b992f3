"""Pure parts of export, feedback cases and their replay verdicts (no store, no engine)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from pydantic import ValidationError

from benchmarks.feedback_replay import verdict
from threadline.export import SessionExport, from_export, to_export, to_markdown
from threadline.feedback_cases import case_for
from threadline.store import Citation, Message, OutlineItem, Session, TurnMetadata
from threadline.store.models import Feedback

T0 = datetime(2026, 1, 1, tzinfo=UTC)
CITE = Citation(
    id="1", doc_id="doc-a", chunk_id="chunk-a", title="Policy", section="SLA", source="support"
)


def at(n: int) -> datetime:
    return T0 + timedelta(seconds=n)


def conversation() -> Session:
    return Session(
        id="s1",
        tenant="t",
        caller_app="a",
        title="SLA",
        created_at=T0,
        updated_at=at(9),
        messages=[
            Message(id="u1", role="user", content="What SLA?", created_at=at(1), turn_id="t1"),
            Message(
                id="a1",
                role="assistant",
                content="99.95% uptime. [1] Clause [12] of the contract.",
                created_at=at(2),
                turn_id="t1",
                metadata=TurnMetadata(
                    citations=[CITE],
                    outline=[OutlineItem(id="S1", title="Uptime")],
                    superseded=True,
                    trace=[{"node": "retrieve"}],
                ),
            ),
            Message(
                id="a1b",
                role="assistant",
                content="The SLA is 99.95%. [1]",
                created_at=at(3),
                turn_id="t1b",
                metadata=TurnMetadata(
                    citations=[CITE],
                    alternative_of="u1",
                    feedback=[
                        Feedback(user="ann#1", rating="down", reason="wrong", created_at=at(4))
                    ],
                ),
            ),
            Message(id="u2", role="user", content="and for P2?", created_at=at(5), turn_id="t2"),
            Message(
                id="a2",
                role="assistant",
                content="1 hour. [1]",
                created_at=at(6),
                turn_id="t2",
                metadata=TurnMetadata(citations=[CITE], search_query="p2", doc_ids=["doc-a"]),
            ),
        ],
    )


def test_markdown_shows_the_kept_answers_with_footnotes_ratings_and_what_was_set_aside():
    text = to_markdown(conversation())
    assert "99.95% uptime" not in text  # the answer set aside
    assert "**threadline:** The SLA is 99.95%. [^t1-1]" in text
    assert "1 earlier answer set aside (regenerated)." in text
    assert "\U0001f44e down, wrong (ann#1, 2026-01-01)" in text
    assert (
        "[^t2-1]: **Policy — SLA** · source `support` · passage `chunk-a` (document `doc-a`)"
        in text
    )


def test_a_bracket_that_is_not_a_citation_of_the_answer_stays_text():
    session = conversation()
    session.messages[1].metadata.superseded = False
    session.messages[2].metadata.superseded = True
    assert "Clause [12] of the contract." in to_markdown(session)


def test_the_json_export_drops_traces_unless_asked_and_reads_back_in_the_importers_tenant():
    session = conversation()
    plain = to_export(session)
    assert plain.session.messages[1].metadata.trace is None
    assert session.messages[1].metadata.trace == [{"node": "retrieve"}]  # not changed
    full = SessionExport.model_validate_json(to_export(session, with_trace=True).model_dump_json())
    back = from_export(full, tenant="other", caller_app="web", session_id="copy")
    assert (back.tenant, back.caller_app, back.id) == ("other", "web", "copy")
    assert back.messages == session.messages


def test_an_export_whose_alternative_names_no_question_is_refused():
    data = to_export(conversation()).model_dump(mode="json")
    data["session"]["messages"][2]["metadata"]["alternative_of"] = "a1"  # an answer
    with pytest.raises(ValidationError, match="not a question here"):
        SessionExport.model_validate(data)


def test_a_case_holds_the_kept_conversation_before_the_flagged_turn():
    session = conversation()
    row = {"feedback": "down", "feedback_reason": "incomplete", "feedback_comment": "c"}
    case = case_for(session, session.messages[4], row)
    assert [t["text"] for t in case["turns"]] == [
        "What SLA?",
        "The SLA is 99.95%. [1]",  # the kept answer, not the one set aside
        "and for P2?",
    ]
    assert case["turns"][1]["metadata"]["citations"][0]["chunk_id"] == "chunk-a"
    assert "feedback" not in case["turns"][1]["metadata"]  # only what a replay reads
    assert case["labels"] == {"feedback": "down", "reason": "incomplete", "comment": "c"}
    assert case["wrong_passage_ids"] == ["chunk-a"] and case["wrong_doc_ids"] == ["doc-a"]
    assert case["task_id"] == "feedback:t:a:s1:t2"


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ({"outcome": "clarify", "answer": "no", "cited_doc_ids": []}, "declines"),
        ({"outcome": "grounded_answer", "answer": "x", "cited_doc_ids": ["d9"]}, "other_passages"),
        (
            {"outcome": "grounded_answer", "answer": "x", "cited_doc_ids": ["d1"]},
            "different_answer",
        ),
        ({"outcome": "grounded_answer", "answer": "old", "cited_doc_ids": ["d1"]}, "unchanged"),
    ],
)
def test_replay_verdicts(line, expected):
    flagged = {"outcome": "grounded_answer", "answer": "old", "cited_doc_ids": ["d1"]}
    assert verdict(flagged, line) == expected
    declined = {"outcome": "clarify", "answer": "before", "cited_doc_ids": []}
    assert verdict(declined, {"outcome": "clarify", "answer": "now", "cited_doc_ids": []}) == (
        "still_declines"
    )
