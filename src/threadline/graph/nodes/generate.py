"""The generate node: decide, answer from the packed context, and check the citations."""

from __future__ import annotations

import re
from typing import Any

from langgraph.runtime import Runtime

from threadline.followups.outline import split_outline
from threadline.graph import prompts
from threadline.graph.answering import (
    answer_messages,
    decide_turn,
    decision_update,
    evidence_trace,
    generate_structured,
    guard_verdict,
    language_of,
)
from threadline.graph.context import Context, run_services
from threadline.graph.grounding import CITATION, support_check
from threadline.graph.replies import partial_note
from threadline.graph.state import State
from threadline.knowledge.language import frame_answer
from threadline.models import is_extractive
from threadline.store import Citation


def generate(state: State, runtime: Runtime[Context]) -> dict[str, Any]:
    """Decide (answer, partial, not in the documents, ambiguous), then answer and check.

    The deterministic evidence check runs first. Offline, its verdict is final and a
    decline costs no model call. With an LLM, the one generation call returns the
    model's own verdict with the answer (structured output); the evidence check
    still guards an "answer" verdict the passages cannot back.

    Args:
        state: The turn's state with its packed context.
        runtime: The run's knobs (the answer prompt).

    Returns:
        The partial update: answer, outline, citations, outcome, verdict, evidence,
        stop_reason, llm_calls, trace.
    """
    services = run_services()
    settings, context = services.settings, runtime.context or Context()
    evidence = decide_turn(state)
    trace: dict[str, Any] = {"node": "generate", "evidence": evidence_trace(evidence)}
    llm = services.llm
    offline = is_extractive(llm)
    if offline and evidence.verdict in ("not_in_documents", "ambiguous"):
        return decision_update(state, evidence, evidence.verdict, trace, calls=0)
    # Offline, the extractive model composes from the passages about the question's
    # subject only (its names, or what "it" refers to); an LLM sees the whole packed
    # context and gives its own verdict.
    only = list(evidence.about) if offline and evidence.about else None
    messages = answer_messages(
        state,
        services,
        context,
        only=only,
        asks_for=evidence.asks_for,
        question=evidence.answered if offline and evidence.answered else None,
    )
    calls = 1
    missing: list[str] = list(evidence.missing_terms)
    if offline:
        text = llm.invoke(messages).text.strip()
        verdict = evidence.verdict
        if not text or text.startswith(prompts.INSUFFICIENT_CONTEXT):
            verdict = "not_in_documents"
    else:
        generated = generate_structured(llm, messages)
        text, verdict = generated.answer.strip(), generated.verdict
        missing = list(generated.missing) or missing
        trace["llm_verdict"] = verdict
        verdict = guard_verdict(verdict, evidence)
        if verdict != trace["llm_verdict"]:
            trace["guard"] = f"{trace['llm_verdict']}->{verdict}:{evidence.reason}"
    if verdict in ("not_in_documents", "ambiguous"):
        return decision_update(state, evidence, verdict, trace, calls=calls)
    body, sections = split_outline(text, settings.outline_keyword)
    labels = {c["label"]: c for c in state.chunks}
    invalid: list[str] = []

    def keep_valid(match: re.Match[str]) -> str:
        ids = [i.strip() for i in match.group(1).split(",")]
        valid = [i for i in ids if i in labels]
        invalid.extend(i for i in ids if i not in labels)
        return "".join(f"[{i}]" for i in valid)

    body = CITATION.sub(keep_valid, body).strip()
    trace["invalid_citations"] = invalid
    if invalid and settings.citation_policy == "refuse":
        return {
            "stop_reason": "invalid_answer:citations_out_of_context",
            "llm_calls": calls,
            "trace": [trace],
        }
    checked = support_check(body, labels, settings.unsupported_sentences)
    body = checked.text
    trace["support"] = {"dropped": checked.dropped, "uncited": checked.uncited}
    cited = list(dict.fromkeys(i.strip() for m in CITATION.findall(body) for i in m.split(",")))
    trace["cited"] = cited
    if not cited:
        return {
            "stop_reason": "no_valid_citation",
            "llm_calls": calls,
            "trace": [trace],
        }
    if offline:  # it quotes: say when the quotes are in another language
        body = frame_answer(body, language_of(state), [labels[label] for label in cited])
    if verdict == "partial" and missing:
        body = f"{body}\n\n{partial_note(language_of(state), missing)}"
    citations = [
        Citation(
            id=label,
            doc_id=labels[label]["doc_id"],
            chunk_id=labels[label]["chunk_id"],
            title=labels[label]["title"],
            section=labels[label]["section"] or None,
            source=labels[label]["source"],
        )
        for label in sorted(cited, key=int)
    ]
    return {
        "answer": body,
        "outline": [{"id": s.id, "title": s.title} for s in sections],
        "citations": citations,
        "outcome": "tool_answer" if state.route == "tool" else "grounded_answer",
        "verdict": verdict,
        "evidence": evidence_trace(evidence),
        "stop_reason": "completed" if verdict == "answer" else "partial",
        "llm_calls": calls,
        "trace": [trace],
    }
