"""English: the words text handling looks for in English text.

* :data:`SEARCH_STOPWORDS`: function words the sparse index drops.
* :data:`FOLLOWUPS`: the follow-up lexicon (references, anaphora, follow-up cues, and the
  stopwords that vote in language detection).
* Routing: :data:`SMALL_TALK`, :data:`THANKS`, :data:`GOODBYES`, :data:`DELIVERABLE`.
* Topic-free words: :data:`REQUEST_WORDS` and :data:`ANSWER_FILLER` (reformulation),
  :data:`GENERIC_WORDS` and :data:`NOT_NAMES` (the evidence check).
* A model's rewrite that is no query: :data:`REWRITE_REFUSALS`, :data:`REWRITE_CHATTER`.

The two stopword lists differ on purpose. The index's list decides the terms stored in
every sparse vector, so it only holds words that never carry a topic; the follow-up list
also holds conversational words ("please", "tell", "like") that say nothing about which
section a message points at. Changing the first means re-indexing; changing the second
changes reference resolution and language detection.
"""

from __future__ import annotations

from threadline.text.lexicons.base import Lexicon

__all__ = [
    "AIM_WORDS",
    "EDITION_WORDS",
    "ANSWER_FILLER",
    "DELIVERABLE",
    "FOLLOWUPS",
    "GENERIC_WORDS",
    "GOODBYES",
    "PAST_MARKERS",
    "IRREGULAR_PLURALS",
    "NOT_NAMES",
    "REQUEST_WORDS",
    "REWRITE_CHATTER",
    "REWRITE_REFUSALS",
    "SAME_SENSE",
    "NARROWER_SENSE",
    "REQUEST_VERB_NOUNS",
    "CAPITALISED_TIME_WORDS",
    "SEARCH_STOPWORDS",
    "SMALL_TALK",
    "ABOUT_THE_ASSISTANT",
    "THANKS",
]

SEARCH_STOPWORDS: frozenset[str] = frozenset(
    """
a about above after again against all also am among an and another any are around as at
be because been before being below between both but by can cannot could did do does doing
down during each either else etc ever every few for from further had has have having he her
here hers herself him himself his how however i if in into is it its itself just me might
more most must my myself neither no nor not now of off on once only onto or other others
ought our ours ourselves out over own same shall she should since so some such than that the
their theirs them themselves then there therefore these they this those though through thus
to too toward towards under unless until up upon very was we were what whatever when
whenever where whereas wherever whether which while who whoever whom whose why will with
within without would yet you your yours yourself yourselves
s t d ll m re ve
""".split()
)
"""English function words dropped from index terms, in folded form."""

# Units of time: what a quantity is counted in ("how many days?", `measure_units` below)
# and what a frequency is counted in ("every 90 days", `facts`) read this one list.
TIME_UNITS: tuple[str, ...] = (
    "second", "seconds", "minute", "minutes", "hour", "hours", "day", "days", "week",
    "weeks", "month", "months", "quarter", "quarters", "year", "years",
)  # fmt: skip

# The word lists stay packed several to a line: one word per line (what the formatter
# would make of them) turns each list into a hundred-line column nobody can review.
# fmt: off
FOLLOWUPS = Lexicon(
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
    step_words={"next": 1, "following": 1, "previous": -1, "preceding": -1},
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
        # A demonstrative right after an auxiliary is its subject ("is that up or down?",
        # "does this apply to contractors?"): a conjunction or relative "that" never
        # follows one, so it stands for what was said before.
        "is that", "is this", "was that", "was this", "are those", "are these",
        "were those", "were these", "does that", "does this", "did that", "did this",
        "has that", "has this", "will that", "will this", "would that", "would this",
        "can that", "can this",
    ),
    followup_cues=(
        "and for", "and what about", "what about", "how about", "and the", "and in",
        "and on", "and with", "and if", "and regarding", "and about", "same for",
        "same question for", "same thing for", "what of", "as for", "regarding",
        "how does that compare", "compared to", "compared with", "in comparison",
        "tell me more about", "instead", "rather", "and also", "what else",
    ),
    leading_conjunctions=("and", "but", "also", "so", "then", "or", "plus"),
    measure_units=(
        *TIME_UNITS, "time", "times", "dollar", "dollars", "euro", "euros", "percent",
        "percentage",
    ),
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
# fmt: on


# --------------------------------------------------------------------------- routing

SMALL_TALK: tuple[str, ...] = (
    r"(hi|hello|hey|good (morning|afternoon|evening))( there)?",
    r"(thanks|thank you|thx|cheers|great|perfect|ok|okay)( (a lot|very much|so much))?",
    r"(bye|goodbye|see you)",
    r"(?:what|who) are you",
)
"""Whole messages that are small talk (greetings, thanks, goodbyes), as regexes over
folded text: nothing to look up."""

# What the assistant may be asked of: its documents, their topics, what it does.
_HOLDINGS = r"(?:documents?|docs|files|sources|topics|subjects|information|knowledge)"
_YOU = r"(?:you|u|threadline)"

ABOUT_THE_ASSISTANT: tuple[str, ...] = (
    r"help",
    r"what (?:else )?(?:can|could) " + _YOU + r" (?:do|help(?: me)? with|help me do)(?: for me)?",
    r"what (?:are|do) " + _YOU + r" (?:able to do|good at|for|know|do)",
    r"what can (?:i|we) (?:ask|do)(?: here| with you)?",
    r"how (?:can|could|do|will) (?:you|i use you) help(?: me| us)?",
    r"(?:what|which) (?:kinds? of |sorts? of )?"
    + _HOLDINGS
    + r" (?:do|can|could|did) "
    + _YOU
    + r" (?:have|hold|know|cover|search|read|access|see|use|look at|answer from|"
    r"have access to|know about|search through)",
    r"(?:what|which) " + _HOLDINGS + r" (?:are|is) (?:there|available|indexed|loaded|"
    r"in (?:the|your|this) (?:base|knowledge base|library|index))",
    r"(?:what|which) (?:documents|docs|files|sources) (?:can|may) (?:i|we) (?:ask about|"
    r"search|read|see|query|use)",
    r"(?:list|show)(?: me)? (?:the |your |all |all the |all your )?(?:documents|docs|files|"
    r"sources)(?: you have| available)?",
    r"what(?:'s| is) in (?:the|your) (?:documents|knowledge base|library|index)",
)
"""Whole messages asking what the assistant does or which documents it reads, as
regexes over folded text: answered from the caller's titles, nothing searched."""

THANKS: tuple[str, ...] = ("thanks", "thank you", "thx", "cheers", "great", "perfect")
"""Words opening thanks, which get no greeting back."""

GOODBYES: tuple[str, ...] = ("bye", "goodbye", "see you")
"""Words opening a goodbye."""

DELIVERABLE = (
    r"\b(summar(y|ies|ise|ize|ising|izing)|overview|synthesis|synthesi[sz]e|recap|"
    r"report on|brief me|briefing|outline of|key points|main points|highlights of|"
    r"walk me through|rundown|digest of|tl;?dr|gist of|sum (?:it |this |that |them )?up|"
    # "What does the security handbook say?": a document named with no topic asked of it.
    r"what (?:does|do) (?:the|this|that|your|our) (?:[\w-]+ ){0,2}(?:handbook|manual|guide|"
    r"report|policy|catalog|catalogue)s? (?:say|contain|cover)(?=\W*$)|"
    # A written piece asked for is a deliverable of its own shape: "write a brief on our
    # security rules", "draft a note about refunds", "a one-pager on the annual report".
    r"(?:write|draft|prepare|give|make|put together|produce|create|compose|send)(?: me| us)?"
    r" (?:up )?an? (?:short |quick |brief |one[- ]page )?(?:brief|note|memo|write-?up|"
    r"fact ?sheet|one[- ]pager) (?:on|about|of|for|covering|regarding|summari[sz]ing)\b|"
    r"an? (?:short |quick )?(?:brief|memo|one[- ]pager) (?:on|about|of|covering)\b|one[- ]pager)"
)
"""A request for a summary, synthesis, overview or report (the answer gets an outline),
as a regex over folded text."""

# ---------------------------------------------------------------- topic-free words

REQUEST_WORDS = (
    "tell more about detail details explain expand elaborate what which how why when "
    "and also please thanks one ones that this those these it them there "
    "know can could would tell say said mean meant question ask asked answer thing things "
    "like really yes no ok okay sure sorry thank thanks hi hello well still else "
    "way good best idea ideas need want get got give example examples kind type types"
)
"""Request and conversation words: never carried from one query into the next, and not
what makes a message "about" anything (reformulation)."""

ANSWER_FILLER = (
    "document documents information provide provided provides mention mentioned "
    "mentions specific specifically state states stated context source sources "
    "include included includes including however although based available unable able "
    "find found discuss discussed discusses describe described details detail regarding "
    "refer refers several many various different certain often usually generally may might"
)
"""Words an answer uses about its own sources ("The documents do not provide specific
information about ..."): never salient in a previous answer (reformulation)."""

AIM_WORDS: tuple[str, ...] = (
    "target",
    "targets",
    "aim",
    "aims",
    "goal",
    "goals",
    "objective",
    "objectives",
    "plans to",
    "expects to",
    "forecast",
    "forecasts",
    "projected",
    "expected",
    "planned",
    "will",
)
"""Folded words of a sentence that states an aim, not what happened ("Brightwell aims
for an operating margin of at least 8.5%"): no answer to what a figure was."""

PAST_MARKERS: tuple[str, ...] = ("was", "were", "did", "had")
"""Folded words of a question that asks what happened ("What was the operating margin?")."""

SAME_SENSE: tuple[str, ...] = (
    "screen display",
    "contact reach",
    # The days of one week: a schedule that states some ("Monday to Friday") answers
    # a question about the others ("and on weekends?", "on Sunday?").
    "weekend weekday monday tuesday wednesday thursday friday saturday sunday",
    # What a rule requires is mandatory: "Brightwell requires multi-factor authentication"
    # answers "is MFA mandatory?" ("compulsory", "obligatory" too).
    "required mandatory compulsory obligatory",
    # A problem fixed is a problem resolved: "If a P1 ... is not resolved within 4 hours"
    # answers "what if a P1 isn't fixed?".
    "fixed resolved",
    # What a plan or a warranty includes is what it covers: "what's included?" of the
    # Business plan is answered by "covers up to 100 devices with email, web, chat ...".
    "include included includes cover covers covered",
    # Acknowledging a report is the first response to it: "acknowledges every security
    # incident report within 30 minutes" answers "how fast will they respond?".
    "respond responds response acknowledge acknowledges acknowledged",
)
"""Words that name the same thing, one group a line: a passage writes one where a question
writes another ("the screen size" of a phone whose page gives its "6.82-inch display";
"who should I contact?" of a manager "reachable through the Escalate button"; the days of
a week, which a schedule states some of). A word of
a group matches the others' derivations too ("reach" / "reachable")."""

NARROWER_SENSE: tuple[tuple[str, str], ...] = (
    # A thing stolen is lost to its owner: "report the loss within 1 hour" is what to do
    # when a laptop is stolen, while a rule on thefts says nothing of a laptop left on a
    # train.
    ("stolen steal steals stealing stole theft thefts robbed", "lost lose loss"),
)
"""Words naming a case of a broader thing, each with the words of that thing: a passage
stating the broader thing speaks of the case (one way only: a passage on the case does not
speak of the broader thing)."""

CAPITALISED_TIME_WORDS = (
    "Monday Tuesday Wednesday Thursday Friday Saturday Sunday January February March "
    "April May June July August September October November December"
)
"""Words English writes capitalised that name a time, not a thing: no name of a question
("Can I get support on Sunday?" asks of support, on a day)."""

REQUEST_VERB_NOUNS: tuple[str, ...] = ("show", "shows")
"""Forms of request verbs of :data:`GENERIC_WORDS` that are also nouns naming a thing
after a determiner: "the show" (a programme); "show me" asks."""

GENERIC_WORDS = (
    "tell know explain describe detail details expand elaborate give show say find "
    "please thank thanks help information info mean meant like want need question "
    "answer ask asking look looking check sure really actually possible able way ways "
    "thing things kind type one ones also still just use using used get got make take "
    "summary summarise summarize overview synthesis report "
    "good best better great nice well okay ok yes sorry hi hello "
    # "What happens if the SLA is missed?" asks what follows: no passage says "happens".
    "happen happens happened happening "
    # The irregular past forms of the verbs above are no more a topic than they are
    # ("Of course I knew it!"; "Is a jail sentence given for...?"): the stemmer joins
    # "asked" to "ask", not "knew" to "know".
    "knew known told said gave given took taken made gotten "
    # A speaker's stance or emphasis, like "really" and "actually": "there certainly are
    # scientists who care...", "what exactly is X?" ask about the scientists, about X.
    "certainly exactly particularly particular "
    # A contraction typed without its apostrophe asks as the contraction does: "whats the
    # password policy" is "what's the password policy" ("whats" stems to "what").
    "whats hows wheres whens whys whos thats theres"
)
"""Words that say what to do or how to ask, not what a question is about (evidence
check). Wider than :data:`REQUEST_WORDS`: the evidence check looks for the question's
subject in passages, where "use", "make" or "report" would match anything."""

NOT_NAMES: tuple[str, ...] = tuple(
    "i i'm i've i'd i'll ok okay please thanks hello hi s q a".split()
    + "what which who when where why how is are do does can could the a an".split()
)
"""Words capitalised in questions without naming anything specific (folded)."""


# ------------------------------------------------------------- a model's rewrite

# fmt: off
REWRITE_REFUSALS: tuple[str, ...] = (
    "sorry", "i apologize", "i apologise", "apologies", "my apologies", "i can't", "i cannot",
    "i can not", "i am unable", "i'm unable", "unable to", "i'm not able", "i am not able",
    "as an ai", "as a language model", "as an assistant", "as a search engine",
    "i don't have access", "i do not have access", "not possible for me",
)
"""Phrases of a refusal or an apology: a condensed query holding one is no query
(reformulation); matched as whole words over folded text."""

REWRITE_CHATTER: tuple[str, ...] = (
    "here is", "here's", "here are", "sure", "certainly", "of course", "absolutely",
    "standalone query", "standalone search query", "search query", "rewritten query",
    "reformulated query", "the query is", "the user", "you asked", "your question",
    "let me", "i will", "i'll", "i would", "i think", "i hope", "happy to help",
    "hope this helps", "assistant", "confusion",
)
"""Phrases of an assistant talking about the task rather than writing the query
(reformulation). A phrase the user's own message holds does not count."""
# fmt: on


# ------------------------------------------------------------ query translation

# fmt: off
IRREGULAR_PLURALS: dict[str, str] = {
    "child": "children", "person": "people", "man": "men", "woman": "women",
    "foot": "feet", "tooth": "teeth", "goose": "geese", "mouse": "mice", "louse": "lice",
    "ox": "oxen", "life": "lives", "wife": "wives", "knife": "knives", "leaf": "leaves",
    "half": "halves", "wolf": "wolves", "calf": "calves", "shelf": "shelves",
    "thief": "thieves", "loaf": "loaves", "self": "selves", "analysis": "analyses",
    "crisis": "crises", "thesis": "theses", "diagnosis": "diagnoses",
    "hypothesis": "hypotheses", "criterion": "criteria", "phenomenon": "phenomena",
    "medium": "media", "appendix": "appendices", "matrix": "matrices",
    "vertex": "vertices", "nucleus": "nuclei",
    "fungus": "fungi", "cactus": "cacti", "stimulus": "stimuli", "bacterium": "bacteria",
    "curriculum": "curricula", "alumnus": "alumni",
}
# fmt: on
"""English nouns whose plural the index's stemmer does not join to the singular
("children" and "child" are two terms), for a French plural translated into English."""


# Words that name an edition of a product line after its model number: the "Pixel 8 Pro"
# is no "Pixel 8", a "MacBook Air" a MacBook (product names, the catalog's and others').
EDITION_WORDS = ("air", "pro", "max", "plus", "mini", "ultra", "lite", "slim", "se", "fe")
