"""What the answer to a "which X ...?" question picked: the X a later "it" stands for.

"Which support plan includes a Slack channel?" asks for one plan; the answer picks it
("Enterprise plan customers have ... a private Slack channel"). A next message saying
"it" ("how much is it per year?") asks of that plan, not of the question's words (the
Slack channel, which no price is stated with). The thing picked is the name the answer
writes with the kind the question asked for ("Enterprise plan", « le plan Enterprise »):
a capitalised name just before or just after the kind's word.
"""

from __future__ import annotations

import re

from threadline.text import fold, is_stopword

# "which plan", "which support plan", « quel plan », « quelle offre de support »: the
# kind asked for is among the first words after the interrogative.
_WHICH = re.compile(r"^\s*(?:which|quel|quelle|quels|quelles)\s+((?:[\w'-]+\s+){0,2}[\w'-]+)")

# A pronoun standing for one thing: what the answer picked. A plural ("they") may stand
# for people the answer names, not for the one thing picked.
_IT = re.compile(r"\b(?:it|its|il|elle|son|sa|ses)\b", re.IGNORECASE)

# A name: capitalised words, possibly with digits ("Enterprise", "Pixel 8a").
_NAME = r"[A-Z][\w-]*(?:\s+(?:[A-Z][\w-]*|\d[\w-]*))*"


def picked_by_the_answer(message: str, previous_question: str, previous_answer: str) -> str | None:
    """Return the thing the previous answer picked that the message's "it" stands for.

    Args:
        message: The user's message ("how much is it per year?").
        previous_question: The question answered before ("Which support plan includes
            a Slack channel?").
        previous_answer: Its answer, as shown.

    Returns:
        The name with its kind ("Enterprise plan"), or None when the previous question
        chose no kind, the message says no "it", or the answer writes no name with the
        kind.
    """
    if not _IT.search(message):
        return None
    asked = _WHICH.match(fold(previous_question))
    if asked is None:
        return None
    kinds = [word for word in asked.group(1).split() if not is_stopword(word)]
    # The answer's first name written with a word of the kind is the one it picked
    # (the answer leads with what it was asked for).
    found = [
        (match.start(), named)
        for kind in kinds
        for pattern in (
            rf"\b(?P<name>{_NAME})\s+(?P<kind>(?i:{re.escape(kind)}s?))\b",
            rf"\b(?P<kind>(?i:{re.escape(kind)}s?))\s+(?P<name>{_NAME})",
        )
        for match in re.finditer(pattern, previous_answer)
        if (named := _named(match))
    ]
    return min(found)[1] if found else None


def _named(match: re.Match[str]) -> str:
    """Return a name written with its kind, without the capitalised article before it.

    "The Samsung Galaxy A55 5G phone" names the Samsung Galaxy A55 5G; "The phone"
    names nothing.
    """
    words = match.group("name").split()
    while words and is_stopword(fold(words[0])):
        words.pop(0)
    if not words:
        return ""
    name = " ".join(words)
    kind = match.group("kind")
    return f"{name} {kind}" if match.start("name") < match.start("kind") else f"{kind} {name}"
