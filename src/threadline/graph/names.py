"""How a conversation and its passages write names: what a talk is about, what a name names.

The evidence check (:mod:`threadline.graph.evidence`, through
:mod:`threadline.graph.referents`) reads names as written: the names a conversation keeps
using are its subject ("The Office" in a talk about the series), a passage names that
subject only as a name ("the box office" does not), and a question's name written only
inside a longer name of a passage ("NASDAQ Biotechnology Index") names another thing
there. Pure functions of texts and packed passages.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from functools import lru_cache

import lemminflect

from threadline.graph.question_terms import name_runs
from threadline.knowledge.bilingual import translate_query
from threadline.text import terms
from threadline.text.language import detect_language
from threadline.text.lexicons import en


@lru_cache(maxsize=1024)
def _asked_terms(question: str) -> frozenset[str]:
    """Return a question's terms, with those of its English translation if it is French."""
    asked = set(terms(question))
    if detect_language(question) == "fr":
        asked |= set(terms(translate_query(question, "fr", "en")))
    return frozenset(asked)


def passage_terms(chunk: Mapping[str, object]) -> list[str]:
    """Return a passage's terms in order: its title, section and text."""
    return terms(f"{chunk.get('title', '')} {chunk.get('section', '')} {chunk.get('text', '')}")


def kept_names(earlier: Sequence[str]) -> list[str]:
    """Return the names a conversation keeps using: what it is about.

    A name ("The Office", "Pokémon Platinum", "QE", "Cloud Directory") that at least half
    of the conversation's exchanges use (each of `earlier` is one, question and answer),
    and at least two: the subject the talk stays on, not a name said in passing ("the
    IRS" in two of seven exchanges about scams). Numbers and codes name no subject.
    Each name is returned as first written.
    """
    counts: dict[tuple[str, ...], int] = {}
    written: dict[tuple[str, ...], str] = {}
    for exchange in earlier:
        found: dict[tuple[str, ...], str] = {}
        for name in name_runs(exchange):
            key = tuple(terms(name))
            if key and not any(ch.isdigit() for ch in name):
                found.setdefault(key, name)
        for key, name in found.items():
            counts[key] = counts.get(key, 0) + 1
            written.setdefault(key, name)
    needed = max(2, (len(earlier) + 1) // 2)
    return [written[key] for key, count in counts.items() if count >= needed]


def names_a_kept_name(
    chunks: Sequence[Mapping[str, object]], labels: Sequence[str], kept: Sequence[str]
) -> list[str]:
    """Return the labels among `labels` whose passage names one of the `kept` names.

    As a name: within a run of capitalised words ("The Office (U.S. season 9)", "Pokémon
    Platinum"), not as a common word ("the box office", "a platinum record").
    """
    wanted = [tuple(terms(name)) for name in kept]
    found = []
    for chunk in chunks:
        label = str(chunk["label"])
        if label not in labels:
            continue
        text = f"{chunk.get('title', '')}. {chunk.get('section', '')}. {chunk.get('text', '')}"
        runs = [tuple(terms(run)) for run in name_runs(text)]
        if any(_within(name, run) for name in wanted for run in runs):
            found.append(label)
    return found


def _within(part: tuple[str, ...], whole: tuple[str, ...]) -> bool:
    """Whether `part` occurs in `whole` as consecutive items."""
    return _count_within(part, whole) > 0


def _count_within(part: tuple[str, ...], whole: tuple[str, ...]) -> int:
    """How many times `part` occurs in `whole` as consecutive items."""
    size = len(part)
    return sum(whole[i : i + size] == part for i in range(len(whole) - size + 1))


# Words that name an edition of a product line, as a model number does: a "MacBook Air"
# is a MacBook, a "Pixel 8 Pro" a Pixel; a "NASDAQ Biotechnology Index" is no NASDAQ.
_EDITIONS = frozenset(terms(" ".join(en.EDITION_WORDS)))
# An edition word right after a model number, in any case: "Galaxy S24 Ultra", "iphone 15
# pro", "Pixel 8a Pro" (the word before the number is read too).
_MODEL_THEN_EDITION = re.compile(r"(?:(\S+)\s+)?\b(\w*\d\w*)\s+([A-Za-z]+)\b")


def _is_model_number(before: str, number: str) -> bool:
    # A code ("S24", "8a") is a model number; a bare number of up to three digits is one
    # after a name ("iPhone 15", "iphone 15": a word no dictionary holds), not after a
    # word ("10 plus devices", "up to 15 max").
    if any(ch.isalpha() for ch in number):
        return True
    word = before.strip("\"'’(").rstrip(",;:")
    return (
        len(number) <= 3
        and word.isalpha()
        and (word[0].isupper() or not lemminflect.getAllLemmas(word.lower()))
    )


def edition_phrases(question: str) -> list[str]:
    """Return the model numbers a question writes with an edition word after: "S24 Ultra".

    An edition word after a model number names another product than the model alone: the
    "Galaxy S24 Ultra" is no "Galaxy S24", whose passage holds "Galaxy", "S24" and, in
    another product's "Intel Core Ultra", "Ultra". The two must be found together.
    """
    return [
        f"{number} {edition}"
        for before, number, edition in _MODEL_THEN_EDITION.findall(question)
        if _is_model_number(before, number)
        if terms(edition) and terms(edition)[0] in _EDITIONS
    ]


# A word then a number, and the word after when there is one: "pixel 8", "Galaxy S24 is".
_WORD_THEN_NUMBER = re.compile(r"\b([^\W\d_]+)\s+(\w*\d\w*)\b(?=(?:\s+([^\W\d_]+))?)")


def written_only_as_editions(question: str, sequences: Sequence[Sequence[str]]) -> list[str]:
    """Return the model numbers a question writes alone that the passages write only in editions.

    "how much is the pixel 8?" and passages naming the "Pixel 8 Pro" (and the "Pixel
    8a"): a name that is only the start of other products' names names none of them. A
    model the passages also write alone ("iPhone 15", "Galaxy S24 phone") is held.
    """
    missing = []
    for word, number, after in _WORD_THEN_NUMBER.findall(question):
        if after and terms(after)[:1] and terms(after)[0] in _EDITIONS:
            continue  # "S24 Ultra": `edition_phrases` reads it
        wanted = tuple(terms(f"{word} {number}"))
        if len(wanted) != 2:
            continue
        following = [
            sequence[i + 2] if i + 2 < len(sequence) else ""
            for sequence in sequences
            for i in range(len(sequence) - 1)
            if tuple(sequence[i : i + 2]) == wanted
        ]
        if following and all(f in _EDITIONS for f in following):
            missing.append(f"{word} {number}")
    return missing


def named_only_within_longer_names(chunk: Mapping[str, object], name: str, question: str) -> bool:
    """Whether a passage writes a question's name only inside longer names of other things.

    "What types of stocks are traded on the NASDAQ?" and a passage naming only the
    "NASDAQ Biotechnology Index": there the name modifies another thing's, as in "Kennedy
    Space Center". A longer name that ends with it names a kind or a part of it (a name's
    last word is its head: "South America" is in America), and one whose other words the
    question holds ("the West branch" for "West Branch") is the question's; a passage that
    also writes the name alone, or as a common word ("a data lake" beside "Data Engine"),
    is not concerned. Codes and numbers stand alone and are not looked at, and a number or
    an edition word in the longer name names a version ("Apple iPhone 15" is an iPhone,
    "Apple MacBook Air" a MacBook). A French question holds the longer name's other words
    in French too ("le portail Fleet" is the "Fleet Portal").
    """
    wanted = tuple(terms(name))
    if not wanted or any(ch.isdigit() for ch in name):
        return False
    asked = _asked_terms(question)
    text = f"{chunk.get('title', '')}\n{chunk.get('section', '')}\n{chunk.get('text', '')}"
    inside = 0
    for sentence in re.split(r"(?<=[.!?])\s+|\n+", text):
        # A first word counts as a name too ("NASDAQ is a stock exchange."): the lower-case
        # word before it only lifts the sentence start.
        for run in name_runs(f"x {sentence}"):
            # A model or edition number names a version of the thing: "Apple iPhone 15"
            # is an iPhone, "Google Pixel 8a" a Pixel.
            words = tuple(t for t in terms(run) if not any(ch.isdigit() for ch in t))
            while len(words) > len(wanted) and words[-1] in _EDITIONS:
                words = words[:-1]  # "Apple MacBook Air" is a MacBook
            held = _count_within(wanted, words)
            if held and (words[-len(wanted) :] == wanted or not set(words) - set(wanted) - asked):
                return False
            inside += held
    return inside > 0 and _count_within(wanted, tuple(terms(text))) <= inside
