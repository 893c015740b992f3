"""Values of one asked quantity that differ by a named qualifier inside one passage.

"What is the response time?" over a support policy that says "On the Enterprise plan, P1
incidents get a first response within 15 minutes" and, in parallel sentences, other times
for other plans and priorities: the response time is several values, one per qualifier
(the plan, the priority), and the question names none, so it asks which. Parallel
sentences are sentences of one passage stating the asked thing with a value, worded alike
once their names and numbers are set aside, whose names differ: those names are the
qualifiers. A question that names them ("the P1 response time on the Business plan")
keeps only the sentences that say them all, and one sentence is one value. "The plans"
asks for them all, not one value; "the enterprise" says a qualifier, no quantity.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import cast

from threadline.graph.question_terms import matches_term
from threadline.knowledge.bilingual import (
    translate_passage_terms,
    translate_query,
    translate_vocabulary,
)
from threadline.knowledge.facts import ASKING_TERMS, AnswerType, has_answer_type, is_plural_noun
from threadline.text import fold, terms
from threadline.text.language import detect_language
from threadline.text.sentences import sentences_before_capitals

# A name inside a sentence: a capitalised word, or a code of capitals and digits ("P1"),
# with the lower-case noun it qualifies when one follows ("Enterprise plan", "P1 incidents").
_NAME = re.compile(r"\b(?P<name>[A-Z][A-Za-z]*\d*|[A-Z]+\d+)\b(?:\s+(?P<noun>[a-z]{3,}))?")
_NUMBER = re.compile(r"\d")
# Two sentences worded alike: this share of their other words in common.
_ALIKE = 0.6


def _names(sentence: str) -> list[tuple[str, str]]:
    """Return the names a sentence uses past its first word, with the noun each qualifies."""
    found = []
    for match in _NAME.finditer(sentence):
        if match.start() == 0:
            continue
        found.append((match.group("name"), match.group("noun") or ""))
    return found


def _wording(sentence: str, names: Sequence[tuple[str, str]]) -> set[str]:
    named = {fold(n) for n, _ in names}
    return {w for w in terms(sentence) if w not in named and not _NUMBER.search(w)}


def qualifiers_of(
    asked: str,
    question: str,
    passages: Sequence[Mapping[str, object]],
    language: str | None = None,
    kind: AnswerType | None = None,
    head: str = "",
) -> list[str]:
    """Return the qualifiers that tell apart several values of the asked thing, or [].

    Args:
        asked: What the question asks for unnamed ("the response time").
        question: The question as typed (the names it says are chosen already).
        passages: The packed chunks that fit the question (`text`).
        language: The question's language; a sentence in another one holds the asked
            words through its words' and phrases' translations ("le délai de réponse"
            in "P1 incidents get a first response within 15 minutes").
        kind: The kind of value the question asks for (`facts.asked_type`), if it says:
            only sentences holding a value of that kind state one ("the email for
            support" is an address: plans' sentences listing "email" support beside
            their prices are no several addresses).
        head: The noun the asked phrase runs on into, when it heads an English noun
            compound ("priorities" of "the incident priorities"): what is asked, so a
            sentence states it only when it holds that noun, or, when the noun asks for
            a value ("the response times"), a value of that kind ("within 1 hour").

    Returns:
        The qualifiers, each with the noun it qualifies ("Enterprise plan", "P1
        incidents"), the ones named first in the sentences first; [] when one value or
        no parallel sentences.
    """
    asked_terms = terms(asked)
    asked_words = asked.split()
    # A plural asks for every value ("the plans", "les plans"), not for one.
    if (
        not asked_terms
        or asked_words[0].lower() == "les"
        or is_plural_noun(asked_words[-1].lower())
    ):
        return []
    # A value word first ("le prix du plan", "le délai de réponse") says the kind of value
    # a sentence states of its complement: a response time is no price of a plan.
    value_kind = next(
        (cast(AnswerType, k) for k, words in ASKING_TERMS.items() if asked_terms[0] in words), None
    )
    if value_kind and len(asked_terms) > 1:
        asked_terms = asked_terms[1:]
    else:
        value_kind = None
    # "the incident priorities" asks for priorities, of incidents: the response times
    # stated per plan and priority hold "incident" but are no priorities. A head asking
    # for a value is stated by the value ("the response times": durations).
    head_terms = terms(head)[-1:]
    if head_terms and not value_kind:
        value_kind = next(
            (cast(AnswerType, k) for k, words in ASKING_TERMS.items() if head_terms[0] in words),
            None,
        )
        if value_kind:
            head_terms = []
    hyphenated = [terms(w) for w in asked_words if "-" in w.strip("-")]
    said = {fold(w) for w in re.findall(r"[A-Za-z0-9]+", question)}
    # What the question says in each other language a passage is written in (once each).
    says_across: dict[tuple[str, str], set[str]] = {}
    for passage in passages:
        text = str(passage.get("text", ""))
        sentences = [(s, _names(s)) for s in sentences_before_capitals(text)]
        written = detect_language(f"{passage.get('title', '')} {text}") if language else None
        # A passage in another language than the question's: (question's, passage's).
        across = (language, written) if language and written and written != language else None
        # The qualifiers the question names: a sentence that does not say them all is
        # about another plan or priority than the one asked.
        named = {fold(n) for _, names in sentences for n, _ in names}
        if set(asked_terms) <= set(terms(" ".join(named))):
            continue  # "the enterprise" is one of the qualifiers itself
        # A question in another language says a name in its own words too ("le plan
        # entreprise" is the Enterprise plan).
        says = said
        if across:
            if across not in says_across:
                translated = translate_query(question, *across)
                says_across[across] = {fold(w) for w in re.findall(r"[A-Za-z0-9]+", translated)}
            says = said | says_across[across]
        chosen = says & named
        # "le plan entreprise": the question names which of the asked thing it means (the
        # passages' "Enterprise plan"), as "the Enterprise plan" does.
        if any(
            fold(name) in chosen and set(terms(noun)) & set(asked_terms)
            for _, names in sentences
            for name, noun in names
        ):
            return []
        stating = []
        for sentence, names in sentences:
            words = set(terms(sentence))
            if across:
                asker, writer = across
                words |= translate_vocabulary(words, writer, asker)
                words |= translate_passage_terms(sentence, writer, asker)
            held = sum(1 for t in asked_terms if matches_term(t, words))
            if held * 2 < len(asked_terms) or not _NUMBER.search(sentence):
                continue
            if not all(matches_term(t, words) for t in head_terms):
                continue
            # A hyphenated word is one word: "the post-incident review" is no incident.
            if not all(all(matches_term(t, words) for t in part) for part in hyphenated):
                continue
            if value_kind and not has_answer_type(value_kind, sentence):
                continue
            if kind and not has_answer_type(kind, sentence):
                continue
            if not chosen <= {fold(n) for n, _ in names}:
                continue
            stating.append((sentence, names))
        qualifiers: dict[str, tuple[int, int]] = {}
        for i, (sentence, names) in enumerate(stating):
            for other, other_names in stating[i + 1 :]:
                own, theirs = _wording(sentence, names), _wording(other, other_names)
                if not own or len(own & theirs) < _ALIKE * len(own | theirs):
                    continue
                differing = {n for n, _ in names} ^ {n for n, _ in other_names}
                for order, (name, noun) in enumerate(names + other_names):
                    if name in differing and fold(name) not in says:
                        label = f"{name} {noun}".strip()
                        slot = order if order < len(names) else order - len(names)
                        qualifiers.setdefault(label, (slot, len(qualifiers)))
        if len(qualifiers) >= 2:
            return sorted(qualifiers, key=lambda q: qualifiers[q])
    return []
