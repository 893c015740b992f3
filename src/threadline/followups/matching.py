"""Follow-up lexicons compiled into patterns, and a question's words with their neighbours.

The resolvers (:mod:`~threadline.followups.explicit`, :mod:`~threadline.followups.titles`,
:mod:`~threadline.followups.anaphora`) only know shapes (a noun then a number, an ordinal
then a noun, ...); the words come from the per-language lexicons
(:data:`threadline.text.lexicons.LEXICONS`), compiled here once per set of languages.
Matching runs on text folded by :func:`threadline.text.normalize.fold_with_origin`,
which remembers where each folded character came from, because a few decisions need the
original: "Galaxy S24" is a name because "Galaxy" is capitalised mid-sentence, and French
"à" must not pass for the English article "a".
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, fields
from functools import lru_cache

from threadline.text import lexicons
from threadline.text.lexicons import Lexicon
from threadline.text.normalize import fold_with_origin
from threadline.text.tokenize import WORD, phrase_words, words

ID_TOKEN = re.compile(r"s\d{1,3}")
"""An outline id as a folded word ("s2")."""


def fold_phrase(text: str) -> str:
    """Fold a text for matching (see :func:`threadline.text.normalize.fold_with_origin`)."""
    return fold_with_origin(text).text


@dataclass(frozen=True)
class Token:
    """A word of the folded text and its span there."""

    text: str
    start: int
    end: int


_NEVER = r"(?!x)x"
ROMAN = {
    numeral: value
    for value, numeral in enumerate(
        ("i", "ii", "iii", "iv", "v", "vi", "vii", "viii", "ix", "x"), 1
    )
}


def _phrase_regex(folded_phrase: str, end: str = r"(?!\w)") -> str:
    """Regex for one folded phrase, words separated by spaces, bounded on word edges.

    ``end`` is the guard after a phrase ending in a word character: no word character by
    default; a number marker only needs no letter after it, since "n°2" folds to "no2".
    """
    parts = folded_phrase.split(" ")
    body = ""
    for k, part in enumerate(parts):
        body += re.escape(part)
        if k < len(parts) - 1:
            # An elided word ("l'", "qu'") may be glued to the next one.
            body += r"\s*" if part.endswith("'") else r"\s+"
    if re.match(r"\w", folded_phrase):
        body = r"(?<!\w)" + body
    if re.search(r"\w$", folded_phrase):
        body += end
    return body


def _alternation(phrases: Iterable[str], end: str = r"(?!\w)") -> str:
    """Non-capturing alternation of phrases, longest first so "avant dernier" wins."""
    folded = sorted({f for f in (fold_phrase(p) for p in phrases) if f}, key=len, reverse=True)
    if not folded:
        return _NEVER
    return "(?:" + "|".join(_phrase_regex(f, end) for f in folded) + ")"


def _phrase_tuples(phrases: Iterable[str]) -> tuple[tuple[str, ...], ...]:
    """Phrases as token tuples, longest first, for greedy covering."""
    tuples = {tuple(words(fold_phrase(p))) for p in phrases}
    return tuple(sorted((t for t in tuples if t), key=len, reverse=True))


@dataclass(frozen=True)
class Compiled:
    """Patterns and word sets derived from the active lexicons."""

    bracket_id: re.Pattern[str]
    bare_id: re.Pattern[str]
    noun_number: re.Pattern[str]
    letter: re.Pattern[str]
    ordinal_noun: re.Pattern[str]
    standalone_word: re.Pattern[str]
    standalone_digit: re.Pattern[str]
    noun_kind: dict[str, str]
    ordinal_value: dict[str, int]
    cardinal_value: dict[str, int]
    step: re.Pattern[str]
    step_value: dict[str, int]
    known: frozenset[str]
    verbs: frozenset[str]
    nouns: frozenset[str]
    stopwords: frozenset[str]
    determiners: frozenset[str]
    indefinite: frozenset[str]
    of_words: frozenset[str]
    route_words: frozenset[str]
    not_title_words: frozenset[str]
    elaboration: tuple[tuple[str, ...], ...]
    anaphora: tuple[tuple[str, ...], ...]
    anaphora_words: frozenset[str]
    politeness: tuple[tuple[str, ...], ...]
    followup_cues: tuple[tuple[str, ...], ...]
    back_references: tuple[tuple[str, ...], ...]
    comparatives: tuple[tuple[str, ...], ...]
    comparative_words: frozenset[str]
    measure_units: frozenset[str]
    choice_words: frozenset[str]
    question_words: frozenset[str]
    leading_conjunctions: frozenset[str]
    one_words: frozenset[str]


@lru_cache(maxsize=32)
def compile_lexicons(chosen: tuple[Lexicon, ...]) -> Compiled:
    """Build the matcher for a set of lexicons (cached: lexicons are immutable)."""

    def gather(attr: str) -> list[str]:
        return [w for lex in chosen for w in getattr(lex, attr)]

    def gather_map(attr: str) -> dict[str, int]:
        merged: dict[str, int] = {}
        for lex in chosen:
            for word, value in (getattr(lex, attr) or {}).items():
                merged[fold_phrase(word)] = value
        return merged

    section_nouns, point_nouns = gather("section_nouns"), gather("point_nouns")
    document_nouns = gather("document_nouns")
    noun_kind: dict[str, str] = {}
    # A word given two kinds by two languages keeps the last one assigned here: section
    # over document over point, the reading that names an outline id most directly.
    for kind, nouns_of_kind in (
        ("point", point_nouns),
        ("document", document_nouns),
        ("section", section_nouns),
    ):
        for word in nouns_of_kind:
            noun_kind[fold_phrase(word)] = kind
    ordinal_value = gather_map("ordinal_words")
    cardinal_value = gather_map("cardinal_words")
    step_value = gather_map("step_words")

    all_nouns = _alternation(noun_kind)
    word_nouns = _alternation(n for n in noun_kind if n != "§")
    item_nouns = _alternation(n for n, k in noun_kind.items() if k != "document" and n != "§")
    determiners = _alternation(gather("definite_articles"))
    ordinal_words = _alternation(ordinal_value)
    suffixes = sorted({fold_phrase(s) for s in gather("ordinal_suffixes")}, key=len, reverse=True)
    suffix_alt = "(?:" + "|".join(map(re.escape, suffixes)) + ")" if suffixes else _NEVER
    digit_ordinal = r"(?<![\w.,])(?P<dnum>\d{1,2})\s?" + suffix_alt + r"(?!\w)"
    markers = _alternation(gather("number_markers"), end=r"(?![^\W\d_])")
    cardinals = _alternation(cardinal_value)
    roman = "(?:" + "|".join(sorted(ROMAN, key=len, reverse=True)) + ")"
    ones = _alternation(gather("one_words"))
    modifiers = _alternation(gather("ordinal_modifiers"))
    number_end = r"(?![\w%])(?![.,]\d)"

    # Every word list of the lexicon, whatever its role, is a "reference word" when
    # judging what surrounds a candidate; taking all tuple fields means a list added to
    # Lexicon later is covered without touching this code. Units of measure are content
    # ("the hours" may name a section "Working hours"), not words of reference.
    phrase_lists = [
        gather(f.name)
        for f in fields(Lexicon)
        if isinstance(getattr(chosen[0], f.name), tuple) and f.name != "measure_units"
    ]
    known = frozenset().union(*(phrase_words(p) for p in phrase_lists))
    known |= frozenset(ordinal_value) | frozenset(cardinal_value) | frozenset(step_value)
    stopwords = phrase_words(gather("stopwords"))
    nouns = frozenset(t for n in noun_kind for t in words(n))
    verbs = (
        phrase_words(gather("elaboration")) | phrase_words(gather("reference_verbs")) | nouns
    ) - stopwords

    return Compiled(
        bracket_id=re.compile(r"\[\s*s\s*(?P<num>\d{1,3})\s*\]"),
        bare_id=re.compile(r"(?<![\w'§])s(?P<num>\d{1,3})" + number_end),
        noun_number=re.compile(
            rf"(?P<noun>{all_nouns})\s*(?:{markers}\.?\s*)?"
            rf"(?:(?P<num>\d{{1,3}}){number_end}|(?P<card>{cardinals})"
            rf"|(?<!\w)(?P<roman>{roman})(?![\w']))"
        ),
        letter=re.compile(rf"(?P<noun>{item_nouns})\s+(?P<letter>[a-z])(?![\w'])"),
        ordinal_noun=re.compile(
            rf"(?:(?P<det>{determiners})\s*)?(?:(?P<word>{ordinal_words})|{digit_ordinal})"
            rf"\s+(?:{modifiers}\s+)?(?P<noun>{word_nouns})"
        ),
        standalone_word=re.compile(
            rf"(?:(?P<det>{determiners})\s*)?(?P<word>{ordinal_words})(?:\s+{ones})?"
        ),
        standalone_digit=re.compile(
            rf"(?:(?P<det>{determiners})\s*)?{digit_ordinal}(?:\s+{ones})?"
        ),
        # "the next one", "the next point", « la suivante », « le point suivant ».
        step=re.compile(
            rf"(?:(?P<det>{determiners})\s*)?(?:{item_nouns}\s+)?(?P<step>{_alternation(step_value)})"
            rf"(?:\s+(?:{ones}|{item_nouns}))?"
        ),
        step_value=step_value,
        noun_kind=noun_kind,
        ordinal_value=ordinal_value,
        cardinal_value=cardinal_value,
        known=known,
        verbs=verbs,
        nouns=nouns,
        stopwords=stopwords,
        determiners=phrase_words(gather("definite_articles")),
        # Kept with accents: the check runs on original text so "à" is not "a".
        indefinite=frozenset(w.casefold() for w in gather("indefinite_articles")),
        of_words=phrase_words(gather("of_words")),
        route_words=phrase_words(gather("route_words")),
        not_title_words=(
            stopwords
            | phrase_words(gather("elaboration"))
            | phrase_words(gather("politeness"))
            | phrase_words(gather("anaphora"))
            | phrase_words(gather("followup_cues"))
            | phrase_words(gather("question_words"))
        ),
        elaboration=_phrase_tuples(gather("elaboration")),
        anaphora=_phrase_tuples(gather("anaphora")),
        anaphora_words=phrase_words(gather("anaphora")),
        politeness=_phrase_tuples(gather("politeness")),
        followup_cues=_phrase_tuples(gather("followup_cues")),
        back_references=_phrase_tuples(gather("back_references")),
        comparatives=_phrase_tuples(gather("comparatives")),
        comparative_words=phrase_words(gather("comparatives")),
        measure_units=phrase_words(gather("measure_units")),
        choice_words=phrase_words(gather("choice_words")),
        question_words=phrase_words(gather("question_words")),
        leading_conjunctions=phrase_words(gather("leading_conjunctions")),
        one_words=phrase_words(gather("one_words")),
    )


def active(languages: Sequence[str] | str | None) -> Compiled:
    """Pick the matcher for the requested languages.

    Unknown codes are ignored, and if none is known every language is used: a request
    tagged "de" without a German lexicon still gets the French and English forms rather
    than none at all.
    """
    if isinstance(languages, str):
        languages = (languages,)
    picked: tuple[Lexicon, ...] = ()
    if languages is not None:
        known = lexicons.LEXICONS
        picked = tuple(known[c] for c in dict.fromkeys(languages) if c in known)
    return compile_lexicons(picked or tuple(lexicons.LEXICONS.values()))


class Context:
    """A folded question with its tokens, answering questions about neighbours."""

    def __init__(self, question: str, comp: Compiled) -> None:
        """Fold and split a question for the matcher ``comp``."""
        self.folded = fold_with_origin(question)
        self.text = self.folded.text
        self.comp = comp
        self.tokens = [Token(m.group(), m.start(), m.end()) for m in WORD.finditer(self.text)]
        self.words = [t.text for t in self.tokens]
        # Sorted spans for bisection: long pasted messages must not cost quadratic time.
        self._starts = [t.start for t in self.tokens]
        self._ends = [t.end for t in self.tokens]

    def original_of(self, token: Token) -> str:
        """Return the token as written, accents and case kept."""
        origin = self.folded.origin
        return self.folded.original[origin[token.start] : origin[token.end - 1] + 1]

    def before(self, pos: int) -> tuple[Token | None, bool]:
        """Find the token ending at or before ``pos`` and whether only spaces separate them."""
        index = bisect_right(self._ends, pos) - 1
        if index < 0:
            return None, False
        prev = self.tokens[index]
        return prev, not self.text[prev.end : pos].strip()

    def after(self, pos: int) -> tuple[Token | None, bool]:
        """Find the token starting at or after ``pos`` and whether only spaces separate them."""
        index = bisect_left(self._starts, pos)
        if index >= len(self.tokens):
            return None, False
        token = self.tokens[index]
        return token, not self.text[pos : token.start].strip()

    def starts_sentence(self, token: Token) -> bool:
        """Tell whether a token is the first word of the text or of a sentence."""
        prev, _ = self.before(token.start)
        if prev is None:
            return True
        return bool(re.search(r"[.!?;:\"(\[]", self.text[prev.end : token.start]))

    def prev_kind(self, pos: int) -> str:
        """Classifies what precedes a candidate reference starting at ``pos``.

        Returns:
            ``"edge"`` (start or punctuation), ``"indef"`` (an indefinite article: "an
            S3 bucket"), ``"verb"`` (an elaboration/reference verb or a section noun),
            ``"known"`` (another lexicon word), ``"name"`` (a capitalised word inside a
            sentence: "Galaxy S24") or ``"unknown"``.
        """
        prev, adjacent = self.before(pos)
        if prev is None or not adjacent:
            return "edge"
        if self.original_of(prev).casefold() in self.comp.indefinite:
            return "indef"
        if prev.text in self.comp.verbs:
            return "verb"
        if prev.text in self.comp.known or ID_TOKEN.fullmatch(prev.text):
            return "known"
        written = self.original_of(prev)
        # A single capital is a letter or an initial, not a product name.
        if len(written) > 1 and written[0].isupper() and not self.starts_sentence(prev):
            return "name"
        return "unknown"

    def next_kind(self, pos: int) -> str:
        """Classifies what follows a candidate reference ending at ``pos``.

        Returns:
            ``"edge"`` (end or punctuation), ``"known"`` (a lexicon word that does not
            start a complement of its own), ``"noun"`` (a section/point/source noun),
            ``"of_content"`` ("of revenue": the candidate is part of a longer name),
            ``"comparative"`` ("the second largest": an adjective phrase follows) or
            ``"unknown"`` (a content word: "S3 bucket").
        """
        nxt, adjacent = self.after(pos)
        if nxt is None or not adjacent:
            return "edge"
        if nxt.text in self.comp.of_words:
            following, _ = self.after(nxt.end)
            # "d'" glues to its word, so an apostrophe gap still counts as adjacent.
            gap = self.text[nxt.end : following.start] if following else ""
            if (
                following is not None
                and not gap.replace("'", "").strip()
                and following.text not in self.comp.stopwords
            ):
                return "of_content"
            return "known"
        if nxt.text in self.comp.nouns:
            return "noun"
        index = bisect_left(self._starts, nxt.start)
        if self.phrase_at(index, self.comp.elaboration):
            return "known"  # "la deuxième plus en détail"
        if nxt.text in self.comp.comparative_words:
            return "comparative"  # "la deuxième plus grande ville"
        if nxt.text in self.comp.known or ID_TOKEN.fullmatch(nxt.text):
            return "known"  # another id counts as a reference word: "S2-S3", "S2 vs S4"
        return "unknown"

    def phrase_at(self, index: int, phrases: Sequence[tuple[str, ...]]) -> bool:
        """Tell whether one of the phrases starts at token ``index``."""
        return any(tuple(self.words[index : index + len(p)]) == p for p in phrases)

    def has_phrase(self, phrases: Sequence[tuple[str, ...]]) -> bool:
        """Tell whether any phrase occurs as consecutive tokens."""
        words = self.words
        for phrase in phrases:
            n = len(phrase)
            for i in range(len(words) - n + 1):
                if tuple(words[i : i + n]) == phrase:
                    return True
        return False
