"""Sentences naming a sibling of what is asked.

"a P3 incident" for a P2 one, "the Business plan" for the Basic plan.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import lemminflect

from threadline.text import is_stopword, terms

_CODE = re.compile(r"^([^\W\d_]+)(\d+)$")


def _is_noun(word: str) -> bool:
    # A word the dictionary reads as a noun, or does not know: "hours" of "business
    # hours" is a noun of its own, "respond" of "will Business respond" a verb.
    known = lemminflect.getAllLemmas(word.lower())
    return not known or "NOUN" in known


_CAPITALISED = r"[A-ZÀ-Ý][\w'’-]*"


def _names_as_the_passages_write_them(question: str, texts: Sequence[str]) -> list[tuple[str, str]]:
    """Return the lower-case words of a question the passages write as names, with their nouns.

    "the P1 response time on business" over passages writing "the Business plan" names the
    Business plan: ("Business", "plan"), when the word stands alone in the question, after
    a function word and with no noun of its own after it ("business hours" is another
    thing). Each noun the passages
    write after it capitalised inside a sentence is one ("Enterprise plan", "Enterprise
    customers").
    """
    words = re.findall(r"[\w'’-]+|[^\w\s]", question)
    found: list[tuple[str, str]] = []
    for position, word in enumerate(words):
        after = words[position + 1] if position + 1 < len(words) else ""
        if (
            position > 0
            # After a function word ("on business", "for the enterprise"), as a name is:
            # "select query to work" types a common noun after another word.
            and is_stopword(words[position - 1].lower())
            and len(word) > 2
            and word.isalpha()
            # Typed in lower case, or capitalised with no noun beside it ("how fast will
            # Business respond?"): the passages say which noun it names.
            and (word.islower() or word.istitle())
            and not is_stopword(word.lower())
        ):
            name = word.capitalize()
            # Inside a sentence ("the Business plan"), not at its start.
            written = re.compile(rf"(?<=[a-z,] ){name} ([a-z]{{3,}})\b")
            nouns = {m.group(1) for text in texts for m in written.finditer(text)}
            if after and after[0].isalnum() and not is_stopword(after.lower()) and _is_noun(after):
                # A noun of its own after it: a name only before the noun the passages
                # write it with ("the enterprise plan", their "Enterprise plan"), where
                # "business hours" is another thing than the "Business plan".
                # A noun the passages write only after another one beside the name
                # ("Basic customers", their "Basic plan customers") is of the name and
                # that other noun: the name is the "Basic plan" still.
                nouns = nouns & {after.lower()} or {
                    noun
                    for noun in nouns
                    if any(
                        re.search(rf"\b{name} {noun} {re.escape(after)}\b", text, re.I)
                        for text in texts
                    )
                }
            found.extend((name, noun) for noun in sorted(nouns) if not is_stopword(noun))
    return found


def _codes_referred(question: str, referred: str, texts: Sequence[str]) -> list[str]:
    """Return the codes a follow-up's search carried, as the passages write them.

    "how fast will Business respond to that?" after "what is a P2 incident?" is searched
    with "(p2 incident)": "that" stands for the P2 incident, whose code ("p2", "P2" in the
    passages) has siblings as a code the question typed would. Not a code whose letters
    the question types with a number of its own ("and P3?" asks of P3).
    """
    typed = {
        code.group(1).lower() for w in question.split() if (code := _CODE.match(w.strip("?.,!;:")))
    }
    found: list[str] = []
    for word in re.findall(r"[\w'’-]+", referred):
        code = _CODE.match(word)
        if not code or code.group(1).lower() in typed:
            continue
        written = re.compile(rf"\b{re.escape(word)}\b", re.I)
        found.extend(
            {m.group() for text in texts for m in written.finditer(text) if m.group()[0].isupper()}
        )
    return found


def sibling_patterns(
    question: str, texts: Sequence[str] = (), referred: str = ""
) -> list[tuple[re.Pattern[str], str]]:
    """Return how a sentence names another thing of the kind the question names.

    "P2" has siblings "P1", "P3" (the same letters, another number); "the Basic plan"
    has "the Business plan", "the Enterprise plan" (another name before the same
    noun; "le plan Business" after it). Each pattern comes with the name it stands for.
    A name typed in lower case is read as the passages (`texts`) write it
    (`_names_as_the_passages_write_them`). `referred` is what a follow-up's search
    carried from the conversation: the codes it names are asked too (`_codes_referred`).
    """
    words = re.findall(r"[\w'’-]+", question) + _codes_referred(question, referred, texts)
    written = _names_as_the_passages_write_them(question, texts) if texts else []
    # The things the question names are no siblings of each other: "the difference
    # between P1 and P2" asks of both, and a sentence on P2 speaks of one asked.
    asked = {w for w in words if w[0].isupper()} | {word for word, _ in written}
    others = "|".join(re.escape(name) for name in sorted(asked, key=len, reverse=True))
    numbers: dict[str, list[str]] = {}
    for word in words:
        if (code := _CODE.match(word)) and code.group(1)[0].isupper():
            numbers.setdefault(code.group(1), []).append(code.group(2))
    patterns: list[tuple[re.Pattern[str], str]] = []
    for word, noun in written:
        before = rf"\b(?!(?:{others})\b)({_CAPITALISED}) (?i:{re.escape(noun)})\b"
        patterns.append((re.compile(before), word))
    for position, word in enumerate(words):
        code = _CODE.match(word)
        if code and code.group(1)[0].isupper():
            letters = re.escape(code.group(1))
            asked_numbers = "|".join(numbers[code.group(1)])
            patterns.append((re.compile(rf"\b{letters}(?!(?:{asked_numbers})\b)\d+\b"), word))
            continue
        if position == 0 or not word[0].isupper() or is_stopword(word.lower()):
            continue
        for head in (words[position + 1 : position + 2], words[position - 1 : position]):
            if head and head[0].islower() and not is_stopword(head[0]) and terms(head[0]):
                noun = re.escape(head[0])
                before = rf"\b(?!(?:{others})\b)({_CAPITALISED}) (?i:{noun})\b"
                after = rf"\b(?i:{noun}) (?!(?:{others})\b)({_CAPITALISED})"
                # Apart: "Le plan Business" holds "Le plan" (no name) before "plan Business".
                patterns.extend([(re.compile(before), word), (re.compile(after), word)])
    return patterns


def names_another(sentence: str, patterns: Sequence[tuple[re.Pattern[str], str]]) -> bool:
    """Whether a sentence names a sibling of one of the question's names and not it.

    "A P3 (medium) incident is..." for "What is a P2 incident?", "The Business plan SLA
    guarantees 99.9%" for the Basic plan: another incident, another plan. A sentence
    naming both ("If a P1 or P2 incident...") still speaks of the one asked.
    """
    for pattern, name in patterns:
        if re.search(rf"(?<![\w'’-]){re.escape(name)}(?![\w'’-])", sentence):
            continue
        for match in pattern.finditer(sentence):
            # A code is itself the other name; before or after a noun, the capitalised
            # word is, unless it is a sentence's "The" ("The plan covers...").
            other = next((g for g in match.groups() if g), match.group(0))
            if not is_stopword(other.lower()):
                return True
    return False
