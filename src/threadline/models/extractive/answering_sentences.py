"""Choosing sentences: of the scored ones, only those that answer the question."""

from __future__ import annotations

import re
from collections.abc import Sequence

from threadline.knowledge.bilingual import (
    lexicon_phrases,
    terms_there_and_back,
    translate_vocabulary,
)
from threadline.knowledge.facts import (
    AIM_NOUNS,
    ASKING_TERMS,
    KIND_WORDS,
    KINDS,
    asks_what_is_now,
    asks_when_to_act,
    counted_noun,
    counted_terms,
    counts_other_things_only,
    has_answer_type,
    names_only_as_a_whole,
    names_the_share_held,
    share_whole,
    staff_counted,
    states_a_point_in_time,
    states_an_aim,
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
    asked_for,
    asked_in_other_forms,
    closed_compounds,
    own_terms,
    question_names,
    sentence_terms,
)
from threadline.models.extractive.sentences import Row
from threadline.models.extractive.siblings import names_another, sibling_patterns
from threadline.text import is_stopword, terms
from threadline.text.language import detect_language
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
    sections: Sequence[str] = (),
    referred: str = "",
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
    # A sentence stating the kind of fact asked is of what its section's heading names:
    # under "Support hours and channels", "Brightwell business hours are Monday to
    # Friday..." says when support is available, though it does not write "support".
    # Any other sentence must hold a word asked itself (no filler the heading covers).
    headed = {si: own & sentence_terms(section) for si, section in enumerate(sections)}
    read: dict[str, set[str]] = {}
    rates = _rates_asked(question)
    for row in rows:
        found = sentence_terms(row[3])
        read[row[3]] = found | asked_in_other_forms(own, found)
        if answer_type in KINDS and has_answer_type(answer_type, row[3]):  # type: ignore[arg-type]
            read[row[3]] |= headed.get(row[1], set())
        read[row[3]] -= {period for period in rates if not _states_a_rate(row[3], period)}
    unfiltered = rows
    if own:
        rows = [r for r in rows if own & read[r[3]]] or rows
    not_aims = AIM_NOUNS | _names(question) | KIND_WORDS
    if own & AIM_NOUNS and own_terms(question, answer_type) - not_aims:
        aimed_at = own - not_aims
        # "What is the revenue target for 2025?" asks the aim of the revenue: a sentence
        # stating another aim without the word ("prévoit de recruter environ 300
        # personnes") holds the target, not what it is of.
        rows = [
            r for r in rows if aimed_at & read[r[3]] or own & AIM_NOUNS & set(terms(r[3]))
        ] or rows
    if answer_type not in KINDS and (named := asked_for(question)):
        # "Quelle formation reçoivent les employés ?" asks for a training: the sentence
        # naming it answers, not those naming only the employees it is asked of. Unless
        # no sentence naming it names what it is asked of: "What SLA applies to the
        # Enterprise plan for P2?" is answered by the P2 response time, not by the
        # uptime SLA, which speaks of no P2.
        of = set(terms(" ".join(question_names(question)))) - named
        # A sentence under a heading naming it speaks of it as its heading says: under
        # "Incident priorities", "A P2 (high) incident is ... a broken remote wipe"
        # answers "what priority is a broken remote wipe?" without writing "priority".
        heads = [sentence_terms(section) for section in sections]
        naming = [
            r for r in rows if named & (read[r[3]] | (heads[r[1]] if r[1] < len(heads) else set()))
        ]
        if not of or any(of & read[r[3]] for r in naming) or not any(of & read[r[3]] for r in rows):
            rows = naming or rows
    rows = _of_passages_acting(rows, question, read)
    if siblings := sibling_patterns(question, texts, referred):
        # "What is a P2 incident?": "A P3 (medium) incident is..." holds "incident"
        # and speaks of another incident; "the Basic plan": not the Business plan's.
        rows = [r for r in rows if not names_another(r[3], siblings)] or rows
    if answer_type in KINDS:
        typed = [r for r in rows if r[0] > 0 and has_answer_type(answer_type, r[3])]  # type: ignore[arg-type]
        if typed:
            rows = typed
        if (
            answer_type == "date"
            and not asks_when_to_act(question)
            and (when := [r for r in rows if states_a_point_in_time(r[3])])
        ):
            # "When is support available?" is answered by the days and hours it is
            # ("Monday to Friday, 8:00 to 20:00"), not by a "monthly uptime
            # commitment": a word of recurrence says how often, not when.
            rows = when
    if (
        answer_type == "duration"
        and (action := asked_action(question))
        and (acting := [r for r in rows if action & sentence_terms(r[3])])
    ):
        # "How long do I have to return a product?" asks the time allowed for returning:
        # "accepts returns ... within 30 days", not "Defects found after 30 days", which
        # names the product and a duration of something else. The sentence itself must
        # write the action (its heading, "Refunds and returns", heads every sentence).
        rows = acting
    if answer_type == "quantity" and (noun := counted_noun(question)):
        rows = _giving_the_count(rows, unfiltered, question, noun)
    if answer_type == "share" and (whole := share_whole(question)):
        # "What percentage of customers are businesses?": a percentage is a share of
        # what follows it ("99.9% monthly uptime"), no share of the customers.
        of_whole = _senses(terms_there_and_back(whole))
        rows = [r for r in rows if states_percentage_of(r[3], of_whole)]
        if part := _share_part(question, own, of_whole):
            # ... and held by what its clause names before it: "What percentage of
            # revenue comes from support contracts?" is « les contrats de support 11 % »,
            # not « La marge brute ... atteint 27,4 % du chiffre d'affaires ... grâce à
            # la part croissante des contrats de support » (the gross margin's share).
            rows = [r for r in rows if names_the_share_held(r[3], part)]
        if asks_what_is_now(question):
            # A share asked in the present is what there is: a plan ("porter la part des
            # contrats de support à 14 %") is no answer to it, even alone.
            rows = [r for r in rows if not states_an_aim(r[3])]
    if answer_type != "share":
        rows = _naming_it_itself(rows, own - _names(question))
    return _holding_what_is_asked(
        rows, question, answer_type, own, read, native, translated, sections
    )


def _names(question: str) -> set[str]:
    """Return the terms of the question's names ("2025", "Pixel 8a")."""
    return set(terms(" ".join(question_names(question))))


def _naming_it_itself(rows: list[Row], asked: set[str]) -> list[Row]:
    """Return the rows naming what is asked other than as a percentage's whole, if any do.

    "Quel était le chiffre d'affaires en 2023 ?" is answered by « Le chiffre d'affaires
    2024 ... contre 435,0 millions de dollars en 2023 », not also by « 41 % du chiffre
    d'affaires, contre 36 % en 2023 »: a percentage of the revenue is a part of it.
    """
    asked -= KIND_WORDS
    if not asked:
        return rows
    parts = {r for r in rows if names_only_as_a_whole(r[3], asked)}
    if not parts or not any(asked & set(sentence_terms(r[3])) for r in rows if r not in parts):
        return rows
    return [r for r in rows if r not in parts]


# "yearly", "monthly", "weekly", "hourly" ask how often, and share their stem with the
# period they count in: a sentence holds one where it states a rate ("$290 per year",
# "paid annually"), not a length ("seven years of updates", "a 2-year warranty").
_RATE_WORDS = {"year": r"annual(?:ly)?|per\s+annum", "month": "", "week": "", "hour": ""}


def _rates_asked(question: str) -> set[str]:
    """Return the periods a question asks a rate in ("yearly"), not named as such."""
    said = question.lower()
    return {
        period
        for period in _RATE_WORDS
        if re.search(rf"\b{period}ly\b", said) and not re.search(rf"\b{period}s?\b", said)
    }


def _states_a_rate(sentence: str, period: str) -> bool:
    """Whether a sentence states something per `period` ("per year", "monthly", "/month")."""
    rate = rf"\b(?:per|a|an|each|every)\s+{period}\b|/\s*{period}\b|\b{period}ly\b"
    if _RATE_WORDS[period]:
        rate += rf"|\b(?:{_RATE_WORDS[period]})\b"
    return bool(re.search(rate, sentence, re.I))


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


def _share_part(question: str, own: set[str], of_whole: set[str]) -> set[str]:
    """Return the terms of the part a share is asked for: the question's beyond its whole.

    "What percentage of revenue comes from support contracts?": support contracts (and
    their translations), not the revenue, nor the words of a share. The words of a
    lexicon phrase holding the whole are the whole's (« chiffre d'affaires »).
    """
    language = detect_language(question)
    phrases = lexicon_phrases(question, language) if language in ("fr", "en") else []
    whole = set(of_whole)
    for phrase, _ in phrases:
        if whole & set(terms(phrase)):
            whole |= set(terms(phrase))
    return own - whole - KIND_WORDS - set(ASKING_TERMS["share"])


def _senses(noun_terms: set[str]) -> set[str]:
    """Return a noun's terms in each of their senses: there, back and there again.

    "employees" is the report's « effectifs » (staff), "headcount" its « collaborateurs ».
    """
    senses = set(noun_terms)
    for source, target in (("en", "fr"), ("fr", "en"), ("en", "fr")):
        senses |= translate_vocabulary(senses, source, target)
    return senses


def _giving_the_count(
    rows: list[Row], unfiltered: list[Row], question: str, noun: str
) -> list[Row]:
    """Return the rows giving the count of the noun asked, else those counting nothing else."""
    # "How many employees": a number of employees, not "two exercises" in a
    # sentence that mentions employees. The noun is read in both languages.
    noun_terms = counted_terms(question, noun)
    counted = [r for r in rows if states_count_of(_without_names(r[3]), noun_terms)]
    if not counted:
        # The question's words may sit in another sentence than the count: "What
        # is the headcount?" is "44 % des effectifs" (a share) in one and "2 140
        # collaborateurs" in the next, read through each sense of the noun (there,
        # back and there again: headcount, staff, collaborateur).
        senses = _senses(noun_terms)
        # Only in a passage that gives a share of the noun where the question's
        # words are: "Combien de clients satisfaits ?" is answered by the rate
        # of satisfied clients, not by "300 personnes" of another passage.
        counting_in = {r[1] for r in rows if states_share_of(r[3], noun_terms)}
        # Scored as answering (their score counts the question's words, which
        # they do not write), as a ranking stated is below.
        counted = [
            (score + 1.0, si, i, sentence)
            for score, si, i, sentence in unfiltered
            if si in counting_in and states_count_of(_without_names(sentence), senses)
        ]
    if staff := staff_counted(question, noun):
        # People who work are the staff: its count answers (« 2 140 collaborateurs ...
        # dont 520 au service client »), not the people hired (« 410 personnes ») or to
        # be hired (« recruter environ 300 personnes »).
        counted = [r for r in counted if states_count_of(r[3], set(staff))] or counted
    if counted:
        return counted
    # No sentence gives the count asked: a sentence whose numbers count
    # other things ("a password of at least 14 characters" for "how many
    # employees?") does not give it either.
    return [r for r in rows if not counts_other_things_only(r[3], noun_terms)]


# A capitalised word after another is part of a name: "Brightwell Devices comptait 2 140
# collaborateurs" counts staff, not the devices "how many devices were collected?" asks.
_NAME_CONTINUED = re.compile(r"\b[A-ZÀ-Ý][\w'’-]*(?: +[A-ZÀ-Ý][\w'’-]*)+")


def _without_names(sentence: str) -> str:
    """Return the sentence with each name's words after its first left out.

    A sentence's capitalised first word may be a function word ("The Dell XPS 13"):
    the name starts after it.
    """

    def first_word(match: re.Match[str]) -> str:
        words = match.group(0).split()
        return " ".join(words[:2] if is_stopword(words[0].lower()) else words[:1])

    return _NAME_CONTINUED.sub(first_word, sentence)


def _holding_what_is_asked(
    rows: list[Row],
    question: str,
    answer_type: str,
    own: set[str],
    read: dict[str, set[str]],
    native: frozenset[int],
    translated: set[str] = frozenset(),  # type: ignore[assignment]
    sections: Sequence[str] = (),
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
    names = set(terms(" ".join(question_names(question))))
    asked = own - names - KIND_WORDS
    # A section's heading says what each of its sentences is about: under "Passwords and
    # multi-factor authentication", the sentence naming the thing asked of ("Is SMS OK
    # for two-factor?": "SMS codes are allowed only as a temporary fallback") speaks of
    # it and of two-factor authentication, though only the heading writes "factor".
    heads = {si: sentence_terms(section) for si, section in enumerate(sections) if section}
    headed = {si: asked & head for si, head in heads.items()}
    written = asked & own_terms(question, answer_type)
    # The question's words joined ("macbookair") are no translation: read by a shared
    # start in a French sentence they would hold "MacBook" and leave the English ones out.
    carried = (asked & translated) - written - closed_compounds(question)
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
            # The question's words translated are words of the sources' language, read in
            # its forms there: « répond » is "respond", which "a first response" holds, and
            # « Sur le plan environnemental » holds « environnement » (the stems differ).
            or (r[1] not in native and any(matches_term(t, read[r[3]]) for t in carried))
            or (members and enumerates(r[3]) and own & read[r[3]])
            or (headed.get(r[1]) and names & read[r[3]])
            # A heading names what all its sentences are about: under « Responsabilité
            # environnementale », each sentence holds the environment asked of the report.
            or (
                r[1] in heads
                and r[1] not in native
                and any(matches_term(t, heads[r[1]]) for t in carried)
            )
        ]
    ):
        # A sentence saying what the whole of X is answers "what is X?" too, whatever
        # other words the question holds ("I keep seeing the word Kubernetes").
        defined = defined_terms(question)
        rows = [r for r in rows if r in holding or defines_whole(r[3], defined)]
    return rows
