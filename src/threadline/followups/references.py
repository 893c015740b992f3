"""Deterministic resolution of follow-up references, with no LLM involved.

After an answer that ended with an outline (``[S1] ...``, ``[S2] ...``) and cited sources,
users point back into it: "détaille S2", "le point B", "the third point", "la dernière
partie", "go deeper on leak reduction", "what does the second source say?". This module
turns such a question into a :class:`Reference` to an outline section or a source rank, or
says why it could not (out of range, no outline, an ambiguous title).

It also answers two cheaper questions the router asks: is this a bare "tell me more" with
no content of its own (:func:`is_pure_anaphora`), and does it lean on the previous turn at
all (:func:`looks_like_followup`).

The resolvers live beside it, one per kind of reference:
:mod:`~threadline.followups.explicit` (ids, numbered nouns, letters, ordinals),
:mod:`~threadline.followups.titles` (a section named by its title) and
:mod:`~threadline.followups.anaphora` (bare elaboration requests, follow-up cues); the
words they look for come from :mod:`threadline.text.lexicons`, compiled by
:mod:`~threadline.followups.matching`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import replace

from threadline.followups.anaphora import is_pure_anaphora, looks_like_followup, pure_anaphora
from threadline.followups.explicit import (
    id_hits,
    letter_hits,
    noun_number_hits,
    ordinal_hits,
    resolve_hit,
    stands_alone,
    step_reference,
)
from threadline.followups.matching import Context, active
from threadline.followups.outline import OutlineSection
from threadline.followups.reference_model import (
    DETERMINISTIC,
    NOT_DETECTED,
    REASON_PURE_ANAPHORA,
    Reference,
)
from threadline.followups.titles import match_title

__all__ = [
    "Reference",
    "is_pure_anaphora",
    "looks_like_followup",
    "resolve_reference",
]


def resolve_reference(
    question: str,
    outline: Sequence[OutlineSection],
    sources: Sequence[str] = (),
    languages: Sequence[str] | None = None,
    translations: Callable[[str], Iterable[str]] | None = None,
    pointed: str | None = None,
) -> Reference:
    """Resolve what a follow-up question points at in the previous answer.

    Forms, tried in this order and, within explicit forms, leftmost first:

    * ids: ``S2``, ``[S2]``, ``section 2``, ``§2``, ``partie 2`` → ``section``;
    * legacy letters after a point/part/section word: ``point B`` (A = S1) → ``letter``;
    * ordinals: ``2e point``, ``the third point``, ``la dernière partie``, ``point 2``,
      ``le 4e``, ``4th`` → ``ordinal`` (last/final/dernier = the last section);
    * sources by rank: ``the 3rd document``, ``la 2e source``, ``source 2`` →
      ``document``;
    * a step from the section the previous turn pointed at: "and the next one?", « la
      précédente » → ``ordinal``;
    * a section named by its title words ("détaille la partie sécurité") → ``title``;
    * a bare elaboration with no content ("tell me more") → ``anaphora``, detected but
      never resolved: the caller should ask which section.

    Without an outline nothing resolves to a section; an explicit ``S2``, or a counted
    point that is all the message says ("what about the third point?"), is still
    reported (reason ``no_outline``), so the caller can say there is nothing to point at.

    Args:
        question: The user's follow-up, as typed.
        outline: The previous answer's outline.
        sources: Titles of the previous answer's sources, in display order.
        languages: Lexicon codes to use; None (or only unknown codes) means all.
        translations: A word's readings in the other language, for titles written in
            another language than the question (None: titles are matched as written).
        pointed: The section id the previous turn pointed at, from which "the next
            one" / « la précédente » step (None: no step resolves).

    Returns:
        The reference; ``detected`` is False when the question points at nothing.
    """
    comp = active(languages)
    ctx = Context(question, comp)
    if not ctx.tokens:
        return NOT_DETECTED
    hits = (
        id_hits(ctx, len(outline))
        + noun_number_hits(ctx)
        + letter_hits(ctx)
        + ordinal_hits(ctx, bool(outline))
    )
    found = [
        reference
        for hit in sorted(hits, key=lambda h: (h.start, h.priority))
        if (reference := resolve_hit(hit, outline, sources, alone=stands_alone(ctx, hit)))
        is not None
    ]
    if found:
        # "compare S1 and S3" points at both sections: the first leads, the others follow.
        first = found[0]
        others = [
            r.section_id for r in found[1:] if r.section_id and r.section_id != first.section_id
        ]
        if first.section_id and others:
            return replace(first, also_sections=tuple(dict.fromkeys(others)))
        return first
    if not outline:
        return NOT_DETECTED
    reference = step_reference(ctx, outline, pointed)
    if reference is not None:
        return reference
    reference = match_title(ctx, outline, translations)
    if reference is not None:
        return reference
    if pure_anaphora(ctx):
        return Reference(True, False, "anaphora", method=DETERMINISTIC, reason=REASON_PURE_ANAPHORA)
    return NOT_DETECTED
