"""The question read for what it asks.

Its names, its own content words, the action asked, its words in the sources' language.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence

from threadline.knowledge.bilingual import (
    translate_passage_terms,
    translate_query,
    translate_vocabulary,
)
from threadline.knowledge.facts import (
    AROUND_THE_CLOCK,
    ASKING_TERMS,
    GENERAL_NOUNS,
    KIND_WORDS,
    LOCUTIONS,
    RELATIVE_TIME,
    offer_verb_terms,
)
from threadline.models.answer_prompt import PromptSource
from threadline.text import fold, terms
from threadline.text.language import detect_language
from threadline.text.lexicons import en, fr
from threadline.text.matching import (
    acronyms,
    matches_same_sense,
    matches_synonym,
    matches_term,
    matches_verb_form,
    verb_forms,
)

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


# Words that say what to do with the answer, not what it is about. Not "part": it
# shares its stem with "la part des smartphones" (the share asked for); "partie" is here.
REQUEST_TERMS = set(
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
FRENCH_AUXILIARIES = frozenset(terms(" ".join(sorted(fr.AUXILIARY_FORMS))))


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
        found |= set(terms(match.group("verb"))) & REQUEST_TERMS
    return found


def asking_terms(question: str, answer_type: str = "") -> set[str]:
    """Return the question's words that say how it asks, not what about.

    "Pendant combien de temps ?" asks for a duration: "temps" is what the answer type
    check looks for ("for 7 days"), not a word a sentence must hold ("at all times").
    French auxiliaries and modals ("faire", "est" of "qu'est-ce que") ask how, as the
    English stopwords "do", "should", "is" do.
    """
    asking = set(ASKING_TERMS.get(answer_type, frozenset())) | (
        REQUEST_TERMS - acted_request_terms(question)
    )
    # "Does Brightwell provide support on weekends?" asks whether support is on offer:
    # "prévoit" translated "provide" in a 2025 plan says nothing of it.
    asking |= offer_verb_terms(question)
    if detect_language(question) == "fr":
        asking |= FRENCH_AUXILIARIES
    return asking


# "Can I cancel a monthly plan?", "Puis-je annuler... ?": whether an action is allowed.
# The verb after the modal and its subject is that action; "get", "have", "do", "use"
# and their French forms say nothing of one ("Can I get support on Sunday?"). "What
# happens if I cancel my annual plan?", "et si je perds mon ordinateur ?" ask what
# follows an action: that action too, the verb after "if I" / « si je »; "how long do I
# have to return it?", « combien de temps j'ai pour le retourner ? » the time allowed for
# one; "How do I contact support?" the way to do it, the verb after "how do I".
_ASKED_ACTION = re.compile(
    r"\b(?:(?:can|could|may)\s+(?:i|we|one)|is\s+it\s+possible\s+to|am\s+i\s+allowed\s+to"
    r"|puis-je|peut-on|peux-je|pouvons-nous|est-il\s+possible\s+d[e']|ai-je\s+le\s+droit\s+d[e']"
    r"|if\s+(?:i|we)|si\s+(?:je|nous|on)|si\s+j['’]"
    # "How long do I have to return a product?" asks the time allowed for an action.
    r"|how\s+(?:long|much\s+time|many\s+days)\s+(?:do|does)\s+\w+\s+have\s+to"
    r"|combien\s+de\s+(?:temps|jours)\s+(?:j['’]ai|ai-je|a-t-on|on\s+a|avons-nous|avez-vous"
    r"|as-tu|tu\s+as|t['’]as)\s+pour|d[ée]lai\s+pour"
    # "How do I contact support?" asks the way to do an action: that action too. Not
    # "how to X": no one acts in it, it is often a title ("How To Guides").
    r"|how\s+(?:do|can|could|should|would)\s+(?:i|we))"
    # A negated action is the same action ("if I don't pay", « si je ne paie pas »), and
    # a wanted one is the verb wanted ("if I want to create", « si je veux créer »).
    r"\s*(?:(?:don['’]t|do\s+not|didn['’]t|did\s+not|never|ne|n['’])\s*)?"
    r"(?:(?:want|wanted|need|needed|have|had|wish|try|tried|would\s+like)\s+to\s+"
    r"|(?:veux|voudrais|dois|souhaite|aimerais)\s+)?([a-zà-ÿ]{3,})\b",
    re.I,
)


_NO_ACTION = frozenset(
    terms(
        "get have do use make see know ask find be go obtenir avoir faire utiliser voir "
        "savoir demander trouver etre aller"
    )
)


def asked_action(question: str) -> set[str]:
    """Return the terms of the action a "can I <verb>...?" or "what if I <verb>...?" asks about.

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
    if AROUND_THE_CLOCK.search(question):
        # "24/7 support on the Basic plan?" asks the Basic plan's support hours: "during
        # business hours" answers it, in the section on support hours.
        said += " hours heures"
    return set(terms(said)) - asking_terms(question, answer_type)


def translated_terms(
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
    main = {lang for lang, n in counts.items() if n == most} | {languages[0]}
    written = (main | _saying_more(question, sources, languages, main | {asked}, answer_type)) - {
        asked
    }
    said = RELATIVE_TIME.sub(" ", question)  # "last year" is when, no word to find
    written |= _writing_what_no_other_does(said, asked, sources, languages, answer_type)
    found = {t for language in written for t in terms(translate_query(said, asked, language))}
    # The asking words' translations ask nothing either: "temps" is "time", and "at all
    # times" says nothing of how long SMS codes last.
    asking = asking_terms(question, answer_type)
    words = re.findall(r"[\w'’-]+", question)
    dropped = " ".join(w for w in words if set(terms(w)) and set(terms(w)) <= asking)
    if dropped:
        kept = set(own_terms(question, answer_type))
        for language in written:
            found -= set(terms(translate_query(dropped, asked, language))) - kept
    return found


def _saying_more(
    question: str,
    sources: Sequence[PromptSource],
    languages: Sequence[str],
    read: set[str],
    answer_type: str,
) -> set[str]:
    """Return the other languages of sources saying more of the question than the read ones.

    "how much of the revenue comes from online sales?" over six English passages and the
    French report: « Les ventes en ligne ... 41 % du chiffre d'affaires » holds three of
    its four words in translation, as the evidence check reads it, where no English
    passage holds more than two ("online help centre"). A source that says more of the
    question, and most of it, is read in its language whatever the count of sources; one
    sharing a translated word ("e-mail") says less than the sources already read.
    """
    asked = detect_language(question)
    wanted = own_terms(question, answer_type)
    if not wanted:
        return set()

    def said(source: PromptSource, language: str) -> float:
        text = f"{source.title} {source.section} {source.text}"
        words = set(terms(text))
        if language != asked:
            words |= translate_vocabulary(words, language, asked)
            words |= translate_passage_terms(text, language, asked)
        return sum(1 for t in wanted if matches_term(t, words)) / len(wanted)

    best: dict[str, float] = {}
    for source, language in zip(sources, languages, strict=True):
        best[language] = max(best.get(language, 0.0), said(source, language))
    most_read = max((best.get(language, 0.0) for language in read), default=0.0)
    return {
        language
        for language, share in best.items()
        if language not in read and share > 0.5 and share > most_read
    }


def _writing_what_no_other_does(
    question: str,
    asked: str,
    sources: Sequence[PromptSource],
    languages: Sequence[str],
    answer_type: str,
) -> set[str]:
    """Return the other languages whose sources alone write the noun the question asks for.

    "What training do employees receive?" over English handbook pages that write
    "employees" and "receive" but never "training": the report's « 26 heures de
    formation » is where the thing asked for is named, though its passage is ranked
    lower. Only the noun after "what" / « quel » (`asked_for`) must be named: any other
    word ("what is the support email?" over « 64 % par e-mail ») is one word shared.
    """

    def written_in(language: str) -> set[str]:
        return {
            t
            for source, written in zip(sources, languages, strict=True)
            if written == language
            for t in terms(f"{source.section} {source.text}")
        }

    unwritten = (own_terms(question, answer_type) & asked_for(question)) - written_in(asked)
    words = re.findall(r"[\w'’-]+", question)
    missing = " ".join(w for w in words if set(terms(w)) & unwritten)
    if not missing:
        return set()
    return {
        language
        for language in set(languages) - {asked}
        if set(terms(translate_query(missing, asked, language))) & written_in(language)
    }


# "What training...", « Quelle formation... »: the noun after the interrogative
# determiner names the kind of thing asked for.
_WHAT_NOUN = re.compile(r"^\W*(?:what|which|quel|quelle|quels|quelles)\s+([^\W\d_]+)", re.I)


def asked_for(question: str) -> set[str]:
    """Return the terms of the noun a "what X"/« quel X » question asks for, in both languages.

    None for a verb or a function word after it ("what is", « quelle est »), a word
    naming a kind of value stated without it ("what size", « quel taux ») or a general
    noun that sorts without naming ("what factors", "what steps", « quels éléments »).
    """
    match = _WHAT_NOUN.match(question)
    if match is None:
        return set()
    noun = match[1]
    if fold(noun) in fr.SEARCH_STOPWORDS | fr.AUXILIARY_FORMS:
        return set()  # « quel est », « quelle sera »: a verb, no noun
    if fold(noun) in en.FOLLOWUPS.one_words:
        # "which one is a broken remote wipe?": a pronoun for a noun said before (one of
        # the priorities listed), no kind a sentence must write ("one of four priorities").
        return set()
    found = set(terms(noun))
    if not found or found & (KIND_WORDS | GENERAL_NOUNS):
        return set()  # "what factors", "what size": a class or a kind of value, no content
    asked = detect_language(question)
    for language in {"en", "fr"} - {asked}:
        found |= set(terms(translate_query(noun, asked, language)))
    return found


def closed_compounds(question: str) -> set[str]:
    """Return the question's adjacent words written as one ("book keeping" → bookkeeping).

    A compound is written open, hyphenated or closed ("book keeping", "bookkeeping"): a
    passage that writes it closed answers a question that writes it open.
    """
    words = re.findall(r"[^\W\d_]+", question.lower())
    pairs = zip(words, words[1:], strict=False)
    return {t for a, b in pairs if len(a) > 2 and len(b) > 2 for t in terms(a + b)}


def sentence_terms(sentence: str) -> set[str]:
    """Return a sentence's terms with the acronyms of its names ("Net Promoter Score": nps).

    A question asks about "the NPS" where a passage writes the name out.
    """
    return set(terms(sentence)) | acronyms(sentence)


def asked_in_other_forms(asked: set[str], found: set[str]) -> set[str]:
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
