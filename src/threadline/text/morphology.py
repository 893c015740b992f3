"""French-English morphology for query translation: English twins by suffix, degrees.

Rules of the two languages' word formation, not lists of their words:

* :func:`english_cognate`: a learned French word the bilingual lexicon lacks often has an
  English twin that differs by a regular suffix ("infertilité" / "infertility",
  "fluviaux" / "fluvial", "dangereux" / "dangerous").
* :func:`degree`: "plus grand" is "larger" and "le plus grand" "largest"; the index's
  stemmer keeps "largest" apart from "large", so a translation writes the degree the way
  English passages do. :func:`gradable_senses`: a degree grades an adjective or an
  adverb, so a word's noun and verb senses ("pratique" = practice) take no part in it.

Pure functions over folded words (see :func:`threadline.text.normalize.fold`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import lemminflect

__all__ = ["degree", "english_cognate", "gradable_senses"]

# French suffix (folded, singular masculine) and the English one it regularly answers,
# longest first. Plurals and feminines are reduced before (see `_base_form`).
_COGNATE_SUFFIXES = (
    ("ologie", "ology"),
    ("graphie", "graphy"),
    ("onnel", "onal"),  # professionnel, exceptionnel
    ("iel", "ial"),  # essentiel, potentiel
    ("ique", "ic"),  # atmosphérique; English stems join -ic and -ical
    ("isme", "ism"),
    ("iste", "ist"),
    ("ite", "ity"),  # infertilité, viabilité
    ("eux", "ous"),  # dangereux
    ("if", "ive"),  # restrictif
    ("al", "al"),  # fluvial (after the -aux plural is undone)
)

# Shortest French word a suffix rule applies to: shorter ones are mostly other words
# with the same ending ("site", "suite").
_MIN_COGNATE_LENGTH = 7


def _base_form(word: str) -> str:
    """Undo the regular plural and feminine of a folded French adjective or noun."""
    if word.endswith("aux") and not word.endswith("eaux"):
        return word[:-3] + "al"
    if word.endswith("s") and not word.endswith("ss"):
        word = word[:-1]
    for feminine, masculine in (("euse", "eux"), ("ive", "if"), ("elle", "el")):
        if word.endswith(feminine):
            return word[: -len(feminine)] + masculine
    return word


def english_cognate(word: str) -> str | None:
    """Return the English twin of a folded French word by its suffix, else None.

    Args:
        word: A folded French word the bilingual lexicon does not hold.

    Returns:
        The English word the regular suffix correspondence gives ("infertilite" →
        "infertility", "fluviaux" → "fluvial", "dangereuses" → "dangerous"), or None
        when the word has no such suffix or is too short to trust one.
    """
    if len(word) < _MIN_COGNATE_LENGTH or not word.isalpha():
        return None
    base = _base_form(word)
    for french, english in _COGNATE_SUFFIXES:
        if base.endswith(french):
            return base[: -len(french)] + english
    return None


# English adjectives whose degrees are other words.
_IRREGULAR_DEGREES = {
    "good": ("better", "best"),
    "best": ("better", "best"),
    "well": ("better", "best"),
    "bad": ("worse", "worst"),
    "worst": ("worse", "worst"),
    "far": ("further", "furthest"),
    "little": ("less", "least"),
    "much": ("more", "most"),
    "many": ("more", "most"),
}
_VOWEL_GROUP = re.compile(r"[aeiouy]+")


def _syllables(word: str) -> int:
    """Count the vowel groups of an English word, a final silent e left out."""
    spoken = word[:-1] if word.endswith("e") and not word.endswith(("ee", "le")) else word
    return max(1, len(_VOWEL_GROUP.findall(spoken)))


def _inflected(word: str, ending: str) -> str | None:
    """Return the -er / -est form of a short English adjective, else None (more / most)."""
    if not word.isalpha() or not word.islower():
        return None
    syllables = _syllables(word)
    if syllables == 2 and word.endswith("y") and word[-2] not in "aeiou":
        return word[:-1] + "i" + ending  # easy, easiest
    if syllables != 1:
        return None
    if word.endswith("e"):
        return word + ending[1:]  # large, largest
    if (
        len(word) >= 3
        and word[-1] not in "aeiouwxy"
        and word[-2] in "aeiou"
        and word[-3] not in "aeiou"
    ):
        return word + word[-1] + ending  # big, biggest
    return word + ending


def degree(word: str, *, superlative: bool) -> str:
    """Return the comparative or superlative of an English adjective.

    Args:
        word: An English adjective or adverb, lower case ("large", "popular", "good").
        superlative: The superlative ("largest") rather than the comparative ("larger").

    Returns:
        The irregular form ("better", "best"), the -er / -est form of a word of one
        syllable (or two ending in -y), else "more" / "most" and the word.
    """
    if word in _IRREGULAR_DEGREES:
        return _IRREGULAR_DEGREES[word][int(superlative)]
    inflected = _inflected(word, "est" if superlative else "er")
    if inflected:
        return inflected
    return f"{'most' if superlative else 'more'} {word}"


def gradable_senses(senses: Sequence[str]) -> tuple[str, ...]:
    """Return the senses of a graded word that English uses as adjectives or adverbs.

    "le plus pratique" grades the adjective: of "pratique = practice practical", only
    "practical" is "most practical"; "most practice" is no English a passage writes.
    Parts of speech come from `lemminflect`'s English lemma table (dictionary entries
    only); a phrase or a word it does not hold is kept.

    Args:
        senses: The English senses of the French word in the degree.

    Returns:
        The senses that can be adjectives or adverbs, in order; all of them when none
        can (the table does not know the word, or the lexicon holds no adjective sense).
    """
    gradable = tuple(
        sense
        for sense in senses
        if " " in sense
        or not (parts := lemminflect.getAllLemmas(sense))
        or "ADJ" in parts
        or "ADV" in parts
    )
    return gradable or tuple(senses)
