"""Kinds of facts: what a question asks for ("how much" → a price) and whether text holds one.

Shared by the evidence check (does a passage hold the asked-for kind of fact?) and
the offline extractive model (prefer the sentences that do).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Literal, get_args

import lemminflect

from threadline.text import fold, is_stopword, terms
from threadline.text.lexicons import en, fr

# What a question asks for, and how the answer's kind of fact looks in a passage.
# A magnitude between a number and its currency: "486,3 millions de dollars", "2 million
# euros", "1,2 milliard d'euros".
_MAGNITUDE = (
    r"(?:\s?(?:k|m|bn|thousand|million|millions|billion|billions|mille|milliers|"
    r"milliards?)(?:\s+(?:de|d'|d’)|\s)?\s?)?"
)
_MONEY = re.compile(
    # "$449", "449 $" (French), "449 dollars": a currency sign needs no word boundary.
    rf"[$€£¥]\s?\d|\d{_MAGNITUDE}\s?(?:[$€£]|(?:usd|eur|dollars?|euros?|cents?)\b)|"
    r"\b(?:free|no charge|"
    r"gratuit\w*|fee|fees|price[sd]?|pricing|cost[s]?|charged?|billed|tarif\w*|prix)\b",
    re.I,
)
# Nouns that name a count of something: asked for, they ask how many.
_COUNT_NOUNS = "headcount|effectif"
_NUMBER = re.compile(
    r"\d|\b(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|twenty|"
    r"thirty|forty|fifty|hundred|thousand|million|billion|dozen|several|many|few|"
    r"un|une|deux|trois|quatre|cinq|six|sept|huit|neuf|dix|cent|mille|"
    # No limit is a number too: "covers an unlimited number of devices" answers how many.
    r"unlimited|illimitee?s?)\b",
    re.I,
)
_DATE = re.compile(
    r"\b(?:1[0-9]{3}|20[0-9]{2})\b|\b(?:january|february|march|april|may|june|july|"
    r"august|september|october|november|december|janvier|fevrier|février|mars|avril|mai|"
    r"juin|juillet|aout|août|septembre|octobre|novembre|decembre|décembre|monday|tuesday|"
    r"wednesday|thursday|friday|saturday|sunday|century|decade|year|years|ago|daily|spring|"
    r"summer|autumn|fall|winter|printemps|ete|été|automne|hiver|morning|evening|night|"
    r"matin|soir|"
    r"weekly|monthly|annually|quarter)\b|\b\d{1,2}[/.-]\d{1,2}[/.-]\d{2,4}\b",
    re.I,
)
_DURATION = re.compile(
    r"\d+(?:[.,]\d+)?\s*(?:-\s*)?(?:ms|s|sec|seconds?|min|minutes?|h|hrs?|hours?|days?|"
    r"weeks?|months?|years?|jours?|heures?|semaines?|mois|ans?|années?)\b|\b(?:one|two|"
    r"three|four|five|six|seven|ten|twelve|twenty|thirty) (?:seconds?|minutes?|hours?|"
    r"days?|weeks?|months?|years?)\b|\bhours?\b|\bdays?\b",
    re.I,
)
# Pay is an amount of money: "fee" or "cost" words do not state one.
_AMOUNT = re.compile(
    rf"[$€£¥]\s?\d|\d{_MAGNITUDE}\s?(?:[$€£]|(?:k|usd|eur|dollars?|euros?)\b)|"
    r"\b\d[\d,.]* (?:per|an|a) "
    r"(?:hour|year|month|week|heure|an|mois)\b",
    re.I,
)


def _units(units: Sequence[str]) -> str:
    """Return a regex alternation of units, each also as written without its accents."""
    forms = dict.fromkeys(form for unit in units for form in (unit, fold(unit)))
    return f"(?:{'|'.join(map(re.escape, sorted(forms, key=len, reverse=True)))})"


# How often something happens: "every quarter", "every 90 days", "twice a year", "daily",
# "chaque jour", "tous les 3 mois". "Every Brightwell employee" counts no time: "every"
# and "tous les" need a unit of time after them.
# The units are the lexicons' units of time, each also as written without its accents
# ("annees"), and the parts of a day ("every morning", "tous les soirs"), which count no
# quantity. "an" is not read here: "deux fois par an" reads as no frequency, and reading
# it would change which sentences answer "how often?" (a change with its own tests).
_TIME_UNIT_EN = _units([*en.TIME_UNITS, "morning", "mornings", "night", "nights"])
_TIME_UNIT_FR = _units(
    [*(unit for unit in fr.TIME_UNITS if unit != "an"), "matin", "matins", "soir", "soirs"]
)
_FREQUENCY = re.compile(
    rf"\b(?:every (?:\w+ )?{_TIME_UNIT_EN}|each {_TIME_UNIT_EN}|(?:once|twice|\w+ times) "
    rf"(?:a|an|per|each|every) (?:\w+ )?{_TIME_UNIT_EN}|per {_TIME_UNIT_EN}|daily|weekly|"
    rf"fortnightly|quarterly|yearly|annually|hourly|nightly|"
    rf"chaque {_TIME_UNIT_FR}|(?:tous|toutes) les (?:\w+ )?{_TIME_UNIT_FR}|"
    rf"fois par {_TIME_UNIT_FR}|quotidiennement|hebdomadairement|mensuellement|"
    rf"trimestriellement|annuellement)\b",
    re.I,
)
_WEIGHT = re.compile(r"\d+(?:[.,]\d+)?\s*(?:kg|g|grams?|kilograms?|lbs?|pounds?|oz)\b", re.I)
# A determiner opening a sentence is no first name: "The Brightwell security team".
_PERSON = re.compile(
    r"\b(?!(?:The|A|An|This|That|These|Those|Le|La|Les|Un|Une|Ce|Cette|Ces)\b)"
    r"[A-Z][a-zà-ÿ]+(?:\s+(?:[A-Z]\.|[A-Z][a-zà-ÿ]+))+\b"
)
# A phone number has seven digits or more in groups ("+33 1 23 45 67 89", "1-800-555-0199",
# "(555) 123-4567"); "a 24/7 phone line" or "312 000" is none. An email address is one.
_PHONE = re.compile(r"(?<![\w.,])(?:\+?\(?\d{1,4}\)?(?:[\s.-]\d{2,4}){2,5}|\+?\d{7,15})(?![\w,])")
_EMAIL = re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+")

AnswerType = Literal[
    "price",
    "pay",
    "quantity",
    "date",
    "duration",
    "frequency",
    "weight",
    "person",
    "phone",
    "email",
    "rank",
    "share",
    "reason",
]

KINDS = frozenset(get_args(AnswerType))

# A ranking of sales or popularity ("the best-selling phone", "le plus vendu"): what is
# asked is who comes first, which a passage states as such; "sold by Brightwell for
# $799" says a phone is sold, not that it sells best.
_RANKED = (
    r"best[- ]?sell\w*|bestsell\w*|top[- ]sell\w*|most popular|most sold|sold the most|"
    r"(?:le|la|les) plus vendue?s?|meilleures? ventes?|(?:le|la|les) plus populaires?"
)
# The verb of selling with its degree ranks by sales as its adjective does ("sold the
# most", "sells best", "top-selling", "best seller", « se vend le mieux »): the catalog
# parser leaves such a question to the documents, which answer it as a ranking.
SALES_RANKING = re.compile(
    r"\bbest[- ]?sell\w*|\b(?:top|most|least)[- ](?:sold|selling|bought)\b|"
    r"\b(?:sold|sells?|selling|bought|buy) (?:the )?(?:most|best|least|worst)\b|"
    r"\b(?:plus|moins) (?:vendue?s?|achetee?s?)\b|\bvend(?:ue?s?|ent)? le (?:mieux|moins)\b"
)
# What a question asks to be told ("what is the", « quel est le ») and the nouns of a
# time frame: a span of time within which something is allowed or done.
_WHAT_IS = r"(?:what(?:'s| is| was| are| were)|quel(?:le)?s? (?:est|sont|etait)|c'est quoi)"
_TIME_FRAME = r"window|time limit|time frame|timeframe|deadline|period|delai|duree"
_ASKS_FOR: list[tuple[AnswerType, re.Pattern[str]]] = [
    ("rank", re.compile(rf"\b(?:{_RANKED})\b|{SALES_RANKING.pattern}")),
    # Contact details first: "what number do I call?" asks for a phone number, not a count.
    (
        "phone",
        re.compile(
            r"\b((?:tele)?phone number|contact number|number to call|what number|which number|"
            r"numero de (?:telephone|tel)|numero a appeler|quel numero)\b"
        ),
    ),
    # "the email for support", "l'email du support": the email of someone to reach is
    # their address, as "the number to call" is a phone number.
    (
        "email",
        re.compile(
            r"\b(e-?mail address|adresse (?:e-?mail|mail|electronique|courriel)|"
            r"(?:the|their|its|an|l'|le) e-?mail (?:for|of|to|du|de|pour)\b)"
        ),
    ),
    (
        "pay",
        # "salaries" folded is also the French "salariés" (employees): after a French
        # determiner ("combien de salariés", "les salariés") it counts people, not pay.
        re.compile(
            r"\b(salary|(?<!\bde )(?<!\bdes )(?<!\bles )(?<!\bnos )(?<!\bses )(?<!\baux )"
            r"salaries|salaire\w*|wages?|how much (?:\w+ ){0,3}(?:make|earn|get paid|paid)|"
            r"(?:what|how much) (?:\w+ ){0,3}(?:earn|paid)|combien gagne\w*|remuneration)\b"
        ),
    ),
    (
        "price",
        re.compile(
            # "How much did Brightwell recycle?" asks an amount, not a price: after an
            # auxiliary and its subject, only a verb of money asks a price.
            r"\b(how much (?:is|are|it|they|for)|how much (?:does|do|will|would|did) "
            r"(?:\w+ ){1,4}?(?:cost|pay|charge|spend|earn|make|sell|save|owe|raise|get paid)\w*|"
            r"how much (?:does|do|did) (?:it|that|this|they)\b|what(?:'s| is| are)? "
            r"the (?:price|cost|fee)|price of|cost of|how expensive|combien (?:coute|co[uû]te)|"
            # Spoken French puts "combien" after the verb: "le ThinkPad coûte combien ?".
            r"co[uû]te(?:nt)? combien|"
            r"quel (?:est le )?prix|stock price|"
            r"^\W*(?:and|et) (?:the|le|its|son) (?:price|cost|prix|cout)|"
            # "the cheapest plan": the one with the lowest price, which the passages
            # state as prices ("the Basic plan costs $29"), never with the word.
            r"cheapest|least expensive|most expensive|priciest|"
            # "Is the Galaxy S24 cheaper than the Pixel 8 Pro?": prices compared.
            r"cheaper|pricier|more expensive|(?:moins|plus) cher(?:e|s|es)? qu|"
            r"(?:le|la|les) (?:\w+ )?(?:moins|plus) cher(?:e|s|es)?)\b"
        ),
    ),
    ("weight", re.compile(r"\b(lightest|heaviest|how heavy|weigh\w*|plus leger|poids)\b")),
    # How often something recurs is no duration: "how often must I change it?" is
    # answered by "every 90 days", not by "immediately" nor "within 1 hour". Before
    # "quantity": "combien de fois par an" asks a frequency, not a count.
    (
        "frequency",
        re.compile(
            r"\b(how often|how frequently|how many times (?:a|an|per|each|every)|"
            r"a quelle frequence|tous les combien|toutes les combien|"
            r"combien de fois (?:par|chaque|tous|toutes))\b"
        ),
    ),
    # Before "quantity": "combien de temps" asks for a duration, not a count.
    (
        "duration",
        re.compile(
            r"\b(how long|how fast|how quickly|how soon|combien de temps|"
            r"pendant combien|quelle duree|en combien de temps|dans quel delai)\b|"
            # A time-frame noun asked for is a duration: "the return window", "the time
            # limit for returns", « le délai de remboursement » are stated "within 30
            # days", without the noun.
            rf"^\W*(?:(?:and|so|but|ok)\W+)?{_WHAT_IS}\s+(?:the |a |an |le |la |l')?"
            rf"(?:[\w-]+ ){{0,2}}?(?:{_TIME_FRAME})s?"
            # ... as the head of what is asked, not a noun's modifier ("the window size").
            r"\s*(?:$|[?.!]|(?:for|to|of|on|in|after|before|de|du|des|d'|pour|apres)\b)"
        ),
    ),
    # "combien d'employés": the elided "de" too.
    (
        "quantity",
        re.compile(
            r"\b(?:how many|what number of|nombre de|how much (?:does|do|did|will|would))\b|"
            # "What is the number of stores planned?" asks a count, as "le nombre de" does.
            r"\bthe (?:total )?number of\b|"
            r"\bcombien d(?:e\b|')|"
            # A noun that is itself a count: "what is the headcount?", "l'effectif".
            rf"\b(?:what|quel) (?:is|est) (?:the |l')?(?:{_COUNT_NOUNS})\b"
        ),
    ),
    (
        "date",
        # "when" asks for a date as the question word, the verb after it ("when did",
        # "quand a"); before a subject or a participle it states a condition: "when
        # applying for a mortgage, ...", "what happens when I exceed the limit?".
        re.compile(
            r"^\W*(?:(?:and|so|but|ok|then)\W+)?when(?:'s| (?:do|does|did|is|are|was|were|"
            r"will|would|can|could|should|has|have|had|must|shall)\b)|"
            r"\b(?:what year|which year|what date|quelle annee|en quelle|depuis quand)\b|"
            r"\bquand\b(?! (?:je|j|tu|il|elle|on|nous|vous|ils|elles|c)\b)"
        ),
    ),
    ("person", re.compile(r"^\s*(who|qui)\b|\bwho (is|was|are|were)\b")),
    # A bare "why?" (« pourquoi ? ») asks the reason for what was just said, which a
    # sentence states by a connective of cause or purpose: with none, there is no reason
    # to quote, whatever the passage says of the topic. A "why" naming its own subject
    # ("why is MFA required?") is read as any question is.
    (
        "reason",
        re.compile(
            r"^\W*(?:(?:and|so|but|ok|et|mais)\W+)?(?:why|pourquoi)"
            r"(?:\W+(?:is that|is it|so|not|that|ca|cela|donc|ce|c'est))?\W*$"
        ),
    ),
    # A share of a whole is stated as a percentage: "la part des ventes en ligne" is
    # "41 % du chiffre d'affaires", not a sentence that names online sales.
    (
        "share",
        re.compile(
            r"\b(?:what|which) (?:share|percentage|proportion|fraction)\b|"
            r"\bthe (?:share|percentage|proportion) of\b|"
            # "how much of the revenue comes from online sales?" asks a part of a whole.
            r"\bhow much of (?:the|its|their|our|your|his|her|this|that)\b|"
            r"\b(?:quelle|la) (?:part|proportion) (?:de|des|du|d')|"
            r"\b(?:quel|le) pourcentage\b"
        ),
    ),
]
_TYPE_PATTERN: dict[AnswerType, re.Pattern[str]] = {
    "price": _MONEY,
    "pay": _AMOUNT,
    "quantity": _NUMBER,
    "date": _DATE,
    "duration": _DURATION,
    "frequency": _FREQUENCY,
    "weight": _WEIGHT,
    "person": _PERSON,
    "phone": _PHONE,
    "email": _EMAIL,
    "rank": re.compile(rf"\b(?:{_RANKED}|number one|numero un|n° ?1)\b", re.I),
    "share": re.compile(r"\d+(?:[.,]\d+)?\s*(?:%|percent\b|per cent\b|pour cent\b)", re.I),
    "reason": re.compile(
        r"\b(?:because|so that|in order to|due to|owing to|thanks to|as a result|"
        r"the reason|which is why|that is why|so as to|to (?:prevent|protect|avoid|ensure|"
        r"limit|reduce)|car|parce que?|puisque|afin (?:de|d'|que|qu')|pour que|pour qu'|"
        r"gr[aâ]ce [aà]|en raison d|s'explique|du fait d|la raison)\b",
        re.I,
    ),
}


# Words that name the kind of value or text asked for, which a passage states without
# naming it: a battery's capacity is "3,349 mAh", a password policy is its rules. The
# evidence check and the offline model both read a question through them.
KIND_WORDS = frozenset(
    terms(
        "capacity size length amount level rate value figure total count policy policies "
        "rule rules guideline guidelines procedure procedures process processes steps instructions "
        "requirements address share proportion percentage capacité taille longueur montant niveau "
        "taux valeur total adresse part proportion pourcentage politique "
        "politiques règle règles consigne consignes procédure procédures processus étapes "
        "démarche démarches modalités exigences"
    )
)
# A requirement ("you must be 18") and the differences between two things (their two
# prices) are stated without the word, like a policy by its rules.
KIND_WORDS |= frozenset(
    terms("requirement requirements difference differences exigence exigences différence")
)
# Reasons and merits are stated by what they are ("you may appeal if the judge made a
# legal error", "it costs less"), not named: "the grounds for an appeal", "the benefits".
KIND_WORDS |= frozenset(
    terms(
        "reason reasons cause causes ground grounds benefit benefits advantage advantages "
        "disadvantage disadvantages way ways raison raisons motif motifs avantage avantages "
        "inconvénient inconvénients moyen moyens"
    )
)


# Nouns that sort what is asked into a class without naming it: "what factors affect a
# credit score?" is answered by payment history and credit use, which no passage calls
# "factors"; « quels éléments ... » likewise. A "what X" question over them asks for no
# word the answer must write (`extractive.question.asked_for`).
GENERAL_NOUNS = frozenset(
    terms(
        "factor factors aspect aspects element elements thing things kind kinds type types "
        "sort sorts option options example examples point points item items feature features "
        "criterion criteria detail details issue issues consideration considerations "
        "facteur facteurs élément éléments chose choses genre genres sorte sortes exemple "
        "exemples critère critères détail détails option options point points"
    )
)


# The words that ask for a kind of fact the answer type check recognises: a passage
# states a price as "$449" without "price" or "cost", a weight as "1.09 kg", a duration
# as "for 7 days" without "long" or "temps". The evidence check and the offline model
# both leave them to that check rather than look for them.
ASKING_TERMS: dict[str, frozenset[str]] = {
    "price": frozenset(
        terms(
            "price prices cost costs prix coût coûts coûte coûtent tarif cheapest cheap "
            "expensive priciest cher chère chers chères"
        )
    ),
    "weight": frozenset(terms("weight weigh weighs heavy poids pèse lourd lourde")),
    # The verb of lasting and its noun ask how long: « la garantie dure combien de
    # temps ? » asks the warranty's length, which the passages state as "one year"; a
    # time frame's noun asks it too ("the refund window", « le délai »).
    "duration": frozenset(
        terms(
            "fast quickly soon long vite rapidement délai temps last lasts lasted duration "
            "dure durent durer durée window windows time limit timeframe frame deadline period"
        )
    ),
    "frequency": frozenset(terms("often frequently frequency fréquence fois times")),
    "rank": frozenset(
        terms("best selling sell sells seller sellers popular top vendu vendus populaire")
    ),
    # "le nombre de magasins": a count is stated as a figure ("38 magasins").
    "quantity": frozenset(terms("number nombre")),
    # "la part des ventes en ligne": a share is stated as a percentage ("41 % du
    # chiffre d'affaires"); "la part des contrats de support" holds the word, not it.
    "share": frozenset(terms("share percentage proportion fraction part pourcentage")),
}


# "Who" asks for a person's name when it asks who one particular holder is ("who is the
# CEO?", "who wrote it?"). Generic present ("who takes photos of planes?", "who pays the
# fee?") and a bare plural ("who are audiences?") ask about a kind of people: the answer
# is a role or a group ("the photographer on the ground"), written as a common noun.
# Whom the asker should reach ("who should I contact?", "who do we call?", "qui
# contacter ?", "à qui dois-je m'adresser ?") is a role or a channel too ("the duty
# support manager, reachable through the Escalate button"), not a person's name.
_WHO_OF_A_KIND = re.compile(
    r"\bwho (?:(?!is\b|was\b|has\b|does\b)[a-z]+[^s\W]s|(?:are|were) "
    r"(?!the\b|these\b|those\b|they\b|you\b|we\b|it\b|its\b|their\b|his\b|her\b|my\b|our\b)"
    r"[a-z]+s)\b"
    r"|\bwho(?:m)? (?:should|do|can|could|must|shall|would) (?:i|we) [a-z]+"
    r"|^\s*(?:a |aupres de )?qui (?:(?:dois|dois-je|puis-je|peut-on|doit-on|faut-il)\s+)?"
    r"(?:(?:m'|me |s'|se |nous )?[a-z]+(?:er|ir|re)|je dois|on doit)\b"
    # "Qui décide de notifier les clients ?", "qui gère les escalades ?": a present
    # tense asks who does it, as "who decides" does (no "qui est ...").
    r"|^\s*qui (?:s'|se )?(?!(?:est|etait|sont|etaient|a|ont|avait|sera|fut)\b)"
    r"[a-z]+(?:e|it|ent)\b"
)


# "Who handles escalations?", "who pays the fee?": the verb of such a "who" says what the
# people asked about do, the relation the answer states in its own words ("escalation
# starts with the duty support manager"), as a kind word says what kind of value is asked.
_WHO_DOES = re.compile(r"\bwho ((?!is\b|was\b|has\b|does\b)[a-z]+[^s\W]s)\b")


# "Where does the Penobscot River start and end?": the verbs after the named subject ask
# for the places of what it does, which the passage states in its own words ("it arises
# from four branches in several lakes").
# The subject is a thing named, not a person ("where do I file an appeal?" asks where to
# file) nor a verb phrase ("where did ice hockey start to play?").
_SUBJECT_WORD = r"(?!(?:i|you|we|they|it|he|she|to|not)\b)[\w'-]+"
_WHERE_DOES = re.compile(
    rf"\bwhere (?:does|do|did) (?:the |a |an )?{_SUBJECT_WORD}(?: {_SUBJECT_WORD}){{0,3}}? "
    r"((?!not\b)[a-z]+(?: and [a-z]+)?)\s*\??\s*$"
)


# "How long do refunds take to arrive?": the verb after "take to" is the event whose
# duration is asked; the passage states it in its own words ("refunds are paid within
# 10 business days"), so it is the relation, like the verb of "who handles".
_HOW_LONG_TO = re.compile(
    r"\bhow long (?:does|do|did|will|would|should|can) [^?]+? take to ((?!not\b)[a-z]+)\b"
    r"|\bcombien de temps (?:faut-il|met|mettent|prend|prennent) [^?]*?pour ([a-z]+)\b"
)


# "What is it called outside of the USA?" asks for a name: the passage gives it as "known
# as football", "referred to as soccer", "termed", "named" or "called"; the naming verb
# is the relation the answer states in its own words, as the verb of "who handles".
_NAME_ASKED = re.compile(
    r"\b(?:what|how) (?:is|are|was|were) [^?]+? (called|named|termed)\b"
    r"|\bwhat (?:do|does|did) (?:you|they|people|we|one|americans|[a-z]+ people) (call)\b"
    r"|\bcomment (s['’]appellen?t?|appelle-t-on)\b"
)


# "Does Brightwell provide support on weekends?", "do you sell smartphones?": whether
# something is on offer. The verb asks it, as "is there" does; the passages state the
# offer in their own words ("Basic plan customers can contact Brightwell support"), so
# the verb is the relation, not a word to find ("prévoit" translates as "provide").
# Another doer's act is none: "can I provide feedback?" is about providing.
_ON_OFFER_VERB = re.compile(
    r"^\s*(?:so |and |but |ok,? )?(?:does|do|did|can|will|would)\s+"
    r"(?!(?:i|we|one)\b)[\w'-]+(?:\s+[\w'-]+)?\s+"
    r"(sell|offer|stock|carry|provide|supply)\b"
)


# "Who do I talk to about phishing?", "who should we call for a lost laptop?": whom to
# reach, a role or a channel the passage names ("report suspicious emails with the Report
# phishing button", "report the loss to the IT service desk") without the asker's verb,
# in French as well.
_WHO_TO_REACH = re.compile(
    r"\bwho(?:m)? (?:should|do|can|could|must|shall|would) (?:i|we|one) "
    r"(contact|call|ask|e-?mail|notify|tell|reach|talk|speak|write|turn)\b"
    # « qui contacter si je reçois un mail de phishing ? », « à qui dois-je m'adresser ? »
    r"|^\s*(?:a |aupres de )?qui (?:(?:dois-je|dois|puis-je|peut-on|doit-on|faut-il)\s+)?"
    r"(?:m'|me |nous )?(contacter|appeler|prevenir|joindre|ecrire|avertir|alerter|adresser|"
    r"parler|demander)\b"
)


def offer_verb_terms(question: str) -> frozenset[str]:
    """Return the terms of the verb of a question whether something is on offer, if any.

    "Does Brightwell provide support on weekends?" → the terms of "provide": what is asked
    is whether support is given on weekends, which the passage on support hours states
    without the verb.
    """
    match = _ON_OFFER_VERB.search(fold(question))
    return frozenset(terms(match.group(1))) if match else frozenset()


def role_terms(question: str) -> frozenset[str]:
    """Return the terms of the verb whose doer or place a question asks for, if any.

    "Who handles escalations?" → the terms of "handles": the passage names the role
    ("the duty support manager") and the thing ("escalation"), not necessarily the verb.
    "Where does the river start and end?" → "start", "end": the passage names the places.
    "How long do refunds take to arrive?" → "arrive": the passage states the duration.
    "What is it called outside of the USA?" → "called": the passage states the name.
    "Does Brightwell provide support?" → "provide" (`offer_verb_terms`).
    "Who do I talk to about phishing?" → "talk": the passage names whom to reach.
    """
    text = fold(question)
    if offered := offer_verb_terms(question):
        return offered
    match = _WHO_DOES.search(text) or _WHO_TO_REACH.search(text)
    if match:
        return frozenset(terms(next(g for g in match.groups() if g)))
    match = _HOW_LONG_TO.search(text)
    if match:
        return frozenset(terms(match.group(1) or match.group(2)))
    match = _NAME_ASKED.search(text)
    if match:
        return frozenset(terms(next(g for g in match.groups() if g)))
    match = _WHERE_DOES.search(text)
    return frozenset(terms(match.group(1).replace(" and ", " "))) if match else frozenset()


def asked_type(question: str) -> AnswerType | None:
    """Tell the kind of fact a question asks for, if it says so ("how much" → price...)."""
    text = fold(question)
    for kind, pattern in _ASKS_FOR:
        if pattern.search(text):
            if kind == "person" and _WHO_OF_A_KIND.search(text):
                return None
            return kind
    return None


def has_answer_type(kind: AnswerType, text: str) -> bool:
    """Whether `text` holds a fact of that kind (a price, a number, a date...)."""
    return bool(_TYPE_PATTERN[kind].search(text))


# A point in time: a year, a month, a day of the week, a time of day, a written date.
# "monthly", "annually", "every quarter" say how often something recurs, not when.
_POINT_IN_TIME = re.compile(
    r"\b(?:1[0-9]{3}|20[0-9]{2})\b|\b(?:january|february|march|april|may|june|july|"
    r"august|september|october|november|december|janvier|fevrier|février|mars|avril|mai|"
    r"juin|juillet|aout|août|septembre|octobre|novembre|decembre|décembre|monday|tuesday|"
    r"wednesday|thursday|friday|saturday|sunday|lundi|mardi|mercredi|jeudi|vendredi|"
    r"samedi|dimanche)\b|\b\d{1,2}[:h]\d{2}\b|\b\d{1,2}[/.-]\d{1,2}[/.-]\d{2,4}\b",
    re.I,
)


def states_a_point_in_time(text: str) -> bool:
    """Whether `text` says when: a year, a month, a weekday, a time of day or a date."""
    return bool(_POINT_IN_TIME.search(text))


# "When should I start saving?", « quand dois-je partir ? »: a "when" whose verb is a
# modal of permission, obligation or advice asks under what condition to act, which a
# rule or an age answers as well as a date ("as early as possible", "before you are 30").
_WHEN_OF_A_CONDITION = re.compile(
    r"\b(?:when|quand)\b(?:\W+\w+){0,3}?\W+(?:can|could|should|must|may|might|ought|"
    r"have to|has to|need to|needs to|supposed to|dois|doit|doivent|devons|devez|devrais|"
    r"devrait|devrions|devriez|peux|peut|peuvent|pouvons|pouvez|pourrais|pourrait|faut|"
    r"faudrait)\b",
    re.I,
)


def asks_when_to_act(question: str) -> bool:
    """Whether a "when" question asks under what condition to act, not for a point in time.

    "When do I have to start saving for my retirement?" is answered by advice ("as early
    as possible"), not by the sentence that names a year; "when is support available?"
    asks for the hours it is.
    """
    return bool(_WHEN_OF_A_CONDITION.search(question))


# "How many employees...": the words after the question's count words name what is counted.
_COUNT_ASK = re.compile(
    r"\b(?:how many|combien de|combien d|(?:what |the )?number of|nombre de|nombre d)\b[\s'’]*"
)
# A year is a date, not a count: "In 2024, employees..." counts nothing.
_YEAR = re.compile(r"(?:19|20)\d\d")
_NUMBER_WORD = re.compile(_NUMBER.pattern, re.I)
# Words that may stand between a counted noun and its number: "employees: 2,140",
# "a headcount of 2,140", "effectif de 2 140", "the workforce was 2,140".
_COUNT_LINKS = frozenset(
    "of is was were are stood stands reached totalled totaled totals at about around nearly "
    "over de d est etait a atteint compte comptait environ pres plus".split()
)


# The count words of French: the head of the phrase they govern comes first ("demandes
# de support"); in English it comes last ("support requests").
_FRENCH_COUNT = re.compile(r"^(?:combien|nombre)")
# Words read after the count words: the phrase and what stands before it ("of the").
_PHRASE_WINDOW = 6


def is_plural_noun(word: str) -> bool:
    """Whether an English word is the plural of a noun ("requests", "children")."""
    return any(lemma != word for lemma in lemminflect.getAllLemmas(word, "NOUN").get("NOUN", ()))


def _is_participle(word: str) -> bool:
    """Whether an English word is only a verb's past form ("hired", "sold"), no noun."""
    if lemminflect.getAllLemmas(word, "NOUN"):
        return False
    return any(
        word in lemminflect.getInflection(lemma, "VBN")
        for lemma in lemminflect.getAllLemmas(word, "VERB").get("VERB", ())
    )


# "How many people work in customer service?": people who work somewhere are its staff,
# which documents count by their own noun (« 2 140 collaborateurs ... dont 520 au service
# client »), not by the people hired there. A question counting people who work counts
# the staff too; one counting employees is not answered by « 410 personnes » recruited.
_PEOPLE = frozenset(
    terms("people person persons personne personnes gens individual individuals individus")
)
_STAFF = frozenset(
    terms(
        "employee employees staff workforce headcount employé employés salarié salariés "
        "collaborateur collaborateurs effectif effectifs personnel"
    )
)
_WORKING = re.compile(
    r"\b(?:work|works|working|worked|employed|travaill\w*|bosse|bossent|bosser|emploie|"
    r"emploient|employée?s?)\b",
    re.I,
)


def counted_terms(question: str, noun: str) -> set[str]:
    """Return the terms a count of the question's counted noun is stated with.

    The noun in both languages (`terms_there_and_back`: "employés" is also the report's
    "collaborateurs"), and, for people the question says work, the staff's nouns.
    """
    from threadline.knowledge.bilingual import terms_there_and_back

    return terms_there_and_back(noun) | staff_counted(question, noun)


def staff_counted(question: str, noun: str) -> frozenset[str]:
    """Return the staff's nouns when the question counts people who work, else nothing."""
    if set(terms(noun)) & _PEOPLE and _WORKING.search(fold(question)):
        return _STAFF
    return frozenset()


# The staff's noun in each language: "how many people work in customer service?" is
# searched in French as a count of « collaborateurs », as the report counts them.
_STAFF_NOUN = {"en": "employees", "fr": "employés"}


def as_a_staff_count(question: str, language: str) -> str:
    """Return the question with the people it says work named as the staff, else as is.

    "how many people work in customer service?" → "how many employees work in customer
    service?": the same question, in the words documents count a staff with.
    """
    noun = counted_noun(question)
    staff = _STAFF_NOUN.get(language)
    if noun is None or staff is None or not staff_counted(question, noun):
        return question
    return re.sub(rf"\b{re.escape(noun)}\b", staff, question, count=1, flags=re.I)


def counted_noun(question: str) -> str | None:
    """Return the word a "how many" question counts, if it names one.

    The head of the noun phrase after the count words: "how many support requests were
    handled?" counts requests, not support. An English phrase ends before its first
    function word ("were", "does", "in"), and its head is its last plural noun ("support
    requests", "status codes"), else its first word ("people live"); a French one is
    headed by its first word ("combien de demandes de support").

    Args:
        question: The question as typed.

    Returns:
        The counted word, folded ("requests", "demandes"), or None.
    """
    text = fold(question)
    found = _COUNT_ASK.search(text)
    if found is None:
        # "What is the headcount?" counts what the noun is a count of: read as that noun.
        noun = re.search(rf"\b(?:{_COUNT_NOUNS})\b", text)
        return noun.group() if noun else None
    phrase: list[str] = []
    for word in re.findall(r"\w+", text[found.end() :])[:_PHRASE_WINDOW]:
        if is_stopword(word) or word.isdigit():
            if phrase:
                break
            continue
        phrase.append(word)
    if not phrase:
        return None
    if _is_participle(phrase[0]):
        # "How many were hired?" counts whom the verb acts on, which it does not name:
        # the number after the verb ("recruté 410 personnes"), not a noun "hired".
        return None
    if _FRENCH_COUNT.match(found.group()):
        return phrase[0]
    plurals = [word for word in phrase if is_plural_noun(word)]
    return plurals[-1] if plurals else phrase[0]


# Function words that may stand between a number and the noun it counts: "3 millions de
# clients", "10 of the customers".
_PARTITIVES = frozenset("of the de d des".split())


def _quantifies(between: Sequence[str]) -> bool:
    """Whether a number counts the noun after these words ("30 calendar days").

    A preposition in between attaches the noun elsewhere: "520 au service client" counts
    staff at the customer service, not clients.
    """
    return not any(is_stopword(w) and w not in _PARTITIVES for w in between)


def states_count_of(text: str, noun_terms: set[str]) -> bool:
    """Whether `text` gives a number of the counted thing (`noun_terms`, index terms).

    The number must stand before the noun with at most two words between ("2 140
    collaborateurs", "30 calendar days"; no preposition: "520 au service client" counts
    no clients) or after it through a linking word
    ("headcount of 2,140"); "employees who fail two exercises" counts exercises. A
    number counts a noun of its own clause: "dont 1 230 en magasin, 520 au service
    client" gives no number of stores ("magasin, 520").
    """
    return any(_clause_counts(clause, noun_terms) for clause in _CLAUSE_END.split(fold(text)))


# Where a clause ends: a comma or semicolon before a space ("2,140" is one number); a
# colon introduces the count ("Employees: 2,140").
_CLAUSE_END = re.compile(r"[,;]\s|\s[-–—]\s|[.!?](?:\s|$)")


# A number that is a share: "44 % des effectifs" is no count of the staff.
_SHARE = re.compile(r"\d+(?:[.,]\d+)?\s*(?:%|percent\b|per cent\b|pour cent\b)")


def states_share_of(text: str, noun_terms: set[str]) -> bool:
    """Whether `text` gives a share of the counted thing: "44 % des effectifs"."""
    for share in _SHARE.finditer(fold(text)):
        after = re.findall(r"\w+", fold(text)[share.end() :])[:3]
        for k, word in enumerate(after):
            if noun_terms & set(terms(word)):
                return _quantifies(after[:k])
    return False


# The whole a share is asked of: "what percentage of customers", « quelle part des ventes ».
_SHARE_OF = re.compile(
    r"\b(?:share|percentage|proportion|fraction|part|pourcentage)\s+(?:of|de|des|du|d')\s*"
    r"(?:(?:the|our|all|your|les|la|le|l')\s*)?([a-z]{3,})"
)


def share_whole(question: str) -> str | None:
    """Return the word a share is asked of ("customers"), or None."""
    found = _SHARE_OF.search(fold(question))
    return found.group(1) if found else None


def states_percentage_of(text: str, whole_terms: set[str]) -> bool:
    """Whether a percentage of `text` is one of the whole: "52 % du chiffre d'affaires".

    What a percentage is of follows it within three words; "99.9% monthly uptime" is a
    share of the uptime, no share of the customers.
    """
    folded = fold(text)
    for share in _SHARE.finditer(folded):
        after = re.findall(r"\w+", folded[share.end() :])[:3]
        if any(whole_terms & set(terms(word)) for word in after):
            return True
    return False


_MEASURE_ADJECTIVE = re.compile(r"\b\d+-[a-z]+\b")


def _is_noun(word: str) -> bool:
    return bool(lemminflect.getAllLemmas(word, "NOUN"))


# An amount of money: a currency sign before the number (its groups and separators
# between), or a currency after it, in units or in millions/billions.
_MONEY_BEFORE = re.compile(r"[$€£]\s*[\d\s,.]*$")
_MONEY_AFTER = re.compile(
    r"\s*(?:[$€£]|(?:(?:millions?|milliards?|billions?|thousands?|milliers?)\s+(?:de\s+|d')?)?"
    r"(?:dollars?|euros?|usd|eur|cents?|centimes?)\b)"
)
_MONEY_TERMS = frozenset(terms("dollar dollars euro euros money argent cent cents"))


def counts_other_things_only(text: str, noun_terms: set[str]) -> bool:
    """Whether every number of `text` counts a thing other than the counted one.

    "Every employee must use a password of at least 14 characters" holds "employee" and
    a number, which counts characters: no number of employees. A number is read as
    counting the first English plural noun among the two words after it ("4 business
    hours"; after "1", any noun: "1 hour"); a number with none after it, a year, a share
    or a measure ("30-minute") counts nothing said, so a sentence holding one (but a
    measure) is not of this kind. An amount of money ("$290 per year", « 545 millions
    de dollars ») counts money: no number of customers, unless money is what is counted.
    """
    counting = False
    money_asked = bool(noun_terms & _MONEY_TERMS)
    for clause in _CLAUSE_END.split(fold(text)):
        # "a 30-minute course": a measure of the noun after it, no count.
        clause = _MEASURE_ADJECTIVE.sub(" ", _SHARE.sub(" share ", clause))
        found = list(re.finditer(r"\w+", clause))
        words = [m.group() for m in found]
        for i, word in enumerate(words):
            if not (_NUMBER_WORD.fullmatch(word) or word.isdigit()) or _YEAR.fullmatch(word):
                continue
            following = words[i + 1 : i + 3]
            if following and following[0].isdigit():
                continue  # "2 140": one number, read at its last group
            if _MONEY_BEFORE.search(clause[: found[i].start()]) or _MONEY_AFTER.match(
                clause, found[i].end()
            ):
                if money_asked:
                    return False
                counting = True
                continue
            one = word in ("1", "one")
            counted = next(
                (w for w in following if is_plural_noun(w) or (one and _is_noun(w))), None
            )
            if counted is None or noun_terms & set(terms(counted)):
                return False
            counting = True
    return counting


def _clause_counts(text: str, noun_terms: set[str]) -> bool:
    words = re.findall(r"\w+", _SHARE.sub(" share ", text))
    is_number = [
        bool(_NUMBER_WORD.fullmatch(w)) or (w.isdigit() and not _YEAR.fullmatch(w)) for w in words
    ]
    for i, word in enumerate(words):
        if not noun_terms & set(terms(word)):
            continue
        if any(is_number[j] and _quantifies(words[j + 1 : i]) for j in range(max(0, i - 3), i)):
            return True
        j = i + 1
        while j < len(words) and j <= i + 3 and words[j] in _COUNT_LINKS:
            j += 1
        if j < len(words) and j <= i + 3 and is_number[j]:
            return True
    return False


def _alternation(words: Sequence[str]) -> re.Pattern[str]:
    return re.compile(
        rf"(?<![\w'])(?:{'|'.join(map(re.escape, sorted(words, key=len, reverse=True)))})(?![\w'])"
    )


_AIMS = _alternation([*en.AIM_WORDS, *fr.AIM_WORDS])
_PAST = _alternation([*en.PAST_MARKERS, *fr.PAST_MARKERS])
_FUTURE = _alternation(fr.FUTURE_MARKERS)


def states_an_aim(sentence: str) -> bool:
    """Whether a sentence states an aim ("vise une marge d'au moins 8,5 %"), not a result."""
    return bool(_AIMS.search(fold(sentence)))


def asks_what_was(question: str) -> bool:
    """Whether a question asks what happened ("What was...?", "Quelle était...?")."""
    return bool(_PAST.search(fold(question)))


# A bound on a number is stated by the words around it: "up to 50% of the monthly fee" is
# a maximum, "at least 14 characters" a minimum, as "a maximum of" / "au moins" say. A
# question asking "the maximum service credit" or "the minimum password length" names
# the bound; the passage states it without the word.
_UPPER_BOUND = re.compile(
    r"\b(?:up to|at most|no more than|not more than|a maximum of|maximum of|capped at|"
    r"jusqu'(?:a|à)|au plus|au maximum|pas plus de|plafonn\w+ (?:a|à))\s+\$?\d",
    re.I,
)
_LOWER_BOUND = re.compile(
    r"\b(?:at least|no less than|not less than|a minimum of|minimum of|"
    r"au moins|au minimum|pas moins de)\s+\$?\d",
    re.I,
)
_BOUND_WORDS = (
    (_UPPER_BOUND, frozenset(terms("maximum max maximal plafond"))),
    (_LOWER_BOUND, frozenset(terms("minimum min minimal"))),
)


def bound_terms(text: str) -> frozenset[str]:
    """Return the terms of the bounds a text states on a number ("up to 50%": maximum).

    Args:
        text: A passage or sentence.

    Returns:
        "maximum" (and its short and French forms) for an upper bound, "minimum" for a
        lower one, as `terms` stems; empty when it states none.
    """
    folded = fold(text)
    return frozenset(t for pattern, words in _BOUND_WORDS if pattern.search(folded) for t in words)


# A rule stated with a modal of obligation ("employees must connect through the VPN",
# "is required to", « les salariés doivent », « est tenu de ») states that what it asks
# is mandatory, as "required" or « obligatoire » would: a question asking whether it is
# mandatory names the obligation, the passage states it without the word. A prohibition
# ("must not", « ne doit pas ») obliges to nothing.
_OBLIGATION = re.compile(
    r"\b(?:must|shall|(?:is|are)\s+required\s+to|ha(?:s|ve)\s+to)\b(?!\s+not\b)"
    r"|(?<!\bne\s)(?<!\bn')\b(?:doi(?:t|s|vent)|devez|devons)\b(?!\s+pas\b)"
    r"|\b(?:est|sont)\s+tenue?s?\s+d(?:e\b|')",
    re.I,
)
_OBLIGATION_WORDS = frozenset(terms("required mandatory compulsory obligatory obligatoire requis"))


def obligation_terms(text: str) -> frozenset[str]:
    """Return the terms of the obligation a text states with a modal ("must": mandatory).

    Args:
        text: A passage or sentence.

    Returns:
        "required", "mandatory" and their synonyms and French words, as `terms` stems,
        when the text states an obligation with a modal; empty when it states none.
    """
    return _OBLIGATION_WORDS if _OBLIGATION.search(fold(text)) else frozenset()


# Compound prepositions: their noun is no thing asked about ("la politique en cas de
# perte" asks of a loss, not of a case; "Qui contacter en cas d'incident de sécurité ?"
# of a security incident, which the handbook states with no "case"; "et en matière
# d'environnement ?" of the environment, not of a "matter"). The evidence check and the
# offline model both read a question without them.
LOCUTIONS = re.compile(
    r"\b(?:(?:en\s+cas|à\s+cause|au\s+lieu|en\s+termes|en\s+mati[eè]re|au\s+sujet)"
    r"\s+(?:de|du|des|d['’])"
    r"|in\s+case\s+of|because\s+of|instead\s+of|in\s+terms\s+of|grâce\s+à|thanks\s+to)",
    re.I,
)


# "24/7", "round the clock", « 24 h/24 », « 7 j/7 »: the hours a service runs, which the
# passages state as hours ("during business hours", "24/7 phone support"). A question of
# it asks of those hours.
AROUND_THE_CLOCK = re.compile(
    r"(?<![\w/])(?:24\s*/\s*7|24\s*h\s*/\s*24|7\s*j\s*/\s*7)(?![\w/])|"
    r"\b(?:a?round[- ]the[- ]clock|24 hours a day|jour et nuit)\b",
    re.I,
)


# A time said relative to now or to the time discussed ("last year", "the year before",
# "l'an dernier", "l'année d'avant") says when, not what: no passage writes "last", it
# writes the year. The evidence check and the offline model both read a question
# without it (the Galaxy A55, "le plus vendu de l'année", is no answer to last year's revenue).
RELATIVE_TIME = re.compile(
    r"\b(?:(?:the\s+)?(?:last|this|next|previous|prior|past|preceding|following)\s+"
    r"(?:year|month|week|quarter)|(?:the|a)\s+(?:year|month|week|quarter)\s+"
    r"(?:before|after|earlier|later|prior)|"
    r"(?:l[’']|cet(?:te)?\s+|le\s+|la\s+)?(?:an|année|annee|mois|semaine|trimestre)\s+"
    r"(?:dernier|dernière|derniere|passé|passée|passe|passee|précédent|précédente|"
    r"precedent|precedente|prochain|prochaine|suivant|suivante|d[’']avant|d[’']après|"
    r"d[’']apres|en\s+cours))\b",
    re.I,
)


def asks_what_is_now(question: str) -> bool:
    """Whether a question asks what is, neither what was nor what is to come.

    "How many stores does Brightwell have?" asks the stores there are: "Brightwell
    prévoit d'ouvrir cinq nouveaux magasins en 2025" is a plan, no count of them. A
    question naming an aim ("the 2025 target") or the future ("will", "sera") asks it.
    """
    folded = fold(question)
    return not (_PAST.search(folded) or _AIMS.search(folded) or _FUTURE.search(folded))


# "How much did Brightwell make?": money a company makes is its revenue, which documents
# state as "revenue", "turnover", "chiffre d'affaires", never as "made". The subject is
# a name (capitalised: a company, an organisation); "how much does a nurse make?" asks
# a pay.
_NAME = r"(?!I\b)[A-Z][\w&'’.-]*(?:\s+[A-Z][\w&'’.-]*)*"
_MONEY_MADE_EN = re.compile(
    rf"\b(?i:how much(?: money)? (?P<aux>did|does|do|has|have|will)) (?P<name>{_NAME}) "
    r"(?P<verb>make|made|earn|earned|bring in|brought in|generate|generated)\b"
)
_MONEY_MADE_FR = re.compile(
    rf"\bcombien(?: d'argent| d’argent)? (?P<name>{_NAME}) "
    r"(?P<aux>a-t-(?:il|elle)|a-t-on|ont-ils) (?P<verb>gagn[ée]|encaiss[ée]|r[ée]alis[ée]|fait)\b",
    re.I,
)
# "Combien a gagné Brightwell ?": the subject after the verb.
_MONEY_MADE_FR_INVERTED = re.compile(
    rf"\bcombien(?: d'argent| d’argent)? (?P<aux>a|ont) "
    rf"(?P<verb>gagn[ée]|encaiss[ée]|r[ée]alis[ée]|fait) (?P<name>(?-i:{_NAME}))",
    re.I,
)


def revenue_spelled_out(question: str) -> str:
    """Return the question with "revenue" named when it asks what a company made.

    "how much did Brightwell make in 2024?" → "how much revenue did Brightwell make in
    2024?": the report's "chiffre d'affaires ... 486,3 millions de dollars" answers it,
    its catalog's "Nokia G42 5G à 199 $" (a price, also money in 2024) does not.
    """
    english = _MONEY_MADE_EN.search(question)
    if english:
        return (
            f"{question[: english.start()]}{question[english.start() : english.start() + 8]} "
            f"revenue {english['aux']} "
            f"{english['name']} {english['verb']}{question[english.end() :]}"
        )
    inverted = _MONEY_MADE_FR_INVERTED.search(question)
    if inverted and inverted["name"][:1].isupper():
        # Asked in the past as the subject-first form is ("a-t-il"): a year asked is
        # then read by `graph.results` as the direct form's is.
        aux = "a-t-il" if inverted["aux"].lower() == "a" else "ont-ils"
        return (
            f"{question[: inverted.start()]}combien {inverted['name']} {aux} "
            f"{inverted['verb']} en chiffre d'affaires{question[inverted.end() :]}"
        )
    french = _MONEY_MADE_FR.search(question)
    if french and french["name"][:1].isupper():
        # "en chiffre d'affaires", not "combien de chiffre d'affaires": "combien de X"
        # counts X ("combien de magasins"), and a revenue is an amount, no count.
        return (
            f"{question[: french.start()]}combien {french['name']} {french['aux']} "
            f"{french['verb']} en chiffre d'affaires{question[french.end() :]}"
        )
    return question
