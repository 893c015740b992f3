"""An offline, extractive LangChain chat model: answers made only of context sentences.

It reads the same tag-structured prompt a real LLM gets (parsed with
`threadline.models.answer_prompt`, beside the renderer the graph uses), picks
the sentences of the sources that best match the question, cites each one, and
for deliverables appends a `SUIVI` outline built from the sources' section
headings. Every fact it writes is a sentence copied from the context, so it
cannot invent one.

It is a drop-in chat model, like LangChain's fake tool-calling models:
`bind_tools` accepts tools and answers without calling any (its model profile
says `tool_calling: False`), and `with_structured_output` fills the answer
schema (verdict, answer, missing) from its text. It only matches words, so it
cannot judge whether the sources answer (`quotes_sources`): the graph's
evidence check decides for it.

Over 400 lines: the LangChain model interface and the composition of its three
answer styles (prose, list, deliverable) read one parsed prompt; the rules for which
sentences answer are one reading of a question and stay beside the composer that
applies them.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from langchain_core.callbacks import CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel, LanguageModelInput, ModelProfile
from langchain_core.messages import AIMessage, AIMessageChunk, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatGenerationChunk, ChatResult
from langchain_core.runnables import Runnable, RunnableLambda
from langchain_core.tools import BaseTool
from pydantic import BaseModel, Field

from threadline.knowledge.bilingual import (
    lexicon_phrases,
    translate_passage_terms,
    translate_query,
    translate_vocabulary,
)
from threadline.knowledge.facts import (
    ASKING_TERMS,
    KIND_WORDS,
    KINDS,
    LOCUTIONS,
    RELATIVE_TIME,
    asks_what_is_now,
    asks_what_was,
    counted_noun,
    counts_other_things_only,
    has_answer_type,
    offer_verb_terms,
    states_an_aim,
    states_count_of,
    states_share_of,
)
from threadline.knowledge.limits import compared_numbers
from threadline.models.answer_prompt import (
    INSUFFICIENT_CONTEXT,
    PromptSource,
    parse_answer_prompt,
)
from threadline.text import fold, is_stopword, terms
from threadline.text.language import detect_language
from threadline.text.lexicons import en, fr
from threadline.text.matching import (
    acronyms,
    matches_same_sense,
    matches_synonym,
    matches_term,
    matches_verb_form,
    terms_in_a_row,
    verb_forms,
)

MODEL_NAME = "threadline-extractive"

_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[\"'(«A-ZÀ-Ý0-9])")
# The names of a question: capitalised words past its first, words capitalised inside
# ("iPhone", "eBay", at any place), codes ("8a", "S25").
_NAMES = re.compile(r"(?<=\s)[A-ZÀ-Ý][\w'’-]*|\b[a-z]+[A-ZÀ-Ý][\w'’-]*|\b\w*\d\w*\b")
# English capitalises the days of the week and the months: they name times, not things
# ("Can I get support on Sunday?" asks of support on a day, which "Monday to Friday"
# states without writing "Sunday").
_TIME_WORDS = frozenset(w.casefold() for w in en.CAPITALISED_TIME_WORDS.split())


def question_names(question: str) -> list[str]:
    """Return the names a question writes (see `_NAMES`), the days and months left out."""
    return [n for n in _NAMES.findall(question) if n.casefold() not in _TIME_WORDS]


_BULLET = re.compile(r"^\s*(?:[-*•]|\d+[.)])\s+")
# Words that say what to do with the answer, not what it is about. Not "part": it
# shares its stem with "la part des smartphones" (the share asked for); "partie" is here.
_REQUEST_TERMS = set(
    terms(
        "detail details detailed expand elaborate explain tell more say go deeper about "
        "summary summarise summarize overview synthesis report give show describe "
        "please point section source document "
        "détaille détailler développe développer précise préciser explique expliquer "
        "approfondis résume résumer résumé synthèse fais donne parle moi plus "
        "point partie section source document stp merci"
    )
)

# Folded French auxiliary and modal forms, as terms ("faire" → "fair").
_FRENCH_AUXILIARIES = frozenset(terms(" ".join(sorted(fr.AUXILIARY_FORMS))))


# A request verb with a doer of its own, other than the assistant: "Where can people
# report a scam?", "how to report a phishing email", "Should I describe my symptoms?" ask
# about reporting, an act in the world; "report" is then what a passage must say ("report
# the incident to TIGTA"), not how the user asks for the answer ("Give me a report").
_ACTED_REQUEST = re.compile(
    r"\b(?:(?:can|could|should|must|may|do|does|did|will|would|where|how|when)\s+"
    r"(?!you\b)(?:i|we|they|people|one|someone|anyone|[a-z]+s)|(?<!you )to)\s+"
    r"(?P<verb>[a-z]+)\b",
    re.I,
)


def acted_request_terms(question: str) -> set[str]:
    """Return the request words a question uses as an act of its own doer, not of ours."""
    found: set[str] = set()
    for match in _ACTED_REQUEST.finditer(question):
        found |= set(terms(match.group("verb"))) & _REQUEST_TERMS
    return found


def _asking_terms(question: str, answer_type: str = "") -> set[str]:
    """Return the question's words that say how it asks, not what about.

    "Pendant combien de temps ?" asks for a duration: "temps" is what the answer type
    check looks for ("for 7 days"), not a word a sentence must hold ("at all times").
    French auxiliaries and modals ("faire", "est" of "qu'est-ce que") ask how, as the
    English stopwords "do", "should", "is" do.
    """
    asking = set(ASKING_TERMS.get(answer_type, frozenset())) | (
        _REQUEST_TERMS - acted_request_terms(question)
    )
    # "Does Brightwell provide support on weekends?" asks whether support is on offer:
    # "prévoit" translated "provide" in a 2025 plan says nothing of it.
    asking |= offer_verb_terms(question)
    if detect_language(question) == "fr":
        asking |= _FRENCH_AUXILIARIES
    return asking


# "Can I cancel a monthly plan?", "Puis-je annuler... ?": whether an action is allowed.
# The verb after the modal and its subject is that action; "get", "have", "do", "use"
# and their French forms say nothing of one ("Can I get support on Sunday?").
_ASKED_ACTION = re.compile(
    r"\b(?:(?:can|could|may)\s+(?:i|we|one)|is\s+it\s+possible\s+to|am\s+i\s+allowed\s+to"
    r"|puis-je|peut-on|peux-je|pouvons-nous|est-il\s+possible\s+d[e']|ai-je\s+le\s+droit\s+d[e'])"
    r"\s*([a-zà-ÿ]{3,})\b",
    re.I,
)
_NO_ACTION = frozenset(
    terms(
        "get have do use make see know ask find be go obtenir avoir faire utiliser voir "
        "savoir demander trouver etre aller"
    )
)


def asked_action(question: str) -> set[str]:
    """Return the terms of the action a "can I <verb>...?" question asks about, if any.

    A French verb is read in English too: the policy says "cancelled", the question
    "annuler".
    """
    match = _ASKED_ACTION.search(question)
    if match is None:
        return set()
    verb = match.group(1)
    found = set(terms(verb)) - _NO_ACTION
    if found and detect_language(question) == "fr":
        found |= set(terms(translate_query(verb, "fr", "en"))) - _NO_ACTION
    return found


def own_terms(question: str, answer_type: str = "") -> set[str]:
    """Return the question's own content terms: what it asks about, not how it asks."""
    said = RELATIVE_TIME.sub(" ", LOCUTIONS.sub(" ", question))
    return set(terms(said)) - _asking_terms(question, answer_type)


def _translated_terms(
    question: str, sources: Sequence[PromptSource], answer_type: str = ""
) -> set[str]:
    """Return the question's terms in the sources' main languages, when those are others.

    The sentences that answer "Quelle est la garantie du Pixel 8a ?" are English ones
    about a warranty: they are found through the question's words translated. The main
    languages are the sources' most common ones (all of them on a tie) and that of the
    source retrieval ranked first: "What is the gross margin?" is answered by the French
    report ranked first among English catalog pages, while a French passage ranked
    seventh does not earn a sentence for sharing one translated word ("e-mail") with an
    English question.
    """
    asked = detect_language(question)
    languages = [detect_language(f"{s.title} {s.text}") for s in sources]
    if not languages:
        return set()
    # As many sources in one language as in another: both are the sources' main ones
    # ("mot de passe" over the report ranked first and the handbook that answers).
    counts = Counter(languages)
    most = max(counts.values())
    written = ({lang for lang, n in counts.items() if n == most} | {languages[0]}) - {asked}
    said = RELATIVE_TIME.sub(" ", question)  # "last year" is when, no word to find
    found = {t for language in written for t in terms(translate_query(said, asked, language))}
    # The asking words' translations ask nothing either: "temps" is "time", and "at all
    # times" says nothing of how long SMS codes last.
    asking = _asking_terms(question, answer_type)
    words = re.findall(r"[\w'’-]+", question)
    dropped = " ".join(w for w in words if set(terms(w)) and set(terms(w)) <= asking)
    if dropped:
        kept = set(own_terms(question, answer_type))
        for language in written:
            found -= set(terms(translate_query(dropped, asked, language))) - kept
    return found


def _closed_compounds(question: str) -> set[str]:
    """Return the question's adjacent words written as one ("book keeping" → bookkeeping).

    A compound is written open, hyphenated or closed ("book keeping", "bookkeeping"): a
    passage that writes it closed answers a question that writes it open.
    """
    words = re.findall(r"[^\W\d_]+", question.lower())
    pairs = zip(words, words[1:], strict=False)
    return {t for a, b in pairs if len(a) > 2 and len(b) > 2 for t in terms(a + b)}


def _question_coverage(
    question: str,
    sources: Sequence[PromptSource],
    *,
    with_section: bool = False,
    answer_type: str = "",
) -> Callable[[tuple[float, int, int, str]], float]:
    """Return the share of the question's own words a sentence row holds, 0..1.

    A sentence in another language than the question's is read with its words'
    translations, so that each of the question's words counts once whatever the
    language it is found in. `with_section`: read with its passage's heading, as the
    sentence scores are ("Monday to Friday" under "Support hours" holds "support").
    """
    asked = detect_language(question)
    # "Que faire si je perds...": French auxiliaries and modals ask how, as the English
    # stopwords "do", "should", "can" do; the index keeps them, a reader not.
    own = own_terms(question, answer_type)
    languages = [detect_language(f"{s.title} {s.text}") for s in sources]

    # A phrase the lexicon translates whole ("ordinateur portable", a laptop) is one
    # thing asked about, counted once, as the evidence check reads it: a catalog laptop
    # holds one of "perdu" and "ordinateur portable", the lost-device rule both. French
    # questions only, as there (an English "business plan" is no phrase asked of).
    phrases: list[tuple[list[str], list[str]]] = []
    for phrase, head in lexicon_phrases(question, asked) if asked == "fr" else ():
        group = [t for t in dict.fromkeys(terms(phrase)) if t in own]
        if len(group) > 1:
            phrases.append((group, terms(head)))
    grouped = {t for group, _ in phrases for t in group}
    units = len(own) - len(grouped) + len(phrases)

    def covered(row: tuple[float, int, int, str]) -> float:
        if not own:
            return 1.0
        found = sentence_terms(row[3])
        if with_section:
            found |= sentence_terms(sources[row[1]].section)
        other_language = languages[row[1]] != asked
        if other_language:
            found |= translate_vocabulary(found, languages[row[1]], asked)
            # Its phrases too, as the evidence check reads the passage: "les ventes en
            # ligne ... 41 % du chiffre d'affaires" says online sales and revenue.
            found |= translate_passage_terms(row[3], languages[row[1]], asked)
        # Read as the evidence check reads a passage: "perds" finds "lose" in
        # translation, "lost" finds "loses", "NPS" a "Net Promoter Score"; and, as the
        # sentences are scored, a synonym ("delete" for "remove"): which passage leads
        # and where its quote starts are the answer's choice, no decision.
        held = sum(
            1
            for t in own
            if t not in grouped and (matches_term(t, found) or matches_synonym(t, found))
        )
        for group, head in phrases:
            # In the question's language the phrase is written in a row; in another
            # one, its words are read through translations, or its translation's head.
            if other_language:
                whole = all(matches_term(t, found) for t in group)
            else:
                whole = terms_in_a_row(group, terms(row[3]))
            held += whole or bool(head and all(matches_term(t, found) for t in head))
        return held / units

    return covered


def _heading_coverage(
    question: str, sources: Sequence[PromptSource], answer_type: str = ""
) -> Callable[[int], float]:
    """Return the share of the question's own words a source's heading holds, 0..1."""
    covered = _question_coverage(question, sources, answer_type=answer_type)
    return lambda index: covered((0.0, index, 0, sources[index].section))


def sentence_terms(sentence: str) -> set[str]:
    """Return a sentence's terms with the acronyms of its names ("Net Promoter Score": nps).

    A question asks about "the NPS" where a passage writes the name out.
    """
    return set(terms(sentence)) | acronyms(sentence)


def _asked_in_other_forms(asked: set[str], found: set[str]) -> set[str]:
    """Return the asked terms a sentence holds as another form of the same verb.

    "I lost my laptop" against "who loses a laptop": Snowball keeps "lost" apart from
    "loses", a reader does not. Or as a word the lexicons list as naming the same thing:
    "who should I contact?" against a manager "reachable through the Escalate button".
    """
    missing = [t for t in asked if t not in found]
    if not missing:
        return set()
    # The sentence's verbs read once for all the missing terms, not once per term.
    forms = verb_forms(found)
    return {
        t
        for t in missing
        if matches_verb_form(t, found, forms)
        or matches_same_sense(t, found)
        or matches_synonym(t, found)
    }


def _said_as(sentence: str) -> str:
    """Return a sentence as said: case and spacing aside, two copies are one sentence."""
    return " ".join(sentence.casefold().split())


def split_sentences(text: str) -> list[str]:
    """Sentences and bullet items of a passage, Markdown markers removed."""
    sentences: list[str] = []
    for line in text.splitlines():
        line = _BULLET.sub("", line).strip()
        if not line or line.startswith("#"):
            continue
        line = re.sub(r"\*\*|__|`", "", line)
        sentences.extend(s.strip() for s in _SENTENCE_END.split(line) if s.strip())
    return sentences


def _is_heading(sentence: str, source: PromptSource) -> bool:
    """Whether a sentence only repeats its passage's title or heading ("Penobscot River").

    Pages often open with their title as a line of its own: it names what the passage
    is about and states nothing, so it never answers (nor earns the passage a citation).
    """
    line = fold(sentence).strip(" .:;|-–")
    names = (fold(source.title), fold(source.section))
    return bool(line) and any(line in name for name in names if name)


# A sentence opening on a pronoun or a demonstrative speaks of what the sentence before
# it named: "This type of photography is common at airshows" after "In ground-to-air
# photography, photos of aircraft in flight are taken...".
_ANAPHOR = re.compile(
    r"^\W*(?:this|these|that|those|it|its|they|their|such|"
    r"ce|cet|cette|ces|cela|ceci|il|elle|ils|elles)\b",
    re.I,
)


def continues_previous(sentence: str) -> bool:
    """Whether a sentence goes on about the one before it, as prose.

    It opens on a pronoun or a demonstrative; a heading or a question opening so
    ("This week's offers") states nothing of the sentence before it.
    """
    return bool(_ANAPHOR.match(sentence)) and not states_nothing(sentence)


# How a statement ends: a stop, a colon before a list, a closing quote or bracket, a
# percentage. A short line ending otherwise is a heading or a menu entry.
_STATEMENT_END = re.compile(r"[.!:;)\]\"'”»%]$")
_HEADING_WORDS = 8


def states_nothing(sentence: str) -> bool:
    """Whether a sentence asks or names instead of stating: a question, or a heading.

    A page's FAQ heading restates what the user asks ("Why can't I apply a subscription
    code?"), every word of it, and answers nothing: the sentences after it do. A short
    line that ends as no statement ends ("Checking your invoice status", "Charges based
    on features") names what the lines after it say.
    """
    line = sentence.strip()
    if line.rstrip(" \"'”»)").endswith("?"):
        return True
    return len(line.split()) <= _HEADING_WORDS and not _STATEMENT_END.search(line)


# A sentence's subject is in its first words ("Brightwell business hours are...").
_SUBJECT_WORDS = 4
_CLAUSE_END = re.compile(r"\s*[;:]\s+")


def clauses(sentence: str) -> list[str]:
    """Return a sentence's clauses: the statements a semicolon or a colon joins."""
    return [c for c in _CLAUSE_END.split(sentence) if c.strip()] or [sentence]


_CODE = re.compile(r"^([^\W\d_]+)(\d+)$")
_CAPITALISED = r"[A-ZÀ-Ý][\w'’-]*"


def _names_as_the_passages_write_them(question: str, texts: Sequence[str]) -> list[tuple[str, str]]:
    """Return the lower-case words of a question the passages write as names, with their nouns.

    "the P1 response time on business" over passages writing "the Business plan" names the
    Business plan: ("Business", "plan"), when the word stands alone in the question, after
    a function word and with no noun of its own after it ("business hours" is another
    thing). Each noun the passages
    write after it capitalised inside a sentence is one ("Enterprise plan", "Enterprise
    customers").
    """
    words = re.findall(r"[\w'’-]+|[^\w\s]", question)
    found: list[tuple[str, str]] = []
    for position, word in enumerate(words):
        after = words[position + 1] if position + 1 < len(words) else ""
        if (
            position > 0
            # After a function word ("on business", "for the enterprise"), as a name is:
            # "select query to work" types a common noun after another word.
            and is_stopword(words[position - 1].lower())
            and len(word) > 2
            and word.isalpha()
            and word.islower()
            and not is_stopword(word)
            and (not after or not after[0].isalnum() or is_stopword(after.lower()))
        ):
            name = word.capitalize()
            # Inside a sentence ("the Business plan"), not at its start.
            written = re.compile(rf"(?<=[a-z,] ){name} ([a-z]{{3,}})\b")
            nouns = {m.group(1) for text in texts for m in written.finditer(text)}
            found.extend((name, noun) for noun in sorted(nouns) if not is_stopword(noun))
    return found


def _sibling_patterns(
    question: str, texts: Sequence[str] = ()
) -> list[tuple[re.Pattern[str], str]]:
    """Return how a sentence names another thing of the kind the question names.

    "P2" has siblings "P1", "P3" (the same letters, another number); "the Basic plan"
    has "the Business plan", "the Enterprise plan" (another name before the same
    noun; "le plan Business" after it). Each pattern comes with the name it stands for.
    A name typed in lower case is read as the passages (`texts`) write it
    (`_names_as_the_passages_write_them`).
    """
    words = re.findall(r"[\w'’-]+", question)
    patterns: list[tuple[re.Pattern[str], str]] = []
    for word, noun in _names_as_the_passages_write_them(question, texts) if texts else ():
        before = rf"\b(?!{re.escape(word)}\b)({_CAPITALISED}) (?i:{re.escape(noun)})\b"
        patterns.append((re.compile(before), word))
    for position, word in enumerate(words):
        code = _CODE.match(word)
        if code and code.group(1)[0].isupper():
            letters = re.escape(code.group(1))
            patterns.append((re.compile(rf"\b{letters}(?!{code.group(2)}\b)\d+\b"), word))
            continue
        if position == 0 or not word[0].isupper() or is_stopword(word.lower()):
            continue
        for head in (words[position + 1 : position + 2], words[position - 1 : position]):
            if head and head[0].islower() and not is_stopword(head[0]) and terms(head[0]):
                noun = re.escape(head[0])
                before = rf"\b(?!{re.escape(word)}\b)({_CAPITALISED}) (?i:{noun})\b"
                after = rf"\b(?i:{noun}) (?!{re.escape(word)}\b)({_CAPITALISED})"
                # Apart: "Le plan Business" holds "Le plan" (no name) before "plan Business".
                patterns.extend([(re.compile(before), word), (re.compile(after), word)])
    return patterns


def names_another(sentence: str, patterns: Sequence[tuple[re.Pattern[str], str]]) -> bool:
    """Whether a sentence names a sibling of one of the question's names and not it.

    "A P3 (medium) incident is..." for "What is a P2 incident?", "The Business plan SLA
    guarantees 99.9%" for the Basic plan: another incident, another plan. A sentence
    naming both ("If a P1 or P2 incident...") still speaks of the one asked.
    """
    for pattern, name in patterns:
        if re.search(rf"(?<![\w'’-]){re.escape(name)}(?![\w'’-])", sentence):
            continue
        for match in pattern.finditer(sentence):
            # A code is itself the other name; before or after a noun, the capitalised
            # word is, unless it is a sentence's "The" ("The plan covers...").
            other = next((g for g in match.groups() if g), match.group(0))
            if not is_stopword(other.lower()):
                return True
    return False


_WHAT_IS = re.compile(
    r"^\W*(?:(?:so|and|but|ok|then|et|alors)\W+)?(?:what(?:'s| is| are) (?P<x>[^?]+)|"
    r"what does (?P<y>[^?]+?) mean|qu'est-ce (?:qu'|que )(?P<z>[^?]+)|c'est quoi (?P<w>[^?]+)|"
    r"que (?:signifie|veut dire) (?P<v>[^?]+)|define (?P<u>[^?]+))",
    re.I,
)
# "X is a...", "X means...": a copula before a determiner names what X is; "refunds
# are paid", "devices returned ... are refunded" (a passive) say what is done to it.
_COPULA = re.compile(
    r"^(?P<subject>.{1,90}?)\s(?:(?:is|are|est|sont)\s(?:an?|the|one|any|un|une|le|la|les|"
    r"l'|des)\b|(?:means|refers to|is defined as|désigne|signifie)\s|"
    # "Confidential information includes customer contracts, ...": a class said by
    # its members, as a classification defines each of its levels.
    r"(?:includes|covers|comprend|regroupe)\s)",
    re.I,
)
_CONDITION = re.compile(r"^\W*(?:if|when|whenever|while|although|because|si|quand|lorsqu)", re.I)


# "I keep seeing the word Kubernetes, but I am not understanding this term", "le terme
# « churn »": a word pointed at as a word is asked for its meaning, as "what is X?" is.
_WORD_NAMED = re.compile(
    r"\b(?:the|this|that|le|ce|cet|cette)\s+(?:word|term|expression|mot|terme)\s+"
    r"[«\"“'‘]?\s*(?P<x>[\w’'-]+)",
    re.I,
)


def defined_terms(question: str) -> set[str]:
    """Return the terms of X in a "what is X?" / "qu'est-ce qu'un X ?" question, else none.

    A word the question points at as a word ("the word Kubernetes") is an X too: its
    meaning is what is asked, whatever the rest of the sentence says.
    """
    match = _WHAT_IS.search(question.strip())
    if not match:
        named = _WORD_NAMED.search(question)
        if not named:
            return set()
        return set(terms(named.group("x"))) - KIND_WORDS - _REQUEST_TERMS
    phrase = next(g for g in match.groups() if g)
    return set(terms(phrase)) - KIND_WORDS - _REQUEST_TERMS - _FRENCH_AUXILIARIES


def defines(sentence: str, defined: set[str]) -> bool:
    """Whether a sentence says what X is: X is its subject, before "is", "means"...

    "A P2 (high) incident is a major loss of functionality" defines a P2 incident; "On
    the Enterprise plan, P2 incidents get a first response within 1 hour" says what
    happens to one, and "If a P2 incident is not resolved" is a condition.
    """
    return bool(defined & _defined_subject(sentence))


def defines_whole(sentence: str, defined: set[str]) -> bool:
    """Whether a sentence says what all of X is: every term of X in its subject.

    "Kubernetes is an open source platform..." defines the whole of "the word
    Kubernetes"; "The service level agreement (SLA) is a contract" only part of "what is
    the SLA uptime of the Basic plan?".
    """
    return bool(defined) and defined <= _defined_subject(sentence)


def defines_under(sentence: str, defined: set[str], heading: str) -> bool:
    """Whether a sentence says what all of X is, read under its section's heading.

    Under "Data classification", "Confidential information includes customer
    contracts, ..." says what confidential data is: its subject names X's own word
    ("Confidential"), the heading the rest ("data"), as a reader of the section reads it.
    """
    subject = _defined_subject(sentence)
    return bool(defined & subject) and defined <= subject | sentence_terms(heading)


def says_what_it_is(text: str, question: str) -> bool:
    """Whether a passage has a sentence saying what the whole of a "what is X?" X is."""
    defined = defined_terms(question)
    return bool(defined) and any(defines_whole(s, defined) for s in split_sentences(text))


def _defined_subject(sentence: str) -> set[str]:
    """Return the terms of the subject a sentence defines ("X is a...", "X means..."), if any."""
    match = _COPULA.match(sentence)
    if not match or _CONDITION.match(sentence):
        return set()
    subject = match.group("subject")
    return sentence_terms(subject) if len(subject.split()) <= 10 else set()


# "What are the data classification levels?", "Quelles sont les étapes ?", "List the
# plans": a question asking which things make up a kind, in the plural.
_MEMBERS_ASKED = re.compile(
    r"^\W*(?:(?:and|so|et|alors)\W+)?(?:(?:what|which)\s+are\s+the\b|(?:quels|quelles)\s+sont"
    r"\s+les\b|(?:list|name|give\s+me|liste[zr]?|énumère[zr]?|cite[zr]?)\s+(?:all\s+)?(?:the|les)\b)",
    re.I,
)
# Three items or more, the last joined by "and" / "or": "Public, Internal, Confidential
# and Restricted", "email, chat, and phone".
_ENUMERATION = re.compile(
    r",[^,;.]{1,40},\s*(?:(?:and|or|et|ou)\s|[^,;.]{1,40}\s(?:and|or|et|ou)\s)", re.I
)


def asks_for_members(question: str) -> bool:
    """Whether a question asks for the members of a kind ("What are the levels?")."""
    return bool(_MEMBERS_ASKED.search(question.strip()))


def enumerates(sentence: str) -> bool:
    """Whether a sentence lists three things or more ("Public, Internal and Restricted")."""
    return bool(_ENUMERATION.search(sentence))


def leads_with_asked(asked: set[str]) -> Callable[[str], int]:
    """Return how many of the asked terms a sentence's first words (its subject) hold.

    "how long do refunds take to arrive?": "Refunds are paid ... within 10 business days"
    is about refunds; "Opened devices returned within 30 days are refunded" is about
    opened devices, whatever it says of them. "Brightwell business hours are..." is about
    the hours asked ("horaires"), "Basic plan customers can contact ... support" is not.
    """

    def held(sentence: str) -> int:
        subject = " ".join(re.findall(r"[\w'’-]+", sentence)[:_SUBJECT_WORDS])
        found = sentence_terms(subject)
        return sum(1 for t in asked if t in found)

    return held


def _sentence_fit(
    question: str,
    answer_type: str = "",
    translated: set[str] = frozenset(),  # type: ignore[assignment]
    compared: frozenset[str] = frozenset(),
) -> Callable[[tuple[float, int, int, str]], tuple[float, ...]]:
    """Return how well a sentence row fits the question beyond its score, to break ties.

    In order: it defines what a "what is X?" question asks about; it names more of the
    question's names ("The Basic plan SLA guarantees 99.5%" for the Basic plan's uptime
    commitment, not "The service level agreement of each plan sets..."); for a question
    asking a kind of fact (a duration, a price...), its subject is what the fact is
    asked of ("Refunds are paid ... within 10 business days", not "Opened devices
    returned within 30 days are refunded"). The subject is read for typed questions
    only: on any question it chose imperatives and conditions ("Select the pricing
    plan", "If you're estimating costs...") on the answers benchmark (ROUGE-L below).
    A number measured against a limit (`compared`: "après 10 jours") is no name.
    """
    defined = defined_terms(question)
    names = {fold(name) for name in question_names(question)} - compared
    leads = leads_with_asked(own_terms(question, answer_type) | translated)

    def fit(row: tuple[float, int, int, str]) -> tuple[float, ...]:
        said = set(re.findall(r"[\w'’-]+", fold(row[3])))
        return (
            float(defines(row[3], defined)),
            float(len(names & said)),
            float(leads(row[3])) if answer_type in KINDS else 0.0,
        )

    return fit


def _stated_coverage(
    covered: Callable[[tuple[float, int, int, str]], float],
) -> Callable[[tuple[float, int, int, str]], float]:
    """Return the share of the question a sentence row says in one of its clauses, 0..1.

    "When the SLA uptime commitment is missed, ...; Basic plan customers are not eligible
    for service credits" holds every word of "the uptime commitment of the Basic plan",
    in two statements, neither of which says it.
    """
    return lambda row: max(covered((row[0], row[1], row[2], c)) for c in clauses(row[3]))


class ExtractiveChatModel(BaseChatModel):
    """Composes grounded answers from the context sentences; no network, no weights."""

    max_sources: int = 3
    """Passages a plain answer quotes: the best-ranked one and the next with an answer."""
    answer_words: int = 60
    """Words quoted from the leading passage: the length of a useful answer's core."""
    detail_sentences: int = 6
    """Sentences when the user asks about one section of the previous answer."""
    outline_keyword: str = "SUIVI"
    """The outline block keyword (never translated)."""
    max_outline_sections: int = 8
    profile: ModelProfile | None = Field(
        default_factory=lambda: ModelProfile(tool_calling=False, structured_output=True),
        exclude=True,
    )
    """It cannot choose a tool; it fills the answer schema."""
    quotes_sources: bool = True
    """Every sentence it writes is copied from a source: it cannot judge or translate."""

    @property
    def _llm_type(self) -> str:
        return MODEL_NAME

    @property
    def _identifying_params(self) -> dict[str, Any]:
        return {"model_name": MODEL_NAME}

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        text = self.compose(messages)
        message = AIMessage(content=text, response_metadata={"model_name": MODEL_NAME})
        return ChatResult(generations=[ChatGeneration(message=message)])

    def _stream(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> Iterator[ChatGenerationChunk]:
        text = self.compose(messages)
        for piece in re.findall(r"\S+\s*|\s+", text):
            chunk = ChatGenerationChunk(message=AIMessageChunk(content=piece))
            if run_manager:
                run_manager.on_llm_new_token(piece, chunk=chunk)
            yield chunk
        yield ChatGenerationChunk(
            message=AIMessageChunk(content="", response_metadata={"model_name": MODEL_NAME})
        )

    def bind_tools(
        self,
        tools: Sequence[dict[str, Any] | type | Callable[..., Any] | BaseTool],
        *,
        tool_choice: str | None = None,
        **kwargs: Any,
    ) -> Runnable[LanguageModelInput, AIMessage]:
        """Accept tools, as LangChain's fake tool-calling models do; it never calls one.

        Args:
            tools: The tools a real model could call (ignored).
            tool_choice: Ignored.
            **kwargs: Ignored.

        Returns:
            This model: its replies carry no tool calls, so a caller keeps its own.
        """
        return self

    def with_structured_output(
        self,
        schema: dict[str, Any] | type,
        *,
        include_raw: bool = False,
        **kwargs: Any,
    ) -> Runnable[LanguageModelInput, dict[str, Any] | BaseModel]:
        """Fill the answer schema (verdict, answer, missing) from the composed text.

        The text is the answer when it quotes anything (verdict "answer"), else the
        verdict is "not_in_documents" with an empty answer. The raw message keeps the
        plain text, so a stream of it reads like any model's answer.

        Args:
            schema: A JSON schema or pydantic class with `verdict` and `answer` fields.
            include_raw: Return `{"raw", "parsed", "parsing_error"}` like LangChain's models.
            **kwargs: Ignored (the method, strictness...).

        Returns:
            A runnable from messages to the filled schema.

        Raises:
            ValueError: For a schema without `verdict` and `answer` fields.
        """
        model = schema if isinstance(schema, type) and issubclass(schema, BaseModel) else None
        properties = (
            set(model.model_fields)
            if model is not None
            else set(schema.get("properties", {}) if isinstance(schema, dict) else ())
        )
        if not {"verdict", "answer"} <= properties:
            raise ValueError(
                f"{MODEL_NAME} fills only the answer schema (verdict, answer, missing); "
                f"got fields {sorted(properties)}"
            )

        def fill(message: AIMessage) -> dict[str, Any] | BaseModel:
            text = message.text.strip()
            declined = not text or text.startswith(INSUFFICIENT_CONTEXT)
            values: dict[str, Any] = {
                "verdict": "not_in_documents" if declined else "answer",
                "answer": "" if declined else text,
                "missing": [],
            }
            parsed: dict[str, Any] | BaseModel = (
                model.model_validate(values) if model is not None else values
            )
            if include_raw:
                return {"raw": message, "parsed": parsed, "parsing_error": None}
            return parsed

        return self | RunnableLambda(fill)

    # --- composition -----------------------------------------------------------
    def compose(self, messages: list[BaseMessage]) -> str:
        """Build the answer text for an answer prompt."""
        prompt = parse_answer_prompt("\n".join(m.text for m in messages if m.type == "human"))
        sources = list(prompt.sources)
        if not sources:
            return INSUFFICIENT_CONTEXT
        question, search_query = prompt.question, prompt.search_query
        if prompt.answer_style == "list":
            return self._list_answer(sources, question, search_query)
        if prompt.deliverable:
            return self._deliverable(sources, question, search_query)
        return self._answer(
            sources, question, search_query, prompt.followup_reference, prompt.answer_type
        )

    def _weights(
        self,
        question: str,
        search_query: str,
        translated: set[str] | None = None,
        answer_type: str = "",
        compared: frozenset[str] = frozenset(),
    ) -> Counter[str]:
        weights: Counter[str] = Counter()
        for term in terms(search_query):
            weights[term] = max(weights[term], 1)
        for term in {*own_terms(question, answer_type), *(translated or ())}:
            weights[term] = 2
        for term in _asking_terms(question, answer_type):
            weights.pop(term, None)
        for number in compared:
            # "après 10 jours" measured against "within 30 days": the 10 is the user's
            # case, not a word the answer holds ("within 10 business days" is a refund's
            # delay, no return rule).
            weights.pop(number, None)
        return weights

    def _scored(
        self,
        sources: list[PromptSource],
        weights: Counter[str],
        phrases: Sequence[Sequence[str]] = (),
    ) -> list[tuple[float, int, int, str]]:
        """(score, source index, sentence index, sentence) for every sentence.

        `phrases`: the terms of the lexicon's phrases a French question asks ("mot de
        passe"), each one thing: a sentence holds a word of one only where it writes the
        phrase in a row ("le Net Promoter Score est passé de 41 à 48" holds no password).
        """
        rows = []
        doc_freq: Counter[str] = Counter()
        per_sentence = []
        for s_index, source in enumerate(sources):
            for i, sentence in enumerate(split_sentences(source.text)):
                if _is_heading(sentence, source):
                    continue
                section = sentence_terms(source.section)
                parts = [sentence_terms(clause) | section for clause in clauses(sentence)]
                written = terms(sentence)
                apart = {
                    t for phrase in phrases if not terms_in_a_row(phrase, written) for t in phrase
                }
                parts = [part - apart for part in parts]
                found = set().union(*parts)
                found |= _asked_in_other_forms(set(weights), found)
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
                    for t in sorted(t for t in held | _asked_in_other_forms(set(weights), held))
                    if t in weights
                )
                for held in parts
            )
            # Earlier sources ranked higher in retrieval: a small prior breaks ties.
            score *= 1.0 + 0.15 / (1 + s_index)
            rows.append((score, s_index, i, sentence))
        return rows

    def _answer(
        self,
        sources: list[PromptSource],
        question: str,
        search_query: str,
        reference: str,
        answer_type: str = "",
    ) -> str:
        translated = _translated_terms(question, sources, answer_type) | _closed_compounds(question)
        compared = compared_numbers(question, [{"text": source.text} for source in sources])
        weights = self._weights(question, search_query, translated, answer_type, compared)
        carried: set[str] = set()
        if search_query and search_query != question:
            # The words a follow-up carries from the conversation are searched in the
            # sources' language too: "combien de temps ? (obtenir remboursement)" finds
            # the English "Refunds are paid ... within 10 business days".
            carried = _translated_terms(search_query, sources, answer_type)
            for term in carried:
                weights[term] = max(weights[term], 1)
        asked_phrases = [
            written
            for phrase, _ in (
                lexicon_phrases(question, "fr") if detect_language(question) == "fr" else ()
            )
            if len(written := list(dict.fromkeys(terms(phrase)))) > 1
        ]
        rows = self._scored(sources, weights, asked_phrases)
        read_in_order = sorted(rows, key=lambda r: (r[1], r[2]))
        if reference:
            # "Détaille S2": the user wants that section, so give more of it.
            ref_terms = set(terms(reference.split(":", 1)[-1]))
            matching = {
                idx
                for idx, s in enumerate(sources)
                if ref_terms and ref_terms <= set(terms(f"{s.section} {s.title}"))
            }
            if matching:
                rows = [(score + 1.0, si, i, s) for score, si, i, s in rows if si in matching]
        elif rows:
            asked_in = detect_language(question)
            native = frozenset(
                si
                for si, source in enumerate(sources)
                if detect_language(f"{source.title} {source.text}") == asked_in
            )
            texts = [source.text for source in sources]
            rows = self._answering(rows, question, answer_type, translated, native, texts)
        if reference:
            chosen = sorted((r for r in rows if r[0] > 0), key=lambda r: -r[0])
            chosen = sorted(chosen[: self.detail_sentences], key=lambda r: (r[1], r[2]))
        else:
            chosen = self._gathered(
                rows,
                _question_coverage(question, sources, answer_type=answer_type),
                # A count asked in the present ("How many stores does Brightwell have?")
                # is what there is, as a result is: a plan neither leads nor follows it.
                past=asks_what_was(question)
                or (answer_type == "quantity" and asks_what_is_now(question)),
                tie_break=_question_coverage(
                    question, sources, with_section=True, answer_type=answer_type
                ),
                heading=_heading_coverage(question, sources, answer_type),
                fit=_sentence_fit(question, answer_type, translated | carried, compared),
                passages=read_in_order,
                one_fact=answer_type in KINDS,
                defined=defined_terms(question),
                sections=[source.section for source in sources],
            )
        if not chosen:
            return INSUFFICIENT_CONTEXT
        return " ".join(f"{sentence} [{sources[si].id}]" for _, si, _, sentence in chosen)

    def _gathered(
        self,
        rows: list[tuple[float, int, int, str]],
        covered: Callable[[tuple[float, int, int, str]], float],
        *,
        past: bool = False,
        tie_break: Callable[[tuple[float, int, int, str]], float] | None = None,
        heading: Callable[[int], float] | None = None,
        fit: Callable[[tuple[float, int, int, str]], tuple[float, ...]] | None = None,
        passages: Sequence[tuple[float, int, int, str]] = (),
        one_fact: bool = False,
        defined: set[str] = frozenset(),  # type: ignore[assignment]
        sections: Sequence[str] = (),
    ) -> list[tuple[float, int, int, str]]:
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
        business clients after it.
        """
        by_source: dict[int, list[tuple[float, int, int, str]]] = {}
        # A question the passage asks (its FAQ heading) or a heading answers nothing; it
        # stays a candidate only in a passage with nothing else to quote.
        stating = {r[1] for r in rows if r[0] > 0 and not states_nothing(r[3])}
        for row in rows:
            if row[0] > 0 and not (states_nothing(row[3]) and row[1] in stating):
                by_source.setdefault(row[1], []).append(row)
        if not by_source:
            return []
        coverage = {si: max(covered(r) for r in found) for si, found in by_source.items()}
        ranked = sorted(by_source)[: self.max_sources]
        most = max(coverage.values())
        if coverage[ranked[0]] <= 0.5 <= most and most > coverage[ranked[0]]:
            # Retrieval's best passage says at most half of what is asked in any one
            # sentence ("What should I do if I lose my laptop?": a laptop's description;
            # "une perte" read as the "loss of functionality" of a P2 incident): the
            # best-ranked passage with a sentence that says more, and at least half,
            # leads instead, and the passage it displaces is left out, not quoted second.
            first = next(si for si in sorted(by_source) if coverage[si] == most)
            ranked = [first, *[si for si in ranked[1:] if si != first]]

        def best_of(found: list[tuple[float, int, int, str]]) -> tuple[float, int, int, str]:
            return max(found, key=lambda r: (r[0], (tie_break or covered)(r), *fitness(r)))

        def fitness(row: tuple[float, int, int, str]) -> tuple[float, ...]:
            return fit(row) if fit is not None else ()

        if heading is not None:
            # Of the passages whose sentences say as much of the question as the lead's,
            # one whose heading names what is asked is about it ("Remote work" for "les
            # règles pour le télétravail"), where the lead may only mention it ("the
            # device can be wiped remotely", under "Device encryption"): it leads, and the
            # other is not quoted after it (`_supports`). Then one whose best sentence
            # defines what "what is X?" asks about. Retrieval's order breaks the ties.
            tied = [si for si in sorted(by_source) if coverage[si] == coverage[ranked[0]]]
            # The names and the subject only choose among one passage's sentences: across
            # passages, retrieval's order knows more of what each is about.
            standing = {si: (heading(si), *fitness(best_of(by_source[si]))[:1]) for si in tied}
            named = max(standing.values())
            if standing[ranked[0]] < named:
                first = next(si for si in tied if standing[si] == named)
                ranked = [first, *[si for si in ranked if si != first]][: self.max_sources]

        def says_what_x_is(row: tuple[float, int, int, str]) -> bool:
            heading = sections[row[1]] if row[1] < len(sections) else ""
            return defines_whole(row[3], defined) or defines_under(row[3], defined, heading)

        if defined and not any(says_what_x_is(r) for r in by_source[ranked[0]]):
            # "What is X?" asked of passages whose lead only mentions X ("see the Kubernetes
            # version information"): the best-ranked passage with a sentence saying what
            # the whole of X is leads, however many of the question's other words the lead
            # holds ("I keep seeing the word Kubernetes": "seeing" is no part of the answer).
            defining = next(
                (si for si in sorted(by_source) if any(says_what_x_is(r) for r in by_source[si])),
                None,
            )
            if defining is not None:
                ranked = [defining, *[si for si in ranked if si != defining]][: self.max_sources]

        lead_best = best_of(by_source[ranked[0]])
        if past and states_an_aim(lead_best[3]):
            result = next(
                (
                    si
                    for si in sorted(by_source)
                    if not states_an_aim(best_of(by_source[si])[3])
                    and covered(best_of(by_source[si])) >= covered(lead_best)
                ),
                None,
            )
            if result is not None:
                ranked = [result, *[si for si in ranked if si != result]][: self.max_sources]
        stated = _stated_coverage(covered)

        def first_saying_as_much(
            rows: list[tuple[float, int, int, str]], best: tuple[float, int, int, str]
        ) -> tuple[float, int, int, str]:
            """Return the first of a passage's rows (in order) saying as much as its best."""
            return next(
                r
                for r in rows
                if stated(r) >= stated(best)
                and all(a >= b for a, b in zip(fitness(r), fitness(best), strict=True))
            )

        lead = sorted(by_source[ranked[0]], key=lambda r: r[2])
        best = best_of(lead)
        whole: list[tuple[float, int, int, str]] = []
        if defined and (whole := [r for r in lead if says_what_x_is(r)]):
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
            # chosen for stating it of what is asked (`_sentence_fit`).
            start = lead.index(first_saying_as_much(lead, best))
        answering = lead[start:]
        if one_fact:
            answering = [r for r in answering if covered(r) >= covered(best)]
        # Answered by a result, a question on what happened quotes no aim beside it:
        # "What was the revenue in 2024?" is the 486.3 million earned, not also the
        # 2025 target of the outlook section ("Brightwell vise ... 530 et 545 millions").
        results_only = past and not states_an_aim(best[3])
        if results_only:
            answering = [r for r in answering if not states_an_aim(r[3])]
        chosen = self._lead_window(answering, passages)
        # A sentence several passages hold (a page and its copy, a step two guides share)
        # is said once: a next passage adds its best sentence not already quoted, if any.
        said = {_said_as(row[3]) for row in chosen}
        for s_index in ranked[1:]:
            if not self._supports(s_index, ranked[0], heading):
                continue
            unsaid = [
                r
                for r in by_source[s_index]
                if _said_as(r[3]) not in said and not (results_only and states_an_aim(r[3]))
            ]
            if unsaid:
                row = best_of(unsaid)
                if not one_fact:
                    # Its point, as the lead's: the first sentence saying as much as its best.
                    row = first_saying_as_much(sorted(unsaid, key=lambda r: r[2]), row)
                chosen.append(row)
                said.add(_said_as(row[3]))
        return chosen

    @staticmethod
    def _supports(s_index: int, lead: int, heading: Callable[[int], float] | None) -> bool:
        """Whether a next passage's heading names as much of what is asked as the lead's.

        Under "Support hours and channels", the answer is the support hours; a sentence
        of "Escalation" holding "4 hours" and "customer support" apart speaks of
        something else, and does not support it. Passages without headings all pass.
        """
        return heading is None or heading(s_index) >= heading(lead)

    def _lead_window(
        self,
        answering: Sequence[tuple[float, int, int, str]],
        passages: Sequence[tuple[float, int, int, str]],
    ) -> list[tuple[float, int, int, str]]:
        """Return the lead passage's quote: its answering sentences from the first given on.

        In the passage's order, up to `answer_words`. A sentence that does not answer is
        quoted only when it continues the sentence quoted just before it (it opens on a
        pronoun or a demonstrative, `continues_previous`): "This type of photography is
        common at airshows or airports." says more of the ground-to-air photography the
        sentence before it answered with, and holds none of the question's words.
        `passages` are every scored sentence of the passages in order (none: only the
        answering ones are read).
        """
        if not answering:
            return []
        first = answering[0]
        answers = {(r[1], r[2]) for r in answering}
        order = [r for r in passages if r[1] == first[1] and r[2] >= first[2]] or list(answering)
        chosen: list[tuple[float, int, int, str]] = []
        words = 0
        for row in order:
            if words >= self.answer_words:
                break
            following = bool(chosen) and chosen[-1][2] == row[2] - 1
            if (row[1], row[2]) in answers or (following and continues_previous(row[3])):
                chosen.append(row)
                words += len(row[3].split())
        return chosen

    def _answering(
        self,
        rows: list[tuple[float, int, int, str]],
        question: str,
        answer_type: str,
        translated: set[str] = frozenset(),  # type: ignore[assignment]
        native: frozenset[int] = frozenset(),
        texts: Sequence[str] = (),
    ) -> list[tuple[float, int, int, str]]:
        """Only the sentences that answer the question: no filler.

        A sentence qualifies when it holds one of the question's own content words (when
        the question has any) and, when the question asks for a kind of fact (a price, a
        date...) that some candidate sentence states, states it too. When some sentences
        hold a word of what is asked beyond the question's names, only those answer. No
        share of the best
        sentence's score is asked: which passages answer is retrieval's ranking (the
        answer quotes the best-ranked ones, `_gathered`), and a passage ranked lower
        answers with its own best sentence, however it compares with the first one's.
        """
        if answer_type == "rank" and (ranked := [r for r in rows if has_answer_type("rank", r[3])]):
            # A ranking stated ("le smartphone le plus vendu") answers "the best-selling
            # phone" in any language, whatever other words it shares with the question
            # (its score counts it as answering even when it shares none).
            return [(score + 1.0, si, i, sentence) for score, si, i, sentence in ranked]
        own = own_terms(question, answer_type) | translated
        read: dict[str, set[str]] = {}
        for row in rows:
            found = sentence_terms(row[3])
            read[row[3]] = found | _asked_in_other_forms(own, found)
        unfiltered = rows
        if own:
            rows = [r for r in rows if own & read[r[3]]] or rows
        if (action := asked_action(question)) and (
            acting := {r[1] for r in rows if action & read[r[3]]}
        ):
            # "Can I cancel a monthly plan?" is answered by the passages that say
            # something of cancelling ("Monthly support plans can be cancelled at any
            # time"), not by the plans' monthly prices, which hold "monthly" and "plan"
            # and no action. Such a passage is read as usual, its other sentences too.
            rows = [r for r in rows if r[1] in acting]
        if siblings := _sibling_patterns(question, texts):
            # "What is a P2 incident?": "A P3 (medium) incident is..." holds "incident"
            # and speaks of another incident; "the Basic plan": not the Business plan's.
            rows = [r for r in rows if not names_another(r[3], siblings)] or rows
        if answer_type in KINDS:
            typed = [r for r in rows if r[0] > 0 and has_answer_type(answer_type, r[3])]  # type: ignore[arg-type]
            if typed:
                rows = typed
        if answer_type == "quantity" and (noun := counted_noun(question)):
            # "How many employees": a number of employees, not "two exercises" in a
            # sentence that mentions employees. The noun is read in both languages.
            counted_terms = set(terms(noun))
            for source, target in (("en", "fr"), ("fr", "en")):
                across = translate_query(noun, source, target)
                counted_terms |= set(terms(across))
                # And back: "employés" is also counted as the report's "collaborateurs"
                # (employee → employé, salarié, collaborateur).
                counted_terms |= set(terms(translate_query(across, target, source)))
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
                rows = counted
            else:
                # No sentence gives the count asked: a sentence whose numbers count
                # other things ("a password of at least 14 characters" for "how many
                # employees?") does not give it either.
                rows = [r for r in rows if not counts_other_things_only(r[3], counted_terms)]
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

    def _list_answer(self, sources: list[PromptSource], question: str, search_query: str) -> str:
        lines = []
        for source in sources:
            sentences = split_sentences(source.text)
            if sentences:
                lines.append(f"- {sentences[0]} [{source.id}]")
        return "\n".join(lines) if lines else INSUFFICIENT_CONTEXT

    def _deliverable(self, sources: list[PromptSource], question: str, search_query: str) -> str:
        weights = self._weights(question, search_query)
        sections: dict[str, list[PromptSource]] = {}
        for source in sources:
            sections.setdefault(source.section or source.title, []).append(source)
        paragraphs = []
        for name, members in sections.items():
            best: list[tuple[float, str, str]] = []
            for member in members:
                for i, sentence in enumerate(split_sentences(member.text)):
                    score = sum(weights[t] for t in set(terms(sentence)) if t in weights)
                    # The lead sentence of a section usually states its main fact.
                    best.append((score + (2.0 if i == 0 else 0.0), sentence, member.id))
            best.sort(key=lambda r: -r[0])
            picked = best[:2]
            if picked:
                body = " ".join(f"{sentence} [{sid}]" for _, sentence, sid in picked)
                paragraphs.append(f"**{name}**: {body}")
        if not paragraphs:
            return INSUFFICIENT_CONTEXT
        names = list(sections)[: self.max_outline_sections]
        answer = "\n\n".join(paragraphs)
        if len(names) >= 4:
            outline = "\n".join(f"[S{i}] {name}" for i, name in enumerate(names, 1))
            answer += f"\n\n{self.outline_keyword}\n{outline}"
        return answer
