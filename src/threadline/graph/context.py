"""Per-run settings: what a caller (or LangGraph Studio) may change for one run.

Fields left at None fall back to the process settings (`threadline.settings`).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from threadline.graph import prompts


@dataclass(kw_only=True)
class Context:
    """Knobs of one graph run."""

    top_k: int | None = field(
        default=None, metadata={"description": "Chunks retrieved before packing."}
    )
    min_score: float | None = field(
        default=None, metadata={"description": "Chunks scoring below are not packed."}
    )
    max_chunks: int | None = field(
        default=None, metadata={"description": "Most chunks packed into the context."}
    )
    max_chars: int | None = field(
        default=None, metadata={"description": "Most characters packed into the context."}
    )
    context_window_before: int | None = field(
        default=None,
        metadata={"description": "Neighbouring chunks packed before each hit (0 disables)."},
    )
    context_window_after: int | None = field(
        default=None,
        metadata={"description": "Neighbouring chunks packed after each hit (0 disables)."},
    )
    history_mode: str | None = field(
        default=None,
        metadata={"description": "minimal_trail | full | truncated | titles | none."},
    )
    answer_system_prompt: str = field(
        default=prompts.ANSWER_SYSTEM_PROMPT,
        metadata={"description": "System prompt of the answer generator."},
    )
    condense_system_prompt: str = field(
        default=prompts.CONDENSE_SYSTEM_PROMPT,
        metadata={"description": "System prompt of the LLM reformulation."},
    )
