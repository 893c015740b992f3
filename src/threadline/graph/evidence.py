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
the verdict. Over 400 lines: `decide` is one decision read top to bottom, each rule with
the case that made it; how the passages are read (`read_passages`) and a question with a
named thing missing (`without_missing_names`) stand apart.
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
    as_the_passages_write_it,
    kinds_named_before,
    said_before,
    unanchored_reference,
    unanchored_references,
    valued_references,
    written_as_a_name,
)
from threadline.graph.catalog_requests import (
    compares_on_a_spec,
    without_kind_words,
    without_product_reference,
)
from threadline.graph.names import passage_terms
from threadline.graph.polar import SENTENCE_KINDS, is_polar, states_kind_with, states_together
from threadline.graph.qualifiers import qualifiers_of
from threadline.graph.question_terms import (
    COVERAGE_MAJORITY,
    PRONOUN,
    ampersand_names,
    asked_phrase_terms,
    chunk_vocabulary,
    content_terms,
    holds_ampersand_name,
    holds_phrase,
    kind_word_compounds,
    matches_term,
    name_phrases,
    named_things,
    question_parts,
    substantive_terms,
    term_forms,
    typed_kind_terms,
    uncovered_parts,
)
from threadline.graph.referents import (
    candidate_titles,
    distinct_things,
    from_discussed,
    from_lead_discussed,
    leaves_the_conversation,
    name_shared_by_titles,
    off_the_subject,
    passages_about,
    titled_with,
)
from threadline.graph.results import (
    planned_count_only,
    stated_of_the_year,
    years_said_relatively,
)
from threadline.graph.rules import closest_rule_titles, policy_topic, states_rules_about
from threadline.knowledge.bilingual import (
    lexicon_phrases,
    translate_passage_terms,
    translate_query,
    translate_vocabulary,
)
from threadline.knowledge.facts import (
    AnswerType,
    asked_type,
    has_answer_type,
    is_plural_noun,
    role_terms,
)
from threadline.knowledge.limits import compared_numbers, compared_unit_words
from threadline.text import fold, terms
from threadline.text.language import detect_language
from threadline.text.matching import (
    acronyms,
    another_verbs_forms,
    own_verbs_forms,
    verb_lemma_stems,
)

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


# An unnamed reference of the form "the X" / "le X" (as `anchors.unanchored_references`
# yields it), as opposed to "this X" or "a specific X".
_DEFINITE_ANCHOR = re.compile(r"(?:the|le|la|les)\s+\S+$", re.I)

# A yes/no question whether a thing has, supports or comes with a feature.
HAS_A_FEATURE = re.compile(
    r"\b(?:have|has|had|support|supports|include|includes|come with|comes with|offer|"
    r"offers|a-t-il|a-t-elle|ont-ils|ont-elles|poss[eè]de|possèdent|dispose|disposent|"
    r"supporte|supportent|inclut|incluent|propose|proposent)\b",
    re.I,
)

# A yes/no question whether a thing is of some quality: "Is the iPhone 15 waterproof?",
# "Est-ce que l'iPhone 15 est étanche ?", "L'iPhone 15 est-il étanche ?" (typed "est
# il" too), and the spoken form, a statement asked by its question mark with no question
# word: "le Pixel 8 Pro est étanche ?".
IS_OF_A_QUALITY = re.compile(
    r"^\s*(?:is|are|was|were)\b|^\s*est-ce qu(?:e\b|['’]).*\b(?:est|sont|était|étaient)\b|"
    r"\b(?:est|sont)[- ](?:il|elle|ils|elles)\b|"
    r"^(?!.*\b(?:quel|quelle|quels|quelles|qui|que|qu|quoi|koi|comment|combien|où|ou|quand|"
    r"pourquoi|lequel|laquelle|lesquels|lesquelles|c)\b)(?=.*\?\s*$).*\b(?:est|sont)\b",
    re.I,
)
# Judgements a passage makes in its own words ("Is the Hudson River important?" is
# answered by what the passage says of the river, not by the word "important"): no
# quality to find written.
JUDGEMENTS = frozenset(
    terms(
        "important significant good bad better best worse worth worthwhile famous popular "
        "useful necessary true real possible recommended bon bonne bien mieux meilleur "
        "meilleure utile nécessaire vrai possible recommandé"
    )
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
            titles.append(translate_query(title, passage_language, language))
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


def names_not_held(
    question: str,
    names: Sequence[str],
    chunks: Sequence[Mapping[str, object]],
    everything: set[str],
) -> tuple[str, ...]:
    """Return the question's named things that no passage holds.

    A name's every word must be in the passages (`everything`: their terms together);
    when each is, a name of several words must still be found whole in one passage: its
    words scattered over the passages ("Placer" here, "County" there) name something else.
    An ampersand name ("R&D") has no term of its own: a passage must write it.
    """
    texts = [f"{c.get('title', '')} {c.get('section', '')} {c.get('text', '')}" for c in chunks]
    missing = tuple(
        n
        for n in names
        if (
            not any(holds_ampersand_name(n, text) for text in texts)
            if "&" in n
            else terms(n) and not all(matches_term(t, everything) for t in terms(n))
        )
    )
    if missing:
        return missing
    sequences = [passage_terms(c) for c in chunks]
    return tuple(
        phrase
        for phrase in name_phrases(question)
        if not any(holds_phrase(phrase, sequence) for sequence in sequences)
    )


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
    hits = [c for c in chunks if c.get("hit", True)] or list(chunks)
    closest = tuple(dict.fromkeys(str(c.get("title", "")) for c in hits if c.get("title")))[:3]
    if not chunks:
        return Evidence("not_in_documents", "no_context")
    if tool:
        # A catalog tool ran typed filters over structured data: its rows are the answer,
        # unless the message asks whether a product has something no row states ("does the
        # first one support wireless charging?": the Nokia's entry says nothing of it).
        # The kind of product it searched is what every row is ("do you sell computers?").
        asked = content_terms(without_kind_words(without_product_reference(question)))
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
                    closest=closest,
                )
        return Evidence("answer", "tool_result", supporting=tuple(str(c["label"]) for c in chunks))
    vocab, titles, headings = read_passages(chunks, language)
    by_label = {str(c["label"]): c for c in chunks}
    if own_forms := own_verbs_forms(question):
        # "When was Brightwell founded?" asks of the verb "to found": a passage saying
        # "defects found after 30 days" (the past of "find") holds its stem, not it, nor
        # do the words its translations add for it ("find", "founder"); a derivation it
        # writes itself ("foundation") still does.
        for label, chunk in by_label.items():
            written = (
                f"{chunk.get('title', '')}. {chunk.get('section', '')}. {chunk.get('text', '')}"
            )
            for form in own_forms & another_verbs_forms(written):
                own_words = set(terms(written)) - {form}
                vocab[label] = {
                    w
                    for w in vocab[label]
                    if w in own_words
                    or not (matches_term(form, {w}) or w in verb_lemma_stems(form))
                }
    everything = set().union(*vocab.values())
    names = named_things(question) + ampersand_names(question)
    # "after 45 days" measured against the stated "within 30 days": the limit answers,
    # and 45 is no name a passage must hold, nor a word it must say.
    compared = compared_numbers(question, chunks)
    names = [n for n in names if n not in compared]
    missing_named = names_not_held(question, names, chunks, everything)
    measured = {t for unit in compared_unit_words(question, chunks) for t in terms(unit)}
    own = content_terms(question)
    content = [t for t in own if t not in compared and t not in measured]
    if not content and not (deliverable or reference):
        # "there should be one": no word of its own to check; what it means is what the
        # reformulator carried from the conversation, and that must be supported.
        content = content_terms(carried)
    forms = term_forms(question)
    kind = asked_type(question)
    if missing_named and not reference:
        return without_missing_names(
            question,
            chunks,
            vocab,
            missing_named,
            Evidence(
                "not_in_documents",
                "named_thing_missing",
                content_terms=tuple(content),
                named=tuple(names),
                missing_named=missing_named,
                asks_for=kind,
                closest=closest,
            ),
            earlier=earlier,
            carried=carried,
            focus=focus,
            language=language,
        )
    if deliverable or reference:
        # The user named the document or section to work on; it was resolved to these.
        return Evidence(
            "answer",
            "resolved_target",
            content_terms=tuple(content),
            named=tuple(names),
            supporting=tuple(vocab),
            closest=closest,
        )
    phrase, kinds = kinds_named_before(question, earlier)
    if kinds:
        # "the plan" after an answer naming the Trial, Standard and Enterprise plans.
        return Evidence(
            "ambiguous",
            f"unanchored:{phrase}:several_named_before",
            content_terms=tuple(content),
            named=tuple(names),
            asks_for=kind,
            candidates=tuple(kinds[:5]),
            closest=closest,
        )
    # Named things were checked above (each must be present). The question's content
    # (names included) must be mostly in one passage about what the question is about
    # (its names, or for "is it ...?" what was discussed), and what it asks for ("the
    # stock price" in "what is Brightwell's stock price?") must be in that passage whole.
    name_terms = {t for n in names for t in terms(n)}
    substantive = substantive_terms(content, typed=kind)
    # "Who handles escalations?" asks who does it: the verb is the relation the answer
    # states in its own words; the question's content is what it is done to. "Who pays?"
    # keeps its verb: there is nothing else to check.
    roles = role_terms(question) if set(substantive) - role_terms(question) else frozenset()
    weights = {t: 1.0 for t in substantive if t not in roles}
    total = sum(weights.values())
    eligible = passages_about(chunks, vocab, names, question, focus)
    anchors = list(unanchored_references(question, earlier, titles=titles, headings=headings))
    if any(_DEFINITE_ANCHOR.match(a) for a in anchors):
        # "the enterprise plan" is the plan every passage writes "Enterprise": no unnamed
        # "the X" once the question is read as the passages write it ("this X", "a
        # specific X" still point at something unsaid).
        as_written = as_the_passages_write_it(question, [str(c.get("text", "")) for c in chunks])
        still = {
            a.lower()
            for a in unanchored_references(as_written, earlier, titles=titles, headings=headings)
        }
        anchors = [a for a in anchors if not _DEFINITE_ANCHOR.match(a) or a.lower() in still]
    anchor = anchors[0] if anchors else None
    base: dict[str, object] = {
        "content_terms": tuple(content),
        "named": tuple(names),
        "asks_for": kind,
        "closest": closest,
        "missing_terms": tuple(forms.get(t, t) for t in content if not matches_term(t, everything)),
    }

    def ask(reason: str, candidates: Sequence[str]) -> Evidence:
        # A question about something it never names: not finding it is no evidence the
        # documents lack it; ask which one, naming what was found.
        return Evidence(
            "ambiguous",
            f"unanchored:{anchor}:{reason}",
            candidates=tuple(candidates[:5]) or closest,
            **base,  # type: ignore[arg-type]
        )

    # "the response time" a section states per plan and priority, in parallel sentences:
    # one value per qualifier, and the question names none, so it asks which. A heading
    # ("Response times") says where the answer is, not which of its values is meant.
    about = [by_label[label] for label in eligible]
    # French puts the value word first ("le délai de réponse"): the phrase with its
    # unnamed complement is the quantity asked.
    quantities = [
        *(
            p
            for p in unanchored_references(question, earlier, titles=titles)
            if _DEFINITE_ANCHOR.match(p)
        ),
        *valued_references(question, earlier, titles=titles),
    ]
    for phrase in quantities:
        if qualifiers := qualifiers_of(phrase, question, about, language, kind):
            return Evidence(
                "ambiguous",
                f"unanchored:{phrase}:qualified",
                candidates=tuple(qualifiers[:5]),
                **base,  # type: ignore[arg-type]
            )

    def decline_or_ask(
        reason: str, among: Sequence[str], missing: Sequence[str] | None = None
    ) -> Evidence:
        # The same finding reads two ways: with an unnamed reference ("the season"), ask
        # which of the passages it may mean; otherwise the documents do not say it
        # (`missing`: the terms to name in the decline, when narrower than the content's).
        pointed_at = anchor.split(None, 1)[1] if anchor and _DEFINITE_ANCHOR.match(anchor) else ""
        if pointed_at and not any(matches_term(t, everything) for t in terms(pointed_at)):
            # "who is the ceo?" with no passage holding "ceo": none of them is one of the
            # things it may mean, so asking which would offer choices that are none of
            # them; the documents say nothing of it.
            return Evidence(
                "not_in_documents",
                reason,
                missing_named=(pointed_at,),
                **base,  # type: ignore[arg-type]
            )
        if anchor:
            return ask(reason, candidate_titles(chunks, among))
        # A name that several documents' titles extend says none of them ("the Prime
        # Minister's office" with the prime ministers of Canada and of the United Kingdom
        # in play): that the passages do not answer is no evidence for the one the user
        # means, so ask which, as when the check passes (below).
        shared = name_shared_by_titles(question, chunks, among, earlier)
        if shared:
            phrase, candidates = shared
            return Evidence(
                "ambiguous",
                f"unanchored:{phrase}:{reason}",
                candidates=tuple(candidates[:5]),
                **base,  # type: ignore[arg-type]
            )
        if missing is not None:
            base["missing_terms"] = tuple(forms.get(t, t) for t in missing)
        return Evidence("not_in_documents", reason, **base)  # type: ignore[arg-type]

    if roles:
        # "Who handles escalations?" is about escalations: a passage that only shares the
        # verb ("defects are handled under the warranty") is about something else.
        eligible = [lb for lb in eligible if any(matches_term(t, vocab[lb]) for t in weights)]
    topic = policy_topic(question)
    if topic and eligible:
        # "What is the travel policy?" asks for rules on travel, which the XPS 13's
        # "professionals who travel often" is not: only passages stating rules about
        # the topic (it heads them, or a rule's sentence holds it) are about it.
        eligible = [lb for lb in eligible if states_rules_about(topic, by_label[lb], language)]
        if not eligible:
            base["closest"] = tuple(closest_rule_titles(chunks))
            return Evidence(
                "not_in_documents",
                "no_rules_about_the_topic",
                missing_named=(topic,),
                **base,  # type: ignore[arg-type]
            )
    base["about"] = tuple(eligible)
    if not eligible:
        if anchor:
            return ask("nothing_found", candidate_titles(chunks, [str(c["label"]) for c in hits]))
        if kind is not None and not has_answer_type(
            kind, " ".join(str(c.get("text", "")) for c in chunks)
        ):
            # "what is their phone number?" after the escalation answer: no passage states
            # a phone number at all, which says more than "nothing about the subject".
            return Evidence("not_in_documents", f"no_{kind}_in_passages", **base)  # type: ignore[arg-type]
        return Evidence("not_in_documents", "nothing_about_the_subject", **base)  # type: ignore[arg-type]
    # "the cheapest plan" asks for the plan with the lowest price: "cheapest" is the kind
    # of fact asked (a price), checked by the answer type, not a word a passage must hold.
    typed_words = typed_kind_terms(kind)
    wanted = [
        t for t in asked_phrase_terms(question) if t not in name_terms and t not in typed_words
    ]
    if wanted:
        holding = [lb for lb in eligible if all(matches_term(t, vocab[lb]) for t in wanted)]
        # "the share price": a kind word naming part of a thing, held in a row.
        compounds = kind_word_compounds(question)
        holding = [
            lb
            for lb in holding
            if all(holds_phrase(c, passage_terms(by_label[lb])) for c in compounds)
        ]
        if not holding:
            return decline_or_ask("asked_for_missing", eligible, missing=compounds or wanted)
        eligible = holding
    # A French phrase the lexicon translates whole ("congés payés", paid leave) is one
    # thing: a passage holds a word of it only when it holds all of it, or the head of
    # its translation ("Refunds are paid within 10 business days" holds no leave, and
    # "payés" is no part of a refund; the handbook's "multi-factor authentication"
    # holds the "authentification" of "double authentification", two-factor
    # authentication, though not "double").
    # A passage in the question's own language says the phrase in a row: the report's
    # "smartphones" and "clients professionnels" hold no "téléphone professionnel" (a
    # passage in another language is compared through its words' translations,
    # passage-wide, so all the phrase's words or its translation's head).
    partners: dict[str, tuple[str, list[str], list[str]]] = {}
    if language == "fr":
        for phrase, head in lexicon_phrases(question, language):
            group = [t for t in terms(phrase) if t in weights]
            if len(group) > 1:
                partners.update({t: (phrase, group, terms(head)) for t in group})
    own_language = {
        label
        for label, chunk in by_label.items()
        if partners
        and detect_language(f"{chunk.get('title', '')} {chunk.get('text', '')}") == language
    }

    def holds(term: str, label: str) -> bool:
        words = vocab[label]
        held = matches_term(term, words)  # a miss reads the whole vocabulary: once
        if not held or term not in partners:
            return held
        phrase, group, head = partners[term]
        if label in own_language:
            whole = holds_phrase(phrase, passage_terms(by_label[label]))
        else:
            whole = all(matches_term(u, words) for u in group)
        return whole or (bool(head) and all(matches_term(u, words) for u in head))

    def quality_not_stated(asked_of: Sequence[str]) -> Evidence:
        # "Is the iPhone 15 waterproof?" with no passage about the iPhone 15 saying so:
        # declined naming the thing and the quality ("whether "iPhone 15" is
        # "waterproof""), not the question's words one by one.
        phrases = name_phrases(question) or [" ".join(names)]
        thing = re.sub(r"^\w['’]", "", phrases[0])  # "l'iPhone 15": the iPhone 15
        return Evidence(
            "not_in_documents",
            "quality_not_stated",
            missing_named=(thing,),
            quality=" ".join(forms.get(t, t) for t in asked_of),
            **{**base, "missing_terms": tuple(forms.get(t, t) for t in asked_of)},  # type: ignore[arg-type]
        )

    # A yes/no question whether a named thing is of a quality that is no judgement.
    quality_asked = [t for t in weights if t not in name_terms]
    of_a_quality = (
        bool(names and quality_asked)
        and IS_OF_A_QUALITY.search(question) is not None
        and not set(quality_asked) <= JUDGEMENTS
    )

    scored: list[tuple[float, int, str]] = []
    for order, label in enumerate(vocab):
        if label in eligible:
            held = sum(w for t, w in weights.items() if holds(t, label))
            scored.append((held / total if total else 1.0, -order, label))
    scored.sort(reverse=True)
    best = scored[0][0]
    base["coverage"] = round(best, 3)
    if best > COVERAGE_MAJORITY:
        supporting = tuple(label for share, _, label in scored if share > COVERAGE_MAJORITY)
    else:
        supporting = tuple(label for share, _, label in scored if share > 0 and share >= best)
    if total and best <= COVERAGE_MAJORITY:
        # Follow-ups lean on the previous turn: "is it free?" says little by itself, so
        # the carried standalone query may supply the rest of the content.
        carried_content = [t for t in content_terms(carried) if t not in weights]
        pool = set().union(*(vocab[label] for label in eligible))
        own_found = sum(w for t, w in weights.items() if matches_term(t, pool))
        if not (carried_content and own_found / total > COVERAGE_MAJORITY):
            if of_a_quality and not anchor:
                # "Is the iPhone 15 water resistant?": its page holds the name only.
                return quality_not_stated(quality_asked)
            return decline_or_ask("content_not_covered", eligible)
        supporting = tuple(label for _, _, label in scored)
    if best > COVERAGE_MAJORITY and is_polar(question):
        # "Can I file a case while living abroad?" asks whether its terms go together: a
        # sentence must state them together, not a passage hold them one per sentence. A
        # passage in another language is not read sentence by sentence (its words are
        # compared through their translations, passage-wide).
        stated = tuple(
            label
            for label in supporting
            if states_together(list(weights), by_label[label], language)
        )
        if not stated:
            return decline_or_ask("relation_not_stated", eligible)
        supporting = stated
        # "Does the Galaxy S24 have USB-C?" asks whether the named thing has a feature:
        # the name alone (checked above) makes a majority of its words in the S24's
        # page, which never says USB-C. The feature must be in the passage too (read
        # passage-wide, with its translations). "Is the Hudson River important?" asks
        # for a judgement the passage makes in its own words: no feature to find.
        # "Is the iPhone 15 waterproof?" asks the same of a quality: its page's name and
        # model number are two of three words, and it never says waterproof. Unless the
        # quality is a judgement ("important"), the passage must write it (or its
        # absence, "not water resistant", which holds the words too).
        asked_of = [t for t in weights if t not in name_terms]
        if names and asked_of and (HAS_A_FEATURE.search(question) or of_a_quality):
            featured = tuple(
                label
                for label in supporting
                if sum(1 for t in asked_of if matches_term(t, vocab[label])) * 2 >= len(asked_of)
            )
            if not featured and of_a_quality and not anchor:
                return quality_not_stated(asked_of)
            if not featured:
                return decline_or_ask("relation_not_stated", eligible, missing=asked_of)
            supporting = featured
    if not (names or anchor) and off_the_subject(whole or question, chunks, supporting, earlier):
        return Evidence("not_in_documents", "off_the_subject", **base)  # type: ignore[arg-type]
    if kind is not None:
        support_text = " ".join(
            str(c.get("text", "")) for c in chunks if str(c["label"]) in supporting
        )
        if not has_answer_type(kind, support_text):
            return Evidence("not_in_documents", f"no_{kind}_in_passages", **base)  # type: ignore[arg-type]
        if kind in SENTENCE_KINDS:
            # How often: the frequency must be of what is asked, in its sentence.
            of_what = [t for t in weights if t not in name_terms] or list(weights)
            stated_of = tuple(
                label
                for label in supporting
                if states_kind_with(kind, of_what, by_label[label], language)
            )
            if not stated_of:
                return Evidence("not_in_documents", f"no_{kind}_in_passages", **base)  # type: ignore[arg-type]
            supporting = stated_of
    asked_of = [t for t in weights if t not in name_terms] or list(weights)
    of_the_year, aim = stated_of_the_year(
        question,
        asked_of,
        [by_label[label] for label in supporting],
        language,
        year_changed=year_changed,
    )
    if of_the_year == "aim":
        # "What was the revenue in 2025?" over a report whose 2025 is a target: the
        # target is no revenue earned. Declined, naming the target as such.
        return Evidence("not_in_documents", "no_result_only_an_aim", aim=aim, **base)  # type: ignore[arg-type]
    if kind == "quantity" and (
        plan := planned_count_only(question, [by_label[label] for label in supporting])
    ):
        # "How many stores does Brightwell have?" over passages whose one count of stores
        # is the 2025 plan: the plan is no count of the stores there are.
        return Evidence("not_in_documents", "no_result_only_an_aim", aim=plan, **base)  # type: ignore[arg-type]
    if of_the_year == "none":
        # "What was the net income in 2023?": the report states 2024's net income and
        # 2023's revenue, two sentences that together say nothing of 2023's net income.
        return Evidence("not_in_documents", "nothing_stated_of_the_year", **base)  # type: ignore[arg-type]
    if anchor:
        fitting = [label for share, _, label in scored if share >= best]
        # "the season" with several documents about the question titled with "season":
        # each is a thing it may mean, whichever covers one more incidental word.
        for phrase in anchors:
            titled = titled_with(chunks, eligible, phrase)
            if len(candidate_titles(chunks, titled)) >= 2:
                fitting, anchor = titled, re.sub(r"['’]s$", "", phrase)
                break
        # "And the X?" continues the subject: when the document under discussion
        # supports it, it is about that document ("et le nombre de tickets traités ?"
        # after the report's customer-service figures, not the support policy's tickets).
        if continues_the_subject(question):
            # The section discussed first: "and the price?" after the ThinkPad, which
            # states one ("at $2,199") without the word the other passages matched on.
            discussed = from_lead_discussed(chunks, fitting, focus)
            if not discussed and kind is not None:
                stating = [
                    label
                    for label in eligible
                    if has_answer_type(kind, str(by_label[label].get("text", "")))
                ]
                discussed = from_lead_discussed(chunks, stating, focus)
            discussed = discussed or from_discussed(chunks, fitting, focus, "title")
            if discussed:
                # ... and the answer quotes that, not every passage that holds an X.
                fitting = discussed
                supporting = tuple(discussed)
                base["about"] = tuple(discussed)
        titles = candidate_titles(chunks, fitting)

        # "this X" with no X anywhere before points at nothing the user said, nor does
        # "about a specific X": ask even when one candidate fits; "the X" is a question
        # only when several do.
        unsaid = {match.group("phrase") for match in UNSAID.finditer(question)}
        pointing = DEMONSTRATIVE.match(anchor) is not None or anchor in unsaid
        # "the X" of a conversation that never spoke of X, answered only from documents
        # the conversation was not about: the user changed the subject without naming
        # the new one, so the one candidate found is a guess.
        pointing = pointing or leaves_the_conversation(chunks, supporting, focus)
        if len(distinct_things(chunks, fitting)) >= 2 or pointing:
            if len(titles) < 2:
                titles = candidate_titles(chunks, [str(c["label"]) for c in hits])
            return Evidence(
                "ambiguous",
                f"unanchored:{anchor}",
                supporting=supporting,
                candidates=tuple(titles[:5]),
                **base,  # type: ignore[arg-type]
            )
    shared = name_shared_by_titles(question, chunks, supporting, earlier)
    if shared:
        # "the Superior Court" with the courts of three counties in play.
        phrase, candidates = shared
        return Evidence(
            "ambiguous",
            f"unanchored:{phrase}",
            supporting=supporting,
            candidates=tuple(candidates[:5]),
            **base,  # type: ignore[arg-type]
        )
    said = said_before(question, earlier)
    if said:
        # "the enterprise plan" after an answer on the "Enterprise plan", supported by a
        # passage on the "Enterprise plan": a name both write denotes the same thing,
        # unlike the Monte Carlo "Casino" and a passage on the casinos of Las Vegas.
        support_texts = [str(c.get("text", "")) for c in chunks if str(c["label"]) in supporting]
        said = [
            phrase
            for phrase in said
            if not (
                written_as_a_name(phrase.split()[-1], earlier)
                and written_as_a_name(phrase.split()[-1], support_texts)
            )
        ]
    # "the scammers" names the kind of thing the conversation spoke of, not one thing
    # that another document's could be mistaken for ("the casino" of Monaco): other
    # documents on scammers speak of the same kind.
    said = [phrase for phrase in said if not is_plural_noun(phrase.split()[-1].lower())]
    if not anchor and said:
        if leaves_the_conversation(chunks, supporting, focus):
            # "the casino" of a talk about Monaco, supported only by a passage on Las
            # Vegas: the passages speak of another casino than the one meant.
            return Evidence("not_in_documents", "another_thing_than_discussed", **base)  # type: ignore[arg-type]
    if not (anchor or names) and focus and looks_like_followup(whole or question):
        # "is there a fee?" after an answer on returns asks it of what was discussed: the
        # section the previous answer cited first, when it supports the question (the
        # SLA's "monthly fee" is another fee), as "and the X?" does above.
        discussed = from_lead_discussed(chunks, supporting, focus)
        if discussed:
            supporting = tuple(discussed)
            base["about"] = tuple(discussed)
    if (
        earlier
        and not (anchor or names)
        and PRONOUN.search(question)
        # A message naming a thing of its own ("I tried to update my credit card, but it
        # keeps showing errors") says what its pronoun stands for; one content word at
        # most beside it ("can I write it down?") leaves the subject to the conversation.
        and len(own) <= 1
        and looks_like_followup(whole or question)
        and not speaks_of_the_subject(carried, own, [vocab[label] for label in supporting])
    ):
        # "can I write it down?" after the password rules: "it" is the password, and a
        # passage holding "write" ("written approval" to print at home) but nothing of
        # what the conversation carried speaks of something else.
        return Evidence("not_in_documents", "another_thing_than_discussed", **base)  # type: ignore[arg-type]
    uncovered = uncovered_parts(question, list(vocab.values()))
    if uncovered and len(uncovered) < len(question_parts(question)):
        base["missing_terms"] = tuple(uncovered)
        rest = [p for p in question_parts(question) if p not in uncovered]
        base["asks_for"] = asked_type(" ? ".join(rest))
        return Evidence(
            "partial",
            "a_part_not_covered",
            supporting=supporting,
            answered=" ? ".join(rest) + " ?",
            **base,  # type: ignore[arg-type]
        )
    return Evidence("answer", "covered", supporting=supporting, **base)  # type: ignore[arg-type]


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
    carried: str, own: Sequence[str], vocabularies: Sequence[set[str]]
) -> bool:
    """Whether a passage holds a word the follow-up carried from the conversation.

    A pronoun stands for the subject the conversation was about; the reformulator
    carried its words into the standalone query. With none carried there is nothing to
    hold, and the passages are not judged by it. `own` are the message's own content terms.
    """
    subject = [t for t in content_terms(carried) if t not in own]
    if not subject:
        return True
    return any(matches_term(t, vocabulary) for vocabulary in vocabularies for t in subject)
