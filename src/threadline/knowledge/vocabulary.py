"""The index's vocabulary: the terms its chunks hold, to read a query's spelling against.

The sparse index hashes terms (`threadline.knowledge.sparse.term_index`) and keeps no
list of them, so a query word no chunk holds ("fone") was simply missed, and a compound
typed with a space ("wi fi", "e mail") never met its closed form ("wifi", the term
"Wi-Fi" also holds). A `Vocabulary` holds what the sparse analyser produced for a
tenant's chunks (:func:`document_terms`), with each term's document frequency (how many
chunks hold it), and reads a query against it (:meth:`Vocabulary.spelling_fixes`):

* a word no chunk holds, one edit from one known term (the same first letter; "ph"
  read as "f": "fone" is "phone"; two edits found "telephoto" for "téléphnoe"), or
  from one far more frequent than the others as close, is also searched as that term,
  and the evidence check and the answer read it so;
* two adjacent words whose concatenation is a known term and a word ("e mail" →
  "email"), or two fragments that are no words ("wi fi" → "wifi"), are also searched
  closed.

Conservative on purpose: a word of four letters or more only, never one with a digit
(numbers, ids, product codes), written in capitals past its first letter (acronyms,
"iPhone"), capitalised within the sentence (a name), an English dictionary word or a
word of the French lexicon (a real word the documents do not use is no typo).

The fuzzy lookup is `rapidfuzz`'s (optimal string alignment distance: a swap of two
letters, "telephnoe", is one edit), over the terms sharing the word's first letter.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import cached_property

from rapidfuzz import process
from rapidfuzz.distance import OSA

from threadline.text import fold, terms
from threadline.text.language import detect_language
from threadline.text.lexicons import fr
from threadline.text.matching import is_dictionary_word
from threadline.text.tokenize import closed_terms, is_stopword, stem

__all__ = ["SpellingFix", "Vocabulary", "document_terms"]

MIN_WORD_LENGTH = 4
"""Shorter words are not corrected: too many terms lie one edit away from them."""
DOMINANCE = 10
"""A candidate this many times more frequent than the next as close one wins the tie."""

_WORD = re.compile(r"[^\W_]+")
_APOSTROPHE = re.compile(r"['’]")
# A French elision before an apostrophe ("d'", "l'", "qu'"): the word after it is whole.
_ELIDED = re.compile(r"(?:^|[^\w])(?:[cdjlmnst]|qu|jusqu|lorsqu|puisqu)['’]$", re.I)
# English and French write the sound /f/ "ph" ("phone", "téléphone"); an asker may not.
_SPELLING_KEY = (("ph", "f"),)


_VOWELS = frozenset("aeiouy")
# Rows of the QWERTY and AZERTY keyboards: keys side by side on a row, or on the rows
# above and below at the same or the next place, are neighbours.
_ROWS = (("qwertyuiop", "asdfghjkl", "zxcvbnm"), ("azertyuiop", "qsdfghjklm", "wxcvbn"))


def _neighbour_keys() -> frozenset[tuple[str, str]]:
    pairs: set[tuple[str, str]] = set()
    for rows in _ROWS:
        for r, row in enumerate(rows):
            for i, key in enumerate(row):
                near = {row[j] for j in (i - 1, i + 1) if 0 <= j < len(row)}
                for other in (rows[r - 1] if r else "", rows[r + 1] if r + 1 < len(rows) else ""):
                    near |= {other[j] for j in (i - 1, i, i + 1) if 0 <= j < len(other)}
                pairs |= {(key, n) for n in near} | {(n, key) for n in near}
    return frozenset(pairs)


_NEIGHBOURS = _neighbour_keys()


def _slip(typed: str, known: str) -> bool:
    """Whether a one-edit difference is a typing slip.

    Any edit is, but a letter substituted for one that is neither a vowel for a vowel
    nor a neighbouring key.
    """
    if len(typed) != len(known):
        return True
    differing = [(a, b) for a, b in zip(typed, known, strict=True) if a != b]
    if len(differing) != 1:
        return True  # two letters swapped, or the same word
    a, b = differing[0]
    return (a in _VOWELS and b in _VOWELS) or (a, b) in _NEIGHBOURS


def _key(term: str) -> str:
    """Return the form two spellings are compared in ("phone" and "fone": "fone")."""
    for written, read in _SPELLING_KEY:
        term = term.replace(written, read)
    return term


def document_terms(texts: Iterable[str]) -> Counter[str]:
    """Count, for each term, how many of the texts hold it (the sparse analyser's terms).

    Args:
        texts: The texts the sparse index embedded (a document's chunks).

    Returns:
        Term -> number of texts holding it: the terms and closed compound forms
        `Bm25SparseEmbeddings` writes into a document vector.
    """
    counts: Counter[str] = Counter()
    for text in texts:
        counts.update(set(terms(text)) | set(closed_terms(text)))
    return counts


@dataclass(frozen=True)
class SpellingFix:
    """One spelling of a query read against the vocabulary.

    Attributes:
        start: Where the words replaced begin in the query.
        end: Where they end.
        written: The words as typed ("fone", "wi fi").
        word: The known spelling ("phone", "wifi"), a word the analyser reads as its term.
        searched: What retrieval adds to the query for it, when not `word`: the index's
            term a misspelt word was read as ("warranti" for "warrenty", written
            "warranty"), as retrieval has always searched it.
    """

    start: int
    end: int
    written: str
    word: str
    searched: str = ""


class Vocabulary:
    """A tenant's indexed terms with their document frequencies.

    Args:
        frequencies: Term -> number of chunks holding it.
    """

    def __init__(self, frequencies: Mapping[str, int]) -> None:
        """Keep the frequencies (terms held by no chunk are dropped)."""
        self._df = {term: n for term, n in frequencies.items() if n > 0}

    def __contains__(self, term: object) -> bool:
        """Whether some chunk holds the term."""
        return term in self._df

    def __len__(self) -> int:
        """How many distinct terms the chunks hold."""
        return len(self._df)

    def frequencies(self) -> dict[str, int]:
        """Every term with how many chunks hold it (a copy)."""
        return dict(self._df)

    def frequency(self, term: str) -> int:
        """How many chunks hold the term (0 when none does)."""
        return self._df.get(term, 0)

    @cached_property
    def _by_first_letter(self) -> dict[str, tuple[list[str], list[str]]]:
        """Per first letter of the spelling key: the keys, and the term of each."""
        grouped: defaultdict[str, tuple[list[str], list[str]]] = defaultdict(lambda: ([], []))
        for term in self._df:
            if len(term) < MIN_WORD_LENGTH - 1 or not term.isalpha():
                continue
            key = _key(term)
            keys, owners = grouped[key[0]]
            keys.append(key)
            owners.append(term)
        return dict(grouped)

    def correction(self, term: str) -> str | None:
        """Return the known term a term absent from the vocabulary is a misspelling of.

        Args:
            term: A query term (folded and stemmed), absent from the vocabulary.

        Returns:
            The one known term one edit from it (the same first letter, "ph" read as
            "f", a swap of two letters one edit), or the far most frequent of those;
            None when there is none or no clear one.
        """
        if term in self._df or len(term) < MIN_WORD_LENGTH - 1 or not term.isalpha():
            return None
        key = _key(term)
        group = self._by_first_letter.get(key[0])
        if group is None:
            return None
        keys, owners = group
        found = process.extract(key, keys, scorer=OSA.distance, score_cutoff=1, limit=None)
        if not found:
            return None
        # A letter typed for another is a slip of a neighbouring key or of a vowel
        # ("bevarage"); "degression" is no slip for "depression" (g and p are far
        # apart), though one edit from it.
        found = [f for f in found if _slip(key, f[0])]
        if not found:
            return None
        nearest = min(distance for _, distance, _ in found)
        candidates = sorted(
            {owners[i] for _, distance, i in found if distance == nearest},
            key=lambda t: (-self._df[t], t),
        )
        if len(candidates) == 1:
            return candidates[0]
        top, second = self._df[candidates[0]], self._df[candidates[1]]
        return candidates[0] if top >= DOMINANCE * second else None

    def spelling_fixes(self, text: str) -> list[SpellingFix]:
        """Return the words of a query the index spells otherwise, in reading order.

        Args:
            text: A query or question as typed.

        Returns:
            Misspelt words with their correction, and spaced compounds with their closed
            form; empty when every word is spelt as the index spells it.
        """
        # A word against an apostrophe is part of an elision or contraction ("doesn't",
        # "l'achat"), which the analyser reads whole: no word to correct.
        # The word after a French elision ("d'afaires") is a word of its own.
        words = [
            (m.start(), m.end(), m[0])
            for m in _WORD.finditer(text)
            if not _APOSTROPHE.match(text, m.end())
            and (not text[: m.start()].endswith(("'", "’")) or _ELIDED.search(text[: m.start()]))
        ]
        french = detect_language(text) == "fr"
        fixes: list[SpellingFix] = []
        negations: list[tuple[int, int, str]] = []
        if french:
            # "le SLA n'est pas respecté" is read "manquer" (missed), as query translation
            # reads it (`bilingual.negated_verbs`).
            from threadline.knowledge.bilingual import negated_verbs

            negations = negated_verbs(text)
        skip_until = -1
        for i, (start, end, word) in enumerate(words):
            if start < skip_until:
                continue
            negation = next((n for n in negations if n[0] <= start < n[1]), None)
            if negation is not None:
                fixes.append(
                    SpellingFix(negation[0], negation[1], text[slice(*negation[:2])], negation[2])
                )
                skip_until = negation[1]
                continue
            if i + 1 < len(words):
                closed = self._closed(word, words[i + 1][2], text[end : words[i + 1][0]])
                if closed is not None:
                    fixes.append(
                        SpellingFix(start, words[i + 1][1], text[start : words[i + 1][1]], closed)
                    )
                    skip_until = words[i + 1][1]
                    continue
            first = i == 0 or _sentence_starts(text, start)
            if french and word in fr.ACRONYMS and self._spelt_out(word):
                # "la part du CA": an acronym the documents do not write is read as the
                # words it stands for (`fr.ACRONYMS`) where they write those.
                fixes.append(SpellingFix(start, end, word, fr.ACRONYMS[word]))
                continue
            if french and (word.islower() or first):
                # "mon téléphone pro", "mon mdp": a clipping is read as its words, as
                # query translation reads it (not after a model number: "pixel 8 pro").
                from threadline.knowledge.bilingual import clipped_word

                before = fold(words[i - 1][2]) if i else ""
                if (whole := clipped_word(fold(word), before)) is not None:
                    fixes.append(SpellingFix(start, end, word, " ".join(whole)))
                    continue
            corrected = self._corrected_word(word, first=first, french=french)
            if corrected is not None:
                written = _written_as_a_word(fold(word), corrected)
                fixes.append(SpellingFix(start, end, word, written, searched=corrected))
        return fixes

    def _spelt_out(self, acronym: str) -> bool:
        """Whether the index writes an acronym's words but not the acronym itself.

        Where it writes neither ("le PDG" over documents naming no executive), the
        acronym is left as typed: a decline naming it says more than one naming its words.
        """
        if any(t in self._df for t in terms(acronym)):
            return False
        words = [t for t in terms(fr.ACRONYMS[acronym]) if not is_stopword(t)]
        return bool(words) and all(t in self._df for t in words)

    def _closed(self, first: str, second: str, between: str) -> str | None:
        """Return the closed form of two adjacent words the index holds ("wi fi" → "wifi")."""
        if between.strip() or not (first.isalpha() and second.isalpha()):
            return None
        if any(c.isupper() for c in first[1:] + second[1:]) or second[0].isupper():
            return None  # an acronym ("IBM Cloud"), a name ("San Bruno")
        left, right = fold(first), fold(second)
        if is_stopword(left) or is_stopword(right):
            return None
        closed = left + right
        analysed = terms(closed)
        if len(analysed) != 1 or analysed[0] not in self._df:
            return None
        # A compound is a word ("email", "weekend") or made of fragments that are none
        # ("wi fi"); two words that are words are two words, even when a web address
        # or a tag of the documents writes them closed ("identity theft", "real estate").
        if is_dictionary_word(closed):
            return closed
        fragments = not (is_dictionary_word(left) or is_dictionary_word(right))
        return closed if fragments and analysed[0] == closed else None

    def _corrected_word(self, word: str, *, first: bool, french: bool = False) -> str | None:
        """Return the known spelling of a misspelt word, or None (see the module docstring).

        In a French question, a word no indexed term is one edit from may be a misspelt
        word of the lexicon (`bilingual.french_spelling`): over English documents,
        "remboursment" is read "remboursement", which the evidence check translates.
        """
        if len(word) < MIN_WORD_LENGTH or not word.isalpha() or any(c.isupper() for c in word[1:]):
            return None
        if word[0].isupper() and not first:
            return None  # a name
        folded = fold(word)
        if is_stopword(folded):
            return None
        term = stem(folded)
        if term in self._df or is_dictionary_word(folded):
            return None
        if not _french_word(folded):
            corrected = self.correction(term)
            # The term must be written as a word the analyser reads back as that term.
            if corrected is not None and terms(corrected) == [corrected]:
                return corrected
        if not french:
            return None
        from threadline.knowledge.bilingual import french_spelling

        return french_spelling(folded)

    def searched_with_fixes(self, text: str) -> str:
        """Return the query as typed followed by the known spellings of its misspelt words."""
        fixes = self.spelling_fixes(text)
        if not fixes:
            return text
        return " ".join([text, *(fix.searched or fix.word for fix in fixes)])

    def respelt(self, text: str) -> str:
        """Return the text with its misspelt words and compounds written as the index does."""
        out, last = [], 0
        for fix in self.spelling_fixes(text):
            out.append(text[last : fix.start])
            out.append(fix.word)
            last = fix.end
        out.append(text[last:])
        return "".join(out)


_LETTERS = "abcdefghijklmnopqrstuvwxyz"


def _written_as_a_word(typed: str, corrected: str) -> str:
    """Return the word one edit from the typed one that the corrected term stems from.

    The index's terms are stems: "warrenty" is "warranti" to it, which no reader writes
    (a question back quoted « the warranti »); the word is "warranty". The stem itself
    when no dictionary word one edit away reads back as it.
    """
    splits = [(typed[:i], typed[i:]) for i in range(len(typed) + 1)]
    edits = [
        *(a + b[1:] for a, b in splits if b),
        *(a + b[1] + b[0] + b[2:] for a, b in splits if len(b) > 1),
        *(a + c + b[1:] for a, b in splits if b for c in _LETTERS),
        *(a + c + b for a, b in splits for c in _LETTERS),
    ]
    for word in dict.fromkeys(edits):
        if is_dictionary_word(word) and terms(word) == [corrected]:
            return word
    return corrected


def _sentence_starts(text: str, start: int) -> bool:
    """Whether a word at `start` opens a sentence (a capital there is no name)."""
    before = text[:start].rstrip()
    return not before or before[-1] in '.!?:«"“('


def _french_word(folded: str) -> bool:
    """Whether French knows the word: a function word, an auxiliary, a lexicon entry.

    The lexicon leaves out the auxiliaries and function words ("dois", "doit"), which
    the index keeps as terms: they were read as typos of English terms ("doc", "dot").
    """
    from threadline.knowledge.bilingual import lexicon

    if folded in fr.AUXILIARY_FORMS or folded in fr.FUNCTION_WORDS:
        return True
    return lexicon("fr", "en").lookup((folded,), (stem(folded),)) is not None
