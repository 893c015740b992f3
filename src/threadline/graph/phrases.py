"""A phrase the lexicon translates whole, read in a passage written in another language.

"le prix de l'action" is the stock price: one thing, a price of a share. Read word by
word, each French word finds some sense of its own in an English passage: « prix » in
"published prices", « action » in "never share a password" (the verb "share"), and the
handbook was quoted for a stock price it never gives. A noun with its complement (« de
l'action », « de réponse ») names the head of what the complement says: a price of
nothing in particular is no stock price, so the head of the translation alone ("price")
is no evidence either. Such a phrase is held where the passage holds its translation
("stock" and "price"; "response" and "time" in the "Response times" section), or where
one of its sentences holds every word of the phrase. A phrase whose other words only
qualify its head (« congés payés », paid leave; « double authentification ») is still
held by that head, a kind of the thing asked (`evidence.decide`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from threadline.knowledge.bilingual import translate_passage_terms, translate_vocabulary
from threadline.text import terms
from threadline.text.matching import matches_term
from threadline.text.sentences import sentences

# The words that join a noun to its complement, as the lexicon's phrases are folded
# ("prix de action", "delai de reponse", "taux d interet").
_COMPLEMENT_JOINS = frozenset({"de", "d", "du", "des"})


def joins_a_complement(phrase: str) -> bool:
    """Whether a folded French phrase is a noun with its complement ("prix de action")."""
    words = phrase.split()
    return any(word in _COMPLEMENT_JOINS for word in words[1:-1])


def holds_noun_and_complement(
    group: Sequence[str],
    translation: Sequence[str],
    passage: Mapping[str, object],
    written: str,
    asked: str,
) -> bool:
    """Whether a passage in another language holds a noun with its complement.

    Args:
        group: The phrase's terms the question asks (`terms` of its words).
        translation: The words of the phrase's translation ("stock", "price").
        passage: The packed chunk (`title`, `section`, `text`).
        written: The passage's language.
        asked: The question's language.

    Returns:
        True when the passage holds every word of the translation, or one of its
        sentences holds every word of the phrase (through the sentence's translations).
    """
    # The translation is in the passage's language: read in its own words, not in their
    # translations ("stock" is no « stockage », the storage a phone's page states).
    frame = f"{passage.get('title', '')}. {passage.get('section', '')}"
    written_words = set(terms(f"{frame}. {passage.get('text', '')}"))
    translated = [t for word in translation for t in terms(word)]
    if translated and all(matches_term(t, written_words) for t in translated):
        return True
    for sentence in sentences(str(passage.get("text", ""))):
        own = set(terms(sentence))
        read = (
            own
            | translate_vocabulary(own, written, asked)
            | translate_passage_terms(sentence, written, asked)
        )
        if all(matches_term(t, read) for t in group):
            return True
    return False
