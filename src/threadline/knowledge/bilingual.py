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

Pure functions over a lexicon loaded once per process. Over 400 lines: the lexicon's
loading and its lookups (form, singular, masculine, stem) are one reading of the files,
used by queries, passages and content words alike; the grammar rules that are not lookups
live in `threadline.text.morphology`.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

from rapidfuzz import process
from rapidfuzz.distance import OSA

from threadline.text import STOPWORDS, fold, french_stem, stem, tokenize
from threadline.text.lexicons import BILINGUAL_LEXICON_FILES
from threadline.text.lexicons.en import IRREGULAR_PLURALS
from threadline.text.lexicons.fr import (
    AUXILIARY_FORMS,
    CLIPPED_NOUNS,
    CLIPPED_WORDS,
    DEFINITE_DETERMINERS,
    FUNCTION_WORDS,
    MANAGING_VERBS,
    NEGATED_VERBS,
    NEGATION_ADVERBS,
    NOUN_DETERMINERS,
    OBJECT_PRONOUNS,
    SYNTHETIC_COMPARATIVES,
)
from threadline.text.matching import is_dictionary_word
from threadline.text.morphology import degree, english_cognate, gradable_senses

__all__ = [
    "Lexicon",
    "content_words",
    "french_spelling",
    "lexicon",
    "lexicon_phrases",
    "preload_lexicons",
    "translate_query",
    "translate_vocabulary",
]

_STEMMERS: dict[str, Callable[[str], str]] = {"fr": french_stem, "en": stem}

# Words translation never keeps as typed: function words and auxiliaries of either
# language, and the French function words the index keeps (they are not English words).
_SKIPPED: dict[str, frozenset[str]] = {
    "fr": STOPWORDS | AUXILIARY_FORMS | FUNCTION_WORDS,
    "en": STOPWORDS | AUXILIARY_FORMS,
}


@dataclass(frozen=True)
class Lexicon:
    """Phrases of one language mapped to words of the other, by written form and by stem.

    Attributes:
        source: The language of the keys.
        target: The language of the translations.
        forms: Phrases as folded token tuples (the words as written, accents folded).
        phrases: Phrases as stem tuples: the fallback for inflections the lexicon does not
            list ("remboursés" finds "remboursement").
        longest: The most tokens of any key.
        bare: Phrases as the stems of their content words alone ("mettre à jour" as
            "mettr jour"), for text that lost its function words: the salient words a
            follow-up carries from the previous query are kept without them, and
            "(mettre jour)" is still "update", not "put day".
    """

    source: str
    target: str
    forms: dict[tuple[str, ...], tuple[str, ...]]
    phrases: dict[tuple[str, ...], tuple[str, ...]]
    longest: int
    bare: dict[tuple[str, ...], tuple[str, ...]] = field(default_factory=dict)

    def lookup(self, tokens: Sequence[str], stems: Sequence[str]) -> tuple[str, ...] | None:
        """Return the translation of a phrase: its written form, its singular, its stems.

        The stem comes last because a stem is shared by word families the written form
        tells apart ("navigables", "navigateur"); the singular in between finds the entry
        of a word written in the plural ("parles", "parle") before the stem does.
        """
        return self.lookup_form(tokens) or self.phrases.get(tuple(stems))

    def lookup_form(self, tokens: Sequence[str]) -> tuple[str, ...] | None:
        """Return the translation of a phrase by its written form, singular or masculine.

        The lexicon lists a French noun or adjective under its masculine form
        ("donneur = donor"): a lone feminine word the lexicon lacks ("donneuse") is read
        as its masculine before any stem, whose family may be another one.
        """
        found = self.forms.get(tuple(tokens)) or self.forms.get(
            tuple(_singular(token) for token in tokens)
        )
        if found is None and self.source == "fr" and len(tokens) == 1:
            masculine = _masculine(tokens[0])
            found = self.forms.get((masculine,)) if masculine else None
        if found is None and self.source == "en":
            # The lexicon lists "woman", and no -s ending tells "women" is its plural.
            found = self.forms.get(tuple(_IRREGULAR_SINGULARS.get(t, t) for t in tokens))
        return found


# English irregular plurals and their singular, the form the lexicon lists.
_IRREGULAR_SINGULARS = {plural: singular for singular, plural in IRREGULAR_PLURALS.items()}


def _singular(token: str) -> str:
    """Drop a plural ending (-s, -x; -aux is -al) from a folded word of over three letters."""
    if len(token) > 5 and token.endswith("aux") and not token.endswith("eaux"):
        return token[:-3] + "al"  # journaux, nationaux
    return token[:-1] if len(token) > 3 and token[-1] in "sx" else token


def _is_plural(token: str, lex: Lexicon) -> bool:
    """Tell whether a folded French word is a plural: its singular differs and is not it."""
    return _singular(token) != token and (token,) not in lex.forms


# French feminine endings (accents folded, plural first) and their masculine: the regular
# agreement of nouns and adjectives (donneuse/donneur, active/actif, boursière/boursier).
_FEMININE_ENDINGS = (
    ("euses", "eur"),
    ("euse", "eur"),
    ("rices", "eur"),
    ("rice", "eur"),
    ("eures", "eur"),
    ("eure", "eur"),
    ("ives", "if"),
    ("ive", "if"),
    ("elles", "el"),
    ("elle", "el"),
    ("ennes", "en"),
    ("enne", "en"),
    ("eres", "er"),
    ("ere", "er"),
    ("ees", "e"),
    ("ee", "e"),
    # The regular feminine adds -e to the masculine (courant/courante, prochain/prochaine,
    # connu/connue): the endings where that -e follows an adjective's or a participle's
    # ending, so a noun that merely ends in -e is not cut ("vente" is no "vent").
    ("onnes", "on"),
    ("onne", "on"),
    ("antes", "ant"),
    ("ante", "ant"),
    ("entes", "ent"),
    ("ente", "ent"),
    ("aines", "ain"),
    ("aine", "ain"),
    ("aises", "ais"),
    ("aise", "ais"),
    ("ettes", "et"),
    ("ette", "et"),
    ("etes", "et"),
    ("ete", "et"),
    ("ues", "u"),
    ("ue", "u"),
    ("ndes", "nd"),
    ("nde", "nd"),
    ("audes", "aud"),
    ("aude", "aud"),
)


def _masculine(token: str) -> str | None:
    """Return the masculine of a folded French word with a feminine ending, else None."""
    for ending, masculine in _FEMININE_ENDINGS:
        if token.endswith(ending) and len(token) > len(ending) + 2:
            return token[: -len(ending)] + masculine
    return None


def _entries(path: Path) -> list[tuple[str, str]]:
    pairs = []
    for line in path.read_text(encoding="utf-8").splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            french, _, english = line.partition("=")
            pairs.append((french.strip(), english.strip()))
    return pairs


def _index(
    keyed: list[tuple[tuple[str, ...], tuple[str, ...]]],
) -> dict[tuple[str, ...], tuple[str, ...]]:
    """Merge the translations of entries that share a key, in order."""
    index: dict[tuple[str, ...], tuple[str, ...]] = {}
    for key, words in keyed:
        if key and words:
            index[key] = tuple(dict.fromkeys(index.get(key, ()) + words))
    return index


@lru_cache(maxsize=4)
def lexicon(source: str, target: str) -> Lexicon:
    """Load the lexicon from `source` to `target` ("fr" → "en" or "en" → "fr").

    The files of :data:`BILINGUAL_LEXICON_FILES` are read in order; a key (a written form,
    or a stem tuple) that an earlier file defines is not extended by a later one, so the
    hand-curated core decides the senses of the words it holds, and the general vocabulary
    only fills what the core lacks.

    Raises:
        ValueError: for a pair of languages the lexicon does not hold.
    """
    if {source, target} != {"fr", "en"}:
        raise ValueError(f"no lexicon from {source!r} to {target!r}")
    analyse = _STEMMERS[source]
    forms: dict[tuple[str, ...], tuple[str, ...]] = {}
    phrases: dict[tuple[str, ...], tuple[str, ...]] = {}
    bare: dict[tuple[str, ...], tuple[str, ...]] = {}
    for path in BILINGUAL_LEXICON_FILES:
        by_form, by_stem, by_content = [], [], []
        for french, english in _entries(path):
            text, translation = (french, english) if source == "fr" else (english, french)
            tokens = tuple(tokenize(text))
            # Output words keep their accents: the dense model reads them as written.
            words = tuple(translation.lower().split())
            by_form.append((tokens, words))
            by_stem.append((tuple(analyse(token) for token in tokens), words))
            # What a phrase keeps when its function words are dropped, as carried
            # words are (`graph.condensation.salient_words`: stopwords, one letter).
            content = tuple(analyse(t) for t in tokens if t not in STOPWORDS and len(t) > 1)
            if 1 < len(content) < len(tokens):
                by_content.append((content, words))
        for index, found in (
            (forms, _index(by_form)),
            (phrases, _index(by_stem)),
            (bare, _index(by_content)),
        ):
            for key, words in found.items():
                index.setdefault(key, words)
    # A phrase written with those very words is that phrase ("carte crédit" is no key).
    bare = {key: words for key, words in bare.items() if key not in phrases}
    return Lexicon(source, target, forms, phrases, max(len(k) for k in phrases), bare)


# A misspelt French word is corrected against the lexicon's words from this length on:
# shorter ones lie one edit from too many words ("pase": "passe", "base", "page"...),
# or are shortened words of their own ("chimio" is no "chimie").
_MIN_MISSPELT = 7


@lru_cache(maxsize=1)
def _french_words() -> tuple[frozenset[str], frozenset[str], dict[str, list[str]]]:
    """Return the lexicon's French words (its phrases' too), their stems, by first letter."""
    words = {
        token
        for key in lexicon("fr", "en").forms
        for token in key
        if token.isalpha() and len(token) >= _MIN_MISSPELT - 1
    }
    by_letter: dict[str, list[str]] = {}
    for word in sorted(words):
        by_letter.setdefault(word[0], []).append(word)
    return frozenset(words), frozenset(french_stem(w) for w in words), by_letter


def french_spelling(token: str) -> str | None:
    """Return the lexicon's French word a misspelt French word stands for, or None.

    The index's spelling fixes know the documents' words only: over English documents,
    "remboursment" or "garentie" are one edit from no indexed term, and the lexicon,
    which would read "remboursement" as "refund", does not know them either. A word of
    seven letters or more, folded, in no entry of the lexicon (nor its stem), no English
    dictionary word (a word both languages write, a name read in lower case), that lies
    one edit (a letter added, dropped, changed, or two swapped) from words of a single
    French stem, is that word. Several stems that close ("porte", "perte") is no reading.

    Args:
        token: A folded token of a French question.
    """
    if len(token) < _MIN_MISSPELT or not token.isalpha() or token in _SKIPPED["fr"]:
        return None
    known, known_stems, by_letter = _french_words()
    if token in known or french_stem(token) in known_stems or is_dictionary_word(token):
        return None
    found = process.extract(
        token, by_letter.get(token[0], []), scorer=OSA.distance, score_cutoff=1, limit=None
    )
    readings = {french_stem(word) for word, _, _ in found}
    if len(readings) != 1:
        return None
    return min((distance, word) for word, distance, _ in found)[1]


def translate_query(text: str, source: str, target: str) -> str:
    """Translate the salient words of a query where the lexicon knows them.

    Args:
        text: The query.
        source: Its language.
        target: The language wanted.

    Returns:
        Distinct words in reading order: translations of the phrases and words the
        lexicon holds (longest phrase first; at one length, the written form, the
        stems, then the content words alone), other non-stopwords as they are; a word
        found by its stem only gives the first sense of its stem's entries and is also
        kept as typed, as is a word capitalised within a sentence (a name). Empty when
        the query has no salient word.
    """
    lex = lexicon(source, target)
    analyse = _STEMMERS[source]
    if source == "fr":
        text = read_negations(text)
    tokens = tokenize(text)
    accented, names = _accented_and_names(text)
    if source == "fr":
        # A misspelt word is read as the lexicon's word it stands for, phrases included
        # ("chiffre d'afaires"); a name is left as typed.
        tokens = [
            token if token in names else (french_spelling(token) or token) for token in tokens
        ]
        tokens = unclipped(tokens, names)
    stems = [analyse(token) for token in tokens]
    graded, degree_words = _degrees(tokens) if source == "fr" else ({}, set())
    managing = _managing(tokens) if source == "fr" else set()
    words: list[str] = []
    i = 0
    while i < len(tokens):
        if i in degree_words or i in managing:
            i += 1  # "plus" is written into the next word's degree; "arrive à" is "can"
            continue
        for size in range(min(lex.longest, len(tokens) - i), 0, -1):
            # Auxiliaries carry no topic, but the index's stopwords must not drop them
            # (those decide the indexed terms), so translation skips both.
            if size == 1 and (tokens[i] in STOPWORDS or tokens[i] in AUXILIARY_FORMS):
                continue  # a lone function word is never translated ("or", "plus")
            by_form = lex.lookup_form(tokens[i : i + size])
            if by_form is None and size == 1 and tokens[i] in names:
                # A name is not translated through a word that shares its stem.
                words.append(tokens[i])
                i += 1
                break
            found = by_form or lex.phrases.get(tuple(stems[i : i + size]))
            if found is None and size > 1:
                # Words carried without their function words ("mettre jour").
                found = lex.bare.get(tuple(stems[i : i + size]))
            if found:
                if size == 1 and source == "fr" and _is_plural(tokens[i], lex):
                    # English stems do not join an irregular plural to its singular
                    # ("children", "child"): a French plural is read in the plural.
                    found = tuple(IRREGULAR_PLURALS.get(word, word) for word in found)
                if size == 1 and i in graded and by_form is not None:
                    found = tuple(
                        degree(word, superlative=graded[i]) for word in gradable_senses(found)
                    )
                if by_form is None and size == 1:
                    # A stem is shared by word families ("attention", "attente" =
                    # waiting, "attentif"): through it, only the first sense of the
                    # first entry, the most common one, is taken.
                    found = found[:1]
                words += found
                if (
                    (by_form is None or tokens[i] in names)
                    and size == 1
                    and tokens[i] not in accented
                    and tokens[i] not in _SKIPPED[source]
                ):
                    # A word known only by its stem may be spelt alike in the other
                    # language (the general lexicon leaves those out), and its stem may be
                    # another family's ("attention" shares "attent" with "attente" =
                    # waiting): it is kept as typed beside the stem's senses. So is a
                    # word capitalised within a sentence, which may be a name whatever
                    # the lexicon says ("le jeu sur Mars" is no month: French writes
                    # "mars" in lower case). Not a word typed with accents: English
                    # writes none ("infertilité").
                    words.append(tokens[i])
                i += size
                break
        else:
            token = tokens[i]
            if token not in _SKIPPED[source] and len(token) > 1:
                # A learned word the lexicon lacks may have an English twin by its suffix
                # ("infertilité" / "infertility"); typed with accents, it is no English word.
                cognate = english_cognate(token) if source == "fr" else None
                if cognate:
                    words.append(cognate)
                if not cognate or token not in accented:
                    words.append(token)
            i += 1
    return " ".join(dict.fromkeys(words))


def lexicon_phrases(text: str, source: str) -> list[tuple[str, str]]:
    """Return the phrases of several words the lexicon translates whole, with their head.

    "Combien de jours de congés payés ?" holds "congés payés" (paid leave): one thing,
    which a passage says only by saying all of it, or its translation's head noun (the
    last word: "leave"; "Refunds are paid" is no leave).

    Args:
        text: A question.
        source: Its language; a language the lexicon does not translate from has none.

    Returns:
        (the phrase as typed, folded; the last word of its translation) pairs.
    """
    return [(phrase, words[-1]) for phrase, words in translated_phrases(text, source)]


def translated_phrases(text: str, source: str) -> list[tuple[str, list[str]]]:
    """Return the phrases of several words the lexicon translates whole, with their translation.

    As `lexicon_phrases`, with every word of the translation ("prix de l'action": "stock",
    "price").

    Args:
        text: A question.
        source: Its language; a language the lexicon does not translate from has none.

    Returns:
        (the phrase as typed, folded; the words of its translation) pairs.
    """
    if source not in _STEMMERS:
        return []
    lex = lexicon(source, "en" if source == "fr" else "fr")
    analyse = _STEMMERS[source]
    tokens = tokenize(text)
    stems = [analyse(token) for token in tokens]
    found: list[tuple[str, list[str]]] = []
    i = 0
    while i < len(tokens):
        for size in range(min(lex.longest, len(tokens) - i), 1, -1):
            key = tokens[i : i + size]
            words = lex.lookup_form(key) or lex.phrases.get(tuple(stems[i : i + size]))
            if words:
                found.append((" ".join(key), list(words)))
                i += size
                break
        else:
            i += 1
    return found


def _managing(tokens: Sequence[str]) -> set[int]:
    """Return the positions of French verbs of managing followed by "à" and an infinitive.

    "comment j'arrive à faire marcher select" asks how to make select work: "arriver"
    there is no arrival nor happening ("qu'est-ce qui arrive si ..." is), and its senses
    only add words the English question does not have.
    """
    found: set[int] = set()
    for i, token in enumerate(tokens):
        if token not in MANAGING_VERBS:
            continue
        j = i + 1
        while j < len(tokens) and tokens[j] in NEGATION_ADVERBS:
            j += 1
        if j >= len(tokens) or tokens[j] != "a":
            continue
        j += 1
        while j < len(tokens) and tokens[j] in OBJECT_PRONOUNS:
            j += 1
        if j < len(tokens) and len(tokens[j]) > 3 and tokens[j].endswith(("er", "ir", "re")):
            found.add(i)
    return found


def _degrees(tokens: Sequence[str]) -> tuple[dict[int, bool], set[int]]:
    """Find the French comparatives and superlatives of a folded question.

    Returns:
        The positions of the words in a degree (True for a superlative: "le plus
        grand", "la meilleure"; False for a comparative: "plus grand que", "meilleur"),
        and those of the "plus" written into them.
    """
    graded: dict[int, bool] = {}
    degree_words: set[int] = set()
    for i, token in enumerate(tokens):
        article = i > 0 and tokens[i - 1] in DEFINITE_DETERMINERS
        if token == "plus" and i + 1 < len(tokens) and tokens[i + 1] not in STOPWORDS:
            # Without an article, only "plus X que" is surely a comparison ("ne ...
            # plus" is "no longer", "plus de" "more of").
            if article or "que" in tokens[i + 2 : i + 4]:
                graded[i + 1] = article
                degree_words.add(i)
        elif _singular(_masculine(token) or token) in SYNTHETIC_COMPARATIVES:
            graded[i] = article
    return graded, degree_words


# A word as typed, after an elision or an English contraction is cut off.
_TYPED_WORD = re.compile(r"[^\W\d_]+")
# A word or number as typed, decimals kept ("99,95").
_TYPED_TERM = re.compile(r"[^\W_]+(?:[.,]\d+)*")


def content_words(text: str, language: str) -> str:
    """Return the words of a text that say what it is about, as typed, in reading order.

    An English-only dense model reads a French question through the word pieces French
    shares with English: names, numbers, words spelt alike or nearly ("atmosphérique",
    "cluster", "pourcentage"). The French function words around them ("est-ce que", "les",
    "de") are pieces it knows only from French text, and they pull the question's vector
    toward passages that are French, not toward its topic. The sparse side drops them
    anyway (they are the index's stopwords), so only what the dense model reads changes.

    Args:
        text: A message as typed.
        language: Its language ("fr" or "en").

    Returns:
        The words that are neither function words nor auxiliaries of the language
        (case and accents as typed; one-letter words and elided articles dropped),
        joined by spaces; empty when none is left.
    """
    kept = []
    for match in _TYPED_TERM.finditer(text):
        tokens = tokenize(match.group())
        if tokens and len(tokens[-1]) > 1 and tokens[-1] not in _SKIPPED[language]:
            kept.append(match.group())
    return " ".join(kept)


_TYPED = re.compile(r"[^\W\d_]+(?:['’])?", re.UNICODE)
_NEGATION_OPENERS = frozenset({"ne", "n'", "n’", "non"})
_PARTICIPLE_AUXILIARIES = frozenset({"ete", "etre"})


def negated_verbs(text: str) -> list[tuple[int, int, str]]:
    """Return the spans of a French text that negate a verb the documents name otherwise.

    "le SLA n'est pas respecté", "ne respecte pas", "non respecté", "ça marche pas": the
    negation and its verb, from "ne" (when written) to the verb, with the word
    :data:`~threadline.text.lexicons.fr.NEGATED_VERBS` gives for the verb ("manqué").

    Returns:
        (start, end, word) for each span, in reading order.
    """
    words = [(m.start(), m.end(), fold(m.group())) for m in _TYPED.finditer(text)]
    spans: list[tuple[int, int, str]] = []

    def negated(index: int) -> str | None:
        if not 0 <= index < len(words):
            return None
        return NEGATED_VERBS.get(french_stem(words[index][2].rstrip("'’")))

    for i, (_, _, word) in enumerate(words):
        if word == "non" and (found := negated(i + 1)):
            spans.append((words[i][0], words[i + 1][1], found))
            continue
        if word != "pas":
            continue
        after = i + 1
        if after < len(words) and words[after][2] in _PARTICIPLE_AUXILIARIES:
            after += 1  # "n'a pas été respecté"
        # "ne respecte pas" (the verb before "pas"), or "n'est pas respecté" (its participle
        # after it).
        verb = i - 1 if negated(i - 1) else after if negated(after) else None
        if verb is None:
            continue
        start = min(verb, i)
        # "ne"/"n'" before the verb, or before the auxiliary before "pas", is part of it.
        if start >= 2 and start == i and words[start - 2][2] in _NEGATION_OPENERS:
            start -= 2
        elif start >= 1 and words[start - 1][2] in _NEGATION_OPENERS:
            start -= 1
        found = negated(verb)
        assert found is not None
        spans.append((words[start][0], words[max(verb, i)][1], found))
    return spans


def read_negations(text: str) -> str:
    """Return a French text with its negated verbs written as `negated_verbs` reads them."""
    for start, end, word in reversed(negated_verbs(text)):
        text = f"{text[:start]}{word}{text[end:]}"
    return text


def clipped_word(token: str, before: str, names: Iterable[str] = ()) -> tuple[str, ...] | None:
    """Return the words a French clipping stands for ("pro": professionnel), or None.

    A lone generic word that is also part of a product's name ("mon téléphone pro") is
    that product only where it continues the name: right after a number or a name
    ("pixel 8 pro", "Galaxy Pro"), or capitalised itself; there it is left as typed.

    Args:
        token: A folded word.
        before: The folded word before it ("" at the start).
        names: Folded words capitalised within their sentence.
    """
    names = set(names)
    if token in CLIPPED_NOUNS and before in NOUN_DETERMINERS and token not in names:
        return CLIPPED_NOUNS[token]  # "son tel pro", not "tel que"
    if token not in CLIPPED_WORDS or token in names or before in names:
        return None
    if any(ch.isdigit() for ch in before):
        return None
    return CLIPPED_WORDS[token]


def unclipped(tokens: Sequence[str], names: Iterable[str] = ()) -> list[str]:
    """Return folded French tokens with their clippings written out (`clipped_word`)."""
    out: list[str] = []
    for i, token in enumerate(tokens):
        out += clipped_word(token, tokens[i - 1] if i else "", names) or (token,)
    return out


def _accented_and_names(text: str) -> tuple[set[str], set[str]]:
    """Return the folded words typed with accents, and those capitalised within a sentence.

    A capital inside a sentence marks a name ("Letitia James", "Europa Clipper"), which a
    word sharing its stem must not translate ("james" and "jamais" = never); the first
    word of a sentence, or one after an elision ("l'Europe"), tells nothing.
    """
    accented: set[str] = set()
    names: set[str] = set()
    gap = "."  # what precedes the word: the start of the text opens a sentence
    end = 0
    for match in _TYPED_WORD.finditer(text):
        typed = match.group()
        gap = text[end : match.start()] if end else "."
        end = match.end()
        folded = fold(typed)
        if folded != typed.lower():
            accented.add(folded)
        opens_sentence = any(mark in gap for mark in ".?!:;\n")
        if typed[:1].isupper() and not opens_sentence and not gap.endswith(("'", "\u2019")):
            names.add(folded)
    return accented, names


@lru_cache(maxsize=4)
def _stem_translations(source: str, target: str) -> dict[str, frozenset[str]]:
    """Map each single-word entry's index term (`terms()` stem) to its translations' terms."""
    from threadline.text import terms

    lex = lexicon(source, target)
    found: dict[str, set[str]] = {}
    for tokens, words in lex.forms.items():
        if len(tokens) != 1:
            continue
        keys = terms(tokens[0])
        if len(keys) == 1:
            found.setdefault(keys[0], set()).update(terms(" ".join(words)))
            if target == "en":
                # "femmes" is read as "women" too: no English stem joins it to "woman".
                plurals = [IRREGULAR_PLURALS[w] for w in words if w in IRREGULAR_PLURALS]
                found[keys[0]].update(terms(" ".join(plurals)))
    if source == "en":
        # The files are written French first: "brut = gross raw crude" lists a French
        # word's English senses, which the reversed lexicon reads as one English phrase
        # (it translates a query's "gross raw crude", never its "gross"). A passage's
        # English word is read as each French word it is a sense of.
        for tokens, words in lexicon(target, source).forms.items():
            french = terms(tokens[0]) if len(tokens) == 1 else []
            if len(french) != 1:
                continue
            for word in words:
                for key in terms(word):
                    found.setdefault(key, set()).add(french[0])
    return {key: frozenset(values) for key, values in found.items()}


def translate_vocabulary(vocabulary: Iterable[str], source: str, target: str) -> set[str]:
    """Return the index terms of the translations of a passage's terms.

    The evidence check compares a question's terms with a passage's; a French question
    over an English passage finds "garanti" nowhere in "warranty". The passage's terms
    in the question's language, added to its own, let the check read the question's
    content in the passage whatever language each is written in.

    Args:
        vocabulary: Index terms (`threadline.text.terms` stems) of a passage.
        source: The passage's language.
        target: The question's language.

    Returns:
        Terms of the target language the passage's words translate to (empty for a pair
        of languages the lexicon does not hold).
    """
    if {source, target} != {"fr", "en"}:
        return set()
    table = _stem_translations(source, target)
    return {t for term in vocabulary for t in table.get(term, ())}


@lru_cache(maxsize=4096)
def translate_passage_terms(text: str, source: str, target: str) -> frozenset[str]:
    """Return the index terms of a passage read in translation, phrases first.

    `translate_vocabulary` maps word by word, which misses what only a phrase says: "le
    résultat net" is the net income, "la marge brute" the gross margin. A passage is read
    as a query is (the lexicon's phrases first, then words, feminine forms read as their
    masculine), once per passage and pair of languages: packed passages recur across a
    conversation's turns.

    Args:
        text: The passage's text (title and heading included, when they matter).
        source: The passage's language.
        target: The question's language.

    Returns:
        The terms of its translation; empty for a pair the lexicon does not hold.
    """
    from threadline.text import terms

    if {source, target} != {"fr", "en"}:
        return frozenset()
    return frozenset(terms(translate_query(text, source, target)))


@lru_cache(maxsize=4096)
def word_in_both_languages(word: str) -> frozenset[str]:
    """Return a word's translations both ways (French to English, English to French).

    For matching a follow-up's words against titles that may be written in the other
    language ("and the outlook?" after a French report's « Perspectives 2025 »): the word
    is read as French and as English, since a follow-up of two words is too short to
    tell its language. Empty where the lexicon knows neither reading.
    """
    from threadline.text import terms

    # French to English through the query translation (its spelling and phrase rules);
    # English to French through the lexicon's senses, which the reversed query lexicon
    # reads as one phrase ("perspectives = outlook prospect" never gives "outlook" alone).
    as_french = set(translate_query(word, "fr", "en").split())
    as_english = {t for key in terms(word) for t in _stem_translations("en", "fr").get(key, ())}
    return frozenset(r for r in as_french | as_english if r.casefold() != word.casefold())


def terms_there_and_back(noun: str) -> set[str]:
    """Return a noun's index terms, translated into the other language and back.

    Read both ways: "employés" is also counted as the report's "collaborateurs"
    (employee → employé, salarié, collaborateur), "employees" as « collaborateurs ».
    """
    from threadline.text import terms

    found = set(terms(noun))
    for source, target in (("en", "fr"), ("fr", "en")):
        across = translate_query(noun, source, target)
        found |= set(terms(across)) | set(terms(translate_query(across, target, source)))
    return found


def preload_lexicons() -> None:
    """Load both directions of the lexicon and the passage-term tables, once per process."""
    for source, target in (("fr", "en"), ("en", "fr")):
        lexicon(source, target)
        _stem_translations(source, target)
