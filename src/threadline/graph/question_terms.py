"""What a question names and asks, and whether a passage's words match it.

The evidence check (:mod:`threadline.graph.evidence`) and the grounding guard read
questions through these pure functions: a question's content terms and named things,
a reference it makes to something never named, the parts of a multi-part question,
and the stem matching that tolerates derivations and one typo.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping, Sequence

from threadline.knowledge.facts import KIND_WORDS
from threadline.text import fold, terms
from threadline.text.lexicons import en, fr

COVERAGE_MAJORITY = 0.5
"""A passage supports a question when it holds more than half of its content (by weight)."""

# Words that say what to do or how to ask, not what the question is about.
# French auxiliaries and modals ("j'ai", "dois-je", "faire") are no topic either; the
# index keeps them (its stopwords decide the indexed terms), the evidence check does not.
GENERIC_TERMS = frozenset(
    terms(f"{en.GENERIC_WORDS} {fr.GENERIC_WORDS} {' '.join(sorted(fr.AUXILIARY_FORMS))}")
)

# A reference to something the question does not name.
DEMONSTRATIVE = re.compile(
    # Not "that is", "that calculated", "this the": a demonstrative before a verb, a
    # participle or an article is a pronoun or a conjunction, not "this <noun>".
    # Nor French "ce que", "ce qui", "est-ce que": a relative or a question formula.
    r"\b(this|that|these|those|ce|cet|cette|ces)\s+(?!(?:is|are|was|were|one|means?|does|do|"
    r"did|can|will|would|should|could|has|have|had|the|a|an|it|they|you|i|we|le|la|les|"
    r"est|sont|que|qui|qu|dont|quoi)\b|[a-zà-ÿ]+(?:ed|ing)\b)"
    r"([a-zà-ÿ'’-]+(?:\s+[a-zà-ÿ'’-]+)?)",
    re.I,
)
# "tell me about a specific city": the user asks about one and does not say which. Only
# as what the question is about: "is there a specific form?" asks whether one exists.
UNSAID = re.compile(
    r"\b(?:about|on|sur|de|d['’])\s*(?P<phrase>(?:a|an|one|some|un|une)\s+(?:(?:specific|"
    r"particular)\s+[a-zà-ÿ'’-]+|[a-zà-ÿ'’-]+\s+(?:précise?|particulier|particulière)))",
    re.I,
)
_DEFINITE = re.compile(r"\b(the|le|la|les)\s+([a-zà-ÿ'’-]+)", re.I)
PRONOUN = re.compile(
    r"\b(it|its|they|them|their|he|him|his|she|her|il|elle|ils|elles|son|sa|ses|leur|leurs)\b",
    re.I,
)


# "I'm referring to the continent, not the United States of America": a name the user
# sets aside ("not", "rather than", "instead of") is not what the question is about.
_SET_ASIDE = re.compile(
    r"\b(?:not|rather than|instead of|other than|except|pas|plutôt que|au lieu de|sauf)"
    r"\s+(?:(?:the|le|la|les|l['’])\s*)?(?:[A-ZÀ-Ý][\w'’-]*(?:\s+(?:of|de|du|des)\s+|\s+)?)+"
)


def _name_words(question: str) -> list[tuple[str, bool]]:
    """Return the question's name words, each with whether it continues the name before it.

    A word continues a name when it is a capitalised word that follows another with only
    spaces between them ("Placer County"); codes and numbers ("S25", "v4") stand alone,
    and so do words after a comma ("Fixed, Metered"). A name set aside ("not the United
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
            has_digit = any(ch.isdigit() for ch in word)
            acronym = len(word) >= 2 and word.isupper() and word.isalpha()
            capital = word[0].isupper() and i > 0 and not word.isupper()
            capital = capital or (word[0].islower() and any(ch.isupper() for ch in word[1:]))
            named = ((has_digit and any(ch.isalpha() for ch in word)) or acronym or capital) and (
                fold(word) not in _NOT_NAMES
            )
            if named or (has_digit and len(word) >= 2):
                joined = (
                    not has_digit
                    and previous_end >= 0
                    and not sentence[previous_end : match.start()].strip()
                )
                found.append((word, joined))
                previous_end = -1 if has_digit else match.end()
            else:
                previous_end = -1
    return found


def named_things(question: str) -> list[str]:
    """Names the question uses: capitalised words past the first, codes, numbers, acronyms.

    "How much does the Galaxy S25 cost?" → ["Galaxy", "S25"]. A word capitalised only
    because it starts the sentence is not a name.
    """
    return list(dict.fromkeys(word for word, _ in _name_words(question)))


def name_phrases(question: str) -> list[str]:
    """Names of several capitalised words the question uses as one: "Placer County".

    Each word of such a name is also in :func:`named_things`; the phrase is what must be
    found whole, its words in a row, for the passages to be about that thing (a passage
    on "Mohave County" that mentions a "placer" claim is not about Placer County). A
    question written in title case ("Container Registry Grant Access") has none: its
    capitals mark no name.
    """
    words = re.findall(r"[^\W\d_]+", question)
    if len(words) >= 3 and sum(w[0].isupper() for w in words) * 2 > len(words):
        return []
    runs: list[list[str]] = []
    for word, joined in _name_words(question):
        if joined and runs:
            runs[-1].append(word)
        else:
            runs.append([word])
    return list(dict.fromkeys(" ".join(run) for run in runs if len(run) > 1))


def holds_phrase(phrase: str, sequence: Sequence[str]) -> bool:
    """Tell whether the terms of a phrase occur in a row in a passage's term sequence."""
    wanted = terms(phrase)
    if not wanted:
        return True
    size = len(wanted)
    return any(
        all(_same_term(wanted[k], sequence[i + k]) for k in range(size))
        for i in range(len(sequence) - size + 1)
    )


def _same_term(term: str, other: str) -> bool:
    return term == other or matches_term(term, {other})


# Capitalised in questions without naming anything specific.
_NOT_NAMES = frozenset(en.NOT_NAMES)


def stems(text: str) -> set[str]:
    """Return the set of stems of a text's words."""
    return set(terms(text))


def matches_term(term: str, vocabulary: set[str]) -> bool:
    """Tell whether a term matches an equal stem, or a longer one sharing its first five letters.

    Stemming leaves derivations apart ("photos"/"photography", "securite"/"security");
    a five-letter shared start is the usual cut for such families.
    """
    if term in vocabulary:
        return True
    if len(term) < 5 or any(ch.isdigit() for ch in term):
        return False
    head = term[:5]
    if any(len(v) >= 5 and v[:5] == head for v in vocabulary):
        return True
    # A long word one typo away ("mortage", "bevarage") still names the same thing.
    return len(term) >= 6 and any(_one_edit(term, v) for v in vocabulary if len(v) >= 6)


def _one_edit(a: str, b: str) -> bool:
    """Whether `a` and `b` differ by one substitution, insertion or deletion."""
    if abs(len(a) - len(b)) > 1 or a == b:
        return False
    if len(a) > len(b):
        a, b = b, a
    i = 0
    while i < len(a) and a[i] == b[i]:
        i += 1
    return a[i + (len(a) == len(b)) :] == b[i + 1 :]


# How a question asks, not what about: "how long does X take" asks about X.
_ASKING = re.compile(
    r"\b(how (long|much|many|often|far|big|old)|what (kind|sort|type)s? of|is there|are there|"
    r"do you (have|know|sell)|can you|could you|would you|i (want|need|would like) to know|"
    r"combien de temps|combien de|est-ce que|y a-t-il|pouvez-vous|peux-tu)\b",
    re.I,
)


def content_terms(question: str) -> list[str]:
    """Return the question's own content terms: stems minus request and generic words."""
    text = _ASKING.sub(" ", question)
    return [t for t in dict.fromkeys(terms(text)) if t not in GENERIC_TERMS and len(t) > 1]


def term_forms(question: str) -> dict[str, str]:
    """Stem → the word as the user typed it (for "the documents do not cover ...")."""
    forms: dict[str, str] = {}
    for token in re.findall(r"[\w'’-]+", question):
        for t in terms(token):
            forms.setdefault(t, token)
    return forms


def chunk_vocabulary(chunk: Mapping[str, object]) -> set[str]:
    """Return the stems of a passage: its title, section and text."""
    return stems(f"{chunk.get('title', '')} {chunk.get('section', '')} {chunk.get('text', '')}")


def unanchored_reference(
    question: str, earlier: Sequence[str], titles: Sequence[str] = ()
) -> str | None:
    """Return the phrase of a question that points at something never named, or None.

    "this animal" (turn 1), "the actor" when no earlier turn talks of actors and the
    question names nothing, "it" in a first message. `earlier` holds the text of the
    conversation's earlier turns (questions and answers).
    """
    return next(unanchored_references(question, earlier, titles), None)


def _named_once(names: Sequence[str]) -> set[str]:
    """Return the stems that exactly one of these titles (or headings) holds."""
    named_by: dict[str, set[str]] = {}
    for name in names:
        for stem in stems(name):
            named_by.setdefault(stem, set()).add(fold(name).strip())
    return {stem for stem, holders in named_by.items() if len(holders) == 1}


def unanchored_references(
    question: str,
    earlier: Sequence[str],
    titles: Sequence[str] = (),
    headings: Sequence[str] = (),
) -> Iterator[str]:
    """Yield each phrase of a question that points at something never named, in order.

    See :func:`unanchored_reference`, which returns the first: "the declaration of a
    state of emergency to address the hurricane's impact" points at two things.
    """
    history = stems(" ".join(earlier))
    # "this X" with no X in the conversation points at nothing, whatever else is named.
    for match in DEMONSTRATIVE.finditer(question):
        noun = match.group(2)
        nouns = [t for t in terms(noun) if t not in GENERIC_TERMS]
        # "the word Kubernetes ... this term": a name said before it is what it points at.
        named_before = named_things(question[: match.start()])
        if nouns and not any(n in history for n in nouns) and not named_before:
            yield match.group(0)
    for match in UNSAID.finditer(question):
        yield match.group("phrase")
    names = named_things(question)
    if not earlier and not names:
        # A pronoun before any content word of a first message points at nothing
        # ("is it free?"); after one ("stocks ... do they") it points at that word.
        pronoun = PRONOUN.search(question)
        if pronoun and not content_terms(question[: pronoun.start()]):
            yield pronoun.group(0)
    # "the X": anchored by the conversation, or by a document titled with X ("the
    # penobscot river" names the document "Penobscot River"; "the actor" names none).
    # A title anchors "the X" only when one document is titled with X: "the season"
    # with "Grey's Anatomy (season 7)" and "(season 10)" in play says neither.
    # Section headings anchor it the same way, counted apart from the titles: "the
    # support hours" is the handbook's "Support hours and channels" section, and a word
    # several headings share does not undo the one document titled with it.
    titled = _named_once(titles) | _named_once(headings)
    titled_by_several = {stem for stem in stems(" ".join(titles)) if stem not in titled}
    for match in _DEFINITE.finditer(question):
        noun = [t for t in terms(match.group(2)) if t not in GENERIC_TERMS]
        # "the animal in California": a name elsewhere does not say which animal; only
        # a name the phrase itself holds ("the US", "the word Kubernetes", "the battery
        # capacity of the iPhone 15", "le chiffre d'affaires 2024") anchors it.
        if match.group(2) in names:
            continue
        # Unless several documents are titled with X: "the season of Grey's Anatomy"
        # with its seasons 7 and 10 in play says which show, not which season.
        shared = any(n in titled_by_several for n in noun)
        if not shared and _complement_names(question[match.end(2) :], names):
            continue
        if noun and noun[0] in _NO_THING_TO_CHOOSE:
            continue
        if _SUPERLATIVE_HEAD.match(match.group(2)) or _SUPERLATIVE_AFTER.match(
            question[match.end(2) :]
        ):
            continue  # "the best-selling phone", "le smartphone le plus vendu": one thing
        # "the grounds for lodging an appeal", "the requirements of a mortgage": a word for
        # the kind of answer asked is no thing to point at; its complement says what of.
        if noun and set(noun) <= KIND_WORDS and _KIND_COMPLEMENT.match(question[match.end(2) :]):
            continue
        if noun and noun[0] not in history and noun[0] not in titled:
            yield match.group(0)


# "The X" that names no thing to choose between: a time ("et le week-end ?", "the
# night") or a part of the document ("détaille la partie sur les magasins"), whose
# complement, if any, says what it is about.
_NO_THING_TO_CHOOSE = frozenset(
    terms(
        "weekend week-end weekends night nights morning evening afternoon holidays "
        "nuit nuits matin soir soirée après-midi vacances jours fériés "
        "part section point chapter paragraph partie chapitre paragraphe"
    )
)


# A superlative picks one thing out of several: "the best-selling phone", "le smartphone
# le plus vendu", "la meilleure offre" need no question back.
_SUPERLATIVE_HEAD = re.compile(
    r"(?:best|worst|most|least|latest|newest|oldest|largest|biggest|smallest|cheapest|"
    r"highest|lowest|meilleure?s?|pire)(?:\b|-)",
    re.I,
)
_SUPERLATIVE_AFTER = re.compile(r"\s+(?:le|la|les)\s+(?:plus|moins|meilleure?s?|pire)\b", re.I)


# Where a noun phrase's complement ends: a place, a time or a clause says where or when
# the X is ("the animal in California"), not which X it is.
_PHRASE_END = re.compile(
    r"^(?:in|at|on|when|where|while|if|that|which|who|whose|is|are|was|were|does|do|did|"
    r"can|could|should|would|will|has|have|had|dans|en|à|au|aux|quand|où|ou|qui|que|"
    r"qu|si|est|sont|était|a-t-il|a-t-elle)$",
    re.I,
)


# "for lodging an appeal", "of a mortgage", "pour un prêt": what a kind word is about.
_KIND_COMPLEMENT = re.compile(
    r"^\s+(?:for|of|to|on|about|pour|de|du|des|d['’])\s*(?:(?:a|an|the|my|your|un|une|le|la|les|"
    r"l['’])\s*)?[\w'’-]{3,}",
    re.I,
)


def _complement_names(rest: str, names: Sequence[str]) -> bool:
    """Whether the words after "the X" name it: a name in its own phrase, before its end.

    "the X Name", "the X of Name", "the X Y for a Name Z", "le X d'Y 2024" hold a name
    within four words and before a place, a time or a clause begins.
    """
    for word in rest.split()[:4]:
        word = word.strip("?.,;!:()\"'«»")
        if not word or _PHRASE_END.match(word):
            return False
        if word in names or word.split("'")[-1] in names:
            return True
    return False


_ASKED_PHRASE = re.compile(
    r"^\s*(?:so |and |but |ok,? |et )?(?:what|who|which|how much|quel|quelle|quels|quelles)"
    r"(?:'s| is| are| was| were| est| sont| etait)\s+(?:the |a |an |le |la |les |l'|un |une )?"
    r"(?P<phrase>.+?)(?:\s+(?:of|for|in|on|at|to|with|from|about|de|du|des|pour|sur|dans)\b|"
    r"[?.,;!]|$)",
    re.I,
)


_PRONOUN_SUBJECT = re.compile(r"(?:it|they|he|she|il|elle|ils|elles)\b", re.I)


# The words that ask for a kind of fact the answer type check recognises: a passage
# states a price as "$449" without "price" or "cost", a weight as "1.09 kg".
_TYPED_KIND_TERMS = {
    "price": frozenset(terms("price prices cost costs prix coût coûts coûte coûtent tarif")),
    "weight": frozenset(terms("weight weigh weighs heavy poids pèse lourd lourde")),
    "duration": frozenset(terms("fast quickly soon long vite rapidement délai temps")),
}


def substantive_terms(content: Sequence[str], *, typed: str | None = None) -> list[str]:
    """Return a question's content terms without the words for the kind of value asked.

    "What is the password policy?" is about passwords: the passage that answers states
    the rules and need not say "policy". A question made of such words only keeps them,
    unless the kind is `typed` (the kind of fact asked, which the answer type check
    looks for): "how heavy is it?" asks for a weight ("weighs 1.09 kg" never says
    "heavy"), "combien coûte-t-il ?" for a price ("vendu 449 $").
    """
    kind_words = KIND_WORDS | _TYPED_KIND_TERMS.get(typed or "", frozenset())
    specific = [t for t in content if t not in kind_words]
    return specific or ([] if typed else list(content))


def asked_phrase_terms(question: str) -> list[str]:
    """Return what a "what is X / who is X" question asks for: the content terms of X.

    The word for the kind of value ("capacity", "policy") is left out: "the battery
    capacity" asks for the battery's, and the passage that states it in mAh never says
    "capacity".
    """
    match = _ASKED_PHRASE.search(question)
    if not match or _PRONOUN_SUBJECT.match(match.group("phrase")):
        # "What is it called?", "what are they used for?": the pronoun is the subject of
        # a verb, no thing whose name the passage must hold.
        return []
    asked = [t for t in content_terms(match.group("phrase")) if t not in GENERIC_TERMS]
    # "la politique de mots de passe": the phrase ends before its complement, and the
    # kind word alone asks for nothing a passage must name.
    return [t for t in asked if t not in KIND_WORDS]


_PART_SPLIT = re.compile(
    r"\?|;|\b(?:and|et)\s+(?=(?:also|what|how|is|are|does|do|can|when|where|who|which|"
    r"quel\w*|comment|combien|est-ce)\b)",
    re.I,
)


def question_parts(question: str) -> list[str]:
    """Return the separately answerable parts of a question ("X? And how much is Y?")."""
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


def kinds_named_before(question: str, earlier: Sequence[str]) -> tuple[str, list[str]]:
    """Return a "the X" of the question and the distinct named X's the conversation offered.

    "How many domains are included in the plan?" after an answer listing the "Trial
    plan", the "Standard Next plan" and the "Enterprise plan" → ("the plan", [those
    three]): the conversation anchors "the plan" without saying which. Only the latest
    earlier turn that speaks of X counts (it is what the user is reading); a question
    that names its X ("the Trial plan") is not asking this. ("", []) when none.
    """
    if not earlier:
        return "", []
    names = set(named_things(question))
    for match in _DEFINITE.finditer(question):
        word = match.group(2)
        if word in names or word[:1].isupper():
            continue
        before = question[: match.start(2)].split()
        if len(before) >= 2 and before[-2][:1].isupper() and before[-2] != before[0]:
            continue
        noun = [t for t in terms(word) if t not in GENERIC_TERMS]
        if not noun:
            continue
        for turn in reversed(earlier):
            if noun[0] not in stems(turn):
                continue
            found: dict[str, str] = {}
            for named in re.finditer(
                r"\b((?:[A-Z][\w-]*\s+){1,3})(" + re.escape(word) + r"s?)\b", turn
            ):
                modifier = named.group(1).split()
                # A capital that only starts a sentence names nothing.
                start = named.start(1)
                if start == 0 or turn[:start].rstrip().endswith((".", "!", "?", ":")):
                    modifier = modifier[1:]
                if modifier:
                    label = f"{' '.join(modifier)} {word}"
                    found.setdefault(fold(label), label)
            if len(found) >= 2:
                return match.group(0), list(found.values())
            break
    return "", []


def said_before(question: str, earlier: Sequence[str]) -> list[str]:
    """Return the "the X" of a question that only the conversation's words anchor.

    "Can you just visit the casino?" after a talk that mentioned a casino: the X was said
    before and the phrase says nothing more. A name ("the Office"), or a complement of
    its own ("the procedures for a child support case", "the history of X") says which
    X by itself, and is not returned.
    """
    history = stems(" ".join(earlier))
    names = set(named_things(question))
    found = []
    for match in _DEFINITE.finditer(question):
        word = match.group(2)
        after = question[match.end(2) :].split()[:1]
        if word in names or (after and after[0].strip("?.,;!") in names):
            continue
        if after and after[0].lower() in ("of", "for", "de", "du", "des", "pour"):
            continue
        noun = [t for t in terms(word) if t not in GENERIC_TERMS]
        if noun and noun[0] in history:
            found.append(match.group(0))
    return found


def written_as_a_name(word: str, texts: Sequence[str]) -> bool:
    """Whether these texts write `word` as a name: capitalised inside a sentence."""
    pattern = re.compile(rf"(?<=[\w,;:(«\"'’] )({re.escape(word.capitalize())}s?)\b")
    return any(pattern.search(text) for text in texts)
