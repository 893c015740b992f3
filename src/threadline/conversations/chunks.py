"""Cutting a stored session into conversation chunks, deterministically.

The same session always gives the same chunks with the same ids, so re-indexing a
session replaces its points instead of adding new ones, and the content hash of
each chunk tells whether it must be embedded again.
"""

from __future__ import annotations

import hashlib
import uuid
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Literal

from threadline.store.models import Message, Session

ChunkType = Literal["message_exchange", "tool_interaction", "session_summary"]

CONVERSATION_SOURCE = "conversations"
"""The source name a caller app's policy lists to let chat turns search conversations."""

SUMMARY_ORDER = -1
"""``sequence_order`` of the session summary: before the first exchange."""

_SUMMARY_CHARS = 200
_NAMESPACE = uuid.UUID("5b0f6a34-9c1e-4c55-9a55-2d7f1c3e0b12")
_OUTLINE_TITLES = 12


@dataclass(frozen=True)
class ConversationChunk:
    """One chunk of a conversation and the payload it is stored with.

    Attributes:
        chunk_id: A UUID derived from tenant, caller app, session, type and order.
        session_id: The session it comes from.
        tenant: The session's tenant.
        caller_app: The session's caller app.
        chunk_type: ``message_exchange``, ``tool_interaction`` or ``session_summary``.
        sequence_order: The exchange's index in the session (``-1`` for the summary).
        timestamp: When the exchange's question was asked (the session's last change
            for the summary).
        content: The text that is embedded (and shown).
        content_summary: The content cut for listings.
        participants: Roles taking part.
        tool_details: Name, parameters, status and summary of a tool turn.
        search_query: What the turn searched, when it did.
        cited_titles: Titles the answer cited.
        message_index: Index of the exchange's first message in the session.
        parent_session_id: The session this one was forked from.
        root_session_id: The first session of its lineage.
        custom_tags: Free tags (none are set yet).
    """

    chunk_id: str
    session_id: str
    tenant: str
    caller_app: str
    chunk_type: ChunkType
    sequence_order: int
    timestamp: datetime
    content: str
    content_summary: str
    participants: tuple[str, ...]
    tool_details: dict[str, Any] | None = None
    search_query: str | None = None
    cited_titles: tuple[str, ...] = ()
    message_index: int = 0
    parent_session_id: str | None = None
    root_session_id: str | None = None
    custom_tags: tuple[str, ...] = field(default_factory=tuple)

    @property
    def indexed(self) -> bool:
        """Whether the chunk goes into the vector index (tool interactions never do)."""
        return self.chunk_type != "tool_interaction"

    @property
    def content_hash(self) -> str:
        """SHA-256 of what is embedded: unchanged hash, no new embedding."""
        return hashlib.sha256(self.content.encode("utf-8")).hexdigest()

    def payload(self, *, title: str | None, session_updated_at: datetime) -> dict[str, Any]:
        """Return the metadata the chunk is stored with in the engine.

        Args:
            title: The session's current title (shown with hits).
            session_updated_at: The session's last change, which marks it indexed.

        Returns:
            A JSON-compatible dict.
        """
        return {
            "chunk_id": self.chunk_id,
            "session_id": self.session_id,
            "parent_session_id": self.parent_session_id,
            "root_session_id": self.root_session_id,
            "tenant": self.tenant,
            "caller_app": self.caller_app,
            "chunk_type": self.chunk_type,
            "sequence_order": self.sequence_order,
            "timestamp": self.timestamp.isoformat(),
            "indexed": self.indexed,
            "content": self.content,
            "content_summary": self.content_summary,
            "content_hash": self.content_hash,
            "participants": list(self.participants),
            "tool_details": self.tool_details,
            "custom_tags": list(self.custom_tags),
            "search_query": self.search_query,
            "cited_titles": list(self.cited_titles),
            "message_index": self.message_index,
            "title": title,
            "session_updated_at": session_updated_at.isoformat(),
        }


def chunk_id_for(tenant: str, caller_app: str, session_id: str, chunk_type: str, order: int) -> str:
    """Deterministic chunk id (a UUID, as the engine's point ids are).

    Args:
        tenant: Tenant id.
        caller_app: Caller app id.
        session_id: Session id.
        chunk_type: The chunk's type.
        order: Its ``sequence_order``.

    Returns:
        The id as a string.
    """
    name = f"{tenant}\x1f{caller_app}\x1f{session_id}\x1f{chunk_type}\x1f{order}"
    return str(uuid.uuid5(_NAMESPACE, name))


def shorten(text: str, limit: int = _SUMMARY_CHARS) -> str:
    """Collapse whitespace and cut to ``limit`` characters (ellipsis included)."""
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1].rstrip() + "\u2026"


@dataclass(frozen=True)
class Exchange:
    """A question and the answer to it, as stored."""

    order: int
    message_index: int
    question: Message | None
    answer: Message | None


def exchanges(session: Session) -> list[Exchange]:
    """Pair each user message with the assistant message that answers it.

    An assistant message answers the user message before it (the store writes a
    turn as that pair); a question left unanswered, or an answer without a question
    (a message added alone), is an exchange of its own. Answers the user set aside for
    another one (regenerate) are left out: the exchange is the answer kept.

    Args:
        session: The stored session.

    Returns:
        The exchanges in session order, numbered from 0.
    """
    found: list[Exchange] = []
    pending: tuple[int, Message] | None = None
    for index, message in enumerate(session.messages):
        if message.role == "assistant" and message.metadata and message.metadata.superseded:
            continue  # an answer the user replaced (regenerate, select): not what was said
        if message.role == "user":
            if pending is not None:
                found.append(Exchange(len(found), pending[0], pending[1], None))
            pending = (index, message)
            continue
        if pending is not None:
            found.append(Exchange(len(found), pending[0], pending[1], message))
            pending = None
        else:
            found.append(Exchange(len(found), index, None, message))
    if pending is not None:
        found.append(Exchange(len(found), pending[0], pending[1], None))
    return found


def exchange_text(exchange: Exchange) -> str:
    """Return the embedded text of an exchange: the question, then the answer."""
    parts = []
    if exchange.question is not None:
        parts.append(f"User: {exchange.question.content.strip()}")
    if exchange.answer is not None:
        parts.append(f"Assistant: {exchange.answer.content.strip()}")
    return "\n".join(parts)


def _tool_details(answer: Message) -> dict[str, Any] | None:
    meta = answer.metadata
    if meta is None or meta.route != "tool":
        return None
    call = meta.search_query or ""
    name, _, rest = call.partition("(")
    status = "success" if meta.outcome == "tool_answer" else (meta.outcome or "unknown")
    return {
        "tool_name": name.strip() or "tool",
        "parameters": rest[:-1] if rest.endswith(")") else rest,
        "status": status,
        "summary": shorten(answer.content.splitlines()[0] if answer.content else "", 120),
    }


def _lineage(session: Session) -> dict[str, Any]:
    return {
        "parent_session_id": session.parent_session_id,
        "root_session_id": session.root_session_id,
    }


def chunk_session(session: Session) -> list[ConversationChunk]:
    """All chunks of a session: its summary, its exchanges and its tool interactions.

    Args:
        session: The stored session.

    Returns:
        The summary first (when the session has any message), then per exchange its
        ``message_exchange`` chunk and, for a tool turn, its ``tool_interaction``.
    """
    pairs = exchanges(session)
    if not pairs:
        return []
    key = (session.tenant, session.caller_app, session.id)
    chunks: list[ConversationChunk] = []
    outline: list[str] = []
    for pair in pairs:
        answer = pair.answer
        meta = answer.metadata if answer is not None else None
        asked = pair.question or answer
        assert asked is not None  # an exchange holds at least one message
        participants = tuple(m.role for m in (pair.question, answer) if m is not None)
        titles = tuple(meta.titles) if meta is not None else ()
        tool = _tool_details(answer) if answer is not None else None
        content = exchange_text(pair)
        chunks.append(
            ConversationChunk(
                chunk_id=chunk_id_for(*key, "message_exchange", pair.order),
                session_id=session.id,
                tenant=session.tenant,
                caller_app=session.caller_app,
                chunk_type="message_exchange",
                sequence_order=pair.order,
                timestamp=asked.created_at,
                content=content,
                content_summary=shorten(content),
                participants=participants,
                search_query=None if tool is not None or meta is None else meta.search_query,
                cited_titles=titles,
                message_index=pair.message_index,
                **_lineage(session),
            )
        )
        if tool is not None and answer is not None:
            chunks.append(
                ConversationChunk(
                    chunk_id=chunk_id_for(*key, "tool_interaction", pair.order),
                    session_id=session.id,
                    tenant=session.tenant,
                    caller_app=session.caller_app,
                    chunk_type="tool_interaction",
                    sequence_order=pair.order,
                    timestamp=answer.created_at,
                    content=f"{tool['tool_name']}({tool['parameters']})",
                    content_summary=tool["summary"],
                    participants=("assistant", "tool"),
                    tool_details=tool,
                    message_index=pair.message_index,
                    **_lineage(session),
                )
            )
        if meta is not None:
            outline.extend(item.title for item in meta.outline)
    first = pairs[0].question
    lines = [f"Conversation: {session.title or ''}".rstrip()]
    if first is not None:
        lines.append(f"First question: {first.content.strip()}")
    if outline:
        lines.append("Outline: " + "; ".join(dict.fromkeys(outline[:_OUTLINE_TITLES])))
    summary_text = "\n".join(lines)
    summary = ConversationChunk(
        chunk_id=chunk_id_for(*key, "session_summary", SUMMARY_ORDER),
        session_id=session.id,
        tenant=session.tenant,
        caller_app=session.caller_app,
        chunk_type="session_summary",
        sequence_order=SUMMARY_ORDER,
        timestamp=session.updated_at,
        content=summary_text,
        content_summary=shorten(summary_text),
        participants=("user", "assistant"),
        **_lineage(session),
    )
    return [summary, *chunks]
