"""What a question's words can point at in the packed passages.

The evidence check (:mod:`threadline.graph.evidence`) asks these pure helpers which
passages are about the question's subject (its names, or what "it" refers to), which
distinct things a reference may mean (titles, sections, a name several titles extend),
and whether the passages leave the conversation's documents or its subject (the names
it keeps using). Which acronyms a passage's names stand for is
:func:`threadline.text.matching.acronyms`.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Literal

from threadline.graph.anchors import leans_on_the_conversation
from threadline.graph.names import (
    kept_names,
    named_only_within_longer_names,
    names_a_kept_name,
    passage_terms,
)
from threadline.graph.question_terms import (
    GENERIC_TERMS,
    PRONOUN,
    content_terms,
    holds_phrase,
    in_title_case,
    matches_term,
    name_phrases,
    name_runs,
    own_phrases,
)
from threadline.knowledge.facts import asked_type
from threadline.text import fold, terms


def candidate_titles(chunks: Sequence[Mapping[str, object]], labels: Sequence[str]) -> list[str]:
    """List the distinct things the given passages are about.

    Their sections within one document (products, plans), else their titles.
    """
    titles: list[str] = []
    for label in labels:
        chunk = next(c for c in chunks if str(c["label"]) == label)
        title = str(chunk.get("section") or chunk.get("title") or "")
        if title and title not in titles:
            titles.append(title)
    return titles


def names_a_thing(heading: str) -> bool:
    """Whether a section heading is the name of a thing rather than a topic.

    "Google Pixel 8a", "Apple iPhone 15", "Lenovo ThinkPad X1 Carbon": a capital past
    the first word, or a model number mixing letters and digits. "Résultats financiers",
    "Faits marquants", "Perspectives 2025", "Support hours and channels": topics of the
    document they are in.
    """
    words = heading.split()
    return any(any(ch.isupper() for ch in word) for word in words[1:]) or any(
        any(ch.isdigit() for ch in word) and any(ch.isalpha() for ch in word) for word in words
    )


def distinct_things(chunks: Sequence[Mapping[str, object]], labels: Sequence[str]) -> list[str]:
    """List the distinct things the given passages are about, for "which X do you mean?".

    A section named for a thing (a product, a plan) is one thing; the topical sections of
    one document are that document: "the revenue" in a report's results, highlights and
    outlook sections is the report's one revenue, while "the warranty" in seven product
    sections of a catalog is seven warranties.
    """
    things: list[str] = []
    for label in labels:
        chunk = next(c for c in chunks if str(c["label"]) == label)
        section = str(chunk.get("section") or "")
        thing = section if section and names_a_thing(section) else str(chunk.get("title") or "")
        thing = thing or section
        if thing and thing not in things:
            things.append(thing)
    return things


# "I tried to update my credit card, but it keeps showing errors": "it", the subject of a
# clause joined to one that introduced a thing ("my X", "a X", "une X"), is that thing,
# not the previous answer's subject. Only as such a subject: in "is there a way to reset
# it?" or "what is a good way to clean it?" "it" is still what was discussed. "The X"
# introduces nothing ("what is the price and is it free?" asks the product's price).
# Each language's determiners go with its own pronouns (French "a" is also a verb).
_INTRODUCED_BEFORE = re.compile(
    r"\b(?:my|our|a|an)\s+[a-z'’-]+\b[^?]*?(?:,|\b(?:but|and|so|because|since))\s+"
    r"(?:it|they)\s+[a-z]+"
    r"|\b(?:mon|ma|mes|notre|nos|un|une)\s+[a-zà-ÿ'’-]+\b[^?]*?(?:,|\b(?:mais|et|donc|car))\s+"
    r"(?:il|elle|ils|elles)\s+[a-zà-ÿ]+",
    re.I,
)


# "the difference among Fixed, Metered, Tiered, and Reserved": names listed with "and"
# or "or" are several things, and a passage about any of them is about the question.
# Without the conjunction a comma joins parts of one name ("Sacramento, California").
_ENUMERATION = re.compile(r"\b[A-Z][a-z]+(?:,\s*[A-Z][a-z]+)*,?\s+(?:and|or|et|ou)\s+[A-Z][a-z]+\b")


def passages_about(
    chunks: Sequence[Mapping[str, object]],
    vocab: Mapping[str, set[str]],
    names: Sequence[str],
    question: str,
    focus: Sequence[str],
) -> list[str]:
    """Labels of the passages about what the question is about.

    With names: the passages holding all of them (else any of them). With none but a
    pronoun ("is it water resistant?"): the passages about what the previous answer was
    about (`focus`: its titles). Otherwise every passage.
    """
    labels = [str(c["label"]) for c in chunks]
    leans = bool(focus) and not _INTRODUCED_BEFORE.search(question)
    pronoun = PRONOUN.search(question) if leans else None
    if names and pronoun and len(focus) == 1:
        # "Does it support 5G?" about the one product discussed: a pronoun before the
        # names is that product, and the names say what is asked of it. Only for one
        # thing discussed: "it" after an answer on several is not known to be any.
        first_name = min(
            (m.start() for n in names if (m := re.search(re.escape(n), question))),
            default=len(question),
        )
        if pronoun.start() < first_name:
            # None of them retrieved: nothing here is about it (the names alone would
            # find another product's "5G" in its name).
            focused = on_the_focus(chunks, focus)
            wanted = [set(terms(n)) for n in names]
            if any(all(matches_term(t, vocab[lb]) for w in wanted for t in w) for lb in focused):
                return focused
            # "what's its SLA?" after the Enterprise plan of the "Support plans" section:
            # the SLA is in another section, which names the support plans too. A passage
            # holding the names and every word of what was discussed speaks of it.
            discussed = set(terms(focus[0]))
            return [
                lb
                for lb in labels
                if all(matches_term(t, vocab[lb]) for w in wanted for t in w)
                and all(matches_term(t, vocab[lb]) for t in discussed)
            ] or focused
    if names:
        # "the NASDAQ" in a passage on the "NASDAQ Biotechnology Index" names the index.
        # Names listed side by side ("Fixed, Metered, Tiered, and Reserved") are each read
        # leniently below, and a title-case question's capitals mark no name.
        listed = in_title_case(question) or _ENUMERATION.search(question)
        whole = [] if listed else name_runs(question)
        labels = [
            str(c["label"])
            for c in chunks
            if not any(named_only_within_longer_names(c, name, question) for name in whole)
        ]
        wanted = [set(terms(n)) for n in names]
        every = [
            lb for lb in labels if all(all(matches_term(t, vocab[lb]) for t in w) for w in wanted)
        ]
        if every and not _ENUMERATION.search(question):
            return every
        return [
            lb for lb in labels if any(all(matches_term(t, vocab[lb]) for t in w) for w in wanted)
        ]
    if pronoun:
        focused = on_the_focus(chunks, focus)
        asked = content_terms(question)
        holding = [lb for lb in labels if all(matches_term(t, vocab[lb]) for t in asked)]
        if not asked or set(holding) & set(focused):
            return focused
        # "and can I cancel it?" after the Business plan's price (the "Support plans"
        # section): what "it" stands for is the thing discussed, a section named for a
        # thing or else the document of a topical section (`distinct_things`), and the
        # cancellation rules are in another section of that document. A passage of the
        # same thing holding every word asked speaks of it; another product's does not.
        discussed = set(distinct_things(chunks, focused))
        same = [lb for lb in holding if set(distinct_things(chunks, [lb])) & discussed]
        # "can I return it if I opened it?" after two phones: when "it" is a thing (a
        # product, named so), a rule of a topical section (the returns rules) holding every
        # word asked speaks of every such thing alike, so of "it" too; a section named for
        # another thing speaks of that thing alone. Not a value asked ("combien
        # coûte-t-il ?": a price is the thing's own, which a plan's price is not), nor an
        # "it" of topics ("compare them" after a summary of the handbook's sections).
        of_things = bool(focus) and all(names_a_thing(f.split(" — ")[-1]) for f in focus)
        general = (
            [lb for lb in holding if _in_a_topical_section(chunks, lb)]
            if of_things and asked_type(question) is None
            else []
        )
        return same or general or focused
    return labels


def _in_a_topical_section(chunks: Sequence[Mapping[str, object]], label: str) -> bool:
    """Tell whether a passage is in a section named for a topic, not for a thing."""
    chunk = next(c for c in chunks if str(c["label"]) == label)
    section = str(chunk.get("section") or "")
    return bool(section) and not names_a_thing(section)


def on_the_focus(chunks: Sequence[Mapping[str, object]], focus: Sequence[str]) -> list[str]:
    """Labels of the passages about what the previous answer was about (`focus`)."""
    wanted_titles = discussed_names(focus)
    return [
        str(c["label"])
        for c in chunks
        if fold(str(c.get("section") or "")).strip() in wanted_titles
        or (not c.get("section") and fold(str(c.get("title") or "")).strip() in wanted_titles)
    ]


def discussed_names(focus: Sequence[str]) -> set[str]:
    """Return the folded titles and sections of `focus` ("title — section" entries)."""
    return {fold(part).strip() for f in focus for part in f.split(" — ") if part}


def titled_with(
    chunks: Sequence[Mapping[str, object]], labels: Sequence[str], phrase: str
) -> list[str]:
    """Labels of the passages among `labels` whose title holds the noun of "the X"."""
    noun = [t for t in terms(phrase.split(maxsplit=1)[-1]) if t not in GENERIC_TERMS]
    if not noun:
        return []
    return [
        str(c["label"])
        for c in chunks
        if str(c["label"]) in labels
        and matches_term(noun[0], set(terms(str(c.get("title") or ""))))
    ]


def leaves_the_conversation(
    chunks: Sequence[Mapping[str, object]],
    supporting: Sequence[str],
    focus: Sequence[str],
    kept: Sequence[str] = (),
) -> bool:
    """Whether no supporting passage comes from what the conversation is about.

    When the conversation keeps naming something (`kept`, from :func:`kept_names`: "The
    Office" in a talk about the series), a passage is the conversation's when it names it
    too, in its title or its text: passages without titles can only show it so, and a
    title the previous turn found ("James Dean" beside "The Office") does not make a
    passage about the series. Otherwise a passage is the conversation's when its document
    is one the previous answer was about (`focus`, by title); titles tell only when every
    supporting passage has one, and without focus (a first message) nothing is left.
    """
    if kept:
        return not names_a_kept_name(chunks, supporting, kept)
    wanted = discussed_names(focus)
    if not wanted:
        return False
    titles = {str(c["label"]): fold(str(c.get("title") or "")).strip() for c in chunks}
    if not all(titles.get(label) for label in supporting):
        return False
    return not any(titles[label] in wanted for label in supporting)


def off_the_subject(
    message: str,
    chunks: Sequence[Mapping[str, object]],
    supporting: Sequence[str],
    earlier: Sequence[str],
) -> bool:
    """Whether a message that leans on the conversation is supported only off its subject.

    "history best?" after a talk on The Office, "does it mean I can get this from any
    gamestop stores?" after one on Pokémon Platinum, "what about if I'm sick?" after one
    on an appeal's fee waiver: a message that leans on the conversation (a follow-up, a
    pronoun, "those", "the limit" said before) asks about what the conversation is about.
    A passage that neither names what the conversation keeps naming nor holds the
    message's own name for a thing, two of its content words in a row ("streaming
    services"), speaks of something else that shares a word with the message ("awards",
    "stores", "sick"). Only a conversation that keeps naming something tells.

    Args:
        message: The user's message (a question whose names the passages hold, or that
            names nothing).
        chunks: The packed context.
        supporting: Labels of the passages that would answer.
        earlier: The conversation's earlier exchanges, oldest first.
    """
    if not leans_on_the_conversation(message, earlier):
        return False
    kept = kept_names(earlier)
    if not kept:
        return False
    phrases = own_phrases(message)
    by_label = {str(c["label"]): c for c in chunks}
    if any(
        holds_phrase(phrase, passage_terms(by_label[label]))
        for label in supporting
        for phrase in phrases
    ):
        return False
    return leaves_the_conversation(chunks, supporting, (), kept)


def from_discussed(
    chunks: Sequence[Mapping[str, object]],
    labels: Sequence[str],
    focus: Sequence[str],
    level: Literal["section", "title"] = "title",
) -> list[str]:
    """Return the labels among `labels` whose passage comes from what was discussed.

    `focus` holds the titles (or "title — section") the previous answer was about;
    `level` says whether a passage must be from a section discussed ("and the price?"
    after an answer on the ThinkPad is the ThinkPad's) or from a document discussed.
    """
    wanted = discussed_names(focus)
    by_label = {str(c["label"]): c for c in chunks}
    return [
        label
        for label in labels
        if fold(str(by_label.get(label, {}).get(level) or "")).strip() in wanted
    ]


def from_lead_discussed(
    chunks: Sequence[Mapping[str, object]], labels: Sequence[str], focus: Sequence[str]
) -> list[str]:
    """Return the labels from the first section the previous answer cited that has any.

    The previous answer's first source is what it was about: "and the price?" after an
    answer on the ThinkPad that also quoted the annual report is the ThinkPad's price.
    """
    for entry in focus:
        found = from_discussed(chunks, labels, [entry.split(" — ")[-1]], "section")
        if found:
            return found
    return []


def name_shared_by_titles(
    question: str,
    chunks: Sequence[Mapping[str, object]],
    supporting: Sequence[str],
    earlier: Sequence[str],
) -> tuple[str, list[str]] | None:
    """Return a name of the question that several supporting documents' titles extend.

    "the Superior Court" when the supporting passages come from "Superior Court of
    California, County of Alameda" and "... County of Ventura": the name is part of the
    names of several things, so it says none of them. A name the conversation used
    before, or a document titled with the name alone, anchors it.

    Returns:
        The name and the distinct titles holding it, or None.
    """
    history = fold(" ".join(earlier))
    for phrase in name_phrases(question):
        # "the Prime Minister's office" names the Prime Minister: the possessive is no
        # part of the name the titles write ("Prime Minister of Canada").
        phrase = re.sub(r"['’]s$", "", phrase)
        wanted = fold(phrase).replace("’", "'")
        if wanted in history.replace("’", "'"):
            continue
        titles = {
            str(c["label"]): fold(str(c.get("title") or "")).replace("’", "'").strip()
            for c in chunks
        }
        if wanted in titles.values():
            continue
        holding = [label for label in supporting if wanted in titles.get(label, "")]
        found = candidate_titles(chunks, holding)
        if len(found) >= 2 and not _one_told_apart(found, earlier):
            return phrase, found
    return None


def _one_told_apart(titles: Sequence[str], earlier: Sequence[str]) -> bool:
    """Whether the conversation says which title it means: the words only one has.

    "Grey's Anatomy (season 7)" and "(season 10)" differ by "7" and "10"; a conversation
    that spoke of season 7 holds the first one's own words, not the second one's.
    """
    words = [set(terms(title)) for title in titles]
    common = set.intersection(*words)
    history = set(terms(" ".join(earlier)))
    told = [own - common for own in words if own - common and own - common <= history]
    return len(told) == 1
