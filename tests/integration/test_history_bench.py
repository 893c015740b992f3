"""History in prompts: the Minimal Trail stays several times smaller than full history."""

from __future__ import annotations

from benchmarks.history import CONVERSATION, measure, to_markdown
from support.paths import SAMPLE


def test_minimal_trail_is_much_smaller_than_full_history(tmp_path):
    results = measure(SAMPLE, tmp_path)
    trail, full = results["minimal_trail"], results["full"]
    assert trail["prompts"] == len(CONVERSATION)  # every turn of the script reaches the model
    assert 0 < trail["answer_history_chars_per_turn"] < full["answer_history_chars_per_turn"] / 3
    assert results["none"]["answer_history_chars_per_turn"] == 0
    assert to_markdown(results).count("\n") == len(results) + 1
