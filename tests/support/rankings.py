"""Comparing two engines' rankings, where equal scores may come in any order."""

from __future__ import annotations

import pytest


def assert_same_ranking(want: list[tuple[str, float]], got: list[tuple[str, float]]) -> None:
    """Same scores in the same order, and the same ids for each score.

    Equal scores (frequent with RRF) may come in any order, and the last group of equal
    scores may be cut at a different member by the limit.
    """
    assert [s for _, s in got] == pytest.approx([s for _, s in want], rel=1e-4, abs=1e-6)
    groups: dict[float, tuple[set[str], set[str]]] = {}
    for (want_id, score), (got_id, _) in zip(want, got, strict=True):
        pair = groups.setdefault(round(score, 4), (set(), set()))
        pair[0].add(want_id)
        pair[1].add(got_id)
    last = round(want[-1][1], 4) if want else None
    for score, (want_ids, got_ids) in groups.items():
        if score != last:
            assert got_ids == want_ids, f"different ids scoring {score}"
