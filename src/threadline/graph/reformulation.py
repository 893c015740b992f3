"""Standalone queries for follow-ups: reference queries and deterministic condensation.

Both are pure functions. The LLM condensation (one call over the Minimal
Trail) lives in the graph node; these are what runs with no LLM, and what an
explicit reference always uses.
"""

from __future__ import annotations

from collections.abc import Sequence

from threadline.knowledge.text import fold, terms, tokenize

# Request words carry no topic: they must not be carried into the next query.
_REQUEST_WORDS = set(
    terms(
        "tell more about detail details explain expand elaborate what which how why when "
        "and also please thanks one ones that this those these it them there "
        "dis moi plus detaille explique precise developpe quoi quel quelle quels quelles "
        "comment pourquoi et aussi celui celle ceux ca cela"
    )
)


def reference_query(title: str, question: str) -> str:
    """The retrieval query for a resolved reference: `<title> — <question>`."""
    return f"{title.strip()} — {question.strip()}"


def condense(question: str, previous_query: str | None, previous_titles: Sequence[str]) -> str:
    """Build a standalone query from the message and the previous turn, with no LLM.

    A previous source title that shares a topic word with the message (the
    "Samsung one") is named in full; otherwise the salient words of the
    previous search query that the message does not already contain are
    carried over, after the message's own words so those stay dominant.
    """
    question = question.strip()
    own = set(terms(question)) - _REQUEST_WORDS
    for title in previous_titles:
        if own & set(terms(title)):
            return f"{title} — {question}"
    if not previous_query:
        return question
    carried: list[str] = []
    seen = set(terms(question))
    for word in tokenize(previous_query):
        stemmed = terms(word)
        if not stemmed or stemmed[0] in seen or stemmed[0] in _REQUEST_WORDS:
            continue
        seen.add(stemmed[0])
        carried.append(word)
    if not carried:
        return question
    return f"{question} ({' '.join(carried)})" if fold(question) else " ".join(carried)
