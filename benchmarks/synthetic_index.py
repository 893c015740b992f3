"""A synthetic index for the turn benchmark: Markdown documents, and a bulk path to 50k+ chunks.

`SyntheticDocs` writes deterministic Markdown documents (Zipf-distributed English and
French words around the sample data's vocabulary, ~10 sections each) that the real
chunker cuts. `grow_index` adds such chunks to an embedded (Qdrant Edge) index with
the payload layout, point ids and upsert batches of `KnowledgeBase`, but with random
unit vectors standing in for the dense model (`RandomUnitEmbeddings`), since
embedding 50k chunks with MiniLM on 2 cores takes minutes to tens of minutes; the
BM25 sparse vectors are real. Kept apart from `turns` so the measurement reads
without the corpus generator in the way.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Callable
from typing import Any

import numpy as np

__all__ = [
    "DIM",
    "SECTIONS_PER_DOC",
    "RandomUnitEmbeddings",
    "SyntheticDocs",
    "bulk_documents",
    "grow_index",
]

DIM = 384
"""Dimensions of the stand-in dense vectors (MiniLM's)."""
SECTIONS_PER_DOC = 10
"""Sections (so chunks, one per section) in each synthetic document."""

_HEAD = """the of and to in a is that for it as was with be by on not this are or from at
which but have an they you were has would when if so no will can more about its other
into time only some could new them these may two then do first any now such like our
over even most made after also did many before must through back years where much your
way well down should because each just those people how too little good very make still
own see work long get here between both being under never day same another know while
last might great old year off come since against go right used take three few use during
without again place around however home small found every part le la les de des du un
une et est en que qui dans pour par sur au aux avec ce cette son sa ses plus pas ne nous
vous ils elle sont été être avoir fait comme mais ou où leur leurs entre après""".split()
_DOMAIN = """customer account refund order invoice payment shipping delivery warranty return
policy support ticket agent password login email device battery screen repair replacement
contract licence subscription plan upgrade billing tax discount store credit card bank
transfer report quarter revenue growth margin forecast budget team manager release version
feature bug incident outage latency server network backup restore security badge access
vpn laptop printer meeting holiday leave training onboarding handbook phone tablet portal
fleet enrolment priority response escalation enterprise business basic uptime sla credit
phishing encryption bitlocker mfa travel lost stolen camera display storage memory price
chiffre affaires marge résultat exercice collaborateurs effectif recrutement formation
perspectives objectifs ventes magasins clients satisfaction énergie émissions carbone
recyclage fournisseurs dividende trésorerie investissements""".split()
_SYLLABLES = "ka to ri mel san dor vi lu pe qua zen bro tin sal mar nor fi gal pol dre".split()
_TOPICS = ("support", "guides", "reports", "catalog")


def _vocabulary(size: int, rng: np.random.Generator) -> list[str]:
    words = list(dict.fromkeys(_HEAD + _DOMAIN))
    seen = set(words)
    while len(words) < size:
        word = "".join(rng.choice(_SYLLABLES, size=int(rng.integers(2, 5))))
        if word not in seen:
            seen.add(word)
            words.append(word)
    return words


class SyntheticDocs:
    """Deterministic Markdown documents: a title, ~10 sections of prose each.

    Not `engine_bench.SyntheticCorpus`: that one builds every dense vector as
    Python lists up front (about 1 GB at 50k chunks), and yields chunks, not documents
    for the real chunker.
    """

    def __init__(self, seed: int = 11) -> None:
        self.rng = np.random.default_rng(seed)
        self.vocabulary = _vocabulary(30_000, self.rng)
        ranks = np.arange(1, len(self.vocabulary) + 1)
        weights = 1.0 / ranks**1.07
        self.weights = weights / weights.sum()
        self.count = 0

    def _sentence_block(self, words: int) -> str:
        picks = self.rng.choice(len(self.vocabulary), size=words, p=self.weights)
        tokens = [self.vocabulary[i] for i in picks]
        sentences, cut = [], 0
        while cut < len(tokens):
            step = 8 + (cut * 7 + len(tokens)) % 14
            sentence = " ".join(tokens[cut : cut + step])
            sentences.append(sentence[:1].upper() + sentence[1:] + ".")
            cut += step
        return " ".join(sentences)

    def document(self) -> tuple[str, str, str]:
        """``(doc name, source, markdown)`` of the next document."""
        n = self.count
        self.count += 1
        source = _TOPICS[n % len(_TOPICS)]
        title = f"Brightwell {source} note {n}: " + " ".join(
            self.vocabulary[i] for i in self.rng.integers(40, 400, size=3)
        )
        parts = [
            "---",
            f'title: "{title}"',
            f"source: {source}",
            "updated_at: 2024-05-01",
            "---",
            "",
            f"# {title}",
            "",
        ]
        for s in range(SECTIONS_PER_DOC):
            heading = " ".join(self.vocabulary[i] for i in self.rng.integers(40, 2000, size=2))
            parts += [f"## {s + 1}. {heading.capitalize()}", ""]
            # ~600-1100 characters: one chunk per section, as the sample documents have.
            parts += [self._sentence_block(int(self.rng.integers(90, 160))), ""]
        return f"bulk-{n:06d}", source, "\n".join(parts)


class RandomUnitEmbeddings:
    """A stand-in dense model for the bulk: a random unit vector per text (no model).

    Deterministic per text (seeded by its hash), so re-running gives the same index.
    """

    def __init__(self, dim: int = DIM) -> None:
        self.dim = dim

    def _vector(self, text: str) -> list[float]:
        seed = int.from_bytes(hashlib.blake2b(text.encode(), digest_size=8).digest(), "big")
        v = np.random.default_rng(seed).standard_normal(self.dim).astype(np.float32)
        return (v / np.linalg.norm(v)).tolist()

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        """One random unit vector per text."""
        return [self._vector(t) for t in texts]

    def embed_query(self, text: str) -> list[float]:
        """Return a random unit vector."""
        return self._vector(text)


def bulk_documents(gen: SyntheticDocs, chunks: int) -> tuple[list[Any], list[str]]:
    """LangChain documents + ids for ~``chunks`` chunks, as `KnowledgeBase` writes them."""
    from langchain_core.documents import Document

    from threadline.knowledge.documents import SourceDocument, chunk_document
    from threadline.knowledge.index import chunk_payload

    documents: list[Any] = []
    ids: list[str] = []
    while len(documents) < chunks:
        name, source, text = gen.document()
        doc = SourceDocument(
            doc_id=name,
            title=text.split('title: "', 1)[1].split('"', 1)[0],
            text=text.split("---\n", 2)[2].strip(),
            source=source,
            path=f"/bench/{name}.md",
            updated_at="2024-05-01",
        )
        pieces = chunk_document(doc)
        content_hash = doc.content_hash
        for chunk in pieces:
            if len(documents) >= chunks:
                break
            meta = chunk_payload(
                chunk,
                doc,
                tenant="default",
                content_hash=content_hash,
                chunk_count=len(pieces),
            )
            documents.append(Document(page_content=chunk.embedding_text, metadata=meta))
            ids.append(chunk.chunk_id)  # unique per chunk; unversioned, as before versions
    return documents, ids


def grow_index(settings: Any, gen: SyntheticDocs, add: int, log: Callable[[str], None]) -> dict:
    """Add ``add`` synthetic chunks to the settings' edge shard (closed), then optimize."""
    from threadline.knowledge.embeddings import EmbeddingSetup
    from threadline.knowledge.engines import EdgeEngine, edge_shard_path
    from threadline.knowledge.sparse import Bm25SparseEmbeddings

    t0 = time.perf_counter()
    documents, ids = bulk_documents(gen, add)
    generate_s = time.perf_counter() - t0
    setup = EmbeddingSetup(RandomUnitEmbeddings(), Bm25SparseEmbeddings(), DIM, "hybrid")
    engine = EdgeEngine(edge_shard_path(settings), setup)
    try:
        t0 = time.perf_counter()
        for i in range(0, len(documents), 256):
            engine.add_documents(documents[i : i + 256], ids[i : i + 256], 256)
        upsert_s = time.perf_counter() - t0
        t0 = time.perf_counter()
        engine.optimize()
        optimize_s = time.perf_counter() - t0
        total = engine.count(None)
    finally:
        engine.close()
    log(
        f"  +{add} synthetic chunks: generated {generate_s:.1f}s, upserted {upsert_s:.1f}s "
        f"({add / upsert_s:,.0f}/s, random dense + BM25), optimized {optimize_s:.1f}s"
    )
    return {
        "added": add,
        "total": total,
        "generate_s": round(generate_s, 2),
        "upsert_s": round(upsert_s, 2),
        "upsert_chunks_per_s": round(add / upsert_s, 1),
        "optimize_s": round(optimize_s, 2),
    }
