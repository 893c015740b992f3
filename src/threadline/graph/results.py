"""A question about what happened, or what is, is not answered by what was aimed at.

"What was the revenue in 2025?" asks for a result. The 2024 annual report states for
2025 only a target ("Pour l'exercice 2025, Brightwell vise un chiffre d'affaires compris
entre 530 et 545 millions de dollars"): quoted as the answer, the target reads as the
revenue earned. A question in the past tense ("was", "did", "a été", `facts.asks_what_was`)
about a year it names is answered by a sentence that holds that year and a word of what
is asked and states what happened; when every such sentence of the supporting passages
states an aim ("vise", "target", "prévoit", `facts.states_an_aim`), the documents give
no result, only the aim, and the evidence check declines saying so. When no sentence
holds the year with a word asked, the passages hold the year and the thing apart ("435,0
millions de dollars en 2023" is a revenue; the net income stated is 2024's): nothing is
stated of that year, and the question is declined too. A follow-up naming only a
year ("et en 2023 ?" after the net income) asks the previous question of that year in
whatever tense it was put, and a sentence of that year must hold more than half the
words asked (the CSAT's "Net Promoter Score" of 2023 is no net income). A question asking
for the aim itself ("What was the revenue target for 2025?") asks what the sentence says.
A count asked in the present ("How many stores does Brightwell have?") whose only
stated numbers are plans ("prévoit d'ouvrir cinq nouveaux magasins") is declined alike
(`planned_count_only`).
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence

from threadline.graph.question_terms import COVERAGE_MAJORITY, matches_term
from threadline.knowledge.bilingual import (
    translate_passage_terms,
    translate_vocabulary,
)
from threadline.knowledge.facts import (
    asked_type,
    asks_what_is_now,
    asks_what_was,
    counted_noun,
    counted_terms,
    names_the_share_held,
    states_an_aim,
    states_count_of,
)
from threadline.text import fold, terms
from threadline.text.language import detect_language
from threadline.text.matching import acronyms
from threadline.text.sentences import sentences
from threadline.text.tokenize import closed_terms

# A year, not a part of a longer number ("2 025", "12,2025").
_YEAR = re.compile(r"(?<!\d)(?<!\d[,.])(?:19|20)\d\d(?!\d|[,.]\d)")
# What separates a reference query's title and section from its question.
_REFERENCE_DASH = " — "
# The year before the one a sentence is of, said relative to it: "Au 31 décembre 2024,
# Brightwell comptait 2 140 collaborateurs, contre 1 960 un an plus tôt" states 2023's
# staff (read in the folded sentence).
_YEAR_BEFORE = re.compile(
    r"\b(?:un an plus tot|un an auparavant|l'an dernier|l'an passe|l'annee precedente|"
    r"l'annee derniere|a year earlier|a year before|the year before|the previous year|"
    r"the prior year|last year|prior-year)\b"
)


def _years_of(sentence: str, dated: set[str]) -> set[str]:
    """Return the years a sentence is of: those it or its frame names.

    And the year before the latest of them when it says "a year earlier" (the date it
    counts from).
    """
    named = dated | set(_YEAR.findall(sentence))
    if named and _YEAR_BEFORE.search(fold(sentence)):
        named |= {str(max(int(year) for year in named) - 1)}
    return named


def years_said_relatively(passage: Mapping[str, object]) -> set[str]:
    """Return the years a passage states only relative to another ("un an plus tôt").

    "Au 31 décembre 2024, ... contre 1 960 un an plus tôt" holds 2023 as a year it
    speaks of: a question on 2023 finds the passage as it would one naming "2023".
    """
    dated = set(_YEAR.findall(f"{passage.get('title', '')} {passage.get('section', '')}"))
    found: set[str] = set()
    for sentence in sentences(str(passage.get("text", ""))):
        if _YEAR_BEFORE.search(fold(sentence)):
            found |= _years_of(sentence, dated)
    return found - dated - set(_YEAR.findall(str(passage.get("text", ""))))


def _vocabulary(text: str, written: str | None, language: str | None) -> set[str]:
    """Return a text's terms, with their translations when written in another language.

    And the initials of its names, as the evidence check reads a passage: "le Net Promoter
    Score est passé de 41 à 48" states the NPS of the report's year.
    """
    vocabulary = set(terms(text)) | set(closed_terms(text)) | acronyms(text)
    if language and written and written != language:
        vocabulary |= translate_vocabulary(vocabulary, written, language)
        vocabulary |= translate_passage_terms(text, written, language)
    return vocabulary


def stated_of_the_year(
    question: str,
    words: Sequence[str],
    passages: Sequence[Mapping[str, object]],
    language: str | None = None,
    *,
    year_changed: bool = False,
) -> tuple[str, str]:
    """Read what the passages state of the year a question names, in any tense.

    A sentence is of a year it names, or that its passage's title or heading names, and
    of the year before one of those when it says "a year earlier" ("un an plus tôt").

    Args:
        question: The question as asked.
        words: Its content terms (stems) that say what is asked ("revenue"), names left
            out: a sentence holding the year and only "Brightwell" says nothing of it.
        passages: The passages that support an answer (`title`, `text`).
        language: The question's language; a sentence in another one is read with its
            words' and phrases' translations ("chiffre d'affaires" is the revenue).
        year_changed: The message is a follow-up naming only a year ("and in 2023?"):
            the question it stands for asks of that year whatever its tense.

    Returns:
        ("result", "") when a sentence holding the year and a word asked states what
        happened; ("aim", sentence) when every such sentence states an aim (the first);
        ("none", "") when no sentence holds the year with a word asked ("What was the net
        income in 2023?" over a report stating 2024's net income and 2023's revenue);
        ("", "") when the question names no year, or asks for the aim itself. In the
        present tense an aim of the year is what it states of it ("What is the revenue
        for 2025?" is the 2025 target).
    """
    # A reference query's title and section ("Rapport annuel 2024 de Brightwell —
    # Résultats financiers — ...") say where it was found, not what or when it asks.
    frame, _, question = question.rpartition(_REFERENCE_DASH)
    if states_an_aim(question):
        return "", ""
    # A year a question names is what it asks of, in any tense ("Quel est le résultat net
    # 2023 ?", "et le résultat net pour 2023 ?"): a sentence of another year is no
    # answer. Only what was is no aim: a question in the present may ask a year's plan.
    past = asks_what_was(question)
    years = set(_YEAR.findall(question))
    if not years:
        return "", ""
    frame_words = set(terms(frame))
    asked = [w for w in words if w not in years and not _YEAR.fullmatch(w) and w not in frame_words]
    # A count asked of a year is stated by a number of what is counted in a sentence of
    # that year, or by a percentage its clause gives to it, not by a sentence of that
    # year that names the thing.
    noun = counted_noun(question) if asked_type(question) == "quantity" else None
    counted = counted_terms(question, noun) if noun else set()
    aims: list[str] = []
    for passage in passages:
        text = str(passage.get("text", ""))
        written = detect_language(f"{passage.get('title', '')} {text}") if language else None
        # The title and heading date every sentence under them: "Rapport annuel 2024"
        # states 2024's satisfaction rate in a sentence that names no year.
        dated = set(_YEAR.findall(f"{passage.get('title', '')} {passage.get('section', '')}"))
        # A heading naming the year says what every sentence under it states of that
        # year: under "Perspectives 2025", "Brightwell vise un chiffre d'affaires ..." is
        # the 2025 outlook, though no sentence says "perspectives".
        heading = str(passage.get("section", ""))
        framing = (
            _vocabulary(heading, written, language)
            if years <= set(_YEAR.findall(heading))
            else set()
        )
        for sentence in sentences(text):
            if not years <= _years_of(sentence, dated):
                continue
            vocabulary = _vocabulary(sentence, written, language) | framing
            # A word asked makes the sentence one of what a question in the past tense
            # asks; the year a follow-up changes asks the whole previous question of it,
            # so more than half of them, as a passage must hold of a question: the CSAT's
            # "Net Promoter Score" of 2023 says nothing of a net income.
            held = sum(1 for w in asked if matches_term(w, vocabulary))
            needed = (
                math.floor(COVERAGE_MAJORITY * len(asked)) + 1 if year_changed and not past else 1
            )
            if asked and held < needed:
                continue
            if counted and not (
                states_count_of(sentence, counted) or names_the_share_held(sentence, counted)
            ):
                # "combien de magasins en 2023 ?": a sentence of 2023 naming the stores
                # (« 62 % d'électricité renouvelable dans les magasins ..., contre 40 %
                # l'année précédente ») gives no number of them, nor a share of them as
                # « La satisfaction client ... a atteint 91 % » does of the clients.
                continue
            if not (past and states_an_aim(sentence)):
                return "result", ""
            aims.append(sentence)
    return ("aim", aims[0]) if aims else ("none", "")


# A future tense alone states no plan: "you will receive 2 service credits" is a rule.
_WILL = re.compile(r"\bwill\b", re.I)


def states_a_count_of(counted: set[str], passage: Mapping[str, object]) -> bool:
    """Whether a sentence of the passage gives a number of the counted thing.

    `counted`: the terms a count of the counted noun is stated with (`counted_terms`).
    """
    return any(
        states_count_of(sentence, counted) for sentence in sentences(str(passage.get("text", "")))
    )


def planned_count_only(question: str, passages: Sequence[Mapping[str, object]]) -> str:
    """Return the plan the passages state instead of the count a question asks, or "".

    "How many stores does Brightwell have?" asks what there is now: when the only
    sentences giving a number of stores state a plan ("Brightwell prévoit d'ouvrir cinq
    nouveaux magasins en 2025"), quoted as the answer, the five planned stores read as
    the stores there are. The first such sentence is returned, for the decline to quote
    as a plan; "" when a sentence gives the count as a fact, or none gives one, or the
    question asks what was or what is planned. A sentence's future tense alone ("you
    will receive 2 credits") makes no plan: documents state rules that way.
    """
    if asked_type(question) != "quantity" or not asks_what_is_now(question):
        return ""
    noun = counted_noun(question)
    if not noun:
        return ""
    counted = counted_terms(question, noun)
    counting = [
        sentence
        for passage in passages
        for sentence in sentences(str(passage.get("text", "")))
        if states_count_of(sentence, counted)
    ]
    if counting and all(states_an_aim(_WILL.sub(" ", sentence)) for sentence in counting):
        return counting[0]
    return ""
