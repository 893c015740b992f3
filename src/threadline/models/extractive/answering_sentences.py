"""Choosing sentences: of the scored ones, only those that answer the question."""

from __future__ import annotations

from collections.abc import Sequence

from threadline.knowledge.bilingual import (
    terms_there_and_back,
    translate_vocabulary,
)
from threadline.knowledge.facts import (
    ASKING_TERMS,
    KIND_WORDS,
    KINDS,
    counted_noun,
    counts_other_things_only,
    has_answer_type,
    share_whole,
    states_count_of,
    states_percentage_of,
    states_share_of,
)
from threadline.models.extractive.definitions import (
    asks_for_members,
    defined_terms,
    defines_whole,
    enumerates,
)
from threadline.models.extractive.question import (
    asked_action,
    asked_in_other_forms,
    own_terms,
    question_names,
    sentence_terms,
)
from threadline.models.extractive.sentences import Row
from threadline.models.extractive.siblings import names_another, sibling_patterns
from threadline.text import terms
from threadline.text.matching import matches_term

# The degree of a ranking ("le plus vendu", "the most popular") is no kind it ranks.
_DEGREES = frozenset(terms("most least plus moins"))


def answering_sentences(
    rows: list[Row],
    question: str,
    answer_type: str,
    translated: set[str] = frozenset(),  # type: ignore[assignment]
    native: frozenset[int] = frozenset(),
    texts: Sequence[str] = (),
) -> list[Row]:
    """Only the sentences that answer the question: no filler.

    A sentence qualifies when it holds one of the question's own content words (when
    the question has any) and, when the question asks for a kind of fact (a price, a
    date...) that some candidate sentence states, states it too. When some sentences
    hold a word of what is asked beyond the question's names, only those answer. No
    share of the best
    sentence's score is asked: which passages answer is retrieval's ranking (the
    answer quotes the best-ranked ones, `gathered`), and a passage ranked lower
    answers with its own best sentence, however it compares with the first one's.
    """
    if answer_type == "rank" and (ranked := [r for r in rows if has_answer_type("rank", r[3])]):
        # A ranking stated ("le smartphone le plus vendu") answers "the best-selling
        # phone" in any language, whatever other words it shares with the question
        # (its score counts it as answering even when it shares none). A ranking is of
        # the kind it ranks: "the best-selling phone" is the smartphone sold most, not
        # "le modèle le plus vendu" among laptops, whatever year both name.
        ranking = (
            set(ASKING_TERMS["rank"]) | _DEGREES | set(terms(" ".join(question_names(question))))
        )
        kind = (own_terms(question, answer_type) | translated) - ranking
        for source, target in (("en", "fr"), ("fr", "en")):
            ranking |= translate_vocabulary(ranking, source, target)
            kind |= translate_vocabulary(kind, source, target)
        kind -= ranking
        ranked = [
            r
            for r in ranked
            if kind & ((found := sentence_terms(r[3])) | asked_in_other_forms(kind, found))
        ] or ranked
        return [(score + 1.0, si, i, sentence) for score, si, i, sentence in ranked]
    own = own_terms(question, answer_type) | translated
    read: dict[str, set[str]] = {}
    for row in rows:
        found = sentence_terms(row[3])
        read[row[3]] = found | asked_in_other_forms(own, found)
    unfiltered = rows
    if own:
        rows = [r for r in rows if own & read[r[3]]] or rows
    rows = _of_passages_acting(rows, question, read)
    if siblings := sibling_patterns(question, texts):
        # "What is a P2 incident?": "A P3 (medium) incident is..." holds "incident"
        # and speaks of another incident; "the Basic plan": not the Business plan's.
        rows = [r for r in rows if not names_another(r[3], siblings)] or rows
    if answer_type in KINDS:
        typed = [r for r in rows if r[0] > 0 and has_answer_type(answer_type, r[3])]  # type: ignore[arg-type]
        if typed:
            rows = typed
    if answer_type == "quantity" and (noun := counted_noun(question)):
        rows = _giving_the_count(rows, unfiltered, noun)
    if answer_type == "share" and (whole := share_whole(question)):
        # "What percentage of customers are businesses?": a percentage is a share of
        # what follows it ("99.9% monthly uptime"), no share of the customers.
        rows = [r for r in rows if states_percentage_of(r[3], _senses(whole))]
    return _holding_what_is_asked(rows, question, answer_type, own, read, native)


def _of_passages_acting(rows: list[Row], question: str, read: dict[str, set[str]]) -> list[Row]:
    """Return the rows of the passages saying something of the action asked, if any."""
    if (action := asked_action(question)) and (
        acting := {r[1] for r in rows if action & read[r[3]]}
    ):
        # "Can I cancel a monthly plan?" is answered by the passages that say
        # something of cancelling ("Monthly support plans can be cancelled at any
        # time"), not by the plans' monthly prices, which hold "monthly" and "plan"
        # and no action. Such a passage is read as usual, its other sentences too.
        rows = [r for r in rows if r[1] in acting]
    return rows


def _senses(noun: str) -> set[str]:
    """Return a noun's terms in each of its senses: there, back and there again.

    "employees" is the report's « effectifs » (staff), "headcount" its « collaborateurs ».
    """
    senses = terms_there_and_back(noun)
    for source, target in (("en", "fr"), ("fr", "en"), ("en", "fr")):
        senses |= translate_vocabulary(senses, source, target)
    return senses


def _giving_the_count(rows: list[Row], unfiltered: list[Row], noun: str) -> list[Row]:
    """Return the rows giving the count of the noun asked, else those counting nothing else."""
    # "How many employees": a number of employees, not "two exercises" in a
    # sentence that mentions employees. The noun is read in both languages.
    counted_terms = terms_there_and_back(noun)
    counted = [r for r in rows if states_count_of(r[3], counted_terms)]
    if not counted:
        # The question's words may sit in another sentence than the count: "What
        # is the headcount?" is "44 % des effectifs" (a share) in one and "2 140
        # collaborateurs" in the next, read through each sense of the noun (there,
        # back and there again: headcount, staff, collaborateur).
        senses = set(counted_terms)
        for source, target in (("en", "fr"), ("fr", "en"), ("en", "fr")):
            senses |= translate_vocabulary(senses, source, target)
        # Only in a passage that gives a share of the noun where the question's
        # words are: "Combien de clients satisfaits ?" is answered by the rate
        # of satisfied clients, not by "300 personnes" of another passage.
        counting_in = {r[1] for r in rows if states_share_of(r[3], counted_terms)}
        # Scored as answering (their score counts the question's words, which
        # they do not write), as a ranking stated is below.
        counted = [
            (score + 1.0, si, i, sentence)
            for score, si, i, sentence in unfiltered
            if si in counting_in and states_count_of(sentence, senses)
        ]
    if counted:
        return counted
    # No sentence gives the count asked: a sentence whose numbers count
    # other things ("a password of at least 14 characters" for "how many
    # employees?") does not give it either.
    return [r for r in rows if not counts_other_things_only(r[3], counted_terms)]


def _holding_what_is_asked(
    rows: list[Row],
    question: str,
    answer_type: str,
    own: set[str],
    read: dict[str, set[str]],
    native: frozenset[int],
) -> list[Row]:
    """Return the rows holding what is asked beyond the question's names, if any do."""
    # "Quelle est la garantie du Pixel 8a ?": a sentence naming the Pixel 8a but not
    # its warranty speaks of the subject, not of what is asked. A word for the kind of
    # answer ("the differences among Fixed, Metered...") is not what a sentence holds:
    # the differences are stated without the word.
    # The question's own words are read as the evidence check reads them, in a
    # sentence of the question's language: "classifies" holds "classification" (a
    # shared start), so the sentence listing the four levels is not left for one that
    # holds "data" alone. Across languages a shared start is a false friend ("revenue",
    # "revendus"); the question's words joined ("differenceamong") are no word of its
    # own: both are found whole or not at all.
    asked = own - set(terms(" ".join(question_names(question)))) - KIND_WORDS
    written = asked & own_terms(question, answer_type)
    # "Quels sont les niveaux de classification ?" asks for the members of a kind:
    # the sentence listing them ("four levels: Public, Internal, Confidential and
    # Restricted") answers, though it writes the kind ("levels") and not the rest
    # ("classifies" is no "classification" across languages).
    members = asks_for_members(question)
    if asked and (
        holding := [
            r
            for r in rows
            if asked & read[r[3]]
            or (r[1] in native and any(matches_term(t, read[r[3]]) for t in written))
            or (members and enumerates(r[3]) and own & read[r[3]])
        ]
    ):
        # A sentence saying what the whole of X is answers "what is X?" too, whatever
        # other words the question holds ("I keep seeing the word Kubernetes").
        defined = defined_terms(question)
        rows = [r for r in rows if r in holding or defines_whole(r[3], defined)]
    return rows
