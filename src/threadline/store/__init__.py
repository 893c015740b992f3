"""Conversation store: the single source of truth for sessions, messages and thread state.

Where things are:

- ``base.py``: the protocol every backend implements; ``errors.py``, ``models.py``:
  what it raises and returns; ``backends.py``: opening the configured store.
- Shared by both backends: ``ids.py`` (validation and generation of ids),
  ``rules.py`` (titles, clock, role and limit checks), ``langchain_messages.py``.
- JSON files: ``json_store.py`` (the repository, ``ConversationStore``) over
  ``paths.py`` (where each file lives), ``locking.py`` (the session lock),
  ``files.py`` (atomic writes, reads), ``layout.py`` (the line layout of a file),
  ``group_commit.py`` and ``spool.py`` (appends, handed over between writers) and
  ``repair.py`` (checks, repair, quarantine).
- PostgreSQL: ``postgres.py`` (``PostgresStore``) and ``pg_schema.py`` (migrations).
"""

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
