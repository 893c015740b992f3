"""The sentences that say what X is ("what is X?") or list its members."""

from __future__ import annotations

import re
from collections.abc import Callable

from threadline.knowledge.facts import KIND_WORDS
from threadline.models.extractive.question import FRENCH_AUXILIARIES, REQUEST_TERMS, sentence_terms
from threadline.models.extractive.sentences import SUBJECT_WORDS, split_sentences
from threadline.text import terms

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
        return set(terms(named.group("x"))) - KIND_WORDS - REQUEST_TERMS
    phrase = next(g for g in match.groups() if g)
    return set(terms(phrase)) - KIND_WORDS - REQUEST_TERMS - FRENCH_AUXILIARIES


# "What's the difference between P1 and P2?", "how does X differ from Y?", « quelle est la
# différence entre X et Y ? »: two things set against each other.
_CONTRASTED = (
    re.compile(
        r"\bdiff[eé]rences?\s+(?:between|entre)\s+(?P<x>[^?.!;,]+?)\s+(?:and|et)\s+"
        r"(?P<y>[^?.!;,]+)",
        re.I,
    ),
    re.compile(
        r"\bhow\s+(?:does|do|is|are)\s+(?P<x>[^?.!;,]+?)\s+differ(?:ent)?\s+from\s+"
        r"(?P<y>[^?.!;,]+)",
        re.I,
    ),
)


# "Compare the three support plans", "X vs Y", « comparez les offres »: things set side by
# side, each to be said.
_COMPARISON = re.compile(r"\b(?:compar\w*|versus|vs)\b", re.I)


def asks_to_compare(question: str) -> bool:
    """Whether a question asks to set several things side by side ("compare the plans")."""
    return bool(_COMPARISON.search(question))


def contrasted_terms(question: str) -> tuple[frozenset[str], ...]:
    """Return the terms of X and of Y in "the difference between X and Y?", else none.

    The difference between two things is what each of them is: a sentence saying what X
    is and one saying what Y is answer it ("A P1 (critical) incident is ...", "A P2
    (high) incident is ..."), where a sentence naming both together ("If a P1 or P2
    incident is not resolved within 4 hours ...") says what they share.
    """
    for pattern in _CONTRASTED:
        if match := pattern.search(question):
            sides = tuple(
                frozenset(terms(match.group(g))) - KIND_WORDS - REQUEST_TERMS for g in ("x", "y")
            )
            if all(sides) and sides[0] != sides[1]:
                return sides
    return ()


def defines_each(sentences: list[str], contrasted: tuple[frozenset[str], ...]) -> bool:
    """Whether some sentence says what the whole of each contrasted thing is."""
    return bool(contrasted) and all(
        any(defines_whole(s, set(side)) for s in sentences) for side in contrasted
    )


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
        subject = " ".join(re.findall(r"[\w'’-]+", sentence)[:SUBJECT_WORDS])
        found = sentence_terms(subject)
        return sum(1 for t in asked if t in found)

    return held


# "What does Brightwell sell?", "What kind of products does Brightwell offer?": what a
# named thing does, asked of it as the subject of the verb, the verb ending the question
# ("What does Brightwell do for the environment?" asks about the environment).
_WHAT_X_DOES = re.compile(
    r"^\W*(?:(?:so|and|but|ok|then)\W+)?what(?:\s+(?:kind|kinds|sort|type|types)\s+of)?"
    r"(?:\s+\w+)?\s+(?:does|do)\s+(?P<x>[^?]+?)\s+(?:do|sell|offer|provide|make)\W*$",
    re.I,
)

# "What is Brightwell?": one thing asked ("is"), where "What are ETFs?" asks for a kind.
_WHAT_ONE_IS = re.compile(
    r"^\W*(?:(?:so|and|but|ok|then)\W+)?what(?:'s|\s+is)\s+(?P<x>[^?]+)", re.I
)

# The verbs by which a sentence says what its subject is or does for whom it serves.
_STATING_VERB = re.compile(
    r"^(?P<subject>(?:(?:The|A|An)\s)?(?:[A-Z][\w'’&.-]*\s){1,4}?)"
    r"(?:is|are|offers|sells|provides|makes|operates|designs|manufactures|supplies)\b"
)


def name_asked_about(question: str) -> set[str]:
    """Return the terms of the name X in "what is X?" / "what does X do, sell, offer?", else none.

    Only a name (one thing, every word capitalised: "Brightwell", "Fleet Portal") is
    asked of as a company or a product is; "what is a security incident?" and "What are
    ETFs?" ask what a kind of thing is.
    """
    match = _WHAT_X_DOES.search(question.strip()) or _WHAT_ONE_IS.search(question.strip())
    if not match:
        return set()
    phrase = next(g for g in match.groups() if g).strip()
    phrase = re.sub(r"(?:['’]s)$", "", phrase)
    words = re.findall(r"[\w'’-]+", phrase)
    if not words or not all(w[0].isupper() for w in words):
        return set()
    return set(terms(phrase)) - KIND_WORDS - REQUEST_TERMS


# "..., sold by Brightwell for $799": the name as the agent of a passive verb.
_BY_AGENT = re.compile(
    r"\b(?:sold|offered|provided|made|supplied|operated)\s+by\s+(?P<agent>(?:[A-Z][\w'’&.-]*\s?){1,4})"
)


def states_what_it_is_or_does(sentence: str, named: set[str]) -> bool:
    """Whether a sentence has the name X as the subject of "is", "offers"... or "sold by" X.

    "Brightwell Devices offers three support plans" and "The iPhone 15 is ..., sold by
    Brightwell" say what Brightwell offers and sells; "Brightwell employees must
    report..." and "Brightwell business hours are..." say what the company's employees
    or hours do or are, not the company.
    """
    match = _STATING_VERB.match(sentence)
    if match and named <= sentence_terms(match.group("subject")):
        return True
    return any(named <= sentence_terms(m.group("agent")) for m in _BY_AGENT.finditer(sentence))
