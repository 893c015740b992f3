"""French: the words text handling looks for in French text.

* :data:`SEARCH_STOPWORDS`: function words the sparse index drops.
* :data:`AUXILIARY_FORMS`: forms of auxiliaries and modal verbs query translation skips.
* Grammar query translation reads: :data:`DEFINITE_DETERMINERS` and
  :data:`SYNTHETIC_COMPARATIVES` (degrees), :data:`MANAGING_VERBS`,
  :data:`NEGATION_ADVERBS` and :data:`OBJECT_PRONOUNS` ("je n'arrive pas à me connecter").
* :data:`FOLLOWUPS`: the follow-up lexicon (references, anaphora, follow-up cues, and the
  stopwords that vote in language detection).
* Routing: :data:`SMALL_TALK`, :data:`THANKS`, :data:`GOODBYES`, :data:`DELIVERABLE`.
* Topic-free words: :data:`REQUEST_WORDS` (reformulation), :data:`GENERIC_WORDS` (the
  evidence check).
* A model's rewrite that is no query: :data:`REWRITE_REFUSALS`, :data:`REWRITE_CHATTER`.

The two stopword lists differ on purpose (see :mod:`threadline.text.lexicons.en`): the
index's list leaves out words whose folded form is an English content word ("son",
"car", "plus"), the follow-up list includes them.
"""

from __future__ import annotations

from threadline.text.lexicons.base import Lexicon

__all__ = [
    "ACRONYMS",
    "AIM_WORDS",
    "AUXILIARY_FORMS",
    "CLIPPED_NOUNS",
    "CLIPPED_WORDS",
    "DEFINITE_DETERMINERS",
    "DEGREE_ADVERBS",
    "DELIVERABLE",
    "FOLLOWUPS",
    "FUNCTION_WORDS",
    "GENERIC_WORDS",
    "GOODBYES",
    "MANAGING_VERBS",
    "NOUN_DETERMINERS",
    "NEGATED_VERBS",
    "NEGATION_ADVERBS",
    "OBJECT_PRONOUNS",
    "PREPOSITIONS",
    "FUTURE_MARKERS",
    "PAST_MARKERS",
    "REQUEST_WORDS",
    "REWRITE_CHATTER",
    "REWRITE_REFUSALS",
    "SAME_SENSE",
    "NARROWER_SENSE",
    "REQUEST_VERB_NOUNS",
    "SEARCH_STOPWORDS",
    "SMALL_TALK",
    "ABOUT_THE_ASSISTANT",
    "SYNTHETIC_COMPARATIVES",
    "THANKS",
]

# Deliberately absent because the folded French form is an English content word (or an
# acronym) that retrieval must keep: "son", "ton", "car", "plus", "ai" (AI), "eu" (EU),
# "ca" (ça / CA certificate), "es", "bien", "non".
SEARCH_STOPWORDS: frozenset[str] = frozenset(
    """
a au aux avec ce ceci cela celle celles celui ces cet cette ceux chaque chez combien comme
comment dans de depuis des donc dont du elle elles en encore entre et etaient etait etant
eux il ils je la laquelle le lequel les lesquelles lesquels leur leurs lors lorsque lui ma
mais me meme mes moi mon ne ni nos notre nous on ont or ou par parce pas pendant pour
pourquoi puis puisque qu quand que quel quelle quelles quels qui quoi sa sans se selon ses
si sont sous suis sur ta te tes toi tous tout toute toutes tres tu un une vers vos votre
vous y
environ
avait avaient avez avoir avons aura auront aurait ete etre sera seront serait sommes etes fut
jusqu lorsqu puisqu quoiqu c j l n
""".split()
)
"""French function words dropped from index terms, in folded form. "environ" (about) is
one of them although the folded list above leaves most adverbs in: English stemming makes
"environment" "environ", so « recruter environ 300 personnes » answered "What does
Brightwell do for the environment?"."""

# Forms of the auxiliaries and modal verbs that carry no topic, beyond the stopwords the
# index drops (those must stay as they are: they decide the indexed terms).
AUXILIARY_FORMS: frozenset[str] = frozenset(
    """
    est es suis sommes sont etais etait etions etaient serai sera seront serait
    ai as avons avez ont avais avait avaient aurai aura auront aurait eu
    fais fait faisons faites font faire dois doit devons devez doivent devrait devrais
    peux peut pouvons pouvez peuvent pourrait pourrais veux veut voulons voulez veulent
    voudrais voudrait faut va vais vont allez allons ca ceci cela voici voila
    """.split()
)
"""Folded auxiliary and modal forms, which query translation skips (in both directions)."""

# Closed classes of French grammar the index's stopwords leave out (prepositions, adverbs
# of time, place and degree, indefinite pronouns and determiners, conjunctions): kept as
# typed, they would be French words in an English query.
PREPOSITIONS: frozenset[str] = frozenset(
    "apres avant aupres contre parmi malgre durant envers hormis sauf outre via".split()
)
"""Folded French prepositions the index keeps: no topic of a question (English stopwords
hold "after", "before", "against", "during"), so the evidence check reads none of them."""

CLIPPED_WORDS: dict[str, tuple[str, ...]] = {
    "pro": ("professionnel",),
    "pros": ("professionnels",),
    "mdp": ("mot", "de", "passe"),
    # SMS spellings of question and function words ("c koi", "pk", "cmt").
    "koi": ("quoi",),
    "pk": ("pourquoi",),
    "pq": ("pourquoi",),
    "cmt": ("comment",),
    "qd": ("quand",),
    "tjrs": ("toujours",),
    "bcp": ("beaucoup",),
}
"""Folded French clippings, abbreviations and SMS spellings of everyday writing ("mon
téléphone pro", "mon mdp", "c koi"), with the words they stand for, read before the
lexicon's phrases ("téléphone professionnel" = company phone); clippings the lexicon holds
as words of their own ("ordi", "appli", "dispo") are not repeated here."""

# Clippings that are French words of their own elsewhere ("tel que", "un tel projet"):
# after a possessive or a definite article a noun is meant ("son tel pro" is a phone).
CLIPPED_NOUNS: dict[str, tuple[str, ...]] = {
    "tel": ("telephone",),
    "tels": ("telephones",),
}
"""Folded clipped nouns read as their words after `NOUN_DETERMINERS` only."""

NOUN_DETERMINERS: frozenset[str] = frozenset(
    "mon ton son ma ta sa mes tes ses notre votre nos vos leur leurs le les du des au aux "
    "quel quels".split()
)
"""Folded determiners after which a word is a noun, not an adjective ("son tel", "quel tel")."""

ACRONYMS: dict[str, str] = {
    "CA": "chiffre d'affaires",
    "RH": "ressources humaines",
    "PDG": "président-directeur général",
    "DG": "directeur général",
    "SAV": "service après-vente",
    "DPO": "délégué à la protection des données",
    "TTC": "toutes taxes comprises",
    "HT": "hors taxes",
}
"""French acronyms of everyday business writing, typed in capitals, with the words they
stand for: "la part du CA" is the report's "chiffre d'affaires". Read only where the index
does not hold the acronym itself (a document using "CA" says what it means by it), and
only in capitals ("ça" folds to "ca")."""

NEGATED_VERBS: dict[str, str] = {
    "respect": "manquer",  # "le SLA n'est pas respecté": missed
    "fonction": "panne",  # "le portail ne fonctionne pas": a failure, an outage
}
"""French verbs (by their French stem) whose negation a document writes as another word,
with that word (an infinitive or a noun the lexicon holds): "n'est pas respecté" is what
the support policy calls "misses". Read on the French side only, never through the
bilingual lexicon, which is also read backwards: an entry "pas respecté = missed" would
make every English "missed" a "respecté"."""

DEGREE_ADVERBS: frozenset[str] = frozenset("trop tant tellement plutot guere".split())
"""Folded French adverbs of degree ("pas trop cher"): no topic of a question, as the
English stopwords "too", "so" and "rather" are none."""

FUNCTION_WORDS: frozenset[str] = (
    PREPOSITIONS
    | DEGREE_ADVERBS
    | frozenset(
        """
    ainsi alors aussi aussitot autant deja desormais dorenavant ensuite enfin ici
    partout ailleurs dessus dessous dedans dehors loin pres environ presque assez
    trop tant tellement beaucoup peu guere plutot surtout notamment seulement
    toujours jamais souvent parfois quelquefois bientot tot tard hier demain
    aujourd hui maintenant actuellement cependant pourtant toutefois neanmoins
    sinon lorsque puisque quoique tandis afin
    quelque quelques quelqu quiconque chacun chacune aucun aucune nul nulle
    plusieurs certains certaines autrui rien
    celui celle ceux celles lequel laquelle lesquels lesquelles auquel auxquels
    duquel desquels dont oui non si
    """.split()
    )
)
"""Folded French function words that query translation drops when the lexicon lacks them
(rather than keep them as typed)."""

# ------------------------------------------------------------- degrees and managing

DEFINITE_DETERMINERS: frozenset[str] = frozenset(
    """
    le la les du des au aux mon ma mes ton ta tes son sa ses notre nos votre vos leur leurs
    """.split()
)
"""Folded determiners that make "plus grand" or "meilleur" a superlative ("le plus
grand")."""

# Comparatives of their own (of "bon", "mauvais"), whose English degree changes with the
# article: "un meilleur prix" is a better price, "le meilleur" the best.
SYNTHETIC_COMPARATIVES: frozenset[str] = frozenset({"meilleur", "pire"})
"""Folded French synthetic comparatives."""

# Followed by "à" and an infinitive, these say whether the asker manages, as "can" does in
# English, and the infinitive carries the topic ("je n'arrive pas à me connecter").
MANAGING_VERBS: frozenset[str] = frozenset(
    """
    arrive arrives arrivons arrivez arrivent arrivais arrivait arrivions arriviez arrivaient
    arriverai arrivera arriverons arriverez arriveront arriverais arriverait arriver
    reussis reussit reussissons reussissez reussissent reussissais reussissait reussirai
    reussira reussirais reussirait reussir reussi
    parviens parvient parvenons parvenez parviennent parvenais parvenait parviendrai
    parviendra parviendrais parviendrait parvenir parvenu
    """.split()
)
"""Folded forms of the verbs of managing ("arriver à", "réussir à", "parvenir à")."""

NEGATION_ADVERBS: frozenset[str] = frozenset({"pas", "plus", "jamais", "toujours", "vraiment"})
"""What may stand between a verb of managing and its "à" ("je n'arrive pas à")."""

OBJECT_PRONOUNS: frozenset[str] = frozenset(
    "me te se le la les l y en lui leur nous vous m t s".split()
)
"""Folded object pronouns, which may stand between "à" and its infinitive ("à me
connecter")."""

# Units of time: what a quantity is counted in ("combien de jours ?", `measure_units`
# below) and what a frequency is counted in ("tous les 3 mois", `facts`) read this list.
TIME_UNITS: tuple[str, ...] = (
    "seconde", "secondes", "minute", "minutes", "heure", "heures", "jour", "jours",
    "semaine", "semaines", "mois", "trimestre", "trimestres", "an", "ans", "année",
    "années",
)  # fmt: skip

# fmt: off
FOLLOWUPS = Lexicon(
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
    step_words={
        "suivant": 1, "suivante": 1, "prochain": 1, "prochaine": 1, "précédent": -1,
        "précédente": -1,
    },
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
    measure_units=(
        *TIME_UNITS, "temps", "fois", "dollar", "dollars", "euro", "euros", "pourcent",
        "pourcentage",
    ),
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
    elisions=(
        "c'", "d'", "j'", "l'", "m'", "n'", "s'", "t'", "qu'", "jusqu'", "lorsqu'", "puisqu'",
    ),
)
# fmt: on


# --------------------------------------------------------------------------- routing

SMALL_TALK: tuple[str, ...] = (
    r"(bonjour|bonsoir|salut|coucou)",
    r"(merci|merci beaucoup|parfait|super|d'accord|ok)",
    r"(au revoir|a bientot|bonne journee)",
    r"qui es-tu",
    r"qui etes-vous",
)
"""Whole messages that are small talk, as regexes over folded text (see
:data:`threadline.text.lexicons.en.SMALL_TALK`)."""

# Ce qu'on demande de l'assistant : ses documents, leurs sujets, ce qu'il fait.
_HOLDINGS = r"(?:documents?|docs|fichiers|sources|sujets|themes|informations)"
_YOU_DO = r"(?:tu sais|tu peux|vous savez|vous pouvez)"
_YOU_AFTER = r"(?:-tu|-vous| tu| vous)"

ABOUT_THE_ASSISTANT: tuple[str, ...] = (
    r"aide",
    r"(?:que|qu'est-ce que) (?:sais|peux|savez|pouvez)" + _YOU_AFTER + r" faire(?: pour moi)?",
    r"qu'est-ce qu(?:e|') " + _YOU_DO + r" faire(?: pour moi)?",
    _YOU_DO + r" faire quoi(?: pour moi)?",
    r"(?:a quoi|en quoi) (?:sers|servez|peux|pouvez)" + _YOU_AFTER + r"(?: m'aider| nous aider|"
    r" me servir| servir)?",
    r"(?:tu peux|vous pouvez) m'aider (?:a|en) quoi",
    r"comment (?:peux|pouvez)" + _YOU_AFTER + r" m'aider",
    r"(?:quels|quelles) (?:sortes? de |types? de )?"
    + _HOLDINGS
    + r" (?:as|avez|connais|connaissez|couvres|couvrez|consultes|consultez|lis|lisez|"
    r"utilises|utilisez)" + _YOU_AFTER,
    r"(?:quels|quelles) "
    + _HOLDINGS
    + r" (?:peux|pouvez)"
    + _YOU_AFTER
    + r" (?:consulter|chercher|lire|interroger|utiliser)",
    r"(?:tu as|vous avez|tu connais|vous connaissez|tu couvres|vous couvrez) (?:quels|quelles) "
    + _HOLDINGS,
    r"(?:quels|quelles) " + _HOLDINGS + r" (?:sont|y a-t-il) (?:disponibles|dans la base|"
    r"indexes|indexees)",
    r"(?:liste|montre)(?:-moi)? (?:les|tes|vos|tous les) (?:documents|fichiers|sources)",
)
"""Whole messages asking what the assistant does or which documents it reads (see
:data:`threadline.text.lexicons.en.ABOUT_THE_ASSISTANT`)."""

THANKS: tuple[str, ...] = ("merci", "parfait", "super")
"""Words opening thanks, which get no greeting back."""

GOODBYES: tuple[str, ...] = ("au revoir", "a bientot", "bonne journee")
"""Words opening a goodbye (folded)."""

DELIVERABLE = (
    r"\b(resume[rz]?|resumez|resumer|synthese|synthetise[rz]?|vue d'ensemble|"
    r"recapitul\w*|recap|fais le point|bilan de|points cles|principaux points|grandes lignes|"
    r"apercu|survol\w*|presente[rz]?(-moi)? (le|la|les)|l'essentiel|"
    # Une pièce écrite demandée : « rédige une note sur la politique de support »,
    # « fais-moi un point sur le rapport annuel », « une fiche sur les mots de passe ».
    r"(?:redige\w*|ecri[st]\w*|prepare\w*|fai[st]\w*|donne\w*|envoie\w*)(?:-moi|-nous)?"
    r" (?:une?|le) (?:petite? |courte? |breve |rapide )?(?:note|fiche|memo|point|compte[- ]rendu)"
    r"(?= (?:sur|de|du|des|concernant|a propos)\b)|un point (?:rapide |complet )?sur|"
    # « Fais-moi un plan du rapport annuel » : le plan d'un texte nommé par son article
    # (du, de la, de l', des) en est la structure, un livrable ; « un plan de support »,
    # sans article, est une sorte de plan (une offre), pas un livrable.
    r"(?:redige\w*|ecri[st]\w*|prepare\w*|fai[st]\w*|donne\w*|propose\w*|dresse\w*)"
    r"(?:[- ]moi|[- ]nous)? (?:une?|le) (?:petit |court |bref |rapide )?plan "
    r"(?:du |de la |de l'|des )(?=\w))\b"
)
"""A request for a summary, synthesis, overview or report, as a regex over folded text."""

# ---------------------------------------------------------------- topic-free words

REQUEST_WORDS = (
    "dis moi plus detaille explique precise developpe quoi quel quelle quels quelles "
    "comment pourquoi et aussi celui celle ceux ca cela"
)
"""Request and conversation words (see :data:`threadline.text.lexicons.en.REQUEST_WORDS`)."""

AIM_WORDS: tuple[str, ...] = (
    "vise",
    "visent",
    "viser",
    "objectif",
    "objectifs",
    "prevoit",
    "prevoient",
    "prevu",
    "prevue",
    "prevus",
    "prevues",
    "prevision",
    "previsions",
    "s'est fixe",
    "se fixe",
    "d'ici",
)
"""Folded words of a sentence that states an aim (see
:data:`threadline.text.lexicons.en.AIM_WORDS`)."""

FUTURE_MARKERS: tuple[str, ...] = (
    "sera",
    "seront",
    "aura",
    "auront",
    "va",
    "vont",
    "fera",
    "feront",
    "ouvrira",
    "ouvriront",
)
"""Folded words of a question on what is to come ("Combien de magasins aura Brightwell ?"):
the English "will" is an aim word (:data:`AIM_WORDS`)."""

PAST_MARKERS: tuple[str, ...] = (
    "etait",
    "etaient",
    "a ete",
    "ont ete",
    "avait",
    "avaient",
    "a-t-il ete",
    "a-t-elle ete",
    # The passé composé asked with its auxiliary: "Combien Brightwell a-t-il gagné ?".
    "a-t-il",
    "a-t-elle",
    "a-t-on",
    "ont-ils",
    "ont-elles",
)
"""Folded words of a question that asks what happened ("Quelle était la marge ?")."""

SAME_SENSE: tuple[str, ...] = ("weekend lundi mardi mercredi jeudi vendredi samedi dimanche",)
"""Words that name the same thing (see :data:`threadline.text.lexicons.en.SAME_SENSE`)."""

NARROWER_SENSE: tuple[tuple[str, str], ...] = (
    # « vol » is also a flight: only the forms that can only be a theft.
    ("volé volée volés volées dérobé dérobée", "perdu perdue perdre perte"),
)
"""Words naming a case of a broader thing (see
:data:`threadline.text.lexicons.en.NARROWER_SENSE`)."""

GENERIC_WORDS = (
    "détaille détailler développe explique expliquer résume résumer résumé synthèse "
    "dis dire dites donne donner donnez montre montrer montrez indique indiquer indiquez "
    "parle moi plus veux voudrais savoir merci stp svp "
    "obtenir obtient obtiens obtenu obtenue prendre prends utiliser utilise trouver trouve "
    "besoin renseignement renseignements informations chose choses façon genre aussi encore "
    "juste bon bonne mieux oui désolé bonjour salut"
)
"""Words that say what to do, not what a question is about (see
:data:`threadline.text.lexicons.en.GENERIC_WORDS`)."""

REQUEST_VERB_NOUNS: tuple[str, ...] = ("montre", "montres")
"""Folded forms of request verbs of :data:`GENERIC_WORDS` that are also nouns naming a
thing after a determiner: "des montres" (watches); "montre-moi" asks."""


# ------------------------------------------------------------- a model's rewrite

# fmt: off
REWRITE_REFUSALS: tuple[str, ...] = (
    "désolé", "désolée", "je m'excuse", "excusez moi", "toutes mes excuses", "pardon",
    "je ne peux pas", "je ne suis pas en mesure", "impossible pour moi",
    "en tant qu'ia", "en tant qu'assistant", "en tant que modèle", "en tant que moteur",
    "je n'ai pas accès",
)
"""Phrases of a refusal or an apology (see
:data:`threadline.text.lexicons.en.REWRITE_REFUSALS`)."""

REWRITE_CHATTER: tuple[str, ...] = (
    "voici", "bien sûr", "bien sur", "certainement", "volontiers", "avec plaisir",
    "requête autonome", "requête de recherche", "la requête est", "requête reformulée",
    "l'utilisateur", "votre question", "vous demandez", "je vais", "je pense", "j'espère",
    "assistant", "confusion",
)
"""Phrases of an assistant talking about the task (see
:data:`threadline.text.lexicons.en.REWRITE_CHATTER`)."""
# fmt: on
