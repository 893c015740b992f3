"""Flagged answers become test cases: tasks in the answers benchmark's format.

For every turn of the queries log whose answer's latest rating is the one asked
(`down` by default), `flagged_cases` reads the conversation from the store and writes
one task: the conversation up to the flagged turn (the kept answers, each with the
metadata the service stored, so a replay's follow-ups resolve as they did), the
flagged question last, the user's reason as the label, and the passages the answer
cited as the ones that were wrong. `python -m benchmarks answers --tasks FILE`
(`threadline bench answers` from the repository) replays them against the current
index and settings and says which flagged answers now decline, cite other passages,
answer differently or did not change.

A task line: the benchmark's fields (`task_id`, `conversation_id`, `domain`, `turns`,
`labels`, `references`, `gold_passage_ids`), plus `tenant` and `caller_app` (whose
documents and policy the replay uses; `domain` is null: the caller app's sources),
`wrong_passage_ids` (cited chunk ids), `wrong_doc_ids` and `flagged` (what the
answer was: outcome, answer, cited ids, route, search query).
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from threadline.store.edits import kept_messages, question_of
from threadline.store.models import Message, Session

if TYPE_CHECKING:
    from threadline.services import Services

REPLAYED_METADATA = ("search_query", "doc_ids", "titles", "outline", "route", "citations")
"""What a seeded earlier answer keeps of its stored metadata (what later turns read)."""


def _turn(message: Message) -> dict[str, Any]:
    turn: dict[str, Any] = {"role": message.role, "text": message.content}
    if message.role == "assistant" and message.metadata is not None:
        turn["metadata"] = message.metadata.model_dump(mode="json", include=set(REPLAYED_METADATA))
    return turn


def case_for(session: Session, answer: Message, row: dict[str, Any]) -> dict[str, Any] | None:
    """Return the task of one flagged answer, or `None` when its question is gone.

    Args:
        session: The stored session holding the answer.
        answer: The flagged answer.
        row: Its queries-log row (rating, reason, comment).

    Returns:
        The task record.
    """
    question = question_of(session, answer)
    meta = answer.metadata
    if question is None or meta is None:
        return None
    before = kept_messages(session.messages[: session.messages.index(question)])
    turns = [_turn(m) for m in before] + [{"role": "user", "text": question.content}]
    tenant, caller_app = session.tenant, session.caller_app
    return {
        "task_id": f"feedback:{tenant}:{caller_app}:{session.id}:{answer.turn_id}",
        "conversation_id": session.id,
        "domain": None,
        "tenant": tenant,
        "caller_app": caller_app,
        "turns": turns,
        "labels": {
            "feedback": row["feedback"],
            "reason": row["feedback_reason"],
            "comment": row["feedback_comment"],
        },
        "references": [],
        "gold_passage_ids": [],
        "wrong_passage_ids": [c.chunk_id for c in meta.citations if c.chunk_id],
        "wrong_doc_ids": list(dict.fromkeys(c.doc_id for c in meta.citations)),
        "flagged": {
            "message_id": answer.id,
            "outcome": meta.outcome,
            "answer": answer.content,
            "cited_doc_ids": list(dict.fromkeys(c.doc_id for c in meta.citations)),
            "route": meta.route,
            "search_query": meta.search_query,
        },
    }


def flagged_cases(
    services: Services,
    *,
    rating: str = "down",
    tenant: str | None = None,
    caller_app: str | None = None,
) -> list[dict[str, Any]]:
    """Return a task per answer whose latest rating is `rating`, oldest first.

    Args:
        services: The store and the queries log.
        rating: `down` (the regressions to fix) or `up` (answers to keep).
        tenant: Only this tenant's turns.
        caller_app: Only this caller app's turns.

    Returns:
        The task records; a turn whose session or answer is gone is skipped.
    """
    cases: list[dict[str, Any]] = []
    sessions: dict[tuple[str, str, str], Session | None] = {}
    for row in services.querylog.flagged(rating, tenant=tenant, caller_app=caller_app):
        key = (row["tenant"], row["caller_app"], row["thread_id"])
        if key not in sessions:
            sessions[key] = services.store.get_session(
                tenant=key[0], caller_app=key[1], session_id=key[2]
            )
        session = sessions[key]
        if session is None:
            continue
        answer = next(
            (m for m in session.messages if m.role == "assistant" and m.turn_id == row["turn_id"]),
            None,
        )
        if answer is None:
            continue
        case = case_for(session, answer, row)
        if case is not None:
            cases.append(case)
    return cases


def write_cases(cases: Iterable[dict[str, Any]], out: Path) -> int:
    """Write tasks as JSON lines; returns how many."""
    out.parent.mkdir(parents=True, exist_ok=True)
    lines = [json.dumps(case, ensure_ascii=False) + "\n" for case in cases]
    out.write_text("".join(lines), encoding="utf-8")
    return len(lines)
