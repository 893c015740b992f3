"""What the evidence check reads of one turn: the passages' terms, and the question's.

`Turn` holds a turn's inputs, the passages as read (`evidence.read_passages`), and what
several of the check's rules read of them (the question's names, content terms, unnamed
references, the weights of its terms, whether a passage holds a term), each computed
once, on first use. The verdict is :mod:`threadline.graph.evidence`'s.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from functools import cached_property
from typing import TypedDict

from threadline.graph.anchors import as_the_passages_write_it, unanchored_references
from threadline.graph.names import edition_phrases, passage_terms, written_only_as_editions
from threadline.graph.phrases import holds_noun_and_complement, joins_a_complement
from threadline.graph.question_terms import (
    ampersand_names,
    content_terms,
    holds_ampersand_name,
    holds_phrase,
    matches_term,
    name_phrases,
    named_things,
    substantive_terms,
    term_forms,
)
from threadline.graph.referents import passages_about
from threadline.knowledge.bilingual import (
    translated_phrases,
)
from threadline.knowledge.facts import AnswerType, asked_type, role_terms
from threadline.knowledge.limits import compared_numbers, compared_unit_words
from threadline.text import terms
from threadline.text.language import detect_language
from threadline.text.matching import (
    another_verbs_forms,
    own_verbs_forms,
    verb_lemma_stems,
)


class EvidenceBase(TypedDict, total=False):
    """The fields of an `evidence.Evidence` the checks gather before the verdict.

    `Turn.base` starts them, the checks add to them, and the verdict is built with them
    (`Evidence(verdict, reason, **base)`): typed, so each is checked against its field.
    """

    content_terms: tuple[str, ...]
    named: tuple[str, ...]
    asks_for: AnswerType | None
    closest: tuple[str, ...]
    missing_terms: tuple[str, ...]
    about: tuple[str, ...]
    coverage: float
    kind_stated: bool


# An unnamed reference of the form "the X" / "le X" (as `anchors.unanchored_references`
# yields it), as opposed to "this X" or "a specific X".
DEFINITE_ANCHOR = re.compile(r"(?:the|le|la|les)\s+\S+$", re.I)

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
        for phrase in (*name_phrases(question), *edition_phrases(question))
        if not any(
            holds_phrase(phrase, sequence)
            or (_ends_in_an_acronym(phrase) and _holds_with_one_word_between(phrase, sequence))
            for sequence in sequences
        )
    ) + tuple(written_only_as_editions(question, sequences))


def _ends_in_an_acronym(phrase: str) -> bool:
    """Whether a name phrase ends in an acronym of capitals alone: "Enterprise SLA"."""
    last = phrase.split()[-1]
    return len(last) >= 2 and last.isalpha() and last.isupper()


def _holds_with_one_word_between(phrase: str, sequence: Sequence[str]) -> bool:
    """Whether a passage holds a phrase's terms in order, at most one term between two."""
    # "Enterprise SLA" is the SLA of the Enterprise plan, which the policy writes "The
    # Enterprise plan SLA": an acronym shortens a common noun ("service level
    # agreement"), and the name before it qualifies that noun, which may be written
    # with its own noun between ("plan"). Further apart, the words name something
    # else: "IBM Cloud IAM" is not a passage's "IBM Cloud ... Identity and Access
    # Management (IAM)" page on support plans.
    wanted = terms(phrase)

    def from_here(k: int, i: int) -> bool:
        if k == len(wanted):
            return True
        return any(
            j < len(sequence) and matches_term(wanted[k], {sequence[j]}) and from_here(k + 1, j + 1)
            for j in (i, i + 1)
        )

    return bool(wanted) and any(
        matches_term(wanted[0], {term}) and from_here(1, i + 1) for i, term in enumerate(sequence)
    )


def closest_titles(chunks: Sequence[Mapping[str, object]]) -> tuple[str, ...]:
    """Return the titles of the passages retrieval hit (all, when none is marked), best first."""
    hits = [c for c in chunks if c.get("hit", True)] or list(chunks)
    return tuple(dict.fromkeys(str(c.get("title", "")) for c in hits if c.get("title")))[:3]


class Turn:
    """One turn as the checks read it.

    Its inputs, and what several checks compute from them, each computed once (on first
    use: a check before may decide, and what only later checks read is then never read).
    """

    def __init__(
        self,
        question: str,
        chunks: Sequence[Mapping[str, object]],
        *,
        earlier: Sequence[str],
        carried: str,
        deliverable: bool,
        reference: bool,
        focus: Sequence[str],
        language: str | None,
        whole: str,
        year_changed: bool,
        read: tuple[dict[str, set[str]], list[str], list[str]],
    ) -> None:
        self.question = question
        self.chunks = chunks
        self.earlier = earlier
        self.carried = carried
        self.deliverable = deliverable
        self.reference = reference
        self.focus = focus
        self.language = language
        self.whole = whole
        self.year_changed = year_changed
        self.read = read
        """The passages as `evidence.read_passages` read them (terms, titles, headings)."""
        self.hits = [c for c in chunks if c.get("hit", True)] or list(chunks)
        self.closest = closest_titles(chunks)
        self.by_label = {str(c["label"]): c for c in chunks}

    @cached_property
    def _passages(self) -> tuple[dict[str, set[str]], list[str], list[str]]:
        vocab, titles, headings = self.read
        if own_forms := own_verbs_forms(self.question):
            # "When was Brightwell founded?" asks of the verb "to found": a passage saying
            # "defects found after 30 days" (the past of "find") holds its stem, not it, nor
            # do the words its translations add for it ("find", "founder"); a derivation it
            # writes itself ("foundation") still does.
            for label, chunk in self.by_label.items():
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
        return vocab, titles, headings

    @property
    def vocab(self) -> dict[str, set[str]]:
        """Each passage's terms by label (`read_passages`, without another verb's forms)."""
        return self._passages[0]

    @property
    def titles(self) -> list[str]:
        """The passages' titles, those in another language with their translations."""
        return self._passages[1]

    @property
    def headings(self) -> list[str]:
        """The passages' section headings, as titles (`read_passages`)."""
        return self._passages[2]

    @cached_property
    def everything(self) -> set[str]:
        """The terms of all the passages together."""
        return set().union(*self.vocab.values())

    @cached_property
    def compared(self) -> frozenset[str]:
        """The question's numbers measured against a limit a passage states."""
        # "after 45 days" measured against the stated "within 30 days": the limit answers,
        # and 45 is no name a passage must hold, nor a word it must say.
        return compared_numbers(self.question, self.chunks)

    @cached_property
    def names(self) -> list[str]:
        """The question's named things (as typed), the compared numbers left out."""
        names = named_things(self.question) + ampersand_names(self.question)
        return [n for n in names if n not in self.compared]

    @cached_property
    def missing_named(self) -> tuple[str, ...]:
        """The question's named things no passage holds (`names_not_held`)."""
        return names_not_held(self.question, self.names, self.chunks, self.everything)

    @cached_property
    def own(self) -> list[str]:
        """The message's own content terms."""
        return content_terms(self.question)

    @cached_property
    def content(self) -> list[str]:
        """The content terms to check: the message's own, or what was carried for it."""
        measured = {
            t for unit in compared_unit_words(self.question, self.chunks) for t in terms(unit)
        }
        content = [t for t in self.own if t not in self.compared and t not in measured]
        if not content and not (self.deliverable or self.reference):
            # "there should be one": no word of its own to check; what it means is what the
            # reformulator carried from the conversation, and that must be supported.
            content = content_terms(self.carried)
        return content

    @cached_property
    def forms(self) -> dict[str, str]:
        """Each content term as typed."""
        return term_forms(self.question)

    @cached_property
    def kind(self) -> AnswerType | None:
        """The kind of fact asked for (a price, a date, ...)."""
        return asked_type(self.question)

    @cached_property
    def name_terms(self) -> set[str]:
        """The terms of the question's named things."""
        return {t for n in self.names for t in terms(n)}

    @cached_property
    def substantive(self) -> list[str]:
        """The content terms without the words for the kind of value asked."""
        return substantive_terms(self.content, typed=self.kind)

    @cached_property
    def roles(self) -> frozenset[str]:
        """The terms of the verb whose doer the question asks for, when it asks of more."""
        # "Who handles escalations?" asks who does it: the verb is the relation the answer
        # states in its own words; the question's content is what it is done to. "Who pays?"
        # keeps its verb: there is nothing else to check.
        return (
            role_terms(self.question)
            if set(self.substantive) - role_terms(self.question)
            else frozenset()
        )

    @cached_property
    def weights(self) -> dict[str, float]:
        """The terms whose share in a passage is its coverage of the question."""
        return {t: 1.0 for t in self.substantive if t not in self.roles}

    @cached_property
    def about_the_question(self) -> list[str]:
        """The passages about what the question is about (its names, or "it")."""
        return passages_about(self.chunks, self.vocab, self.names, self.question, self.focus)

    @cached_property
    def anchors(self) -> list[str]:
        """The question's references to something it does not name."""
        anchors = list(
            unanchored_references(
                self.question, self.earlier, titles=self.titles, headings=self.headings
            )
        )
        if any(DEFINITE_ANCHOR.match(a) for a in anchors):
            # "the enterprise plan" is the plan every passage writes "Enterprise": no unnamed
            # "the X" once the question is read as the passages write it ("this X", "a
            # specific X" still point at something unsaid).
            as_written = as_the_passages_write_it(
                self.question, [str(c.get("text", "")) for c in self.chunks]
            )
            still = {
                a.lower()
                for a in unanchored_references(
                    as_written, self.earlier, titles=self.titles, headings=self.headings
                )
            }
            anchors = [a for a in anchors if not DEFINITE_ANCHOR.match(a) or a.lower() in still]
        return anchors

    @property
    def anchor(self) -> str | None:
        """The question's first reference to something it does not name."""
        return self.anchors[0] if self.anchors else None

    def base(self) -> EvidenceBase:
        """Return the evidence every verdict from here on reports."""
        return {
            "content_terms": tuple(self.content),
            "named": tuple(self.names),
            "asks_for": self.kind,
            "closest": self.closest,
            "missing_terms": tuple(
                self.forms.get(t, t) for t in self.content if not matches_term(t, self.everything)
            ),
        }

    @cached_property
    def _phrase_partners(self) -> dict[str, tuple[str, list[str], list[str]]]:
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
        # A noun with its complement ("le prix de l'action", the stock price) is held in
        # a passage in another language by its translation, or by its words in one
        # sentence, not by its head alone nor by its words' other senses (`phrases`).
        partners: dict[str, tuple[str, list[str], list[str]]] = {}
        if self.language == "fr":
            for phrase, translation in translated_phrases(self.question, self.language):
                group = [t for t in terms(phrase) if t in self.weights]
                if len(group) > 1:
                    partners.update({t: (phrase, group, translation) for t in group})
        return partners

    @cached_property
    def _written_in(self) -> dict[str, str]:
        if not self._phrase_partners:
            return {}
        return {
            label: detect_language(f"{chunk.get('title', '')} {chunk.get('text', '')}") or ""
            for label, chunk in self.by_label.items()
        }

    def holds(self, term: str, label: str) -> bool:
        """Whether a passage holds a term of the question (a French phrase's word whole)."""
        words = self.vocab[label]
        held = matches_term(term, words)  # a miss reads the whole vocabulary: once
        partners = self._phrase_partners
        if not held or term not in partners:
            return held
        phrase, group, translation = partners[term]
        written = self._written_in[label]
        if written == self.language:
            whole = holds_phrase(phrase, passage_terms(self.by_label[label]))
        elif joins_a_complement(phrase):
            assert self.language is not None
            chunk = self.by_label[label]
            return holds_noun_and_complement(group, translation, chunk, written, self.language)
        else:
            whole = all(matches_term(u, words) for u in group)
        head = terms(translation[-1])
        return whole or (bool(head) and all(matches_term(u, words) for u in head))

    @cached_property
    def quality_asked(self) -> list[str]:
        """The question's terms that are no part of its names: what it asks of them."""
        return [t for t in self.weights if t not in self.name_terms]

    @cached_property
    def of_a_quality(self) -> bool:
        """A yes/no question whether a named thing is of a quality that is no judgement."""
        return (
            bool(self.names and self.quality_asked)
            and IS_OF_A_QUALITY.search(self.question) is not None
            and not set(self.quality_asked) <= JUDGEMENTS
        )

    @property
    def asked_of(self) -> list[str]:
        """What the question asks of its named things (all its terms when it names none)."""
        return self.quality_asked or list(self.weights)
