"""Language data: one module per language, plus the French-English translation lexicon.

* :mod:`~threadline.text.lexicons.en`, :mod:`~threadline.text.lexicons.fr`: each
  language's stopwords and follow-up lexicon (and the word lists routing, reformulation
  and the evidence check use).
* ``fr_en.txt``: the bilingual lexicon of query translation
  (:mod:`threadline.knowledge.bilingual`), shipped as package data.

Supporting a third language means adding its module and one entry in
:data:`LEXICONS`.
"""

from __future__ import annotations

from pathlib import Path

from threadline.text.lexicons import en, fr
from threadline.text.lexicons.base import Lexicon

__all__ = [
    "BILINGUAL_LEXICON_FILE",
    "BILINGUAL_LEXICON_FILES",
    "DEFAULT_LANGUAGE",
    "LEXICONS",
    "Lexicon",
]

DEFAULT_LANGUAGE = "en"
"""Language assumed when nothing in a text points to another one."""

LEXICONS: dict[str, Lexicon] = {
    en.FOLLOWUPS.code: en.FOLLOWUPS,
    fr.FOLLOWUPS.code: fr.FOLLOWUPS,
}
"""Every supported language's follow-up lexicon, by code."""

BILINGUAL_LEXICON_FILE = Path(__file__).with_name("fr_en.txt")
"""The hand-curated core of the French-English lexicon, one ``french = english`` per line."""

BILINGUAL_LEXICON_FILES: tuple[Path, ...] = (
    BILINGUAL_LEXICON_FILE,
    Path(__file__).with_name("fr_en_phrases.txt"),
    Path(__file__).with_name("fr_en_general.txt"),
)
"""Every file of the French-English lexicon, most authoritative first (see
:func:`threadline.knowledge.bilingual.lexicon`)."""
