"""Retrieval policy (seed 003): validate the intent, then pack the context within budgets.

The retriever node proposes an intent (query, top_k, sources); this module
decides what may run and what may be used. Violations become a `stop_reason`,
never an exception.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from threadline.knowledge.index import ScoredChunk


class PolicyViolation(Exception):
    """A retrieval intent the policy refuses; `reason` is the stop_reason."""

    def __init__(self, reason: str) -> None:
        """Keep the machine-readable reason."""
        super().__init__(reason)
        self.reason = reason


@dataclass(frozen=True)
class RetrievalIntent:
    """What the turn asks the retriever to do, before validation."""

    query: str
    top_k: int
    sources: tuple[str, ...] | None = None


@dataclass(frozen=True)
class Budget:
    """Limits on what a turn may retrieve and pack."""

    max_top_k: int = 20
    max_query_chars: int = 1000
    min_score: float = 0.0
    max_chunks: int = 8
    max_chars: int = 6000


@dataclass
class ContextPack:
    """The chunks selected for the generator, and what was left out and why."""

    chunks: list[ScoredChunk] = field(default_factory=list)
    total_chars: int = 0
    rejected: list[dict[str, Any]] = field(default_factory=list)


def allowed_sources(
    policy: Mapping[str, Sequence[str]], caller_app: str, requested: Sequence[str] | None
) -> tuple[str, ...] | None:
    """The sources a turn may search: the caller app's allowlist, narrowed by the request.

    Returns None when neither the policy nor the request restricts sources.

    Raises:
        PolicyViolation: `source_denied:<names>` when the request asks for sources
            outside the caller app's allowlist (a request may narrow, never widen).
    """
    allow = policy.get(caller_app, policy.get("*"))
    if requested is None:
        return tuple(allow) if allow is not None else None
    requested = tuple(dict.fromkeys(requested))
    if allow is not None:
        denied = [s for s in requested if s not in allow]
        if denied:
            raise PolicyViolation(f"source_denied:{','.join(sorted(denied))}")
    return requested


def validate_intent(intent: RetrievalIntent, budget: Budget) -> RetrievalIntent:
    """Check an intent's shape against the budget.

    Raises:
        PolicyViolation: `invalid_intent:<what>` for an empty or over-long query or
            a top_k outside 1..max_top_k.
    """
    query = intent.query.strip()
    if not query:
        raise PolicyViolation("invalid_intent:empty_query")
    if len(query) > budget.max_query_chars:
        raise PolicyViolation("invalid_intent:query_too_long")
    if not 1 <= intent.top_k <= budget.max_top_k:
        raise PolicyViolation("invalid_intent:top_k_out_of_bounds")
    return RetrievalIntent(query=query, top_k=intent.top_k, sources=intent.sources)


def pack_context(candidates: Sequence[ScoredChunk], budget: Budget) -> ContextPack:
    """Keep the best candidates within min_score, max_chunks and max_chars."""
    pack = ContextPack()
    seen: set[str] = set()
    for candidate in candidates:
        chunk = candidate.chunk
        reason = None
        if chunk.chunk_id in seen:
            reason = "duplicate"
        elif candidate.score < budget.min_score:
            reason = "below_min_score"
        elif len(pack.chunks) >= budget.max_chunks:
            reason = "max_chunks"
        elif pack.total_chars + len(chunk.text) > budget.max_chars:
            reason = "max_chars"
        if reason:
            pack.rejected.append({"chunk_id": chunk.chunk_id, "reason": reason})
            continue
        seen.add(chunk.chunk_id)
        pack.chunks.append(candidate)
        pack.total_chars += len(chunk.text)
    return pack


def outline_chunks(chunks: Sequence[ScoredChunk], limit: int) -> list[ScoredChunk]:
    """For a deliverable: the first chunk of each section in reading order, then the rest."""
    firsts: list[ScoredChunk] = []
    rest: list[ScoredChunk] = []
    sections: set[str] = set()
    for item in chunks:
        if item.chunk.section not in sections:
            sections.add(item.chunk.section)
            firsts.append(item)
        else:
            rest.append(item)
    chosen = (firsts + rest)[:limit]
    return sorted(chosen, key=lambda c: c.chunk.position)
