"""Built-in BM25-style sparse embeddings for hybrid retrieval (no model, no download).

Split of BM25 between this module and Qdrant:

* Document vectors carry the saturated term-frequency part of BM25,
  ``tf * (k1 + 1) / (tf + k1 * (1 - b + b * doclen / avgdl))``.
* Query vectors carry 1.0 per distinct query term.
* The collection's sparse vector is created with ``Modifier.IDF`` (see
  :func:`sparse_vector_params`), so Qdrant multiplies each query term by its IDF computed
  over the live collection at query time. The dot product is then exactly BM25, and the
  IDF stays correct as documents are added or deleted without re-embedding anything.

Terms come from :func:`threadline.text.tokenize.terms` and are mapped to indices with a
stable hash (:func:`term_index`), so vectors written by one process are understood by
any other on any machine, with no vocabulary to store or keep in sync.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable
from hashlib import blake2b

from langchain_qdrant import SparseEmbeddings, SparseVector
from qdrant_client import models

from threadline.text import terms
from threadline.text.matching import irregular_form_stems, verb_lemma_stems
from threadline.text.tokenize import closed_terms

__all__ = [
    "DEFAULT_AVGDL",
    "DEFAULT_B",
    "DEFAULT_K1",
    "Bm25SparseEmbeddings",
    "sparse_vector_params",
    "term_index",
]

DEFAULT_K1 = 1.2
DEFAULT_B = 0.75
DEFAULT_AVGDL = 100.0
# An irregular form's verb stem ("lost" -> "lose"), which Snowball leaves apart, is
# searched beside the form at half its weight: a passage writing the form itself leads.
VERB_FORM_WEIGHT = 0.5
# Qdrant sparse indices are unsigned 32-bit; keeping 31 bits also keeps them valid as
# signed int32 for any client or tool on the way.
_INDEX_MASK = 0x7FFFFFFF


def term_index(term: str) -> int:
    """Map a term to its sparse vector index.

    A BLAKE2b digest rather than :func:`hash`, which is salted per process for strings.
    With 31 bits, collisions are rare (a 100k-term vocabulary has about two colliding
    pairs) and benign: the two terms merely share a dimension and an IDF.

    Args:
        term: A term as produced by :func:`threadline.text.tokenize.terms`.

    Returns:
        An integer in ``[0, 2**31)``, identical across processes, machines and versions.
    """
    digest = blake2b(term.encode("utf-8"), digest_size=4).digest()
    return int.from_bytes(digest, "big") & _INDEX_MASK


def sparse_vector_params() -> models.SparseVectorParams:
    """Qdrant configuration for a sparse vector holding these embeddings.

    Returns:
        Fresh ``SparseVectorParams`` with the IDF modifier, which the vectors rely on
        (they carry no IDF themselves). Use it for every collection created for them.
    """
    return models.SparseVectorParams(modifier=models.Modifier.IDF)


def _to_sparse_vector(weights: Iterable[tuple[str, float]]) -> SparseVector:
    """Hash weighted terms into a sparse vector with unique, sorted indices."""
    by_index: defaultdict[int, float] = defaultdict(float)
    for term, weight in weights:
        # Distinct terms that collide add up, as if they were one term: indices must be
        # unique in a Qdrant sparse vector.
        by_index[term_index(term)] += weight
    indices = sorted(by_index)
    return SparseVector(indices=indices, values=[by_index[i] for i in indices])


class Bm25SparseEmbeddings(SparseEmbeddings):
    """BM25 term weights as sparse vectors, to be scored with Qdrant's IDF modifier.

    ``avgdl`` is fixed instead of measured on the collection, as Qdrant's own BM25
    (fastembed ``Bm25``, ``avg_len``) does. It only sets the length at which a document is
    neither favoured nor penalised; chunking bounds document lengths so the true average
    stays close to it, and a fixed value keeps every stored vector valid as the collection
    grows (a measured one would change all document weights on each ingest). Its unit is
    terms after stopword removal, see :func:`threadline.text.tokenize.terms`.

    Args:
        k1: Term-frequency saturation; higher lets repeated terms count more.
        b: Length normalisation strength, from 0 (none) to 1 (full).
        avgdl: Assumed average document length, in terms.
        analyzer: Text to terms; the default is shared with keyword logic and must be the
            same at indexing and query time.

    Raises:
        ValueError: If a parameter is out of range.
    """

    def __init__(
        self,
        *,
        k1: float = DEFAULT_K1,
        b: float = DEFAULT_B,
        avgdl: float = DEFAULT_AVGDL,
        analyzer: Callable[[str], list[str]] = terms,
    ) -> None:
        """Check the parameters and keep them (see the class docstring)."""
        if k1 < 0:
            raise ValueError(f"k1 must be >= 0, got {k1}")
        if not 0 <= b <= 1:
            raise ValueError(f"b must be in [0, 1], got {b}")
        if avgdl <= 0:
            raise ValueError(f"avgdl must be > 0, got {avgdl}")
        self.k1 = k1
        self.b = b
        self.avgdl = avgdl
        self.analyzer = analyzer

    def embed_documents(self, texts: list[str]) -> list[SparseVector]:
        """Embed document chunks.

        Args:
            texts: Chunk texts.

        Returns:
            One vector per text, values = saturated, length-normalised term frequency.
            Text with no terms (empty, punctuation, only stopwords) gives an empty vector.
        """
        return [self._embed_document(text) for text in texts]

    def embed_query(self, text: str) -> SparseVector:
        """Embed a search query.

        Args:
            text: Query text.

        Returns:
            A vector with 1.0 per distinct query term (repeating a word does not make it
            weigh more), empty if the query has no terms.
        """
        weights: dict[str, float] = {}
        for term in dict.fromkeys(self.analyzer(text)):
            weights[term] = 1.0
            # Snowball leaves an irregular form apart from its verb ("lost" / "loses"):
            # the query also searches the verb's regular stem, at a lower weight.
            for lemma in verb_lemma_stems(term):
                weights.setdefault(lemma, VERB_FORM_WEIGHT)
        # ... and a verb its irregular forms ("sell" → "sold"): "What does Brightwell
        # sell?" finds the catalog's "sold by Brightwell for $449".
        for word in re.findall(r"[^\W\d_]+", text):
            for form in irregular_form_stems(word):
                weights.setdefault(form, VERB_FORM_WEIGHT)
        # "wi-fi" also searches "wifi", which a document writing either spelling holds.
        for term in closed_terms(text):
            weights.setdefault(term, 1.0)
        return _to_sparse_vector(weights.items())

    def _embed_document(self, text: str) -> SparseVector:
        """BM25 document-side weights of one text."""
        counts = Counter(self.analyzer(text))
        length_norm = self.k1 * (1 - self.b + self.b * counts.total() / self.avgdl)
        # A hyphenated word's closed form ("Wi-Fi" → "wifi") is one more spelling of
        # words already counted: it adds a term a query writing it closed finds, not
        # length, so no other term of the text weighs less for it.
        for term in closed_terms(text):
            counts[term] += 1
        return _to_sparse_vector(
            (term, tf * (self.k1 + 1) / (tf + length_norm)) for term, tf in counts.items()
        )
