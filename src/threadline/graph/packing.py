"""Budgets and packing: what a turn may retrieve, and which chunks reach the generator.

A `RetrievalIntent` is checked against the turn's `Budget` (`validate_intent`), the
ranked candidates are packed within it (`pack_context`), and each packed chunk becomes
the `PackedChunk` the state and the prompt carry (`chunk_dict`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from threadline.graph.state import PackedChunk
from threadline.graph.windows import WindowChunk
from threadline.knowledge.index import ScoredChunk
from threadline.policy import PolicyViolation

if TYPE_CHECKING:
    from threadline.graph.context import Context
    from threadline.services import Services


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
    window_before: int = 0
    window_after: int = 0

    @property
    def window_span(self) -> int:
        """Chunks one hit's window can take (1 when windows are off)."""
        return 1 + self.window_before + self.window_after

    def for_hits(self) -> Budget:
        """Return the share of the budget the hits themselves may take.

        With windows on, hits leave room for their neighbours: a third of the chunks
        for one neighbour on each side, and so on (at least one hit). Neighbours then
        fill what the hits left, nearest to the best hits first.
        """
        if self.window_span == 1:
            return self
        span = self.window_span
        return replace(
            self,
            max_chunks=max(1, self.max_chunks // span),
            max_chars=max(1, self.max_chars // span),
        )


@dataclass
class ContextPack:
    """The chunks selected for the generator, and what was left out and why."""

    chunks: list[ScoredChunk] = field(default_factory=list)
    total_chars: int = 0
    rejected: list[dict[str, Any]] = field(default_factory=list)


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


def budget_for(services: Services, context: Context) -> Budget:
    """Return the retrieval budget of one run: per-run knobs over process settings."""
    s = services.settings
    return Budget(
        max_top_k=s.max_top_k,
        max_query_chars=s.max_query_chars,
        min_score=context.min_score if context.min_score is not None else s.min_score,
        max_chunks=context.max_chunks or s.max_chunks,
        max_chars=context.max_chars or s.max_chars,
        window_before=_first_set(context.context_window_before, s.context_window_before),
        window_after=_first_set(context.context_window_after, s.context_window_after),
    )


def _first_set(value: int | None, default: int) -> int:
    """Return `value` unless it is unset (0 is a setting, not an absence)."""
    return default if value is None else value


def chunk_dict(label: int, item: ScoredChunk | WindowChunk) -> PackedChunk:
    """Return a packed chunk as the state and the generator prompt carry it.

    `hit` is False for a neighbour a context window brought in (its score is 0).
    """
    chunk = item.chunk
    return PackedChunk(
        label=str(label),
        chunk_id=chunk.chunk_id,
        doc_id=chunk.doc_id,
        title=chunk.title,
        section=chunk.section,
        source=chunk.source,
        position=chunk.position,
        text=chunk.text,
        score=round(float(item.score), 6),
        hit=getattr(item, "hit", True),
    )
