"""How much history reaches the prompts, per history mode (seed 004's Minimal Trail claim).

A fixed multi-turn conversation over the sample data is run once per mode; a
callback captures every answer prompt the chat model receives and measures its
`<history>` block. The reformulation-phase trail is rendered from the same turns.
"""

from __future__ import annotations

import json
import re
import tempfile
from pathlib import Path
from typing import Any

from langchain_core.callbacks import BaseCallbackHandler

from threadline.chat import ChatService, TurnRequest
from threadline.followups.trail import HISTORY_MODES, TrailTurn, render_history
from threadline.graph.context import Context
from threadline.services import Services
from threadline.settings import Settings

CONVERSATION = [
    "Résume le rapport annuel 2024",
    "Détaille S2",
    "Et pour les ressources humaines ?",
    "What SLA applies to the enterprise plan?",
    "and for P2?",
    "What is the refund policy for annual plans?",
    "Summarise the security handbook",
    "Expand S3",
]
_HISTORY = re.compile(r"<history>\n?(.*?)\n?</history>", re.S)


class _PromptCapture(BaseCallbackHandler):
    """Keeps the `<history>` block of each answer prompt."""

    def __init__(self) -> None:
        self.histories: list[str] = []

    def on_chat_model_start(self, serialized: Any, messages: Any, **kwargs: Any) -> None:
        for batch in messages:
            text = "\n".join(m.text for m in batch if m.type == "human")
            match = _HISTORY.search(text)
            if match:
                self.histories.append(match.group(1))


def measure(sample_dir: Path, data_dir: Path) -> dict[str, Any]:
    """Run the conversation in every history mode; characters of history per prompt and turn."""
    settings = Settings(
        _env_file=None, data_dir=data_dir, embeddings="sparse", llm="offline", qdrant_url=None
    )
    services = Services(settings)
    services.kb.ingest_paths([sample_dir])
    chat = ChatService(services)
    results: dict[str, Any] = {}
    try:
        for mode in HISTORY_MODES:
            capture = _PromptCapture()
            thread = f"history-{mode}"
            for question in CONVERSATION:
                request = TurnRequest(query=question, thread_id=thread)
                inputs = {"query": request.query, "thread_id": request.thread_id}
                chat.graph.invoke(
                    inputs, config={"callbacks": [capture]}, context=Context(history_mode=mode)
                )
            messages = services.store.get_history(
                tenant="default", caller_app="default", session_id=thread
            )
            turns = [
                TrailTurn(
                    question=q.content,
                    search_query=a.metadata.search_query if a.metadata else None,
                    titles=tuple(a.metadata.titles) if a.metadata else (),
                    answer=a.content,
                )
                for q, a in zip(messages[::2], messages[1::2], strict=True)
            ]
            # Prompt i sees the last min(i, history_turns) turns.
            limit = settings.history_turns
            past_turns = sum(min(i, limit) for i in range(len(capture.histories)))
            answer_chars = sum(len(h) for h in capture.histories)
            reformulation_chars = sum(
                len(
                    render_history(
                        turns[max(0, i - limit) : i],
                        mode=mode,
                        phase="reformulation",
                        max_titles=settings.history_max_titles,
                        max_chars=settings.history_max_chars,
                    )
                )
                for i in range(len(turns))
            )
            results[mode] = {
                "prompts": len(capture.histories),
                "answer_history_chars_per_turn": round(answer_chars / max(past_turns, 1), 1),
                "reformulation_history_chars_per_turn": round(
                    reformulation_chars / max(sum(min(i, limit) for i in range(len(turns))), 1), 1
                ),
                "answer_history_chars_last_prompt": len(capture.histories[-1])
                if capture.histories
                else 0,
            }
    finally:
        services.close()
    return results


def to_markdown(results: dict[str, Any]) -> str:
    """Return a table for the README."""
    lines = [
        "| history mode | answer prompt, chars per past turn | reformulation, chars per past turn "
        "| answer history in the last prompt (chars) |",
        "| --- | ---: | ---: | ---: |",
    ]
    for mode, r in results.items():
        lines.append(
            f"| `{mode}` | {r['answer_history_chars_per_turn']} "
            f"| {r['reformulation_history_chars_per_turn']} "
            f"| {r['answer_history_chars_last_prompt']} |"
        )
    return "\n".join(lines)


def run(sample_dir: Path, out: Path | None = None) -> dict[str, Any]:
    """Measure in a throwaway data directory; write JSON and Markdown next to `out`."""
    with tempfile.TemporaryDirectory(prefix="threadline-history-") as tmp:
        results = measure(sample_dir, Path(tmp))
    if out is not None:
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")
        out.with_suffix(".md").write_text(to_markdown(results) + "\n", encoding="utf-8")
    return results


def main(argv: list[str] | None = None) -> int:
    """Command line: `python -m benchmarks.history --out benchmarks/results/history.json`."""
    import argparse

    parser = argparse.ArgumentParser(prog="benchmarks.history", description=__doc__)
    parser.add_argument("--out", type=Path, required=True, help="a .json file (the .md beside it)")
    parser.add_argument("--sample-dir", type=Path, default=Path("data/sample"))
    args = parser.parse_args(argv)
    print(to_markdown(run(args.sample_dir, args.out)))  # noqa: T201 - a command's output
    return 0


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
