"""Condensation: the words of the conversation so far that a follow-up's query may carry.

Pure functions of their arguments (deterministic, offline, no model call): the
reference query of an explicit follow-up, the salient and recurring words of the
history, the condensed query of a context follow-up, the previous question with a
correction applied (:func:`corrected_query`), the check of an LLM's condensed
query (:func:`check_rewrite`), and the `PreviousTurn` the retriever may use.
:mod:`threadline.graph.reformulation` builds the query variants and the reformulate
node on them.

Over 400 lines: every word a follow-up's query carries from the conversation (salient,
recurring, corrected, checked in an LLM's rewrite) is read here with the same term
rules; an elliptical "and X?" went to its own module (`graph.ellipsis`).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from threadline.followups.anaphora import read_correction
from threadline.graph.question_terms import matches_term
from threadline.knowledge.facts import RELATIVE_TIME
from threadline.text import STOPWORDS, fold, stem, terms, tokenize, words
from threadline.text.lexicons import en, fr
from threadline.text.normalize import fold_with_origin

if TYPE_CHECKING:
    from threadline.store.models import ThreadState

# Request and conversation words carry no topic: they must not be carried into the next
# query, and they do not make a message "about" anything.
_REQUEST_WORDS = frozenset(terms(f"{en.REQUEST_WORDS} {fr.REQUEST_WORDS}"))

# Words an answer uses to talk about its own sources rather than about the topic
# ("The documents do not provide specific information about ..."): never salient.
_ANSWER_FILLER = frozenset(terms(en.ANSWER_FILLER))


# Determiners asking for things other than those discussed ("any other river systems?",
# "d'autres jeux ?"): what they qualify (the next few words) is not the previous sources'
# subject, so a title sharing only those words is not the one the message points to.
_OTHERS = frozenset({"other", "others", "another", "autre", "autres"})
_OTHERED_WORDS = 3


def _othered_terms(question: str) -> set[str]:
    """Return the terms a message asks for others of ("other games?" -> {"game"})."""
    tokens = tokenize(question)
    othered: set[str] = set()
    for i, token in enumerate(tokens):
        if token in _OTHERS:
            othered |= set(terms(" ".join(tokens[i + 1 : i + 1 + _OTHERED_WORDS])))
    return othered


# The previous search query may itself carry words from the turn before: a cap keeps a
# long chain of follow-ups from growing the query without bound.
_MAX_CARRIED = 12


def _topic_words(text: str) -> Iterator[tuple[str, str]]:
    """(folded word, stem) for each word of `text` that can carry a topic.

    Stopwords, one-letter tokens, request words and answer filler are skipped.
    """
    for word in tokenize(text):
        if word in STOPWORDS or len(word) < 2:
            continue
        term = stem(word)
        if term not in _REQUEST_WORDS and term not in _ANSWER_FILLER:
            yield word, term


_TITLE_SEPARATOR = " — "


def reference_query(title: str, question: str) -> str:
    """Return the retrieval query for a resolved reference: `<title> — <question>`."""
    return f"{title.strip()}{_TITLE_SEPARATOR}{question.strip()}"


def asked_part(search_query: str) -> str:
    """Return what a search query asked, without the document section it was held to.

    A query naming a title alone (`<title> — <question>`) names its subject (an article,
    a product: "Samsung Galaxy S24 — the Samsung one"), which a later follow-up carries.
    One naming a document and its section (`<document> — <section> — <question>`)
    names a place: where that question was answered, not what the conversation is
    about. Carried into a later follow-up, the place holds the search to that section
    ("how many stores?" after « et le résultat net ? », searched in the annual report's
    financial results, kept out the highlights counting the stores): its question alone
    is carried.
    """
    parts = search_query.split(_TITLE_SEPARATOR)
    return search_query if len(parts) < 3 else parts[-1]


def content_terms(text: str) -> set[str]:
    """Return the stemmed topic terms of a text: no function words, no request words.

    Args:
        text: Any text (question, query, title).

    Returns:
        The set of stems that say what the text is about.
    """
    return set(terms(text)) - _REQUEST_WORDS


def salient_words(
    text: str,
    *,
    exclude: set[str] | frozenset[str] = frozenset(),
    limit: int | None = None,
    by_frequency: bool = False,
) -> list[str]:
    """Return the topic words of a text, as folded surface words, one per stem.

    Args:
        text: The text to draw words from (a previous query, title or answer).
        exclude: Stems not to return (typically the new question's own terms).
        limit: Most words returned; None keeps them all.
        by_frequency: Order by how often a stem occurs in `text` (ties: first
            occurrence), so a long answer gives its recurring topic first; otherwise
            reading order.

    Returns:
        Surface words (accents and case folded) whose stems are neither stopwords,
        request words, answer filler nor in `exclude`; one-letter tokens are dropped.
    """
    firsts: dict[str, str] = {}
    counts: Counter[str] = Counter()
    for word, term in _topic_words(text):
        if term not in exclude:
            counts[term] += 1
            firsts.setdefault(term, word)
    order = list(firsts)
    if by_frequency:
        position = {term: i for i, term in enumerate(order)}
        order.sort(key=lambda term: (-counts[term], position[term]))
    words = [firsts[term] for term in order]
    return words if limit is None else words[:limit]


def recurring_words(
    exchanges: Sequence[tuple[str, str]],
    *,
    exclude: set[str] | frozenset[str] = frozenset(),
    limit: int,
    min_texts: int = 2,
) -> list[str]:
    """Return the words several past messages share: the topic, not its details.

    A follow-up in a long conversation is about the subject the turns share (a
    series, a product, a tax), rather than about the details of the last answer,
    which point back at the last turn's own sources. Each past question and each
    past answer counts as one text; a stem scores the number of texts it occurs
    in, ties going to the most recent.

    Args:
        exchanges: Past (question, answer) pairs, oldest first.
        exclude: Stems not to return (the new question's own terms).
        limit: Most words returned.
        min_texts: Fewest texts a stem must occur in.

    Returns:
        Surface words, most widespread first.
    """
    texts_with: dict[str, int] = {}
    last_seen: dict[str, int] = {}
    surface: dict[str, str] = {}
    texts = [text for exchange in exchanges for text in exchange]
    for index, text in enumerate(texts):
        for word, term in _topic_words(text):
            if term in exclude:
                continue
            if last_seen.get(term) != index:  # a text counts once per stem
                texts_with[term] = texts_with.get(term, 0) + 1
                last_seen[term] = index
            surface[term] = word
    ranked = sorted(
        (term for term, count in texts_with.items() if count >= min_texts),
        key=lambda term: (-texts_with[term], -last_seen[term]),
    )
    return [surface[term] for term in ranked[:limit]]


def condense(
    question: str,
    previous_query: str | None,
    previous_titles: Sequence[str],
    *,
    exclude: set[str] | frozenset[str] = frozenset(),
) -> str:
    """Build a standalone query from the message and the previous turn, with no LLM.

    A previous source title that shares a topic word with the message (the
    "Samsung one") is named in full, unless the words it shares are what the message
    asks for others of ("any other river systems?": naming the previous source would
    pull the message back to it); otherwise the salient words of the
    previous search query that the message does not already contain are
    carried over (at most twelve), after the message's own words so those stay
    dominant.

    Args:
        question: The user's message.
        previous_query: What the previous retrieval searched, if anything.
        previous_titles: Titles of the previous turn's sources, best first.
        exclude: Stems never carried, nor matched with a title: what the message says
            it did not mean ("not the Mars game").

    Returns:
        A readable query: the message, possibly followed by carried words in
        parentheses or preceded by the title it names.
    """
    question = question.strip()
    own = content_terms(question) - _othered_terms(question)
    for title in previous_titles:
        if own & content_terms(title) and not exclude & content_terms(title):
            return reference_query(title, question)
    if not previous_query:
        return question
    # The previous question's time ("last year") was when it asked, no word of its topic:
    # "and the year before?" carries the revenue, not "last".
    carried = salient_words(
        RELATIVE_TIME.sub(" ", asked_part(previous_query)),
        exclude=set(terms(question)) | exclude,
        limit=_MAX_CARRIED,
    )
    if not carried:
        return question
    return f"{question} ({' '.join(carried)})" if fold(question) else " ".join(carried)


# Most words of the previous question a correction carries: a question is short, and
# its words past this are rarely its topic.
_CORRECTED_WORDS = 8


@dataclass(frozen=True)
class CorrectedQuestion:
    """A correcting message read against the question it corrects.

    Attributes:
        meant: What the message means, without its correcting formulas and rejections.
        carried: The previous question's topic words the message keeps (not rejected,
            not already said).
        rejected: Stems of what the message says it did not mean.
    """

    meant: str
    carried: list[str]
    rejected: frozenset[str]

    @property
    def query(self) -> str:
        """The previous question with the correction applied, as one query."""
        return f"{self.meant} ({' '.join(self.carried)})" if self.carried else self.meant


def correction_of(question: str, previous_question: str) -> CorrectedQuestion | None:
    """Read a message as a correction of the previous question.

    Args:
        question: The user's message.
        previous_question: The user's previous message.

    Returns:
        What the message means, the previous question's words it keeps and the stems it
        rejects; None when the message corrects nothing
        (:func:`threadline.followups.anaphora.read_correction`).
    """
    correction = read_correction(question)
    if correction is None or not previous_question.strip():
        return None
    meant = correction.meant if content_terms(correction.meant) else question.strip()
    said = set(terms(meant))
    rejected = frozenset(set(terms(correction.rejected)) - said)
    carried = salient_words(previous_question, exclude=said | rejected, limit=_CORRECTED_WORDS)
    return CorrectedQuestion(meant=meant, carried=carried, rejected=rejected)


def corrected_query(question: str, previous_question: str) -> str | None:
    """Return the previous question with a correcting message applied, or None.

    "No, I meant photos in the air." after "who takes photos of planes in the air" is
    that question narrowed, not a question about the answer it corrects: its query is
    what it means ("photos in the air") followed by the previous question's topic
    words it does not reject ("(takes planes)"). What it rejects ("not the United
    States") is searched nowhere.

    Args:
        question: The user's message.
        previous_question: The user's previous message.

    Returns:
        The corrected query, or None when the message corrects nothing
        (:func:`threadline.followups.anaphora.read_correction`).
    """
    corrected = correction_of(question, previous_question)
    return corrected.query if corrected is not None else None


RewriteRejection = Literal[
    "empty", "refusal", "chatter", "multi_line", "too_long", "copy_of_previous", "dropped_new_terms"
]
"""Why an LLM's condensed query is not searched (the trace's `llm_rewrite_rejected`)."""

# Refusals and assistant talk, as word tuples of phrase-folded text, in both languages.
_REFUSALS = tuple(
    tuple(words(fold_with_origin(p).text)) for p in en.REWRITE_REFUSALS + fr.REWRITE_REFUSALS
)
_CHATTER = tuple(
    tuple(words(fold_with_origin(p).text)) for p in en.REWRITE_CHATTER + fr.REWRITE_CHATTER
)

# A standalone query is the message plus what it refers to: words beyond twice the
# message, the previous query and the longest title (plus this slack) are an essay.
_REWRITE_SLACK_WORDS = 8

# Quotes and backticks a model wraps its one-line answer in.
_WRAPPING = "\"'`\u201c\u201d\u00ab\u00bb "


def _phrase_found(text_words: Sequence[str], phrases: Sequence[tuple[str, ...]]) -> bool:
    """Tell whether one of the phrases occurs in the words as consecutive words."""
    padded = f" {' '.join(text_words)} "
    return any(phrase and f" {' '.join(phrase)} " in padded for phrase in phrases)


def check_rewrite(
    rewrite: str,
    question: str,
    *,
    previous_question: str = "",
    previous_query: str | None = None,
    titles: Sequence[str] = (),
) -> tuple[str, RewriteRejection | None]:
    """Check an LLM's condensed query before it is searched.

    A small model answers the condensation prompt with an apology, with talk about the
    task, with several lines, or with the previous question word for word, dropping
    what the new message asked. None of those is a query: the caller falls back to
    :func:`condense`. Phrases of refusal or chatter that the user's message or the
    conversation itself holds ("the assistant" of a product) do not count.

    Args:
        rewrite: The model's reply, as written.
        question: The user's new message.
        previous_question: The previous user message, if any.
        previous_query: What the previous retrieval searched, if anything.
        titles: Titles of the previous turn's sources.

    Returns:
        The query (the reply trimmed of surrounding quotes) and None when it may be
        searched, else the reply trimmed and why it is rejected.
    """
    query = rewrite.strip().strip(_WRAPPING).strip()
    if not query:
        return query, "empty"
    said = words(
        fold_with_origin(
            " ".join([question, previous_question, previous_query or "", *titles])
        ).text
    )
    reply_words = words(fold_with_origin(query).text)
    talk: tuple[tuple[RewriteRejection, tuple[tuple[str, ...], ...]], ...] = (
        ("refusal", _REFUSALS),
        ("chatter", _CHATTER),
    )
    for reason, phrases in talk:
        unsaid = [p for p in phrases if not _phrase_found(said, [p])]
        if _phrase_found(reply_words, unsaid):
            return query, reason
    if len([line for line in query.splitlines() if line.strip()]) > 1:
        return query, "multi_line"
    longest_title = max((len(words(fold(t))) for t in titles), default=0)
    limit = _REWRITE_SLACK_WORDS + 2 * (
        len(words(fold(question)))
        + len(words(fold(previous_query or previous_question)))
        + longest_title
    )
    if len(reply_words) > limit:
        return query, "too_long"
    vocabulary = set(terms(query))
    if not vocabulary:  # punctuation and function words only
        return query, "empty"
    if not all(matches_term(term, vocabulary) for term in content_terms(question)):
        before = set(terms(f"{previous_question} {previous_query or ''}"))
        return query, "copy_of_previous" if vocabulary <= before else "dropped_new_terms"
    return query, None


@dataclass(frozen=True)
class PreviousTurn:
    """What the retriever may use of the conversation so far: never document text.

    Attributes:
        search_query: What the previous retrieval searched (thread state), if any.
        titles: Titles of the previous turn's sources, best first (thread state).
        doc_ids: Ids of the previous turn's sources, best first (thread state).
        answer: The previous assistant answer (history), possibly empty.
        exchanges: Every (question, answer) pair of the history, oldest first.
    """

    search_query: str | None = None
    titles: tuple[str, ...] = ()
    doc_ids: tuple[str, ...] = ()
    answer: str = ""
    exchanges: tuple[tuple[str, str], ...] = ()


def previous_turn(
    history: Sequence[Mapping[str, Any]], thread_state: ThreadState
) -> PreviousTurn | None:
    """Gather the previous turn from the graph state, or None on a first turn.

    Args:
        history: Past turns, oldest first, as `load_conversation` builds them.
        thread_state: Last search query, titles and doc ids (the store's thread state).

    Returns:
        The previous turn, or None when the conversation has no earlier turn.
    """
    if not history:
        return None
    return PreviousTurn(
        search_query=thread_state.last_search_query,
        titles=tuple(t for t in thread_state.last_titles if t),
        doc_ids=tuple(dict.fromkeys(thread_state.last_doc_ids)),
        answer=str(history[-1].get("answer") or ""),
        exchanges=tuple(
            (str(turn.get("question") or ""), str(turn.get("answer") or "")) for turn in history
        ),
    )
