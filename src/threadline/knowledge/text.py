"""Text normalisation shared by retrieval code (sparse embeddings, keyword logic).

Everything here is deterministic and language-agnostic between English and French: the
same word always maps to the same term whatever text it appears in, because documents
and queries are analysed independently (often by different processes, months apart) and
a term that depends on its context would silently stop matching.

Pipeline used by :func:`terms`::

    fold -> strip elisions / contractions -> tokenize -> drop stopwords -> stem

Changing anything in this module changes the terms, hence the sparse vector indices:
collections indexed with the old behaviour must be re-indexed.
"""

from __future__ import annotations

import re
import threading
import unicodedata
from functools import lru_cache

import snowballstemmer

__all__ = [
    "STOPWORDS",
    "fold",
    "is_stopword",
    "stem",
    "terms",
    "tokenize",
]

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


def fold(text: str) -> str:
    """Lower-case and strip accents so that spelling variants compare equal.

    Args:
        text: Any text.

    Returns:
        The text lower-cased, with accents removed (é→e, ç→c), ligatures expanded
        (œ→oe, æ→ae), compatibility forms flattened (ﬁ→fi, ²→2) and typographic
        apostrophes/quotes replaced by ``'`` and ``"``.
    """
    if text.isascii():
        # Nothing to decompose: skipping NFKD gives the same result, much faster.
        text = text.lower()
    else:
        text = text.lower().translate(_LIGATURES)
        text = unicodedata.normalize("NFKD", text)
        text = "".join(ch for ch in text if not unicodedata.combining(ch))
    text = _APOSTROPHES.sub("'", text)
    return _DOUBLE_QUOTES.sub('"', text)


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


_ENGLISH_STOPWORDS = """
a about above after again against all also am among an and another any are around as at
be because been before being below between both but by can cannot could did do does doing
down during each either else etc ever every few for from further had has have having he her
here hers herself him himself his how however i if in into is it its itself just me might
more most must my myself neither no nor not now of off on once only onto or other others
ought our ours ourselves out over own same shall she should since so some such than that the
their theirs them themselves then there therefore these they this those though through thus
to too toward towards under unless until up upon very was we were what whatever when
whenever where whereas wherever whether which while who whoever whom whose why will with
within without would yet you your yours yourself yourselves
s t d ll m re ve
"""

# Deliberately absent because the folded French form is an English content word (or an
# acronym) that retrieval must keep: "son", "ton", "car", "plus", "ai" (AI), "eu" (EU),
# "ca" (ça / CA certificate), "es", "bien", "non".
_FRENCH_STOPWORDS = """
a au aux avec ce ceci cela celle celles celui ces cet cette ceux chaque chez combien comme
comment dans de depuis des donc dont du elle elles en encore entre et etaient etait etant
eux il ils je la laquelle le lequel les lesquelles lesquels leur leurs lors lorsque lui ma
mais me meme mes moi mon ne ni nos notre nous on ont or ou par parce pas pendant pour
pourquoi puis puisque qu quand que quel quelle quelles quels qui quoi sa sans se selon ses
si sont sous suis sur ta te tes toi tous tout toute toutes tres tu un une vers vos votre
vous y
avait avaient avez avoir avons aura auront aurait ete etre sera seront serait sommes etes fut
jusqu lorsqu puisqu quoiqu c j l n
"""

STOPWORDS: frozenset[str] = frozenset((_ENGLISH_STOPWORDS + _FRENCH_STOPWORDS).split())
"""English and French function words, in folded form (see :func:`fold`)."""


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
# Shortest token the stemmer may touch: shorter ones are mostly acronyms or codes.
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


def terms(text: str) -> list[str]:
    """Analyse text into the terms used by sparse embeddings and keyword logic.

    Args:
        text: Any text (document chunk or query), English or French.

    Returns:
        Stemmed, folded, non-stopword tokens in reading order, duplicates kept (term
        frequency matters to BM25).
    """
    return [stem(tok) for tok in tokenize(text) if tok not in STOPWORDS]
