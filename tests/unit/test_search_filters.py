"""Payload filters: the versions a failed repair left are left out of reads."""

from __future__ import annotations

from qdrant_client import models

from threadline.knowledge.filters import SearchFilters, match_value, without_versions


def _documents_left_out(flt: models.Filter) -> list[list[models.Condition]]:
    assert isinstance(flt.must_not, list)
    return [f.must for f in flt.must_not if isinstance(f, models.Filter)]  # type: ignore[misc]


def test_a_hidden_version_is_left_out_and_the_reads_own_conditions_kept() -> None:
    earlier = match_value("source", "tickets")
    read = SearchFilters(tenant="acme").to_qdrant().model_copy(update={"must_not": [earlier]})

    flt = without_versions(read, {("acme", "handbook"): frozenset({3, 4})})

    assert flt.must == read.must  # the tenant restriction stays
    assert flt.must_not[0] == earlier  # type: ignore[index]
    left_out = _documents_left_out(flt)
    assert len(left_out) == 2  # one per hidden generation, in order
    for conditions, generation in zip(left_out, (3, 4), strict=True):
        assert conditions[:2] == [match_value("tenant", "acme"), match_value("doc_id", "handbook")]
        assert conditions[2].range == models.Range(gte=generation, lte=generation)  # type: ignore[union-attr]


def test_a_document_with_no_whole_version_is_left_out_whole() -> None:
    flt = without_versions(None, {("acme", "handbook"): None, ("acme", "old"): frozenset({0})})

    whole, unversioned = _documents_left_out(flt)
    assert whole == [match_value("tenant", "acme"), match_value("doc_id", "handbook")]
    # Generation 0 is a chunk written before versions were numbered: no generation field.
    assert isinstance(unversioned[2], models.IsEmptyCondition)
    assert flt.must is None  # nothing else restricted
