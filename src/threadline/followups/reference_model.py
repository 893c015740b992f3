"""What a follow-up question points at: the :class:`Reference` every resolver returns."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = [
    "DETERMINISTIC",
    "NOT_DETECTED",
    "REASON_AMBIGUOUS_TITLE",
    "REASON_NO_OUTLINE",
    "REASON_NO_SOURCES",
    "REASON_OUT_OF_RANGE",
    "REASON_PURE_ANAPHORA",
    "Reference",
]

DETERMINISTIC = "deterministic"
REASON_OUT_OF_RANGE = "out_of_range"
REASON_NO_OUTLINE = "no_outline"
REASON_NO_SOURCES = "no_sources"
REASON_AMBIGUOUS_TITLE = "ambiguous_title"
REASON_PURE_ANAPHORA = "pure_anaphora"


@dataclass(frozen=True)
class Reference:
    """What a follow-up question points at in the previous answer.

    Attributes:
        detected: The question contains a reference form (even one that cannot be
            resolved, so the caller can ask instead of guessing).
        resolved: The reference designates an existing section or source.
        ref_type: ``"section"``, ``"letter"``, ``"ordinal"``, ``"title"``, ``"document"``,
            ``"anaphora"`` or None.
        section_id: Outline id (``"S2"``) when resolved to a section.
        also_sections: The other sections the message names, in its order ("compare S1
            and S3": ``("S3",)``), when it names several.
        document_index: 1-based rank in the previous answer's sources when resolved to a
            document.
        method: ``"deterministic"`` whenever something was detected.
        reason: Why a detected reference is not resolved: ``"out_of_range"``,
            ``"no_outline"``, ``"no_sources"``, ``"ambiguous_title"``,
            ``"pure_anaphora"`` or ``"which_product"`` (a spec of "it" after a list of
            products that ranks none first).
    """

    detected: bool
    resolved: bool
    ref_type: str | None = None
    section_id: str | None = None
    also_sections: tuple[str, ...] = ()
    document_index: int | None = None
    method: str | None = None
    reason: str | None = None


NOT_DETECTED = Reference(detected=False, resolved=False)
