"""References a question makes to things it may not name, and what anchors them.

"This X" with no X before, "about a specific X", "the X" that neither the conversation,
a title nor the question's own phrase says which: the evidence check
(:mod:`threadline.graph.evidence`) asks back on those rather than guess. Also the "the
X" a conversation already named several of, or only the conversation's words anchor.
Pure functions of the question, the earlier turns and the titles in play.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence

import lemminflect

from threadline.followups.anaphora import looks_like_followup
from threadline.graph.question_terms import (
    GENERIC_TERMS,
    PRONOUN,
    content_terms,
    named_things,
    stems,
)
from threadline.graph.rules import policy_topic
from threadline.knowledge.bilingual import translate_query
from threadline.knowledge.facts import ASKING_TERMS, KIND_WORDS
from threadline.text import fold, is_stopword, terms
from threadline.text.sentences import sentences

# A reference to something the question does not name.
DEMONSTRATIVE = re.compile(
    # Not "that is", "that calculated", "this the": a demonstrative before a verb, a
    # participle or an article is a pronoun or a conjunction, not "this <noun>".
    # Nor French "ce que", "ce qui", "est-ce que": a relative or a question formula.
    r"\b(this|that|these|those|ce|cet|cette|ces)\s+(?!(?:is|are|was|were|be|been|one|means?|does|do|"
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
# "the X" with X a whole word: "the P1 response time" names a code ("P1"), not "the P".
_DEFINITE = re.compile(r"\b(the|le|la|les)\s+([a-zà-ÿ'’-]+)(?![\w'’-])", re.I)


# "Does that apply to...?", "Is this free?": after an auxiliary opening a question, a
# demonstrative followed by one word and a preposition (or the question's end) is the
# question's subject, a pronoun, and that word its verb or attribute: not "this <noun>"
# ("Does this plan include phones?" has a verb after its noun).
_AUXILIARIES = frozenset(
    "does do did is are was were will would can could should may might has have".split()
)
_PREPOSITIONS = frozenset(
    "to on in for with at from of about by into over under after before".split()
)


def _pronoun_subject(question: str, match: re.Match[str]) -> bool:
    """Whether a demonstrative match is a pronoun subject after an auxiliary."""
    before = question[: match.start()].split()
    if not before or before[-1].lower() not in _AUXILIARIES:
        return False
    after = question[match.end(1) :].split()
    if not after:
        return True
    if after[0].endswith(("?", ".", "!")) or len(after) == 1:
        return True
    return after[1].strip("?.!,;:").lower() in _PREPOSITIONS


_SINGULAR_DEMONSTRATIVE = frozenset(("this", "that", "ce", "cet", "cette"))
# Determiners that single one thing out ("the card", "my card", "ce plan").
_SPECIFIC = frozenset(
    "the this that these those my your our his her its their le la les l ce cet cette ces "
    "mon ma mes ton ta tes son sa ses notre nos votre vos leur leurs".split()
)
_INDEFINITE = frozenset(("a", "an", "un", "une"))
# Determiners of any or several things ("some cards", "each partner", "three partners").
_GENERAL = frozenset(
    "any some each every many several other few various all no both one two three four "
    "five six seven eight nine ten quelques chaque plusieurs certains certaines tous toutes "
    "aucun aucune deux trois quatre cinq".split()
)
# Words under which "a X" is any X, not one that exists: a condition, a modal, an aim
# ("if I should take a credit card", "to get a card", "can offer").
_NOT_ASSERTED = frozenset(
    "if whether should would could might may can to unless si pourrait devrais faut".split()
)
_WORD = re.compile(r"[^\W_][\w'’-]*")


def _stem(word: str) -> str:
    found = terms(word)
    return found[0] if found else ""


def _mention_is_general(
    words: Sequence[str], start: int, end: int, plural: bool, asked: bool
) -> bool:
    """Whether the words `words[start:end]` speak of any or several X, not of one X.

    A plural ("three partners", "credit cards") speaks of several; "a X" of any X where
    nothing asserts one exists (a question, a condition, a modal, an aim, a gerund:
    "having a credit card"); a quantifier ("each partner") of any. "The X", "my X", a
    name before it, or a bare singular ("in ground-to-air photography") are read as one.
    """
    if plural:
        return True
    for back in range(start - 1, max(start - 4, -1), -1):
        word = words[back]
        lower = word.lower()
        if lower in _SPECIFIC:
            return False
        if lower in _GENERAL or word.isdigit():
            return True
        if lower in _INDEFINITE:
            before = [w.lower() for w in words[:back]]
            return (
                asked
                or bool(_NOT_ASSERTED & set(before))
                or (bool(before) and before[-1].endswith("ing"))
            )
        if word[:1].isupper() and back > 0:
            return False  # a name says which one: "a Chase card"
    return False


def said_only_in_general(phrase: str, earlier: Sequence[str]) -> str:
    """Return the X of "this X" when the conversation spoke of it only in general, else "".

    The longest start of `phrase` the earlier turns hold is X ("this partner own" → the
    "partner" of "three partners"); every mention of it must speak of any or several X
    (`_mention_is_general`). "" when no turn mentions it or one speaks of one X.
    """
    written = [w for w in _WORD.findall(phrase) if _stem(w)]
    wanted = [_stem(w) for w in written]
    singular = [not w.lower().endswith("s") for w in written]
    for size in range(len(wanted), 0, -1):
        found: list[bool] = []
        for text in earlier:
            for sentence in sentences(text):
                words = _WORD.findall(sentence)
                stems_ = [_stem(w) for w in words]
                asked = sentence.rstrip().endswith("?")
                for i in range(len(words) - size + 1):
                    if stems_[i : i + size] == wanted[:size]:
                        last = words[i + size - 1].lower().rstrip("'’")
                        plural = (
                            singular[size - 1] and last.endswith("s") and not last.endswith("'s")
                        )
                        found.append(_mention_is_general(words, i, i + size, plural, asked))
        if found:
            return " ".join(written[:size]) if all(found) else ""
    return ""


def _said_as_noun(word: str, earlier: Sequence[str]) -> bool:
    """Whether the conversation said the noun `word`, in one of its forms or languages.

    A word sharing its stem only ("animated" for "the animal's breed": Snowball stems both
    "anim") says another thing: the word said must start with the noun's singular. A
    conversation in French over English documents says in English what it quotes: "le
    prix" after "The Business plan costs $149 ... the monthly price" is that price.
    """
    if _said_in_its_language(word, earlier):
        return True
    senses = {
        sense
        for source, target in (("fr", "en"), ("en", "fr"))
        for sense in translate_query(word, source, target).split()
    }
    senses.discard(fold(word))
    return any(_said_in_its_language(sense, earlier) for sense in senses)


def _said_in_its_language(word: str, earlier: Sequence[str]) -> bool:
    base = fold(re.sub(r"['’]s$", "", word))
    lemmas = lemminflect.getAllLemmas(base, "NOUN").get("NOUN", ())
    base = min((fold(lemma) for lemma in lemmas), key=len, default=base)
    stem = next(iter(terms(base)), "")
    if not stem:
        return False
    for text in earlier:
        for said in _WORD.findall(fold(text)):
            if said.startswith(base) and stem in terms(said):
                return True
    return False


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


# A question opened by what it asks ("how much RAM", "what processor") whose subject is a
# pronoun: "does it take" and "is it possible" are impersonal, pointing at nothing asked.
_ASKED_OF_A_PRONOUN = re.compile(
    r"^\s*(?:how (?:much|many)|what|which)\s+[a-z][\w-]*(?:\s+[a-z][\w-]*){0,2}?\s+"
    r"(?:does|do|did|is|are|was|were|can|will|would)\s+(?P<pronoun>it|they)\s+"
    r"(?!take|takes|took|mean|matter|possible|necessary|required|cost\b)\w",
    re.I,
)


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
        if _pronoun_subject(question, match):
            continue
        noun = match.group(2)
        nouns = [t for t in terms(noun) if t not in GENERIC_TERMS]
        # "the word Kubernetes ... this term": a name said before it is what it points at.
        named_before = named_things(question[: match.start()])
        if nouns and not named_before:
            if not any(n in history for n in nouns):
                yield match.group(0)
            elif match.group(1).lower() in _SINGULAR_DEMONSTRATIVE and (
                general := said_only_in_general(noun, earlier)
            ):
                # "this partner" after "there are three partners in my company", "this
                # credit card" after "should I take a credit card?": the conversation
                # spoke of partners, of any credit card, never of one; "this" picks one
                # it never singled out.
                yield f"{match.group(1)} {general}"
    for match in UNSAID.finditer(question):
        yield match.group("phrase")
    names = named_things(question)
    if not earlier and not names:
        # A pronoun before any content word of a first message points at nothing
        # ("is it free?"); after one ("stocks ... do they") it points at that word.
        pronoun = PRONOUN.search(question)
        if pronoun and not content_terms(question[: pronoun.start()]):
            yield pronoun.group(0)
    asked_of = None if earlier else _ASKED_OF_A_PRONOUN.match(question)
    if asked_of and not named_things(question[asked_of.end("pronoun") :]):
        # "How much RAM does it have?" as a first message: the words before the pronoun
        # ("RAM", a name too) are what is asked of it (its verb's object), not what it
        # stands for.
        yield asked_of.group("pronoun")
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
        # "Le OnePlus 12 supporte-t-il la recharge sans fil ?": the object of a verb of
        # having after a named thing is a feature asked of it (French writes features
        # with the article), no thing to choose between.
        before = question[: match.start()]
        if _HAS_A_FEATURE_BEFORE.search(before) and named_things(before):
            continue
        # "the parental leave policy": the rules about parental leave, no parental
        # thing to choose between (`rules.policy_topic`).
        if noun and noun[0] in terms(policy_topic(question)):
            continue
        if _SUPERLATIVE_HEAD.match(match.group(2)) or _SUPERLATIVE_AFTER.match(
            question[match.end(2) :]
        ):
            continue  # "the best-selling phone", "le smartphone le plus vendu": one thing
        # "the grounds for lodging an appeal", "the requirements of a mortgage": a word for
        # the kind of answer asked is no thing to point at; its complement says what of.
        # So is a word asking for a value ("the price of the enterprise plan", "le nombre
        # de magasins prévu en 2025"): what it is the value of follows.
        if (
            noun
            and set(noun) <= KIND_WORDS | _VALUE_WORDS
            and _KIND_COMPLEMENT.match(question[match.end(2) :])
        ):
            continue
        if noun and noun[0] not in titled and not _said_as_noun(match.group(2), earlier):
            yield match.group(0)


def valued_references(
    question: str, earlier: Sequence[str], titles: Sequence[str] = ()
) -> Iterator[str]:
    """Yield each "the <value word> of <noun>" whose noun the question leaves unnamed.

    French puts the value word first: "le délai de réponse" is the English "the response
    time", whose "the response" `unanchored_references` yields; its "le délai" is set
    aside there, the complement saying what it is the value of. That complement is still
    a thing never named ("réponse", of which plan?), so the phrase with it is a quantity
    whose values may differ by what the question does not say (`qualifiers.qualifiers_of`).
    A name in the complement ("le prix du plan Enterprise"), a noun the conversation or
    one title already says, or a plural ("les délais") anchors it, as for "the X".
    """
    names = named_things(question)
    titled = _named_once(titles)
    for match in _DEFINITE.finditer(question):
        noun = [t for t in terms(match.group(2)) if t not in GENERIC_TERMS]
        rest = question[match.end(2) :]
        complement = _KIND_COMPLEMENT.match(rest)
        if not noun or not set(noun) <= KIND_WORDS | _VALUE_WORDS or not complement:
            continue
        if _complement_names(rest, names):
            continue
        head = complement.group(0).split()[-1].split("'")[-1].split("’")[-1]
        head_terms = [t for t in terms(head) if t not in GENERIC_TERMS]
        if not head_terms or head_terms[0] in titled or _said_as_noun(head, earlier):
            continue
        yield f"{match.group(0)}{complement.group(0)}"


# Words asking for a value a passage states as a figure ("$899", "38 magasins"): the
# price, cost, weight, number of something.
# "the email for support" asks for an address, a value to reach someone by, as "the
# number to call" does.
_VALUE_WORDS = frozenset().union(*ASKING_TERMS.values()) | frozenset(
    terms("number numbers nombre quantity quantité email e-mail courriel")
)


# A verb of having, supporting or including right before "the X": "X supporte la Y".
_HAS_A_FEATURE_BEFORE = re.compile(
    r"\b(?:have|has|support|supports|include|includes|come with|comes with|offer|offers|"
    r"a-t-il|a-t-elle|ont-ils|ont-elles|poss[eè]de|possèdent|dispose de|disposent de|"
    r"supporte|supportent|supporte-t-il|supporte-t-elle|inclut|incluent|inclut-il|"
    r"inclut-elle|propose|proposent|propose-t-il|propose-t-elle)\s*$",
    re.I,
)


# "The X" that names no thing to choose between: a time ("et le week-end ?", "the
# night", « ouvert le samedi ? »: French says "on Saturdays" with the article) or a part
# of the document ("détaille la partie sur les magasins"), whose complement, if any,
# says what it is about.
_NO_THING_TO_CHOOSE = frozenset(
    terms(
        "weekend week-end weekends night nights morning evening afternoon holidays "
        "nuit nuits matin soir soirée après-midi vacances jours fériés "
        "monday tuesday wednesday thursday friday saturday sunday "
        "lundi mardi mercredi jeudi vendredi samedi dimanche "
        "part section point chapter paragraph partie chapitre paragraphe"
    )
)


# A superlative picks one thing out of several: "the best-selling phone", "le smartphone
# le plus vendu", "la meilleure offre", "le moins cher" need no question back.
# "the maximum service credit", "the minimum password length" are superlatives too: the
# largest or smallest allowed, one value, no thing to choose between. "top-" before an
# adjective is its superlative ("the top-selling laptop", "the top-rated plan").
_SUPERLATIVE_HEAD = re.compile(
    r"(?:best|worst|most|least|latest|newest|oldest|largest|biggest|smallest|cheapest|"
    r"highest|lowest|maximum|minimum|max|min|meilleure?s?|pire|plus|moins)(?:\b|-)|top-",
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


# "for lodging an appeal", "of a mortgage", "pour un prêt": what a kind word is about;
# "between internal and public information", « entre un P1 et un P2 »: what a difference
# is between.
_KIND_COMPLEMENT = re.compile(
    r"^\s+(?:for|of|to|on|about|between|pour|de|du|des|d['’]|entre)\s*(?:(?:a|an|the|my|your|un|une|le|la|les|"
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
        # French writes the name after the noun: "le plan Enterprise" says which plan.
        after = question[match.end(2) :].split()[:1]
        if after and after[0].strip("?.,;!:") in names:
            continue
        noun = [t for t in terms(word) if t not in GENERIC_TERMS]
        if not noun:
            continue
        if _SUPERLATIVE_HEAD.match(word) or _SUPERLATIVE_AFTER.match(question[match.end(2) :]):
            continue  # "le plan le moins cher" picks one of the plans named: no question back
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


def as_the_passages_write_it(question: str, texts: Sequence[str]) -> str:
    """Return the question with each lower-case word the passages only write as a name capitalised.

    "the enterprise plan" over passages that write "the Enterprise plan" and "du plan
    Enterprise" (never "enterprise" inside a sentence) names the plan, typed without its
    capital: two passages writing one name. A word the passages also write in lower case
    ("the casino" beside "the Monte Carlo Casino"), write as a name in one passage only, or
    write only inside a longer name ("Hurricane Sandy", "the City of Auburn", "Best Male
    Actor": which hurricane, which city, which actor) stays as typed.
    """

    def capitalised(match: re.Match[str]) -> str:
        word = match.group(0)
        after = re.match(r"\s+([a-zà-ÿ]{3,})\b", question[match.end() :])
        if after is not None and not is_stopword(after[1]):
            # "the business plan": read as the passages write that phrase ("the Business
            # plan" in two documents), whatever they write of the word elsewhere ("4
            # business hours").
            phrase = re.compile(
                rf"(?<=[\w,;:(«\"'’] )({re.escape(word)}) {re.escape(after[1])}s?\b", re.I
            )
            said = [(i, m) for i, text in enumerate(texts) for m in phrase.finditer(text)]
            if said and all(m[1][0].isupper() for _, m in said) and len({i for i, _ in said}) >= 2:
                return word.capitalize()
        inside = re.compile(
            rf"(?:(?P<before>\w+)\s+|(?<=[,;:(«\"'’] ))(?P<word>{re.escape(word)}s?)\b"
            r"(?P<next>\s+(?:of|de|du|des|(?-i:[A-Z])))?",
            re.I,
        )

        def a_name_alone(m: re.Match[str]) -> bool:
            before = m.group("before") or ""
            opens_a_longer_name = before[:1].isupper() and fold(before) not in _DETERMINERS
            return m.group("word")[0].isupper() and not m.group("next") and not opens_a_longer_name

        written = [(i, m) for i, text in enumerate(texts) for m in inside.finditer(text)]
        if written and all(a_name_alone(m) for _, m in written):
            # Two passages at least: one name two documents share, not one page's title case.
            if len({i for i, _ in written}) >= 2:
                return word.capitalize()
        # "the business plan": the passages write "business" in lower case elsewhere ("5
        # business days"), but "Business plan" always with its capital: the word before
        # the noun it names is that name, as the passages write it.
        noun = match.group("noun")
        if noun:
            phrase = re.compile(rf"(?<![\w-])({re.escape(word)})\s+{re.escape(noun)}s?\b", re.I)
            found = [(i, m) for i, text in enumerate(texts) for m in phrase.finditer(text)]
            if (
                found
                and all(m.group(1)[0].isupper() for _, m in found)
                and len({i for i, _ in found}) >= 2
            ):
                return word.capitalize()
        return word

    word_and_noun = r"\b[a-zà-ÿ][a-zà-ÿ]{2,}\b(?=\s+(?P<noun>[a-zà-ÿ]{2,})\b)?"
    return re.sub(word_and_noun, capitalised, question)


# Determiners before a name ("The Enterprise plan"): a capital that opens no longer name.
_DETERMINERS = frozenset("the a an le la les un une du des".split())


def leans_on_the_conversation(question: str, earlier: Sequence[str]) -> bool:
    """Whether a message means more than it says, the rest being the conversation's.

    A follow-up as the router reads one (a short message, "and ...", "what about ...",
    a choice among earlier items), a pronoun or a demonstrative ("does it mean I can get
    this...", "are those the only steps?"), or a "the X" only the conversation's words
    anchor ("what will happen if I exceed the limit?"). A first message leans on nothing.
    """
    if not earlier:
        return False
    return (
        looks_like_followup(question)
        or PRONOUN.search(question) is not None
        or re.search(r"\b(?:this|that|these|those)\b", question, re.I) is not None
        or bool(said_before(question, earlier))
    )
