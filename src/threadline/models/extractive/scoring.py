"""The question's terms weighed, and every sentence of the sources scored on them."""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence

from threadline.models.answer_prompt import PromptSource
from threadline.models.extractive.question import (
    asked_in_other_forms,
    asking_terms,
    own_terms,
    sentence_terms,
)
from threadline.models.extractive.sentences import Row, clauses, is_heading, split_sentences
from threadline.text import terms
from threadline.text.matching import matches_term, terms_in_a_row


def question_weights(
    question: str,
    search_query: str,
    translated: set[str] | None = None,
    answer_type: str = "",
    compared: frozenset[str] = frozenset(),
) -> Counter[str]:
    """Return each term's weight: 2 for the question's own, 1 for the search query's."""
    weights: Counter[str] = Counter()
    for term in terms(search_query):
        weights[term] = max(weights[term], 1)
    for term in {*own_terms(question, answer_type), *(translated or ())}:
        weights[term] = 2
    for term in asking_terms(question, answer_type):
        weights.pop(term, None)
    for number in compared:
        # "après 10 jours" measured against "within 30 days": the 10 is the user's
        # case, not a word the answer holds ("within 10 business days" is a refund's
        # delay, no return rule).
        weights.pop(number, None)
    return weights


def scored_sentences(
    sources: list[PromptSource],
    weights: Counter[str],
    phrases: Sequence[Sequence[str]] = (),
    together: Sequence[Sequence[str]] = (),
) -> list[Row]:
    """(score, source index, sentence index, sentence) for every sentence.

    `phrases`: the terms of the lexicon's phrases a French question asks ("mot de
    passe"), each one thing: a sentence holds a word of one only where it writes the
    phrase in a row ("le Net Promoter Score est passé de 41 à 48" holds no password).
    `together`: the French terms of an English question's phrases ("gross margin": «
    marge brute »), held only where a sentence writes two of them together (French puts
    words between: « taux de rotation volontaire du personnel » is the staff turnover;
    a translation may join two senses: « rotation du personnel / des effectifs »).
    """
    rows = []
    doc_freq: Counter[str] = Counter()
    per_sentence = []
    for s_index, source in enumerate(sources):
        for i, sentence in enumerate(split_sentences(source.text)):
            if is_heading(sentence, source):
                continue
            section = sentence_terms(source.section)
            # A heading names what each of its sentences is about, read as the evidence
            # check reads it, derivations included: under « Responsabilité
            # environnementale », every sentence speaks of the environment asked.
            section |= {t for t in weights if t not in section and matches_term(t, section)}
            parts = [sentence_terms(clause) | section for clause in clauses(sentence)]
            written = terms(sentence)
            apart = {t for phrase in phrases if not terms_in_a_row(phrase, written) for t in phrase}
            apart |= {
                t
                for phrase in together
                if len(set(phrase) & set(written)) < min(2, len(phrase))
                for t in phrase
            }
            parts = [part - apart for part in parts]
            found = set().union(*parts)
            found |= asked_in_other_forms(set(weights), found)
            per_sentence.append((s_index, i, sentence, found, parts))
            doc_freq.update(found)
    total = max(len(per_sentence), 1)
    for s_index, i, sentence, _, parts in per_sentence:
        # A sentence scores what one of its clauses states: "When Brightwell misses
        # the SLA uptime commitment, ...; Basic plan customers are not eligible for
        # service credits" holds every word of "the uptime commitment of the Basic
        # plan", but in two statements, neither of which is the Basic plan's uptime.
        # In a fixed order: a float sum in a set's order varies between processes,
        # and so would which of two tied sentences is quoted.
        score = max(
            sum(
                weights[t] * math.log(1 + total / doc_freq[t])
                for t in sorted(t for t in held | asked_in_other_forms(set(weights), held))
                if t in weights
            )
            for held in parts
        )
        # Earlier sources ranked higher in retrieval: a small prior breaks ties.
        score *= 1.0 + 0.15 / (1 + s_index)
        rows.append((score, s_index, i, sentence))
    return rows
