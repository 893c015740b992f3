"""Tokens, stems and stopwords: how text becomes the terms retrieval and keyword logic compare.

Pipeline of :func:`terms` (the sparse index's analyser)::

    fold -> strip elisions / contractions -> tokenize -> drop stopwords -> stem

Two tokenizers, because their callers need different things:

* :func:`tokenize` gives the tokens of the sparse index and every keyword comparison:
  elisions and contractions removed, decimals kept whole ("99,95" → "99.95").
* :func:`words` splits text already folded for phrase matching
  (:func:`threadline.text.normalize.fold_with_origin`) into plain runs of letters and
  digits, keeping elided words ("l", "qu") and "§" as words of their own, with their
  spans: follow-up phrases such as "l'autre" or "§2" are written that way.

Changing anything :func:`terms` depends on changes the sparse vector indices: collections
indexed with the old behaviour must be re-indexed.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Iterable
from functools import lru_cache

import snowballstemmer

from threadline.text.lexicons import en, fr
from threadline.text.normalize import fold, fold_with_origin

__all__ = [
    "STOPWORDS",
    "WORD",
    "french_stem",
    "is_stopword",
    "phrase_words",
    "stem",
    "terms",
    "tokenize",
    "words",
]

# French elisions at the start of a word: l'entreprise, d'un, qu'il, jusqu'au, s'il...
# Only a closed list of prefixes, so "o'neill" or "rock'n'roll" are merely split.
_ELISION = re.compile(r"\b(?:jusqu|lorsqu|puisqu|quoiqu|presqu|qu|[cdjlmnst])'(?=\w)")
# English negation: keep the verb (don't -> do not). Text may also come pre-tokenised the
# Penn Treebank way ("is n't", "ca n't"), hence the optional space and no \b before "n".
_IRREGULAR_NEGATION = re.compile(r"\b(ca|wo|sha) ?n't\b")
_IRREGULAR_VERB = {"ca": "can", "wo": "will", "sha": "shall"}
_NEGATION = re.compile(r"n't\b")
# English possessive and verb contractions ('s, 're, 've, 'll, 'd, 'm): all function words.
_CONTRACTION = re.compile(r"'(?:s|re|ve|ll|d|m)\b")

# A token is a run of letters/digits (no underscore); a number may carry decimals or
# digit groups ("99.95", "1,000", "3.11") as long as a digit follows the separator, so
# a sentence-final "5." or "99.95%" still yields "5" / "99.95". Digits glued to letters
# stay together ("p1", "s24", "a55", "ipv6") because they name things.
_TOKEN = re.compile(r"[^\W_]*\d(?:[.,]\d+)+|[^\W_]+")

WORD = re.compile(r"[^\W_]+|§")
"""A word of phrase-folded text: a run of letters and digits, or "§"."""


def _strip_clitics(folded: str) -> str:
    """Remove French elisions and English contractions from folded text."""
    folded = _IRREGULAR_NEGATION.sub(lambda m: _IRREGULAR_VERB[m[1]] + " not", folded)
    folded = _NEGATION.sub(" not", folded)
    folded = _ELISION.sub("", folded)
    return _CONTRACTION.sub("", folded)


def tokenize(text: str) -> list[str]:
    """Split text into folded word tokens.

    French elisions are removed (``l'entreprise`` → ``entreprise``, ``qu'il`` → ``il``),
    English possessives/contractions dropped (``team's`` → ``team``, ``don't`` →
    ``do``, ``not``), numbers keep their decimals (``99.95%`` → ``99.95``) and
    alphanumerics stay glued (``P1`` → ``p1``), decimal commas become dots (``99,95`` →
    ``99.95``). Hyphens, slashes and other punctuation separate tokens.

    Args:
        text: Any text.

    Returns:
        Tokens in reading order, duplicates kept.
    """
    # French writes decimals with a comma: "99,95" and "99.95" must be the same term.
    return [tok.replace(",", ".") for tok in _TOKEN.findall(_strip_clitics(fold(text)))]


def words(folded: str) -> list[str]:
    """Split phrase-folded text into words (see :data:`WORD`).

    Args:
        folded: Text folded by :func:`threadline.text.normalize.fold_with_origin`.

    Returns:
        The words in reading order; an elided "l'" gives the word "l".
    """
    return WORD.findall(folded)


def phrase_words(phrases: Iterable[str]) -> frozenset[str]:
    """Every word of a list of phrases (lexicon entries), folded for matching.

    Args:
        phrases: Words or phrases as written in a lexicon ("dis-m'en plus", "là").

    Returns:
        The set of their words, folded by
        :func:`~threadline.text.normalize.fold_with_origin` and split by :func:`words`.
    """
    return frozenset(w for p in phrases for w in words(fold_with_origin(p).text))


STOPWORDS: frozenset[str] = en.SEARCH_STOPWORDS | fr.SEARCH_STOPWORDS
"""English and French function words, in folded form (see :func:`fold`): one set for
both languages, because a term must not depend on the language of its text."""


def is_stopword(token: str) -> bool:
    """Tell whether a folded token is an English or French function word.

    Args:
        token: A token as produced by :func:`tokenize` (already folded).

    Returns:
        True if the token carries no retrieval signal on its own.
    """
    return token in STOPWORDS


# Snowball stemmers keep their working string on the instance, so concurrent calls
# (embeddings run in executor threads) must not share one unguarded.
_STEMMER = snowballstemmer.stemmer("english")
_STEMMER_LOCK = threading.Lock()
_FRENCH_STEMMER = snowballstemmer.stemmer("french")
_FRENCH_STEMMER_LOCK = threading.Lock()
# Shortest token a stemmer may touch: shorter ones are mostly acronyms or codes.
_MIN_STEM_LEN = 4


@lru_cache(maxsize=65536)
def stem(token: str) -> str:
    """Reduce a folded token to a stem shared by its inflections, in English and French.

    Snowball English (Porter2) runs on every token whatever its language: it conflates
    English inflections and derivations and, because it strips the -s/-es/-e endings
    French plurals and feminines share with English, French plurals too (``éoliennes``
    and ``éolienne`` → ``eolienn``, ``entreprises`` → ``entrepris``). Two French plural
    forms it does not know are mapped first: ``-eaux`` → ``-eau`` (bureaux) and
    ``-aux`` → ``-al`` (chevaux, nationaux). No language detection on purpose: a word
    must stem the same way in a one-word query and in a long document.

    Tokens shorter than four characters and tokens containing a digit are returned as is
    (acronyms, codes like ``p1``, numbers).

    Args:
        token: A folded token (see :func:`tokenize`).

    Returns:
        The stem (deterministic; equal for the inflected forms of a word).
    """
    if len(token) < _MIN_STEM_LEN or any(ch.isdigit() for ch in token):
        return token
    if token.endswith("eaux"):
        token = token[:-1]
    elif token.endswith("aux") and len(token) > 5:
        token = token[:-2] + "l"
    with _STEMMER_LOCK:
        return _STEMMER.stemWord(token)


@lru_cache(maxsize=65536)
def french_stem(token: str) -> str:
    """Stem a folded token with French Snowball (numbers and short tokens unchanged).

    Only the bilingual lexicon's French side uses it (:mod:`threadline.knowledge.bilingual`);
    the index stems every language with :func:`stem`.

    Args:
        token: A folded token (see :func:`tokenize`).

    Returns:
        The stem.
    """
    if len(token) < _MIN_STEM_LEN or any(ch.isdigit() for ch in token):
        return token
    with _FRENCH_STEMMER_LOCK:
        return _FRENCH_STEMMER.stemWord(token)


def terms(text: str) -> list[str]:
    """Analyse text into the terms used by sparse embeddings and keyword logic.

    Args:
        text: Any text (document chunk or query), English or French.

    Returns:
        Stemmed, folded, non-stopword tokens in reading order, duplicates kept (term
        frequency matters to BM25). A new list each call: callers may change it.
    """
    return list(_analysed(text))


@lru_cache(maxsize=4096)
def _analysed(text: str) -> tuple[str, ...]:
    """`terms` of a text, remembered: a turn reads each packed passage several times.

    The evidence check, the offline answer's sentence scoring and the support check
    each analyse the same passages and sentences, and a conversation's turns find the
    same passages again: analysing them was a tenth of a turn's time in a profile at 10k
    chunks.
    The analysis depends on the text alone (static lexicons and stemmers), so the text
    is the key; bounded, since ingestion analyses every chunk once.
    """
    return tuple(stem(tok) for tok in tokenize(text) if tok not in STOPWORDS)


# Two runs of letters joined by one hyphen ("Wi-Fi", "e-mail", "week-end"); a digit in
# either part makes a code or a range ("COVID-19", "9-5"), no compound.
_HYPHENATED_WORD = re.compile(r"(?<![\w-])([^\W\d_]+)-([^\W\d_]+)(?![\w-])")


def closed_terms(text: str) -> list[str]:
    """Return the terms of the text's hyphenated words written closed ("Wi-Fi" → "wifi").

    A compound is written hyphenated or closed ("Wi-Fi", "wifi"; "e-mail", "email";
    "week-end", "weekend"): :func:`terms` splits the hyphenated form into its parts, so a
    text writing one spelling never held the other's term. Added beside the parts (not
    in their place: "multi-factor" still holds "factor"), the closed form is the term
    both spellings share. A closed form no text writes ("parlemoi") matches nothing.

    Args:
        text: Any text.

    Returns:
        The stemmed closed forms, in reading order, duplicates kept.
    """
    folded = fold(text)
    return [t for m in _HYPHENATED_WORD.finditer(folded) for t in terms(m[1] + m[2])]
