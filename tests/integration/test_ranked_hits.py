"""A turn's fusion ranks hits without their chunks, then reads only the chunks it keeps.

On a real index: `KnowledgeBase.rank_many` gives `search_many`'s hits in the same order
with the same scores, the engine returns no text for them, and `search_candidates`
reads the chunks of its fused top k only (all fused hits when a minority language
must be represented), with the same candidates as the search that reads every hit.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from support.services import make_services
from threadline.graph.fusion import FusionConfig
from threadline.graph.retrieval import Budget, search_candidates
from threadline.knowledge.index import SearchFilters
from threadline.knowledge.payloads import HIT_KEYS
from threadline.store.models import ThreadState

QUERIES = [
    "What SLA applies to the enterprise plan?",
    "",
    "rapport annuel chiffre d'affaires",
    "meal reimbursement travel",
]
TENANT = SearchFilters(tenant="default")


class WholeChunks:
    """The knowledge base as a retriever saw it before `rank_many`: every hit whole."""

    def __init__(self, kb: Any) -> None:
        self._kb = kb

    def search(self, query: str, *, k: int, filters: SearchFilters) -> Any:
        return self._kb.search(query, k=k, filters=filters)

    def search_many(self, queries: list[str], *, k: int, filters: SearchFilters) -> Any:
        return self._kb.search_many(queries, k=k, filters=filters)

    def language_shares(self, *, tenant: str) -> dict[str, float]:
        return self._kb.language_shares(tenant=tenant)


class ReadsRecorded:
    """The real knowledge base, recording which hits' chunks a search reads."""

    def __init__(self, kb: Any) -> None:
        self._kb = kb
        self.read: list[list[str]] = []

    def __getattr__(self, name: str) -> Any:
        return getattr(self._kb, name)

    def hit_chunks(self, hits: Any) -> Any:
        self.read.append([hit.chunk.chunk_id for hit in hits])
        return self._kb.hit_chunks(hits)


def followup_candidates(kb: Any, top_k: int) -> Any:
    return search_candidates(
        kb,
        question="and what about the meals?",
        query="travel policy meals",
        top_k=top_k,
        filters=TENANT,
        budget=Budget(),
        route="followup_context",
        history=[{"question": "What is the travel policy?", "answer": "Trains are booked."}],
        thread_state=ThreadState(last_search_query="travel policy", last_titles=["Travel"]),
        fusion=FusionConfig(depth=20),
    )


@pytest.mark.parametrize("embeddings", ["sparse", pytest.param("hybrid", marks=pytest.mark.dense)])
def test_ranked_hits_are_search_many_without_the_chunks(tmp_path, embeddings):
    services = make_services(tmp_path / "data", embeddings=embeddings)
    try:
        kb = services.kb
        # Deeper than the sample's 36 chunks: the engine orders equal scores arbitrarily
        # (the retriever sorts ties by chunk id), so the whole rankings are compared.
        whole = kb.search_many(QUERIES, k=40, filters=TENANT)
        hits = kb.rank_many(QUERIES, k=40, filters=TENANT)
        assert hits[1] == [] and all(hits[i] for i in (0, 3))
        for got, want in zip(hits, whole, strict=True):
            assert sorted((-h.score, h.chunk.chunk_id, h.chunk.doc_id) for h in got) == sorted(
                (-w.score, w.chunk.chunk_id, w.chunk.doc_id) for w in want
            )
            by_id = {w.chunk.chunk_id: w for w in want}
            # The same chunks, read afterwards, in the hits' order.
            assert kb.hit_chunks(got) == [by_id[h.chunk.chunk_id] for h in got]
        # What the engine returned for the ranking: the keys, no text.
        raw = kb._engine.keyed_search_batch(
            QUERIES[:1], 6, TENANT.to_qdrant(), depth=18, metadata_keys=HIT_KEYS
        )
        assert raw[0] and all(set(meta) == set(HIT_KEYS) for _, meta, _ in raw[0])
    finally:
        services.close()


def test_a_turn_reads_the_chunks_of_its_fused_top_k_only(tmp_path: Path):
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    for name, text in [
        ("travel", "Meals on business trips are reimbursed up to 40 euros a day."),
        ("meals", "The canteen serves meals from noon; travel staff eat for free."),
        ("policy", "The travel policy: trains under four hours, economy flights above."),
        ("parking", "Staff park in the north lot; visitors use the south lot."),
    ]:
        (corpus / f"{name}.md").write_text(
            f"---\ntitle: {name.title()}\nsource: hr\n---\n\n## {name}\n\n{text}\n",
            encoding="utf-8",
        )
    services = make_services(tmp_path / "data", corpus=[corpus])
    try:
        recorded = ReadsRecorded(services.kb)
        found = followup_candidates(recorded, top_k=2)
        assert len(found.candidates) == 2 and found.candidates[0].chunk.text
        assert recorded.read == [[c.chunk.chunk_id for c in found.candidates]]
        assert found.candidates == followup_candidates(WholeChunks(services.kb), 2).candidates
    finally:
        services.close()


def test_with_a_minority_language_every_fused_hit_is_read_and_candidates_agree(tmp_path):
    services = make_services(tmp_path / "data")  # the sample data: a fifth in French
    try:
        recorded = ReadsRecorded(services.kb)
        found = followup_candidates(recorded, top_k=3)
        assert len(recorded.read) == 1 and len(recorded.read[0]) > 3
        assert found.candidates == followup_candidates(WholeChunks(services.kb), 3).candidates
    finally:
        services.close()
