"""Which language a text is in, by a vote of the words only one language uses.

No model and no n-gram profile: short questions ("et pour 2023 ?", "what about P2?")
give a statistical detector too little, while one French function word settles them.
The vote uses the stopwords of each follow-up lexicon
(:data:`threadline.text.lexicons.LEXICONS`), so a language added there takes part.
"""

from __future__ import annotations

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


def detect_language(text: str) -> str:
    """Guesses the language of a short text by a stopword vote.

    Each lexicon scores one point per word found only in its own stopword list (words
    shared by several languages, like "a" or "on", say nothing) and half a point if the
    text uses its marker characters (French accents). The default wins ties and empty
    votes.

    Args:
        text: Any text, typically a user question.

    Returns:
        A code of :data:`~threadline.text.lexicons.LEXICONS`, ``"en"`` by default.
    """
    found = words(fold_with_origin(text).text)
    lowered = text.casefold()
    table = lexicons.LEXICONS
    exclusive = _exclusive_stopwords(tuple((c, lex.stopwords) for c, lex in table.items()))
    scores: dict[str, float] = {}
    for code, lex in table.items():
        score = float(sum(1 for w in found if w in exclusive[code]))
        if lex.marker_chars and any(ch in lowered for ch in lex.marker_chars):
            score += 0.5
        scores[code] = score
    best = max(scores.values(), default=0.0)
    default = lexicons.DEFAULT_LANGUAGE
    if best <= 0 or scores.get(default) == best:
        return default
    return next(code for code, score in scores.items() if score == best)
