"""Conversation store: the single source of truth for sessions, messages and thread state."""

from threadline.store.base import ID_PATTERN, ConversationStoreProtocol, validate_id
from threadline.store.errors import (
    CorruptSessionError,
    InvalidIdError,
    SessionExistsError,
    SessionNotFoundError,
    StoreBusyError,
    StoreError,
)
from threadline.store.json_store import ConversationStore
from threadline.store.langchain_messages import LANGCHAIN_KWARGS_KEY
from threadline.store.models import (
    SCHEMA_VERSION,
    Citation,
    FollowupInfo,
    Message,
    OutlineItem,
    Role,
    Session,
    SessionCheck,
    SessionSummary,
    ThreadState,
    TurnMetadata,
)
from threadline.store.paths import QUARANTINE_DIR

__all__ = [
    "ID_PATTERN",
    "LANGCHAIN_KWARGS_KEY",
    "QUARANTINE_DIR",
    "SCHEMA_VERSION",
    "Citation",
    "ConversationStore",
    "ConversationStoreProtocol",
    "CorruptSessionError",
    "FollowupInfo",
    "InvalidIdError",
    "Message",
    "OutlineItem",
    "Role",
    "Session",
    "SessionCheck",
    "SessionExistsError",
    "SessionNotFoundError",
    "SessionSummary",
    "StoreBusyError",
    "StoreError",
    "ThreadState",
    "TurnMetadata",
    "validate_id",
]
