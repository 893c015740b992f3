"""Model requests counted per turn where they are sent (bounded in memory)."""

from __future__ import annotations

from threadline.models import turn_requests
from threadline.models.turn_requests import count_request, requests_of


def test_requests_are_counted_per_turn_and_the_table_is_bounded(monkeypatch) -> None:
    monkeypatch.setattr(turn_requests, "KEPT", 3)
    count_request("a")
    count_request("a")
    count_request("b")
    count_request(None)  # a call outside any turn counts nowhere
    assert (requests_of("a"), requests_of("b"), requests_of(None)) == (2, 1, 0)
    for token in ("c", "d", "e"):
        count_request(token)
    assert requests_of("a") == 0 and requests_of("e") == 1  # the oldest turns are dropped
