"""Yes/no questions: the relation they ask about must be stated in one sentence.

"Can I file a case while living abroad?" asks whether two things go together: filing
a case, living abroad. A passage on filing from out of state holds "file", "case" and
"live", one sentence each, and says nothing about filing *while* abroad. A yes/no
question is answered by a sentence that states its terms together; a passage that
holds them scattered only speaks of each. So, for a yes/no question, the evidence
check (:mod:`threadline.graph.evidence`) asks for more than half of its content in one
sentence of a supporting passage (with the passage's title and heading, which name
what every sentence is about), the same majority it asks of a passage for any question.

A request phrased as a question ("can you tell me the difference...", "can I get
some information about...", "do you have...") asks for information, not whether
something holds: it is no yes/no question.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

import lemminflect

from threadline.graph.question_terms import COVERAGE_MAJORITY, matches_term
from threadline.knowledge.bilingual import (
    translate_passage_terms,
    translate_query,
    translate_vocabulary,
)
from threadline.knowledge.facts import AnswerType, has_answer_type, obligation_terms
from threadline.text import is_stopword, terms
from threadline.text.language import detect_language
from threadline.text.sentences import sentences
from threadline.text.tokenize import closed_terms

# What opens a remark before the question: "nice!", "I see.", "so", "by the way".
_LEAD = re.compile(
    r"^(?:(?:so|and|but|ok|okay|well|also|then|now|oh|hmm|nice|great|cool|thanks|thank you|"
    r"i see|by the way|btw|et|alors|donc|d'accord|merci)\b[\s,.!;:-]*)+",
    re.I,
)
# A sentence asking whether something holds opens with an auxiliary or a modal.
_AUXILIARY = re.compile(
    r"^(?:is|are|was|were|am|isn't|aren't|can|could|do|does|did|doesn't|don't|will|would|"
    r"should|shall|has|have|had|may|might|must|est-ce qu(?:e|['’])|peut-on|puis-je|dois-je|faut-il|"
    r"y a-t-il|existe-t-il)\b",
    re.I,
)
# A request for information phrased as a question.
_REQUEST = re.compile(
    r"^(?:(?:can|could|would|will)\s+(?:you|u)\b|(?:can|could|may)\s+i\s+(?:get|have|see|"
    r"know|ask|find)\b|do\s+you\s+(?:have|know)\b|is\s+there\s+(?:any\s+)?(?:information|"
    r"info|more|a\s+way)\b|pouvez-vous|peux-tu|pourriez-vous)",
    re.I,
)
# French asks yes/no by putting the subject pronoun after the verb, hyphenated ("L'iPhone 15
# est-il étanche ?", "Le plan Basic inclut-il le téléphone ?", "ai-je droit à...").
_INVERSION = re.compile(r"\b\w+-(?:t-)?(?:il|elle|ils|elles|on|je)\b", re.I)
# Typed quickly, the hyphens go ("l'iphone 15 est il etanche ?", "ca marche t il"): after a
# verb of being or having, the pronoun is the inverted subject still.
_INVERSION_UNHYPHENATED = re.compile(
    r"\b(?:est|sont|a|ont|peut|peuvent|doit|doivent)\s+(?:t\s+)?(?:il|elle|ils|elles)\s+\w",
    re.I,
)
# Spoken French asks yes/no with a statement and its question mark: "le Pixel 8 Pro est
# étanche ?". Any question word in it ("le plan coûte combien ?") asks what, not whether.
_FRENCH_QUESTION_WORDS = (
    r"que|qu['’]|quel|quelle|quels|quelles|qui|quoi|comment|combien|o[uù]|quand|pourquoi|"
    r"lequel|laquelle|lesquels|lesquelles"
)
_FRENCH_QUESTION_WORD = re.compile(
    rf"\b(?:{_FRENCH_QUESTION_WORDS}|koi|cmt|qd|pk|pq)\b",  # and their SMS spellings
    re.I,
)
_BEING = re.compile(r"\b(?:est|sont)\b", re.I)
# ...as it asks whether one may or must with the modal's statement: « je peux utiliser
# mon ordi perso pour le boulot ? », « on doit changer son mot de passe ? ».
_MODAL = re.compile(
    r"\b(?:peux|peut|peuvent|pouvons|pouvez|dois|doit|doivent|devons|devez|faut)\b", re.I
)
# ...unless an interrogative word opens the sentence: then it asks what, how, when ("Que se
# passe-t-il", "Combien coûte-t-il", "Pourquoi est-il...").
_FRENCH_INTERROGATIVE = re.compile(
    rf"^(?:{_FRENCH_QUESTION_WORDS}|à quel|a quel|à qui|a qui|de quoi|en quoi|par quoi|"
    r"pour quoi|à quoi|a quoi|depuis quand|jusqu['’]à quand|d['’]o[uù])\b",
    re.I,
)
# Kinds of fact a passage may state of one thing and not another in the next sentence:
# checked in the sentence that holds what is asked (`states_kind_with`).
SENTENCE_KINDS: frozenset[AnswerType] = frozenset({"frequency", "share", "reason"})


def _asking_sentences(question: str) -> list[str]:
    """Return the message's sentences that ask (end with "?"), else the whole message."""
    asking = [s for s in sentences(question) if s.endswith("?")]
    return asking or [question.strip()]


def is_polar(question: str) -> bool:
    """Whether the message asks a yes/no question ("Is X Y?", "Can I do X while Y?").

    Its first asking sentence, past a remark's opening words ("nice!", "so"), opens
    with an auxiliary or a modal, or (French) puts its subject pronoun after the verb
    with no interrogative word before it ("L'iPhone 15 est-il étanche ?", "est il"
    typed), or says what is, or what one may or must do, with a question mark and no
    question word ("le Pixel 8 Pro est étanche ?", « je peux imprimer chez moi ? »), and
    is not a request for information ("can you tell me...", "do you have...").
    """
    first = _LEAD.sub("", _asking_sentences(question)[0])
    if _REQUEST.match(first):
        return False
    if _AUXILIARY.match(first):
        return True
    if _FRENCH_INTERROGATIVE.match(first) or detect_language(first) != "fr":
        return False  # "an add-on" is no inversion
    if _INVERSION.search(first) or _INVERSION_UNHYPHENATED.search(first):
        return True
    return (
        first.endswith("?")
        and (_BEING.search(first) is not None or _MODAL.search(first) is not None)
        and not _FRENCH_QUESTION_WORD.search(first)
    )


def states_together(
    words: Sequence[str],
    passage: Mapping[str, object],
    language: str | None = None,
    *,
    thing: Sequence[str] = (),
) -> bool:
    """Whether one sentence of the passage holds more than half of the words.

    Args:
        words: The question's content terms (stems).
        passage: A packed chunk (`title`, `section`, `text`).
        language: The question's language; a passage in another one is compared
            through its words' translations, passage-wide (not sentence by sentence),
            and is taken as stating the words. None: compared as written.

        thing: Terms the sentence must hold besides: what the question asks about
            ("data" of "what happens to my data when I return a phone?").

    Returns:
        True when a sentence, read with the passage's title and heading, holds more
        than half of the words and all of `thing` (or the words are fewer than two:
        nothing to relate).
    """
    if len(words) < 2:
        return True
    if language:
        written = detect_language(f"{passage.get('title', '')} {passage.get('text', '')}")
        if written != language:
            return True
    frame = set(terms(f"{passage.get('title', '')} {passage.get('section', '')}"))
    for sentence in sentences(str(passage.get("text", ""))):
        # "Wi-Fi" holds "wifi" too: one compound, hyphenated or closed.
        vocabulary = frame | set(terms(sentence)) | set(closed_terms(sentence))
        vocabulary |= obligation_terms(sentence)  # "must connect": it is mandatory
        held = sum(1 for word in words if matches_term(word, vocabulary))
        if held / len(words) > COVERAGE_MAJORITY and all(
            matches_term(word, vocabulary) for word in thing
        ):
            return True
    return False


def states_kind_with(
    kind: AnswerType,
    words: Sequence[str],
    passage: Mapping[str, object],
    language: str | None = None,
) -> bool:
    """Whether one sentence of the passage states the asked kind of fact of the words.

    "How often must I change the password?" is answered by a sentence that says when
    the password is changed again ("every 90 days"), not by a passage that says
    "change the password immediately" in one sentence and "a phishing exercise every
    quarter" in the next: that frequency is of something else. The frequency is read in
    a sentence holding a word of the question (`words`), as a yes/no question's relation is.

    Args:
        kind: The kind of fact asked (`facts.asked_type`).
        words: What the fact must be of: the question's content terms (stems).
        passage: A packed chunk (`title`, `section`, `text`).
        language: The question's language; a sentence in another one is read with
            its words' and phrases' translations.

    Returns:
        True when a sentence holds the kind of fact and one of the words (with no
        words, any sentence holding the kind).
    """
    text = str(passage.get("text", ""))
    written = detect_language(f"{passage.get('title', '')} {text}") if language else None
    before = ""
    for sentence in sentences(text):
        # A reason is often the next sentence's ("Cette baisse s'explique par ..."): it
        # is read with the sentence it explains.
        read, before = (f"{before} {sentence}" if kind == "reason" else sentence), sentence
        if not has_answer_type(kind, sentence):
            continue
        vocabulary = set(terms(read)) | set(closed_terms(read))
        if language and written and written != language:
            # A sentence in another language holds a word asked through its translations
            # ("mot de passe" in "change the password"), as the year check reads one: the
            # phishing section's "every quarter" is still no frequency of a password.
            vocabulary |= translate_vocabulary(vocabulary, written, language)
            vocabulary |= translate_passage_terms(read, written, language)
        if not words or any(matches_term(word, vocabulary) for word in words):
            return True
    return False


# A relational adjective compares with another thing rather than saying which kind it
# is: "the same password" is answered by a "unique password" rule.
_RELATIONAL = frozenset({"same", "other", "another", "different", "similar", "own", "such"})
_WORD = re.compile(r"[^\W\d_][\w'’-]*|[^\w\s]")


def _is_adjective(word: str) -> bool:
    return "ADJ" in lemminflect.getAllLemmas(word.lower())


def _is_noun_only(word: str) -> bool:
    known = lemminflect.getAllLemmas(word.lower())
    return "NOUN" in known and "ADJ" not in known


def _english_senses(word: str, language: str | None) -> list[str]:
    if language == "fr":
        return translate_query(word, "fr", "en").split()
    return [word]


def qualified_things(question: str, language: str | None) -> list[tuple[str, str, str]]:
    """Return the things a question names with a qualifying adjective.

    "my personal computer", « mon ordi perso »: the adjective says which computers are
    meant. Each is (the adjective in English, the noun in English, the phrase as typed);
    a French noun and the adjective after it are read through the lexicon. Names (a
    capital), numbers and relational adjectives ("same", "other") are no such pair.

    Args:
        question: The user's message.
        language: Its language ("fr" reads noun then adjective through the lexicon).
    """
    words = _WORD.findall(question)
    found: list[tuple[str, str, str]] = []
    for first, second in zip(words, words[1:], strict=False):
        if not (first.isalpha() and second.isalpha() and first.islower() and second.islower()):
            continue
        if language == "fr":
            noun_word, adjective_word = first, second
        else:
            adjective_word, noun_word = first, second
        if is_stopword(adjective_word) or is_stopword(noun_word):
            continue
        adjectives = [
            a
            for a in _english_senses(adjective_word, language)
            if _is_adjective(a) and a not in _RELATIONAL
        ]
        nouns = [n for n in _english_senses(noun_word, language) if _is_noun_only(n)]
        if adjectives and nouns:
            found.append((adjectives[0], nouns[0], f"{first} {second}"))
    return found


def writes_the_thing(thing: tuple[str, str, str], passage: Mapping[str, object]) -> bool | None:
    """Whether an English passage writes the thing's noun as asked, or only as another kind.

    "public computers" is not the "personal computer" asked about: a passage naming
    computers only as public ones says nothing of personal ones. The noun with the
    question's adjective among the few words before it ("Confidential or Restricted
    documents"), or with no adjective before it, is the thing asked.

    Args:
        thing: (adjective, noun, phrase) from `qualified_things`.
        passage: A packed chunk (`title`, `section`, `text`).

    Returns:
        True when the passage writes the noun as asked or bare at least once; False when
        it writes it only after another adjective; None when it does not write it or is
        no English passage (the dictionary of word classes is English).
    """
    adjective, noun, _ = thing
    text = str(passage.get("text", ""))
    if detect_language(f"{passage.get('title', '')} {text}") != "en":
        return None
    wanted, head = set(terms(adjective)), set(terms(noun))
    otherwise = None
    for sentence in sentences(text):
        words = _WORD.findall(sentence)
        for at, word in enumerate(words):
            if not head or set(terms(word)) != head:
                continue
            before = words[max(0, at - 4) : at]
            if wanted & {t for w in before for t in terms(w)}:
                return True
            if not (before and before[-1].isalpha() and _is_adjective(before[-1])):
                return True
            otherwise = False
    return otherwise
