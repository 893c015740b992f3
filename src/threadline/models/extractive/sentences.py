"""A passage read as sentences and clauses.

Where a sentence ends, which state nothing, which continue the one before.
"""

from __future__ import annotations

import re

from threadline.models.answer_prompt import PromptSource
from threadline.text import fold

Row = tuple[float, int, int, str]
"""A scored sentence: (score, source index, sentence index, sentence)."""


_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[\"'(«A-ZÀ-Ý0-9])")


_BULLET = re.compile(r"^\s*(?:[-*•]|\d+[.)])\s+")


def said_as(sentence: str) -> str:
    """Return a sentence as said: case and spacing aside, two copies are one sentence."""
    return " ".join(sentence.casefold().split())


def split_sentences(text: str) -> list[str]:
    """Sentences and bullet items of a passage, Markdown markers removed."""
    sentences: list[str] = []
    for line in text.splitlines():
        line = _BULLET.sub("", line).strip()
        if not line or line.startswith("#"):
            continue
        line = re.sub(r"\*\*|__|`", "", line)
        sentences.extend(s.strip() for s in _SENTENCE_END.split(line) if s.strip())
    return sentences


def is_heading(sentence: str, source: PromptSource) -> bool:
    """Whether a sentence only repeats its passage's title or heading ("Penobscot River").

    Pages often open with their title as a line of its own: it names what the passage
    is about and states nothing, so it never answers (nor earns the passage a citation).
    """
    line = fold(sentence).strip(" .:;|-–")
    names = (fold(source.title), fold(source.section))
    return bool(line) and any(line in name for name in names if name)


# A sentence opening on a pronoun or a demonstrative speaks of what the sentence before
# it named: "This type of photography is common at airshows" after "In ground-to-air
# photography, photos of aircraft in flight are taken...".
_ANAPHOR = re.compile(
    r"^\W*(?:this|these|that|those|it|its|they|their|such|"
    r"ce|cet|cette|ces|cela|ceci|il|elle|ils|elles)\b",
    re.I,
)


def continues_previous(sentence: str) -> bool:
    """Whether a sentence goes on about the one before it, as prose.

    It opens on a pronoun or a demonstrative; a heading or a question opening so
    ("This week's offers") states nothing of the sentence before it.
    """
    return bool(_ANAPHOR.match(sentence)) and not states_nothing(sentence)


# How a statement ends: a stop, a colon before a list, a closing quote or bracket, a
# percentage. A short line ending otherwise is a heading or a menu entry.
_STATEMENT_END = re.compile(r"[.!:;)\]\"'”»%]$")


_HEADING_WORDS = 8


def states_nothing(sentence: str) -> bool:
    """Whether a sentence asks or names instead of stating: a question, or a heading.

    A page's FAQ heading restates what the user asks ("Why can't I apply a subscription
    code?"), every word of it, and answers nothing: the sentences after it do. A short
    line that ends as no statement ends ("Checking your invoice status", "Charges based
    on features") names what the lines after it say.
    """
    line = sentence.strip()
    if line.rstrip(" \"'”»)").endswith("?"):
        return True
    return len(line.split()) <= _HEADING_WORDS and not _STATEMENT_END.search(line)


# A sentence's subject is in its first words ("Brightwell business hours are...").
SUBJECT_WORDS = 4


_CLAUSE_END = re.compile(r"\s*[;:]\s+")


def clauses(sentence: str) -> list[str]:
    """Return a sentence's clauses: the statements a semicolon or a colon joins."""
    return [c for c in _CLAUSE_END.split(sentence) if c.strip()] or [sentence]
