"""Which threadline thread an OpenAI chat completion belongs to.

OpenAI clients send the whole history and often no conversation id. The id comes from
(first match wins) the `X-Threadline-Thread-Id` header, Open WebUI's
`X-OpenWebUI-Chat-Id` header, the `user` field, or an id derived from the
conversation's first user message (see `resolve_thread`).
"""

from __future__ import annotations

import hashlib
import json
import uuid
from collections.abc import Iterable

from threadline.api.openai_schemas import ChatMessageIn
from threadline.store import (
    ConversationStoreProtocol,
    CorruptSessionError,
    InvalidIdError,
    SessionExistsError,
    validate_id,
)

THREAD_HEADER = "X-Threadline-Thread-Id"
OPENWEBUI_CHAT_HEADER = "X-OpenWebUI-Chat-Id"
# Derived ids: one slot per conversation that starts with the same first message.
DERIVED_PREFIX = "oai-"
MAX_DERIVED_SLOTS = 64


def _normalized(text: str) -> str:
    """Collapse runs of whitespace, so a client's copy compares equal to the stored text."""
    return " ".join(text.split())


def _turns(messages: Iterable[tuple[str, str]]) -> list[tuple[str, str]]:
    """(question, answer) pairs, whitespace-normalized, the way the graph reads history."""
    turns: list[tuple[str, str]] = []
    question = None
    for role, text in messages:
        if role == "user":
            question = text
        elif role == "assistant" and question is not None:
            turns.append((_normalized(question), _normalized(text)))
            question = None
    return turns


def _same_answer(client: str, stored: str) -> bool:
    """Tell whether a resent assistant message is the stored answer (footer or not)."""
    # Clients resend our `content`: the stored answer followed by the sources footer.
    return bool(client and stored) and (client.startswith(stored) or stored.startswith(client))


def _extra_turns(stored: list[tuple[str, str]], client: list[tuple[str, str]]) -> int | None:
    """How many turns the stored thread has beyond the client's history, or None if they differ."""
    if len(stored) < len(client):
        return None
    for (cq, ca), (sq, sa) in zip(client, stored, strict=False):
        if cq != sq or not _same_answer(ca, sa):
            return None
    return len(stored) - len(client)


def derive_thread_id(
    store: ConversationStoreProtocol,
    *,
    tenant: str,
    caller_app: str,
    messages: list[ChatMessageIn],
    query_index: int,
) -> tuple[str, str]:
    """Return a stable id for clients that resend the whole history and send no id.

    The id hashes the tenant, the caller app and the conversation's first user
    message, so every request of one conversation lands on the same thread. Several
    conversations may start with the same message ("hello"), so each hash has
    numbered slots (`oai-<hash>`, `oai-<hash>-1`, ... up to `MAX_DERIVED_SLOTS`):

    * a request with no earlier turn (the client just started a conversation, or
      regenerated its first answer) claims the first free slot, atomically
      (`create_session` refuses an id that exists);
    * otherwise the client's earlier turns (the messages before the query) pick the
      slot whose stored turns start with them: same questions, and each resent
      assistant message starting with the stored answer (clients resend our
      `content`, which is the answer plus the sources footer). A slot holding
      exactly those turns wins over one that holds more (after a regenerate, the
      thread that matches what the client shows). No match (a history from
      elsewhere, a deleted thread) claims a free slot: a new thread.

    Returns:
        The thread id and `"derived"`, or a random id and `"new"` when every slot
        is taken.
    """
    client = _turns((m.role, m.text()) for m in messages[:query_index])
    first_question = next(m.text() for m in messages if m.role == "user")
    key = json.dumps([tenant, caller_app, _normalized(first_question)], ensure_ascii=False)
    base = DERIVED_PREFIX + hashlib.sha256(key.encode("utf-8")).hexdigest()[:32]
    slots = [base] + [f"{base}-{slot}" for slot in range(1, MAX_DERIVED_SLOTS)]
    keys = {"tenant": tenant, "caller_app": caller_app}
    if client:
        best: tuple[int, str] | None = None
        for sid in slots:
            try:
                session = store.get_session(**keys, session_id=sid)
            except CorruptSessionError:
                continue
            if session is None:
                continue
            extra = _extra_turns(_turns((m.role, m.content) for m in session.messages), client)
            if extra is not None and (best is None or extra < best[0]):
                best = (extra, sid)
                if extra == 0:
                    break
        if best is not None:
            return best[1], "derived"
    for sid in slots:
        try:
            store.create_session(**keys, session_id=sid)
        except SessionExistsError:
            continue
        return sid, "derived"
    return f"{DERIVED_PREFIX}{uuid.uuid4().hex}", "new"


def resolve_thread(
    store: ConversationStoreProtocol,
    *,
    tenant: str,
    caller_app: str,
    header_id: str | None,
    openwebui_id: str | None,
    user: str | None,
    messages: list[ChatMessageIn],
    query_index: int,
) -> tuple[str, str]:
    """Return the conversation id of a completion request and where it came from.

    Returns:
        `(thread_id, source)`, source one of `header`, `openwebui`, `user`,
        `derived`, `new`.

    Raises:
        InvalidIdError: The header's id is not a valid session id.
    """
    if header_id:
        return validate_id(header_id, "X-Threadline-Thread-Id"), "header"
    if openwebui_id:
        return validate_id(openwebui_id, "X-OpenWebUI-Chat-Id"), "openwebui"
    if user:
        # `user` is free text in OpenAI's API (often an e-mail): used as is when it is
        # a valid session id, otherwise through a hash (the id is returned either way).
        try:
            return validate_id(user, "user"), "user"
        except InvalidIdError:
            digest = hashlib.sha256(user.encode("utf-8")).hexdigest()[:32]
            return f"user-{digest}", "user"
    return derive_thread_id(
        store, tenant=tenant, caller_app=caller_app, messages=messages, query_index=query_index
    )
