"""A fused ranking keeps a place for each language of a collection in two languages."""

from __future__ import annotations

from threadline.graph.retrieval import with_every_language
from threadline.knowledge.documents import Chunk
from threadline.knowledge.index import ScoredChunk

ENGLISH = "The support team answers every request within one business day of its arrival."
FRENCH = "Le service client a traité toutes les demandes dans la journée de leur arrivée."


def hit(name: str, text: str) -> ScoredChunk:
    return ScoredChunk(Chunk(name, name, name, "", 0, text, "src"), 1.0)


def test_a_minority_language_gets_its_share_of_the_places():
    # Eight English hits fused ahead of two French ones: with a fifth of the documents in
    # French, two of eight places go to the best French candidates, in fused order.
    ranked = [hit(f"en{i}", ENGLISH) for i in range(8)] + [
        hit("fr0", FRENCH),
        hit("fr1", FRENCH),
        hit("fr2", FRENCH),
    ]
    kept = with_every_language(ranked, 8, {"en": 0.8, "fr": 0.2}, 0.05)
    assert [c.chunk.chunk_id for c in kept] == [
        *(f"en{i}" for i in range(6)),
        "fr0",
        "fr1",
    ]


def test_a_language_already_in_the_top_keeps_the_fused_order():
    ranked = [hit("fr0", FRENCH), hit("en0", ENGLISH), hit("fr1", FRENCH)] + [
        hit(f"en{i}", ENGLISH) for i in range(1, 8)
    ]
    kept = with_every_language(ranked, 4, {"en": 0.8, "fr": 0.2}, 0.05)
    assert [c.chunk.chunk_id for c in kept] == ["fr0", "en0", "fr1", "en1"]


def test_one_language_or_a_few_misdetected_passages_change_nothing():
    ranked = [hit(f"en{i}", ENGLISH) for i in range(8)] + [hit("fr0", FRENCH)]
    for shares in ({"en": 1.0}, {"en": 0.99, "fr": 0.01}):
        kept = with_every_language(ranked, 8, shares, 0.05)
        assert [c.chunk.chunk_id for c in kept] == [f"en{i}" for i in range(8)]


def test_a_minority_languages_places_go_to_its_own_searches_best():
    # The fusion (led by a translation) keeps fr0 and fr1; the searches written in French
    # rank fr2 first: the French places go to fr2 then fr0, the places themselves unchanged.
    ranked = [hit("en0", ENGLISH), hit("fr0", FRENCH), hit("en1", ENGLISH), hit("fr1", FRENCH)]
    ranked += [hit(f"en{i}", ENGLISH) for i in range(2, 8)] + [hit("fr2", FRENCH)]
    own = {"fr": ["fr2", "fr0", "fr1"], "en": ["en7", "en6"]}
    kept = with_every_language(ranked, 4, {"en": 0.8, "fr": 0.2}, 0.05, own)
    assert [c.chunk.chunk_id for c in kept] == ["en0", "fr2", "en1", "fr0"]
