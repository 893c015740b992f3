"""Qdrant payload filters over chunk metadata: the restrictions every search applies."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from qdrant_client import models

# Chunk metadata sits under this payload key (langchain-qdrant's layout, kept by every engine).
_META = "metadata"


def generation_is(generation: int) -> models.FieldCondition:
    """Match the chunks of one version (generation) of a document."""
    return models.FieldCondition(
        key=payload_key("generation"), range=models.Range(gte=generation, lte=generation)
    )


@dataclass(frozen=True)
class SearchFilters:
    """Restrictions every search applies (tenant always; the rest when given)."""

    tenant: str
    sources: tuple[str, ...] | None = None
    source_app: str | None = None
    workspace: str | None = None
    doc_ids: tuple[str, ...] | None = None
    spelt_from: tuple[str, ...] | None = None
    """The sources whose words spell the query (`KnowledgeBase.vocabulary`): the caller
    app's allowlist, never the request's narrowing of it, so a request cannot make a
    vocabulary per set of sources it names (None: every source). Filters nothing."""

    def to_qdrant(self) -> models.Filter:
        """Translate to a Qdrant payload filter."""
        must: list[models.Condition] = [match_value("tenant", self.tenant)]
        if self.sources is not None:
            must.append(match_any("source", self.sources))
        if self.source_app:
            must.append(match_value("source_app", self.source_app))
        if self.workspace:
            must.append(match_value("workspace", self.workspace))
        if self.doc_ids is not None:
            must.append(match_any("doc_id", self.doc_ids))
        return models.Filter(must=must)


def payload_key(name: str) -> str:
    """Return the payload key a chunk metadata field is stored under."""
    return f"{_META}.{name}"


def match_value(name: str, value: str) -> models.FieldCondition:
    """Match chunks whose metadata field `name` equals `value`."""
    return models.FieldCondition(key=payload_key(name), match=models.MatchValue(value=value))


def match_any(name: str, values: Sequence[str]) -> models.FieldCondition:
    """Match chunks whose metadata field `name` is one of `values`."""
    return models.FieldCondition(key=payload_key(name), match=models.MatchAny(any=list(values)))


def without_versions(
    flt: models.Filter | None, hidden: Mapping[tuple[str, str], frozenset[int] | None]
) -> models.Filter:
    """Return `flt` that also leaves out the given versions of documents.

    Args:
        flt: A read's filter (None: every chunk).
        hidden: Per (tenant, doc_id), the generations to leave out; None leaves out
            the whole document. Generation 0 is a chunk written before generations
            existed, which holds no generation field.
    """
    left_out: list[models.Condition] = []
    for (tenant, doc_id), generations in hidden.items():
        document: list[models.Condition] = [
            match_value("tenant", tenant),
            match_value("doc_id", doc_id),
        ]
        if generations is None:
            left_out.append(models.Filter(must=document))
            continue
        for generation in sorted(generations):
            version: models.Condition = (
                generation_is(generation)
                if generation
                else models.IsEmptyCondition(
                    is_empty=models.PayloadField(key=payload_key("generation"))
                )
            )
            left_out.append(models.Filter(must=[*document, version]))
    if flt is None:
        return models.Filter(must_not=left_out)
    before = flt.must_not
    kept = [] if before is None else before if isinstance(before, list) else [before]
    return flt.model_copy(update={"must_not": [*kept, *left_out]})
