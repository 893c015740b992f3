"""Start-up warm-up: a server's first question costs what the later ones do.

A turn's code loads much of what it needs on first use: lemminflect's lemma tables
(0.7 s), the dense model's first passes, the follow-up lexicons' patterns, the
regular expressions `re` compiles the first time a pattern is searched, the answer
stage's tables. Without a warm-up the first question after `threadline serve` pays
them (0.3-0.6 s on the sample data against 20-40 ms for the later ones). The app's
lifespan calls `warm_up` before the server listens, so `/health` answers, and a
question is taken, only once it is done.

The warm-up holds a few short conversations through `ChatService`, the path every
question takes, so no list of lazy parts has to be kept in step with the turn's code.
They search the real knowledge base but are stored in a scratch directory (a store and
a queries log of their own, deleted afterwards): nothing of them reaches the real store
or the log. Only local work runs: the offline model answers them whatever model answers
the questions (a warm-up never calls a model server), and with a remote embedding
service no turn runs at all. A turn that fails is logged and the server starts anyway:
the warm-up only saves time.
"""

from __future__ import annotations

import copy
import logging
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from threadline.chat import ChatService, TurnRequest
from threadline.models import create_chat_model
from threadline.querylog import QueryLog
from threadline.services import Services
from threadline.store import ConversationStore
from threadline.text.matching import load_lemma_tables

log = logging.getLogger("threadline.warmup")

__all__ = ["WARM_UP_CONVERSATIONS", "WarmUp", "scratch_services", "warm_up"]

WARM_UP_CONVERSATIONS: tuple[tuple[str, ...], ...] = (
    (
        "Hello",
        "What do the documents say about the main risks and their costs?",
        "Tell me more about the second one",
        "Thanks!",
    ),
    ("Résume le rapport", "Détaille S1", "Et pour les coûts ?"),
    ("Which products cost less than 500?",),
)
"""Conversations of each kind a turn takes, in both languages: small talk, a question,
a follow-up on its answer, a summary of a document named by its kind, an outline
reference, a catalog lookup. Any corpus answers them or not: an unanswered turn still
runs the search, the evidence check and the reply."""


@dataclass
class WarmUp:
    """What the start-up warm-up did."""

    seconds: float = 0.0
    turns: int = 0
    errors: list[str] = field(default_factory=list)
    """The turns that raised (the server starts anyway)."""


def scratch_services(services: Services, directory: Path) -> Services:
    """Return services sharing `services`' knowledge base, with a store and a log of their own.

    The offline model answers, and the conversations and queries log live in
    `directory`, so turns run with them leave nothing in the real store or log.

    Args:
        services: The real services (their knowledge base is opened here and shared).
        directory: Where the scratch store and queries log are written.

    Returns:
        The scratch services; close `querylog` when done, never the knowledge base.
    """
    services.kb  # noqa: B018 - opened once, then shared: never a second engine on its files
    scratch = copy.copy(services)
    settings = services.settings.model_copy(update={"llm": "offline"})
    scratch.settings = settings
    # Never the services' own model, even offline: one given to them (a test's scripted
    # model) must not answer questions no one asked.
    scratch.__dict__["llm"] = create_chat_model(settings)
    scratch.__dict__["store"] = ConversationStore(directory, lock_timeout=settings.lock_timeout)
    scratch.__dict__["querylog"] = QueryLog(directory / "queries.sqlite")
    return scratch


def warm_up(
    services: Services,
    *,
    tenants: Sequence[str] = ("default",),
    conversations: Sequence[Sequence[str]] = WARM_UP_CONVERSATIONS,
) -> WarmUp:
    """Run the turn's code before the first question: tables, models, patterns.

    Args:
        services: The services the questions will use (their knowledge base is
            searched; their store and queries log are not touched).
        tenants: The tenants questions may come from: each one's tables are read (its
            documents' titles and languages); the turns search the first one's
            documents (their answers are dropped).
        conversations: The conversations held, each a list of messages.

    Returns:
        How long it took, how many turns ran, and the errors of those that failed.
    """
    started = time.perf_counter()
    done = WarmUp()
    # Also read by questions no warm-up turn may ask (a spelling fix's dictionary check).
    load_lemma_tables()
    for tenant in tenants:
        # Kept per tenant until its next write; each is a scan of its chunks (the titles
        # 0.2 s at 10k chunks), which a first question naming a document paid.
        services.kb.document_titles(tenant=tenant)
        services.kb.language_shares(tenant=tenant)
    if services.settings.embeddings == "openai" or not tenants:
        # A search would call the embedding service: not at every start.
        done.seconds = round(time.perf_counter() - started, 3)
        return done
    with tempfile.TemporaryDirectory(prefix="threadline-warm-up-") as directory:
        scratch = scratch_services(services, Path(directory))
        chat = ChatService(scratch)
        try:
            for number, conversation in enumerate(conversations):
                for message in conversation:
                    request = TurnRequest(
                        query=message, thread_id=f"warm-up-{number}", tenant=tenants[0]
                    )
                    try:
                        chat.run_turn(request)
                    except Exception as error:  # noqa: BLE001 - it must not stop the server
                        log.warning("start-up warm-up turn %r failed: %r", message, error)
                        done.errors.append(f"{message}: {error!r}")
                    done.turns += 1
        finally:
            scratch.querylog.close()
    done.seconds = round(time.perf_counter() - started, 3)
    return done
