"""Follow-up handling without an LLM: outlines, references and compact history.

* :mod:`~threadline.followups.outline` parses the ``SUIVI`` block ending an answer.
* :mod:`~threadline.followups.references` resolves "détaille S2", "the third point",
  "la 2e source" against that outline and the cited sources.
* :mod:`~threadline.followups.trail` renders past turns as a Minimal Trail.
* :mod:`~threadline.followups.lexicon` holds the per-language words they rely on.
"""

from threadline.followups.outline import OutlineSection, render_outline, split_outline
from threadline.followups.references import (
    Reference,
    detect_language,
    is_pure_anaphora,
    looks_like_followup,
    resolve_reference,
)
from threadline.followups.trail import (
    HISTORY_MODES,
    TrailTurn,
    escape_for_line,
    render_for_answer,
    render_for_reformulation,
    render_history,
)

__all__ = [
    "HISTORY_MODES",
    "OutlineSection",
    "Reference",
    "TrailTurn",
    "detect_language",
    "escape_for_line",
    "is_pure_anaphora",
    "looks_like_followup",
    "render_for_answer",
    "render_for_reformulation",
    "render_history",
    "render_outline",
    "resolve_reference",
    "split_outline",
]
