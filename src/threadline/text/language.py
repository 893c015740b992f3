"""Which language a text is in, by a vote of the words only one language uses.

No model and no n-gram profile: short questions ("et pour 2023 ?", "what about P2?")
give a statistical detector too little, while one French function word settles them.
The vote uses the stopwords and elided forms of each follow-up lexicon
(:data:`threadline.text.lexicons.LEXICONS`), so a language added there takes part. A
message with no vote at all ("Donation", "Valeur") may take the language of the
conversation it belongs to (`fallback`).
"""

from __future__ import annotations

import re
from functools import lru_cache

from threadline.text import lexicons
from threadline.text.normalize import fold_with_origin
from threadline.text.tokenize import phrase_words, words

__all__ = ["detect_language"]


@lru_cache(maxsize=8)
def _exclusive_stopwords(
    stopwords: tuple[tuple[str, tuple[str, ...]], ...],
) -> dict[str, frozenset[str]]:
    """Find, per language, the stopword tokens no other language has.

    Folding them is the costly part of a vote, hence the cache; it is keyed on the lists,
    so a lexicon added later gets its own.
    """
    own = {code: phrase_words(words) for code, words in stopwords}
    return {
        code: words - frozenset().union(*(o for c, o in own.items() if c != code))
        for code, words in own.items()
    }


@lru_cache(maxsize=8)
def _elision_pattern(elisions: tuple[str, ...]) -> re.Pattern[str] | None:
    """Match the elided forms at the start of a word, before a letter, in folded text."""
    if not elisions:
        return None
    forms = sorted({fold_with_origin(e).text.rstrip("'") for e in elisions}, key=len)
    alternatives = "|".join(re.escape(f) for f in reversed(forms))
    return re.compile(rf"(?<![^\W_])(?:{alternatives})'(?=[^\W\d_])")


def detect_language(text: str, *, fallback: str | None = None) -> str:
    """Guesses the language of a short text by a stopword vote.

    Each lexicon scores one point per word found only in its own stopword list (words
    shared by several languages, like "a" or "on", say nothing), one point per elided
    form at the start of a word ("d'autres"), and half a point if the text uses its
    marker characters (French accents). The default wins ties.

    Args:
        text: Any text, typically a user question.
        fallback: The language of a text nothing votes for (a name, one noun): the
            language of the conversation it belongs to, say; None means the default.

    Returns:
        A code of :data:`~threadline.text.lexicons.LEXICONS`, ``"en"`` by default.
    """
    table = lexicons.LEXICONS
    voters = tuple(table.items())
    if len(voters) != len(_VOTERS) or any(
        code != seen_code or lex is not seen
        for (code, lex), (seen_code, seen) in zip(voters, _VOTERS, strict=True)
    ):
        # A lexicon added or replaced (a test, a new language) votes from now on.
        _VOTERS[:] = voters
        _vote.cache_clear()
    return _vote(text) or fallback or lexicons.DEFAULT_LANGUAGE


# The lexicons `_vote`'s remembered results were counted with.
_VOTERS: list[tuple[str, object]] = []


@lru_cache(maxsize=4096)
def _vote(text: str) -> str | None:
    """Return the language `detect_language` finds in a text (None: no vote); remembered.

    A turn votes on each packed passage several times (the evidence check, the offline
    answer's coverage and translation, the answer's framing), and a conversation's turns
    find the same passages again: folding them for the vote was a sixth of a turn's
    time in a profile at 10k chunks. The vote depends on the text and the lexicons
    only; `detect_language` clears this when the lexicons change.
    """
    folded = fold_with_origin(text).text
    lowered = text.casefold()
    table = lexicons.LEXICONS
    exclusive = _exclusive_stopwords(tuple((c, lex.stopwords) for c, lex in table.items()))
    scores: dict[str, float] = {code: 0.0 for code in table}
    for code, lex in table.items():
        pattern = _elision_pattern(lex.elisions)
        if pattern is not None:
            # An elided "d" is not the English "I'd": counted here, then out of the words.
            folded, elided = pattern.subn(" ", folded)
            scores[code] += elided
    found = words(folded)
    for code, lex in table.items():
        scores[code] += sum(1 for w in found if w in exclusive[code])
        if lex.marker_chars and any(ch in lowered for ch in lex.marker_chars):
            scores[code] += 0.5
    best = max(scores.values(), default=0.0)
    default = lexicons.DEFAULT_LANGUAGE
    if best <= 0:
        return None
    if scores.get(default) == best:
        return default
    return next(code for code, score in scores.items() if score == best)
