"""Context windows (seed 001): widen each hit to its neighbouring chunks of the same document.

A passage often needs the paragraph before or after it to be understood. Each
hit brings K chunks before and M after (by position, same document); windows
that overlap or touch are merged; hits stay marked; neighbours only fill the
budget that the hits leave.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from threadline.knowledge.documents import Chunk
from threadline.knowledge.index import ScoredChunk


@dataclass(frozen=True)
class WindowChunk:
    """A chunk of a context window; `hit` is True for the retrieved chunk itself."""

    chunk: Chunk
    score: float
    hit: bool


def expand_windows(
    hits: Sequence[ScoredChunk],
    fetch_document: Callable[[str], Sequence[Chunk]],
    *,
    before: int,
    after: int,
    max_chunks: int,
    max_chars: int,
) -> list[WindowChunk]:
    """Widen hits to windows, merged per document, within max_chunks and max_chars.

    Args:
        hits: Packed hits, best first.
        fetch_document: Returns a document's chunks (any order) by doc id.
        before: Chunks to add before each hit.
        after: Chunks to add after each hit.
        max_chunks: Most chunks in the result (hits count first).
        max_chars: Most characters in the result (hits count first).

    Returns:
        Windows in the order of their best hit, chunks in reading order inside each.
    """
    if not hits:
        return []
    if before == 0 and after == 0:
        return [WindowChunk(h.chunk, h.score, True) for h in hits]
    by_doc: dict[str, dict[int, Chunk]] = {}
    for hit in hits:
        if hit.chunk.doc_id not in by_doc:
            by_doc[hit.chunk.doc_id] = {c.position: c for c in fetch_document(hit.chunk.doc_id)}
    for hit in hits:
        # A document replaced or deleted since the search still keeps its hits.
        by_doc[hit.chunk.doc_id].setdefault(hit.chunk.position, hit.chunk)
    hit_score = {(h.chunk.doc_id, h.chunk.position): h.score for h in hits}

    # Budget: every hit first, then neighbours nearest to the best hits.
    chosen: set[tuple[str, int]] = set()
    chars = 0
    for hit in hits:
        chosen.add((hit.chunk.doc_id, hit.chunk.position))
        chars += len(hit.chunk.text)
    for distance in range(1, max(before, after) + 1):
        for hit in hits:
            doc, pos = hit.chunk.doc_id, hit.chunk.position
            for offset, limit in ((-distance, before), (distance, after)):
                key = (doc, pos + offset)
                neighbour = by_doc[doc].get(pos + offset)
                if distance > limit or neighbour is None or key in chosen:
                    continue
                if len(chosen) >= max_chunks or chars + len(neighbour.text) > max_chars:
                    continue
                chosen.add(key)
                chars += len(neighbour.text)

    # Group contiguous positions per document into windows, ordered by best hit.
    windows: list[tuple[int, list[WindowChunk]]] = []
    rank = {(h.chunk.doc_id, h.chunk.position): i for i, h in enumerate(hits)}
    for doc in dict.fromkeys(h.chunk.doc_id for h in hits):
        positions = sorted(p for d, p in chosen if d == doc)
        run: list[int] = []
        for position in [*positions, None]:
            if run and (position is None or position != run[-1] + 1):
                best = min(rank.get((doc, p), len(hits)) for p in run)
                items = [
                    WindowChunk(
                        by_doc[doc][p],
                        hit_score.get((doc, p), 0.0),
                        (doc, p) in hit_score,
                    )
                    for p in run
                ]
                windows.append((best, items))
                run = []
            if position is not None:
                run.append(position)
    windows.sort(key=lambda w: w[0])
    return [item for _, items in windows for item in items]
