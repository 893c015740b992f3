"""Standalone queries for follow-ups: reference queries, condensation and query variants.

The reformulator node turns a message into one readable standalone query
(`reformulated_query`): `<title> — <question>` for an explicit reference, an
LLM rewrite over the Minimal Trail when a real LLM is configured, and with no
LLM a deterministic condensation that carries the salient terms of the
previous search query and titles (:func:`condense`).

One query cannot be right for every follow-up: "any awards" needs the topic of
the conversation, "where to purchase those?" needs the previous answer, a
fresh question needs nothing at all. So the retriever searches a few variants
of the message (:func:`query_variants`) and fuses their rankings by weighted
reciprocal rank (:class:`FusionConfig`). The message alone always takes part
with the largest weight, which keeps its own terms in charge and keeps a topic
shift from being dragged back to the old topic; the variants only add the
history's words that the message lacks.

Everything here except :func:`reformulate_turn` is a pure function of its
arguments: deterministic, offline, no model call.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from langchain_core.messages import HumanMessage, SystemMessage

from threadline.followups.trail import TrailTurn, render_history
from threadline.graph import prompts
from threadline.knowledge.bilingual import translate_query
from threadline.models import quotes_sources
from threadline.text import STOPWORDS, fold, stem, terms, tokenize
from threadline.text.language import detect_language
from threadline.text.lexicons import en, fr

if TYPE_CHECKING:  # the node-facing function only; keeps the pure part light to import
    from threadline.graph.context import Context
    from threadline.graph.state import State
    from threadline.services import Services
    from threadline.store.models import ThreadState

# Request and conversation words carry no topic: they must not be carried into the next
# query, and they do not make a message "about" anything.
_REQUEST_WORDS = frozenset(terms(f"{en.REQUEST_WORDS} {fr.REQUEST_WORDS}"))

# Words an answer uses to talk about its own sources rather than about the topic
# ("The documents do not provide specific information about ..."): never salient.
_ANSWER_FILLER = frozenset(terms(en.ANSWER_FILLER))


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


def reference_query(title: str, question: str) -> str:
    """The retrieval query for a resolved reference: `<title> — <question>`."""
    return f"{title.strip()} — {question.strip()}"


def content_terms(text: str) -> set[str]:
    """The stemmed topic terms of a text: no function words, no request words.

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
    """The topic words of a text, as folded surface words, one per stem.

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
    """The words several past messages share: the conversation's topic, not its details.

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


def condense(question: str, previous_query: str | None, previous_titles: Sequence[str]) -> str:
    """Build a standalone query from the message and the previous turn, with no LLM.

    A previous source title that shares a topic word with the message (the
    "Samsung one") is named in full; otherwise the salient words of the
    previous search query that the message does not already contain are
    carried over (at most twelve), after the message's own words so those stay
    dominant.

    Args:
        question: The user's message.
        previous_query: What the previous retrieval searched, if anything.
        previous_titles: Titles of the previous turn's sources, best first.

    Returns:
        A readable query: the message, possibly followed by carried words in
        parentheses or preceded by the title it names.
    """
    question = question.strip()
    own = content_terms(question)
    for title in previous_titles:
        if own & content_terms(title):
            return f"{title} — {question}"
    if not previous_query:
        return question
    carried = salient_words(previous_query, exclude=set(terms(question)), limit=_MAX_CARRIED)
    if not carried:
        return question
    return f"{question} ({' '.join(carried)})" if fold(question) else " ".join(carried)


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


@dataclass(frozen=True)
class QueryVariant:
    """One query the retriever searches, and its weight in the fusion."""

    name: str
    text: str
    weight: float


@dataclass(frozen=True)
class FusionConfig:
    """Which query variants a turn searches and how much each one counts.

    Weights multiply reciprocal-rank contributions ``weight / (rrf_k + rank)``; a
    weight of 0 leaves a variant out. The defaults were measured on the MTRAG dev
    benchmark, one idea at a time (bench/results/mtrag-dev.md); the LLM weight could
    not be measured offline.

    Attributes:
        question: The message alone: the largest weight, so its terms stay in charge.
        condensed: The deterministic condensation (:func:`condense`), for every turn
            that has a previous one, whatever the route.
        llm: The LLM rewrite, when a real LLM reformulated the message.
        translated: The message's salient words translated into the other language
            through the bilingual lexicon (`threadline.knowledge.bilingual`), scaled by
            the share of the documents in that language: a French question over English
            documents also searches in English words; over French ones it does not
            (a translation nobody needs only adds noise: English questions over the
            English MTRAG corpus lost 0.08 Recall@5 with it).
        answer: The message plus the salient words of the previous answer.
        recurring: The message plus the words several past messages share.
        prior: The previous turn's sources as one more ranking of documents. Measured
            harmful on MTRAG (a follow-up there mostly needs new passages), so 0.
        answer_words: Most words taken from the previous answer.
        recurring_words: Most words taken from the past messages.
        recurring_min: Fewest past messages (questions and answers) a word must occur in.
        standalone: Scale of every history variant when the router took the message
            as a standalone question rather than a follow-up.
        rrf_k: The rank offset of reciprocal rank fusion (60, as usual).
    """

    question: float = 1.0
    condensed: float = 0.25
    llm: float = 1.0
    translated: float = 1.0
    answer: float = 0.5
    recurring: float = 0.25
    prior: float = 0.0
    answer_words: int = 4
    recurring_words: int = 4
    recurring_min: int = 2
    standalone: float = 1.0
    rrf_k: float = 60.0


DEFAULT_FUSION = FusionConfig()


def _with_words(question: str, words: Sequence[str]) -> str:
    """The message followed by carried words, kept apart in parentheses."""
    return f"{question} ({' '.join(words)})" if words else question


# The language a question's words are translated into (the lexicon's other side).
_OTHER_LANGUAGE = {"fr": "en", "en": "fr"}


def query_variants(
    question: str,
    previous: PreviousTurn | None,
    *,
    followup: bool,
    llm_rewrite: str | None = None,
    config: FusionConfig = DEFAULT_FUSION,
    document_languages: Mapping[str, float] | None = None,
) -> list[QueryVariant]:
    """The queries to search for one turn, with their fusion weights.

    Args:
        question: The user's message as typed.
        previous: The conversation so far, or None on a first turn.
        followup: Whether the router took the message as a follow-up; a standalone
            message scales the history variants by `config.standalone`.
        llm_rewrite: The LLM's standalone rewrite of the message, if one was made.
        config: Weights and sizes.
        document_languages: The share of each language among the searched documents
            (`KnowledgeBase.language_shares`); None or {} means unknown: no translation.

    Returns:
        Distinct queries, the message alone first. A first turn gets the message
        alone (and the LLM rewrite, if any). Variants with a zero weight, or whose
        text is already in the list, are left out.
    """
    question = question.strip()
    candidates = [QueryVariant("question", question, config.question)]
    if llm_rewrite and llm_rewrite.strip():
        candidates.append(QueryVariant("llm", llm_rewrite.strip(), config.llm))
    # The share of the documents in the other language; 0 when no translation applies.
    source, target, share = "", "", 0.0
    if config.translated > 0 and document_languages:
        source = detect_language(question)
        target = _OTHER_LANGUAGE.get(source, "")
        share = document_languages.get(target, 0.0) if target else 0.0
        if share > 0:
            translated = translate_query(question, source, target)
            candidates.append(QueryVariant("translated", translated, config.translated * share))
    if previous is not None:
        scale = 1.0 if followup else config.standalone
        own = set(terms(question))
        answer_words = salient_words(
            previous.answer, exclude=own, limit=config.answer_words, by_frequency=True
        )
        shared_words = recurring_words(
            previous.exchanges,
            exclude=own,
            limit=config.recurring_words,
            min_texts=config.recurring_min,
        )
        history = [
            QueryVariant(
                "condensed",
                condense(question, previous.search_query, previous.titles),
                config.condensed * scale,
            ),
            QueryVariant("answer", _with_words(question, answer_words), config.answer * scale),
            QueryVariant(
                "recurring", _with_words(question, shared_words), config.recurring * scale
            ),
        ]
        # With documents in another language, each history variant is also searched
        # translated (words the lexicon lacks, such as carried words already in the
        # documents' language, pass through), its weight split by the language shares.
        candidates += [QueryVariant(v.name, v.text, v.weight * (1 - share)) for v in history] + [
            QueryVariant(
                f"{v.name}_translated", translate_query(v.text, source, target), v.weight * share
            )
            for v in history
            if share > 0
        ]
    variants: list[QueryVariant] = []
    for variant in candidates:
        if variant.weight > 0 and variant.text and variant.text not in {v.text for v in variants}:
            variants.append(variant)
    return variants


def prior_weight(previous: PreviousTurn | None, *, followup: bool, config: FusionConfig) -> float:
    """The fusion weight of the previous turn's sources for this turn (0 on a first turn)."""
    if previous is None or not previous.doc_ids:
        return 0.0
    return config.prior * (1.0 if followup else config.standalone)


def trail_turns(history: Sequence[Mapping[str, Any]]) -> list[TrailTurn]:
    """The graph's history entries as Minimal Trail turns."""
    return [
        TrailTurn(
            question=turn["question"],
            search_query=turn.get("search_query"),
            titles=tuple(turn.get("titles", [])),
            answer=turn.get("answer", ""),
        )
        for turn in history
    ]


def reformulate_turn(state: State, services: Services, context: Context) -> dict[str, Any]:
    """The reformulate node: the message as a standalone retrieval query.

    The graph node and the retrieval benchmark both call this, so the benchmark
    measures exactly what the service does.

    Args:
        state: The turn's state after routing.
        services: Where the chat model and settings come from (the model is only
            touched for a context follow-up).
        context: Per-run knobs (the condensation prompt).

    Returns:
        The partial state update: reformulated_query, doc_scope, followup,
        llm_calls and trace.
    """
    ts, fu = state.thread_state, state.followup.model_copy()
    query, scope, calls = state.query, None, 0
    doc_ids, titles = ts.last_doc_ids, ts.last_titles
    if state.route == "followup_reference":
        if fu.section_id:
            title = next(o.title for o in ts.last_outline if o.id == fu.section_id)
            query, scope = reference_query(title, state.query), list(dict.fromkeys(doc_ids))
        elif fu.document_index:
            index = fu.document_index - 1
            query, scope = reference_query(titles[index], state.query), [doc_ids[index]]
    elif state.route == "followup_context":
        llm = services.llm
        if quotes_sources(llm):
            query = condense(state.query, ts.last_search_query, titles)
            fu.method = "heuristic"
        else:
            history = render_history(
                trail_turns(state.history),
                mode="minimal_trail",
                phase="reformulation",
                max_titles=services.settings.history_max_titles,
            )
            reply = llm.invoke(
                [
                    SystemMessage(context.condense_system_prompt),
                    HumanMessage(
                        prompts.CONDENSE_USER_PROMPT.format(
                            history=history, question=state.query.replace('"', '\\"')
                        )
                    ),
                ]
            )
            calls = 1
            query = reply.text.strip().splitlines()[0].strip() if reply.text.strip() else ""
            query = query.strip('"') or state.query
            fu.method = "llm"
        fu.resolved = True
    return {
        "reformulated_query": query,
        "doc_scope": scope,
        "followup": fu,
        "llm_calls": calls,
        "trace": [{"node": "reformulate", "query": query}],
    }
