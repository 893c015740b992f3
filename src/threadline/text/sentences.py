"""A text's sentences, for the rules that read a passage or a message sentence by sentence.

Two readings, because two kinds of rule need them:

* :func:`sentences` cuts after every ".", "!" or "?" followed by a space, and at line
  ends: a rule that looks for a word within one sentence (a frequency, a rule's modal, a
  year) would rather see a sentence cut too often than two sentences read as one.
* :func:`sentences_before_capitals` cuts only where the next sentence starts with a
  capital or a digit, so "e.g. the plan" and "approx. 3 days" stay whole: a rule that
  compares whole sentences with each other (parallel sentences) needs them whole.
"""

from __future__ import annotations

import re

_AFTER_END = re.compile(r"(?<=[.!?])\s+")
_AFTER_END_BEFORE_CAPITAL = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9À-Ý])")


def sentences(text: str) -> list[str]:
    """Return a text's sentences, stripped, cut at line ends and after end punctuation."""
    return _split(text, _AFTER_END)


def sentences_before_capitals(text: str) -> list[str]:
    """Return a text's sentences, cut at line ends and where a capital or digit follows."""
    return _split(text, _AFTER_END_BEFORE_CAPITAL)


def _split(text: str, boundary: re.Pattern[str]) -> list[str]:
    return [s.strip() for line in text.splitlines() for s in boundary.split(line) if s.strip()]
