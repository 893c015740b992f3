"""Elliptical follow-ups: "and X?" is the previous question asked of X.

"Quel est le SLA du plan Business ?" then "Et pour le plan Enterprise ?" asks the SLA of
the Enterprise plan; "How much does the Basic plan cost?" then "and Business?" asks the
Business plan's price; "Comment chiffrer mon ordinateur portable ?" then "Et sur mon
téléphone ?" asks how to encrypt the phone. The message says only what changes: the
question it means is the previous one with the part it replaces swapped for it
(:func:`substituted_question`). Pure functions of the two messages, no model call.

The part replaced is found by form, in this order: a name of the same shape (a word
"Business" for "Enterprise", a code "P1" for "P2", a model "Pixel 8a" for "iPhone 15"),
then the noun phrase holding the same noun ("plan Business" for "plan Enterprise"),
then a sibling kind of the catalog's ("laptops" for "a phone": the catalog's categories),
then the noun group after the same possessive or plural determiner ("mon ordinateur
portable" for "mon téléphone", "des smartphones" for "les ordinateurs portables").
A message none of these align with is not read as one ("What about refunds?" after
"Détaille S4" asks about refunds): the usual follow-up path takes it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from threadline.followups.anaphora import read_correction
from threadline.graph.catalog_requests import CATEGORY_WORDS
from threadline.text import STOPWORDS, fold, terms

# "and X?", "what about X?", "et pour X ?", "quid de X ?": a connective, then what changes.
_ELLIPSIS = re.compile(
    r"^\s*(?:and|also|what about|how about|and what about|and how about|what of|"
    r"et|et pour|et concernant|quid de|et quid de|et qu'en est-il(?: de| du| des)?)"
    # "et combien en 2025 ?": a count word before a phrase with no noun counted asks
    # the previous question's count (of stores) of what the phrase names.
    r"\s+(?:(?:how many|how much|combien)\s+(?=(?:in|for|at|on|en|pour|dans|chez|à|au|aux)\s))?"
    r"(?P<phrase>[^?!.]+?)\s*[?!.]*\s*$",
    re.I,
)
# A clause of its own is a question, not an ellipsis: "and what is the price?".
_CLAUSE = re.compile(
    r"\b(?:is|are|was|were|do|does|did|can|could|will|would|should|has|have|had|how|what|"
    r"why|when|where|which|who|est|sont|était|peut|peux|puis|fait|faut|a-t-il|a-t-elle|"
    r"comment|pourquoi|quand|quel|quelle|quels|quelles|combien|qui)\b",
    re.I,
)
# "celle de l'iPhone 15", "that of the Pixel": the thing asked about stands for the
# previous question's own ("la garantie"), the rest names whose.
_STANDS_FOR = re.compile(
    r"^(?:celle|celui|celles|ceux|that|those|the ones?)\s+(?:de|du|des|d['’]|of|for)\s*", re.I
)
_LEADING = re.compile(
    r"^(?:(?:for|on|in|with|at|about|to|of|pour|sur|dans|avec|en|à|au|aux|de|du|des|d['’])\s+)?"
    # An article is a word of its own: "laptops" does not open with "la".
    r"(?:(?:the|a|an|le|la|les|un|une)\s+|l['’]\s*)?",
    re.I,
)
_POSSESSIVE = r"my|our|your|his|her|their|mon|ma|mes|ton|ta|tes|son|sa|ses|notre|nos|votre|vos"
_PLURAL = r"les|des"
_MAX_PHRASE_WORDS = 6
_MAX_GROUP_WORDS = 3


@dataclass(frozen=True)
class EllipticalMessage:
    """What an elliptical message says: the phrase that replaces part of the question."""

    phrase: str
    """What changes, as typed, its connective removed ("pour le plan Enterprise")."""

    @property
    def core(self) -> str:
        """The phrase without its leading preposition, article or "celle de"."""
        return _LEADING.sub("", _STANDS_FOR.sub("", self.phrase)).strip()


def read_ellipsis(question: str) -> EllipticalMessage | None:
    """Read "and X?" as an ellipsis, or return None.

    Args:
        question: The user's message.

    Returns:
        The phrase that changes, when the message is a connective and a short phrase
        with no clause of its own; None otherwise.
    """
    match = _ELLIPSIS.match(question)
    if match is None:
        return None
    phrase = match["phrase"].strip()
    if not phrase or len(phrase.split()) > _MAX_PHRASE_WORDS or _CLAUSE.search(phrase):
        return None
    return EllipticalMessage(phrase)


# A preposition of place or time opening an ellipsis: "and in the office?", "and at
# weekends?", « et au bureau ? ». What follows is where or when, not a thing asked of.
_CIRCUMSTANCE_PREPOSITION = re.compile(
    r"^(?:in|at|on|during|inside|outside|en|dans|au|aux|à|sur|pendant|hors)\s", re.I
)


def asks_under_another_circumstance(question: str) -> bool:
    """Tell whether an elliptical message asks the previous question in another place or time.

    "Can I print confidential documents at home?" then "and in the office?" asks the
    same thing (printing them) in the office: a passage saying something of an office
    but nothing of what was asked answers another question.

    Args:
        question: The user's message.

    Returns:
        True when the message is "and X?" whose phrase opens with a preposition of place
        or time ("in the office", « au bureau »).
    """
    ellipsis = read_ellipsis(question)
    return ellipsis is not None and bool(_CIRCUMSTANCE_PREPOSITION.match(ellipsis.phrase))


def corrected_name(question: str) -> str | None:
    """Return the one name a correcting message says it meant, or None.

    "no, I meant the Pixel 8 Pro", « non, je voulais dire le plan Enterprise » correct the
    name the previous question asked of (`followups.anaphora.read_correction`); a
    correction saying more than a name ("No, I meant photos in the air") narrows the
    question instead, and is searched as such (`condensation.corrected_query`).
    """
    correction = read_correction(question)
    if correction is None or correction.rejected:
        return None
    core = EllipticalMessage(correction.meant).core.strip(" ?!.")
    names = _names_in(core)
    if len(names) != 1 or fold(names[0]) != fold(core) or _CLAUSE.search(core):
        return None
    return names[0]


def _shape(name: str) -> str:
    """Return a name's shape: acronym ("SLA"), code ("P1"), name ("Business", "Pixel 8a")."""
    if " " not in name and name.isupper() and name.isalpha():
        return "acronym"
    if " " not in name and any(ch.isdigit() for ch in name):
        return "code"
    return "name"


def _names_in(text: str, *, sentence: bool = False) -> list[str]:
    """Return the names of a text: runs of capitalised words and codes, as typed.

    With `sentence`, the text's first word is not a name for its capital alone (it
    opens the sentence: "What", "Quelle"). Not `question_terms.name_runs`: there a model
    number stands apart from its name ("Pixel", "8a") and the first word is never a name,
    while a name's shape here is the whole model ("Pixel 8a" for "iPhone 15") and an
    ellipsis's phrase opens with its name ("Enterprise").
    """
    runs: list[str] = []
    current: list[str] = []
    for index, word in enumerate(re.findall(r"[\w'’.-]+", text)):
        bare = re.split(r"['’]", word)[-1].strip(".-")
        marked = any(ch.isupper() for ch in bare[1:]) or any(ch.isdigit() for ch in bare)
        capital = bare[:1].isupper() and not (sentence and index == 0)
        if bare and (marked or capital) and fold(bare) not in STOPWORDS:
            current.append(bare)
            continue
        if current:
            runs.append(" ".join(current))
        current = []
    if current:
        runs.append(" ".join(current))
    return runs


def _is_model(name: str) -> bool:
    """Whether a name is a model's: words and a number ("iPhone 15", "Galaxy S24")."""
    return " " in name and any(ch.isdigit() for ch in name)


def _replace_name(previous: str, new: str) -> str | None:
    """Swap the previous question's name of the new name's shape for it, if one alone.

    A model ("Galaxy S24") also replaces the one model among several names ("Does the
    iPhone 15 have USB-C?"): the feature asked about is no model.
    """
    names = [n for n in _names_in(previous, sentence=True) if fold(n) != fold(new)]
    same = [n for n in names if _shape(n) == _shape(new)]
    if len(same) != 1 and _is_model(new):
        same = [n for n in same if _is_model(n)]
    if len(same) != 1:
        return None
    replaced = re.sub(rf"(?<![\w-]){re.escape(same[0])}(?![\w-])", new, previous, count=1)
    if fold(new)[:1] not in "aeiouyh":
        # "de l'iPhone 15" for the Galaxy S24 is "du Galaxy S24": an elided article
        # before a name that opens with a consonant is written out.
        elided = rf"\b([dD]e |[àÀ] )?[lL]['’]{re.escape(new)}"
        replaced = re.sub(
            elided, lambda m: _ARTICLE_BEFORE.get(fold(m[1] or ""), "le ") + new, replaced
        )
    return replaced


# The article "le" after a preposition, contracted: "de le" is "du", "à le" is "au".
_ARTICLE_BEFORE = {"": "le ", "de ": "du ", "a ": "au "}


def _replace_noun_phrase(previous: str, core: str) -> str | None:
    """Swap the noun phrase holding the new phrase's noun ("plan Business") for it."""
    nouns = [w for w in re.findall(r"[\w'’-]+", core) if w[:1].islower() and terms(w)]
    for noun in nouns:
        # The noun with the name that says which ("plan Business", "Business plan"):
        # the noun alone ("objectifs") is what both ask about, not what changes.
        found = re.search(
            rf"(?:\b[A-Z][\w-]*\s+)+\b{re.escape(noun)}s?\b|\b{re.escape(noun)}s?\b(?:\s+[A-Z][\w-]*)+",
            previous,
        )
        if found:
            return previous[: found.start()] + core + previous[found.end() :]
    return None


def _replace_kind(previous: str, core: str) -> str | None:
    """Swap the previous question's product kind for the sibling kind the phrase names.

    "is there a fee to return a phone?" then "and for laptops?": phones and laptops are
    the catalog's categories, two kinds of one thing, so the laptop takes the phone's
    place, in the phone's number ("a laptop"). A phrase naming more than its kind ("the
    Dell laptops") is left to the other alignments.
    """
    folded_core, folded_previous = fold(core), fold(previous)
    if len(folded_previous) != len(previous):
        return None  # positions in the folded text are not the typed text's
    for kind, pattern in CATEGORY_WORDS.items():
        new = re.fullmatch(pattern, folded_core)
        if new is None:
            continue
        for other, other_pattern in CATEGORY_WORDS.items():
            old = re.search(other_pattern, folded_previous) if other != kind else None
            if old is None:
                continue
            word = core
            if not old.group(0).endswith(("s", "x")):
                word = re.sub(r"s\b", "", core)  # "a phone" → "a laptop", not "a laptops"
            return previous[: old.start()] + word + previous[old.end() :]
    return None


# How often a thing recurs or is paid, one word: siblings of one kind, as the catalog's
# categories are ("monthly plans" then "and for yearly?" asks of the yearly plans).
_PERIODIC = (
    r"daily|weekly|monthly|quarterly|yearly|annual|annually|"
    r"quotidien(?:ne)?s?|hebdomadaires?|mensuel(?:le)?s?|trimestriel(?:le)?s?|annuel(?:le)?s?"
)


def _replace_period(previous: str, core: str) -> str | None:
    """Swap the previous question's word of a period ("monthly") for the one the phrase names.

    "What is the refund window for monthly plans?" then "and for yearly?": the two words
    say how often of one thing, so the yearly plans take the monthly plans' place.
    """
    new = re.fullmatch(rf"(?i)(?:{_PERIODIC})(?:\s+\w+)?", core.strip())
    if new is None:
        return None
    word = core.strip().split()[0]
    old = re.search(rf"(?i)\b(?:{_PERIODIC})\b", previous)
    if old is None or fold(old.group(0)) == fold(word):
        return None
    if len(core.split()) > 1:
        # "and for yearly plans?": the noun is said again; the previous one stays.
        after = re.match(r"\s+\w+", previous[old.end() :])
        if after is None or terms(after.group(0)) != terms(core.split()[1]):
            return None
    before = previous[: old.start()]
    if re.search(r"\ban?\s+$", before):
        # "a monthly plan" then "and annual?": "an annual plan".
        article = "an" if fold(word)[:1] in "aeiou" else "a"
        before = re.sub(r"\ban?(\s+)$", lambda m: article + m[1], before)
    return before + word + previous[old.end() :]


def _replace_group(previous: str, phrase: str) -> str | None:
    """Swap the noun group after the same possessive (or plural) determiner."""
    for determiners in (_POSSESSIVE, _PLURAL):
        mine = re.search(rf"\b({determiners})\s+(?P<group>[\w'’ -]+)$", phrase, re.I)
        if mine is None:
            continue
        group = rf"(?:[\w'’-]+(?:\s+|$)){{1,{_MAX_GROUP_WORDS}}}"
        theirs = re.search(rf"\b(?:{determiners})\s+(?P<group>{group})", previous, re.I)
        if theirs is None:
            continue
        # The group ends where a function word begins ("des smartphones dans le...").
        words = theirs["group"].split()
        kept: list[str] = []
        for word in words:
            if fold(word) in STOPWORDS:
                break
            kept.append(word)
        if not kept:
            continue
        start = theirs.start("group")
        end = start + len(" ".join(kept))
        return previous[:start] + mine["group"].strip() + previous[end:]
    return None


# "the cheapest one", "and the most expensive?", "le moins cher ?", "which one is the
# cheapest?", "lequel est le plus léger ?": a superlative with no noun of its own ("one",
# "lequel" stand for it).
_SUPERLATIVE_ONE = re.compile(
    r"^\s*(?:and |so |et |alors )?(?:what about |how about |et pour )?"
    r"(?:(?:which|what) (?:one )?(?:is|'s) |"
    r"(?:quel|quelle|lequel|laquelle) est |(?:lesquels|lesquelles) sont )?(?:the|le|la|les) "
    r"(?P<degree>(?:\w+est|most \w+|least \w+|(?:plus|moins) \w+))(?: ones?)?\s*[?!.]*\s*$",
    re.I,
)
# The plural noun a previous question spoke of: "the plans", "les plans de support". A
# word in -ss is no plural ("the Business plan", "access").
_PLURAL_NOUN = re.compile(
    r"\b(?:(?:the|les|des|your|our|vos|nos)\s+(?:[a-z-]+\s+)?|(?:what|which|quels|quelles)\s+)"
    r"(?P<noun>[a-z][\w-]*[a-rt-z]s)\b",
    re.I,
)
# A French plural noun and its plural adjective: "les ordinateurs portables", "des plans".
_FRENCH_PLURAL_NOUN = re.compile(
    r"\b(?:les|des|vos|nos|quels|quelles)\s+(?P<noun>[a-zà-ÿ][\w-]*[sx](?:\s+[a-zà-ÿ][\w-]*[sx])?)\b",
    re.I,
)
# The noun a previous superlative ranked: "the cheapest plan", "le plan le moins cher".
_RANKED_NOUN = re.compile(
    r"\bthe (?:\w+est|most \w+|least \w+) (?P<en>[a-z][\w-]+)|"
    r"\b(?:le|la) (?P<fr>[a-z][\w-]+) (?:le|la) (?:plus|moins)\b",
    re.I,
)


def changes_only_the_year(question: str) -> bool:
    """Whether a message is an ellipsis naming only a year ("and in 2023?", "et en 2023 ?")."""
    ellipsis = read_ellipsis(question)
    return ellipsis is not None and _YEAR_ONLY.fullmatch(ellipsis.core) is not None


def superlative_of_previous(
    question: str, previous_question: str, previous_query: str = ""
) -> str | None:
    """Return "the cheapest one" asked of the things the previous question spoke of, or None.

    "Tell me about the plans" then "the cheapest one" asks "What is the cheapest plan?":
    the superlative names no thing, the previous question's plural noun is what it
    ranks. None when the message is no such superlative or the previous question names
    no plural thing (a catalog list is ranked by the router before this is read).
    """
    match = _SUPERLATIVE_ONE.match(question)
    if match is None:
        return None
    nouns = [n[:-1] for n in _PLURAL_NOUN.findall(previous_question)]  # "plans" → "plan"
    if not nouns:
        # "and the most expensive?" after "the cheapest one": what that one ranked, as
        # the previous turn searched it ("What is the cheapest plan?").
        nouns = [en or fr for en, fr in _RANKED_NOUN.findall(previous_query)]
    if not nouns:
        return None
    degree = match["degree"].strip()
    noun = nouns[-1]
    # A French noun comes first and its adjective after: "des ordinateurs portables"
    # ranks "l'ordinateur portable", not "le portable" (a phone, or nothing).
    french = _FRENCH_PLURAL_NOUN.search(previous_question)
    if french is not None and not _RANKED_NOUN.search(previous_query or ""):
        noun = " ".join(word[:-1] if word[-1:] in "sx" else word for word in french["noun"].split())
    if degree.split()[0].lower() in ("plus", "moins"):
        article = "l'" if fold(noun)[:1] in "aeiouyh" else "le "
        return f"Quel est {article}{noun} le {degree} ?"
    return f"What is the {degree} {noun}?"


# A condensed query ends with the words it carried in brackets: "and P3? (plan basic)".
_CARRIED_WORDS = re.compile(r"\([^()]*\)\s*$")


# "and how many stores?", "et combien de magasins ?": a count asked again of another noun,
# with no verb of its own.
_COUNT_AGAIN = re.compile(
    r"^\s*(?:and|also|what about|et|et pour)\s+"
    r"(?P<count>how many|how much|combien d['’]|combien de)\s*(?P<noun>[^?!.]+?)\s*[?!.]*\s*$",
    re.I,
)
_COUNT_WORDS = 3
# A preposition opening what follows the count word: no noun counted ("in 2025").
_NO_NOUN = re.compile(r"(?:in|for|at|on|en|pour|dans|chez|à|au|aux)\s", re.I)


def counted_again(question: str, previous_question: str) -> str | None:
    """Return "and how many X?" as the previous count question asked of X, or None.

    "How many employees does Brightwell have?" then "and how many stores?" asks "How
    many stores does Brightwell have?": the same count, of the noun the message names in
    place of the one the previous question counted. None when the message holds a verb
    ("and how many will it open?" is a question of its own), or the previous question
    counts nothing the same way.
    """
    match = _COUNT_AGAIN.match(question)
    if match is None or _CLAUSE.search(match["noun"]) or _NO_NOUN.match(match["noun"]):
        return None  # "and how many in 2025?" counts no other noun (`read_ellipsis`)
    noun = match["noun"].strip()
    if not noun or len(noun.split()) > _COUNT_WORDS or not terms(noun):
        return None
    count = match["count"].strip()
    counting = r"combien\s*(?:de|d['’])\s*" if fold(count).startswith("combien") else rf"{count}\s+"
    before = re.search(rf"\b{counting}", previous_question, re.I)
    if before is None:
        return None
    # The counted noun ends where a function word begins: "employees" of "employees does".
    kept: list[str] = []
    for word in re.findall(r"[\w'’-]+", previous_question[before.end() :])[:_COUNT_WORDS]:
        if fold(word) in STOPWORDS:
            break
        kept.append(word)
    if not kept:
        return None
    start = before.end()
    end = previous_question.index(kept[-1], start) + len(kept[-1])
    if counting.startswith("combien"):
        # "combien d'employés" then "combien de magasins": the article elides before a vowel.
        start = before.start() + len("combien")
        noun = f" d'{noun}" if fold(noun)[:1] in "aeiouyh" else f" de {noun}"
    return previous_question[:start] + noun + previous_question[end:]


def substituted_question(
    question: str,
    previous_question: str,
    previous_query: str | None = "",
    continued_question: str = "",
) -> str | None:
    """Return the previous question asked of what an elliptical message names, or None.

    Args:
        question: The user's message ("Et pour le plan Enterprise ?").
        previous_question: The user's previous message ("Quel est le SLA du plan
            Business ?").
        previous_query: The previous turn's search query (what a previous "the
            cheapest one" stood for).
        continued_question: The message before the previous one: the question a
            previous ellipsis continued ("What are the support hours?" before "and on
            weekends?").

    Returns:
        The previous question with the part the message replaces swapped for it ("Quel
        est le SLA du plan Enterprise ?"); None when the message is no ellipsis or when
        nothing in the previous question aligns with it.
    """
    ellipsis = read_ellipsis(question)
    previous = previous_question.strip()
    ranked = superlative_of_previous(question, previous, previous_query or "")
    if ranked is not None:
        return ranked
    counted = counted_again(question, previous)
    if counted is not None:
        return counted
    previous_ellipsis = read_ellipsis(previous) if previous else None
    if previous_ellipsis is not None:
        # "and on Enterprise?" after "and P3?": the previous ellipsis stood for the
        # question it was searched as ("Quel est le délai de réponse P3 sur le plan
        # Basic ?"): a whole question holding what it named, not the ellipsis with
        # words carried after it, nor a catalog lookup's product names ("and the
        # battery?" searched as "Samsung Galaxy S24", with no question mark).
        searched = (previous_query or "").strip()
        named = set(terms(previous_ellipsis.core))
        holds_it = bool(named) and named <= set(terms(searched))
        whole = (
            searched.endswith("?")
            and read_ellipsis(searched) is None
            and not _CARRIED_WORDS.search(searched)
        )
        previous = searched if searched and holds_it and whole else ""
        if not previous and changes_only_the_year(question):
            # "and in 2023?" after "and the net income?" (searched with carried words):
            # a year changes when, not what; the previous message says what, and is
            # asked of that year ("and the net income for 2023?").
            previous = previous_question.strip()
        continued = continued_question.strip()
        circumstance = not _names_in(previous_ellipsis.core) and bool(
            _CARRIED_WORDS.search(searched)
        )
        if not previous and circumstance and continued and read_ellipsis(continued) is None:
            # "what about Enterprise customers?" after "What are the support hours?" then
            # "and on weekends?": an ellipsis naming no thing (a circumstance, searched
            # with the question's words carried) swapped nothing in the question it
            # continued, which stays the question a next ellipsis changes. One naming a
            # thing ("and P3?") changed it, and what it changed is not said here.
            previous = continued
    if ellipsis is None and previous and (name := corrected_name(question)):
        # "no, I meant the Pixel 8 Pro" after "How much RAM does the Galaxy S24 have?"
        # asks that question of the name meant, as "and the Pixel 8 Pro?" would.
        frame, dash, asked = previous.rpartition(_REFERENCE_DASH)
        replaced = _replace_name(asked, name)
        return f"{frame}{dash}{replaced}" if replaced is not None else None
    if ellipsis is None or not previous:
        return None
    # A reference query ("Rapport annuel 2024 de Brightwell — Résultats financiers — et
    # le résultat net ?") leads with the title and section it was resolved to: the
    # document's name, not words of the question. "et en 2023 ?" changes what was asked,
    # never the title ("Rapport annuel 2023" is no document), so only the question
    # after the last dash is aligned with the message.
    frame, dash, asked = previous.rpartition(_REFERENCE_DASH)
    substituted = _substituted(asked, ellipsis)
    return f"{frame}{dash}{substituted}" if substituted is not None else None


def with_the_year_meant(question: str, previous_question: str, previous_answer: str) -> str:
    """Return "and the year before?" as the year it means ("and in 2023?"), else as typed.

    A year said relative to the one the conversation spoke of is that year: the latest
    the previous question names, else the latest the previous answer states ("Le chiffre
    d'affaires 2024 ... contre 435,0 millions en 2023" is of 2024). Read as "and in
    2023?", the previous question is asked of it, and a sentence of that year must say
    what it asked (`changes_only_the_year`): the 2023 revenue is stated, the 2023 net
    income is not.
    """
    ellipsis = read_ellipsis(question)
    if ellipsis is None:
        return question
    match = _YEAR_SAID_RELATIVELY.fullmatch(fold(ellipsis.phrase).strip(" ?"))
    if match is None:
        return question
    said = [int(y) for y in _YEAR_IN_TEXT.findall(previous_question)]
    said = said or [int(y) for y in _YEAR_IN_TEXT.findall(previous_answer)]
    if not said:
        return question
    year = max(said) + (1 if _AFTER.search(match[0]) else -1)
    french = re.match(r"\s*et\b", question, re.I) is not None
    return f"et en {year} ?" if french else f"and in {year}?"


# "the year before", "the previous year", "l'année d'avant", "l'année suivante" (folded).
_YEAR_SAID_RELATIVELY = re.compile(
    r"(?:the\s+)?(?:year\s+(?:before|earlier|prior|after|later)"
    r"|(?:previous|prior|preceding|following|next)\s+year)"
    r"|(?:l'|pour\s+l'|en\s+l')?(?:annee|an)\s+(?:d'avant|precedente?|d'apres|suivante?)"
)
# Of those, the ones that mean the year after.
_AFTER = re.compile(r"\b(?:after|later|following|next|d'apres|suivante?)\b")
_YEAR_IN_TEXT = re.compile(r"(?<!\d)(?:19|20)\d\d(?!\d)")


# A message naming only a year: "and in 2023?", "et en 2023 ?".
_YEAR_ONLY = re.compile(r"(?:19|20)\d\d")
# What separates a reference query's title and section from its question.
_REFERENCE_DASH = " — "


def _substituted(previous: str, ellipsis: EllipticalMessage) -> str | None:
    """Return `previous` with the part the ellipsis replaces swapped for it, or None."""
    core = ellipsis.core
    for name in _names_in(core):
        replaced = _replace_name(previous, name)
        if replaced is not None:
            return replaced
    return (
        _replace_noun_phrase(previous, core)
        or _replace_kind(previous, core)
        or _replace_period(previous, core)
        or _replace_group(previous, ellipsis.phrase)
        or _asked_of(previous, ellipsis)
    )


# The pronoun standing for what a previous question asked about, as its subject after
# the auxiliary: "is it water resistant?", "does it have 5G?".
_SUBJECT_PRONOUN = re.compile(
    r"\b(?P<auxiliary>is|are|was|does|did|can|could|will|would|has) it\b", re.I
)
# The possessive "its" before what a question asks of a thing: "what's its SLA?".
_POSSESSIVE_PRONOUN = re.compile(r"\bits\b(?=\s+\w)", re.I)
# Any other "it": "how often must I change it?" stands for something the new name would
# compete with ("et le MFA ?" then asks about MFA, not how often to change it).
_OTHER_PRONOUN = re.compile(r"\b(?:it|its)\b", re.I)


def owned_by_the_one_named(question: str, previous_question: str) -> str | None:
    """Return a follow-up's "its" (or "does it") as the one thing the previous question named.

    "What is the Enterprise plan?" then "what's its response time for P2?" asks the
    Enterprise plan's, not every plan's; "What is the Basic plan?" then "how many devices
    does it cover?" asks how many the Basic plan covers. None when the message names a
    thing of its own (a code, "P2", is what it asks of it), when the previous question
    names none, several ("the SLA of the Business plan": which one "it" stands for is
    not said) or a code only, when "it" is what says ("what does it say about ...": a
    document), or when the message holds no such pronoun (:func:`with_the_owner_named`).
    """
    if any(_shape(n) == "name" for n in _names_in(question, sentence=True)):
        return None  # a code ("P2") is what is asked of it, not whose
    named = _names_in(previous_question, sentence=True)
    if len(named) != 1 or _shape(named[0]) != "name" or _SAYS.search(question):
        # A code ("S5", "P1") is a part or a kind more than a thing owned; "what does it
        # say about refunds?" asks what a document says, whatever the previous question
        # named.
        return None
    # The name with the noun it names ("Enterprise plan"), as the documents write it.
    after = re.search(rf"(?<![\w-]){re.escape(named[0])}\s+([a-z][\w-]*)", previous_question)
    noun = after[1] if after and fold(after[1]) not in STOPWORDS and terms(after[1]) else ""
    return with_the_owner_named(question, f"{named[0]} {noun}".strip())


# What a document does, not a thing: "what does it say / mention / state about ...".
_SAYS = re.compile(
    r"\b(?:it|its)\s+(?:say|says|mention|mentions|state|states|tell|tells)\b|"
    r"\b(?:does|did)\s+it\s+(?:say|mention|state|tell)\b",
    re.I,
)


def with_the_owner_named(question: str, owner: str) -> str | None:
    """Return an English question's one "its" (or "does it") as the thing it stands for.

    "what's its response time for P2?" asks the response time of a thing the message
    does not name; of the Enterprise plan it is "what's the Enterprise plan response time
    for P2?", and "does it cover" is "does the Enterprise plan cover". None when the
    question holds no such pronoun, or more than one (which one stands for the owner is
    not said).
    """
    if len(_OTHER_PRONOUN.findall(question)) != 1:
        return None
    owner = _LEADING.sub("", owner).strip()
    if _SUBJECT_PRONOUN.search(question):
        # "how many devices does it cover?": the subject after its auxiliary.
        return _SUBJECT_PRONOUN.sub(lambda m: f"{m['auxiliary']} the {owner}", question, count=1)
    if _POSSESSIVE_PRONOUN.search(question) is None:
        return None
    return _POSSESSIVE_PRONOUN.sub(lambda _: f"the {owner}", question, count=1)


def _asked_of(previous: str, ellipsis: EllipticalMessage) -> str | None:
    """Ask the previous question of a named thing it had no part for.

    "What happens if I miss the SLA?" then "et pour le plan Basic ?": the previous
    question names no plan to swap, so the plan is what it is now asked of ("What
    happens if I miss the SLA for the Basic plan?"); "is it water resistant?" then "and
    the iPhone?" asks it of the iPhone, the pronoun's place. Only a phrase that names
    something (a capitalised word or a code) of a shape the previous question has no
    name of: "What about refunds?" is a new subject.
    """
    core = ellipsis.core
    names = _names_in(core)
    if not names:
        return None
    shapes = {_shape(n) for n in names}
    if any(_shape(n) in shapes for n in _names_in(previous, sentence=True)):
        # "Does the iPhone 15 have USB-C?" then "and the Zenbook?": a name of the same
        # shape is there, so the phrase stands for one of them, and which is not said.
        return None
    english = re.search(r"[a-z]", previous) and not re.search(
        r"\b(?:le|la|les|du|des|est|quel|quelle|pour|un|une)\b", previous, re.I
    )
    phrase = _STANDS_FOR.sub("", ellipsis.phrase).strip()
    thing = _LEADING.sub("", phrase).strip()
    article = re.match(
        r"^(?:(?:for|on|pour|sur|de|du)\s+)?((?:the|le|la|les)\s+|l['’]\s*)", phrase, re.I
    )
    named = f"{article[1] if article else ''}{thing}"
    if _SUBJECT_PRONOUN.search(previous):
        return _SUBJECT_PRONOUN.sub(lambda m: f"{m['auxiliary']} {named}", previous, count=1)
    # "what's its response time for P2?" then "and for Business?": the thing named is
    # whose response time is asked, in the possessive's place.
    owned = with_the_owner_named(previous, thing) if english else None
    if owned is not None:
        return owned
    if _OTHER_PRONOUN.search(previous):
        return None
    asked = previous.rstrip(" ?!.")
    return f"{asked} {'for' if english else 'pour'} {named} ?".replace(
        " ?", "?" if english else " ?"
    )
