"""How much of the question a sentence row says, to choose among rows.

Its share of the question, its heading's, and its fit beyond its score.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from threadline.knowledge.bilingual import (
    lexicon_phrases,
    translate_passage_terms,
    translate_vocabulary,
)
from threadline.knowledge.facts import KINDS
from threadline.models.answer_prompt import PromptSource
from threadline.models.extractive.definitions import defined_terms, defines, leads_with_asked
from threadline.models.extractive.question import own_terms, question_names, sentence_terms
from threadline.models.extractive.sentences import clauses
from threadline.text import fold, terms
from threadline.text.language import detect_language
from threadline.text.matching import matches_synonym, matches_term, terms_in_a_row


def question_coverage(
    question: str,
    sources: Sequence[PromptSource],
    *,
    with_section: bool = False,
    answer_type: str = "",
    compared: frozenset[str] = frozenset(),
) -> Callable[[tuple[float, int, int, str]], float]:
    """Return the share of the question's own words a sentence row holds, 0..1.

    `compared`: the question's numbers measured against a limit (`limits.compared_numbers`),
    no words a sentence must hold: "up to 50% of the monthly fee" holds no "50 devices".

    A sentence in another language than the question's is read with its words'
    translations, so that each of the question's words counts once whatever the
    language it is found in. `with_section`: read with its passage's heading, as the
    sentence scores are ("Monday to Friday" under "Support hours" holds "support").
    """
    asked = detect_language(question)
    # "Que faire si je perds...": French auxiliaries and modals ask how, as the English
    # stopwords "do", "should", "can" do; the index keeps them, a reader not.
    own = own_terms(question, answer_type) - compared
    languages = [detect_language(f"{s.title} {s.text}") for s in sources]

    # A phrase the lexicon translates whole ("ordinateur portable", a laptop) is one
    # thing asked about, counted once, as the evidence check reads it: a catalog laptop
    # holds one of "perdu" and "ordinateur portable", the lost-device rule both. French
    # questions only, as there (an English "business plan" is no phrase asked of).
    phrases: list[tuple[list[str], list[str]]] = []
    for phrase, head in lexicon_phrases(question, asked) if asked == "fr" else ():
        group = [t for t in dict.fromkeys(terms(phrase)) if t in own]
        if len(group) > 1:
            phrases.append((group, terms(head)))
    grouped = {t for group, _ in phrases for t in group}
    units = len(own) - len(grouped) + len(phrases)

    def covered(row: tuple[float, int, int, str]) -> float:
        if not own:
            return 1.0
        found = sentence_terms(row[3])
        if with_section:
            found |= sentence_terms(sources[row[1]].section)
        other_language = languages[row[1]] != asked
        if other_language:
            found |= translate_vocabulary(found, languages[row[1]], asked)
            # Its phrases too, as the evidence check reads the passage: "les ventes en
            # ligne ... 41 % du chiffre d'affaires" says online sales and revenue.
            found |= translate_passage_terms(row[3], languages[row[1]], asked)
        # Read as the evidence check reads a passage: "perds" finds "lose" in
        # translation, "lost" finds "loses", "NPS" a "Net Promoter Score"; and, as the
        # sentences are scored, a synonym ("delete" for "remove"): which passage leads
        # and where its quote starts are the answer's choice, no decision.
        held = sum(
            1
            for t in own
            if t not in grouped and (matches_term(t, found) or matches_synonym(t, found))
        )
        for group, head in phrases:
            # In the question's language the phrase is written in a row; in another
            # one, its words are read through translations, or its translation's head.
            if other_language:
                whole = all(matches_term(t, found) for t in group)
            else:
                whole = terms_in_a_row(group, terms(row[3]))
            held += whole or bool(head and all(matches_term(t, found) for t in head))
        return held / units

    return covered


def heading_coverage(
    question: str, sources: Sequence[PromptSource], answer_type: str = ""
) -> Callable[[int], float]:
    """Return the share of the question's own words a source's heading holds, 0..1."""
    covered = question_coverage(question, sources, answer_type=answer_type)
    return lambda index: covered((0.0, index, 0, sources[index].section))


def sentence_fit(
    question: str,
    answer_type: str = "",
    translated: set[str] = frozenset(),  # type: ignore[assignment]
    compared: frozenset[str] = frozenset(),
) -> Callable[[tuple[float, int, int, str]], tuple[float, ...]]:
    """Return how well a sentence row fits the question beyond its score, to break ties.

    In order: it defines what a "what is X?" question asks about; it names more of the
    question's names ("The Basic plan SLA guarantees 99.5%" for the Basic plan's uptime
    commitment, not "The service level agreement of each plan sets..."); for a question
    asking a kind of fact (a duration, a price...), its subject is what the fact is
    asked of ("Refunds are paid ... within 10 business days", not "Opened devices
    returned within 30 days are refunded"). The subject is read for typed questions
    only: on any question it chose imperatives and conditions ("Select the pricing
    plan", "If you're estimating costs...") on the answers benchmark (ROUGE-L below).
    A number measured against a limit (`compared`: "après 10 jours") is no name.
    """
    defined = defined_terms(question)
    names = {fold(name) for name in question_names(question)} - compared
    leads = leads_with_asked(own_terms(question, answer_type) | translated)

    def fit(row: tuple[float, int, int, str]) -> tuple[float, ...]:
        said = set(re.findall(r"[\w'’-]+", fold(row[3])))
        return (
            float(defines(row[3], defined)),
            float(len(names & said)),
            float(leads(row[3])) if answer_type in KINDS else 0.0,
        )

    return fit


def stated_coverage(
    covered: Callable[[tuple[float, int, int, str]], float],
) -> Callable[[tuple[float, int, int, str]], float]:
    """Return the share of the question a sentence row says in one of its clauses, 0..1.

    "When the SLA uptime commitment is missed, ...; Basic plan customers are not eligible
    for service credits" holds every word of "the uptime commitment of the Basic plan",
    in two statements, neither of which says it.
    """
    return lambda row: max(covered((row[0], row[1], row[2], c)) for c in clauses(row[3]))
