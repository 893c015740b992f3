"""What a question names and asks, and whether a passage's words match it.

The evidence check (:mod:`threadline.graph.evidence`) and the grounding guard read
questions through these pure functions: a question's content terms and named things,
a reference it makes to something never named, the parts of a multi-part question,
and the stem matching that tolerates derivations and one typo
(:func:`threadline.text.matching.matches_term`, re-exported here).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from functools import lru_cache
from itertools import pairwise

from threadline.followups.anaphora import continues_the_subject
from threadline.knowledge.facts import ASKING_TERMS, KIND_WORDS, LOCUTIONS, RELATIVE_TIME
from threadline.text import fold, terms
from threadline.text.lexicons import en, fr
from threadline.text.matching import (
    is_dictionary_word,
    matches_term,  # the graph's modules read it from here
    one_edit,
    terms_in_a_row,
)
from threadline.text.tokenize import closed_terms

COVERAGE_MAJORITY = 0.5
"""A passage supports a question when it holds more than half of its content (by weight)."""

# Words that say what to do or how to ask, not what the question is about.
# French auxiliaries and modals ("j'ai", "dois-je", "faire") are no topic either; the
# index keeps them (its stopwords decide the indexed terms), the evidence check does not.
# French prepositions ("après 3 semaines") neither: English stopwords drop "after". Nor
# French adverbs of degree ("pas trop cher"), as English stopwords drop "too", "so".
GENERIC_TERMS = frozenset(
    terms(
        f"{en.GENERIC_WORDS} {fr.GENERIC_WORDS} {' '.join(sorted(fr.AUXILIARY_FORMS))} "
        f"{' '.join(sorted(fr.PREPOSITIONS))} {' '.join(sorted(fr.DEGREE_ADVERBS))}"
    )
)

# French impersonal "il" stands for nothing: "faut-il", "y a-t-il", "s'agit-il", "il faut".
_IMPERSONAL_IL = (
    r"(?<!faut-)(?<!faudra-t-)(?<!faudrait-)(?<!y a-t-)(?<!agit-)(?<!suffit-)il"
    r"(?!\s+(?:faut|faudra|faudrait|y\s+a|s['’]agit|suffit)\b)"
)
PRONOUN = re.compile(
    rf"\b(it|its|they|them|their|he|him|his|she|her|{_IMPERSONAL_IL}|elle|ils|elles|son|sa|ses|"
    r"leur|leurs)\b",
    re.I,
)


# "what's included?", "what is covered?", « qu'est-ce qui est inclus ? »: what is done to a
# thing the message leaves unnamed, the thing under discussion (the plan just priced).
_DONE_TO_THE_UNNAMED = re.compile(
    r"^\s*(?:(?:and|so|et|alors)\s+)?"
    r"(?:what(?:['’]s|\s+is|\s+are)|which\s+(?:ones?\s+)?(?:is|are)|qu['’]est-ce\s+qui\s+est)"
    r"\s+(?:not\s+|pas\s+)?(?:\w+ed|\w+en|inclus|incluse?s?|compris|couverte?s?|exclue?s?)"
    r"\s*[?!.]*\s*$",
    re.I,
)


def asks_what_is_done_to_the_subject(question: str) -> bool:
    """Tell whether a message asks what is done to a thing it does not name.

    "what's included?" after the Business plan's price asks what the plan includes: a
    passive with no agent, place or object of its own ("what's covered?", « qu'est-ce qui
    est inclus ? ») leans on the conversation's subject as a pronoun does.
    """
    return bool(_DONE_TO_THE_UNNAMED.match(question))


def asks_of_the_subject(question: str) -> bool:
    """Tell whether a question is asked of the thing under discussion, not on its own.

    A pronoun ("Does it support 5G?", "Et son poids ?") or an opening that continues the
    subject ("and the battery?", "et pour le Dell ?") asks of it; "Do you sell tablets?"
    names what it asks of. A question naming only a kind of fact ("le prix ?", "the
    weight?") names no thing: it asks of the subject too.
    """
    if PRONOUN.search(question) or continues_the_subject(question):
        return True
    kinds = KIND_WORDS.union(*ASKING_TERMS.values())
    return all(t in kinds for t in content_terms(question))


# "I'm referring to the continent, not the United States of America": a name the user
# sets aside ("not", "rather than", "instead of") is not what the question is about.
_SET_ASIDE = re.compile(
    r"\b(?:not|rather than|instead of|other than|except|pas|plutôt que|au lieu de|sauf)"
    r"\s+(?:(?:the|le|la|les|l['’])\s*)?(?:[A-ZÀ-Ý][\w'’-]*(?:\s+(?:of|de|du|des)\s+|\s+)?)+"
)


# A model number: one to three digits (a year is no part of a name: "Brightwell 2024").
_MODEL_NUMBER = re.compile(r"\d{1,3}")


# An acronym's plural: its capitals and a lower-case "s" ("SLAs", "APIs", "VPNs").
_ACRONYM_PLURAL = re.compile(r"[A-Z]{2,}s")


def _name_words(question: str, *, model_numbers: bool = False) -> list[tuple[str, bool]]:
    """Return the question's name words, each with whether it continues the name before it.

    A word continues a name when it is a capitalised word that follows another with only
    spaces between them ("Placer County"), or a number of at most three digits right
    after a name word (its model number: "Pixel 9", "iPhone 16 Pro"); codes and other
    numbers ("S25", "v4", "2024") stand alone, and so do words after a comma ("Fixed,
    Metered"). A name set aside ("not the United
    States") is none of the question's.
    """
    question = _SET_ASIDE.sub(lambda m: " " * len(m.group()), question)
    found: list[tuple[str, bool]] = []
    for sentence in re.split(r"(?<=[.!?])\s+", question.strip()):
        matches = list(re.finditer(r"[\w$€'’.-]+", sentence))
        previous_end = -1
        for i, match in enumerate(matches):
            word = match.group().strip(".'’-")
            if not word:
                continue
            if _ACRONYM_PLURAL.fullmatch(word):
                word = word[:-1]  # "the SLAs of the plans" name the SLA, several
            has_digit = any(ch.isdigit() for ch in word)
            acronym = len(word) >= 2 and word.isupper() and word.isalpha()
            capital = word[0].isupper() and i > 0 and not word.isupper()
            capital = capital or (word[0].islower() and any(ch.isupper() for ch in word[1:]))
            # A capital right after a lower-case letter ("L'iPhone", "OnePlus") is how a
            # name is written, not a sentence's first letter.
            capital = capital or any(a.islower() and b.isupper() for a, b in pairwise(word))
            named = ((has_digit and any(ch.isalpha() for ch in word)) or acronym or capital) and (
                fold(word) not in _NOT_NAMES
            )
            after_name = previous_end >= 0 and not sentence[previous_end : match.start()].strip()
            # "Pixel 9", "iPhone 16 Pro", "Windows 7": a short number written right after a
            # name is its model number, part of the name: the "Pixel 8a" is no Pixel 9.
            model_number = (
                model_numbers and after_name and _MODEL_NUMBER.fullmatch(word) is not None
            )
            if named or model_number or (has_digit and len(word) >= 2):
                joined = (not has_digit or model_number) and after_name
                found.append((word, joined))
                previous_end = -1 if has_digit and not model_number else match.end()
            else:
                previous_end = -1
    return found


def named_things(question: str) -> list[str]:
    """Names the question uses: capitalised words past the first, codes, numbers, acronyms.

    "How much does the Galaxy S25 cost?" → ["Galaxy", "S25"]. A word capitalised only
    because it starts the sentence is not a name.
    """
    return list(dict.fromkeys(word for word, _ in _name_words(question, model_numbers=True)))


# "R&D", "M&A", "Q&A", "AT&T": capitals joined by an ampersand are one name. Its letters
# alone are too short to be terms ("r", "d"), so the name is found as written.
_AMPERSAND_NAME = re.compile(r"(?<![\w&])[A-Z]{1,4}\s?&\s?[A-Z]{1,4}(?![\w&])")


def ampersand_names(question: str) -> list[str]:
    """Names written as capitals joined by "&" ("R&D"), spaces around it dropped."""
    found = (re.sub(r"\s", "", m.group()) for m in _AMPERSAND_NAME.finditer(question))
    return list(dict.fromkeys(found))


def holds_ampersand_name(name: str, text: str) -> bool:
    """Whether a text writes an ampersand name ("R&D", "R & D"), in any case."""
    left, _, right = name.partition("&")
    pattern = rf"(?<![\w&]){re.escape(left)}\s?&\s?{re.escape(right)}(?![\w&])"
    return re.search(pattern, text, re.I) is not None


def name_phrases(question: str) -> list[str]:
    """Names of several capitalised words the question uses as one: "Placer County".

    Each word of such a name is also in :func:`named_things`; the phrase is what must be
    found whole, its words in a row, for the passages to be about that thing (a passage
    on "Mohave County" that mentions a "placer" claim is not about Placer County). A
    question written in title case ("Container Registry Grant Access") has none: its
    capitals mark no name.
    """
    if in_title_case(question):
        return []
    return [name for name in name_runs(question, model_numbers=True) if " " in name]


def in_title_case(question: str) -> bool:
    """Whether most words of a question are capitalised: its capitals mark no name."""
    words = re.findall(r"[^\W\d_]+", question)
    return len(words) >= 3 and sum(w[0].isupper() for w in words) * 2 > len(words)


def name_runs(text: str, *, model_numbers: bool = False) -> list[str]:
    """Every name a text uses, each as a whole: "Placer County", "Pokémon Platinum", "QE".

    The runs of :func:`named_things`' words that follow one another ("Cloud Directory"),
    a single name word standing for itself; in order, each once. `model_numbers`: a short
    number after a name continues it ("Pixel 9"), as a question's name must be found
    whole; a passage's "ASUS Zenbook 14 OLED" is read without, or the question's
    "Zenbook" would be only part of a longer name there.
    """
    return list(_name_runs(text, model_numbers))


@lru_cache(maxsize=4096)
def _name_runs(text: str, model_numbers: bool) -> tuple[str, ...]:
    """:func:`name_runs`, remembered per text (it depends on the text alone).

    The evidence check reads every sentence of every packed passage for names, once
    per name the question holds, and a conversation's earlier exchanges again at each
    turn: reading them afresh each time was about 2% of a turn's CPU at 10k chunks.
    Bounded as the passages' analyses are (4,096 texts): an exchange may be long.
    """
    runs: list[list[str]] = []
    for word, joined in _name_words(text, model_numbers=model_numbers):
        if joined and runs:
            runs[-1].append(word)
        else:
            runs.append([word])
    return tuple(dict.fromkeys(" ".join(run) for run in runs))


def holds_phrase(phrase: str, sequence: Sequence[str]) -> bool:
    """Tell whether the terms of a phrase occur in a row in a passage's term sequence."""
    return terms_in_a_row(terms(phrase), sequence)


# Capitalised in questions without naming anything specific.
_NOT_NAMES = frozenset(en.NOT_NAMES)


def stems(text: str) -> set[str]:
    """Return the set of stems of a text's words."""
    return set(terms(text))


# How a question asks, not what about: "how long does X take" asks about X.
_ASKING = re.compile(
    r"\b(how (long|much|many|often|far|big|old)|what (kind|sort|type)s? of|is there|are there|"
    r"do you (have|know|sell)|can you|could you|would you|i (want|need|would like) to know|"
    # "how does that compare with 2023?" asks for the figures side by side, which a passage
    # states without the verb (« 91 %, contre 88 % en 2023 »).
    r"how (?:does|do|did|would) (?:that|this|it|they|these|those) compare(?: (?:with|to))?|"
    r"combien de temps|combien de|est-ce que|y a-t-il|pouvez-vous|peux-tu|"
    # "le moins cher": the degree of a price asked, its adjective read as the price kind.
    r"(?:le|la|les) (?:plus|moins)(?= ch[eè]re?s?\b))\b",
    re.I,
)

# Discourse phrases frame a message, they are not its topic: "Of course I knew it!", "By
# the way, is there...", "bien sûr", "au fait".
DISCOURSE_PHRASES = (
    "of course",
    "by the way",
    "in fact",
    "anyway",
    "bien sûr",
    "au fait",
    "en fait",
)
_DISCOURSE = re.compile(r"\b(?:" + "|".join(re.escape(p) for p in DISCOURSE_PHRASES) + r")\b", re.I)
# The words before a comma that opens a message or one of its sentences.
_OPENER = re.compile(r"(?:^|(?<=[.!?])\s)\s*([^\W\d_][^,.!?]{2,20}?)\s*,", re.I)


def without_discourse(text: str) -> str:
    """Return a message without its discourse phrases, an opener typed with one typo too.

    A phrase that opens a sentence before a comma is read as a reader reads a typo in a
    word ("By the away, is there a time of year when there are more scams?": "away" is
    no topic); elsewhere a phrase counts only as written. Only a letter too many or too
    few: a letter changed makes other words ("By the bay, what are the tides?").
    """
    text = _DISCOURSE.sub(" ", text)

    def opener(match: re.Match[str]) -> str:
        said = fold(match[1]).strip()
        typed = any(
            abs(len(said) - len(fold(phrase))) == 1 and one_edit(said, fold(phrase))
            for phrase in DISCOURSE_PHRASES
        )
        return match[0].replace(match[1], " ") if typed else match[0]

    return _OPENER.sub(opener, text)


# Words about words: "the word Kubernetes", "this term", "le mot", "ce terme" point at
# a word whose meaning is asked; the passage that explains it never says "word" or
# "term". Only with a determiner: "in terms of", "long term" are no such pointer.
_WORD_POINTER = re.compile(
    r"\b(?:the|this|that|these|those|le|ce|cet|cette|ces)\s+"
    r"(?:words?|terms?|expressions?|phrases?|mots?|termes?)\b",
    re.I,
)


# Words for a part of a document: "the section on phishing", "la partie sur les
# magasins", "le chapitre consacré au télétravail" point at the part about the topic
# that follows; the passage never says "section". Only with a determiner and the
# topic's preposition after it: "section 8 housing" names a thing.
_PART_POINTER = re.compile(
    r"\b(?:the|this|that|le|la|ce|cette|cet)\s+"
    r"(?:sections?|parts?|chapters?|paragraphs?|partie|chapitre|paragraphe)"
    r"(?:\s+(?:consacr|relati|d[ée]di)[\w]*(?=\s+(?:à|au|aux)\b)"
    r"|(?=\s+(?:on|about|regarding|concerning|covering|sur|concernant)\b))",
    re.I,
)


# "Que se passe-t-il si ... ?" asks what follows, as "what happens" does (an English
# generic word): no passage says "happens". Reflexive only: "mot de passe" is a thing.
_WHAT_HAPPENS = re.compile(r"\bse\s+pass(?:e|ent|era|erait)(?:-t-(?:il|elle))?\b", re.I)


# "son SLA", "ton prix": before a noun, with no article of its own, "son" is "its"
# (asking of the thing discussed), not the noun "le son" (a sound) a passage must hold.
_POSSESSIVE = re.compile(r"\b(?P<article>(?:le|du|au|un|ce)\s+)?(?P<word>son|ton)\s+(?=\w)", re.I)


def _without_possessive(match: re.Match[str]) -> str:
    """Drop a possessive "son"/"ton"; keep the noun after an article."""
    return match.group(0) if match.group("article") else " "


def points_at_a_part(question: str) -> bool:
    """Tell whether a question points at a part of a document about a topic.

    "Résume la section sur le télétravail du manuel de sécurité", "summarize the part
    about refunds": the part about the topic, not the whole document.
    """
    return bool(_PART_POINTER.search(question))


# "How do returns work?", "comment fonctionne la garantie ?": "work" asks how the thing
# goes, as "procedure" names a kind of text; the passage on returns says how they go
# without the word.
_HOW_IT_WORKS = re.compile(
    r"^(?P<how>\s*(?:so |and |but |et )?how\b.*?)\s+work(?:s|ing)?(?=\s*[?.!]*\s*$)"
    r"|\bcomment (?:est-ce que )?(?:fonctionne|marche)(?:nt)?\b",
    re.I,
)


def _without_how_it_works(question: str) -> str:
    return _HOW_IT_WORKS.sub(lambda m: m["how"] or "comment", question)


# A word written with a hyphen between two runs of letters ("week-end", "e-mail").
_HYPHENATED = re.compile(r"\b([^\W\d_]+)-([^\W\d_]+)\b")


def _closed(match: re.Match[str]) -> str:
    """Return a hyphenated word written closed when that is a word of its own, else as is."""
    closed = f"{match[1]}{match[2]}"
    return closed if is_dictionary_word(closed) else match[0]


def closed_compounds(text: str) -> str:
    """Return the text with its hyphenated words written closed where that is one word.

    A compound is written hyphenated or closed ("week-end", "weekend"; "e-mail",
    "email"): its parts apart ("week", "end") name other things, which no passage
    about it needs to hold. Only a closed form the English dictionary holds is one
    word: "parle-moi" and "est-il" stay two.
    """
    return _HYPHENATED.sub(_closed, text)


# A request verb whose form is also a noun, after a determiner: "des montres" are
# watches, "the show" a show; "montre-moi", "show me" ask.
_NOUN_OF_A_REQUEST_VERB = re.compile(
    r"\b(?:the|a|an|some|these|those|le|la|les|l'|un|une|des|ces|mes|vos|nos)\s*("
    + "|".join(sorted(map(re.escape, (*en.REQUEST_VERB_NOUNS, *fr.REQUEST_VERB_NOUNS))))
    + r")\b",
    re.I,
)


# The language a request asks its answer in is how to answer, not what about: "Give me
# a summary of the annual report in English", « Résume la politique de support en
# français ». Only after a request verb and at the end of the message: "Is support
# available in French?" asks about the support.
_ANSWER_LANGUAGE = re.compile(
    r"^(?P<request>.*\b(?:summar\w*|overview|brief|explain|describe|translate|write|give|"
    r"tell|answer|reply|respond|r[ée]sum\w*|synth[èe]se|explique\w*|d[ée]cri\w*|tradui\w*|"
    r"r[ée]dige\w*|donne\w*|fai[st]|r[ée]ponds?)\b.*?)"
    r"[\s,;]+(?:in|into|en)\s+(?:plain\s+)?(?:english|french|anglais|fran[cç]ais)"
    r"(?:[\s,]+(?:please|stp|svp|s'il (?:te|vous) pla[iî]t))?\s*[.?!]*\s*$",
    re.I,
)


def without_answer_language(question: str) -> str:
    """Return a request without the language it asks its answer in ("..., in English")."""
    match = _ANSWER_LANGUAGE.match(question.strip())
    return match["request"] if match else question


# "When does the fee apply?", « quand s'appliquent-ils ? »: asked after "when", a rule's
# applying is how the question asks for its condition, which the rule states in its own
# words ("unless they are damaged"), not a word it must hold. "When do I apply for a
# loan?" is the user's own act.
_WHEN_IT_APPLIES = re.compile(
    r"(?P<when>\b(?:when|quand)\b(?:\W+\w+){0,4}?\W+)"
    r"(?:apply|applies|s['’]appliqu\w*|appliqu\w*)\b(?!\s+for\b)",
    re.I,
)


def content_terms(question: str) -> list[str]:
    """Return the question's own content terms: stems minus request and generic words.

    A generic word is kept where it is a noun naming a thing (`_NOUN_OF_A_REQUEST_VERB`);
    the noun of a compound preposition is none (`LOCUTIONS`: "en cas de", "in case of").
    """
    question = LOCUTIONS.sub(" ", closed_compounds(question))
    question = _WHEN_IT_APPLIES.sub(lambda m: m["when"], question)
    text = _WORD_POINTER.sub(" ", _ASKING.sub(" ", _without_how_it_works(question)))
    text = _WHAT_HAPPENS.sub(" ", _PART_POINTER.sub(" ", text))
    text = _POSSESSIVE.sub(_without_possessive, RELATIVE_TIME.sub(" ", text))
    text = without_discourse(text)
    nouns = {t for m in _NOUN_OF_A_REQUEST_VERB.finditer(fold(text)) for t in terms(m[1])}
    return [
        t
        for t in dict.fromkeys(terms(text))
        if (t not in GENERIC_TERMS or t in nouns) and len(t) > 1
    ]


def own_phrases(question: str) -> list[str]:
    """Return the question's content words that follow one another, two by two.

    "streaming services?", "why can't I apply a feature code?": two content words in a
    row name a thing by themselves ("streaming services", "feature code"), which a passage
    holding them in a row is about, whatever the conversation was about.
    """
    words = re.findall(r"[\w'’-]+", question)
    return [
        f"{first} {second}"
        for first, second in zip(words, words[1:], strict=False)
        if content_terms(first) and content_terms(second)
    ]


def term_forms(question: str) -> dict[str, str]:
    """Stem → the word as the user typed it (for "the documents do not cover ...")."""
    forms: dict[str, str] = {}
    for token in re.findall(r"[\w'’-]+", question):
        for t in terms(token):
            forms.setdefault(t, token)
    return forms


def chunk_vocabulary(chunk: Mapping[str, object]) -> set[str]:
    """Return the stems of a passage: its title, section and text.

    A hyphenated word's closed form is among them ("Wi-Fi" holds "wifi"): a question
    writing the compound closed asks for what the passage writes hyphenated.
    """
    text = f"{chunk.get('title', '')} {chunk.get('section', '')} {chunk.get('text', '')}"
    return stems(text) | set(closed_terms(text))


# The phrase ends before its complement, or where a participle or a relative clause
# begins ("the people targeted by scammers", "the plans that include support"), as the
# "is there X" phrase below does: what the passage must hold is the thing asked for,
# not what the question says of it.
_ASKED_PHRASE = re.compile(
    r"^\s*(?:so |and |but |ok,? |et )?(?:what|who|which|how much|quel|quelle|quels|quelles)"
    r"(?:'s| is| are| was| were| est| sont| etait)\s+(?:the |a |an |le |la |les |l'|un |une )?"
    r"(?P<phrase>.+?)(?:\s+(?:of|for|in|on|at|to|with|from|about|by|that|which|who|whom|"
    # French prepositions end it as English ones do: "la politique en cas de perte"
    # asks for a policy, not for a "cas" a passage must hold.
    r"\w+ed|de|du|des|pour|sur|dans|qui|que|en|avec|par|chez|sans|sous|entre|pendant|si|"
    r"lorsque|quand)\b|\s+(?:à|au|aux)\s|[?.,;!]|$)",
    re.I,
)


# "Is there a student discount on laptops?", "Y a-t-il une réduction étudiante ?": a
# question whether a thing exists asks for that thing; a passage that holds only some of
# its words ("the MacBook Air is for students") does not say there is one. A request
# for information ("is there a way / any information") asks for no thing.
_EXISTS_PHRASE = re.compile(
    r"^\s*(?:so |and |but |ok,? |et |alors )?(?:is there|are there|y a-t-il|existe-t-il|"
    r"est-ce qu'il y a|il y a)\s+(?!(?:any\s+)?(?:information|info|more|a way|way)\b)"
    r"(?:any |a |an |some |un |une |des |de |d'|du )?"
    r"(?P<phrase>.+?)(?:\s+(?:of|for|in|on|at|to|with|from|about|if|when|or|and|that|which|"
    r"who|\w+ed|de|du|des|pour|sur|dans|si|quand|ou|et|qui|que)\b|[?.,;!]|$)",
    re.I,
)


_FRENCH_EXISTS = re.compile(
    r"^(?:et |alors )?(?:y a-t-il|existe-t-il|est-ce qu'il y a|il y a)\b", re.I
)


# "What dividend did Brightwell pay?", "which discounts do you offer?": the noun between
# "what" and the auxiliary is the thing asked for, the object of the verb that follows.
# Read in English only: the French "quel X a-t-il..." is another order.
_OBJECT_ASKED = re.compile(
    r"^\s*(?:so |and |but |ok,? )?(?:what|which)\s+(?P<phrase>[a-z][\w'-]*(?:\s+[a-z][\w'-]*)"
    r"{0,2}?)\s+(?:do|does|did)\s+\w",
    re.I,
)


# "Does Brightwell sell tablets?", "do you offer student discounts?": whether a kind of
# thing is on offer, asked as "is there a X?" is (its head noun).
_ON_OFFER = re.compile(
    r"^\s*(?:so |and |but |ok,? )?(?:does|do|did|can)\s+[\w'-]+\s+(?:sell|offer|stock|carry|"
    r"provide)\s+(?:any\s+|a\s+|an\s+)?(?P<phrase>[a-z][\w'-]*(?:\s+[a-z][\w'-]*){0,2}?)"
    r"(?:\s+(?:for|to|in|at|on|with|from|that|which|who|and|or)\b|[?.,;!]|$)",
    re.I,
)


# "Who do I contact for a data breach?", "who should we call about a broken screen?": the
# contact for a situation, which the passage must name (its head noun, as for "is there a
# X?"); a passage on data that names no breach gives the contact for something else.
_CONTACT_FOR = re.compile(
    r"^\s*(?:so |and |but |ok,? )?(?:who|whom|where)\s+(?:do|should|can|could|must|would)\s+"
    r"(?:i|we|you|one|employees|customers|staff)\s+(?:contact|call|e-?mail|ask|notify|tell|"
    r"reach|report\s+it|report\s+this|(?:talk|speak|turn|go|write)\s+to)\s+"
    r"(?:for|about|regarding|concerning|with|over)\s+(?:a |an |the |my |our |any |some )?"
    r"(?P<phrase>[a-z][\w'-]*(?:\s+[a-z][\w'-]*){0,2}?)"
    r"(?:\s+(?:for|to|in|at|on|with|from|that|which|who|and|or|if|when)\b|[?.,;!]|$)",
    re.I,
)


# "Does the Enterprise plan include on-site support?": whether a thing comes with a
# feature asks for that feature, modifiers and head: "on-site support" is not the "phone
# support" a passage states, as "vacation days" are not any days.
_FEATURE_ASKED = re.compile(
    r"^\s*(?:so |and |but |ok,? )?(?:does|do|did|will|would|can)\s+"
    r"(?:the |a |an |your |their |its |this |that )?[\w'-]+(?:\s+[\w'-]+){0,3}?\s+"
    r"(?:include|come with)\s+(?:any\s+|a\s+|an\s+|the\s+)?"
    r"(?P<phrase>[a-z][\w'-]*(?:\s+[a-z][\w'-]*){0,2}?)"
    r"(?:\s+(?:for|to|in|at|on|with|from|that|which|who|and|or|if|when)\b|[?.,;!]|$)",
    re.I,
)


# "What happens to my data when I return a phone?": what happens to a thing asks about
# that thing, whatever the circumstance; a passage on returns that never speaks of data
# says nothing of what becomes of it.
_HAPPENS_TO = re.compile(
    r"^\s*(?:so |and |but |ok,? )?what (?:happens|happened|will happen|would happen|"
    r"becomes of)\s+(?:to\s+)?(?:the |my |our |your |their |a |an |any )?"
    r"(?P<phrase>[a-z][\w'-]*(?:\s+[a-z][\w'-]*){0,2}?)"
    r"(?:\s+(?:for|to|in|at|on|with|from|that|which|who|and|or|if|when|after|before|once)\b"
    r"|[?.,;!]|$)",
    re.I,
)


# "How many vacation days do employees get?": what is counted, modifiers and head. The
# modifiers say which ones are counted ("vacation days" are not the "7 days" of an SMS
# fallback), so a passage must hold them all, unlike the head-only phrases above.
_COUNTED_PHRASE = re.compile(
    r"^\s*(?:so |and |but |ok,? )?how many\s+(?P<phrase>[a-z][\w'-]*(?:\s+[a-z][\w'-]*){0,2}?)"
    r"\s+(?:do|does|did|are|were|is|was|have|has|had|will|can|could|should)\s+\w",
    re.I,
)


_PRONOUN_SUBJECT = re.compile(r"(?:it|they|he|she|il|elle|ils|elles)\b", re.I)


# A pronoun or demonstrative standing for something said before.
_POINTER = re.compile(
    r"\b(that|this|it|them|those|these|ça|cela|ceci|celui-ci|celle-ci|ceux-ci|celles-ci)"
    r"(?![\w-])",
    re.I,
)


def pointer_of(question: str) -> str | None:
    """Return the pronoun or demonstrative a message points back with, if any."""
    match = _POINTER.search(question)
    return match.group(1) if match else None


def typed_kind_terms(kind: str | None) -> frozenset[str]:
    """Return the words asking for a kind of fact ("cheapest" for a price), checked as that kind."""
    return ASKING_TERMS.get(kind or "", frozenset())


def substantive_terms(content: Sequence[str], *, typed: str | None = None) -> list[str]:
    """Return a question's content terms without the words for the kind of value asked.

    "What is the password policy?" is about passwords: the passage that answers states
    the rules and need not say "policy". A question made of such words only keeps them,
    unless the kind is `typed` (the kind of fact asked, which the answer type check
    looks for): "how heavy is it?" asks for a weight ("weighs 1.09 kg" never says
    "heavy"), "combien coûte-t-il ?" for a price ("vendu 449 $").
    """
    kind_words = KIND_WORDS | typed_kind_terms(typed)
    specific = [t for t in content if t not in kind_words]
    return specific or ([] if typed else list(content))


def kind_word_compounds(question: str) -> list[str]:
    """Return the compounds a "what is X" question's X makes of a kind word and a noun.

    "share" names a kind of value ("the share of online sales"); before another noun it
    is no kind but part of that noun's name: "the share price" is the price of shares,
    stated as such, not by a passage saying "shared" beside "prices". Each compound is
    returned as written ("share price"), to be found in a row.
    """
    match = _ASKED_PHRASE.search(question)
    if not match:
        return []
    words = re.findall(r"[\w'’-]+", match.group("phrase"))
    found = []
    for first, second in zip(words, words[1:], strict=False):
        head, noun = terms(first), content_terms(second)
        if len(head) == 1 and head[0] in KIND_WORDS and noun and noun[0] not in KIND_WORDS:
            found.append(f"{first} {second}")
    return found


def asked_situation(question: str) -> str:
    """Return, as typed, the feature or the situation a feature or "what happens" question asks.

    "Does the Enterprise plan include on-site support?" → "on-site support"; "What happens
    to my data when I return a phone?" → "my data when I return a phone": what a decline
    names as missing (the documents do speak of data, not of it on a returned phone).
    """
    if match := _FEATURE_ASKED.search(question):
        return match.group("phrase")
    if match := _HAPPENS_TO.search(question):
        return question[match.start("phrase") :].strip(" ?.!")
    return ""


def asks_for_a_feature(question: str) -> bool:
    """Whether a question asks if a thing includes or comes with a feature."""
    return _FEATURE_ASKED.search(question) is not None


def happens_to_terms(question: str) -> list[str]:
    """Return the terms of the thing a "what happens to X (when Y)?" question asks about."""
    match = _HAPPENS_TO.search(question)
    if not match:
        return []
    return [t for t in content_terms(match.group("phrase")) if t not in GENERIC_TERMS]


def asked_phrase_terms(question: str) -> list[str]:
    """Return what a "what is X / who is X" question asks for: the content terms of X.

    The word for the kind of value ("capacity", "policy") is left out: "the battery
    capacity" asks for the battery's, and the passage that states it in mAh never says
    "capacity". "Is there a X?" asks for X the same way, and so does "what X did Y
    <verb>?" (its head noun: "What dividend did Brightwell pay?" asks for a dividend,
    which a passage saying only "paying" does not state). "How many X do/are..." asks
    for a count of X, each of its words ("vacation days").
    """
    exists = None
    match = (
        _ASKED_PHRASE.search(question)
        or _COUNTED_PHRASE.search(question)
        or _FEATURE_ASKED.search(question)
        or _HAPPENS_TO.search(question)
    )
    if match is None:
        match = exists = (
            _EXISTS_PHRASE.search(question)
            or _OBJECT_ASKED.search(question)
            or _ON_OFFER.search(question)
            or _CONTACT_FOR.search(question)
        )
    if not match or _PRONOUN_SUBJECT.match(match.group("phrase")):
        # "What is it called?", "what are they used for?": the pronoun is the subject of
        # a verb, no thing whose name the passage must hold.
        return []
    asked = [t for t in content_terms(match.group("phrase")) if t not in GENERIC_TERMS]
    if exists is not None and asked:
        # Whether a kind of thing exists, or which one a subject did something with: its
        # head noun ("discount" of "a student discount", "réduction" of "une réduction
        # étudiante"); its modifiers ("other important river systems", "many teams") are
        # what the answer tells about them.
        french = _FRENCH_EXISTS.match(question.strip()) is not None
        asked = [asked[0] if french else asked[-1]]
    # "la politique de mots de passe": the phrase ends before its complement, and the
    # kind word alone asks for nothing a passage must name. A kind word before another
    # noun modifies it and names the thing asked: "the share price" is a price of shares,
    # which a passage stating "the share of online sales" and some prices does not give.
    modifiers = {t for compound in kind_word_compounds(question) for t in terms(compound)}
    return [t for t in asked if t not in KIND_WORDS or t in modifiers]


_PART_SPLIT = re.compile(
    r"\?|;|\b(?:and|et)\s+(?=(?:also|what|how|is|are|does|do|can|when|where|who|which|"
    r"quel\w*|comment|combien|est-ce)\b)",
    re.I,
)


# A sentence telling the user's own case: "I bought it 3 weeks ago.", "We're on Business.",
# « J'ai acheté mon téléphone il y a trois semaines. ». It gives the question its context
# and asks nothing; a request in the first person ("I need the Enterprise SLA.", « je
# cherche un portable ») still asks.
_OWN_CASE = re.compile(
    r"^\s*(?:i|i'm|i've|i'd|we|we're|we've|my|our|je|j['’]\w*|nous|mon|ma|mes|notre|nos)\b"
    r"(?!.*\b(?:want|wants|need|needs|would like|'d like|looking for|wonder|wish|veux|voudrais|"
    r"voudrions|aimerais|aimerions|cherche|cherchons|souhaite|souhaitons|besoin)\b)"
    r"[^?]*\.\s*$",
    re.I,
)


def question_parts(question: str) -> list[str]:
    """Return the separately answerable parts of a question ("X? And how much is Y?").

    A sentence telling the user's own case (`_OWN_CASE`) is none, beside a question.
    """
    sentences = re.split(r"(?<=[.!?])\s+", question.strip())
    asking = [s for s in sentences if not _OWN_CASE.match(s)]
    if asking and len(asking) < len(sentences):
        question = " ".join(asking)
    parts = [p.strip(" ,.") for p in _PART_SPLIT.split(question)]
    return [p for p in parts if content_terms(p)]


def uncovered_parts(question: str, vocabularies: Sequence[set[str]]) -> list[str]:
    """Parts of a multi-part question that no single passage mostly covers."""
    parts = question_parts(question)
    if len(parts) < 2:
        return []
    missing = []
    for part in parts:
        words = content_terms(part)
        best = max((sum(1 for t in words if matches_term(t, v)) for v in vocabularies), default=0)
        if best / len(words) <= COVERAGE_MAJORITY:
            missing.append(part)
    return missing
