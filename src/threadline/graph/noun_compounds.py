"""An English noun compound after a definite article: "the screen lock timeout".

"the screen" alone is a thing to ask which of (a phone's screen, the handbook's screen
lock); "the screen lock timeout" names one thing, the timeout of a screen lock, and when
no passage holds "timeout" the documents say nothing of it: there is nothing to choose.
Only nouns run on into a compound. A possessive ("the actor's approach") or an adjective
("the modern smart design segment") is another construction, where the head may still be
one of several things, so such phrases are not read as compounds.
"""

from __future__ import annotations

import re

import lemminflect

# Where a compound ends: punctuation, or a word that is no noun of it (a preposition,
# a conjunction, a verb of the question's frame).
_COMPOUND_END = re.compile(
    r"[?!.,;:]|\b(?:of|for|in|on|at|to|from|with|by|about|between|and|or|but|that|which|"
    r"who|when|where|is|are|was|were|do|does|did|has|have|can|should|would|will)\b",
    re.I,
)
_LOWER_WORD = re.compile(r"[a-z]+")


def _is_noun_only(word: str) -> bool:
    # A word the dictionary knows is a noun and never an adjective ("screen", "lock";
    # not "modern", "smart"); one it does not know ("timeout") is read as a noun.
    known = lemminflect.getAllLemmas(word)
    return not known or ("NOUN" in known and "ADJ" not in known)


def _words_from(question: str, anchor: str) -> list[str]:
    # The words from the anchor's noun to where a compound ends; [] when the anchor is
    # not found or is not English.
    at = question.lower().find(anchor.lower())
    if at < 0 or not anchor.lower().startswith("the "):
        return []
    rest = question[at + len("the ") :]
    end = _COMPOUND_END.search(rest)
    return (rest[: end.start()] if end else rest).split()


def _nouns(words: list[str]) -> bool:
    return all(_LOWER_WORD.fullmatch(w) and _is_noun_only(w) for w in words)


def noun_compound_after(question: str, anchor: str) -> str:
    """Return the nouns a definite English anchor runs on into, without the article.

    "screen lock timeout" for "the screen" in "what's the screen lock timeout?"; "" when
    the anchor is not found, is not English, runs on into nothing, or a word after it is
    no lower-case noun-only word (a name, a possessive, an adjective, a number).
    """
    words = _words_from(question, anchor)
    if len(words) < 2 or not _nouns(words):
        return ""
    return " ".join(words)


def compound_head(question: str, anchor: str) -> str:
    """Return the noun ending the compound a definite English anchor runs on into.

    "priorities" for "the incident" in "explain the incident priorities": what is asked,
    of incidents. The anchor's own word may be an adjective too ("incident", "modern"):
    the nouns after it still head the phrase. "" when it runs on into no noun-only
    lower-case words.
    """
    words = _words_from(question, anchor)[1:]
    if not words or not _nouns(words):
        return ""
    return words[-1]
