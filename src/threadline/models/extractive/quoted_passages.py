"""Choosing passages: the lead passage's quote and the next passages that support it."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from threadline.knowledge.facts import states_an_aim
from threadline.models.extractive.coverage import stated_coverage
from threadline.models.extractive.definitions import defines_each, defines_under, defines_whole
from threadline.models.extractive.sentences import Row, continues_previous, said_as, states_nothing
from threadline.text import terms


@dataclass(frozen=True)
class SentenceMeasures:
    """How the question reads a sentence row, to choose among a passage's and across passages.

    `covered`: the share of the question a row holds; `tie_break`: the same read with its
    heading, for rows tied on score; `heading`: how much of what is asked a passage's
    heading names; `fit`: how a row fits beyond its score (`sentence_fit`); `defined`:
    what a "what is X?" question asks about; `sections`: each passage's heading;
    `contrasted`: the two things "the difference between X and Y?" sets against each other.
    """

    covered: Callable[[Row], float]
    tie_break: Callable[[Row], float] | None = None
    heading: Callable[[int], float] | None = None
    fit: Callable[[Row], tuple[float, ...]] | None = None
    defined: set[str] = field(default_factory=set)
    sections: Sequence[str] = ()
    contrasted: tuple[frozenset[str], ...] = ()

    def fitness(self, row: Row) -> tuple[float, ...]:
        """Return how the row fits the question beyond its score (nothing without `fit`)."""
        return self.fit(row) if self.fit is not None else ()

    def best_of(self, found: list[Row]) -> Row:
        """Return a passage's best row: its score, then the question's words, then its fit."""
        return max(
            found, key=lambda r: (r[0], (self.tie_break or self.covered)(r), *self.fitness(r))
        )

    def says_what_x_is(self, row: Row) -> bool:
        """Whether the row says what the whole of a "what is X?" X is, read under its heading."""
        heading = self.sections[row[1]] if row[1] < len(self.sections) else ""
        return defines_whole(row[3], self.defined) or defines_under(row[3], self.defined, heading)

    def defines_each(self, passage: list[Row]) -> bool:
        """Whether a passage's rows say what each of the contrasted things is."""
        return defines_each([r[3] for r in passage], self.contrasted)

    def defines_one(self, row: Row) -> bool:
        """Whether a row says what one of the contrasted things is."""
        return any(defines_whole(row[3], set(side)) for side in self.contrasted)

    def first_saying_as_much(self, rows: list[Row], best: Row) -> Row:
        """Return the first of a passage's rows (in order) saying as much as its best.

        A best row saying no more of the question than an empty sentence would (none of
        its own words, or it has none) was chosen for the words the conversation
        carried ("who do we tell?", "what do I do now?" after a lost laptop: the
        lost-device rule): an earlier row says no more of the question, and the best
        leads.
        """
        stated = stated_coverage(self.covered)
        if stated(best) <= self.covered((0.0, best[1], best[2], "")):
            return best
        return next(
            r
            for r in rows
            if stated(r) >= stated(best)
            and all(a >= b for a, b in zip(self.fitness(r), self.fitness(best), strict=True))
        )


def gathered(
    rows: list[Row],
    covered: Callable[[Row], float],
    *,
    max_sources: int,
    answer_words: int,
    past: bool = False,
    tie_break: Callable[[Row], float] | None = None,
    heading: Callable[[int], float] | None = None,
    fit: Callable[[Row], tuple[float, ...]] | None = None,
    passages: Sequence[Row] = (),
    one_fact: bool = False,
    defined: set[str] = frozenset(),  # type: ignore[assignment]
    sections: Sequence[str] = (),
    contrasted: tuple[frozenset[str], ...] = (),
    compared: bool = False,
) -> list[Row]:
    """Return the answering sentences of the best-ranked passages, each cited to its own.

    Retrieval ranks the passages (both engines fused): the first passage with an
    answering sentence leads, quoted in its own order from its best sentence on (or
    from an earlier one saying as much of the question in one statement), up
    to `answer_words` (an answer reads as the passage does, not as a list of
    scattered best sentences, and starts with what answers),
    and each of the next `max_sources - 1` passages with one adds its best (or its
    first saying as much, as the lead). An
    answer that several passages support cites each of them; one that only the
    first supports stays with it. Of a passage's sentences tied on score, the one
    holding more of the question's words (`tie_break`, read with its heading as the
    scores are) is its best ("marge opérationnelle" for "operating margin", not
    "marge brute" before it); else the first. A question on what happened
    (`past`) is not led by an aim ("vise une marge d'au moins 8,5 %" for "What was
    the operating margin?") when another passage states as much of it as a result,
    and, led by a result, quotes no aim after it.
    A question asking one kind of fact (`one_fact`: a count, a price...) is answered
    by its best sentence and those after it that say as much of the question: "Combien
    de clients satisfaits ?" by the satisfaction rate, not also by the count of
    business clients after it. "The difference between X and Y" (`contrasted`) is
    answered by the best-ranked passage saying what each of them is, with those
    sentences alone. A comparison (`compared`) quotes each thing compared that the lead
    passage names, past `answer_words` (`lead_window`).
    """
    by_source = _answering_by_passage(rows)
    if not by_source:
        return []
    measures = SentenceMeasures(covered, tie_break, heading, fit, defined, sections, contrasted)
    ranked = _passage_order(by_source, measures, max_sources=max_sources, past=past)
    if measures.defines_each(by_source[ranked[0]]):
        # What each one is, as its passage says it, in its order; a sentence naming
        # both together elsewhere says what they share, not how they differ.
        return lead_window(
            [
                r
                for r in sorted(by_source[ranked[0]], key=lambda r: r[2])
                if measures.defines_one(r)
            ],
            passages,
            answer_words,
        )
    best, answering = _lead_answering(by_source[ranked[0]], measures, one_fact=one_fact)
    # Answered by a result, a question on what happened quotes no aim beside it:
    # "What was the revenue in 2024?" is the 486.3 million earned, not also the
    # 2025 target of the outlook section ("Brightwell vise ... 530 et 545 millions").
    results_only = past and not states_an_aim(best[3])
    if results_only:
        answering = [r for r in answering if not states_an_aim(r[3])]
    chosen = lead_window(answering, passages, answer_words, compared=compared)
    return _with_next_passages(
        chosen, by_source, ranked, measures, one_fact=one_fact, results_only=results_only
    )


def _answering_by_passage(rows: list[Row]) -> dict[int, list[Row]]:
    """Return each passage's rows that score, by source index."""
    by_source: dict[int, list[Row]] = {}
    # A question the passage asks (its FAQ heading) or a heading answers nothing; it
    # stays a candidate only in a passage with nothing else to quote.
    stating = {r[1] for r in rows if r[0] > 0 and not states_nothing(r[3])}
    for row in rows:
        if row[0] > 0 and not (states_nothing(row[3]) and row[1] in stating):
            by_source.setdefault(row[1], []).append(row)
    return by_source


def _passage_order(
    by_source: dict[int, list[Row]],
    measures: SentenceMeasures,
    *,
    max_sources: int,
    past: bool,
) -> list[int]:
    """Return the passages quoted, the lead first: retrieval's order, with the exceptions below."""
    covered = measures.covered
    coverage = {si: max(covered(r) for r in found) for si, found in by_source.items()}
    ranked = sorted(by_source)[:max_sources]
    most = max(coverage.values())
    # Read with its heading, as a sentence is scored: under "Support hours and
    # channels", "Monday to Friday, 8:00 to 20:00" says when support is available.
    headed = measures.tie_break or covered
    lead_says = max(headed(r) for r in by_source[ranked[0]])
    if lead_says <= 0.5 <= most and most > lead_says:
        # Retrieval's best passage says at most half of what is asked in any one
        # sentence ("What should I do if I lose my laptop?": a laptop's description;
        # "une perte" read as the "loss of functionality" of a P2 incident): the
        # best-ranked passage with a sentence that says more, and at least half,
        # leads instead, and the passage it displaces is left out, not quoted second.
        first = next(si for si in sorted(by_source) if coverage[si] == most)
        ranked = [first, *[si for si in ranked[1:] if si != first]]
    if measures.heading is not None:
        ranked = _led_by_its_heading(
            ranked, by_source, coverage, measures, measures.heading, max_sources
        )
    if measures.defined and not any(measures.says_what_x_is(r) for r in by_source[ranked[0]]):
        # "What is X?" asked of passages whose lead only mentions X ("see the Kubernetes
        # version information"): the best-ranked passage with a sentence saying what
        # the whole of X is leads, however many of the question's other words the lead
        # holds ("I keep seeing the word Kubernetes": "seeing" is no part of the answer).
        defining = next(
            (
                si
                for si in sorted(by_source)
                if any(measures.says_what_x_is(r) for r in by_source[si])
            ),
            None,
        )
        if defining is not None:
            ranked = [defining, *[si for si in ranked if si != defining]][:max_sources]
    if measures.contrasted and not measures.defines_each(by_source[ranked[0]]):
        # "The difference between X and Y": the best-ranked passage saying what each is.
        contrasting = next(
            (si for si in sorted(by_source) if measures.defines_each(by_source[si])), None
        )
        if contrasting is not None:
            ranked = [contrasting, *[si for si in ranked if si != contrasting]][:max_sources]
    lead_best = measures.best_of(by_source[ranked[0]])
    if past and states_an_aim(lead_best[3]):
        result = next(
            (
                si
                for si in sorted(by_source)
                if not states_an_aim(measures.best_of(by_source[si])[3])
                and covered(measures.best_of(by_source[si])) >= covered(lead_best)
            ),
            None,
        )
        if result is not None:
            ranked = [result, *[si for si in ranked if si != result]][:max_sources]
    return ranked


def _led_by_its_heading(
    ranked: list[int],
    by_source: dict[int, list[Row]],
    coverage: dict[int, float],
    measures: SentenceMeasures,
    heading: Callable[[int], float],
    max_sources: int,
) -> list[int]:
    """Return the passage order led by one whose heading names what is asked, if tied."""
    # Of the passages whose sentences say as much of the question as the lead's,
    # one whose heading names what is asked is about it ("Remote work" for "les
    # règles pour le télétravail"), where the lead may only mention it ("the
    # device can be wiped remotely", under "Device encryption"): it leads, and the
    # other is not quoted after it (`_supports`). Then one whose best sentence
    # defines what "what is X?" asks about. Retrieval's order breaks the ties.
    tied = [si for si in sorted(by_source) if coverage[si] == coverage[ranked[0]]]
    # The names and the subject only choose among one passage's sentences: across
    # passages, retrieval's order knows more of what each is about.
    standing = {
        si: (heading(si), *measures.fitness(measures.best_of(by_source[si]))[:1]) for si in tied
    }
    named = max(standing.values())
    if standing[ranked[0]] < named:
        first = next(si for si in tied if standing[si] == named)
        ranked = [first, *[si for si in ranked if si != first]][:max_sources]
    return ranked


def _lead_answering(
    passage: list[Row], measures: SentenceMeasures, *, one_fact: bool
) -> tuple[Row, list[Row]]:
    """Return the lead passage's best row and its rows from where its answer starts."""
    lead = sorted(passage, key=lambda r: r[2])
    best = measures.best_of(lead)
    whole: list[Row] = []
    if measures.defined and (whole := [r for r in lead if measures.says_what_x_is(r)]):
        # The answer to "what is X?" starts where the passage says what X is.
        best = whole[0]
    # From the passage's best sentence on: "The Enterprise plan costs $899", not the
    # Basic and Business prices written before it.
    start = lead.index(best)
    if not one_fact and not whole:
        # A passage states its point before it goes on: its first sentence that says as
        # much of the question in one statement, naming as many of its names, starts
        # the quote, though a later one scores more for holding the words the
        # conversation carried or rarer ones ("Returns are accepted within 30 days"
        # before "An opened laptop box can still be returned..." for "returns?" after a
        # talk on a laptop; but not "The SLA of each plan sets a monthly uptime
        # commitment" before "The Basic plan SLA guarantees 99.5%" for the Basic
        # plan's). Not for a question asking a kind of fact, whose best sentence is
        # chosen for stating it of what is asked (`sentence_fit`).
        start = lead.index(measures.first_saying_as_much(lead, best))
    answering = lead[start:]
    if one_fact:
        answering = [r for r in answering if measures.covered(r) >= measures.covered(best)]
    return best, answering


def _with_next_passages(
    chosen: list[Row],
    by_source: dict[int, list[Row]],
    ranked: list[int],
    measures: SentenceMeasures,
    *,
    one_fact: bool,
    results_only: bool,
) -> list[Row]:
    """Return the lead's quote followed by the best unsaid row of each next passage."""
    # A sentence several passages hold (a page and its copy, a step two guides share)
    # is said once: a next passage adds its best sentence not already quoted, if any.
    said = {said_as(row[3]) for row in chosen}
    for s_index in ranked[1:]:
        if not _supports(s_index, ranked[0], measures.heading):
            continue
        unsaid = [
            r
            for r in by_source[s_index]
            if said_as(r[3]) not in said and not (results_only and states_an_aim(r[3]))
        ]
        if unsaid:
            row = measures.best_of(unsaid)
            if not one_fact:
                # Its point, as the lead's: the first sentence saying as much as its best.
                row = measures.first_saying_as_much(sorted(unsaid, key=lambda r: r[2]), row)
            chosen.append(row)
            said.add(said_as(row[3]))
    return chosen


def _supports(s_index: int, lead: int, heading: Callable[[int], float] | None) -> bool:
    """Whether a next passage's heading names as much of what is asked as the lead's.

    Under "Support hours and channels", the answer is the support hours; a sentence
    of "Escalation" holding "4 hours" and "customer support" apart speaks of
    something else, and does not support it. Passages without headings all pass.
    """
    return heading is None or heading(s_index) >= heading(lead)


def lead_window(
    answering: Sequence[Row],
    passages: Sequence[Row],
    answer_words: int,
    *,
    compared: bool = False,
) -> list[Row]:
    """Return the lead passage's quote: its answering sentences from the first given on.

    In the passage's order, up to `answer_words`. A sentence that does not answer is
    quoted only when it continues the sentence quoted just before it (it opens on a
    pronoun or a demonstrative, `continues_previous`): "This type of photography is
    common at airshows or airports." says more of the ground-to-air photography the
    sentence before it answered with, and holds none of the question's words.
    `passages` are every scored sentence of the passages in order (none: only the
    answering ones are read). A comparison (`compared`: "Compare the three support
    plans") sets each thing beside the others: past `answer_words`, an answering
    sentence worded as one quoted, of another thing ("The Enterprise plan costs $899 per
    month" after "The Basic plan costs $29 per month"), is still quoted, so none of the
    things compared is left out.
    """
    if not answering:
        return []
    first = answering[0]
    answers = {(r[1], r[2]) for r in answering}
    order = [r for r in passages if r[1] == first[1] and r[2] >= first[2]] or list(answering)
    chosen: list[Row] = []
    words = 0
    for row in order:
        if words >= answer_words:
            if compared and (row[1], row[2]) in answers and _parallel_to_any(row[3], chosen):
                chosen.append(row)
                continue
            if compared:
                continue
            break
        following = bool(chosen) and chosen[-1][2] == row[2] - 1
        if (row[1], row[2]) in answers or (following and continues_previous(row[3])):
            chosen.append(row)
            words += len(row[3].split())
    return chosen


# A name inside a sentence (a capitalised word after its first) or a figure: what
# differs between two sentences worded alike about two things.
_NAMES_AND_FIGURES = re.compile(r"(?<=\s)[A-ZÀ-Ý][\w'’-]*|[$€]?\d[\d.,/%]*")
# Two sentences worded alike: this share of the shorter one's other words in the other
# (one may say more of its thing: "with a named technical account manager").
_ALIKE = 0.6


def _wording(sentence: str) -> set[str]:
    return set(terms(_NAMES_AND_FIGURES.sub(" ", sentence)))


def _parallel_to_any(sentence: str, chosen: Sequence[Row]) -> bool:
    own = _wording(sentence)
    return any(
        own and len(own & (theirs := _wording(r[3]))) >= _ALIKE * min(len(own), len(theirs))
        for r in chosen
    )
