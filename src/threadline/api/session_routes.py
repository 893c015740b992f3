"""What every `/sessions/{id}` route shares: its id, error table and summary.

The id path parameter, the error table documented in OpenAPI, and a session's public
summary are kept apart from the route modules so that `sessions.py` and
`session_lineage.py` (which the former imports) both use one definition.
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import Path

from threadline.api.schemas import ID_SCHEMA, ErrorResponse, SessionPublic
from threadline.store import Session

# The id rule is documented, not enforced here: the store answers 400 `invalid_id`.
SessionIdPath = Annotated[str, Path(description="The session id.", json_schema_extra=ID_SCHEMA)]

ERRORS: dict[int | str, dict[str, Any]] = {
    400: {"model": ErrorResponse, "description": "Invalid id"},
    401: {"model": ErrorResponse, "description": "Missing or wrong API key"},
    403: {"model": ErrorResponse, "description": "Caller app not allowed for this key"},
    404: {"model": ErrorResponse, "description": "Session not found"},
    409: {"model": ErrorResponse, "description": "Session id taken, or the file is damaged"},
    422: {"model": ErrorResponse, "description": "Invalid request"},
    503: {"model": ErrorResponse, "description": "Session busy, retry"},
}


def session_public(session: Session) -> SessionPublic:
    """Return a session's summary: everything but its messages, which it counts."""
    return SessionPublic(
        id=session.id,
        caller_app=session.caller_app,
        title=session.title,
        created_at=session.created_at,
        updated_at=session.updated_at,
        message_count=len(session.messages),
    )
