"""The generator's parts: the prompt, the evidence decision, the structured LLM call, the guard.

`graph.generate` strings them together; they are module-level so tests and the
benchmarks call the very same functions.

Over 400 lines: the question a turn asks, the evidence decision, the guard over a
model's verdict and the one structured call that returns it are one contract (what the
call is asked is what the guard checks); the prompt's parts would move out first.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Sequence
from functools import lru_cache
from typing import TYPE_CHECKING, Any, Literal, get_args

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import BaseMessage, HumanMessage, SystemMessage
from langchain_core.utils.json import parse_partial_json
from pydantic import BaseModel, Field

from threadline.followups.trail import render_history
from threadline.graph import prompts
from threadline.graph.anchors import as_the_passages_write_it
from threadline.graph.catalog_requests import with_catalog_capitals
from threadline.graph.clippings import with_clippings_read
from threadline.graph.ellipsis import (
    changes_only_the_year,
    owned_by_the_one_named,
    read_ellipsis,
    substituted_question,
    with_the_owner_named,
    with_the_year_meant,
)
from threadline.graph.evidence import Evidence, Verdict, decide
from threadline.graph.grounding import neutralize_markers
from threadline.graph.picked import picked_by_the_answer
from threadline.graph.question_terms import PRONOUN
from threadline.graph.reformulation import trail_turns
from threadline.knowledge.facts import revenue_spelled_out
from threadline.models.answer_prompt import AnswerPrompt, PromptSource, render_answer_prompt
from threadline.models.structured import (
    MODES,
    STRUCTURED_MODES,
    StructuredMode,
    format_unsupported,
    server_key,
)
from threadline.text.language import detect_language

if TYPE_CHECKING:
    from threadline.graph.context import Context
    from threadline.graph.state import State
    from threadline.services import Services

STRUCTURED_TAG = "threadline:structured"
"""Tag of the structured generation call: its tokens are JSON, not answer text to stream."""

# Evidence failures no model can talk its way past: a named thing absent from every
# passage, the asked-for kind of fact (a price, a date...) absent, nothing retrieved,
# several equally fitting candidates, or a follow-up whose supporting passages are all
# off the conversation's subject (its names absent: James Dean's awards after questions
# on The Office). "Most content words absent" is not among them: a model reads
# paraphrases that word matching misses.
HARD_REASONS = ("named_thing_missing", "no_context", "unanchored", "off_the_subject")


VERDICTS = ("answer", "partial", "not_in_documents", "ambiguous")


class GeneratedAnswer(BaseModel):
    """What the one generation call returns: the decision and the answer together."""

    verdict: Literal["answer", "partial", "not_in_documents", "ambiguous"] = Field(
        description="answer: the sources answer the question; partial: they answer part of "
        "it; not_in_documents: they do not answer it; ambiguous: the question could mean "
        "several different things found in the sources."
    )
    answer: str = Field(
        description="The answer with [n] citations (empty unless answer or partial)."
    )
    missing: list[str] = Field(
        default_factory=list, description="For partial: what the sources do not cover."
    )


def language_of(state: State) -> str:
    """Return the answer language: the request's, else the question's.

    A message nothing marks as one language ("source 2", "S3", "Donation") is in the
    conversation's: its past questions' language.
    """
    if state.language:
        return state.language
    spoken = " ".join(str(h.get("question") or "") for h in state.history)
    return detect_language(state.query, fallback=detect_language(spoken) if spoken else None)


def asked_question(state: State, names: Sequence[str] = ()) -> str:
    """Return the question the turn asks: the message, or the one an ellipsis stands for.

    "Et pour le plan Enterprise ?" after "Quel est le SLA du plan Business ?" asks "Quel
    est le SLA du plan Enterprise ?" (`graph.ellipsis`): that is what the passages must
    answer and what an answer quotes for. What a company made is asked as its revenue
    (`facts.revenue_spelled_out`). The catalog's product `names` typed in lower case are
    read with their capitals (`with_catalog_capitals`), in the message and the question
    before it: "and on the nokia?" after "what is the warranty on the pixel 8 pro" asks
    the Nokia's warranty. A possessive "its" is the one thing the previous question
    named (`ellipsis.owned_by_the_one_named`): "what's its SLA?" after "What is the
    Enterprise plan?" asks the Enterprise SLA. The one name is read as the passages
    write it (`anchors.as_the_passages_write_it`): "what is the business plan?" names
    the plan every passage writes "Business plan", typed without its capital.
    """
    if state.route == "tool":
        return state.query
    query = state.query
    if names:
        query = with_catalog_capitals(query, names, lone_words=read_ellipsis(query) is not None)
    if not state.history:
        return revenue_spelled_out(query)
    previous = str(state.history[-1].get("question") or "")
    if names:
        previous = with_catalog_capitals(previous, names)
    # The passages read now and what the previous answers quoted of theirs: where the
    # name asked about was written ("The Business plan costs ...").
    texts = [str(c.get("text", "")) for c in state.chunks]
    texts += [str(h.get("answer") or "") for h in state.history[-2:]]
    if len(state.history) > 1:
        # "and for Business?" after "what's its response time for P2?" swaps the name
        # "its" stood for: the previous question is read with it.
        before = as_the_passages_write_it(str(state.history[-2].get("question") or ""), texts)
        previous = (
            _owned_by_the_one_picked(previous, before, str(state.history[-2].get("answer") or ""))
            or owned_by_the_one_named(previous, before)
            or previous
        )
    searched = state.history[-1].get("search_query") or ""
    continued = str(state.history[-2].get("question") or "") if len(state.history) > 1 else ""
    query = year_meant(state, query)
    # « et la marge opé ? » after an answer quoting « marge opérationnelle »: a clipping
    # is the word of the conversation it begins.
    query = with_clippings_read(query, str(state.history[-1].get("answer") or ""))
    asked = (
        substituted_question(query, previous, searched, continued)
        or _owned_by_the_one_picked(query, previous, str(state.history[-1].get("answer") or ""))
        or owned_by_the_one_named(query, as_the_passages_write_it(previous, texts))
        or query
    )
    return revenue_spelled_out(asked)


def _owned_by_the_one_picked(question: str, previous: str, answered: str) -> str | None:
    """Return a follow-up's "it" as the thing the answer to a "which X ...?" picked.

    "how much is it per year?" after "Which support plan includes a Slack channel?"
    asks the price of the plan the answer named ("Enterprise plan customers have ... a
    private Slack channel"), not of the Slack channel the question named.
    """
    picked = picked_by_the_answer(question, previous, answered)
    return with_the_owner_named(question, picked) if picked else None


def year_meant(state: State, query: str | None = None) -> str:
    """Return the message with a year said relative to the previous turn's as that year.

    "and the year before?" after an answer of 2024 asks "and in 2023?" (`ellipsis.
    with_the_year_meant`); any other message as given (`query`, else as typed).
    """
    query = state.query if query is None else query
    if not state.history:
        return query
    last = state.history[-1]
    return with_the_year_meant(
        query, str(last.get("question") or ""), str(last.get("answer") or "")
    )


def in_order_quoted(titles: Sequence[str], answer: str) -> list[str]:
    """Return an answer's cited titles in the order its text quotes them.

    The citations are stored in the order of their numbers, which is retrieval's; the
    answer may lead with another ("A security incident at Brightwell is... [2] ...
    [1]"): what it was about first is what it quoted first. As stored when the markers
    do not match the titles one for one.
    """
    quoted = list(dict.fromkeys(re.findall(r"\[(\d+)\]", answer)))
    if len(quoted) != len(titles):
        return list(titles)
    by_number = dict(zip(sorted(quoted, key=int), titles, strict=True))
    return [by_number[number] for number in quoted]


def decide_turn(state: State, question: str) -> Evidence:
    """Return the evidence check for this turn's question over its packed context.

    Args:
        state: The turn's state after retrieval.
        question: The question the turn asks (`asked_question`).
    """
    earlier = [f"{h.get('question', '')} {h.get('answer', '')}" for h in state.history]
    followup = state.followup
    # "it" is the product the router found discussed (the only one the previous answer
    # showed, or the first of a ranking), not every product it listed; a message that
    # names its own subject is checked against the previous answer's sources.
    focus = (
        in_order_quoted(state.thread_state.last_titles, str(state.history[-1].get("answer") or ""))
        if state.history
        else []
    )
    if state.discussed_product and PRONOUN.search(question):
        focus = [state.discussed_product]
    return decide(
        question,
        state.chunks,
        earlier=earlier,
        carried=state.reformulated_query or state.search_query,
        deliverable=state.deliverable,
        reference=bool(followup.resolved and followup.ref_type != "context"),
        tool=state.route == "tool",
        focus=focus,
        # The words checked are the asked question's: "and the Dell?" after a French
        # question asks "Quelle est la garantie du Dell ?", read as French.
        language=detect_language(question),
        year_changed=changes_only_the_year(year_meant(state)),
    )


def evidence_trace(evidence: Evidence) -> dict[str, Any]:
    """Return the evidence as plain JSON (state, trace, decline texts)."""
    return {
        "verdict": evidence.verdict,
        "reason": evidence.reason,
        "content_terms": list(evidence.content_terms),
        "named": list(evidence.named),
        "missing_named": list(evidence.missing_named),
        "missing_terms": list(evidence.missing_terms),
        "asks_for": evidence.asks_for,
        "coverage": evidence.coverage,
        "supporting": list(evidence.supporting),
        "candidates": list(evidence.candidates),
        "answered": evidence.answered,
        "about": list(evidence.about),
        "closest": list(evidence.closest),
        "aim": evidence.aim,
        "quality": evidence.quality,
    }


def decision_update(
    state: State, evidence: Evidence, verdict: str, trace: dict[str, Any], *, calls: int
) -> dict[str, Any]:
    """Return the generate node's update for a turn that will not answer (decline or ask)."""
    return {
        "verdict": verdict,
        "evidence": evidence_trace(evidence),
        "llm_calls": calls,
        "trace": [{**trace, "verdict": verdict}],
    }


# The verdicts by name: a model's word that names none of them declines.
_VERDICTS: dict[str, Verdict] = {verdict: verdict for verdict in get_args(Verdict)}


def guard_verdict(llm_verdict: str, evidence: Evidence) -> Verdict:
    """Return the model's verdict unless the evidence check rules an answer out.

    A model may always be more careful than the check (decline or ask where the check
    would answer); it may not answer where a hard evidence failure says the passages
    cannot back it. Between two replies that answer nothing, the question back the check
    found wins over the model's decline: the check read several candidates the passages
    hold ("What is the warranty?" over five products' warranties), so "the documents do
    not answer this" would be false where "which one?" is as careful.
    """
    found_which = evidence.verdict == "ambiguous" and bool(evidence.candidates)
    if llm_verdict == "not_in_documents" and found_which:
        return "ambiguous"
    if llm_verdict in ("answer", "partial") and evidence.verdict in (
        "not_in_documents",
        "ambiguous",
    ):
        if evidence.reason.startswith(HARD_REASONS) or evidence.reason.startswith("no_"):
            return evidence.verdict
    return _VERDICTS.get(llm_verdict, "not_in_documents")


def final_verdict(
    model_verdict: str, evidence: Evidence, *, judged: bool, trace: dict[str, Any]
) -> Verdict:
    """Return the turn's verdict from the model's and the evidence check's.

    Args:
        model_verdict: What the generation call returned.
        evidence: The deterministic evidence check.
        judged: Whether the model reads the sources (its verdict counts, guarded by
            the check); a quoting model's only say is whether it found anything.
        trace: The generate node's trace entry; a judging model's verdict and any
            guard override are recorded in it.

    Returns:
        answer, partial, not_in_documents or ambiguous.
    """
    if not judged:
        return evidence.verdict if model_verdict in ("answer", "partial") else "not_in_documents"
    trace["llm_verdict"] = model_verdict
    verdict = guard_verdict(model_verdict, evidence)
    if verdict != model_verdict:
        trace["guard"] = f"{model_verdict}->{verdict}:{evidence.reason}"
    return verdict


def generate_structured(
    llm: BaseChatModel, messages: list[BaseMessage], trace: dict[str, Any] | None = None
) -> GeneratedAnswer:
    """One answer call in the structured mode the model's server takes.

    The mode (JSON schema, JSON object, plain text) is learnt on a server's first answer
    call and kept for the process (`threadline.models.structured`): that first call may
    be refused for its format and made again in the next mode, later calls are made
    once. A model with no server (the offline model, a test's fake) is asked for its
    JSON schema output.

    Args:
        llm: The chat model.
        messages: The answer prompt.
        trace: The generate node's trace entry: for a model with a server, the mode
            used is recorded in it (`structured_output`), and the refused modes of a
            first call (`structured_refused`).

    Returns:
        The verdict and answer; a model that ignores the format still yields a usable
        answer (its text, checked as any), `INSUFFICIENT_CONTEXT` a decline.

    Raises:
        LLMError: the server is down or too slow (nothing is learnt from that).
    """
    trace = trace if trace is not None else {}
    key = server_key(llm)
    if key is None:  # nothing to learn: its trace stays as it was
        return answer_call(llm, messages, "json_schema")
    mode = STRUCTURED_MODES.known(key)
    if mode is not None:
        trace["structured_output"] = mode
        return answer_call(llm, messages, mode)
    with STRUCTURED_MODES.probing(key):
        mode = STRUCTURED_MODES.known(key)  # learnt by another turn while this one waited
        if mode is not None:
            trace["structured_output"] = mode
            return answer_call(llm, messages, mode)
        refused: list[str] = []
        for mode in STRUCTURED_MODES.candidates(key):
            try:
                generated = answer_call(llm, messages, mode)
            except Exception as exc:
                why = format_unsupported(exc) if mode != MODES[-1] else None
                if why is None:
                    raise
                STRUCTURED_MODES.refuse(key, mode)
                refused.append(f"{mode}: {why}")
                continue
            STRUCTURED_MODES.record(key, mode)
            trace["structured_output"] = mode
            trace["structured_refused"] = refused
            return generated
    raise AssertionError("unreachable: the text mode raises or answers")  # pragma: no cover


def answer_call(
    llm: BaseChatModel, messages: list[BaseMessage], mode: StructuredMode
) -> GeneratedAnswer:
    """Make the answer call in one structured-output mode and read its reply.

    Args:
        llm: The chat model.
        messages: The answer prompt.
        mode: `json_schema` (OpenAI's `response_format` with the schema), `json_object`
            (JSON without a schema, which llama.cpp constrains with the schema it is
            given beside it, and an example of the object at the end of the prompt) or
            `text` (no format: the answer's text with its markers).

    Returns:
        The verdict and the answer.
    """
    schema = copy.deepcopy(_answer_schema())  # the model client may write into it
    if mode == "json_schema":
        # The schema as a dict (not the class): the reply is then parsed by LangChain
        # with `include_raw`, so a reply that is not JSON comes back as raw text instead
        # of an exception from the client's own parser.
        runnable = llm.with_structured_output(
            schema, method="json_schema", include_raw=True
        ).with_config(tags=[STRUCTURED_TAG])
        out = runnable.invoke(messages)
        parsed = out.get("parsed") if isinstance(out, dict) else None
        if isinstance(parsed, dict):
            try:
                return GeneratedAnswer.model_validate(parsed)
            except ValueError:
                pass
        raw = out.get("raw") if isinstance(out, dict) else None
        return read_reply(getattr(raw, "text", "") or "")
    if mode == "json_object":
        bound = llm.bind(response_format={"type": "json_object", "schema": schema})
        asked = [*messages[:-1], _with_json_example(messages[-1])] if messages else messages
        reply = bound.with_config(tags=[STRUCTURED_TAG]).invoke(asked)
        return read_reply(reply.text)
    # Plain text: the answer's own cap is bound (an unmarked call would get the
    # condensation's short one).
    cap = getattr(llm, "max_tokens", None)
    bound_text = llm.bind(max_tokens=cap) if isinstance(cap, int) else llm
    return read_reply(bound_text.with_config(tags=[STRUCTURED_TAG]).invoke(messages).text)


@lru_cache(maxsize=1)
def _answer_schema() -> dict[str, Any]:
    """Return the JSON schema of `GeneratedAnswer`, built once.

    Pydantic builds a schema anew on each call: about 1% of a turn's time (offline
    model, profile at 10k chunks).
    """
    return {**GeneratedAnswer.model_json_schema(), "title": "GeneratedAnswer"}


JSON_EXAMPLE = (
    '\n\nReply with one JSON object only, with the fields "verdict" (answer, partial, '
    'not_in_documents or ambiguous), "answer" (your answer, each sentence ending with the '
    'number of its source in square brackets) and "missing" (a list).'
)
"""Appended to the answer prompt in the `json_object` mode, which carries no schema.

It names the fields without an example answer: SmolLM2-135M, given one, copied it
word for word as its answer.
"""


def _with_json_example(message: BaseMessage) -> BaseMessage:
    """Return the message with the JSON example appended to its text."""
    if isinstance(message.content, str):
        return message.model_copy(update={"content": message.content + JSON_EXAMPLE})
    return message


def read_reply(text: str) -> GeneratedAnswer:
    """Read an answer call's reply: a JSON object (whole or cut at its cap), or plain text.

    A JSON reply cut at the token cap keeps the part of its answer that arrived (the
    support check judges it like any answer). Plain text is an answer, except the
    `INSUFFICIENT_CONTEXT` marker or nothing, which decline.
    """
    text = text.strip()
    if text.startswith("{"):
        try:
            parsed = parse_partial_json(text)
        except ValueError:
            parsed = None
        if (
            isinstance(parsed, dict)
            and {"verdict", "answer"} & set(parsed)
            and isinstance(parsed.get("answer", ""), str)
        ):
            answer = parsed.get("answer") or ""
            verdict = parsed.get("verdict")
            if verdict not in VERDICTS:  # cut before its verdict, or an unknown one
                verdict = "answer" if answer else "not_in_documents"
            missing = parsed.get("missing")
            return GeneratedAnswer.model_validate(
                {
                    "verdict": verdict,
                    "answer": answer,
                    "missing": [str(m) for m in missing] if isinstance(missing, list) else [],
                }
            )
    if not text or text.startswith(prompts.INSUFFICIENT_CONTEXT):
        return GeneratedAnswer(verdict="not_in_documents", answer="")
    return GeneratedAnswer(verdict="answer", answer=text)


def answer_messages(
    state: State,
    services: Services,
    context: Context,
    *,
    only: Sequence[str] | None = None,
    asks_for: str | None = None,
    question: str | None = None,
) -> list[BaseMessage]:
    """Return the answer prompt: system rules, history trail, numbered sources, question.

    Args:
        state: The turn's state after retrieval.
        services: Settings.
        context: Per-run prompts and history mode.
        only: Labels of the sources to show, in the order to show them (the passage
            retrieval ranked first, then those the evidence check found supporting); all
            packed sources when None. Labels keep their numbers.
        asks_for: The kind of fact the question asks for (price, date...), if any.
        question: The question to answer when it is not the user's whole message (the
            covered part of a partly answerable question, offline).
    """
    settings = services.settings
    # In the order given: the first source shown is the one an answer leads with.
    by_label = {c["label"]: c for c in state.chunks}
    shown = [by_label[label] for label in only or () if label in by_label] or state.chunks
    reference = ""
    if state.followup.section_id:
        titles = {o.id: o.title for o in state.thread_state.last_outline}
        named = [state.followup.section_id, *state.followup.also_sections]
        reference = "FOLLOWUP_REFERENCE=" + "; ".join(f"{i}: {titles.get(i, '')}" for i in named)
    keyword = settings.outline_keyword
    sources = [
        PromptSource(
            id=c["label"],
            title=neutralize_markers(c["title"], keyword),
            section=neutralize_markers(c["section"], keyword),
            text=neutralize_markers(c["text"], keyword),
        )
        for c in shown
    ]
    history = render_history(
        trail_turns(state.history),
        mode=context.history_mode or settings.history_mode,
        phase="answer",
        max_titles=settings.history_max_titles,
        max_chars=settings.history_max_chars,
    )
    language = language_of(state)
    turn = prompts.AnswerTurn(
        deliverable=state.deliverable,
        reference=bool(reference),
        listed=state.route == "tool",
        answer_type=asks_for or "",
        other_language=in_other_languages(sources, language),
    )
    return [
        SystemMessage(
            prompts.answer_system_prompt(
                context.answer_system_prompt,
                turn,
                language=language,
                keyword=settings.outline_keyword,
            )
        ),
        HumanMessage(
            render_answer_prompt(
                AnswerPrompt(
                    sources=sources,
                    question=question or state.query,
                    history=history,
                    followup_reference=reference,
                    deliverable=state.deliverable,
                    answer_style="list" if state.route == "tool" else "prose",
                    search_query=state.search_query,
                    answer_type=asks_for or "",
                    language=language,
                )
            )
        ),
    ]


def in_other_languages(sources: Sequence[PromptSource], language: str) -> bool:
    """Whether a source is written in another language than the answer's.

    Args:
        sources: The sources the answer prompt shows.
        language: The answer's language code ("fr", "en-GB" reads as "en").
    """
    base = language.split("-")[0].lower()
    return any(detect_language(f"{s.title} {s.text}") != base for s in sources)
