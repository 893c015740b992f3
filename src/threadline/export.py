"""A conversation taken away: Markdown that reads on its own, JSON that imports back.

`to_markdown` writes the conversation the user kept (answers set aside by a
regenerate are counted, not shown): each question and answer, the answer's
citations as footnotes (title, section, source, passage id), its outline and its
ratings. `to_export` / `SessionExport` are the JSON form: the session with every
message as stored (alternatives and ratings included; the trace only when the
caller may see traces), which `POST /sessions/import` reads back after checking it
(ids, one question and one answer per turn id, alternatives that name a question of
the same session). The tenant is never in the file: an import belongs to the key's.
"""

from __future__ import annotations

import re
from collections import Counter
from datetime import UTC, datetime, timedelta
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from threadline.followups.outline import MAX_SECTIONS
from threadline.store.edits import answer_counts
from threadline.store.ids import validate_id
from threadline.store.models import Message, Session, UtcDatetime
from threadline.text.storable import unstorable_text
from threadline.tracing import TRACE_MAX_CHARS, sanitize_trace

EXPORT_FORMAT: Literal["threadline.session"] = "threadline.session"
MAX_IMPORT_MESSAGES = 10_000
"""Most messages one imported session may hold."""
MAX_IMPORTED_QUESTION_CHARS = 4000
"""Longest question an import may hold: what `POST /chat` accepts as one message."""
MAX_IMPORTED_ANSWER_CHARS = 100_000
"""Longest answer an import may hold: far beyond what a turn writes (an answer is a
few thousand characters under the model's token cap), far below what costs every later
turn of the session seconds of the server's CPU (a 12.8 MB answer: 59 s)."""
MAX_IMPORTED_OUTLINE_TITLE_CHARS = 1000
"""Longest outline title an import may hold (a turn's are one heading or one line)."""
MAX_IMPORTED_CITATIONS = 1000
"""Most citations, cited document ids or titles one imported answer may hold: a turn
cites the passages it packed (`max_chunks`, at most 50) or one catalog list, far fewer;
an answer naming 10^6 document ids made each later turn of its session take 1 to 10 s."""
MAX_IMPORTED_RATINGS = 1000
"""Most ratings one imported answer may hold (one per user): 100,000 made each later
turn of its session take 1.2 to 2 s and its regenerate 7 s."""
CLOCK_SKEW = timedelta(days=1)
"""How far past this server's clock an imported time may lie (another server's clock)."""

_CITE = re.compile(r"\[(\d{1,3}(?:\s*,\s*\d{1,3})*)\]")
_THUMB = {"up": "\U0001f44d", "down": "\U0001f44e"}


class ExportedSession(BaseModel):
    """A session as exported: no tenant (an import takes the key's), no caller app."""

    model_config = ConfigDict(extra="forbid")

    id: str = Field(
        max_length=128,
        # The id rule of `threadline.store.ids`, documented in the schema as the API's
        # ids are (the validator below enforces it).
        json_schema_extra={"pattern": r"^[A-Za-z0-9](?:\.?[A-Za-z0-9_:-])*\.?$"},
    )
    title: str | None = Field(default=None, max_length=200)
    created_at: UtcDatetime
    updated_at: UtcDatetime
    messages: list[Message] = Field(default_factory=list, max_length=MAX_IMPORT_MESSAGES)

    @model_validator(mode="after")
    def _consistent(self) -> ExportedSession:
        validate_id(self.id, "session_id")
        ids = [m.id for m in self.messages]
        for message in self.messages:
            validate_id(message.id, "message_id")
            if message.turn_id is not None:
                validate_id(message.turn_id, "turn_id")
        repeated = [mid for mid, n in Counter(ids).items() if n > 1]
        if repeated:
            raise ValueError(f"message id {repeated[0]!r} appears twice")
        turns = Counter((m.turn_id, m.role) for m in self.messages if m.turn_id is not None)
        twice = [key for key, n in turns.items() if n > 1]
        if twice:
            raise ValueError(f"turn {twice[0][0]!r} has two {twice[0][1]} messages")
        # Text the stores cannot keep (NUL, a lone surrogate) is refused, not a failed write.
        problem = unstorable_text(self.title or "", "title") or unstorable_text(
            [m.model_dump(mode="json") for m in self.messages], "messages"
        )
        if problem:
            raise ValueError(problem)
        # A question no chat turn could have asked, or a time yet to come (which would
        # sort the session first in every list, for ever), is not a conversation that
        # was exported from a threadline: refused rather than stored.
        for message in self.messages:
            if message.role == "user" and len(message.content) > MAX_IMPORTED_QUESTION_CHARS:
                raise ValueError(
                    f"question {message.id!r} is longer than "
                    f"{MAX_IMPORTED_QUESTION_CHARS} characters"
                )
            if message.role == "assistant":
                _check_answer_size(message)
        latest = datetime.now(UTC) + CLOCK_SKEW
        times = [("created_at", self.created_at), ("updated_at", self.updated_at)]
        times += [(f"message {m.id!r} created_at", m.created_at) for m in self.messages]
        for label, moment in times:
            if moment > latest:
                raise ValueError(f"{label} {moment.isoformat()} is in the future")
        questions = {m.id for m in self.messages if m.role == "user"}
        for message in self.messages:
            meta = message.metadata
            if meta is not None and meta.alternative_of and meta.alternative_of not in questions:
                raise ValueError(
                    f"answer {message.id!r} answers {meta.alternative_of!r}, not a question here"
                )
        return self


def _check_answer_size(message: Message) -> None:
    """Refuse an answer larger than any turn writes: it would cost every later turn.

    Every turn of a session reads its history (the outline its follow-ups resolve
    against, the last answer): an imported outline of 200,000 sections made each turn
    take 18 to 73 s of CPU, shared with every other tenant of the server.

    Raises:
        ValueError: naming the answer and what is too large.
    """
    if len(message.content) > MAX_IMPORTED_ANSWER_CHARS:
        raise ValueError(
            f"answer {message.id!r} is longer than {MAX_IMPORTED_ANSWER_CHARS} characters"
        )
    outline = message.metadata.outline if message.metadata is not None else []
    if len(outline) > MAX_SECTIONS:
        raise ValueError(
            f"answer {message.id!r} has {len(outline)} outline sections, a turn writes at "
            f"most {MAX_SECTIONS}"
        )
    meta = message.metadata
    if meta is not None:
        for name, items in (
            ("citations", meta.citations),
            ("document ids", meta.doc_ids),
            ("titles", meta.titles),
        ):
            if len(items) > MAX_IMPORTED_CITATIONS:
                raise ValueError(
                    f"answer {message.id!r} has {len(items)} {name}, more than the "
                    f"{MAX_IMPORTED_CITATIONS} an answer may hold"
                )
        if len(meta.feedback) > MAX_IMPORTED_RATINGS:
            raise ValueError(
                f"answer {message.id!r} has {len(meta.feedback)} ratings, more than the "
                f"{MAX_IMPORTED_RATINGS} an answer may hold"
            )
        raters = [rating.user for rating in meta.feedback]
        twice = [user for user, n in Counter(raters).items() if n > 1]
        if twice:
            # One rating per user per answer (`threadline.feedback`): which would count?
            raise ValueError(f"answer {message.id!r} has two ratings by user {twice[0]!r}")
    for item in outline:
        if len(item.title) > MAX_IMPORTED_OUTLINE_TITLE_CHARS:
            raise ValueError(
                f"answer {message.id!r}: outline section {item.id!r} has a title longer "
                f"than {MAX_IMPORTED_OUTLINE_TITLE_CHARS} characters"
            )


class SessionExport(BaseModel):
    """The JSON export of one session (`GET /sessions/{id}/export?format=json`)."""

    model_config = ConfigDict(extra="forbid")

    format: Literal["threadline.session"] = EXPORT_FORMAT
    version: Literal[1] = 1
    exported_at: UtcDatetime = Field(default_factory=lambda: datetime.now(UTC))
    session: ExportedSession


def read_export(raw: bytes | str) -> SessionExport:
    """Parse an export file strictly, as every import path reads it (API and CLI alike).

    The file must hold what its schema says (a time as text, a count as a number), not
    what lax parsing can make of something else: an import the API refuses is refused by
    `threadline sessions import` too.

    Raises:
        pydantic.ValidationError: the file is not a session export.
    """
    return SessionExport.model_validate_json(raw, strict=True)


def to_export(session: Session, *, with_trace: bool = False) -> SessionExport:
    """Return the JSON export of a session.

    Args:
        session: The stored session.
        with_trace: Keep each answer's trace (for a caller app allowed traces).

    Returns:
        The export; `model_dump(mode="json")` is the file.
    """
    messages = [m.model_copy(deep=True) for m in session.messages]
    if not with_trace:
        for message in messages:
            if message.metadata is not None:
                message.metadata.trace = None
    return SessionExport(
        session=ExportedSession(
            id=session.id,
            title=session.title,
            created_at=session.created_at,
            updated_at=session.updated_at,
            messages=messages,
        )
    )


def from_export(
    export: SessionExport, *, tenant: str, caller_app: str, session_id: str | None = None
) -> Session:
    """Return the session an export describes, in the importing key's tenant and app.

    Args:
        export: The validated export.
        tenant: The importing key's tenant (never the file's).
        caller_app: The caller app to import under.
        session_id: Another id to store it under (the export's id when `None`).

    Returns:
        The session to store.

    Raises:
        InvalidIdError: If `session_id` is not a valid id.
    """
    data = export.session
    messages = [m.model_copy(deep=True) for m in data.messages]
    for message in messages:
        if message.metadata is not None and message.metadata.trace is not None:
            # Kept as a turn keeps its trace: without document text, within its size cap
            # (a hand-made one of 500,000 entries would ride along with every export).
            # Entries past the first TRACE_MAX_CHARS cannot fit (each takes two or more
            # characters of JSON): cut first, so the cap costs no more than it keeps.
            message.metadata.trace = sanitize_trace(message.metadata.trace[:TRACE_MAX_CHARS])
    return Session(
        id=validate_id(session_id, "session_id") if session_id is not None else data.id,
        tenant=tenant,
        caller_app=caller_app,
        title=data.title,
        created_at=data.created_at,
        updated_at=data.updated_at,
        messages=messages,
    )


def _footnote_label(turn: int, cite_id: str) -> str:
    return f"t{turn}-{cite_id}"


def _with_footnotes(answer: str, turn: int, known: set[str]) -> str:
    def replace(match: re.Match[str]) -> str:
        ids = [i.strip() for i in match.group(1).split(",")]
        if not all(i in known for i in ids):
            return match.group(0)  # not a citation of this answer: leave the text as it is
        return "".join(f"[^{_footnote_label(turn, i)}]" for i in ids)

    return _CITE.sub(replace, answer)


def _heading(question: str) -> str:
    line = " ".join(question.split())
    return line if len(line) <= 80 else line[:79].rstrip() + "\u2026"


def to_markdown(session: Session) -> str:
    """Return the conversation the user kept as a Markdown document.

    Args:
        session: The stored session.

    Returns:
        Markdown: a title, one section per turn (question, answer with footnote
        markers, outline, ratings), then the footnotes.
    """
    title = session.title or session.id
    lines = [
        f"# {title}",
        "",
        f"*Conversation `{session.id}`, {session.created_at:%Y-%m-%d %H:%M} UTC; "
        f"exported from threadline on {datetime.now(UTC):%Y-%m-%d %H:%M} UTC.*",
        "",
    ]
    footnotes: list[str] = []
    answers = answer_counts(session)
    turn = 0
    question: Message | None = None
    for message in session.messages:
        if message.role == "user":
            question = message
            continue
        meta = message.metadata
        if meta is not None and meta.superseded:
            continue
        turn += 1
        lines += [f"## {turn}. {_heading(question.content) if question else 'Answer'}", ""]
        if question is not None:
            lines += [f"**You:** {question.content}", ""]
        known = {c.id for c in meta.citations} if meta is not None else set()
        lines += [f"**threadline:** {_with_footnotes(message.content, turn, known)}", ""]
        if meta is not None:
            if meta.outline:
                lines += ["Outline:", ""]
                lines += [f"- **{item.id}** {item.title}" for item in meta.outline]
                lines.append("")
            for rating in meta.feedback:
                reason = f", {rating.reason.replace('_', ' ')}" if rating.reason else ""
                comment = f": \u201c{rating.comment}\u201d" if rating.comment else ""
                lines += [
                    f"> {_THUMB[rating.rating]} {rating.rating}{reason}{comment} "
                    f"({rating.user}, {rating.created_at:%Y-%m-%d})",
                    "",
                ]
            for citation in meta.citations:
                name = (
                    f"{citation.title} \u2014 {citation.section}"
                    if citation.section
                    else (citation.title)
                )
                source = f" \u00b7 source `{citation.source}`" if citation.source else ""
                passage = f" \u00b7 passage `{citation.chunk_id}`" if citation.chunk_id else ""
                footnotes.append(
                    f"[^{_footnote_label(turn, citation.id)}]: **{name}**{source}{passage} "
                    f"(document `{citation.doc_id}`)"
                )
        n = answers[question.id] - 1 if question is not None else 0
        if n > 0:
            lines += [f"*{n} earlier answer{'s' if n > 1 else ''} set aside (regenerated).*", ""]
    if footnotes:
        lines += ["---", "", *footnotes, ""]
    return "\n".join(lines)
