"""Former home of text normalisation, now :mod:`threadline.text`; kept as a re-export.

The offline extractive model (``models/extractive.py``) and the catalog
(``knowledge/catalog.py``) still import ``fold`` and ``terms`` from here; new code
imports :mod:`threadline.text`.
"""

from threadline.text import STOPWORDS, fold, is_stopword, stem, terms, tokenize

__all__ = ["STOPWORDS", "fold", "is_stopword", "stem", "terms", "tokenize"]
