"""Ratings of answers: stored with the turn, mirrored into the queries log.

A user (an API key's identity, or `local` without keys) has at most one rating per
answer; rating again replaces it, and it can be removed. The store holds every
user's rating on the answer (`TurnMetadata.feedback`: the truth); the turn's row of
the queries log holds the latest one (`feedback`, `feedback_reason`, ...), so the
debug SQL can select what users flagged. The log is written after the store, as a
turn's row is.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from threadline.querylog import after_store
from threadline.store.edits import rate_answer
from threadline.store.models import Feedback, FeedbackRating, FeedbackReason, Message
from threadline.store.rules import utcnow

if TYPE_CHECKING:
    from threadline.services import Services


def set_rating(
    services: Services,
    *,
    tenant: str,
    caller_app: str,
    session_id: str,
    message_id: str,
    user: str,
    rating: FeedbackRating | None,
    reason: FeedbackReason | None = None,
    comment: str | None = None,
) -> Message:
    """Store (or with `rating=None` remove) one user's rating of an answer, then log it.

    Args:
        services: The store and the queries log.
        tenant: Tenant of the session.
        caller_app: Caller app of the session.
        session_id: The session.
        message_id: The rated answer.
        user: Who rates.
        rating: `up` or `down`; `None` removes this user's rating.
        reason: Why (mostly for `down`).
        comment: Free text, already bounded by the caller.

    Returns:
        The answer as stored now.

    Raises:
        SessionNotFoundError: If the session does not exist.
        MessageNotFoundError: If the message is not in it.
        NotAnAnswerError: If the message is not an answer.
        StoreBusyError: If the session stayed locked.
    """
    feedback = None
    if rating is not None:
        text = comment.strip() if comment else None
        feedback = Feedback(
            user=user, rating=rating, reason=reason, comment=text or None, created_at=utcnow()
        )
    answer = services.store.edit_session(
        tenant=tenant,
        caller_app=caller_app,
        session_id=session_id,
        edit=rate_answer(message_id, user, feedback),
    )
    if answer.turn_id is not None and answer.metadata is not None:
        with after_store(services.querylog, f"rating of message {message_id}"):
            services.querylog.set_feedback(
                tenant=tenant,
                caller_app=caller_app,
                thread_id=session_id,
                turn_id=answer.turn_id,
                ratings=answer.metadata.feedback,
            )
    return answer
