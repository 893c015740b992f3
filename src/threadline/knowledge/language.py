"""Answers across languages: say when the evidence is in another language than the question.

With a multilingual dense model, a French question finds English passages. The offline
extractive model quotes passages as they are (it cannot translate), so a French asker
gets English sentences; the answer then opens with a line in the asker's language that
says so, naming the source: « D'après « Brightwell support policy » (en anglais) : ».
A real LLM is asked instead to answer in the question's language from the evidence
(`answer_language_rule`).

Pure functions of their arguments: no model, no state.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from functools import lru_cache

from threadline.text.language import detect_language

# How each asker's language names the languages evidence can be in.
_LANGUAGE_NAMES: dict[str, dict[str, str]] = {
    "fr": {"en": "en anglais", "fr": "en français"},
    "en": {"en": "in English", "fr": "in French"},
}
_AND = {"fr": " et ", "en": " and "}
_PARTLY = {"fr": "en partie ", "en": "partly "}


def text_language(text: str) -> str:
    """Detect the language of a passage or question: "fr" or "en" (the default on no evidence)."""
    return detect_language(text)


@lru_cache(maxsize=16384)
def passage_language(text: str) -> str:
    """`text_language` of a stored passage, remembered: the same passages recur in turns.

    The retriever reads the language of the candidates of a mixed collection on every
    turn (about half a millisecond a passage); a collection's questions keep finding
    the same passages, so after the first turns this is a lookup.
    """
    return text_language(text)


def _language_list(asker: str, languages: Sequence[str]) -> str:
    names = _LANGUAGE_NAMES.get(asker, _LANGUAGE_NAMES["en"])
    return _AND.get(asker, " and ").join(names.get(code, code) for code in languages)


def evidence_lead_in(question_language: str, sources: Sequence[tuple[str, str]]) -> str:
    """Write the line that opens an answer quoting evidence in another language, or "".

    Args:
        question_language: The asker's language ("fr", "en").
        sources: (title, language) of each cited source, in citation order.

    Returns:
        "" when every source is in the question's language; otherwise one line in the
        question's language naming the source (or "the cited sources" when several
        titles are in another language) and the language(s) they are in, e.g.
        « D'après « Refund policy » (en anglais) : » or 'From "Rapport annuel 2024"
        (in French):'. When some cited sources are in the question's language, the line
        says the sources are partly in another language: naming the one foreign title
        would credit it with the sentences quoted from the others.
    """
    foreign = [(title, lang) for title, lang in sources if lang != question_language]
    if not foreign:
        return ""
    languages = list(dict.fromkeys(lang for _, lang in foreign))
    titles = list(dict.fromkeys(title.strip() for title, _ in foreign if title.strip()))
    said = _language_list(question_language, languages)
    if len(foreign) < len(sources):
        said = _PARTLY.get(question_language, _PARTLY["en"]) + said
        titles = titles + [""]  # several sources: no single title to name
    if question_language == "fr":
        if len(titles) == 1:
            return f"D'après « {titles[0]} » ({said}) :"
        return f"D'après les sources citées ({said}) :"
    if len(titles) == 1:
        return f'From "{titles[0]}" ({said}):'
    return f"From the cited sources ({said}):"


_LEAD_IN = re.compile(r"^(?:D'après .+ \((?:en [^)]+)\) :|From .+ \((?:in |partly )[^)]+\):)\n")


def without_lead_in(answer: str) -> str:
    """Return an answer without the lead-in line `frame_answer` opened it with.

    The line names a source and a language ("D'après « Brightwell support policy » (en
    anglais) :"): words of the framing, not of the answer, which a later turn must not
    carry as what was discussed ("apres", "anglais").
    """
    return _LEAD_IN.sub("", answer, count=1)


def frame_answer(answer: str, question_language: str, cited: Sequence[Mapping[str, str]]) -> str:
    """Frame an extractive answer with the lead-in its cited passages call for.

    Args:
        answer: The answer text, citations included.
        question_language: The asker's language.
        cited: The cited chunks (mappings with "title" and "text"), in citation order.

    Returns:
        The answer unchanged when the cited passages are in the question's language,
        else the lead-in line, a newline, and the answer.
    """
    lead = evidence_lead_in(
        question_language,
        [(chunk.get("title", ""), text_language(chunk.get("text", ""))) for chunk in cited],
    )
    return f"{lead}\n{answer}" if lead else answer
