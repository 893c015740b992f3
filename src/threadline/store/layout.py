"""On-disk layout of a session file: the canonical line layout and damage salvage.

A session file is one JSON object (``Session``, schema version 1) written as::

    {"schema_version":1,"id":...,"updated_at":...,"messages_bytes":N,"messages_crc32":C,"messages":[
    {"id":"msg_...","role":"user",...},
    {"id":"msg_...","role":"assistant",...}
    ]}

Line 1 is the session without its messages (``SessionHeader``), then one message per
line (compact pydantic JSON never contains a newline), then ``]}``.
``messages_bytes`` and ``messages_crc32`` describe the bytes between line 1 and the
closing ``]}``. They are layout keys, not schema: ``Session`` ignores them, any other
valid layout of the same object (for example the indented files older versions
wrote) is read the same way, and a file without them, or whose checksum does not
match, is simply validated in full.

This is a layout, not a schema change, so ``schema_version`` stays 1: the object has
the same keys plus two that readers ignore, older code of this version reads these
files (pydantic ignores unknown keys), and this code reads theirs, rewriting a file
in this layout on its first write.

``SessionDoc`` is a file split into line 1 and its raw message lines, so an append
splices new lines in without parsing or re-serialising the history. ``salvage``
rebuilds what can be trusted of a damaged file, for ``check_sessions(repair=True)``.
"""

from __future__ import annotations

import json
import re
import zlib
from dataclasses import dataclass, field
from typing import Any

import pydantic_core
from pydantic import BaseModel, ValidationError

from threadline.store.models import SCHEMA_VERSION, Message, Session, UtcDatetime
from threadline.store.rules import describe_error

ARRAY_OPEN = b'"messages":['
"""How line 1 ends."""
LINE_SEP = b",\n"
"""Between two message lines."""
TRAILER = b"]}\n"
"""The last line."""
_MESSAGES_KEY = re.compile(rb'"messages"\s*:\s*\[')
_TURN_ID_VALUE = re.compile(rb'"turn_id":("(?:[^"\\]|\\.)*")')


def dump_message(message: Message) -> bytes:
    """One message as one line of compact JSON.

    Pydantic escapes control characters inside strings, so the result never holds a
    newline byte.

    Args:
        message: A validated message.

    Returns:
        The line, without a newline.
    """
    return message.model_dump_json().encode("utf-8")


_OPTIONAL_HEADER = ("parent_session_id", "root_session_id", "closed_at")
"""Header fields left out of the file while unset."""


class SessionHeader(BaseModel):
    """Line 1 of a canonical session file: the session without its messages."""

    schema_version: int
    id: str
    tenant: str
    caller_app: str
    title: str | None = None
    created_at: UtcDatetime
    updated_at: UtcDatetime
    messages_bytes: int = 0
    messages_crc32: int = 0
    parent_session_id: str | None = None
    root_session_id: str | None = None
    closed_at: UtcDatetime | None = None


@dataclass
class SessionDoc:
    r"""A session file as line 1 plus its message lines, which are kept as raw bytes.

    ``source[lo:hi]`` holds the stored messages: one per line, joined by ``",\n"``,
    without the final newline (empty when there are none). ``crc`` is their CRC-32.
    ``added`` are serialised messages to append.
    """

    header: SessionHeader
    source: bytes
    lo: int
    hi: int
    crc: int
    added: list[bytes] = field(default_factory=list)
    turn_ids: set[bytes] | None = field(default=None, repr=False)
    """Every ``"turn_id"`` value in the lines (JSON-encoded), once a second lookup asked."""
    lookups: int = field(default=0, repr=False)

    @classmethod
    def from_session(cls, session: Session) -> SessionDoc:
        """Serialise a validated session (slow path and new sessions)."""
        body = LINE_SEP.join(dump_message(m) for m in session.messages)
        header = SessionHeader(
            schema_version=SCHEMA_VERSION,
            id=session.id,
            tenant=session.tenant,
            caller_app=session.caller_app,
            title=session.title,
            created_at=session.created_at,
            updated_at=session.updated_at,
            parent_session_id=session.parent_session_id,
            root_session_id=session.root_session_id,
            closed_at=session.closed_at,
        )
        return cls(header=header, source=body, lo=0, hi=len(body), crc=zlib.crc32(body))

    @classmethod
    def trusted(
        cls, data: bytes, tenant: str, caller_app: str, session_id: str
    ) -> SessionDoc | None:
        """Split ``data`` if it is a canonical file whose message lines pass the checksum.

        Args:
            data: The file's bytes.
            tenant: Tenant id the file is stored under.
            caller_app: Caller app id the file is stored under.
            session_id: Session id the file is stored under.

        Returns:
            The document, or ``None`` when the file must be validated in full (other
            layout, hand-edited or damaged messages, wrong key or schema version).
        """
        newline = data.find(b"\n")
        end = len(data) - len(TRAILER)
        if newline < 0 or end <= newline or not data.endswith(TRAILER):
            return None
        if data[newline - len(ARRAY_OPEN) : newline] != ARRAY_OPEN:
            return None
        try:
            header = SessionHeader.model_validate_json(data[:newline] + b"]}")
        except ValidationError:
            return None
        if header.schema_version != SCHEMA_VERSION:
            return None
        if (header.tenant, header.caller_app, header.id) != (tenant, caller_app, session_id):
            return None
        lo = newline + 1
        if header.messages_bytes != end - lo:
            return None
        if end == lo:
            return cls(header, data, lo, lo, 0) if header.messages_crc32 == 0 else None
        if data[end - 1] != ord("\n"):
            return None
        crc = zlib.crc32(memoryview(data)[lo : end - 1])
        if zlib.crc32(b"\n", crc) != header.messages_crc32:
            return None
        return cls(header, data, lo, end - 1, crc)

    def message_count(self) -> int:
        """Count the messages, stored and added."""
        stored = self.source.count(b"\n", self.lo, self.hi) + 1 if self.hi > self.lo else 0
        return stored + len(self.added)

    def may_hold_turn(self, turn_id: str) -> bool:
        """Whether a message of ``turn_id`` may be stored; ``False`` is certain.

        The lines are pydantic's serialisation, so a message of that turn contains
        exactly this key and value. A hit may be a false positive (e.g. a citation's
        extra field); callers confirm it on the parsed session.

        Args:
            turn_id: The turn id to look for.

        Returns:
            ``False`` if no message of that turn is stored or added.
        """
        value = pydantic_core.to_json(turn_id)
        if any(b'"turn_id":' + value in line for line in self.added):
            return True
        self.lookups += 1
        if self.turn_ids is None and self.lookups > 1:
            # A leader checks one turn id per handed-over append: past the first, one
            # scan that collects them all is cheaper than one search each. The set may
            # hold more than message turn ids (e.g. a citation's extra field): a
            # superset, so "not in it" stays certain.
            self.turn_ids = set(_TURN_ID_VALUE.findall(self.source, self.lo, self.hi))
        if self.turn_ids is not None:
            return value in self.turn_ids
        # Searched without the closing quote, then checked: bytes.find skips ahead on
        # the needle's last byte, and '"' is on every line.
        needle = b'"turn_id":' + value[:-1]
        start = self.lo
        while (hit := self.source.find(needle, start, self.hi)) >= 0:
            end = hit + len(needle)
            if self.source[end : end + 1] == b'"':
                return True
            start = hit + 1
        return False

    def holds_message(self, message_id: str) -> bool:
        """Whether a message with this id is stored or added.

        Args:
            message_id: The message id (a line starts with it).

        Returns:
            ``True`` if a line starts with that id.
        """
        needle = b'{"id":' + pydantic_core.to_json(message_id) + b","
        stored = self.hi > self.lo and (
            self.source.startswith(needle, self.lo)
            or self.source.find(b"\n" + needle, self.lo, self.hi) >= 0
        )
        return stored or any(line.startswith(needle) for line in self.added)

    def extend(self, lines: list[bytes]) -> None:
        """Queue lines that ``dump_message`` produced from validated messages."""
        self.added.extend(lines)

    def render(self) -> bytes:
        """Return the whole file in the canonical layout, checksum and length included."""
        return self.rendered()[0]

    def rendered(self) -> tuple[bytes, SessionDoc]:
        """Return the file's bytes and the document they are, to keep appending after a write.

        Returns:
            ``(file bytes, document over those bytes with nothing added)``.
        """
        stored = memoryview(self.source)[self.lo : self.hi]
        crc = self.crc
        extra = b""
        if self.added:
            extra = LINE_SEP.join(self.added)
            if len(stored):
                extra = LINE_SEP + extra
            crc = zlib.crc32(extra, crc)
        size = len(stored) + len(extra)
        final = b"\n" if size else b""
        header = self.header.model_copy(
            update={
                "schema_version": SCHEMA_VERSION,
                "messages_bytes": size + len(final),
                "messages_crc32": zlib.crc32(final, crc) if size else 0,
            }
        )
        # Lineage and closing are written only when set: files of sessions without
        # them keep the exact bytes older code wrote.
        unset = {name for name in _OPTIONAL_HEADER if getattr(header, name) is None}
        line = header.model_dump_json(exclude=unset).encode("utf-8")
        head = line[:-1] + b"," + ARRAY_OPEN + b"\n"
        data = b"".join((head, stored, extra, final, TRAILER))
        lo = len(head)
        after = SessionDoc(header, data, lo, lo + size, crc if size else 0)
        if self.turn_ids is not None:
            after.turn_ids = self.turn_ids | set(_TURN_ID_VALUE.findall(extra))
            after.lookups = self.lookups
        return data, after


class Unsalvageable(ValueError):
    """A damaged session file from which no session can be rebuilt."""


def _scan_messages(data: bytes, start: int) -> tuple[list[Any], int]:
    """Decode the message objects of a damaged file from ``start`` (just after ``[``).

    Returns:
        ``(decoded objects, number of fragments that could not be decoded)``.
    """
    canonical = data[start : start + 1] == b"\n" and data.rfind(b"\n", 0, start) < 0
    if canonical:
        # One message per line: a damaged line costs that message only.
        items: list[Any] = []
        dropped = 0
        for raw_line in data[start + 1 :].split(b"\n"):
            line = raw_line.strip()
            if line.endswith(b","):
                line = line[:-1]
            if not line or line in (b"]", b"]}"):
                continue
            try:
                items.append(json.loads(line))
            except ValueError:
                dropped += 1
        return items, dropped
    # Any other layout: keep the longest prefix of complete messages.
    raw = data[start:]
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        text = raw[: exc.start].decode("utf-8")
    decoder = json.JSONDecoder()
    items = []
    pos = 0
    while True:
        while pos < len(text) and text[pos] in " \t\r\n,":
            pos += 1
        if pos >= len(text) or text[pos] == "]":
            return items, 0
        try:
            obj, pos = decoder.raw_decode(text, pos)
        except ValueError:
            return items, 1
        items.append(obj)


def salvage(data: bytes, tenant: str, caller_app: str, session_id: str) -> tuple[Session, int]:
    """Rebuild what can be trusted of a damaged session file.

    Keeps the session fields and every message that still validates, in order; a
    truncated file keeps the messages before the cut. In the line layout each line is
    decoded on its own, so a damaged line costs that message only; in any other
    layout the longest prefix of complete messages is kept.

    Args:
        data: The damaged file's bytes.
        tenant: Tenant id the file is stored under.
        caller_app: Caller app id the file is stored under.
        session_id: Session id the file is stored under.

    Returns:
        ``(session, number of messages or fragments dropped)``.

    Raises:
        Unsalvageable: If the session fields cannot be recovered, belong to another
            key or to another schema version.
    """
    try:
        whole: Any = json.loads(data)
    except ValueError:
        whole = None
    if whole is not None:
        if not isinstance(whole, dict):
            raise Unsalvageable("the file is JSON but not an object")
        candidates = whole.get("messages", [])
        if not isinstance(candidates, list):
            raise Unsalvageable("'messages' is not a list")
        fields = {key: value for key, value in whole.items() if key != "messages"}
        dropped = 0
    else:
        match = _MESSAGES_KEY.search(data)
        if match is None:
            raise Unsalvageable("no messages array found")
        head = data[: match.start()].rstrip()
        if head.endswith(b","):
            head = head[:-1]
        try:
            fields = json.loads(head + b"}")
        except ValueError as exc:
            raise Unsalvageable("the session fields before the messages are damaged") from exc
        candidates, dropped = _scan_messages(data, match.end())
    # The old indented layout writes schema_version after the messages: a truncated
    # file has lost it, and the model's default (this version) applies.
    version = fields.get("schema_version", SCHEMA_VERSION)
    if version != SCHEMA_VERSION:
        raise Unsalvageable(f"schema_version {version!r}, this code repairs {SCHEMA_VERSION}")
    if (fields.get("tenant"), fields.get("caller_app"), fields.get("id")) != (
        tenant,
        caller_app,
        session_id,
    ):
        raise Unsalvageable("stored tenant/caller_app/id do not match its path")
    try:
        session = Session.model_validate({**fields, "messages": []})
    except ValidationError as exc:
        raise Unsalvageable(f"session fields are invalid: {describe_error(exc)}") from exc
    seen: set[str] = set()
    for candidate in candidates:
        try:
            message = Message.model_validate(candidate)
        except ValidationError:
            dropped += 1
            continue
        if message.id in seen:
            dropped += 1
            continue
        seen.add(message.id)
        session.messages.append(message)
    return session, dropped
