"""Messages that lean on the previous turn: bare elaboration requests and follow-up cues.

* :func:`is_pure_anaphora`: "tell me more", "détaille ça": more, about nothing named.
* :func:`looks_like_followup`: does a message lean on the previous turn at all?
"""

from __future__ import annotations

from collections.abc import Sequence

from threadline.followups.matching import Context, active

__all__ = ["SHORT_QUESTION_WORDS", "is_pure_anaphora", "looks_like_followup"]

# A question of at most this many words after a retrieved turn is taken as a follow-up:
# "and in 2023?", "the cheaper one?" carry too little to stand alone.
SHORT_QUESTION_WORDS = 4


def _cover(words: Sequence[str], phrases: Sequence[tuple[str, ...]], covered: list[bool]) -> bool:
    """Mark the words belonging to any phrase; True if at least one phrase occurred."""
    found = False
    for phrase in phrases:
        n = len(phrase)
        for i in range(len(words) - n + 1):
            if tuple(words[i : i + n]) == phrase:
                covered[i : i + n] = [True] * n
                found = True
    return found


def pure_anaphora(ctx: Context) -> bool:
    """Tell whether a question asks for more about nothing named (:func:`is_pure_anaphora`)."""
    comp, words = ctx.comp, ctx.words
    if not words:
        return False
    covered = [False] * len(words)
    if not _cover(words, comp.elaboration, covered):
        return False
    for phrases in (comp.anaphora, comp.politeness):
        _cover(words, phrases, covered)
    return all(
        done or w in comp.stopwords or w in comp.question_words or w in comp.one_words
        for w, done in zip(words, covered, strict=True)
    )


def is_pure_anaphora(question: str, languages: Sequence[str] | None = None) -> bool:
    """Tells whether a question asks for more without saying about what.

    True for "détaille ça", "tell me more (about that)", "can you elaborate?", "go on":
    an elaboration request whose other words are all pronouns, courtesy or function
    words. False as soon as something names a subject ("tell me more about the Samsung
    one", "détaille S2") or when there is no elaboration request at all ("and for P2?").

    Args:
        question: The user's message.
        languages: Lexicon codes to use; None means all.

    Returns:
        Whether the message is a content-free elaboration request.
    """
    return pure_anaphora(Context(question, active(languages)))


def continues_the_subject(question: str, languages: Sequence[str] | None = None) -> bool:
    """Tell whether a message opens as a continuation of the subject under discussion.

    A leading "and"/"et" or a follow-up cue ("what about", "et pour", "qu'en est-il"):
    "Et le nombre de tickets traités ?" asks about the same thing as the answer before.

    Args:
        question: The user's message.
        languages: Lexicon codes to use; None means all.
    """
    comp = active(languages)
    ctx = Context(question, comp)
    if not ctx.words:
        return False
    return ctx.words[0] in comp.leading_conjunctions or ctx.has_phrase(comp.followup_cues)


def looks_like_followup(question: str, languages: Sequence[str] | None = None) -> bool:
    """Tells whether a question probably leans on the previous turn.

    Meant to be asked only when a previous turn retrieved something. Signals: very short
    questions, a leading "and"/"et", follow-up cues ("what about", "et pour", "qu'en
    est-il"), elaboration requests, pronouns pointing back ("it", "celui-ci", "ce
    dernier", "the Samsung one") and comparisons with no subject ("which is cheaper?").

    Args:
        question: The user's message.
        languages: Lexicon codes to use; None means all.

    Returns:
        Whether the question should be condensed with the previous turn's context.
    """
    comp = active(languages)
    ctx = Context(question, comp)
    words = ctx.words
    if not words:
        return False
    if len(words) <= SHORT_QUESTION_WORDS:
        return True
    if words[0] in comp.leading_conjunctions:
        return True
    if any(ctx.has_phrase(p) for p in (comp.followup_cues, comp.elaboration, comp.back_references)):
        return True
    # "the Samsung one", "that cheaper one": an item named by the previous answer.
    pointers = comp.determiners | comp.anaphora_words
    for i, word in enumerate(words):
        if word in comp.one_words and i >= 2 and words[i - 2] in pointers:
            return True
    # "which is cheaper?", "lequel est le moins cher ?": a choice among earlier items.
    return words[0] in comp.choice_words and ctx.has_phrase(comp.comparatives)
