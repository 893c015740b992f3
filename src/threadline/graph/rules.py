"""A policy asked about X is a rule the documents state about X, not any mention of X.

"What is the travel policy?" asks for the rules on travel. The catalog's Dell XPS 13 is
"for professionals who travel often": a passage holding "travel", and no policy. "The
parental leave policy" names no thing to choose between either ("which parental?"):
the words before "policy" say what the rules are about. A passage states such rules
when what they are about is its heading or title ("Refunds and returns" for the return
policy, "Remote work" for "la politique de télétravail"), or when one of its sentences
holds all of it together with a word that makes a rule ("must", "may", "not allowed",
"doit", "interdit": "Brightwell employees must keep the VPN enabled" for the VPN
policy). A document of rules on something else ("must not leave their laptop") does
not answer "la politique de congé parental": no passage states a parental leave rule,
and the question is declined, naming the closest documents.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from threadline.graph.question_terms import matches_term
from threadline.knowledge.bilingual import (
    translate_passage_terms,
    translate_query,
    translate_vocabulary,
)
from threadline.text import fold, terms
from threadline.text.language import detect_language
from threadline.text.sentences import sentences
from threadline.text.tokenize import closed_terms

# The rules about X: "the travel policy", "our parental leave policy", "the rules for
# remote work", "la politique de congé parental", "les règles du télétravail".
# A procedure is stated as its steps ("File the form", "Hire a lawyer"), with no rule
# word: only policies, rules and guidelines are read here.
_KIND = r"(?:polic(?:y|ies)|rules|guidelines)"
_ENGLISH_BEFORE = re.compile(
    rf"\b(?:the|a|an|your|our|their|its|company|[a-z][\w-]*['’]s)\s+"
    rf"(?P<topic>(?:[a-z][\w'-]*\s+){{1,3}}?){_KIND}\b",
    re.I,
)
_ENGLISH_AFTER = re.compile(
    rf"\b{_KIND}\s+(?:on|for|about|regarding|of)\s+(?P<topic>[\w'-]+(?:\s+[\w'-]+){{0,2}})",
    re.I,
)
# A word of a French topic, and what joins its words: up to three of them, a complement
# of the noun counting its noun, not its "de" ("le remboursement des frais de
# déplacement" is about travel expenses, not about "remboursement des frais").
_FRENCH_WORD = r"(?!(?:en|à|a|si|pour|avec|par|dans|de|des|du|d|l|la|le|les|un|une)\b)[\w'’-]+"
_FRENCH_JOIN = r"(?:(?:de\s+la|des|du|de)\s+|(?:de\s+l|d)['’]\s*)"
_FRENCH = re.compile(
    r"\b(?:politiques?|r[èe]gles?|r[èe]glement)\s+"
    r"(?:de\s+l['’]|de\s+la\s+|du\s+|des\s+|de\s+|d['’]|sur\s+l['’]|sur\s+les?\s+|sur\s+la\s+|"
    r"en\s+mati[èe]re\s+de\s+|pour\s+l['’]|pour\s+les?\s+|pour\s+la\s+)"
    rf"(?P<topic>{_FRENCH_WORD}(?:\s+{_FRENCH_JOIN}?{_FRENCH_WORD}){{0,2}})",
    re.I,
)
# Where the topic ends: a place, a time, a condition ("the return policy in France").
_TOPIC_END = re.compile(r"\s+(?:in|at|on|for|of|when|if|en|à|au|si|pour)\b.*$", re.I)
# Words that make a sentence a rule: an obligation, a permission, a prohibition (read
# in the folded sentence).
_RULE = re.compile(
    r"\b(?:must|mustn't|should|shall|may|can|cannot|can't|required?|requires|allowed|"
    r"permitted|prohibited|forbidden|eligible|entitled|accepts?|never|always|"
    r"doit|doivent|devez|peut|peuvent|pouvez|interdite?s?|obligatoires?|autorisee?s?|"
    r"tenue?s?|jamais|toujours|accepte)\b",
    re.I,
)
# An English verb as written: a word after a modal, "to" or a negation ("must not
# leave", "to return"), and a word in "-ing" ("when leaving their desk").
_ENGLISH_VERB = re.compile(
    r"\b(?:must|mustn't|should|shall|may|might|can|cannot|can't|could|would|will|won't|"
    r"to|not|never|don't|doesn't)(?:\s+(?:not|never))?\s+[a-z][\w'-]*|\b[a-z][\w'-]*ing\b",
    re.I,
)


def _without_english_verbs(text: str, topic: str) -> str:
    """Return an English text with its verbs' words dropped, but the topic's own words.

    The rules on X are about a thing, which a sentence names with a noun: "leave" in
    "the leave policy" (« la politique de congés ») is no "must not leave their laptop"
    nor "when leaving their desk". A word in "-ing" the topic itself writes (a noun:
    "the training policy", "security training") is kept as written.
    """
    own = {fold(word) for word in re.findall(r"[\w'-]+", topic)}

    def kept(match: re.Match[str]) -> str:
        words = match.group().split()
        last = words[-1]
        if len(words) == 1 and fold(last) in own:
            return match.group()  # a noun in "-ing" the topic writes: "training"
        return " ".join(words[:-1])

    return _ENGLISH_VERB.sub(kept, text)


def policy_topic(question: str) -> str:
    """Return what the rules a question asks for are about ("travel"), or "".

    "What is the parental leave policy?" → "parental leave"; "la politique de congé
    parental" → "congé parental". A kind of text alone ("the policy"), or one named by a
    document's own title word ("the support policy" is "Brightwell support policy") is
    read by the evidence check as before: the caller decides that.
    """
    for pattern in (_ENGLISH_BEFORE, _ENGLISH_AFTER, _FRENCH):
        match = pattern.search(question)
        if match:
            topic = _TOPIC_END.sub("", match.group("topic")).strip(" ?.!,")
            if terms(topic):
                return topic
    return ""


def states_rules_about(
    topic: str, passage: Mapping[str, object], language: str | None = None
) -> bool:
    """Whether the passage states rules about the topic (see the module's docstring).

    Args:
        topic: What the rules are about (`policy_topic`).
        passage: A packed chunk (`title`, `section`, `text`).
        language: The question's language; a passage in another one is read through its
            words' and phrases' translations, sentence by sentence.
    """
    wanted = terms(topic)
    if not wanted:
        return True
    text = str(passage.get("text", ""))
    frame = f"{passage.get('title', '')}. {passage.get('section', '')}"
    written = detect_language(f"{passage.get('title', '')} {text}") if language else None
    across = bool(language and written and written != language)

    def vocabulary(words: str) -> tuple[set[str], set[str]]:
        # As written, and in translation: a translated word is taken as it is, not in
        # its near forms ("leave" gives "partent", which is no "parent").
        if (written or detect_language(words)) == "en":
            words = _without_english_verbs(words, topic)
        native = set(terms(words)) | set(closed_terms(words))
        translated: set[str] = set()
        if across:
            assert language and written
            translated |= translate_vocabulary(native, written, language)
            translated |= translate_passage_terms(words, written, language)
            translated |= set(terms(translate_query(words, written, language)))
        return native, translated

    def holds_all(found: tuple[set[str], set[str]]) -> bool:
        native, translated = found
        return all(word in translated or matches_term(word, native) for word in wanted)

    if holds_all(vocabulary(frame)):
        return True
    return any(
        _RULE.search(fold(sentence)) is not None and holds_all(vocabulary(sentence))
        for sentence in sentences(text)
    )


def passages_stating_rules(
    topic: str, passages: Sequence[Mapping[str, object]], language: str | None = None
) -> list[str]:
    """Return the labels of the passages that state rules about the topic."""
    return [str(p["label"]) for p in passages if states_rules_about(topic, p, language)]


def states_rules(passage: Mapping[str, object]) -> bool:
    """Whether a sentence of the passage makes a rule (about anything)."""
    return any(_RULE.search(fold(s)) is not None for s in sentences(str(passage.get("text", ""))))


def closest_rule_titles(passages: Sequence[Mapping[str, object]], limit: int = 3) -> list[str]:
    """Return the titles a declined policy names first: documents that state rules.

    "What is the travel policy?" over no travel rules: the handbook and the support
    policy are where a policy would be, not the product catalog that says "travel".
    Then the other titles, in the passages' order.
    """
    ruled = [str(p.get("title") or "") for p in passages if states_rules(p)]
    others = [str(p.get("title") or "") for p in passages]
    return [t for t in dict.fromkeys([*ruled, *others]) if t][:limit]
