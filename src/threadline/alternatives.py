"""Choosing among the answers of one question (regenerate adds one, select keeps one).

The store holds which answer is kept (the others are `superseded`, never deleted);
the queries log mirrors it into the answers' turn rows after the store is written, as
a turn's row is, so the log's `thread_state` follows the answer the user kept.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from threadline.querylog import after_store
from threadline.store.edits import select_answer
from threadline.store.models import Message

if TYPE_CHECKING:
    from threadline.services import Services


def keep_answer(
    services: Services, *, tenant: str, caller_app: str, session_id: str, message_id: str
) -> tuple[str | None, list[Message]]:
    """Keep one answer of its question; set its siblings aside, in the store and the log.

    Args:
        services: The process's services (store and queries log).
        tenant: The session's tenant.
        caller_app: The session's caller app.
        session_id: The session.
        message_id: The answer to keep.

    Returns:
        The question's id (None for an answer without one) and every answer of it.

    Raises:
        SessionNotFoundError: If the session does not exist.
        MessageNotFoundError: If the message is not in it.
        NotAnAnswerError: If the message is not an answer.
        StoreBusyError: If the session stayed locked.
    """
    question_id, answers = services.store.edit_session(
        tenant=tenant, caller_app=caller_app, session_id=session_id, edit=select_answer(message_id)
    )
    with after_store(services.querylog, f"answer {message_id} kept"):
        services.querylog.set_kept(
            tenant=tenant, caller_app=caller_app, thread_id=session_id, answers=answers
        )
    return question_id, answers
