"""What became of the answers users flagged: the replay of feedback cases, compared.

The tasks come from `threadline bench cases --from-feedback down` (each carries the
flagged answer: its outcome, text and cited documents); the run from `python -m
benchmarks answers --tasks cases.jsonl`. Each case gets one verdict:

- `declines`: the flagged turn answered, the new version declines or asks back;
- `other_passages`: it answers, citing none of the passages the flagged answer cited;
- `different_answer`: it answers from some of the same passages, with other text;
- `unchanged`: the same outcome and text (a regression set should not keep these);
- `still_declines`: the flagged turn was no answer, and it still is not one.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ANSWERED = ("grounded_answer", "tool_answer")
VERDICTS = ("declines", "other_passages", "different_answer", "unchanged", "still_declines")


def verdict(flagged: dict[str, Any], line: dict[str, Any]) -> str:
    """Return what became of one flagged answer (see the module docstring)."""
    was_answer = flagged.get("outcome") in ANSWERED
    answers = line["outcome"] in ANSWERED and bool(line["cited_doc_ids"])
    if not answers:
        if line["outcome"] == flagged.get("outcome") and line["answer"] == flagged.get("answer"):
            return "unchanged"
        return "declines" if was_answer else "still_declines"
    if line["outcome"] == flagged.get("outcome") and line["answer"] == flagged.get("answer"):
        return "unchanged"
    if not set(line["cited_doc_ids"]) & set(flagged.get("cited_doc_ids") or []):
        return "other_passages"
    return "different_answer"


@dataclass
class FeedbackReplay:
    """Verdicts per case and their counts."""

    verdicts: dict[str, str] = field(default_factory=dict)
    reasons: dict[str, str | None] = field(default_factory=dict)

    def counts(self) -> Counter[str]:
        """How many cases got each verdict."""
        return Counter(self.verdicts.values())

    def summary(self) -> str:
        """Return a few lines for humans: the counts, then one line per case."""
        counts = self.counts()
        head = ", ".join(f"{name} {counts[name]}" for name in VERDICTS if counts[name])
        lines = [f"{len(self.verdicts)} flagged turn(s) replayed: {head or 'none'}"]
        for task_id, name in self.verdicts.items():
            lines.append(
                f"  {name:<16} {task_id} (flagged: {self.reasons[task_id] or 'no reason'})"
            )
        return "\n".join(lines) + "\n"


def is_feedback_tasks(tasks_path: Path) -> bool:
    """Whether a tasks file holds feedback cases (each line has `flagged`)."""
    with tasks_path.open(encoding="utf-8") as f:
        first = next((line for line in f if line.strip()), "")
    return bool(first) and "flagged" in json.loads(first)


def compare_replay(tasks_path: Path, run_path: Path) -> FeedbackReplay:
    """Compare each replayed case with the answer that was flagged.

    Args:
        tasks_path: The cases (JSON lines with `flagged` and `labels`).
        run_path: The run of `python -m benchmarks answers` over them.

    Returns:
        The verdicts; a case missing from the run is not listed.
    """
    run = {}
    for line in run_path.read_text(encoding="utf-8").splitlines():
        if line.strip():
            record = json.loads(line)
            run[record["task_id"]] = record
    replay = FeedbackReplay()
    for line in tasks_path.read_text(encoding="utf-8").splitlines():
        if not line.strip():
            continue
        case = json.loads(line)
        if case["task_id"] in run:
            replay.verdicts[case["task_id"]] = verdict(case["flagged"], run[case["task_id"]])
            replay.reasons[case["task_id"]] = (case.get("labels") or {}).get("reason")
    return replay
