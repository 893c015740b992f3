"""Whether a passage's words say what a question's words say: the reader's tolerance.

The index compares exact stems (:func:`threadline.text.tokenize.terms`); a reader
matching a question against a passage is more tolerant, in three ways that are rules
of the language, not of any data:

* :func:`matches_term`: a derivation ("photos" / "photography": a shared five-letter
  start), a one-letter typo in a long word ("mortage"), and an English irregular
  inflection ("lost" / "loses", "sold" / "sell", "paid" / "pay"), which Snowball
  leaves apart.
* :func:`verb_lemma_stems`: the stems of the verbs an irregular form is a form of, from
  the lemma tables `lemminflect` ships (read offline, no model).
* :func:`acronyms`: the initials of a passage's names ("Net Promoter Score" → nps,
  "United States" → us), which a question writes short.

Beside those rules, :func:`matches_term` reads the few words the lexicons list as naming
one thing (``SAME_SENSE``: "screen" / "display"). :func:`matches_synonym` reads wider
synonym pairs ("purchase" / "buy", `lexicons/en_synonyms.txt`), for the offline answer's
choice of passages and sentences only: a decision never rests on them.

Used by the evidence check (:mod:`threadline.graph.evidence`) and the offline answer
(:mod:`threadline.models.extractive`) alike, so both read a passage the same way. Never
by the index: its terms stay the stems.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from functools import lru_cache
from pathlib import Path

import lemminflect

from threadline.text.lexicons import en, fr
from threadline.text.tokenize import stem, terms

__all__ = [
    "acronyms",
    "another_verbs_forms",
    "own_verbs_forms",
    "is_dictionary_word",
    "load_lemma_tables",
    "matches_same_sense",
    "matches_synonym",
    "matches_term",
    "matches_verb_form",
    "one_edit",
    "verb_forms",
    "verb_lemma_stems",
]


def _same_sense() -> dict[str, frozenset[str]]:
    """Each term of the lexicons' groups of words naming one thing, with the others."""
    found: dict[str, set[str]] = {}
    for group in (*en.SAME_SENSE, *fr.SAME_SENSE):
        members = set(terms(group))
        for member in members:
            found.setdefault(member, set()).update(members - {member})
    return {term: frozenset(others) for term, others in found.items()}


_SAME_SENSE = _same_sense()


def _broader_sense() -> dict[str, frozenset[str]]:
    """Each term of the lexicons' narrower words, with the terms of the broader thing."""
    found: dict[str, set[str]] = {}
    for narrower, broader in (*en.NARROWER_SENSE, *fr.NARROWER_SENSE):
        for member in terms(narrower):
            found.setdefault(member, set()).update(terms(broader))
    return {term: frozenset(others) for term, others in found.items()}


_BROADER_SENSE = _broader_sense()


def _synonyms() -> dict[str, frozenset[str]]:
    """Each term of the English synonym pairs (`lexicons/en_synonyms.txt`), with its others."""
    found: dict[str, set[str]] = {}
    path = Path(__file__).parent / "lexicons" / "en_synonyms.txt"
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.startswith("#"):
            continue
        pair = set(terms(line))
        if len(pair) == 2:
            for member in pair:
                found.setdefault(member, set()).update(pair - {member})
    return {term: frozenset(others) for term, others in found.items()}


_SYNONYMS = _synonyms()
# A five-letter shared start is the usual cut for a family of derivations.
_SHARED_START = 5
# A word this long may carry one typo and still name the same thing.
_TYPO_LENGTH = 6


@lru_cache(maxsize=65536)
def verb_lemma_stems(term: str) -> frozenset[str]:
    """Return the stems of the verbs a term is an inflected form of, its own left out.

    "lost" → {"lose"}, "sold" → {"sell"}, "paid" → {"pay"}, "wrote" → {"write"}. The
    terms are stems, and Snowball leaves an irregular form as it is written, so the
    form is looked up as a word in `lemminflect`'s English lemma table (dictionary
    entries only: nothing is guessed for a word it does not hold). A form that is also
    a noun of its own ("rose", "saw", "ground") is read as written: "roses" is no form
    of "rise". Regular forms give nothing new (Snowball joins them already).

    Args:
        term: An index term (a folded, stemmed word).

    Returns:
        The stems of its verb lemmas other than itself; empty for most terms.
    """
    if not term.isalpha() or not term.isascii():
        return frozenset()
    lemmas = lemminflect.getAllLemmas(term)
    if term in lemmas.get("NOUN", ()):
        return frozenset()
    return frozenset(stem(lemma) for lemma in lemmas.get("VERB", ())) - {term}


@lru_cache(maxsize=4096)
def irregular_form_stems(word: str) -> frozenset[str]:
    """Return the stems of a verb's irregular forms, the word being the verb itself.

    "sell" → {"sold"}, "buy" → {"bought"}, "lose" → {"lost"}: the other direction of
    :func:`verb_lemma_stems`. Snowball joins the regular forms ("sells", "selling") to
    the verb's stem already; the irregular ones it leaves apart. Only a word that is its
    own verb lemma in `lemminflect`'s table, and no other verb's form, gives any ("sold"
    gives none: it is a form; nor does "saw", also the past of "see").

    Args:
        word: A word as written (case folded here).
    """
    word = word.casefold()
    if not word.isalpha() or not word.isascii():
        return frozenset()
    # "saw" is its own verb and the past of "see", "found" of "find": read as written.
    if lemminflect.getAllLemmas(word).get("VERB", ()) != (word,):
        return frozenset()
    forms = {f for fs in lemminflect.getAllInflections(word, upos="VERB").values() for f in fs}
    own = stem(word)
    return frozenset(stem(f) for f in forms) - {own}


def another_verbs_forms(text: str) -> set[str]:
    """Return the stems a text writes only as an irregular form of another verb.

    "Defects found after 30 days" writes "found" as the past of "find": the stem "found"
    is there, but not the verb "to found". A word written otherwise too ("founded") is
    the verb of its own stem somewhere in the text, and is not returned.
    """
    other: set[str] = set()
    own: set[str] = set()
    for word in re.findall(r"[a-z]+", text.casefold()):
        word_stem = stem(word)
        if word == word_stem and verb_lemma_stems(word):
            other.add(word_stem)
        else:
            own.add(word_stem)
    return other - own


def own_verbs_forms(question: str) -> set[str]:
    """Return the stems a question writes as a regular form of a verb that is also another's.

    "When was Brightwell founded?": "founded" is the verb "to found", whose stem is also
    the past of "find"; a text writing only "found" (`another_verbs_forms`) does not say
    it. A question writing the bare form ("where was it found?") may mean either.
    """
    found: set[str] = set()
    for word in re.findall(r"[a-z]+", question.casefold()):
        word_stem = stem(word)
        if word != word_stem and verb_lemma_stems(word_stem):
            found.add(word_stem)
    return found


def load_lemma_tables() -> None:
    """Read `lemminflect`'s lemma tables now (0.7 s), not on a question's first lookup."""
    lemminflect.getAllLemmas("table")


@lru_cache(maxsize=4096)
def is_dictionary_word(word: str) -> bool:
    """Tell whether a word is an entry of `lemminflect`'s English lemma table.

    Args:
        word: A word as written (case folded here).

    Returns:
        True when the table lists it as some part of speech ("weekend", "email").
    """
    folded = word.casefold()
    return folded.isalpha() and folded.isascii() and bool(lemminflect.getAllLemmas(folded))


def verb_forms(vocabulary: Iterable[str]) -> frozenset[str]:
    """Return the stems of the verbs a vocabulary's terms are forms of ("left": "leav").

    What :func:`matches_verb_form` looks up for every term of a vocabulary, read once:
    a caller checking several terms against one vocabulary passes it along.

    Args:
        vocabulary: A passage's or a sentence's terms.
    """
    return frozenset().union(*(verb_lemma_stems(v) for v in vocabulary))


def matches_verb_form(term: str, vocabulary: set[str], forms: frozenset[str] | None = None) -> bool:
    """Tell whether a vocabulary holds another form of a term's verb ("lost" / "loses").

    Args:
        term: A question's term (an index term).
        vocabulary: A passage's or a sentence's terms.
        forms: The vocabulary's :func:`verb_forms`, when the caller has them.

    Returns:
        True when the term and one of the vocabulary's terms are forms of one verb.
    """
    own = verb_lemma_stems(term)
    if own & vocabulary:
        return True
    # "leave" (stem "leav") against "left", "wrote" against "written".
    mine = own | {term}
    if forms is not None:
        return not mine.isdisjoint(forms)
    return any(mine & verb_lemma_stems(v) for v in vocabulary)


def matches_same_sense(term: str, vocabulary: set[str]) -> bool:
    """Tell whether a vocabulary holds a word the lexicons list as naming what a term does.

    "screen" / "display" (the lexicons' ``SAME_SENSE``), in a derivation of its own too:
    "contact" finds "reachable" ("reach" and "reachable" share their first five letters).
    A word naming a case of a broader thing finds that thing's words, not the reverse
    (``NARROWER_SENSE``: "stolen" finds "loses a laptop"; "lost" finds no "stolen").

    Args:
        term: A question's term (an index term).
        vocabulary: A passage's or a sentence's terms.

    Returns:
        True when one of the term's same-sense words, or a derivation of it, is there.
    """
    same_sense = _SAME_SENSE.get(term, frozenset()) | _BROADER_SENSE.get(term, frozenset())
    if not same_sense.isdisjoint(vocabulary):
        return True
    return any(_shares_start(other, vocabulary) for other in same_sense)


def matches_synonym(term: str, vocabulary: set[str]) -> bool:
    """Tell whether a vocabulary holds a synonym of a term, in any of its forms.

    "purchase" finds "buy" ("bought" / "purchased" are the pair, "buy" a form of "bought").
    The pairs (`lexicons/en_synonyms.txt`) are English words the bilingual lexicon gives as
    translations of one French word that the bundled MiniLM also places close: two
    independent readings agreeing that the words say the same. Only the offline answer's
    choice of passages and sentences reads them, never the evidence check's decision.

    Args:
        term: A question's term (an index term).
        vocabulary: A passage's or a sentence's terms.

    Returns:
        True when one of the term's synonyms, a derivation or a verb form of it, is there.
    """
    synonyms = _SYNONYMS.get(term, frozenset())
    return any(
        s in vocabulary or _shares_start(s, vocabulary) or matches_verb_form(s, vocabulary)
        for s in synonyms
    )


def terms_in_a_row(wanted: Sequence[str], sequence: Sequence[str]) -> bool:
    """Tell whether terms occur one after another in a term sequence (`matches_term`).

    No terms are always found. A phrase said in a row: "téléphone professionnel" in a
    passage, not "smartphones" and "clients professionnels" apart.
    """
    size = len(wanted)
    return any(
        all(matches_term(wanted[k], {sequence[i + k]}) for k in range(size))
        for i in range(len(sequence) - size + 1)
    )


def matches_term(term: str, vocabulary: set[str]) -> bool:
    """Tell whether a term matches one of a vocabulary's terms, as a reader would.

    An equal stem; a longer one sharing its first five letters (stemming leaves
    derivations apart: "photos" / "photography", "securite" / "security"); a long word
    one typo away ("mortage", "bevarage"); or another form of the same English verb
    ("lost" / "loses", "bought" / "buying").

    Args:
        term: A question's term (an index term: folded and stemmed).
        vocabulary: A passage's terms.

    Returns:
        True when the passage holds the term in one of those forms.
    """
    if term in vocabulary:
        return True
    if matches_same_sense(term, vocabulary):
        return True
    if any(ch.isdigit() for ch in term):
        return False
    if len(term) >= _SHARED_START:
        if _shares_start(term, vocabulary):
            return True
        if len(term) >= _TYPO_LENGTH and any(
            one_edit(term, v) for v in vocabulary if len(v) >= _TYPO_LENGTH
        ):
            return True
    return matches_verb_form(term, vocabulary) or _matches_latin_noun(term, vocabulary)


# English verbs of Latin stock whose noun changes the stem's last consonants, so the two
# share too short a start to be read as one family: "emit" / "emission", "admit" /
# "admission", "receive" / "reception" (verb stem ending, noun stem ending, as Snowball
# stems them). Longer stems ("describe" / "description") share five letters already.
_LATIN_ALTERNATIONS = (("mit", "miss"), ("ceiv", "cept"))


def _matches_latin_noun(term: str, vocabulary: set[str]) -> bool:
    """Whether a vocabulary holds the noun of a term's verb or the verb of its noun.

    "how much CO2 did Brightwell emit?" is answered by "les émissions de CO2" (read as
    "emissions"): the verb and its noun say one thing.
    """
    for verb_end, noun_end in _LATIN_ALTERNATIONS:
        if term.endswith(verb_end) and len(term) > len(verb_end):
            other = term[: -len(verb_end)] + noun_end
        elif term.endswith(noun_end) and len(term) > len(noun_end):
            other = term[: -len(noun_end)] + verb_end
        else:
            continue
        if other in vocabulary:
            return True
    return False


def _shares_start(term: str, vocabulary: set[str]) -> bool:
    """Whether a vocabulary holds a derivation of a term: a shared five-letter start.

    Two compounds of one first word and different heads ("smart|watch" and
    "smart|phon", the stem of "smartphones") share their start without being forms of
    one word: `different_heads` tells them apart.
    """
    if len(term) < _SHARED_START:
        return False
    head = term[:_SHARED_START]
    return any(
        len(v) >= _SHARED_START and v[:_SHARED_START] == head and not different_heads(term, v)
        for v in vocabulary
    )


# A compound's head is a noun of this many letters at least ("watch", "phone", "wall"):
# shorter endings are mostly suffixes ("ion", "ant", "ate").
_HEAD_LENGTH = 4


def _is_noun_stem(ending: str) -> bool:
    """Whether an ending is a dictionary noun, as written or as Snowball stems it.

    Snowball drops a final "e" ("phone" → "phon"), writes a final "y" as "i"
    ("battery" → "batteri") and a final "ll" as "l" ("wall" → "wal", so "firewall" is
    "firewal"): each is read back before the lookup, the length asked of the word read.
    """
    if not ending.isalpha() or not ending.isascii():
        return False
    written = [ending, ending + "e"] if len(ending) >= _HEAD_LENGTH else []
    if ending.endswith("i") and len(ending) >= _HEAD_LENGTH:
        written.append(ending[:-1] + "y")
    if ending.endswith("l") and len(ending) + 1 >= _HEAD_LENGTH:
        written.append(ending + "l")
    return any("NOUN" in lemminflect.getAllLemmas(word) for word in written)


@lru_cache(maxsize=65536)
def different_heads(a: str, b: str) -> bool:
    """Tell whether two stems are compounds of one first word with different heads.

    "smartwatch" / "smartphon" are "smart" + "watch" and "smart" + "phone": words of
    their own, each named by its head, as "firewall" / "firework" are. A derivation
    adds a suffix to one word ("refund" / "refunded", "photo" / "photography"), so one
    of the two goes on with no noun of its own after the shared word.

    Args:
        a: A stem.
        b: Another stem.

    Returns:
        True when, after a shared dictionary word, both go on with a different noun.
    """
    if a == b:
        return False
    shared = 0
    while shared < min(len(a), len(b)) and a[shared] == b[shared]:
        shared += 1
    for cut in range(3, shared + 1):
        if not is_dictionary_word(a[:cut]):
            continue
        if a[cut:] != b[cut:] and _is_noun_stem(a[cut:]) and _is_noun_stem(b[cut:]):
            return True
    return False


def one_edit(a: str, b: str) -> bool:
    """Tell whether two words differ by one substitution, insertion or deletion.

    Args:
        a: A word.
        b: Another word.

    Returns:
        True when they differ by exactly one edit.
    """
    if abs(len(a) - len(b)) > 1 or a == b:
        return False
    if len(a) > len(b):
        a, b = b, a
    i = 0
    while i < len(a) and a[i] == b[i]:
        i += 1
    return a[i + (len(a) == len(b)) :] == b[i + 1 :]


# Inside a name, these join its words ("United States of America") and give no initial.
_NAME_JOINERS = frozenset("of and the for de du des la le et".split())
# Names written in full in passages and shortened in questions under another set of
# initials than their words give ("USA" for "United States"): the few such aliases.
_ACRONYM_ALIASES = {"us": ("usa",), "uk": ("gb",)}


def acronyms(text: str) -> set[str]:
    """Return the acronyms a text's names stand for, lower-cased: "United States" → us.

    The initials of each run of capitalised words (joined by "of", "and"...), and the
    letters of dotted abbreviations ("U.S." → us); a question's "USA", "NPS" then finds
    a passage that writes "United States", "Net Promoter Score" out.

    Args:
        text: A passage, a sentence or a heading.

    Returns:
        The acronyms, lower case, with their aliases (us → usa); a new set each call.
    """
    return set(_text_acronyms(text))


@lru_cache(maxsize=4096)
def _text_acronyms(text: str) -> frozenset[str]:
    """`acronyms` of a text, remembered: the same passages are read several times a turn."""
    found: set[str] = set()
    for dotted in re.findall(r"\b(?:[A-Z]\.){2,}", text):
        found.add(dotted.replace(".", "").lower())
    run: list[str] = []
    # Punctuation is a token of its own: a name does not run across it.
    for word in [*re.findall(r"[\w'’-]+|[^\w\s]", text), ""]:
        if word.lower() in _NAME_JOINERS:
            continue
        if word[:1].isupper() and not word.isupper():
            run.append(word[0].lower())
        else:
            if len(run) >= 2:
                found.add("".join(run))
            run = []
    for short, aliases in _ACRONYM_ALIASES.items():
        if short in found:
            found.update(aliases)
    return frozenset(found)
