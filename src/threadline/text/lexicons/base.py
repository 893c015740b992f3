"""The shape of a language's follow-up lexicon: the words follow-up handling looks for.

One :class:`Lexicon` per language lives in that language's module
(:mod:`threadline.text.lexicons.en`, :mod:`threadline.text.lexicons.fr`); the matcher in
:mod:`threadline.followups.matching` only ever iterates over their entries.

Entries may be written naturally (accents, hyphens, typographic apostrophes): the matcher
folds them with :func:`threadline.text.normalize.fold_with_origin` on both sides before
comparing, so ``"dis-m'en plus"`` also matches ``"Dis-m’en plus"`` and ``"dis m'en
plus"``. Multi-word entries are phrases matched as consecutive words.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["Lexicon"]


@dataclass(frozen=True, eq=False)
class Lexicon:
    """The words of one language that follow-up handling looks for.

    Identity equality (``eq=False``) keeps instances hashable although they hold dicts,
    so compiled patterns can be cached per lexicon.

    Attributes:
        code: ISO 639-1 code, the key of the entry in :data:`threadline.text.lexicons.LEXICONS`.
        section_nouns: Nouns that, followed by a number, name an outline id directly
            ("section 2", "partie 2", "§2") — resolved as ref_type ``section``.
        point_nouns: Nouns that, followed by a number, count items of the outline
            ("point 2", "item 3") — resolved as ref_type ``ordinal``.
        document_nouns: Nouns designating the previous answer's sources by rank.
        ordinal_words: Ordinal word to rank; negative ranks count from the end
            (-1 = last, -2 = second to last).
        ordinal_modifiers: Words allowed between an ordinal and its noun
            ("the second *main* point"); anything else breaks the reference, which keeps
            "the second largest city" out.
        cardinal_words: Number words accepted after a noun ("section two").
        step_words: Words that move from the section the previous turn pointed at
            ("the next one" = +1, "la précédente" = -1).
        ordinal_suffixes: Suffixes that make a digit an ordinal ("2nd", "2e", "2ème").
        number_markers: Words allowed between a noun and its number ("point n° 2").
        definite_articles: Determiners that may introduce a bare ordinal ("the second",
            "la deuxième"); entries ending in an apostrophe are elided forms.
        indefinite_articles: Articles that mark a following token as a name, not a
            reference ("an S3 bucket"); compared with accents kept, so French "à" never
            counts as English "a".
        one_words: Pronoun-nouns standing for an item ("the second one", "the Samsung one").
        of_words: Prepositions after which a content word turns "the first source" into
            something else ("the first source of revenue").
        route_words: Words introducing each end of a trip, which makes two letter
            points a route rather than references ("from point A to point B").
        elaboration: Requests to say more ("tell me more", "détaille", "go deeper").
        reference_verbs: Verbs that commonly take a section as subject or object
            ("what does S2 cover", "que dit S3").
        anaphora: Words pointing back at the previous answer as a whole ("that", "ça").
        back_references: Pronouns and phrases that lean on the previous turn for their
            meaning ("it", "they", "celui-ci", "ce dernier").
        followup_cues: Phrases that continue a previous question ("what about", "et pour").
        leading_conjunctions: Words that, opening a question, attach it to the last one.
        comparatives: Comparison words that need a subject from context ("cheaper").
        measure_units: Units a quantity is counted in ("days", "heures", "dollars"): a
            question whose only content words are these ("how many days do I have?")
            asks a measure of something it does not name.
        choice_words: Interrogatives that choose among earlier items ("which", "lequel").
        question_words: Words that give a sentence a question shape.
        politeness: Courtesy words with no content ("please", "stp").
        topic_nouns: Generic nouns users put before a section's title ("the *aspect* of").
        stopwords: Function words; also the vote in language detection.
        marker_chars: Characters typical of the language in running text, a weak vote in
            language detection (accented letters for French).
        elisions: Word-initial forms elided before a vowel ("d'", "l'", "qu'"), each a
            vote in language detection wherever it occurs: "d'autres jeux ?" is French
            although "d" alone is also the English "I'd".
    """

    code: str
    section_nouns: tuple[str, ...] = ()
    point_nouns: tuple[str, ...] = ()
    document_nouns: tuple[str, ...] = ()
    ordinal_words: dict[str, int] | None = None
    ordinal_modifiers: tuple[str, ...] = ()
    cardinal_words: dict[str, int] | None = None
    step_words: dict[str, int] | None = None
    ordinal_suffixes: tuple[str, ...] = ()
    number_markers: tuple[str, ...] = ()
    definite_articles: tuple[str, ...] = ()
    indefinite_articles: tuple[str, ...] = ()
    one_words: tuple[str, ...] = ()
    of_words: tuple[str, ...] = ()
    route_words: tuple[str, ...] = ()
    elaboration: tuple[str, ...] = ()
    reference_verbs: tuple[str, ...] = ()
    anaphora: tuple[str, ...] = ()
    back_references: tuple[str, ...] = ()
    followup_cues: tuple[str, ...] = ()
    leading_conjunctions: tuple[str, ...] = ()
    comparatives: tuple[str, ...] = ()
    measure_units: tuple[str, ...] = ()
    choice_words: tuple[str, ...] = ()
    question_words: tuple[str, ...] = ()
    politeness: tuple[str, ...] = ()
    topic_nouns: tuple[str, ...] = ()
    stopwords: tuple[str, ...] = ()
    marker_chars: str = ""
    elisions: tuple[str, ...] = ()
