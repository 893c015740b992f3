"""Pydantic models persisted by the conversation store.

These are the on-disk schema (``Session.schema_version``) as well as the values the
store returns. Timestamps are always timezone-aware and normalised to UTC so that
ordering and comparisons never mix naive and aware datetimes.
"""

from datetime import UTC, datetime
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, AwareDatetime, BaseModel, ConfigDict, Field, model_validator

SCHEMA_VERSION = 1
"""Version of the session file layout this code reads and writes."""


def _to_utc(value: datetime) -> datetime:
    return value.astimezone(UTC)


UtcDatetime = Annotated[AwareDatetime, AfterValidator(_to_utc)]
"""A timezone-aware datetime (naive values are rejected) normalised to UTC."""

Role = Literal["user", "assistant"]


class OutlineItem(BaseModel):
    """One section of an answer's outline, addressable by follow-ups ("section 2")."""

    id: str
    title: str


class FollowupInfo(BaseModel):
    """How a follow-up reference in the question was detected and resolved."""

    detected: bool = False
    resolved: bool = False
    ref_type: str | None = None
    section_id: str | None = None
    method: str | None = None


class Citation(BaseModel):
    """A source cited by an answer.

    Extra keys are kept (``extra="allow"``) so retrievers can attach fields such as
    scores without a schema change.
    """

    model_config = ConfigDict(extra="allow")

    id: str = Field(description='Label as shown in the answer, e.g. "1".')
    doc_id: str
    chunk_id: str | None = None
    title: str
    source: str | None = None
    section: str | None = None
    text_sha256: str | None = Field(
        default=None,
        description="Hex SHA-256 of the cited passage's text as the answer quoted it: the "
        "passage route tells a later version's text from it. None for a catalog product and "
        "for a citation stored before it was kept.",
    )


FeedbackRating = Literal["up", "down"]
FeedbackReason = Literal["wrong", "not_in_documents", "incomplete", "wrong_source", "other"]
FEEDBACK_COMMENT_MAX = 2000
"""Longest comment a rating may carry (characters)."""


class Feedback(BaseModel):
    """One user's rating of one answer (one per user per answer; a new one replaces it)."""

    user: str = Field(description="Who rated: the API key's identity, or `local`.")
    rating: FeedbackRating
    reason: FeedbackReason | None = None
    comment: str | None = Field(default=None, max_length=FEEDBACK_COMMENT_MAX)
    created_at: UtcDatetime


class TurnMetadata(BaseModel):
    """What an assistant turn did besides producing its text."""

    search_query: str | None = None
    doc_ids: list[str] = Field(default_factory=list)
    titles: list[str] = Field(default_factory=list)
    outline: list[OutlineItem] = Field(default_factory=list)
    route: str | None = None
    outcome: str | None = None
    stop_reason: str | None = None
    followup: FollowupInfo = Field(default_factory=FollowupInfo)
    citations: list[Citation] = Field(default_factory=list)
    llm_calls: int = 0
    feedback: list[Feedback] = Field(default_factory=list)
    """Ratings of this answer, one per user (``threadline.feedback``)."""
    trace: list[dict[str, Any]] | None = None
    """What the graph did, sanitised and bounded (``threadline.tracing``); never document text."""
    alternative_of: str | None = None
    """For an answer written by a regenerate: the id of the user message it answers again."""
    superseded: bool = False
    """Another answer of the same question is the one kept (regenerate, select)."""


class Message(BaseModel):
    """One chat message; only assistant messages carry ``metadata``."""

    id: str
    role: Role
    content: str
    created_at: UtcDatetime
    turn_id: str | None = None
    metadata: TurnMetadata | None = None

    @model_validator(mode="after")
    def _metadata_only_on_assistant(self) -> "Message":
        # Turn metadata describes what the assistant did; on a user message it would be
        # a bug upstream and would confuse thread-state derivation.
        if self.role == "user" and self.metadata is not None:
            raise ValueError("metadata is only allowed on assistant messages")
        return self


class ThreadState(BaseModel):
    """The per-thread state follow-ups resolve against.

    Deliberately only identifiers, titles and the query: never document text, so the
    state stays small and cannot leak stale content into prompts. ``extra="forbid"``
    makes adding an undeclared field an error rather than a silent leak.
    """

    model_config = ConfigDict(extra="forbid")

    last_outline: list[OutlineItem] = Field(default_factory=list)
    last_doc_ids: list[str] = Field(default_factory=list)
    last_titles: list[str] = Field(default_factory=list)
    last_search_query: str | None = None
    updated_at: UtcDatetime | None = None


class Session(BaseModel):
    """A conversation thread with all its messages, as stored in one file.

    Unknown keys are ignored on purpose (``extra="ignore"``): the JSON backend adds
    layout keys (``messages_bytes``, ``messages_crc32``) to its files, and older
    code must keep reading files written by newer code of the same schema version.
    """

    model_config = ConfigDict(extra="ignore")

    id: str
    tenant: str
    caller_app: str
    title: str | None = None
    created_at: UtcDatetime
    updated_at: UtcDatetime
    messages: list[Message] = Field(default_factory=list)
    schema_version: int = SCHEMA_VERSION
    parent_session_id: str | None = Field(
        default=None, description="The session this one was forked from."
    )
    root_session_id: str | None = Field(
        default=None, description="The first session of the fork's lineage."
    )
    closed_at: UtcDatetime | None = Field(
        default=None, description="When the session was closed (queued for indexing)."
    )

    def thread_state(self) -> ThreadState:
        """Derive the thread state from the stored assistant turns.

        ``last_outline`` comes from the most recent assistant turn whose outline is
        non-empty, so an answer without outline (e.g. a tool answer) does not make
        "section 2" unresolvable. ``last_doc_ids``, ``last_titles`` and
        ``last_search_query`` come together from the most recent assistant turn that
        has a search query or doc ids, so they always describe the same retrieval.
        ``updated_at`` is the time of the newest turn that contributed.
        """
        outline_msg: Message | None = None
        search_msg: Message | None = None
        for message in reversed(self.messages):
            meta = message.metadata
            if message.role != "assistant" or meta is None or meta.superseded:
                continue  # an answer the user replaced (regenerate) is not what follows
            if outline_msg is None and meta.outline:
                outline_msg = message
            if search_msg is None and (meta.search_query or meta.doc_ids):
                search_msg = message
            if outline_msg is not None and search_msg is not None:
                break
        state = ThreadState()
        if outline_msg is not None and outline_msg.metadata is not None:
            state.last_outline = [item.model_copy() for item in outline_msg.metadata.outline]
        if search_msg is not None and search_msg.metadata is not None:
            state.last_doc_ids = list(search_msg.metadata.doc_ids)
            state.last_titles = list(search_msg.metadata.titles)
            state.last_search_query = search_msg.metadata.search_query
        contributors = [m.created_at for m in (outline_msg, search_msg) if m is not None]
        state.updated_at = max(contributors) if contributors else None
        return state


class SessionSummary(BaseModel):
    """A session without its messages, for listings."""

    id: str
    tenant: str
    caller_app: str
    title: str | None = None
    created_at: UtcDatetime
    updated_at: UtcDatetime
    message_count: int
    parent_session_id: str | None = None
    root_session_id: str | None = None
    closed_at: UtcDatetime | None = None


CheckStatus = Literal["ok", "corrupt", "repaired", "quarantined", "stale_temp", "temp_removed"]
"""Outcome of checking one file: see ``SessionCheck``."""


class SessionCheck(BaseModel):
    """What ``check_sessions`` found (and did) for one file of the store.

    Statuses: ``ok`` (the session loads), ``corrupt`` (it does not and is still in
    place), ``repaired`` (salvaged and rewritten; the damaged original was moved to
    ``moved_to``), ``quarantined`` (moved to ``moved_to``; the id is free again),
    ``stale_temp`` (a temp file left by an interrupted write, never read as a
    session) and ``temp_removed`` (such a file, removed by a repair run).
    """

    tenant: str
    caller_app: str
    session_id: str
    path: Path
    status: CheckStatus
    reason: str | None = Field(default=None, description="What is wrong with the file.")
    message_count: int | None = Field(
        default=None, description="Messages that load (ok) or were salvaged (repaired)."
    )
    dropped: int = Field(default=0, description="Unreadable message fragments a repair dropped.")
    moved_to: Path | None = Field(
        default=None, description="Where the damaged file now is (repaired, quarantined)."
    )

    @property
    def is_corrupt(self) -> bool:
        """Whether a damaged session file is still in place after this check."""
        return self.status == "corrupt"
