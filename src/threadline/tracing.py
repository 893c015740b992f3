"""A turn's trace as it is kept: sanitised (no document text) and bounded in size.

The graph's nodes each add an entry to the turn's `trace` (what they found, chose,
rejected and why). What is stored with the answer, written to the queries log and
returned to a caller app allowed to debug is `stored_trace(...)`: those entries plus
one `context` entry naming the packed passages (ids, titles, scores), with

- no document text: keys that carry text (`text`, `content`, `answer`, `prompt`,
  ...) are dropped wherever they are, and every string is cut to `STRING_MAX`
  characters, so a passage cannot ride along under another name;
- a size cap: lists are cut shorter and shorter until the JSON fits in
  `TRACE_MAX_CHARS`; past that, only each entry's node name is kept.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

TRACE_MAX_CHARS = 12_000
"""Largest stored trace, in characters of compact JSON."""
STRING_MAX = 160
"""Longest string kept (a title, a query); longer ones end with an ellipsis."""
DEPTH_MAX = 6
"""Deeper structures are replaced by a marker."""
TEXT_KEYS = frozenset(
    {"text", "content", "answer", "prompt", "messages", "passage", "passages", "quote", "body"}
)
"""Keys whose values are document or model text: never kept."""
_LIST_LIMITS = (40, 12, 5, 2, 0)


def _clean(value: Any, depth: int, list_max: int) -> Any:
    if isinstance(value, bool) or value is None or isinstance(value, int):
        return value
    if isinstance(value, float):
        return round(value, 4)
    if isinstance(value, str):
        return value if len(value) <= STRING_MAX else value[: STRING_MAX - 1] + "\u2026"
    if depth >= DEPTH_MAX:
        return "\u2026"
    if isinstance(value, Mapping):
        return {
            str(key): _clean(item, depth + 1, list_max)
            for key, item in value.items()
            if str(key) not in TEXT_KEYS
        }
    if isinstance(value, Sequence | set | frozenset):
        items = list(value)
        kept = [_clean(item, depth + 1, list_max) for item in items[:list_max]]
        if len(items) > list_max:
            kept.append(f"\u2026 {len(items) - list_max} more")
        return kept
    return _clean(str(value), depth, list_max)


def _size(entries: list[dict[str, Any]]) -> int:
    return len(json.dumps(entries, ensure_ascii=False, separators=(",", ":")))


def sanitize_trace(
    trace: Sequence[Mapping[str, Any]], *, max_chars: int = TRACE_MAX_CHARS
) -> list[dict[str, Any]]:
    """Return the trace without document text, within `max_chars` of JSON.

    Args:
        trace: The nodes' entries (dicts; anything else is dropped).
        max_chars: The size cap.

    Returns:
        The sanitised entries; when even the shortest lists do not fit, each entry's
        `node` alone with `"truncated": true`, as many as fit.
    """
    entries = [e for e in trace if isinstance(e, Mapping)]
    for list_max in _LIST_LIMITS:
        cleaned = [_clean(entry, 0, list_max) for entry in entries]
        if _size(cleaned) <= max_chars:
            return cleaned
    names: list[dict[str, Any]] = []
    for entry in entries:
        short = {"node": _clean(entry.get("node"), 0, 0), "truncated": True}
        if _size([*names, short]) > max_chars:
            break
        names.append(short)
    return names


def context_entry(chunks: Sequence[Mapping[str, Any]], llm_calls: int) -> dict[str, Any]:
    """Return the trace entry naming the passages the answer could cite, without their text.

    Args:
        chunks: The packed context (`PackedChunk`s).
        llm_calls: Model calls the turn made.

    Returns:
        `{"node": "context", "llm_calls", "packed": [{label, chunk_id, doc_id, title,
        section, source, score, hit}]}`.
    """
    keys = ("label", "chunk_id", "doc_id", "title", "section", "source", "score", "hit")
    return {
        "node": "context",
        "llm_calls": llm_calls,
        "packed": [{k: chunk[k] for k in keys if k in chunk} for chunk in chunks],
    }


def stored_trace(
    trace: Sequence[Mapping[str, Any]], chunks: Sequence[Mapping[str, Any]], llm_calls: int
) -> list[dict[str, Any]]:
    """Return what is kept of a turn's trace: its entries and the context, sanitised."""
    return sanitize_trace([*trace, context_entry(chunks, llm_calls)])
