"""Language data for follow-up detection, kept apart from the code that uses it.

Every word list the resolver, the anaphora check and the follow-up heuristics need lives
here, one :class:`Lexicon` per language in :data:`LEXICONS`. The matching code in
:mod:`threadline.followups.references` only ever iterates over these entries, so supporting
a third language means adding one ``LEXICONS["de"] = Lexicon(...)`` entry and nothing else.

Entries may be written naturally (accents, hyphens, typographic apostrophes): the matcher
folds case, strips accents and turns hyphens into spaces on both sides before comparing,
so ``"dis-m'en plus"`` also matches ``"Dis-m’en plus"`` and ``"dis m'en plus"``.
Multi-word entries are phrases matched as consecutive words.
"""

from __future__ import annotations

from dataclasses import dataclass

DEFAULT_LANGUAGE = "en"
"""Language assumed when nothing in a text points to another one."""


@dataclass(frozen=True, eq=False)
class Lexicon:
    """The words of one language that follow-up handling looks for.

    Identity equality (``eq=False``) keeps instances hashable although they hold dicts,
    so compiled patterns can be cached per lexicon.

    Attributes:
        code: ISO 639-1 code, the key of the entry in :data:`LEXICONS`.
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
        choice_words: Interrogatives that choose among earlier items ("which", "lequel").
        question_words: Words that give a sentence a question shape.
        politeness: Courtesy words with no content ("please", "stp").
        topic_nouns: Generic nouns users put before a section's title ("the *aspect* of").
        stopwords: Function words; also the vote in language detection.
        marker_chars: Characters typical of the language in running text, a weak vote in
            language detection (accented letters for French).
    """

    code: str
    section_nouns: tuple[str, ...] = ()
    point_nouns: tuple[str, ...] = ()
    document_nouns: tuple[str, ...] = ()
    ordinal_words: dict[str, int] | None = None
    ordinal_modifiers: tuple[str, ...] = ()
    cardinal_words: dict[str, int] | None = None
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
    choice_words: tuple[str, ...] = ()
    question_words: tuple[str, ...] = ()
    politeness: tuple[str, ...] = ()
    topic_nouns: tuple[str, ...] = ()
    stopwords: tuple[str, ...] = ()
    marker_chars: str = ""


# The word lists stay packed several to a line: one word per line (what the formatter
# would make of them) turns each list into a hundred-line column nobody can review.
# fmt: off
ENGLISH = Lexicon(
    code="en",
    section_nouns=("section", "sections", "part", "parts", "chapter", "chapters", "§"),
    point_nouns=(
        "point", "points", "item", "items", "bullet", "bullets", "bullet point",
        "bullet points", "aspect", "aspects", "topic", "topics", "heading", "headings",
    ),
    document_nouns=(
        "source", "sources", "document", "documents", "doc", "docs", "reference",
        "references", "file", "files", "result", "results",
    ),
    ordinal_words={
        "first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5, "sixth": 6,
        "seventh": 7, "eighth": 8, "ninth": 9, "tenth": 10,
        "last": -1, "final": -1, "closing": -1,
        "penultimate": -2, "second to last": -2, "second last": -2, "next to last": -2,
        "last but one": -2,
    },
    ordinal_modifiers=("main", "key", "major", "big", "sub", "bullet"),
    cardinal_words={
        "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
        "eight": 8, "nine": 9, "ten": 10,
    },
    ordinal_suffixes=("st", "nd", "rd", "th"),
    number_markers=("number", "num", "no", "nr", "#"),
    definite_articles=("the",),
    indefinite_articles=("a", "an"),
    one_words=("one", "ones"),
    of_words=("of",),
    route_words=("from", "to", "towards", "toward", "till", "until"),
    elaboration=(
        "detail", "details", "detailed", "in detail", "in more detail", "more detail",
        "more details", "expand", "expand on", "expand upon", "elaborate", "elaborate on",
        "tell me more", "tell us more", "tell me about", "more about", "more on",
        "go deeper", "go deeper into", "go deeper on", "dig deeper", "dig into",
        "dive deeper", "dive into", "deep dive", "say more", "explain", "clarify",
        "develop", "unpack", "break down", "walk me through", "go on", "continue",
        "keep going", "zoom in", "zoom in on", "drill down", "drill into", "flesh out",
        "more info", "more information", "further", "go into", "give me the details",
    ),
    reference_verbs=(
        "say", "says", "said", "cover", "covers", "mean", "means", "contain", "contains",
        "include", "includes", "discuss", "discusses", "mention", "mentions", "describe",
        "describes", "summarize", "summarise", "show", "shows", "list", "lists", "talk",
        "talks", "state", "states", "behind", "refer", "refers", "address", "addresses",
    ),
    anaphora=(
        "that", "this", "it", "those", "these", "them", "that one", "this one",
        "the above", "above", "the latter", "the former", "all that", "all of that",
        "that point", "this point", "that part", "this part", "that section",
        "this section", "that topic", "this topic", "that aspect", "this aspect",
        "what you said", "your answer", "your last answer",
    ),
    back_references=(
        "it", "its", "they", "them", "their", "theirs", "he", "she", "him", "her",
        "that one", "this one", "these ones", "those ones", "the latter", "the former",
        "the same", "the other", "the other one", "the others", "those", "these",
    ),
    followup_cues=(
        "and for", "and what about", "what about", "how about", "and the", "and in",
        "and on", "and with", "and if", "and regarding", "and about", "same for",
        "same question for", "same thing for", "what of", "as for", "regarding",
        "how does that compare", "compared to", "compared with", "in comparison",
        "tell me more about", "instead", "rather", "and also", "what else",
    ),
    leading_conjunctions=("and", "but", "also", "so", "then", "or", "plus"),
    comparatives=(
        "cheaper", "more expensive", "less expensive", "better", "worse", "best", "worst",
        "faster", "slower", "bigger", "smaller", "larger", "lighter", "heavier", "newer",
        "older", "cheapest", "higher", "lower", "longer", "shorter", "stronger", "weaker",
        "more", "less", "most", "least",
    ),
    choice_words=("which", "which one", "which ones"),
    question_words=(
        "what", "which", "who", "whom", "whose", "how", "why", "when", "where", "is",
        "are", "does", "do", "did", "can", "could", "should", "would", "will",
    ),
    politeness=(
        "please", "pls", "plz", "thanks", "thank you", "kindly", "if you can",
        "if possible",
    ),
    topic_nouns=(
        "aspect", "side", "topic", "subject", "theme", "area", "matter", "issue", "bit",
        "one", "thing", "stuff", "question", "part", "passage", "paragraph", "bits",
    ),
    stopwords=(
        "a", "an", "the", "this", "that", "these", "those", "it", "its", "of", "on", "in",
        "into", "onto", "to", "for", "from", "with", "about", "at", "by", "as", "and",
        "or", "but", "so", "then", "also", "too", "is", "are", "was", "were", "be", "been",
        "being", "do", "does", "did", "can", "could", "would", "should", "will", "shall",
        "may", "might", "must", "have", "has", "had", "i", "me", "my", "we", "us", "our",
        "you", "your", "he", "she", "him", "her", "they", "them", "their", "what", "which",
        "who", "whom", "how", "why", "when", "where", "there", "here", "some", "any",
        "more", "most", "much", "many", "very", "just", "again", "one", "ones", "s", "d",
        "ll", "re", "ve", "m", "t", "not", "no", "yes", "ok", "okay", "now", "please",
        "like", "want", "need", "give", "get", "let", "lets", "bit", "little", "exactly",
        "really", "further", "else", "all", "same", "other", "something", "anything",
        "go", "say", "tell", "say", "regarding", "re", "vs", "versus", "than", "between",
        "within", "behind", "over", "under", "what's", "whats", "is there", "anyway",
    ),
)

FRENCH = Lexicon(
    code="fr",
    section_nouns=(
        "section", "sections", "partie", "parties", "chapitre", "chapitres",
        "sous-partie", "sous-parties", "§",
    ),
    point_nouns=(
        "point", "points", "item", "items", "élément", "éléments", "aspect", "aspects",
        "volet", "volets", "axe", "axes", "rubrique", "rubriques", "thème", "thèmes",
        "sujet", "sujets", "puce", "puces",
    ),
    document_nouns=(
        "source", "sources", "document", "documents", "doc", "docs", "référence",
        "références", "fichier", "fichiers", "résultat", "résultats",
    ),
    ordinal_words={
        "premier": 1, "première": 1, "deuxième": 2, "second": 2, "seconde": 2,
        "troisième": 3, "quatrième": 4, "cinquième": 5, "sixième": 6, "septième": 7,
        "huitième": 8, "neuvième": 9, "dixième": 10,
        "dernier": -1, "dernière": -1, "ultime": -1,
        "avant-dernier": -2, "avant-dernière": -2, "pénultième": -2,
    },
    ordinal_modifiers=("grand", "grande", "gros", "principal", "principale", "sous"),
    # "un"/"une" are left out: "la section un peu longue" is far more common than
    # "la section un".
    cardinal_words={
        "deux": 2, "trois": 3, "quatre": 4, "cinq": 5, "six": 6,
        "sept": 7, "huit": 8, "neuf": 9, "dix": 10,
    },
    # "2nd"/"2nde" are French too ("2nd point", "2nde partie").
    ordinal_suffixes=("er", "re", "ère", "e", "ème", "ième", "eme", "ieme", "nd", "nde"),
    number_markers=("numéro", "num", "no", "n", "#"),
    definite_articles=("le", "la", "l'", "les", "du", "au", "aux", "de la", "à la"),
    indefinite_articles=("un", "une"),
    one_words=(),
    of_words=("de", "d"),
    route_words=(
        "de", "du", "depuis", "à", "au", "aux", "vers", "jusqu'à", "jusqu'au", "jusque",
    ),
    elaboration=(
        "développe", "développer", "développez", "développes", "détaille", "détailler",
        "détaillez", "détailles", "détail", "détails", "précise", "préciser", "précisez",
        "approfondis", "approfondir", "approfondissez", "explique", "expliquer",
        "expliquez", "explicite", "expliciter", "parle-moi de", "parle moi de",
        "parlez-moi de", "parle-moi du", "parlez-moi du", "parle-moi des", "dis-m'en plus",
        "dites-m'en plus", "dis m'en plus", "en dire plus", "dis-moi en plus",
        "plus de détails", "plus de détail", "plus d'infos", "plus d'informations",
        "plus de précisions", "en savoir plus", "davantage", "creuse", "creuser",
        "creusez", "élabore", "élaborer", "continue", "continuez", "vas-y", "allez-y",
        "va plus loin", "aller plus loin", "allons plus loin", "plus en détail",
        "entre dans le détail", "rentre dans le détail", "zoome sur", "zoom sur",
        "éclaire-moi", "clarifie", "clarifier", "reviens sur", "revenons sur",
        "donne-moi le détail", "donne le détail", "le détail de", "en détail",
        "dis-m'en davantage", "raconte-moi", "raconte",
    ),
    reference_verbs=(
        "dit", "disent", "dire", "couvre", "contient", "signifie", "veut dire", "inclut",
        "comprend", "mentionne", "décrit", "aborde", "traite", "résume", "résumer",
        "récapitule", "parle", "cite", "indique", "derrière", "concerne", "recouvre",
    ),
    anaphora=(
        "ça", "cela", "ceci", "celui-ci", "celle-ci", "celui-là", "celle-là", "là-dessus",
        "dessus", "le", "la", "les", "l'", "en", "y", "tout ça", "tout cela",
        "ce point", "cette partie", "cette section", "ce sujet", "ce volet", "cet aspect",
        "ce thème", "ce que tu as dit", "ce que vous avez dit", "ta réponse",
        "votre réponse",
    ),
    back_references=(
        "il", "elle", "ils", "elles", "celui", "celle", "ceux", "celles", "celui-ci",
        "celle-ci", "ceux-ci", "celles-ci", "celui-là", "celle-là", "ce dernier",
        "cette dernière", "ces derniers", "ces dernières", "l'autre", "les autres",
        "le même", "la même", "les mêmes", "son", "sa", "ses", "leur", "leurs", "lui",
        "ça", "cela",
    ),
    followup_cues=(
        "et pour", "et concernant", "et le", "et la", "et les", "et l'", "et en", "et sur",
        "et si", "et avec", "et du", "et des", "et dans", "et côté", "qu'en est-il",
        "qu'en est il", "quid de", "et quid", "pareil pour", "idem pour",
        "même question pour", "côté", "concernant", "à propos de", "au sujet de",
        "en ce qui concerne", "par rapport à", "comparé à", "en comparaison", "plutôt",
        "et sinon", "et à part", "quant à", "parle-moi de", "dis-m'en plus",
    ),
    leading_conjunctions=("et", "mais", "aussi", "puis", "alors", "donc", "ou", "sinon"),
    comparatives=(
        "moins cher", "moins chère", "plus cher", "plus chère", "meilleur", "meilleure",
        "mieux", "pire", "plus rapide", "plus lent", "plus grand", "plus petit",
        "plus récent", "plus ancien", "plus", "moins", "le plus", "le moins",
    ),
    choice_words=("lequel", "laquelle", "lesquels", "lesquelles"),
    question_words=(
        "quel", "quelle", "quels", "quelles", "qui", "que", "qu", "quoi", "comment",
        "pourquoi", "quand", "où", "combien", "est-ce", "qu'est-ce",
    ),
    politeness=(
        "stp", "svp", "s'il te plaît", "s'il vous plaît", "s'il te plait",
        "s'il vous plait", "merci", "please", "steuplé", "si possible",
    ),
    topic_nouns=(
        "aspect", "volet", "sujet", "thème", "thématique", "question", "domaine", "côté",
        "chose", "truc", "partie", "point", "passage", "paragraphe", "histoire",
    ),
    stopwords=(
        "le", "la", "les", "l", "un", "une", "des", "du", "de", "d", "au", "aux", "à",
        "a", "et", "ou", "mais", "donc", "or", "ni", "car", "en", "y", "dans", "sur",
        "sous", "pour", "par", "avec", "sans", "chez", "entre", "vers", "ce", "cet",
        "cette", "ces", "c", "ça", "cela", "ceci", "je", "j", "tu", "il", "elle", "on",
        "nous", "vous", "ils", "elles", "me", "m", "te", "t", "se", "s", "moi", "toi",
        "lui", "leur", "leurs", "mon", "ma", "mes", "ton", "ta", "tes", "son", "sa",
        "ses", "notre", "nos", "votre", "vos", "qui", "que", "qu", "quoi", "quel",
        "quelle", "quels", "quelles", "est", "sont", "était", "être", "ai", "as", "avons",
        "avez", "ont", "avoir", "fait", "faire", "fais", "peux", "peut", "pouvez",
        "pourrais", "pourriez", "veux", "voudrais", "aimerais", "plus", "moins", "très",
        "bien", "aussi", "encore", "peu", "tout", "tous", "toute", "toutes", "ne", "pas",
        "n", "oui", "non", "stp", "svp", "merci", "ici", "là", "alors", "puis", "donne",
        "donnez", "dis", "dites", "parle", "parlez", "concernant", "propos", "niveau",
        "exactement", "vraiment", "davantage", "comment", "pourquoi", "quand", "où",
        "combien", "quid", "il y a", "y a t il", "est ce que", "qu'est ce que",
    ),
    marker_chars="éèêëàâçîïôûùœ",
)

# fmt: on

LEXICONS: dict[str, Lexicon] = {
    ENGLISH.code: ENGLISH,
    FRENCH.code: FRENCH,
}
"""Every supported language, by code. Add an entry here to support another language."""
