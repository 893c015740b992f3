"""How deep a hybrid search's branches read: deep enough that the fused top k is whole.

Qdrant fuses a hybrid query's dense and sparse rankings by reciprocal rank (a point
scores 1 / (2 + rank) per branch that found it) over what each branch read; a point
neither branch read cannot be fused in. `_fetch(k)` must read each branch deep enough
that no point of the fused top k of the full rankings is one of those.
"""

from __future__ import annotations

import random

from threadline.knowledge.index import _fetch

RRF_K = 2


def fused_top(dense: list[int], sparse: list[int], k: int, depth: int) -> set[int]:
    """The fused top k when each branch is read `depth` deep (ties: any member)."""
    scores: dict[int, float] = {}
    for ranking in (dense, sparse):
        for rank, point in enumerate(ranking[:depth], 1):
            scores[point] = scores.get(point, 0.0) + 1 / (RRF_K + rank)
    return set(sorted(scores, key=lambda p: -scores[p])[:k])


def missed(k: int, depth: int, rng: random.Random, trials: int = 300) -> int:
    """In how many random pairs of rankings a point of the full top k was not read."""
    count = 0
    for _ in range(trials):
        points = list(range(rng.choice([3 * k, 6 * k, 20 * k])))
        dense = rng.sample(points, len(points))
        # The sparse ranking agrees with the dense one more or less, as real ones do.
        noise = rng.choice([0.0, 0.3, 1.0, 5.0])
        place = {p: i + rng.gauss(0, noise * len(points)) for i, p in enumerate(dense)}
        sparse = sorted(points, key=lambda p: place[p])
        full = fused_top(dense, sparse, k, len(points))
        read = set(dense[:depth]) | set(sparse[:depth])
        # A tie at the k-th score may be cut at another member: only strict winners count.
        count += bool(full - read) and full != fused_top(dense, sparse, k, depth)
    return count


def test_each_branch_is_read_deep_enough_for_the_fused_top_k():
    rng = random.Random(17)
    for k in (5, 13, 60, 90):
        assert missed(k, _fetch(k), rng) == 0


def test_a_point_just_past_k_in_both_branches_is_fused_in():
    # The branches' top k are disjoint: the k-th fused score is a single place near k/2,
    # and a point ranked k + 1 in both beats it (2/63 > 1/32 for k = 60). Read k deep,
    # it is never seen; read `_fetch(k)` deep, it is fused in.
    k = 60
    dense = [*range(k), 1000, *range(2000, 2200)]
    sparse = [*range(100, 100 + k), 1000, *range(3000, 3200)]
    assert 1000 in fused_top(dense, sparse, k, len(dense))
    assert 1000 not in fused_top(dense, sparse, k, k)
    assert 1000 in fused_top(dense, sparse, k, _fetch(k))
