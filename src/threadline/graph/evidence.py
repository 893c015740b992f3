"""The decision before any answer: do the packed passages support an answer to this question?

Pure functions over the question, the conversation's earlier questions and the
packed context; no model, no scores fitted to a benchmark. Four verdicts:

* ``answer``: what the question asks *about* (its named things: product names,
  people, codes, numbers) is in the passages, most of its content words are in
  one passage, and what it asks *for* (a price for "how much", a number for "how
  many", a date for "when", a duration, a weight, a person) is there too;
* ``partial``: the same, but some of the question's content words appear in no
  passage: answer the supported part and say what is missing;
* ``not_in_documents``: a named thing, the asked-for kind of fact, or most of the
  question's content is absent, or only documents the conversation was not about
  speak of the X it discussed ("the casino"), or a follow-up leaning on the
  conversation is supported only by passages off its subject ("history best?" after a
  talk on The Office, answered from James Dean's awards): decline, naming the closest
  titles;
* ``ambiguous``: the question points at something it never names ("this animal",
  "the actor", "what is the warranty?" when several products are in play) and
  several distinct candidates in the passages fit it equally, or several documents
  are titled with it ("the season"), or the conversation named several of it ("the
  plan" after three plans), or a name of it is part of several titles ("the Superior
  Court"): ask which one.

The rules are principles, not thresholds tuned on a dev set: "more than half of
the question's content in one passage" is the only ratio, and a named thing must
be present verbatim (after folding and stemming). How a question is read (its
content terms, named things, parts) is in :mod:`threadline.graph.question_terms`, the
references it makes to things it may not name in :mod:`threadline.graph.anchors`, and
which passages are about what in :mod:`threadline.graph.referents`; this module holds
the verdict; what several of its checks read of the turn (the passages' terms, the
question's names, content terms and unnamed references) is read once in
:mod:`threadline.graph.turn_reading` (`Turn`). Over 400 lines: `decide` is the list of
the checks in the order they run, each a function returning a verdict or None (go on),
each rule with the case that made it; the passages the checks narrow to are
`_Findings`. How the passages are read (`read_passages`) and a question with a named
thing missing (`without_missing_names`) stand apart.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Literal

from threadline.followups.anaphora import continues_the_subject, looks_like_followup
from threadline.graph.anchors import (
    DEMONSTRATIVE,
    UNSAID,
    kinds_named_before,
    said_before,
    unanchored_reference,
    unanchored_references,
    valued_references,
    written_as_a_name,
)
from threadline.graph.catalog_requests import (
    compares_on_a_spec,
    without_comparatives,
    without_kind_words,
    without_product_reference,
)
from threadline.graph.ellipsis import asks_under_another_circumstance
from threadline.graph.names import passage_terms
from threadline.graph.noun_compounds import compound_head, noun_compound_after
from threadline.graph.polar import (
    SENTENCE_KINDS,
    is_polar,
    qualified_things,
    states_kind_with,
    states_together,
    writes_the_thing,
)
from threadline.graph.qualifiers import qualifiers_of
from threadline.graph.question_terms import (
    COVERAGE_MAJORITY,
    PRONOUN,
    asked_phrase_terms,
    asked_situation,
    asks_for_a_feature,
    asks_what_is_done_to_the_subject,
    chunk_vocabulary,
    content_terms,
    happens_to_terms,
    holds_phrase,
    kind_word_compounds,
    matches_term,
    name_phrases,
    named_things,
    question_parts,
    term_forms,
    typed_kind_terms,
    uncovered_parts,
    without_answer_language,
)
from threadline.graph.referents import (
    candidate_titles,
    distinct_things,
    from_discussed,
    from_lead_discussed,
    leaves_the_conversation,
    name_shared_by_titles,
    off_the_subject,
    titled_with,
)
from threadline.graph.results import (
    planned_count_only,
    stated_of_the_year,
    states_a_count_of,
    years_said_relatively,
)
from threadline.graph.rules import closest_rule_titles, policy_topic, states_rules_about
from threadline.graph.turn_reading import DEFINITE_ANCHOR, EvidenceBase, Turn, closest_titles
from threadline.knowledge.bilingual import (
    translate_passage_terms,
    translate_query,
    translate_vocabulary,
)
from threadline.knowledge.facts import (
    AnswerType,
    asked_type,
    bound_terms,
    counted_noun,
    counted_terms,
    has_answer_type,
    is_plural_noun,
    obligation_terms,
)
from threadline.text import fold, terms
from threadline.text.language import detect_language
from threadline.text.matching import acronyms

Verdict = Literal["answer", "partial", "not_in_documents", "ambiguous"]


@dataclass(frozen=True)
class Evidence:
    """What the check found, and the verdict it implies."""

    verdict: Verdict
    reason: str
    """A short machine-readable why (trace and stop_reason detail)."""
    content_terms: tuple[str, ...] = ()
    """The question's own content terms (stems)."""
    named: tuple[str, ...] = ()
    """Named things of the question (as typed)."""
    missing_named: tuple[str, ...] = ()
    missing_terms: tuple[str, ...] = ()
    """Content words (as typed) that no passage holds."""
    asks_for: AnswerType | None = None
    coverage: float = 0.0
    """Best single-passage coverage of the question's content, 0..1."""
    supporting: tuple[str, ...] = ()
    """Labels of the passages that support the answer, best first."""
    candidates: tuple[str, ...] = ()
    """For ambiguous: the distinct things that fit (titles)."""
    closest: tuple[str, ...] = field(default_factory=tuple)
    """For a decline: the titles closest to the question."""
    answered: str = ""
    """For partial: the parts of the question the passages cover (what to answer)."""
    about: tuple[str, ...] = ()
    """Labels of the passages about what the question is about (its names, or what
    "it" refers to); an answer is composed from these."""
    aim: str = ""
    """For a decline of what happened: the aim the passages state instead (a target)."""
    quality: str = ""
    """For a decline of "is X <quality>?": the quality as typed, which the passages about
    X do not state (X is `missing_named`)."""
    kind_stated: bool = False
    """The supporting passages are those with a sentence stating the kind of fact asked
    of what is asked (a number of the thing counted, a frequency, a share): the answer
    is in them, and a quoting model is shown only them."""


# A yes/no question whether a thing has, supports or comes with a feature.
HAS_A_FEATURE = re.compile(
    r"\b(?:have|has|had|support|supports|include|includes|come with|comes with|offer|"
    r"offers|a-t-il|a-t-elle|ont-ils|ont-elles|poss[eè]de|possèdent|dispose|disposent|"
    r"supporte|supportent|inclut|incluent|propose|proposent)\b",
    re.I,
)


@lru_cache(maxsize=4096)
def passage_vocabulary(title: object, section: object, text: object) -> frozenset[str]:
    """Return the terms the check reads in a passage: its stems, acronyms and years.

    Remembered per passage: a follow-up reads the passages of the turn before again,
    and reading them (the years stated relatively fold every sentence) was 4.5% of a
    turn's samples in a profile of the turns benchmark at 10k chunks.

    Args:
        title: The passage's title, as the packed context holds it.
        section: Its section heading.
        text: Its text.
    """
    passage = {"title": title, "section": section, "text": text}
    return frozenset(
        chunk_vocabulary(passage)
        | acronyms(f"{title}. {section}. {text}")
        # "1 960 un an plus tôt" in a sentence of 2024 speaks of 2023.
        | years_said_relatively(passage)
        # "up to 50% of the monthly fee" states the maximum service credit.
        | bound_terms(str(text))
        # "employees must connect through the VPN" states that the VPN is mandatory.
        | obligation_terms(str(text))
    )


def read_passages(
    chunks: Sequence[Mapping[str, object]], language: str | None
) -> tuple[dict[str, set[str]], list[str], list[str]]:
    """Read the packed passages as the check compares them with a question.

    Args:
        chunks: The packed context (`label`, `title`, `section`, `text`).
        language: The question's language; a passage in another one is read with its
            words' and phrases' translations too. None: as written.

    Returns:
        (each passage's terms by label, the titles, the section headings), titles and
        headings of passages in another language with their translations added.
    """
    vocab = {
        str(c["label"]): set(
            passage_vocabulary(c.get("title", ""), c.get("section", ""), c.get("text", ""))
        )
        for c in chunks
    }
    titles = [str(c.get("title") or "") for c in chunks]
    # A section's heading names what it is about as a title does: "the password" in a
    # handbook whose section is "Passwords and multi-factor authentication". A heading
    # in another language is read with its translation, as one name, not two.
    headings: list[str] = []
    languages: dict[str, str | None] = {}
    for chunk in chunks:
        section = str(chunk.get("section") or "")
        passage_language = (
            detect_language(f"{chunk.get('title', '')} {chunk.get('text', '')}")
            if language
            else None
        )
        if language and passage_language and passage_language != language:
            label = str(chunk["label"])
            vocab[label] |= translate_vocabulary(vocab[label], passage_language, language)
            vocab[label] |= translate_passage_terms(
                f"{section}. {chunk.get('text') or ''}", passage_language, language
            )
            title = str(chunk.get("title") or "")
            # Only the words the title does not write itself: "Brightwell support policy"
            # and its « soutenir assistance support politique » are one document, which
            # "support" names once (« le support » is that document's subject, no thing
            # several titles name).
            written = set(terms(title))
            added = [
                word
                for word in translate_query(title, passage_language, language).split()
                if not set(terms(word)) <= written
            ]
            if added:
                titles.append(" ".join(added))
            if section:
                # Each word's senses too: "Support hours" is the French asker's "horaires"
                # as well as "heures" (translate_query keeps one sense per word).
                senses = translate_vocabulary(terms(section), passage_language, language)
                translated = translate_query(section, passage_language, language)
                section = f"{section} {translated} {' '.join(sorted(senses))}"
        if section:
            headings.append(section)
        languages[str(chunk["label"])] = passage_language
    others = {lang for lang in languages.values() if lang and lang != language}
    if language and others:
        # The passages in another language are read through the lexicon, with each of
        # their words' senses ("employees" is "employés", "salariés", "collaborateurs");
        # a passage in the question's own language is read with the same senses, or the
        # report's "2 140 collaborateurs" would not hold the "employés" asked for while
        # the English handbook's "employees" does.
        for label, passage_language in languages.items():
            if passage_language == language:
                for other in others:
                    across = translate_vocabulary(vocab[label], language, other)
                    vocab[label] |= translate_vocabulary(across, other, language)
    return vocab, titles, headings


def without_missing_names(
    question: str,
    chunks: Sequence[Mapping[str, object]],
    vocab: Mapping[str, set[str]],
    missing_named: tuple[str, ...],
    declined: Evidence,
    *,
    earlier: Sequence[str],
    carried: str,
    focus: Sequence[str],
    language: str | None,
) -> Evidence:
    """Decide a question some of whose named things no passage holds.

    The parts of a question in several parts that name none of them are answered when
    the passages support them as a question of their own (their content in one passage,
    their kind of fact stated): a partial answer that says what is missing. Otherwise
    the question is declined (`declined`).

    Args:
        question: The user's message.
        chunks: The packed context.
        vocab: Each passage's terms by label (`read_passages`).
        missing_named: The named things no passage holds.
        declined: The verdict when no part can be answered.
        earlier: As for `decide`, for the remaining part.
        carried: As for `decide`.
        focus: As for `decide`.
        language: As for `decide`.
    """
    parts = question_parts(question)
    clean = [p for p in parts if not any(fold(n) in fold(p) for n in missing_named)]
    covered = [p for p in clean if not uncovered_parts(f"{p} ? {p}", list(vocab.values()))]
    if not (len(parts) >= 2 and clean and covered == clean):
        return declined
    answered = " ? ".join(clean) + " ?"
    remainder = decide(
        answered,
        chunks,
        earlier=earlier,
        carried=carried,
        focus=focus,
        language=language,
        whole=question,
    )
    if remainder.verdict != "answer":
        return declined
    if not named_things(answered) and off_the_subject(
        question, chunks, remainder.supporting, earlier
    ):
        # "Do you have the $ number? Is this for 2024?" after a talk on QE: what is left
        # ("the $ number") leans on the conversation as the message did.
        return declined
    return Evidence(
        "partial",
        "a_named_thing_missing",
        content_terms=declined.content_terms,
        named=declined.named,
        missing_named=missing_named,
        missing_terms=missing_named,
        asks_for=remainder.asks_for,
        supporting=remainder.supporting,
        closest=declined.closest,
        answered=answered,
        about=remainder.about,
    )


def decide(
    question: str,
    chunks: Sequence[Mapping[str, object]],
    *,
    earlier: Sequence[str] = (),
    carried: str = "",
    deliverable: bool = False,
    reference: bool = False,
    tool: bool = False,
    focus: Sequence[str] = (),
    language: str | None = None,
    whole: str = "",
    year_changed: bool = False,
) -> Evidence:
    """Decide answer / partial / not in the documents / ambiguous for one turn.

    The checks run in order, each a function returning a verdict or None (no verdict:
    go on); those after `_CHECKS_BEFORE_SUPPORT` narrow which passages support the
    answer (`_Findings`) as they go. What several checks read of the turn is computed
    once (`Turn`).

    Args:
        question: The user's message as typed.
        chunks: The packed context (`label`, `title`, `section`, `text`, `hit`).
        earlier: Text of the conversation's earlier turns, oldest first.
        carried: The standalone query the reformulator built (it carries the names
            a follow-up refers to: "is it free?" → the product of the previous turn).
        deliverable: A summary/overview request: the document itself is the answer.
        reference: An explicit reference into the previous answer was resolved.
        tool: The context is a catalog tool result (structured data).
        focus: Titles of what the previous answer was about ("it" refers to them).
        language: The question's language ("fr", "en"); a passage in the other one is
            read with its words' translations too (`translate_vocabulary`), so a French
            question over an English passage is checked on what the passage says. None:
            words are compared as written.
        whole: The user's whole message when `question` is the part of it left to answer
            (a partial answer): whether it leans on the conversation is read on it.
        year_changed: The message is a follow-up naming only a year ("et en 2023 ?"):
            the question must be answered of that year, whatever its tense.

    Returns:
        The verdict with its evidence.
    """
    if not chunks:
        return Evidence("not_in_documents", "no_context")
    if tool:
        return _tool_result(question, chunks, language)
    question = without_answer_language(question)
    turn = Turn(
        question,
        chunks,
        earlier=earlier,
        carried=carried,
        deliverable=deliverable,
        reference=reference,
        focus=focus,
        language=language,
        whole=whole,
        year_changed=year_changed,
        read=read_passages(chunks, language),
    )
    for check in _CHECKS_BEFORE_SUPPORT:
        if (verdict := check(turn)) is not None:
            return verdict
    found = _Findings(eligible=list(turn.about_the_question), base=turn.base())
    for narrowing in _CHECKS_OF_SUPPORT:
        if (verdict := narrowing(turn, found)) is not None:
            return verdict
    return Evidence("answer", "covered", supporting=found.supporting, **found.base)


def _tool_result(
    question: str, chunks: Sequence[Mapping[str, object]], language: str | None
) -> Evidence:
    """Decide a turn whose context is a catalog tool's rows."""
    # A catalog tool ran typed filters over structured data: its rows are the answer,
    # unless the message asks whether a product has something no row states ("does the
    # first one support wireless charging?": the Nokia's entry says nothing of it).
    # The kind of product it searched is what every row is ("do you sell computers?").
    # A comparative on a spec ("a cheaper alternative") is stated by the rows' values as
    # the ranking's order, and "an alternative" is any row: neither is a word to find.
    asked = content_terms(
        without_comparatives(without_kind_words(without_product_reference(question)))
    )
    # "Is the Galaxy S24 cheaper than the Pixel 8 Pro?" is answered by the two rows
    # ranked on price: the relation is their values, which no row states in words.
    if asked and is_polar(question) and not compares_on_a_spec(question):
        vocab, _, _ = read_passages(chunks, language)
        if not any(
            sum(1 for t in asked if matches_term(t, words)) * 2 >= len(asked)
            for words in vocab.values()
        ):
            forms = term_forms(question)
            return Evidence(
                "not_in_documents",
                "relation_not_stated",
                content_terms=tuple(asked),
                missing_terms=tuple(forms.get(t, t) for t in asked),
                closest=closest_titles(chunks),
            )
    return Evidence("answer", "tool_result", supporting=tuple(str(c["label"]) for c in chunks))


@dataclass
class _Findings:
    """What the checks found so far: the passages still in play and the evidence."""

    eligible: list[str]
    """The passages about the question still in play."""
    base: EvidenceBase
    """The evidence the verdict reports (`Evidence` fields)."""
    supporting: tuple[str, ...] = ()
    """The passages that support the answer, best first (once coverage is scored)."""
    scored: list[tuple[float, int, str]] = field(default_factory=list)
    """Each eligible passage's coverage, with its order, best first."""
    best: float = 0.0


# The checks before the passages about the question are read: each decides or not.


def _named_thing_missing(turn: Turn) -> Evidence | None:
    if not turn.missing_named or turn.reference:
        return None
    return without_missing_names(
        turn.question,
        turn.chunks,
        turn.vocab,
        turn.missing_named,
        Evidence(
            "not_in_documents",
            "named_thing_missing",
            content_terms=tuple(turn.content),
            named=tuple(turn.names),
            missing_named=turn.missing_named,
            asks_for=turn.kind,
            closest=turn.closest,
        ),
        earlier=turn.earlier,
        carried=turn.carried,
        focus=turn.focus,
        language=turn.language,
    )


def _resolved_target(turn: Turn) -> Evidence | None:
    if not (turn.deliverable or turn.reference):
        return None
    # The user named the document or section to work on; it was resolved to these.
    return Evidence(
        "answer",
        "resolved_target",
        content_terms=tuple(turn.content),
        named=tuple(turn.names),
        supporting=tuple(turn.vocab),
        closest=turn.closest,
    )


def _several_named_before(turn: Turn) -> Evidence | None:
    phrase, kinds = kinds_named_before(turn.question, turn.earlier)
    if not kinds:
        return None
    # "the plan" after an answer naming the Trial, Standard and Enterprise plans.
    return Evidence(
        "ambiguous",
        f"unanchored:{phrase}:several_named_before",
        content_terms=tuple(turn.content),
        named=tuple(turn.names),
        asks_for=turn.kind,
        candidates=tuple(kinds[:5]),
        closest=turn.closest,
    )


_CHECKS_BEFORE_SUPPORT = (_named_thing_missing, _resolved_target, _several_named_before)

# Named things were checked above (each must be present). The question's content
# (names included) must be mostly in one passage about what the question is about
# (its names, or for "is it ...?" what was discussed), and what it asks for ("the
# stock price" in "what is Brightwell's stock price?") must be in that passage whole.
# The checks below read the passages about the question and narrow them (`_Findings`).


def _ask(turn: Turn, found: _Findings, reason: str, candidates: Sequence[str]) -> Evidence:
    # A question about something it never names: not finding it is no evidence the
    # documents lack it; ask which one, naming what was found.
    return Evidence(
        "ambiguous",
        f"unanchored:{turn.anchor}:{reason}",
        candidates=tuple(candidates[:5]) or turn.closest,
        **found.base,
    )


def _decline_or_ask(
    turn: Turn,
    found: _Findings,
    reason: str,
    among: Sequence[str],
    missing: Sequence[str] | None = None,
) -> Evidence:
    # The same finding reads two ways: with an unnamed reference ("the season"), ask
    # which of the passages it may mean; otherwise the documents do not say it
    # (`missing`: the terms to name in the decline, when narrower than the content's).
    anchor = turn.anchor
    pointed_at = anchor.split(None, 1)[1] if anchor and DEFINITE_ANCHOR.match(anchor) else ""

    def held(term: str) -> bool:
        return any(turn.holds(term, label) for label in turn.vocab)

    unheld = bool(pointed_at) and not any(held(t) for t in terms(pointed_at))
    # "the screen lock timeout": the nouns the anchor runs on into name one thing, held
    # only where each of its words is (`noun_compounds`).
    compound = noun_compound_after(turn.question, anchor) if pointed_at and anchor else ""
    if not unheld and compound and not all(held(t) for t in terms(compound)):
        pointed_at, unheld = compound, True
    if unheld:
        # "who is the ceo?" with no passage holding "ceo": none of them is one of the
        # things it may mean, so asking which would offer choices that are none of
        # them; the documents say nothing of it. A word of a phrase the lexicon
        # translates whole is held where the phrase is (`Turn.holds`): "le cours" of "le
        # cours de l'action" is the stock price, not the handbook's "refresher course".
        return Evidence(
            "not_in_documents",
            reason,
            missing_named=(pointed_at,),
            **found.base,
        )
    if anchor:
        return _ask(turn, found, reason, candidate_titles(turn.chunks, among))
    # A name that several documents' titles extend says none of them ("the Prime
    # Minister's office" with the prime ministers of Canada and of the United Kingdom
    # in play): that the passages do not answer is no evidence for the one the user
    # means, so ask which, as when the check passes (`_name_shared_by_titles`).
    shared = name_shared_by_titles(turn.question, turn.chunks, among, turn.earlier)
    if shared:
        phrase, candidates = shared
        return Evidence(
            "ambiguous",
            f"unanchored:{phrase}:{reason}",
            candidates=tuple(candidates[:5]),
            **found.base,
        )
    if missing is not None:
        found.base["missing_terms"] = tuple(turn.forms.get(t, t) for t in missing)
        if situation := asked_situation(turn.question):
            # The decline names the feature or situation asked ("on-site support"), not
            # its words one by one (the documents do speak of support).
            return Evidence("not_in_documents", reason, missing_named=(situation,), **found.base)
    return Evidence("not_in_documents", reason, **found.base)


def _quality_not_stated(turn: Turn, found: _Findings, asked_of: Sequence[str]) -> Evidence:
    # "Is the iPhone 15 waterproof?" with no passage about the iPhone 15 saying so:
    # declined naming the thing and the quality ("whether "iPhone 15" is
    # "waterproof""), not the question's words one by one.
    phrases = name_phrases(turn.question) or [" ".join(turn.names)]
    thing = re.sub(r"^\w['’]", "", phrases[0])  # "l'iPhone 15": the iPhone 15
    return Evidence(
        "not_in_documents",
        "quality_not_stated",
        missing_named=(thing,),
        quality=" ".join(turn.forms.get(t, t) for t in asked_of),
        **(found.base | {"missing_terms": tuple(turn.forms.get(t, t) for t in asked_of)}),
    )


def _value_per_qualifier(turn: Turn, found: _Findings) -> Evidence | None:
    # "the response time" a section states per plan and priority, in parallel sentences:
    # one value per qualifier, and the question names none, so it asks which. A heading
    # ("Response times") says where the answer is, not which of its values is meant.
    about = [turn.by_label[label] for label in found.eligible]
    # French puts the value word first ("le délai de réponse"): the phrase with its
    # unnamed complement is the quantity asked.
    quantities = [
        *(
            p
            for p in unanchored_references(turn.question, turn.earlier, titles=turn.titles)
            if DEFINITE_ANCHOR.match(p)
        ),
        *valued_references(turn.question, turn.earlier, titles=turn.titles),
    ]
    for phrase in quantities:
        # "the incident priorities": the nouns the anchor runs on into end with what is
        # asked of it (`noun_compounds`).
        if qualifiers := qualifiers_of(
            phrase,
            turn.question,
            about,
            turn.language,
            turn.kind,
            head=compound_head(turn.question, phrase),
        ):
            return Evidence(
                "ambiguous",
                f"unanchored:{phrase}:qualified",
                candidates=tuple(qualifiers[:5]),
                **found.base,
            )
    return None


def _about_what_the_verb_acts_on(turn: Turn, found: _Findings) -> Evidence | None:
    if turn.roles:
        # "Who handles escalations?" is about escalations: a passage that only shares the
        # verb ("defects are handled under the warranty") is about something else.
        found.eligible = [
            lb
            for lb in found.eligible
            if any(matches_term(t, turn.vocab[lb]) for t in turn.weights)
        ]
    return None


def _of_the_kind_asked(turn: Turn, found: _Findings) -> Evidence | None:
    if not (found.eligible and is_polar(turn.question)):
        return None
    # "Can I use my personal computer for work?" over a passage naming computers only as
    # "public computers": the documents speak of another kind of computer, and say
    # nothing of personal ones unless a passage writes the noun as asked (or bare); the
    # others hold its words only through their senses ("device", "personal data").
    for thing in qualified_things(turn.question, turn.language):
        written = {lb: writes_the_thing(thing, turn.by_label[lb]) for lb in found.eligible}
        if False not in written.values():
            continue
        found.eligible = [lb for lb in found.eligible if written[lb]]
        if not found.eligible:
            found.base["about"] = ()
            return Evidence(
                "not_in_documents", "another_kind", missing_named=(thing[2],), **found.base
            )
    return None


def _rules_about_the_topic(turn: Turn, found: _Findings) -> Evidence | None:
    topic = policy_topic(turn.question)
    if not (topic and found.eligible):
        return None
    # "What is the travel policy?" asks for rules on travel, which the XPS 13's
    # "professionals who travel often" is not: only passages stating rules about
    # the topic (it heads them, or a rule's sentence holds it) are about it.
    found.eligible = [
        lb for lb in found.eligible if states_rules_about(topic, turn.by_label[lb], turn.language)
    ]
    if found.eligible:
        return None
    found.base["closest"] = tuple(closest_rule_titles(turn.chunks))
    return Evidence(
        "not_in_documents",
        "no_rules_about_the_topic",
        missing_named=(topic,),
        **found.base,
    )


def _nothing_about_the_question(turn: Turn, found: _Findings) -> Evidence | None:
    found.base["about"] = tuple(found.eligible)
    if found.eligible:
        return None
    if turn.anchor:
        return _ask(
            turn,
            found,
            "nothing_found",
            candidate_titles(turn.chunks, [str(c["label"]) for c in turn.hits]),
        )
    if turn.kind is not None and not has_answer_type(
        turn.kind, " ".join(str(c.get("text", "")) for c in turn.chunks)
    ):
        # "what is their phone number?" after the escalation answer: no passage states
        # a phone number at all, which says more than "nothing about the subject".
        return Evidence("not_in_documents", f"no_{turn.kind}_in_passages", **found.base)
    return Evidence("not_in_documents", "nothing_about_the_subject", **found.base)


def _asked_phrase_held(turn: Turn, found: _Findings) -> Evidence | None:
    # "the cheapest plan" asks for the plan with the lowest price: "cheapest" is the kind
    # of fact asked (a price), checked by the answer type, not a word a passage must hold.
    typed_words = typed_kind_terms(turn.kind)
    wanted = [
        t
        for t in asked_phrase_terms(turn.question)
        if t not in turn.name_terms and t not in typed_words
    ]
    if not wanted:
        return None
    if asks_for_a_feature(turn.question):
        # A feature is stated by most of its words, the question's one ratio: "a dedicated
        # Slack channel" is the "private Slack channel", "on-site support" no "phone support".
        # Its names are held (checked above) and count among its words.
        named = sum(1 for t in asked_phrase_terms(turn.question) if t in turn.name_terms)
        holding = [
            lb
            for lb in found.eligible
            if (named + sum(1 for t in wanted if matches_term(t, turn.vocab[lb])))
            / (named + len(wanted))
            > COVERAGE_MAJORITY
        ]
    else:
        holding = [
            lb for lb in found.eligible if all(matches_term(t, turn.vocab[lb]) for t in wanted)
        ]
    # "the share price": a kind word naming part of a thing, held in a row.
    compounds = kind_word_compounds(turn.question)
    holding = [
        lb
        for lb in holding
        if all(holds_phrase(c, passage_terms(turn.by_label[lb])) for c in compounds)
    ]
    if not holding:
        return _decline_or_ask(
            turn, found, "asked_for_missing", found.eligible, missing=compounds or wanted
        )
    found.eligible = holding
    return None


def _content_covered(turn: Turn, found: _Findings) -> Evidence | None:
    weights, total = turn.weights, sum(turn.weights.values())
    scored: list[tuple[float, int, str]] = []
    for order, label in enumerate(turn.vocab):
        if label in found.eligible:
            held = sum(w for t, w in weights.items() if turn.holds(t, label))
            scored.append((held / total if total else 1.0, -order, label))
    scored.sort(reverse=True)
    best = scored[0][0]
    found.scored, found.best = scored, best
    found.base["coverage"] = round(best, 3)
    if best > COVERAGE_MAJORITY:
        found.supporting = tuple(label for share, _, label in scored if share > COVERAGE_MAJORITY)
    else:
        found.supporting = tuple(label for share, _, label in scored if share > 0 and share >= best)
    if total and best <= COVERAGE_MAJORITY:
        # Follow-ups lean on the previous turn: "is it free?" says little by itself, so
        # the carried standalone query may supply the rest of the content.
        carried_content = [t for t in content_terms(turn.carried) if t not in weights]
        pool = set().union(*(turn.vocab[label] for label in found.eligible))
        own_found = sum(w for t, w in weights.items() if matches_term(t, pool))
        if not (carried_content and own_found / total > COVERAGE_MAJORITY):
            if turn.of_a_quality and not turn.anchor:
                # "Is the iPhone 15 water resistant?": its page holds the name only.
                return _quality_not_stated(turn, found, turn.quality_asked)
            return _decline_or_ask(turn, found, "content_not_covered", found.eligible)
        found.supporting = tuple(label for _, _, label in scored)
    return None


def _relation_stated(turn: Turn, found: _Findings) -> Evidence | None:
    # "What happens to my data when I return a phone?" asks how the thing and the
    # circumstance go together, as a yes/no question does: a sentence must state the
    # thing with them, not the return rules alone.
    thing = happens_to_terms(turn.question)
    if not (found.best > COVERAGE_MAJORITY and (is_polar(turn.question) or thing)):
        return None
    # "Can I file a case while living abroad?" asks whether its terms go together: a
    # sentence must state them together, not a passage hold them one per sentence. A
    # passage in another language is not read sentence by sentence (its words are
    # compared through their translations, passage-wide).
    stated = tuple(
        label
        for label in found.supporting
        if states_together(list(turn.weights), turn.by_label[label], turn.language, thing=thing)
    )
    if not stated:
        return _decline_or_ask(
            turn, found, "relation_not_stated", found.eligible, missing=thing or None
        )
    found.supporting = stated
    # "Does the Galaxy S24 have USB-C?" asks whether the named thing has a feature:
    # the name alone (checked above) makes a majority of its words in the S24's
    # page, which never says USB-C. The feature must be in the passage too (read
    # passage-wide, with its translations). "Is the Hudson River important?" asks
    # for a judgement the passage makes in its own words: no feature to find.
    # "Is the iPhone 15 waterproof?" asks the same of a quality: its page's name and
    # model number are two of three words, and it never says waterproof. Unless the
    # quality is a judgement ("important"), the passage must write it (or its
    # absence, "not water resistant", which holds the words too).
    asked_of = turn.quality_asked
    if turn.names and asked_of and (HAS_A_FEATURE.search(turn.question) or turn.of_a_quality):
        featured = tuple(
            label
            for label in found.supporting
            if sum(1 for t in asked_of if matches_term(t, turn.vocab[label])) * 2 >= len(asked_of)
        )
        if not featured and turn.of_a_quality and not turn.anchor:
            return _quality_not_stated(turn, found, asked_of)
        if not featured:
            return _decline_or_ask(
                turn, found, "relation_not_stated", found.eligible, missing=asked_of
            )
        found.supporting = featured
    return None


def _on_the_subject(turn: Turn, found: _Findings) -> Evidence | None:
    if not (turn.names or turn.anchor) and off_the_subject(
        turn.whole or turn.question, turn.chunks, found.supporting, turn.earlier
    ):
        return Evidence("not_in_documents", "off_the_subject", **found.base)
    return None


def _kind_of_fact_stated(turn: Turn, found: _Findings) -> Evidence | None:
    kind = turn.kind
    if kind is None:
        return None
    support_text = " ".join(
        str(c.get("text", "")) for c in turn.chunks if str(c["label"]) in found.supporting
    )
    if not has_answer_type(kind, support_text):
        return Evidence("not_in_documents", f"no_{kind}_in_passages", **found.base)
    if kind in SENTENCE_KINDS:
        # How often: the frequency must be of what is asked, in its sentence.
        stated_of = tuple(
            label
            for label in found.supporting
            if states_kind_with(kind, turn.asked_of, turn.by_label[label], turn.language)
        )
        if not stated_of:
            return Evidence("not_in_documents", f"no_{kind}_in_passages", **found.base)
        found.supporting = stated_of
        found.base["kind_stated"] = True
    if kind == "quantity" and (noun := counted_noun(turn.question)):
        # How many: a passage with a sentence giving a number of what is counted is where
        # the answer is. "How many employees work in stores?" is answered by "2 140
        # collaborateurs ... dont 1 230 en magasin", not by "a single user or device" of
        # a passage retrieval ranked above it. None giving one is no decline: the count
        # may be of the thing in other words ("le nombre de tickets": "312 000 demandes").
        counted = counted_terms(turn.question, noun)
        stated_of = tuple(
            label for label in found.supporting if states_a_count_of(counted, turn.by_label[label])
        )
        if stated_of:
            found.supporting = stated_of
            found.base["kind_stated"] = True
    return None


def _result_of_the_year(turn: Turn, found: _Findings) -> Evidence | None:
    supported = [turn.by_label[label] for label in found.supporting]
    of_the_year, aim = stated_of_the_year(
        turn.question, turn.asked_of, supported, turn.language, year_changed=turn.year_changed
    )
    if of_the_year == "aim":
        # "What was the revenue in 2025?" over a report whose 2025 is a target: the
        # target is no revenue earned. Declined, naming the target as such.
        return Evidence("not_in_documents", "no_result_only_an_aim", aim=aim, **found.base)
    if turn.kind == "quantity" and (plan := planned_count_only(turn.question, supported)):
        # "How many stores does Brightwell have?" over passages whose one count of stores
        # is the 2025 plan: the plan is no count of the stores there are.
        return Evidence("not_in_documents", "no_result_only_an_aim", aim=plan, **found.base)
    if of_the_year == "none":
        # "What was the net income in 2023?": the report states 2024's net income and
        # 2023's revenue, two sentences that together say nothing of 2023's net income.
        return Evidence("not_in_documents", "nothing_stated_of_the_year", **found.base)
    return None


def _unnamed_reference_resolved(turn: Turn, found: _Findings) -> Evidence | None:
    anchor = turn.anchor
    if not anchor:
        return None
    chunks = turn.chunks
    fitting = [label for share, _, label in found.scored if share >= found.best]
    # "the season" with several documents about the question titled with "season":
    # each is a thing it may mean, whichever covers one more incidental word.
    for phrase in turn.anchors:
        titled = titled_with(chunks, found.eligible, phrase)
        if len(candidate_titles(chunks, titled)) >= 2:
            fitting, anchor = titled, re.sub(r"['’]s$", "", phrase)
            break
    # "And the X?" continues the subject: when the document under discussion
    # supports it, it is about that document ("et le nombre de tickets traités ?"
    # after the report's customer-service figures, not the support policy's tickets).
    if continues_the_subject(turn.question):
        # The section discussed first: "and the price?" after the ThinkPad, which
        # states one ("at $2,199") without the word the other passages matched on.
        discussed = from_lead_discussed(chunks, fitting, turn.focus)
        if not discussed and turn.kind is not None:
            stating = [
                label
                for label in found.eligible
                if has_answer_type(turn.kind, str(turn.by_label[label].get("text", "")))
            ]
            discussed = from_lead_discussed(chunks, stating, turn.focus)
        discussed = discussed or from_discussed(chunks, fitting, turn.focus, "title")
        if discussed:
            # ... and the answer quotes that, not every passage that holds an X.
            fitting = discussed
            found.supporting = tuple(discussed)
            found.base["about"] = tuple(discussed)
    titles = candidate_titles(chunks, fitting)

    # "this X" with no X anywhere before points at nothing the user said, nor does
    # "about a specific X": ask even when one candidate fits; "the X" is a question
    # only when several do.
    unsaid = {match.group("phrase") for match in UNSAID.finditer(turn.question)}
    pointing = DEMONSTRATIVE.match(anchor) is not None or anchor in unsaid
    # "the X" of a conversation that never spoke of X, answered only from documents
    # the conversation was not about: the user changed the subject without naming
    # the new one, so the one candidate found is a guess.
    pointing = pointing or leaves_the_conversation(chunks, found.supporting, turn.focus)
    if len(distinct_things(chunks, fitting)) >= 2 or pointing:
        if len(titles) < 2:
            titles = candidate_titles(chunks, [str(c["label"]) for c in turn.hits])
        return Evidence(
            "ambiguous",
            f"unanchored:{anchor}",
            supporting=found.supporting,
            candidates=tuple(titles[:5]),
            **found.base,
        )
    return None


def _name_shared_by_titles(turn: Turn, found: _Findings) -> Evidence | None:
    shared = name_shared_by_titles(turn.question, turn.chunks, found.supporting, turn.earlier)
    if not shared:
        return None
    # "the Superior Court" with the courts of three counties in play.
    phrase, candidates = shared
    return Evidence(
        "ambiguous",
        f"unanchored:{phrase}",
        supporting=found.supporting,
        candidates=tuple(candidates[:5]),
        **found.base,
    )


def _the_thing_discussed(turn: Turn, found: _Findings) -> Evidence | None:
    said = said_before(turn.question, turn.earlier)
    if said:
        # "the enterprise plan" after an answer on the "Enterprise plan", supported by a
        # passage on the "Enterprise plan": a name both write denotes the same thing,
        # unlike the Monte Carlo "Casino" and a passage on the casinos of Las Vegas.
        support_texts = [
            str(c.get("text", "")) for c in turn.chunks if str(c["label"]) in found.supporting
        ]
        said = [
            phrase
            for phrase in said
            if not (
                written_as_a_name(phrase.split()[-1], turn.earlier)
                and written_as_a_name(phrase.split()[-1], support_texts)
            )
        ]
    # "the scammers" names the kind of thing the conversation spoke of, not one thing
    # that another document's could be mistaken for ("the casino" of Monaco): other
    # documents on scammers speak of the same kind.
    said = [phrase for phrase in said if not is_plural_noun(phrase.split()[-1].lower())]
    if not turn.anchor and said:
        if leaves_the_conversation(turn.chunks, found.supporting, turn.focus):
            # "the casino" of a talk about Monaco, supported only by a passage on Las
            # Vegas: the passages speak of another casino than the one meant.
            return Evidence("not_in_documents", "another_thing_than_discussed", **found.base)
    return None


def _from_the_section_discussed(turn: Turn, found: _Findings) -> Evidence | None:
    if (
        not (turn.anchor or turn.names)
        and turn.focus
        and looks_like_followup(turn.whole or turn.question)
    ):
        # "is there a fee?" after an answer on returns asks it of what was discussed: the
        # section the previous answer cited first, when it supports the question (the
        # SLA's "monthly fee" is another fee), as "and the X?" does above.
        discussed = from_lead_discussed(turn.chunks, found.supporting, turn.focus)
        if discussed:
            found.supporting = tuple(discussed)
            found.base["about"] = tuple(discussed)
    return None


def _pronoun_of_the_subject(turn: Turn, found: _Findings) -> Evidence | None:
    leans_on_the_subject = (
        not (turn.anchor or turn.names)
        and bool(PRONOUN.search(turn.question))
        # A message naming a thing of its own ("I tried to update my credit card, but it
        # keeps showing errors") says what its pronoun stands for; one content word at
        # most beside it ("can I write it down?") leaves the subject to the conversation.
        and len(turn.own) <= 1
    )
    # "and in the office?" after printing at home asks the same thing elsewhere, and
    # "what's included?" after the Business plan's price what the plan includes: the
    # message's own words are a place or a passive verb, not what a passage must speak
    # of, which is most of what was asked (the "confidentiality" beside a data
    # protection "officer", the "includes" of the data classification are not).
    whole_subject = not turn.names and (
        asks_under_another_circumstance(turn.question)
        or (not turn.anchor and asks_what_is_done_to_the_subject(turn.question))
    )
    if (
        turn.earlier
        and (leans_on_the_subject or whole_subject)
        and looks_like_followup(turn.whole or turn.question)
        and not speaks_of_the_subject(
            turn.carried,
            turn.own,
            [turn.vocab[label] for label in found.supporting],
            most=whole_subject,
        )
    ):
        # "can I write it down?" after the password rules: "it" is the password, and a
        # passage holding "write" ("written approval" to print at home) but nothing of
        # what the conversation carried speaks of something else.
        return Evidence("not_in_documents", "another_thing_than_discussed", **found.base)
    return None


# "that", « ça »: what a declined turn asked of, as "it" is.
_POINTING_BACK = re.compile(r"\b(?:that|ça|ca|cela)\b", re.I)


def _pronoun_of_nothing_settled(turn: Turn, found: _Findings) -> Evidence | None:
    if not (
        turn.earlier
        and not turn.focus
        and not turn.anchor
        and (pronoun := PRONOUN.search(turn.question) or _POINTING_BACK.search(turn.question))
        and len(turn.own) <= 1
        and looks_like_followup(turn.whole or turn.question)
    ):
        return None
    # "how much RAM does it have?" after "I need a laptop for video editing, what do you
    # recommend?" was declined: "it" stands for what the conversation settled on, and a
    # declined turn settled on nothing (it quoted no source). Of the passages found, those
    # holding what the conversation carried ("laptop") are about its subject; when they
    # are several things of that kind (three laptops), "it" is none of them in
    # particular: ask which, naming them, rather than quote each one's RAM.
    subject = [t for t in content_terms(turn.carried) if t not in turn.own]
    held = {
        label: sum(matches_term(t, turn.vocab[label]) for t in subject)
        for label in found.supporting
    }
    most = max(held.values(), default=0)
    on_subject = [label for label in found.supporting if held[label] == most]
    things = distinct_things(turn.chunks, on_subject)
    # A name the message gives of its own ("RAM") is what it asks of "it", unless it
    # names one of the things found: then that one is "it".
    if any(fold(name) in fold(thing) for name in turn.names for thing in things):
        return None
    if len(things) >= 2:
        return Evidence(
            "ambiguous",
            f"unanchored:{pronoun.group()}",
            supporting=found.supporting,
            candidates=tuple(things[:5]),
            **found.base,
        )
    # One thing of the conversation's subject among what was found: that is what it asks
    # of, not the other passages the message's own word matched ("cost": a phone's price).
    found.supporting = tuple(on_subject)
    found.base["about"] = tuple(on_subject)
    return None


def _every_part_covered(turn: Turn, found: _Findings) -> Evidence | None:
    uncovered = uncovered_parts(turn.question, list(turn.vocab.values()))
    if not (uncovered and len(uncovered) < len(question_parts(turn.question))):
        return None
    found.base["missing_terms"] = tuple(uncovered)
    rest = [p for p in question_parts(turn.question) if p not in uncovered]
    found.base["asks_for"] = asked_type(" ? ".join(rest))
    return Evidence(
        "partial",
        "a_part_not_covered",
        supporting=found.supporting,
        answered=" ? ".join(rest) + " ?",
        **found.base,
    )


_CHECKS_OF_SUPPORT = (
    _value_per_qualifier,
    _about_what_the_verb_acts_on,
    _of_the_kind_asked,
    _rules_about_the_topic,
    _nothing_about_the_question,
    _asked_phrase_held,
    _content_covered,
    _relation_stated,
    _on_the_subject,
    _kind_of_fact_stated,
    _result_of_the_year,
    _unnamed_reference_resolved,
    _name_shared_by_titles,
    _the_thing_discussed,
    _from_the_section_discussed,
    _pronoun_of_the_subject,
    _pronoun_of_nothing_settled,
    _every_part_covered,
)


__all__ = [
    "COVERAGE_MAJORITY",
    "Evidence",
    "Verdict",
    "asked_type",
    "content_terms",
    "decide",
    "has_answer_type",
    "named_things",
    "unanchored_reference",
]


def speaks_of_the_subject(
    carried: str, own: Sequence[str], vocabularies: Sequence[set[str]], *, most: bool = False
) -> bool:
    """Whether a passage holds a word the follow-up carried from the conversation.

    A pronoun stands for the subject the conversation was about; the reformulator
    carried its words into the standalone query. With none carried there is nothing to
    hold, and the passages are not judged by it. `own` are the message's own content terms.
    With `most`, a passage must hold more than half of them: the same question asked in
    another place or time.
    """
    subject = [t for t in content_terms(carried) if t not in own]
    if not subject:
        return True
    if most:
        return any(
            sum(matches_term(t, vocabulary) for t in subject) * 2 > len(subject)
            for vocabulary in vocabularies
        )
    return any(matches_term(t, vocabulary) for vocabulary in vocabularies for t in subject)
