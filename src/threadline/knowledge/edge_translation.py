"""Translate qdrant-client's request types to Qdrant Edge's: point ids and filters.

A caller of :class:`~threadline.knowledge.edge.EdgeVectorStore` builds filters the way a
Qdrant server takes them (`qdrant_client.models.Filter`) and uses LangChain's string
ids; Qdrant Edge has filter classes and point ids of its own. Ids: a canonical UUID
string or a canonical decimal integer is used as the point id itself; any other id is
mapped to a UUIDv5 (the store keeps the original in the payload).
"""

from __future__ import annotations

import uuid
from datetime import date, datetime
from typing import Any, overload

import numpy as np
import qdrant_edge as qe
from qdrant_client import models

__all__ = ["to_edge_filter", "to_point_id"]

_ID_NAMESPACE = uuid.UUID("8a0e1f3c-7d52-5f0b-9a8e-2c4b6d1e0f73")
_MAX_POINT_INT = 2**64 - 1


def to_point_id(doc_id: str | int | uuid.UUID) -> tuple[str | int, str | None]:
    """Map a LangChain document id to a Qdrant point id.

    Args:
        doc_id: Any string id, a UUID, or a non-negative integer.

    Returns:
        ``(point_id, original)``: the point id (a canonical UUID string or an integer)
        and the id to keep in the payload, ``None`` when the point id already spells it.

    Raises:
        ValueError: for a negative integer id, or an integer past 64 bits.
    """
    if isinstance(doc_id, int) and not isinstance(doc_id, bool):
        if not 0 <= doc_id <= _MAX_POINT_INT:
            raise ValueError(f"integer ids must fit in 64 unsigned bits, got {doc_id}")
        return doc_id, None
    text = str(doc_id)
    if text.isascii() and text.isdigit() and str(int(text)) == text:
        number = int(text)
        if number <= _MAX_POINT_INT:
            return number, None
    else:
        try:
            if str(uuid.UUID(text)) == text:
                return text, None
        except ValueError:
            pass
    return str(uuid.uuid5(_ID_NAMESPACE, text)), text


@overload
def to_edge_filter(flt: None) -> None: ...
@overload
def to_edge_filter(flt: models.Filter | qe.Filter) -> qe.Filter: ...
def to_edge_filter(flt: models.Filter | qe.Filter | None) -> qe.Filter | None:
    """Translate a qdrant-client filter into a Qdrant Edge filter.

    Supports the conditions a Qdrant server takes in a point filter, geo ones aside
    (nothing here stores coordinates): field conditions (match
    value/any/except/text/text-any/phrase/prefix/substring, numeric and datetime
    ranges, values count, is-empty, is-null), is-empty, is-null, has-id (with this
    store's id mapping), has-vector, nested conditions, sub-filters and ``min_should``.

    Args:
        flt: A `qdrant_client.models.Filter`, a `qdrant_edge.Filter` (returned as is),
            or None.

    Returns:
        The Qdrant Edge filter, or None.

    Raises:
        TypeError: for a condition this translation does not know.
    """
    if flt is None or isinstance(flt, qe.Filter):
        return flt
    if not isinstance(flt, models.Filter):
        raise TypeError(f"expected a qdrant_client.models.Filter, got {type(flt).__name__}")
    min_should = None
    if flt.min_should is not None:
        min_should = qe.MinShould(
            conditions=[_condition(c) for c in flt.min_should.conditions],
            min_count=flt.min_should.min_count,
        )
    return qe.Filter(
        must=_conditions(flt.must),
        should=_conditions(flt.should),
        must_not=_conditions(flt.must_not),
        min_should=min_should,
    )


def _conditions(value: Any) -> list[Any] | None:
    if value is None:
        return None
    items = value if isinstance(value, list) else [value]
    return [_condition(c) for c in items]


def _condition(cond: Any) -> Any:
    match cond:
        case models.FieldCondition():
            return _field_condition(cond)
        case models.Filter():
            return to_edge_filter(cond)
        case models.IsEmptyCondition():
            return qe.IsEmptyCondition(cond.is_empty.key)
        case models.IsNullCondition():
            return qe.IsNullCondition(cond.is_null.key)
        case models.HasIdCondition():
            return qe.HasIdCondition({to_point_id(i)[0] for i in cond.has_id})
        case models.HasVectorCondition():
            return qe.HasVectorCondition(cond.has_vector)
        case models.NestedCondition():
            nested = to_edge_filter(cond.nested.filter)
            assert nested is not None
            return qe.NestedCondition(cond.nested.key, nested)
    raise TypeError(f"unsupported filter condition: {type(cond).__name__}")


def _field_condition(cond: models.FieldCondition) -> qe.FieldCondition:
    if cond.geo_bounding_box or cond.geo_radius or cond.geo_polygon:
        # Nothing here stores coordinates: refused rather than silently dropped.
        raise TypeError(f"unsupported filter condition: geo condition on {cond.key!r}")
    return qe.FieldCondition(
        key=cond.key,
        match=_match(cond.match) if cond.match is not None else None,
        range=_range(cond.range) if cond.range is not None else None,
        values_count=_values_count(cond.values_count),
        is_empty=cond.is_empty,
        is_null=cond.is_null,
    )


def _match(match: Any) -> Any:
    match match:
        case models.MatchValue():
            value: bool | int | str | np.bool_ = match.value
            if isinstance(value, bool):
                # qdrant-edge-py 0.9.0 reads a Python bool as the integer 0/1, which
                # matches no boolean payload; numpy's bool is read as a bool.
                value = np.bool_(value)
            return qe.MatchValue(value)  # type: ignore[arg-type]  # the stub omits numpy bools
        case models.MatchAny():
            return qe.MatchAny(match.any.copy())
        case models.MatchExcept():
            return qe.MatchExcept(match.except_.copy())
        case models.MatchText():
            return qe.MatchText(match.text)
        case models.MatchTextAny():
            return qe.MatchTextAny(match.text_any)
        case models.MatchPhrase():
            return qe.MatchPhrase(match.phrase)
        case models.MatchPrefix():
            return qe.MatchPrefix(match.prefix)
        case models.MatchSubstring():
            return qe.MatchSubstring(match.substring)
    raise TypeError(f"unsupported match: {type(match).__name__}")


def _range(rng: models.Range | models.DatetimeRange) -> Any:
    if isinstance(rng, models.DatetimeRange):
        return qe.RangeDateTime(
            gte=_iso(rng.gte), gt=_iso(rng.gt), lte=_iso(rng.lte), lt=_iso(rng.lt)
        )
    return qe.RangeFloat(gte=rng.gte, gt=rng.gt, lte=rng.lte, lt=rng.lt)


def _iso(value: datetime | date | str | None) -> str | None:
    if value is None or isinstance(value, str):
        return value
    if isinstance(value, datetime):
        return value.isoformat()
    return datetime(value.year, value.month, value.day).isoformat()


def _values_count(count: models.ValuesCount | None) -> qe.ValuesCount | None:
    if count is None:
        return None
    return qe.ValuesCount(lt=count.lt, gt=count.gt, lte=count.lte, gte=count.gte)
