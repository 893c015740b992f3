"""Folding: one rule for case, accents, ligatures and typographic punctuation.

Everything that compares words (sparse terms, routing patterns, the evidence check,
follow-up phrases) folds text with :func:`fold` first, so "Sécurité", "securite" and
"SÉCURITÉ" are one word everywhere. Folding is language-agnostic on purpose: documents
and queries are analysed independently, often by different processes months apart,
and a word must fold the same way whatever text it appears in.

:func:`fold_with_origin` is the same fold for phrase matching. It adds only what
matching follow-up phrases needs: hyphens and dashes become spaces ("parle-moi" is the
phrase "parle moi"), "n°" reads "no", runs of spaces collapse, and every folded
character remembers where it came from in the original (a capital or an accent there
still decides a few things: "Galaxy S24" is a name, French "à" is not English "a").

Changing :func:`fold` changes the terms of the sparse index, hence the vectors already
stored: collections indexed with the old behaviour would have to be re-indexed.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from functools import lru_cache

__all__ = ["FoldedText", "fold", "fold_with_origin"]

# Letters NFKD does not decompose (they are letters in their own right, not a base letter
# plus a combining mark), mapped to what a user would type on a plain keyboard.
_LIGATURES = str.maketrans(
    {
        "œ": "oe",
        "æ": "ae",
        "ß": "ss",
        "ø": "o",
        "đ": "d",
        "ð": "d",
        "ł": "l",
        "þ": "th",
        "ı": "i",
    }
)

# Typographic apostrophes and quotes (French text is full of U+2019) all become ASCII so
# that elision handling sees a single apostrophe character.
_APOSTROPHES = re.compile("[\u2018\u2019\u201a\u201b\u02bc\u02b9\u00b4\u0060\u2032\uff07]")
_DOUBLE_QUOTES = re.compile("[\u201c\u201d\u201e\u201f\u00ab\u00bb\u2033]")

# What phrase matching folds beyond :func:`fold`: hyphens and dashes to spaces (so
# "parle-moi" and "parle moi" are one phrase) and the degree sign of "n°" to "o".
_PHRASE_MAP = {
    "-": " ",
    "\u2010": " ",
    "\u2011": " ",
    "\u2012": " ",
    "\u2013": " ",
    "\u2014": " ",
    "\u2015": " ",
    "\u2212": " ",
    "\u00b0": "o",
}


# Texts up to this many characters are folded once and remembered: a turn's checks fold
# the same words, names and headings again and again (every catalog name for each
# question, a passage's title and heading for each of its sentences). Longer texts
# (passages, documents) are folded as given, so the cache never holds a document; at
# 16,384 texts it holds about 10 MB at most (a round of the turns benchmark's scripts folds
# 2,180 distinct texts).
_REMEMBERED_LENGTH = 200


def fold(text: str) -> str:
    """Lower-case and strip accents so that spelling variants compare equal.

    Args:
        text: Any text.

    Returns:
        The text lower-cased, with accents removed (é→e, ç→c), ligatures expanded
        (œ→oe, æ→ae), compatibility forms flattened (ﬁ→fi, ²→2) and typographic
        apostrophes/quotes replaced by ``'`` and ``"``.
    """
    if len(text) <= _REMEMBERED_LENGTH:
        return _fold_remembered(text)
    return _fold(text)


@lru_cache(maxsize=16384)
def _fold_remembered(text: str) -> str:
    """:func:`fold` of a short text, remembered (it depends on the text alone)."""
    return _fold(text)


def _fold(text: str) -> str:
    """:func:`fold`'s work."""
    if text.isascii():
        # Nothing to decompose: skipping NFKD gives the same result, much faster.
        text = text.lower()
    else:
        text = text.lower().translate(_LIGATURES)
        text = unicodedata.normalize("NFKD", text)
        text = "".join(ch for ch in text if not unicodedata.combining(ch))
    text = _APOSTROPHES.sub("'", text)
    return _DOUBLE_QUOTES.sub('"', text)


@dataclass(frozen=True)
class FoldedText:
    """A text folded for phrase matching, with the origin of each folded character.

    Attributes:
        text: The folded text (see :func:`fold_with_origin`).
        original: The text as written.
        origin: For each character of ``text``, its index in ``original``.
    """

    text: str
    original: str
    origin: tuple[int, ...]


@lru_cache(maxsize=4096)
def _fold_char(ch: str) -> str:
    """One character folded for phrase matching (cached: texts reuse few characters)."""
    return "".join(_PHRASE_MAP.get(c, c) for c in fold(ch))


def fold_with_origin(text: str) -> FoldedText:
    """Fold a text for phrase matching, keeping a map back to the original.

    Each character is folded by :func:`fold`; hyphens and dashes then become spaces,
    "°" becomes "o" (so "n°" reads "no"), and runs of whitespace collapse to one space,
    with none at either end, so phrases match with single separators.

    Args:
        text: Any text, typically a user question or a lexicon entry.

    Returns:
        The folded text, the original, and the position map between them.
    """
    chars: list[str] = []
    origin: list[int] = []
    for i, ch in enumerate(text):
        for out in _fold_char(ch):
            if out.isspace():
                if not chars or chars[-1] == " ":
                    continue
                out = " "
            chars.append(out)
            origin.append(i)
    while chars and chars[-1] == " ":
        chars.pop()
        origin.pop()
    return FoldedText("".join(chars), text, tuple(origin))
