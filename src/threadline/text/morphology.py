"""French-English morphology for query translation: English twins of French words by suffix.

A learned French word the bilingual lexicon lacks often has an English twin that differs
by a regular suffix ("infertilité" / "infertility", "fluviaux" / "fluvial", "dangereux"
/ "dangerous"). These are rules of the two languages' word formation, not lists of
their words.

Pure functions over folded words (see :func:`threadline.text.normalize.fold`).
"""

from __future__ import annotations

__all__ = ["english_cognate"]

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
