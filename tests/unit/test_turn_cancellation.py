"""The marks that stop the generation of a streamed turn whose client went away."""

from __future__ import annotations

import asyncio

import pytest

from threadline.models import cancellation
from threadline.models.cancellation import (
    TURN_KEY,
    cancel_turn,
    cancelled_when_abandoned,
    turn_cancelled,
)


def test_leaving_by_cancellation_marks_the_turn():
    for leaving in (GeneratorExit, asyncio.CancelledError):
        metadata = {TURN_KEY: f"turn-{leaving.__name__}"}
        with pytest.raises(leaving), cancelled_when_abandoned(metadata):
            raise leaving()
        assert turn_cancelled(metadata[TURN_KEY])


def test_ending_or_failing_does_not_mark_the_turn():
    metadata = {TURN_KEY: "turn-finished"}
    with cancelled_when_abandoned(metadata):
        pass
    with pytest.raises(ValueError), cancelled_when_abandoned({TURN_KEY: "turn-failed"}):
        raise ValueError
    assert not turn_cancelled("turn-finished") and not turn_cancelled("turn-failed")
    assert not turn_cancelled(None)


def test_only_the_last_cancelled_turns_are_kept():
    for index in range(cancellation.KEPT + 5):
        cancel_turn(f"many-{index}")
    assert not turn_cancelled("many-0")
    assert turn_cancelled(f"many-{cancellation.KEPT + 4}")
