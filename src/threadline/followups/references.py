"""Deterministic resolution of follow-up references, with no LLM involved.

After an answer that ended with an outline (``[S1] ...``, ``[S2] ...``) and cited sources,
users point back into it: "détaille S2", "le point B", "the third point", "la dernière
partie", "go deeper on leak reduction", "what does the second source say?". This module
turns such a question into a :class:`Reference` to an outline section or a source rank, or
says why it could not (out of range, no outline, an ambiguous title).

It also answers two cheaper questions the router asks: is this a bare "tell me more" with
no content of its own (:func:`is_pure_anaphora`), and does it lean on the previous turn at
all (:func:`looks_like_followup`).

All the language-specific words come from :mod:`threadline.followups.lexicon`; the code
here only knows shapes (a noun then a number, an ordinal then a noun, ...). Matching runs
on a folded copy of the text (case, accents, hyphens and typographic apostrophes removed)
while remembering where each folded character came from, because a few decisions need
the original: "Galaxy S24" is a name because "Galaxy" is capitalised mid-sentence, and
French "à" must not pass for the English article "a".
"""

from __future__ import annotations

import re
import unicodedata
from bisect import bisect_left, bisect_right
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, fields
from functools import lru_cache

from threadline.followups.lexicon import DEFAULT_LANGUAGE, LEXICONS, Lexicon
from threadline.followups.outline import OutlineSection

__all__ = [
    "Reference",
    "detect_language",
    "is_pure_anaphora",
    "looks_like_followup",
    "resolve_reference",
]

DETERMINISTIC = "deterministic"
REASON_OUT_OF_RANGE = "out_of_range"
REASON_NO_OUTLINE = "no_outline"
REASON_NO_SOURCES = "no_sources"
REASON_AMBIGUOUS_TITLE = "ambiguous_title"
REASON_PURE_ANAPHORA = "pure_anaphora"

# A question of at most this many words after a retrieved turn is taken as a follow-up:
# "and in 2023?", "the cheaper one?" carry too little to stand alone.
SHORT_QUESTION_WORDS = 4
# An ordinal word with no article is a reference only in a message this short ("third?",
# "second one please"); in longer ones it is usually an adverb ("First, ...").
BARE_ORDINAL_MAX_WORDS = 3


@dataclass(frozen=True)
class Reference:
    """What a follow-up question points at in the previous answer.

    Attributes:
        detected: The question contains a reference form (even one that cannot be
            resolved, so the caller can ask instead of guessing).
        resolved: The reference designates an existing section or source.
        ref_type: ``"section"``, ``"letter"``, ``"ordinal"``, ``"title"``, ``"document"``,
            ``"anaphora"`` or None.
        section_id: Outline id (``"S2"``) when resolved to a section.
        document_index: 1-based rank in the previous answer's sources when resolved to a
            document.
        method: ``"deterministic"`` whenever something was detected.
        reason: Why a detected reference is not resolved: ``"out_of_range"``,
            ``"no_outline"``, ``"no_sources"``, ``"ambiguous_title"`` or
            ``"pure_anaphora"``.
    """

    detected: bool
    resolved: bool
    ref_type: str | None = None
    section_id: str | None = None
    document_index: int | None = None
    method: str | None = None
    reason: str | None = None


NOT_DETECTED = Reference(detected=False, resolved=False)

# --------------------------------------------------------------------------- folding

# Characters folded beyond what NFKD does: every apostrophe to "'", hyphens and dashes
# to spaces (so "parle-moi" and "parle moi" are one phrase), "n°" to "no".
_CHAR_MAP = {
    "\u2019": "'",
    "\u2018": "'",
    "`": "'",
    "\u00b4": "'",
    "\u02bc": "'",
    "\u2032": "'",
    "-": " ",
    "\u2010": " ",
    "\u2011": " ",
    "\u2012": " ",
    "\u2013": " ",
    "\u2014": " ",
    "\u2015": " ",
    "\u2212": " ",
    "\u00b0": "o",
    "\u00ab": '"',
    "\u00bb": '"',
    "\u201c": '"',
    "\u201d": '"',
    "\u0153": "oe",
    "\u00e6": "ae",
}
_TOKEN = re.compile(r"[^\W_]+|§")
_ID_TOKEN = re.compile(r"s\d{1,3}")


@dataclass(frozen=True)
class _Folded:
    """A folded text plus, for each folded character, its index in the original."""

    text: str
    original: str
    origin: tuple[int, ...]


def _fold_with_origin(text: str) -> _Folded:
    """Case-folds, strips accents and unifies punctuation, keeping a position map."""
    chars: list[str] = []
    origin: list[int] = []
    for i, ch in enumerate(text):
        for c in unicodedata.normalize("NFKD", ch.casefold()):
            if unicodedata.combining(c):
                continue
            for out in _CHAR_MAP.get(c, c):
                if out.isspace():
                    # Collapse runs of spaces so phrases match with single separators.
                    if not chars or chars[-1] == " ":
                        continue
                    out = " "
                chars.append(out)
                origin.append(i)
    while chars and chars[-1] == " ":
        chars.pop()
        origin.pop()
    return _Folded("".join(chars), text, tuple(origin))


def _fold(text: str) -> str:
    """Folds a text for matching (see :func:`_fold_with_origin`)."""
    return _fold_with_origin(text).text


def _tokens(folded: str) -> list[str]:
    """Splits folded text into word tokens."""
    return _TOKEN.findall(folded)


# ----------------------------------------------------------------- compiled lexicons


@dataclass(frozen=True)
class _Token:
    """A word of the folded text and its span there."""

    text: str
    start: int
    end: int


_NEVER = r"(?!x)x"
_ROMAN = {
    numeral: value
    for value, numeral in enumerate(
        ("i", "ii", "iii", "iv", "v", "vi", "vii", "viii", "ix", "x"), 1
    )
}


def _phrase_regex(folded_phrase: str) -> str:
    """Regex for one folded phrase, words separated by spaces, bounded on word edges."""
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
        body += r"(?!\w)"
    return body


def _alternation(phrases: Iterable[str]) -> str:
    """Non-capturing alternation of phrases, longest first so "avant dernier" wins."""
    folded = sorted({f for f in (_fold(p) for p in phrases) if f}, key=len, reverse=True)
    if not folded:
        return _NEVER
    return "(?:" + "|".join(_phrase_regex(f) for f in folded) + ")"


def _token_set(phrases: Iterable[str]) -> frozenset[str]:
    """Every word token of a list of phrases."""
    return frozenset(t for p in phrases for t in _tokens(_fold(p)))


def _phrase_tuples(phrases: Iterable[str]) -> tuple[tuple[str, ...], ...]:
    """Phrases as token tuples, longest first, for greedy covering."""
    tuples = {tuple(_tokens(_fold(p))) for p in phrases}
    return tuple(sorted((t for t in tuples if t), key=len, reverse=True))


@dataclass(frozen=True)
class _Compiled:
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
    choice_words: frozenset[str]
    question_words: frozenset[str]
    leading_conjunctions: frozenset[str]
    one_words: frozenset[str]


@lru_cache(maxsize=32)
def _compile(lexicons: tuple[Lexicon, ...]) -> _Compiled:
    """Builds the matcher for a set of lexicons (cached: lexicons are immutable)."""

    def gather(attr: str) -> list[str]:
        return [w for lex in lexicons for w in getattr(lex, attr)]

    def gather_map(attr: str) -> dict[str, int]:
        merged: dict[str, int] = {}
        for lex in lexicons:
            for word, value in (getattr(lex, attr) or {}).items():
                merged[_fold(word)] = value
        return merged

    section_nouns, point_nouns = gather("section_nouns"), gather("point_nouns")
    document_nouns = gather("document_nouns")
    noun_kind: dict[str, str] = {}
    # A word given two kinds by two languages keeps the last one assigned here: section
    # over document over point, the reading that names an outline id most directly.
    for kind, words in (
        ("point", point_nouns),
        ("document", document_nouns),
        ("section", section_nouns),
    ):
        for word in words:
            noun_kind[_fold(word)] = kind
    ordinal_value = gather_map("ordinal_words")
    cardinal_value = gather_map("cardinal_words")

    all_nouns = _alternation(noun_kind)
    word_nouns = _alternation(n for n in noun_kind if n != "§")
    item_nouns = _alternation(n for n, k in noun_kind.items() if k != "document" and n != "§")
    determiners = _alternation(gather("definite_articles"))
    ordinal_words = _alternation(ordinal_value)
    suffixes = sorted({_fold(s) for s in gather("ordinal_suffixes")}, key=len, reverse=True)
    suffix_alt = "(?:" + "|".join(map(re.escape, suffixes)) + ")" if suffixes else _NEVER
    digit_ordinal = r"(?<![\w.,])(?P<dnum>\d{1,2})\s?" + suffix_alt + r"(?!\w)"
    markers = _alternation(gather("number_markers"))
    cardinals = _alternation(cardinal_value)
    roman = "(?:" + "|".join(sorted(_ROMAN, key=len, reverse=True)) + ")"
    ones = _alternation(gather("one_words"))
    modifiers = _alternation(gather("ordinal_modifiers"))
    number_end = r"(?![\w%])(?![.,]\d)"

    # Every word list of the lexicon, whatever its role, is a "reference word" when
    # judging what surrounds a candidate; taking all tuple fields means a list added to
    # Lexicon later is covered without touching this code.
    phrase_lists = [
        gather(f.name) for f in fields(Lexicon) if isinstance(getattr(lexicons[0], f.name), tuple)
    ]
    known = frozenset().union(*(_token_set(p) for p in phrase_lists))
    known |= frozenset(ordinal_value) | frozenset(cardinal_value)
    stopwords = _token_set(gather("stopwords"))
    nouns = frozenset(t for n in noun_kind for t in _tokens(n))
    verbs = (
        _token_set(gather("elaboration")) | _token_set(gather("reference_verbs")) | nouns
    ) - stopwords

    return _Compiled(
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
        noun_kind=noun_kind,
        ordinal_value=ordinal_value,
        cardinal_value=cardinal_value,
        known=known,
        verbs=verbs,
        nouns=nouns,
        stopwords=stopwords,
        determiners=_token_set(gather("definite_articles")),
        # Kept with accents: the check runs on original text so "à" is not "a".
        indefinite=frozenset(w.casefold() for w in gather("indefinite_articles")),
        of_words=_token_set(gather("of_words")),
        route_words=_token_set(gather("route_words")),
        not_title_words=(
            stopwords
            | _token_set(gather("elaboration"))
            | _token_set(gather("politeness"))
            | _token_set(gather("anaphora"))
            | _token_set(gather("followup_cues"))
            | _token_set(gather("question_words"))
        ),
        elaboration=_phrase_tuples(gather("elaboration")),
        anaphora=_phrase_tuples(gather("anaphora")),
        anaphora_words=_token_set(gather("anaphora")),
        politeness=_phrase_tuples(gather("politeness")),
        followup_cues=_phrase_tuples(gather("followup_cues")),
        back_references=_phrase_tuples(gather("back_references")),
        comparatives=_phrase_tuples(gather("comparatives")),
        comparative_words=_token_set(gather("comparatives")),
        choice_words=_token_set(gather("choice_words")),
        question_words=_token_set(gather("question_words")),
        leading_conjunctions=_token_set(gather("leading_conjunctions")),
        one_words=_token_set(gather("one_words")),
    )


def _active(languages: Sequence[str] | str | None) -> _Compiled:
    """The matcher for the requested languages.

    Unknown codes are ignored, and if none is known every language is used: a request
    tagged "de" without a German lexicon still gets the French and English forms rather
    than none at all.
    """
    if isinstance(languages, str):
        languages = (languages,)
    picked: tuple[Lexicon, ...] = ()
    if languages is not None:
        picked = tuple(LEXICONS[c] for c in dict.fromkeys(languages) if c in LEXICONS)
    return _compile(picked or tuple(LEXICONS.values()))


# ------------------------------------------------------------------ token neighbours


class _Context:
    """A folded question with its tokens, answering questions about neighbours."""

    def __init__(self, question: str, comp: _Compiled) -> None:
        self.folded = _fold_with_origin(question)
        self.text = self.folded.text
        self.comp = comp
        self.tokens = [_Token(m.group(), m.start(), m.end()) for m in _TOKEN.finditer(self.text)]
        self.words = [t.text for t in self.tokens]
        # Sorted spans for bisection: long pasted messages must not cost quadratic time.
        self._starts = [t.start for t in self.tokens]
        self._ends = [t.end for t in self.tokens]

    def original_of(self, token: _Token) -> str:
        """The token as written, accents and case kept."""
        origin = self.folded.origin
        return self.folded.original[origin[token.start] : origin[token.end - 1] + 1]

    def before(self, pos: int) -> tuple[_Token | None, bool]:
        """The token ending at or before ``pos`` and whether only spaces separate them."""
        index = bisect_right(self._ends, pos) - 1
        if index < 0:
            return None, False
        prev = self.tokens[index]
        return prev, not self.text[prev.end : pos].strip()

    def after(self, pos: int) -> tuple[_Token | None, bool]:
        """The token starting at or after ``pos`` and whether only spaces separate them."""
        index = bisect_left(self._starts, pos)
        if index >= len(self.tokens):
            return None, False
        token = self.tokens[index]
        return token, not self.text[pos : token.start].strip()

    def starts_sentence(self, token: _Token) -> bool:
        """True for the first word of the text or of a sentence."""
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
        if prev.text in self.comp.known or _ID_TOKEN.fullmatch(prev.text):
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
        if nxt.text in self.comp.known or _ID_TOKEN.fullmatch(nxt.text):
            return "known"  # another id counts as a reference word: "S2-S3", "S2 vs S4"
        return "unknown"

    def phrase_at(self, index: int, phrases: Sequence[tuple[str, ...]]) -> bool:
        """True if one of the phrases starts at token ``index``."""
        return any(tuple(self.words[index : index + len(p)]) == p for p in phrases)

    def has_phrase(self, phrases: Sequence[tuple[str, ...]]) -> bool:
        """True if any phrase occurs as consecutive tokens."""
        words = self.words
        for phrase in phrases:
            n = len(phrase)
            for i in range(len(words) - n + 1):
                if tuple(words[i : i + n]) == phrase:
                    return True
        return False


# ----------------------------------------------------------------------- explicit hits


@dataclass(frozen=True)
class _Hit:
    """A reference form found in the question, before checking it against the outline."""

    start: int
    end: int
    priority: int
    kind: str
    number: int
    explicit_id: bool = False


def _id_hits(ctx: _Context, outline_len: int) -> list[_Hit]:
    """``[S2]`` and bare ``S2`` tokens.

    A bracketed id is always a reference. A bare one must look like one: not preceded by
    an indefinite article or a capitalised product word, not followed by a content word
    ("S3 bucket"), and, beyond the outline, phrased with nothing but reference words
    around it ("Detail S12", "S12 please"), since then nothing else vouches for it.
    """
    hits = [
        _Hit(m.start(), m.end(), 0, "section", int(m.group("num")), explicit_id=True)
        for m in ctx.comp.bracket_id.finditer(ctx.text)
    ]
    for m in ctx.comp.bare_id.finditer(ctx.text):
        number = int(m.group("num"))
        in_range = 1 <= number <= outline_len
        prev, nxt = ctx.prev_kind(m.start()), ctx.next_kind(m.end())
        if prev in ("indef", "name") or nxt == "of_content":
            continue
        if nxt == "unknown":
            # Only a verb right before makes "Detail S2 costs" a reference, not a name.
            ok = in_range and prev == "verb"
        elif prev == "unknown":
            ok = in_range
        else:
            ok = True
        if ok:
            hits.append(_Hit(m.start(), m.end(), 0, "section", number, explicit_id=True))
    return hits


def _noun_number_hits(ctx: _Context) -> list[_Hit]:
    """Numbered nouns: "section 2", "§2", "partie 2" (section), "point 2" (ordinal),
    "source 2" (document)."""
    hits = []
    for m in ctx.comp.noun_number.finditer(ctx.text):
        if ctx.prev_kind(m.start()) == "name":
            continue  # "Medicare Part 2", "Windows Section 8": a name, not our outline.
        if m.group("num") is not None:
            number = int(m.group("num"))
        elif m.group("card") is not None:
            number = ctx.comp.cardinal_value[_fold(m.group("card"))]
        else:
            # A roman numeral reads like a letter or a pronoun ("the section I liked"),
            # so it needs the same clean ending as a letter.
            if ctx.next_kind(m.end()) not in ("edge", "known"):
                continue
            number = _ROMAN[m.group("roman")]
        kind = ctx.comp.noun_kind[" ".join(m.group("noun").split())]
        ref_type = {"section": "section", "point": "ordinal", "document": "document"}[kind]
        hits.append(_Hit(m.start(), m.end(), 1, ref_type, number))
    return hits


def _letter_hits(ctx: _Context) -> list[_Hit]:
    """Legacy letters after an item noun: "point B", "la partie C" (A = S1).

    Two letter points each introduced by a route word ("from point A to point B", "du
    point A au point B") describe a trip, not the outline, and yield nothing.
    """
    found = []
    for m in ctx.comp.letter.finditer(ctx.text):
        letter_start = m.start("letter")
        written = ctx.folded.original[ctx.folded.origin[letter_start]]
        # The original must be a plain letter: "partie à" folds to "partie a".
        if not ("a" <= written.casefold() <= "z"):
            continue
        if ctx.prev_kind(m.start()) == "name":
            continue
        if ctx.next_kind(m.end()) not in ("edge", "known"):
            continue  # "le point a été discuté": "a" is a verb here.
        found.append(m)
    if len(found) >= 2 and all(_after_route_word(ctx, m.start()) for m in found[:2]):
        return []
    return [
        _Hit(m.start(), m.end(), 2, "letter", ord(m.group("letter")) - ord("a") + 1) for m in found
    ]


def _after_route_word(ctx: _Context, pos: int) -> bool:
    """True if a route word ("from", "to", "au") precedes ``pos``, skipping an article."""
    prev, _ = ctx.before(pos)
    # "du"/"au" are both an article and a route word, so test the route first.
    if (
        prev is not None
        and prev.text not in ctx.comp.route_words
        and prev.text in ctx.comp.determiners
    ):
        prev, _ = ctx.before(prev.start)
    return prev is not None and prev.text in ctx.comp.route_words


def _ordinal_value(ctx: _Context, m: re.Match[str]) -> int:
    """The rank written by an ordinal match, negative when counted from the end."""
    word = m.groupdict().get("word")
    if word is not None:
        return ctx.comp.ordinal_value[" ".join(word.split())]
    return int(m.group("dnum"))


def _ordinal_hits(ctx: _Context, with_outline: bool) -> list[_Hit]:
    """Ordinals: with a noun ("the third point", "la 2e source") or bare ("le dernier").

    A bare ordinal needs an outline, and either a definite article ("the second", "la
    deuxième"), digits ("2e", "4th") or a message of a few words ("Third?"), and nothing
    after it but punctuation or a filler: "the second largest city", "le 1er mai" and
    "the 4th of July" stay questions.
    """
    hits = []
    for m in ctx.comp.ordinal_noun.finditer(ctx.text):
        if ctx.next_kind(m.end()) == "of_content":
            continue  # "the first source of revenue"
        kind = ctx.comp.noun_kind[" ".join(m.group("noun").split())]
        ref_type = "document" if kind == "document" else "ordinal"
        hits.append(_Hit(m.start(), m.end(), 3, ref_type, _ordinal_value(ctx, m)))
    if not with_outline:
        return hits
    for pattern in (ctx.comp.standalone_word, ctx.comp.standalone_digit):
        for m in pattern.finditer(ctx.text):
            if ctx.next_kind(m.end()) not in ("edge", "known"):
                continue
            # Without an article an ordinal word is an adverb ("First, what is...?",
            # "wait a second") unless it is all the question says ("Third?").
            bare_word = m.group("det") is None and pattern is ctx.comp.standalone_word
            if bare_word and (
                ctx.prev_kind(m.start()) != "edge" or len(ctx.tokens) > BARE_ORDINAL_MAX_WORDS
            ):
                continue
            hits.append(_Hit(m.start(), m.end(), 4, "ordinal", _ordinal_value(ctx, m)))
    return hits


def _section_at(outline: Sequence[OutlineSection], number: int) -> OutlineSection | None:
    """The section with id ``S<number>``, else the one at that rank (negative: from end)."""
    if number < 0:
        number = len(outline) + 1 + number
    for section in outline:
        if section.id.upper() == f"S{number}":
            return section
    if 1 <= number <= len(outline):
        return outline[number - 1]
    return None


def _resolve_hit(
    hit: _Hit, outline: Sequence[OutlineSection], sources: Sequence[str]
) -> Reference | None:
    """Checks a hit against the outline or the sources; None when it does not apply."""
    if hit.kind == "document":
        if not sources:
            return Reference(
                True, False, "document", method=DETERMINISTIC, reason=REASON_NO_SOURCES
            )
        index = hit.number if hit.number > 0 else len(sources) + 1 + hit.number
        if 1 <= index <= len(sources):
            return Reference(True, True, "document", document_index=index, method=DETERMINISTIC)
        return Reference(True, False, "document", method=DETERMINISTIC, reason=REASON_OUT_OF_RANGE)
    if not outline:
        # Only an explicit "S2" is a reference with nothing to point into; "section 2"
        # or "the second point" may be about a document, so it is left to retrieval.
        if hit.explicit_id:
            return Reference(True, False, hit.kind, method=DETERMINISTIC, reason=REASON_NO_OUTLINE)
        return None
    section = _section_at(outline, hit.number) if hit.number != 0 else None
    if section is None:
        return Reference(True, False, hit.kind, method=DETERMINISTIC, reason=REASON_OUT_OF_RANGE)
    return Reference(True, True, hit.kind, section_id=section.id, method=DETERMINISTIC)


# ---------------------------------------------------------------------------- titles


def _stem_match(a: str, b: str) -> bool:
    """Equal words, or long enough words sharing most of their beginning.

    This catches inflection and the French/English cognates of outline titles
    ("reduction"/"reduce", "securite"/"security", "finances"/"financial") without a
    stemmer per language.
    """
    if a == b:
        return True
    shorter = min(len(a), len(b))
    if shorter < 4 or a.isdigit() or b.isdigit():
        return False
    prefix = 0
    for x, y in zip(a, b, strict=False):
        if x != y:
            break
        prefix += 1
    return prefix >= max(4, 0.75 * shorter)


def _title_tokens(title: str, comp: _Compiled) -> set[str]:
    """Content words of a title (all its words if it has only function words)."""
    words = _tokens(_fold(title))
    content = {w for w in words if w not in comp.stopwords and (len(w) > 1 or w.isdigit())}
    return content or set(words)


def _match_title(ctx: _Context, outline: Sequence[OutlineSection]) -> Reference | None:
    """Finds the section a question names by its title words.

    A title is a candidate when the question covers all of its content words, or when
    most of the question's own content words belong to it (a single word unique to one
    title is enough when it is most of what the question says). Among candidates, the
    fully covered title with the most distinctive matched words wins; two equally good
    ones make the reference ambiguous rather than a guess.
    """
    comp = ctx.comp
    match_words = {
        w for w in ctx.words if w not in comp.not_title_words and (len(w) > 1 or w.isdigit())
    }
    # Lexicon nouns ("point", "aspect") do not count as what the question is about,
    # unless they are all it has: a title may be just "Sources" or "Questions".
    content = {w for w in match_words if w not in comp.known} or match_words
    if not content:
        return None
    titles = [_title_tokens(section.title, comp) for section in outline]
    elaborates = ctx.has_phrase(comp.elaboration)

    def doc_freq(word: str) -> int:
        return sum(any(_stem_match(word, other) for other in tokens) for tokens in titles)

    scored = []
    for section, tokens in zip(outline, titles, strict=True):
        if not tokens:
            continue
        matched = {t for t in tokens if any(_stem_match(t, q) for q in match_words)}
        covered = {q for q in content if any(_stem_match(t, q) for t in tokens)}
        if not matched or not covered:
            continue
        title_cov = len(matched) / len(tokens)
        question_cov = len(covered) / len(content)
        distinctive = any(doc_freq(t) == 1 for t in matched)
        # A full title inside a longer question ("what is the production capacity of
        # the farm in 2023?") is only a reference when the user asks to elaborate or
        # the title is a good part of what the question is about.
        full = title_cov == 1.0 and (question_cov >= 0.5 or elaborates)
        if not (full or question_cov >= 0.6 or (distinctive and question_cov >= 0.5)):
            continue
        weight = sum(1 / doc_freq(t) for t in matched)
        key = (title_cov == 1.0, round(weight, 6), round(title_cov, 6))
        scored.append((key, question_cov, section))
    if not scored:
        return None
    scored.sort(key=lambda item: item[0], reverse=True)
    best_key, best_cov, best = scored[0]
    shaped = (
        elaborates
        or ctx.has_phrase(comp.followup_cues)
        or "?" in ctx.folded.original
        or any(w in comp.question_words for w in ctx.words[:1])
    )
    if not shaped and best_cov < 1.0:
        return None
    if len(scored) > 1 and scored[1][0] == best_key:
        return Reference(True, False, "title", method=DETERMINISTIC, reason=REASON_AMBIGUOUS_TITLE)
    return Reference(True, True, "title", section_id=best.id, method=DETERMINISTIC)


# ------------------------------------------------------------------------- public API


def resolve_reference(
    question: str,
    outline: Sequence[OutlineSection],
    sources: Sequence[str] = (),
    languages: Sequence[str] | None = None,
) -> Reference:
    """Resolves what a follow-up question points at in the previous answer.

    Forms, tried in this order and, within explicit forms, leftmost first:

    * ids: ``S2``, ``[S2]``, ``section 2``, ``§2``, ``partie 2`` → ``section``;
    * legacy letters after a point/part/section word: ``point B`` (A = S1) → ``letter``;
    * ordinals: ``2e point``, ``the third point``, ``la dernière partie``, ``point 2``,
      ``le 4e``, ``4th`` → ``ordinal`` (last/final/dernier = the last section);
    * sources by rank: ``the 3rd document``, ``la 2e source``, ``source 2`` →
      ``document``;
    * a section named by its title words ("détaille la partie sécurité") → ``title``;
    * a bare elaboration with no content ("tell me more") → ``anaphora``, detected but
      never resolved: the caller should ask which section.

    Without an outline nothing resolves to a section; only an explicit ``S2`` is still
    reported (reason ``no_outline``), so the caller can say there is nothing to point at.

    Args:
        question: The user's follow-up, as typed.
        outline: The previous answer's outline.
        sources: Titles of the previous answer's sources, in display order.
        languages: Lexicon codes to use; None (or only unknown codes) means all.

    Returns:
        The reference; ``detected`` is False when the question points at nothing.
    """
    comp = _active(languages)
    ctx = _Context(question, comp)
    if not ctx.tokens:
        return NOT_DETECTED
    hits = (
        _id_hits(ctx, len(outline))
        + _noun_number_hits(ctx)
        + _letter_hits(ctx)
        + _ordinal_hits(ctx, bool(outline))
    )
    for hit in sorted(hits, key=lambda h: (h.start, h.priority)):
        reference = _resolve_hit(hit, outline, sources)
        if reference is not None:
            return reference
    if not outline:
        return NOT_DETECTED
    reference = _match_title(ctx, outline)
    if reference is not None:
        return reference
    if _is_pure_anaphora(ctx):
        return Reference(True, False, "anaphora", method=DETERMINISTIC, reason=REASON_PURE_ANAPHORA)
    return NOT_DETECTED


def _cover(words: Sequence[str], phrases: Sequence[tuple[str, ...]], covered: list[bool]) -> bool:
    """Marks the words belonging to any phrase; True if at least one phrase occurred."""
    found = False
    for phrase in phrases:
        n = len(phrase)
        for i in range(len(words) - n + 1):
            if tuple(words[i : i + n]) == phrase:
                covered[i : i + n] = [True] * n
                found = True
    return found


def _is_pure_anaphora(ctx: _Context) -> bool:
    """See :func:`is_pure_anaphora`."""
    comp, words = ctx.comp, ctx.words
    if not words:
        return False
    covered = [False] * len(words)
    if not _cover(words, comp.elaboration, covered):
        return False
    for phrases in (comp.anaphora, comp.politeness):
        _cover(words, phrases, covered)
    return all(
        done or w in comp.stopwords or w in comp.question_words or w in comp.one_words
        for w, done in zip(words, covered, strict=True)
    )


def is_pure_anaphora(question: str, languages: Sequence[str] | None = None) -> bool:
    """Tells whether a question asks for more without saying about what.

    True for "détaille ça", "tell me more (about that)", "can you elaborate?", "go on":
    an elaboration request whose other words are all pronouns, courtesy or function
    words. False as soon as something names a subject ("tell me more about the Samsung
    one", "détaille S2") or when there is no elaboration request at all ("and for P2?").

    Args:
        question: The user's message.
        languages: Lexicon codes to use; None means all.

    Returns:
        Whether the message is a content-free elaboration request.
    """
    return _is_pure_anaphora(_Context(question, _active(languages)))


def looks_like_followup(question: str, languages: Sequence[str] | None = None) -> bool:
    """Tells whether a question probably leans on the previous turn.

    Meant to be asked only when a previous turn retrieved something. Signals: very short
    questions, a leading "and"/"et", follow-up cues ("what about", "et pour", "qu'en
    est-il"), elaboration requests, pronouns pointing back ("it", "celui-ci", "ce
    dernier", "the Samsung one") and comparisons with no subject ("which is cheaper?").

    Args:
        question: The user's message.
        languages: Lexicon codes to use; None means all.

    Returns:
        Whether the question should be condensed with the previous turn's context.
    """
    comp = _active(languages)
    ctx = _Context(question, comp)
    words = ctx.words
    if not words:
        return False
    if len(words) <= SHORT_QUESTION_WORDS:
        return True
    if words[0] in comp.leading_conjunctions:
        return True
    if any(ctx.has_phrase(p) for p in (comp.followup_cues, comp.elaboration, comp.back_references)):
        return True
    # "the Samsung one", "that cheaper one": an item named by the previous answer.
    pointers = comp.determiners | comp.anaphora_words
    for i, word in enumerate(words):
        if word in comp.one_words and i >= 2 and words[i - 2] in pointers:
            return True
    # "which is cheaper?", "lequel est le moins cher ?": a choice among earlier items.
    return words[0] in comp.choice_words and ctx.has_phrase(comp.comparatives)


@lru_cache(maxsize=8)
def _exclusive_stopwords(
    stopwords: tuple[tuple[str, tuple[str, ...]], ...],
) -> dict[str, frozenset[str]]:
    """Per language, the stopword tokens no other language has (folding them is the
    costly part of a vote; keyed on the lists, so a lexicon added later gets its own)."""
    own = {code: _token_set(words) for code, words in stopwords}
    return {
        code: words - frozenset().union(*(o for c, o in own.items() if c != code))
        for code, words in own.items()
    }


def detect_language(text: str) -> str:
    """Guesses the language of a short text by a stopword vote.

    Each lexicon scores one point per word found only in its own stopword list (words
    shared by several languages, like "a" or "on", say nothing) and half a point if the
    text uses its marker characters (French accents). The default wins ties and empty
    votes.

    Args:
        text: Any text, typically a user question.

    Returns:
        A code of :data:`~threadline.followups.lexicon.LEXICONS`, ``"en"`` by default.
    """
    words = _tokens(_fold(text))
    lowered = text.casefold()
    exclusive = _exclusive_stopwords(tuple((c, lex.stopwords) for c, lex in LEXICONS.items()))
    scores: dict[str, float] = {}
    for code, lex in LEXICONS.items():
        score = float(sum(1 for w in words if w in exclusive[code]))
        if lex.marker_chars and any(ch in lowered for ch in lex.marker_chars):
            score += 0.5
        scores[code] = score
    best = max(scores.values(), default=0.0)
    if best <= 0 or scores.get(DEFAULT_LANGUAGE) == best:
        return DEFAULT_LANGUAGE
    return next(code for code, score in scores.items() if score == best)
