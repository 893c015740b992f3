"""Query translation through a bilingual lexicon: a French question in English words, and back.

The sparse (BM25) side of retrieval matches words, so a French question finds French
passages only, and an English-only dense model does the same. Translating the
question's salient words gives both a query in the documents' language: "Quelle est la
politique de remboursement ?" searches "policy refund" as well.

The lexicon (`threadline/text/lexicons/fr_en.txt`) is general vocabulary, one entry per
word family or phrase. Words are matched by their folded stems, the French side with
Snowball's French stemmer, the English side with the English one used for indexing
(:func:`threadline.text.tokenize.stem`), so "remboursés" and "rembourser" both find
"remboursement = refund", and phrases win over their words ("ordinateur portable =
laptop"). Function words are dropped; words the lexicon lacks (names, numbers, codes,
words shared by both languages) are kept as they are. Several entries with the same
source give all their translations.

Pure functions over a lexicon loaded once per process.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache

from threadline.text import STOPWORDS, french_stem, stem, tokenize
from threadline.text.lexicons import BILINGUAL_LEXICON_FILE
from threadline.text.lexicons.fr import AUXILIARY_FORMS

__all__ = ["Lexicon", "lexicon", "translate_query"]

_STEMMERS: dict[str, Callable[[str], str]] = {"fr": french_stem, "en": stem}


@dataclass(frozen=True)
class Lexicon:
    """Phrases of one language, as stem tuples, mapped to words of the other."""

    source: str
    target: str
    phrases: dict[tuple[str, ...], tuple[str, ...]]
    longest: int


def _entries() -> list[tuple[str, str]]:
    pairs = []
    for line in BILINGUAL_LEXICON_FILE.read_text(encoding="utf-8").splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            french, _, english = line.partition("=")
            pairs.append((french.strip(), english.strip()))
    return pairs


@lru_cache(maxsize=4)
def lexicon(source: str, target: str) -> Lexicon:
    """Load the lexicon from `source` to `target` ("fr" → "en" or "en" → "fr").

    Raises:
        ValueError: for a pair of languages the lexicon does not hold.
    """
    if {source, target} != {"fr", "en"}:
        raise ValueError(f"no lexicon from {source!r} to {target!r}")
    analyse = _STEMMERS[source]
    phrases: dict[tuple[str, ...], tuple[str, ...]] = {}
    for french, english in _entries():
        text, translation = (french, english) if source == "fr" else (english, french)
        key = tuple(analyse(token) for token in tokenize(text))
        # Output words keep their accents: the dense model reads them as written.
        words = tuple(translation.lower().split())
        if key and words:
            phrases[key] = tuple(dict.fromkeys(phrases.get(key, ()) + words))
    return Lexicon(source, target, phrases, max(len(k) for k in phrases))


def translate_query(text: str, source: str, target: str) -> str:
    """Translate the salient words of a query where the lexicon knows them.

    Args:
        text: The query.
        source: Its language.
        target: The language wanted.

    Returns:
        Distinct words in reading order: translations of the phrases and words the
        lexicon holds (longest phrase first), other non-stopwords as they are. Empty
        when the query has no salient word.
    """
    lex = lexicon(source, target)
    analyse = _STEMMERS[source]
    tokens = tokenize(text)
    stems = [analyse(token) for token in tokens]
    words: list[str] = []
    i = 0
    while i < len(tokens):
        for size in range(min(lex.longest, len(tokens) - i), 0, -1):
            # Auxiliaries carry no topic, but the index's stopwords must not drop them
            # (those decide the indexed terms), so translation skips both.
            if size == 1 and (tokens[i] in STOPWORDS or tokens[i] in AUXILIARY_FORMS):
                continue  # a lone function word is never translated ("or", "plus")
            found = lex.phrases.get(tuple(stems[i : i + size]))
            if found:
                words += found
                i += size
                break
        else:
            if (
                tokens[i] not in STOPWORDS
                and tokens[i] not in AUXILIARY_FORMS
                and len(tokens[i]) > 1
            ):
                words.append(tokens[i])
            i += 1
    return " ".join(dict.fromkeys(words))
