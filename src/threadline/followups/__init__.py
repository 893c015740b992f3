"""Follow-up handling without an LLM: outlines, references and compact history.

* :mod:`~threadline.followups.outline` parses the ``SUIVI`` block ending an answer.
* :mod:`~threadline.followups.references` resolves "détaille S2", "the third point",
  "la 2e source" against that outline and the cited sources, with one module per kind of
  reference (:mod:`~threadline.followups.explicit`, :mod:`~threadline.followups.titles`,
  :mod:`~threadline.followups.anaphora`) over the patterns of
  :mod:`~threadline.followups.matching`.
* :mod:`~threadline.followups.trail` renders past turns as a Minimal Trail.

The per-language words they rely on live in :mod:`threadline.text.lexicons`.
"""

from threadline.followups.anaphora import is_pure_anaphora, looks_like_followup
from threadline.followups.outline import OutlineSection, render_outline, split_outline
from threadline.followups.reference_model import Reference
from threadline.followups.references import resolve_reference
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
