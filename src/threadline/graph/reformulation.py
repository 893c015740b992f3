"""Standalone queries for follow-ups: reference queries, condensation and query variants.

The reformulator node turns a message into one readable standalone query
(`reformulated_query`): `<title> — <question>` for an explicit reference, an
LLM rewrite over the Minimal Trail when a real LLM is configured, and with no
LLM a deterministic condensation that carries the salient terms of the
previous search query and titles (:func:`condense`). An LLM rewrite is checked
before it is searched (:func:`check_rewrite`: no refusal, no chatter, one line, not
far too long, the new message's content words kept); a rejected one gives way to
the deterministic condensation, and the trace says why.

One query cannot be right for every follow-up: "any awards" needs the topic of
the conversation, "where to purchase those?" needs the previous answer, a
fresh question needs nothing at all. So the retriever searches a few variants
of the message (:func:`query_variants`) and fuses their rankings by weighted
reciprocal rank (:class:`threadline.graph.fusion.FusionConfig`). The message alone always takes part
with the largest weight, which keeps its own terms in charge and keeps a topic
shift from being dragged back to the old topic; the variants only add the
history's words that the message lacks. One kind of turn is the exception: a message
that corrects the question asked just before ("No, I meant photos in the air.") is that
question narrowed, so the previous question with the correction applied
(:func:`corrected_query`) leads, and the answer it corrects counts less.

Everything here except :func:`reformulate_turn` is a pure function of its
arguments: deterministic, offline, no model call. The condensation helpers (salient
and recurring words, :func:`condense`, :class:`PreviousTurn`) live in
:mod:`threadline.graph.condensation` and are re-exported here.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from langchain_core.messages import BaseMessage, HumanMessage, SystemMessage

from threadline.followups.trail import TrailTurn, render_history
from threadline.graph import prompts
from threadline.graph.clippings import with_clippings_read
from threadline.graph.condensation import (
    CorrectedQuestion,
    PreviousTurn,
    RewriteRejection,
    check_rewrite,
    condense,
    content_terms,
    corrected_query,
    correction_of,
    previous_turn,
    recurring_words,
    reference_query,
    salient_words,
)
from threadline.graph.ellipsis import substituted_question
from threadline.graph.fusion import DEFAULT_FUSION, FusionConfig
from threadline.graph.question_terms import asks_of_the_subject
from threadline.graph.question_terms import content_terms as asked_terms
from threadline.knowledge.bilingual import content_words, translate_query
from threadline.knowledge.facts import ASKING_TERMS, RELATIVE_TIME, as_a_staff_count, asked_type
from threadline.knowledge.language import without_lead_in
from threadline.models import quotes_sources
from threadline.text import terms
from threadline.text.language import detect_language

__all__ = [
    "CorrectedQuestion",
    "PreviousTurn",
    "QueryVariant",
    "RewriteRejection",
    "check_rewrite",
    "condense",
    "content_terms",
    "corrected_query",
    "correction_of",
    "previous_turn",
    "prior_weight",
    "query_variants",
    "recurring_words",
    "reference_query",
    "reformulate_turn",
    "salient_words",
    "trail_turns",
]

if TYPE_CHECKING:  # the node-facing function only; keeps the pure part light to import
    from threadline.graph.context import Context
    from threadline.graph.state import State
    from threadline.services import Services


@dataclass(frozen=True)
class QueryVariant:
    """One query the retriever searches, and its weight in the fusion."""

    name: str
    text: str
    weight: float
    # The language the query is written in when the documents are searched in two
    # ("" otherwise): a translated variant's is the documents' other language.
    language: str = ""


def _with_words(question: str, words: Sequence[str]) -> str:
    """Return the message followed by carried words, kept apart in parentheses."""
    return f"{question} ({' '.join(words)})" if words else question


def _conversation_language(previous: PreviousTurn | None) -> str | None:
    """Return the language of the past questions together, or None on a first turn."""
    if previous is None or not previous.exchanges:
        return None
    return detect_language(" ".join(question for question, _ in previous.exchanges))


# The language a question's words are translated into (the lexicon's other side).
_OTHER_LANGUAGE = {"fr": "en", "en": "fr"}

# The words asking for a kind of fact ("fast", « délai »): no topic of their own.
_ASKING_WORDS = frozenset().union(*ASKING_TERMS.values())
# What a statement's circumstances are: its reason, its time, how long and how often.
_CIRCUMSTANCES = frozenset({"reason", "date", "duration", "frequency"})


@dataclass(frozen=True)
class _Translation:
    """The message in the documents' other language, when the documents are in two.

    Attributes:
        source: The message's language ("" when no translation was considered).
        target: The other language of the lexicon.
        share: The share of the documents in `target`; 0.0 when no translation applies.
        text: The message translated ("" when `share` is 0).
    """

    source: str = ""
    target: str = ""
    share: float = 0.0
    text: str = ""

    def in_target_language(self, text: str, spoken: str | None) -> str:
        """Return a past text translated into `target` if written in `source`, else as is."""
        if detect_language(text, fallback=spoken) == self.source:
            return translate_query(text, self.source, self.target)
        return text


@dataclass(frozen=True)
class _HistoryReading:
    """What the history variants of one turn are built from, read once.

    Attributes:
        previous: The conversation so far.
        corrected: The previous question as the message corrects it, if it does.
        substituted: The previous question asked again of what an ellipsis names.
        own: The message's terms (and its translation's) and what a correction rejects:
            no variant carries them again.
        answer_words: The previous answer's salient words the message lacks.
        shared_words: The words several past exchanges share (the topic).
        scale: 1.0 for a follow-up, `config.standalone` for a standalone message.
        answer_weight: The answer variant's weight before `scale`.
    """

    previous: PreviousTurn
    corrected: CorrectedQuestion | None
    substituted: str | None
    own: set[str]
    answer_words: list[str]
    shared_words: list[str]
    scale: float
    answer_weight: float

    @property
    def rejected(self) -> frozenset[str]:
        """What a correction says the user did not mean (empty without one)."""
        return self.corrected.rejected if self.corrected is not None else frozenset()


def _rewritten_questions(
    question: str, previous: PreviousTurn | None, config: FusionConfig
) -> tuple[CorrectedQuestion | None, str | None]:
    """Return the previous question as the message corrects it, or as an ellipsis re-asks it.

    At most one of the two is not None, and neither on a first turn.
    """
    # A correction of the previous question is searched as what it means, and the
    # previous question with the correction applied joins the variants.
    corrected = (
        correction_of(question, previous.exchanges[-1][0])
        if previous is not None and previous.exchanges and config.corrected > 0
        else None
    )
    # "and Business?" after "How much does the Basic plan cost?" is that question asked
    # of the Business plan: searched whole, like a corrected question.
    substituted = (
        substituted_question(
            question,
            previous.exchanges[-1][0],
            previous.search_query,
            previous.exchanges[-2][0] if len(previous.exchanges) > 1 else "",
        )
        if corrected is None and previous is not None and previous.exchanges
        else None
    )
    return corrected, substituted


def _translation(
    question: str,
    spoken: str | None,
    config: FusionConfig,
    document_languages: Mapping[str, float] | None,
) -> _Translation:
    """Return the message translated for the documents written in the other language."""
    if not (config.translated > 0 and document_languages):
        return _Translation()
    source = detect_language(question, fallback=spoken)
    target = _OTHER_LANGUAGE.get(source, "")
    share = document_languages.get(target, 0.0) if target else 0.0
    if share < config.translated_min_share:
        share = 0.0  # misdetected passages, not documents in that language
    translated = ""
    if share > 0:
        # The question's time said relative to now ("last year") is no word the other
        # language's documents write of that year ("de l'année" is any year's).
        asked = as_a_staff_count(question, source)  # people who work: the staff
        translated = translate_query(RELATIVE_TIME.sub(" ", asked), source, target)
    return _Translation(source, target, share, translated)


def _message_variants(
    question: str, llm_rewrite: str | None, translation: _Translation, config: FusionConfig
) -> list[QueryVariant]:
    """Return the variants of the message itself: as typed, rewritten, translated."""
    # People a question says work are the staff, which documents count by their own noun
    # (« 2 140 collaborateurs ... dont 520 au service client »): searched as such, in the
    # question's language as in its translation.
    question = as_a_staff_count(question, detect_language(question))
    candidates = [QueryVariant("question", question, config.question)]
    if llm_rewrite and llm_rewrite.strip():
        candidates.append(QueryVariant("llm", llm_rewrite.strip(), config.llm))
    share = translation.share
    if share > 0:
        candidates.append(QueryVariant("translated", translation.text, config.translated * share))
        # The message as typed gives way to its translation, in proportion to the
        # documents it cannot match as typed.
        same_language = config.question * (1 - share)
        untranslated = config.question * share * config.untranslated
        content = content_words(question, translation.source)
        if config.typed_content > 0 and content and content != question:
            # What the other-language documents can match as typed is shared with the
            # message's content words: the English-only dense model reads those through
            # the pieces they share with English, without the French sentence around.
            candidates[0] = QueryVariant(
                "question", question, same_language + untranslated * (1 - config.typed_content)
            )
            candidates.append(QueryVariant("content", content, untranslated * config.typed_content))
        else:
            candidates[0] = QueryVariant("question", question, same_language + untranslated)
    return candidates


def _read_history(
    question: str,
    previous: PreviousTurn,
    rewrites: tuple[CorrectedQuestion | None, str | None],
    translation: _Translation,
    spoken: str | None,
    *,
    followup: bool,
    config: FusionConfig,
) -> _HistoryReading:
    """Return the words and weights the history variants of the turn carry."""
    corrected, substituted = rewrites
    rejected = corrected.rejected if corrected is not None else frozenset()
    own = set(terms(question)) | set(terms(translation.text)) | rejected
    answer_words = salient_words(
        without_lead_in(previous.answer),
        exclude=own,
        limit=config.answer_words,
        by_frequency=True,
    )
    exchanges = tuple((q, without_lead_in(a)) for q, a in previous.exchanges)
    if translation.share > 0:
        # Past questions in the asker's language and answers in the documents' one
        # share no words: the questions are compared in translation, so the topic
        # they share with the answers recurs.
        exchanges = tuple((translation.in_target_language(q, spoken), a) for q, a in exchanges)
    shared_words = recurring_words(
        exchanges,
        exclude=own,
        limit=config.recurring_words,
        min_texts=config.recurring_min,
    )
    # The answer a correction corrects is what the user did not mean, and the answer
    # an ellipsis follows is about the thing it replaces.
    answer_weight = config.answer * (config.corrected_answer if corrected or substituted else 1.0)
    return _HistoryReading(
        previous=previous,
        corrected=corrected,
        substituted=substituted,
        own=own,
        answer_words=answer_words,
        shared_words=shared_words,
        scale=1.0 if followup else config.standalone,
        answer_weight=answer_weight,
    )


def _history_variants(
    question: str, history: _HistoryReading, config: FusionConfig
) -> list[QueryVariant]:
    """Return the variants that add the history's words to the message as typed."""
    previous, scale = history.previous, history.scale
    variants = [
        QueryVariant(
            "condensed",
            condense(question, previous.search_query, previous.titles, exclude=history.rejected),
            config.condensed * scale,
        ),
        QueryVariant(
            "answer", _with_words(question, history.answer_words), history.answer_weight * scale
        ),
        QueryVariant(
            "recurring", _with_words(question, history.shared_words), config.recurring * scale
        ),
    ]
    if history.corrected is not None:
        variants.insert(0, QueryVariant("corrected", history.corrected.query, config.corrected))
    if history.substituted is not None:
        variants.insert(0, QueryVariant("substituted", history.substituted, config.corrected))
    return variants


def _translated_history_variants(
    history: _HistoryReading, translation: _Translation, spoken: str | None, config: FusionConfig
) -> list[QueryVariant]:
    """Return the history variants again with the message translated.

    With documents in another language, each history variant is also searched with the
    message translated, its weight split by the language shares. Only the message is
    translated: the words carried from the answers and titles are in the documents'
    language already ("court" must stay a court, not "short").
    """
    previous, scale, share = history.previous, history.scale, translation.share
    translated = translation.text
    variants: list[QueryVariant] = []
    previous_query = previous.search_query or ""
    if previous_query:
        previous_query = translation.in_target_language(previous_query, spoken)
    if history.corrected is not None:
        corrected_question = translation.in_target_language(previous.exchanges[-1][0], spoken)
        carried = salient_words(
            corrected_question, exclude=history.own, limit=len(history.corrected.carried) or None
        )
        variants.append(
            QueryVariant(
                "corrected_translated", _with_words(translated, carried), config.corrected * share
            )
        )
    if history.substituted is not None:
        asked = translation.in_target_language(history.substituted, spoken)
        variants.append(QueryVariant("substituted_translated", asked, config.corrected * share))
    return [
        *variants,
        QueryVariant(
            "condensed_translated",
            condense(translated, previous_query, previous.titles, exclude=history.rejected),
            config.condensed * scale * share,
        ),
        QueryVariant(
            "answer_translated",
            _with_words(translated, history.answer_words),
            history.answer_weight * scale * share,
        ),
        QueryVariant(
            "recurring_translated",
            _with_words(translated, history.shared_words),
            config.recurring * scale * share,
        ),
    ]


def _distinct_variants(
    candidates: Sequence[QueryVariant], translation: _Translation
) -> list[QueryVariant]:
    """Return the candidates with a weight and a text not listed before, language set."""
    # A variant whose text is already listed adds no search and no weight: its weight
    # was tuned for a ranking of its own. Adding it to the first one's (as fusing two
    # identical rankings would) measured 0.758 / 0.693 English and 0.756 / 0.686 French
    # (R@5 / nDCG@5, MTRAG dev, one index) against 0.758 / 0.696 and 0.762 / 0.689.
    variants: list[QueryVariant] = []
    for variant in candidates:
        if variant.weight > 0 and variant.text and variant.text not in {v.text for v in variants}:
            written_in = (
                translation.target if variant.name.endswith("translated") else translation.source
            )
            variants.append(replace(variant, language=written_in if translation.share > 0 else ""))
    return variants


def query_variants(
    question: str,
    previous: PreviousTurn | None,
    *,
    followup: bool,
    llm_rewrite: str | None = None,
    config: FusionConfig = DEFAULT_FUSION,
    document_languages: Mapping[str, float] | None = None,
) -> list[QueryVariant]:
    """Return the queries to search for one turn, with their fusion weights.

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
        alone (and the LLM rewrite, if any). A correction of the previous question
        also gets that question corrected (`corrected`, weighing `config.corrected`),
        its answer variant scaled by `config.corrected_answer`, and what it rejects
        carried by no variant. Variants with a zero weight, or whose
        text is already in the list, are left out.
    """
    question = question.strip()
    rewrites = _rewritten_questions(question, previous, config)
    # A message nothing marks as one language ("Donation") is in the conversation's.
    spoken = _conversation_language(previous)
    translation = _translation(question, spoken, config, document_languages)
    candidates = _message_variants(question, llm_rewrite, translation, config)
    if previous is not None:
        history = _read_history(
            question, previous, rewrites, translation, spoken, followup=followup, config=config
        )
        candidates += [
            QueryVariant(v.name, v.text, v.weight * (1 - translation.share))
            for v in _history_variants(question, history, config)
        ]
        if translation.share > 0:
            candidates += _translated_history_variants(history, translation, spoken, config)
    return _distinct_variants(candidates, translation)


def asks_a_circumstance_of_what_was_said(question: str) -> bool:
    """Whether a message asks only why, when, how long or how often ("why?", "how fast?").

    It names nothing of its own (its words are question words and the words asking for
    that kind of fact: a duration's "fast", « délai »): it asks a circumstance of what
    the previous answer stated, not for new things ("which is the most popular?",
    "how do I use them?" ask of others, which new passages state).
    """
    return asked_type(question) in _CIRCUMSTANCES and not set(asked_terms(question)) - _ASKING_WORDS


def prior_weight(
    previous: PreviousTurn | None, *, followup: bool, config: FusionConfig, question: str = ""
) -> float:
    """Return the fusion weight of the previous turn's sources (0 on a first turn).

    A follow-up asking only a circumstance of what was said weighs them
    `config.prior_circumstance`: "how fast?" after the lost-laptop rule asks of that
    rule's passage, which the carried words ("lose laptop") alone rank below the
    catalog's laptops.
    """
    if previous is None or not previous.doc_ids:
        return 0.0
    weight = config.prior
    if followup and question and asks_a_circumstance_of_what_was_said(question):
        weight = max(weight, config.prior_circumstance)
    return weight * (1.0 if followup else config.standalone)


def trail_turns(history: Sequence[Mapping[str, Any]]) -> list[TrailTurn]:
    """Return the graph's history entries as Minimal Trail turns."""
    return [
        TrailTurn(
            question=turn["question"],
            search_query=turn.get("search_query"),
            titles=tuple(turn.get("titles", [])),
            answer=turn.get("answer", ""),
        )
        for turn in history
    ]


# A rejected rewrite is kept in the trace for diagnosis, cut to this length (a runaway
# generation can be thousands of words).
_TRACED_REWRITE_CHARS = 200


def condense_messages(state: State, services: Services, context: Context) -> list[BaseMessage]:
    """Return the condensation prompt: the Minimal Trail and the message to rewrite."""
    history = render_history(
        trail_turns(state.history),
        mode="minimal_trail",
        phase="reformulation",
        max_titles=services.settings.history_max_titles,
    )
    return [
        SystemMessage(context.condense_system_prompt),
        HumanMessage(
            prompts.CONDENSE_USER_PROMPT.format(
                history=history, question=state.query.replace('"', '\\"')
            )
        ),
    ]


def reformulate_turn(state: State, services: Services, context: Context) -> dict[str, Any]:
    """Make the message a standalone retrieval query (the reformulate node).

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
    trace: dict[str, Any] = {"node": "reformulate"}
    doc_ids, titles = ts.last_doc_ids, ts.last_titles
    if state.route == "followup_reference":
        if fu.section_id:
            # Every section the message names is searched: "compare S1 and S3" needs both.
            named = [fu.section_id, *fu.also_sections]
            title = " — ".join(o.title for i in named for o in ts.last_outline if o.id == i)
            query, scope = reference_query(title, state.query), list(dict.fromkeys(doc_ids))
        elif fu.document_index:
            index = fu.document_index - 1
            query, scope = reference_query(titles[index], state.query), [doc_ids[index]]
    elif state.route == "followup_context":
        llm = services.llm
        last_query = ts.last_search_query
        if state.history and not state.history[-1].get("titles"):
            last_question = str(state.history[-1].get("question") or "")
            if not asks_of_the_subject(last_question):
                # "how much is it?" after "Do you sell tablets?" (declined) asks of the
                # tablets: what that question was searched with (the iPhone discussed
                # before it) and the sources answered before it are of another subject,
                # which the declined question left.
                last_query, titles = last_question, []
        if quotes_sources(llm):
            previous = str(state.history[-1].get("question") or "") if state.history else ""
            continued = (
                str(state.history[-2].get("question") or "") if len(state.history) > 1 else ""
            )
            # « et la marge opé ? »: searched as the word of the conversation it clips.
            message = with_clippings_read(
                state.query, str(state.history[-1].get("answer") or "") if state.history else ""
            )
            query = substituted_question(message, previous, last_query, continued) or condense(
                message, last_query, titles
            )
            fu.method = "heuristic"
        else:
            reply = llm.invoke(condense_messages(state, services, context))
            calls = 1
            previous = state.history[-1].get("question", "") if state.history else ""
            query, rejected = check_rewrite(
                reply.text,
                state.query,
                previous_question=str(previous or ""),
                previous_query=last_query,
                titles=titles,
            )
            fu.method = "llm"
            if rejected:
                trace["llm_rewrite_rejected"] = rejected
                trace["llm_rewrite"] = query[:_TRACED_REWRITE_CHARS]
                query = condense(state.query, last_query, titles)
                fu.method = "heuristic"
        fu.resolved = True
    trace["query"] = query
    return {
        "reformulated_query": query,
        "doc_scope": scope,
        "followup": fu,
        "llm_calls": calls,
        "trace": [trace],
    }
