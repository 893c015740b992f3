"""Each query variant's ranking is read deeper than the turn keeps before fusing.

The live turn keeps `top_k` chunks (8 by default) while the fusion weights were measured
on rankings 20 deep: cutting each variant's ranking at the turn's 8 before fusing drops a
chunk that every variant ranks just past the cut, which the fusion would put first.
"""

from __future__ import annotations

from threadline.graph.fusion import FusionConfig
from threadline.graph.retrieval import Budget, search_candidates
from threadline.knowledge.documents import Chunk
from threadline.knowledge.index import ScoredChunk, SearchFilters
from threadline.store.models import ThreadState


def chunk(chunk_id: str, score: float) -> ScoredChunk:
    return ScoredChunk(Chunk(chunk_id, chunk_id, chunk_id, "", 0, "text", "docs"), score)


class PerQueryKb:
    """Ranks chunks of its own for each query, then `shared` third for every query."""

    def __init__(self) -> None:
        self.asked: list[tuple[str, int]] = []

    def search(self, query: str, *, k: int, filters: SearchFilters) -> list[ScoredChunk]:
        self.asked.append((query, k))
        own = [chunk(f"{query}-{i}", 1.0 - i / 10) for i in range(2)]
        rest = [chunk(f"{query}-tail-{i}", 0.5 - i / 100) for i in range(10)]
        return (own + [chunk("shared", 0.75)] + rest)[:k]


def test_a_chunk_every_variant_ranks_past_the_cut_is_fused_in():
    kb = PerQueryKb()
    found = search_candidates(
        kb,
        question="how long does the battery last?",
        query="how long does the battery last?",
        top_k=2,
        filters=SearchFilters(tenant="default"),
        budget=Budget(),
        route="followup_context",
        history=[{"question": "tell me about the phone", "answer": "The phone is light."}],
        thread_state=ThreadState(last_search_query="phone", last_titles=["Phone"]),
        fusion=FusionConfig(condensed=1.0, answer=0.0, recurring=0.0, depth=20),
    )
    variants = [a for a in found.attempts if "variant" in a]
    assert len(variants) >= 2  # the message and its condensation
    assert all(k >= 20 for _, k in kb.asked)  # read 20 deep, not the turn's 2
    # Third in each of two rankings: 2/63 beats a first place in one (1/61).
    assert found.candidates[0].chunk.chunk_id == "shared"
    assert len(found.candidates) == 2  # the turn still keeps top_k
