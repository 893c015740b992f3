"""Explicit references: outline ids, numbered nouns, letters and ordinals.

"S2", "[S2]", "section 2", "§2", "point B", "the third point", "la 2e source", "le
dernier": each form becomes a :class:`Hit`, checked against the outline or the sources
by :func:`resolve_hit`.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from threadline.followups.matching import ROMAN, Context, fold_phrase
from threadline.followups.outline import OutlineSection
from threadline.followups.reference_model import (
    DETERMINISTIC,
    REASON_NO_OUTLINE,
    REASON_NO_SOURCES,
    REASON_OUT_OF_RANGE,
    Reference,
)

# An ordinal word with no article is a reference only in a message this short ("third?",
# "second one please"); in longer ones it is usually an adverb ("First, ...").
BARE_ORDINAL_MAX_WORDS = 3


@dataclass(frozen=True)
class Hit:
    """A reference form found in the question, before checking it against the outline."""

    start: int
    end: int
    priority: int
    kind: str
    number: int
    explicit_id: bool = False


def id_hits(ctx: Context, outline_len: int) -> list[Hit]:
    """``[S2]`` and bare ``S2`` tokens.

    A bracketed id is always a reference. A bare one must look like one: not preceded by
    an indefinite article or a capitalised product word, not followed by a content word
    ("S3 bucket"), and, beyond the outline, phrased with nothing but reference words
    around it ("Detail S12", "S12 please"), since then nothing else vouches for it. Beyond
    the outline (or with none), a definite article makes it a name: "the S24", "le prix du
    S24" speak of a product, where "détaille la S3" points into a three-part outline.
    """
    hits = [
        Hit(m.start(), m.end(), 0, "section", int(m.group("num")), explicit_id=True)
        for m in ctx.comp.bracket_id.finditer(ctx.text)
    ]
    for m in ctx.comp.bare_id.finditer(ctx.text):
        number = int(m.group("num"))
        in_range = 1 <= number <= outline_len
        prev, nxt = ctx.prev_kind(m.start()), ctx.next_kind(m.end())
        if prev in ("indef", "name") or nxt == "of_content":
            continue
        if not in_range and _after_definite_article(ctx, m.start()):
            continue
        if nxt == "unknown":
            # Only a verb right before makes "Detail S2 costs" a reference, not a name.
            ok = in_range and prev == "verb"
        elif prev == "unknown":
            ok = in_range
        else:
            ok = True
        if ok:
            hits.append(Hit(m.start(), m.end(), 0, "section", number, explicit_id=True))
    return hits


def _after_definite_article(ctx: Context, pos: int) -> bool:
    """Tell whether the word right before ``pos`` is a definite article ("the", "la", "du")."""
    prev, adjacent = ctx.before(pos)
    return prev is not None and adjacent and prev.text in ctx.comp.determiners


def noun_number_hits(ctx: Context) -> list[Hit]:
    """Find numbered nouns: "section 2", "§2", "partie 2", "point 2", "source 2".

    A section noun gives ref type ``section``, a point noun ``ordinal``, a source noun
    ``document``.
    """
    hits = []
    for m in ctx.comp.noun_number.finditer(ctx.text):
        if ctx.prev_kind(m.start()) == "name":
            continue  # "Medicare Part 2", "Windows Section 8": a name, not our outline.
        if m.group("num") is not None:
            number = int(m.group("num"))
        elif m.group("card") is not None:
            number = ctx.comp.cardinal_value[fold_phrase(m.group("card"))]
        else:
            # A roman numeral reads like a letter or a pronoun ("the section I liked"),
            # so it needs the same clean ending as a letter.
            if ctx.next_kind(m.end()) not in ("edge", "known"):
                continue
            number = ROMAN[m.group("roman")]
        kind = ctx.comp.noun_kind[" ".join(m.group("noun").split())]
        ref_type = {"section": "section", "point": "ordinal", "document": "document"}[kind]
        hits.append(Hit(m.start(), m.end(), 1, ref_type, number))
    return hits


def letter_hits(ctx: Context) -> list[Hit]:
    """Legacy letters after an item noun: "point B", "la partie C" (A = S1).

    Two letter points each introduced by a route word ("from point A to point B", "du
    point A au point B") describe a trip, not the outline, and yield nothing.
    """
    found = []
    for m in ctx.comp.letter.finditer(ctx.text):
        letter_start = m.start("letter")
        written = ctx.folded.original[ctx.folded.origin[letter_start]]
        # The original must be a plain letter: "partie à" folds to "partie a".
        if not ("a" <= written.casefold() <= "z"):
            continue
        if ctx.prev_kind(m.start()) == "name":
            continue
        if ctx.next_kind(m.end()) not in ("edge", "known"):
            continue  # "le point a été discuté": "a" is a verb here.
        found.append(m)
    if len(found) >= 2 and all(_after_route_word(ctx, m.start()) for m in found[:2]):
        return []
    return [
        Hit(m.start(), m.end(), 2, "letter", ord(m.group("letter")) - ord("a") + 1) for m in found
    ]


def _after_route_word(ctx: Context, pos: int) -> bool:
    """Tell whether a route word ("from", "to", "au") precedes ``pos``, skipping an article."""
    prev, _ = ctx.before(pos)
    # "du"/"au" are both an article and a route word, so test the route first.
    if (
        prev is not None
        and prev.text not in ctx.comp.route_words
        and prev.text in ctx.comp.determiners
    ):
        prev, _ = ctx.before(prev.start)
    return prev is not None and prev.text in ctx.comp.route_words


def _ordinal_value(ctx: Context, m: re.Match[str]) -> int:
    """Read the rank an ordinal match writes, negative when counted from the end."""
    word = m.groupdict().get("word")
    if word is not None:
        return ctx.comp.ordinal_value[" ".join(word.split())]
    return int(m.group("dnum"))


def ordinal_hits(ctx: Context, with_outline: bool) -> list[Hit]:
    """Ordinals: with a noun ("the third point", "la 2e source") or bare ("le dernier").

    A bare ordinal needs an outline, and either a definite article ("the second", "la
    deuxième"), digits ("2e", "4th") or a message of a few words ("Third?"), and nothing
    after it but punctuation or a filler: "the second largest city", "le 1er mai" and
    "the 4th of July" stay questions.
    """
    hits = []
    for m in ctx.comp.ordinal_noun.finditer(ctx.text):
        if ctx.next_kind(m.end()) == "of_content":
            continue  # "the first source of revenue"
        kind = ctx.comp.noun_kind[" ".join(m.group("noun").split())]
        ref_type = "document" if kind == "document" else "ordinal"
        hits.append(Hit(m.start(), m.end(), 3, ref_type, _ordinal_value(ctx, m)))
    if not with_outline:
        return hits
    for pattern in (ctx.comp.standalone_word, ctx.comp.standalone_digit):
        for m in pattern.finditer(ctx.text):
            if ctx.next_kind(m.end()) not in ("edge", "known"):
                continue
            # Without an article an ordinal word is an adverb ("First, what is...?",
            # "wait a second") unless it is all the question says ("Third?").
            bare_word = m.group("det") is None and pattern is ctx.comp.standalone_word
            if bare_word and (
                ctx.prev_kind(m.start()) != "edge" or len(ctx.tokens) > BARE_ORDINAL_MAX_WORDS
            ):
                continue
            hits.append(Hit(m.start(), m.end(), 4, "ordinal", _ordinal_value(ctx, m)))
    return hits


def stands_alone(ctx: Context, hit: Hit) -> bool:
    """Tell whether a hit is all the message says: every word around it a reference word.

    "what about the third point?", « et le point 2 ? » point at an item and nothing else;
    "What does the second point of the policy say?" names what it is a point of.
    """
    return all(
        token.text in ctx.comp.known or token.text.isdigit()
        for token in ctx.tokens
        if token.end <= hit.start or token.start >= hit.end
    )


def step_reference(
    ctx: Context, outline: Sequence[OutlineSection], pointed: str | None
) -> Reference | None:
    """Read "and the next one?", « la précédente ? »: the section beside the one pointed at.

    Only when the previous turn pointed at a section of this outline and the step is all
    the message says; None otherwise (a "next" of its own, "the next release", is content).
    """
    ids = [section.id for section in outline]
    if pointed not in ids:
        return None
    for m in ctx.comp.step.finditer(ctx.text):
        hit = Hit(m.start(), m.end(), 5, "ordinal", 0)
        if not stands_alone(ctx, hit):
            continue
        index = ids.index(pointed) + ctx.comp.step_value[m.group("step")]
        if 0 <= index < len(outline):
            return Reference(True, True, "ordinal", section_id=ids[index], method=DETERMINISTIC)
        return Reference(True, False, "ordinal", method=DETERMINISTIC, reason=REASON_OUT_OF_RANGE)
    return None


def _section_at(outline: Sequence[OutlineSection], number: int) -> OutlineSection | None:
    """Find the section with id ``S<number>``, else the one at that rank (negative: from end)."""
    if number < 0:
        number = len(outline) + 1 + number
    for section in outline:
        if section.id.upper() == f"S{number}":
            return section
    if 1 <= number <= len(outline):
        return outline[number - 1]
    return None


def resolve_hit(
    hit: Hit, outline: Sequence[OutlineSection], sources: Sequence[str], alone: bool = False
) -> Reference | None:
    """Check a hit against the outline or the sources; None when it does not apply.

    ``alone``: the hit is all the message says (:func:`stands_alone`), so a numbered
    point with no outline to point into is still a reference, one that cannot resolve.
    """
    if hit.kind == "document":
        if not sources:
            return Reference(
                True, False, "document", method=DETERMINISTIC, reason=REASON_NO_SOURCES
            )
        index = hit.number if hit.number > 0 else len(sources) + 1 + hit.number
        if 1 <= index <= len(sources):
            return Reference(True, True, "document", document_index=index, method=DETERMINISTIC)
        return Reference(True, False, "document", method=DETERMINISTIC, reason=REASON_OUT_OF_RANGE)
    if not outline:
        # An explicit "S2" is a reference with nothing to point into, and so is a point
        # counted with nothing else said ("what about the third point?": the documents
        # hold no word of it); "section 2" or "the second point of the policy" may be
        # about a document, so it is left to retrieval.
        if hit.explicit_id or (alone and hit.kind == "ordinal"):
            return Reference(True, False, hit.kind, method=DETERMINISTIC, reason=REASON_NO_OUTLINE)
        return None
    section = _section_at(outline, hit.number) if hit.number != 0 else None
    if section is None:
        return Reference(True, False, hit.kind, method=DETERMINISTIC, reason=REASON_OUT_OF_RANGE)
    return Reference(True, True, hit.kind, section_id=section.id, method=DETERMINISTIC)
