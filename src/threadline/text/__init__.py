"""Text handling shared by retrieval, follow-up references and routing.

* :mod:`~threadline.text.normalize`: folding (case, accents, ligatures, punctuation).
* :mod:`~threadline.text.tokenize`: tokens, stems, stopwords and the index's terms.
* :mod:`~threadline.text.language`: which language a text is in.
* :mod:`~threadline.text.lexicons`: the words of each language (one module per
  language) and the French-English translation lexicon.

Everything here is deterministic and needs no model.
"""

from threadline.text.language import detect_language
from threadline.text.normalize import FoldedText, fold, fold_with_origin
from threadline.text.tokenize import (
    STOPWORDS,
    french_stem,
    is_stopword,
    stem,
    terms,
    tokenize,
    words,
)

__all__ = [
    "STOPWORDS",
    "FoldedText",
    "detect_language",
    "fold",
    "fold_with_origin",
    "french_stem",
    "is_stopword",
    "stem",
    "terms",
    "tokenize",
    "words",
]
