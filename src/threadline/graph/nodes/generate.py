"""The generate node: decide, answer from the packed context, and check the citations."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from langgraph.runtime import Runtime

from threadline.followups.outline import split_outline
from threadline.graph.answering import (
    GeneratedAnswer,
    answer_messages,
    asked_question,
    decide_turn,
    decision_update,
    evidence_trace,
    final_verdict,
    generate_structured,
    language_of,
)
from threadline.graph.catalog_requests import counts_on_offer, with_catalog_capitals
from threadline.graph.context import Context, run_services
from threadline.graph.evidence import Evidence
from threadline.graph.grounding import CITATION, attribute_sentences, support_check
from threadline.graph.names import passage_terms
from threadline.graph.question_terms import COVERAGE_MAJORITY
from threadline.graph.replies import catalog_count, left_out_note, partial_note
from threadline.graph.state import PackedChunk, State
from threadline.knowledge.language import frame_answer
from threadline.knowledge.passages import passage_digest
from threadline.models import quotes_sources
from threadline.models.extractive import says_what_it_is
from threadline.policy import allowed_sources, may_read_catalog
from threadline.services import Services
from threadline.settings import Settings
from threadline.store import Citation, OutlineItem
from threadline.text.language import detect_language
from threadline.text.matching import matches_synonym, matches_term


def spelt_as_indexed(services: Any, state: State, question: str) -> str:
    """Return the question with its misspelt words and compounds written as the index does.

    Retrieval searched "cheapest fone?" as "phone" too (`KnowledgeBase.vocabulary`);
    the evidence check and the answer read the question the same way, or they would
    find no passage holding "fone" and decline what was found.
    """
    vocabulary_of = getattr(services.kb, "vocabulary", None)
    if vocabulary_of is None or not services.settings.spelling_fixes:
        return question
    # The words of the sources the caller app may read, as retrieval's (`spelt_from`).
    sources = allowed_sources(services.settings.source_policy, state.caller_app, None)
    return str(vocabulary_of(tenant=state.tenant, sources=sources).respelt(question))


def quoted_passages(evidence: Evidence, chunks: Sequence[PackedChunk], question: str) -> list[str]:
    """Return the labels of the passages a quoting model is shown, in the order to show them.

    Retrieval's best passage about the subject, then the others about it that the
    evidence check found supporting; all those about it when none supports. When no
    passage holds all of the question's words (`Evidence.coverage` below 1), the passages
    about the subject that retrieval ranked above a supporting one are shown too:
    retrieval ranks by what passages mean (dense and sparse), the check by the words they
    share, and a passage ranked above a supporting one may say the missing part in other
    words ("file a claim with the carrier" for "where do I report a damaged parcel?").
    Where a passage holds every word, the check has found
    where the answer is: "I lost my phone" is not also answered from a phone's spec page
    retrieval ranked higher. A passage about the subject that says what the whole of X is
    supports "what is X?" whatever the question's other words: "I keep seeing the word
    Kubernetes, but I am not understanding this term" is answered by the FAQ's
    "Kubernetes is an open source platform...", which holds neither "seeing" nor
    "understanding". A passage about the subject that holds most of the question's content
    only through synonyms (`supports_in_other_words`) is shown too.
    """
    about = list(evidence.about)
    if not evidence.supporting:
        return about
    if evidence.kind_stated:
        # A sentence stating the kind of fact asked of what is asked is where the answer
        # is: "how many employees work in stores?" is not answered from a passage ranked
        # above it that says "a single user or device".
        return [label for label in about if label in evidence.supporting] or about
    texts = {str(c["label"]): str(c.get("text", "")) for c in chunks}
    by_label = {str(c["label"]): c for c in chunks}
    supported = [i for i, label in enumerate(about) if label in evidence.supporting]
    last = supported[-1] if supported and evidence.coverage < 1 else 0
    return about[: last + 1] + [
        label
        for label in about[last + 1 :]
        if label in evidence.supporting
        or says_what_it_is(texts.get(label, ""), question)
        or supports_in_other_words(evidence, by_label.get(label, {}))
    ]


def supports_in_other_words(evidence: Evidence, chunk: Mapping[str, object]) -> bool:
    """Whether a passage holds most of the question's content only when synonyms are read.

    "where to purchase those?": "Preferred stock is traded on the market, so you can just
    buy it" says it with another word (`matches_synonym`). The check's decision does not
    read synonyms (what is answered or declined stays what the passages write); which
    passages a quoting model is shown may. A passage holding most of the content as
    written was weighed by the check already, and is left to it.
    """
    asked = evidence.content_terms
    if not asked:
        return False
    words = set(passage_terms(chunk))
    written = sum(1 for t in asked if matches_term(t, words))
    said = sum(1 for t in asked if matches_term(t, words) or matches_synonym(t, words))
    # Only where the synonyms make the difference: a passage holding most of the words
    # as written was judged by the check, on its own weights.
    return said / len(asked) > COVERAGE_MAJORITY >= written / len(asked)


def _question_as_read(services: Services, state: State) -> str:
    """Return the question as retrieval searched it, the catalog's names as it writes them."""
    # Read as retrieval searched it: "cheapest fone?" asks for the cheapest phone.
    # "is the pixel 8 pro waterproof": a product's name typed in lower case is still
    # that product's name, for the rules that read names from capitals, and for what an
    # ellipsis ("and on the nokia?") swaps into the question before it.
    names = (
        [p.name for p in services.kb.catalog.products(state.tenant)]
        if state.route != "tool"
        and may_read_catalog(services.settings.source_policy, state.caller_app, state.sources)
        else []
    )
    question = spelt_as_indexed(services, state, asked_question(state, names))
    if names:
        question = with_catalog_capitals(question, names)
    return question


def _generated_answer(
    state: State,
    services: Services,
    context: Context,
    evidence: Evidence,
    question: str,
    trace: dict[str, Any],
    *,
    judges: bool,
) -> tuple[GeneratedAnswer, int]:
    """Return the model's structured answer, and the calls it took."""
    # A quoting model sees the passages about the question's subject (its names, or what
    # "it" refers to), and answers the covered part of a partly answerable question. It
    # leads with retrieval's best passage and adds only passages that support the answer
    # or, when none holds all of the question, that retrieval ranked above one that does
    # (`quoted_passages`): "When do I prune roses?" quotes no passage on pruning
    # tomatoes. (Leading with the
    # passage that covers the question best instead was measured worse on the answers
    # benchmark: retrieval's rank is the better judge of where the answer is.) A reading
    # model sees the whole packed context.
    shown = quoted_passages(evidence, state.chunks, question)
    messages = answer_messages(
        state,
        services,
        context,
        only=None if judges else shown or None,
        asks_for=evidence.asks_for,
        question=None if judges else evidence.answered or question,
    )
    generated = generate_structured(services.llm, messages, trace)
    # A server's first answer call may be refused for its format and made again.
    calls = 1 + len(trace.get("structured_refused", []))
    return generated, calls


def _valid_citations(body: str, labels: Mapping[str, PackedChunk]) -> tuple[str, list[str]]:
    """Return the answer with only the markers of passages in context, and the others."""
    invalid: list[str] = []

    def keep_valid(match: re.Match[str]) -> str:
        ids = [i.strip() for i in match.group(1).split(",")]
        valid = [i for i in ids if i in labels]
        invalid.extend(i for i in ids if i not in labels)
        return "".join(f"[{i}]" for i in valid)

    return CITATION.sub(keep_valid, body).strip(), invalid


def _supported_body(
    body: str,
    labels: Mapping[str, PackedChunk],
    settings: Settings,
    trace: dict[str, Any],
    *,
    judges: bool,
) -> str:
    """Return the answer's sentences the passages they cite support, each cited."""
    if judges and not CITATION.search(body):
        # The model wrote no valid marker (small models forget them): cite each sentence
        # to the passage that supports it; what none supports goes.
        attributed = attribute_sentences(body, labels, settings.unsupported_sentences)
        body = attributed.text
        trace["attribution"] = {
            "attributed": attributed.attributed,
            "dropped": attributed.dropped,
            "uncited": attributed.uncited,
        }
    checked = support_check(body, labels, settings.unsupported_sentences)
    trace["support"] = {"dropped": checked.dropped, "uncited": checked.uncited}
    return checked.text


def _with_notes(
    body: str,
    state: State,
    verdict: str,
    missing: list[str],
    quoted: list[PackedChunk],
    *,
    judges: bool,
) -> str:
    """Return the answer framed for its quotes' language, with what it leaves out said."""
    asker = language_of(state)
    # A quoting model's answer is its sources' words; a reading model asked to answer in
    # the asker's language may copy them as written all the same (a French question
    # answered in English): either way the lead-in says in which language they are.
    spoken = asker.split("-")[0].lower()  # "en-GB" is English
    if not judges or detect_language(CITATION.sub("", body), fallback=spoken) != spoken:
        # A catalog product's row (no position in a document) is titled by the product's
        # name, no document to name as a source: « D'après « OnePlus 12 » (en anglais) »
        # would read as a document called so.
        texts = [
            {"title": chunk["title"] if "position" in chunk else "", "text": chunk["text"]}
            for chunk in quoted
        ]
        body = frame_answer(body, asker, texts)
    call: Mapping[str, Any] = state.tool_call or {}
    if call.get("name") == "search_products" and counts_on_offer(state.query):
        # "how many phones does Brightwell sell?": the list is the count's evidence, the
        # count its answer.
        args = call.get("args") or {}
        kind = " ".join(str(args[k]) for k in ("brand", "category") if args.get(k))
        body = f"{catalog_count(len(state.chunks), kind, language_of(state))}\n{body}"
    if verdict == "partial" and missing:
        body = f"{body}\n\n{partial_note(language_of(state), missing)}"
    if state.deliverable and state.left_out:
        body = f"{body}\n\n{left_out_note(language_of(state), state.left_out)}"
    return body


def _citations(cited: list[str], labels: Mapping[str, PackedChunk]) -> list[Citation]:
    """Return the passages the answer cites, in the order of their labels."""
    return [
        Citation(
            id=label,
            doc_id=labels[label]["doc_id"],
            chunk_id=labels[label]["chunk_id"],
            title=labels[label]["title"],
            section=labels[label]["section"] or None,
            source=labels[label]["source"],
            # A document's passage only: a catalog product's packed text is not the
            # description its passage route shows.
            text_sha256=(
                passage_digest(labels[label]["text"]) if "position" in labels[label] else None
            ),
        )
        for label in sorted(cited, key=int)
    ]


def generate(state: State, runtime: Runtime[Context]) -> dict[str, Any]:
    """Decide (answer, partial, not in the documents, ambiguous), then answer and check.

    The deterministic evidence check runs first, then one structured generation call
    returns a verdict with the answer, whatever the model. A model that reads gives its
    own verdict, which the evidence check guards (`guard_verdict`). A model that only
    quotes sources (`quotes_sources`: the offline extractive model) cannot judge: the
    check's verdict is final, so a decline costs it no call, and it composes from the
    passages about the question's subject only. An answer from a reading model with no
    valid `[n]` marker has its sentences attributed to the passages that support them
    (`attribute_sentences`); nothing supported is a decline (`no_valid_citation`).

    Args:
        state: The turn's state with its packed context.
        runtime: The run's knobs (the answer prompt).

    Returns:
        The partial update: answer, outline, citations, outcome, verdict, evidence,
        stop_reason, llm_calls, trace.
    """
    services = run_services()
    settings, context = services.settings, runtime.context or Context()
    question = _question_as_read(services, state)
    evidence = decide_turn(state, question)
    trace: dict[str, Any] = {"node": "generate", "evidence": evidence_trace(evidence)}
    judges = not quotes_sources(services.llm)
    if not judges and evidence.verdict in ("not_in_documents", "ambiguous"):
        return decision_update(state, evidence, evidence.verdict, trace, calls=0)
    generated, calls = _generated_answer(
        state, services, context, evidence, question, trace, judges=judges
    )
    text = generated.answer.strip()
    missing = list(generated.missing) or list(evidence.missing_terms)
    verdict = final_verdict(generated.verdict, evidence, judged=judges, trace=trace)
    if verdict in ("not_in_documents", "ambiguous"):
        return decision_update(state, evidence, verdict, trace, calls=calls)
    body, sections = split_outline(text, settings.outline_keyword)
    if sections and not state.deliverable:
        # Only a deliverable ends with an outline: a block a model writes on another turn
        # is dropped, so it neither shows nor replaces the one "Détaille S2" points into.
        trace["outline_dropped"] = len(sections)
        sections = []
    labels = {c["label"]: c for c in state.chunks}
    body, invalid = _valid_citations(body, labels)
    trace["invalid_citations"] = invalid
    if invalid and settings.citation_policy == "refuse":
        return {
            "stop_reason": "invalid_answer:citations_out_of_context",
            "llm_calls": calls,
            "trace": [trace],
        }
    body = _supported_body(body, labels, settings, trace, judges=judges)
    cited = list(dict.fromkeys(i.strip() for m in CITATION.findall(body) for i in m.split(",")))
    trace["cited"] = cited
    if not cited:
        return {
            "stop_reason": "no_valid_citation",
            "llm_calls": calls,
            "trace": [trace],
        }
    body = _with_notes(body, state, verdict, missing, [labels[i] for i in cited], judges=judges)
    return {
        "answer": body,
        "outline": [OutlineItem(id=s.id, title=s.title) for s in sections],
        "citations": _citations(cited, labels),
        "outcome": "tool_answer" if state.route == "tool" else "grounded_answer",
        "verdict": verdict,
        "evidence": evidence_trace(evidence),
        "stop_reason": "completed" if verdict == "answer" else "partial",
        "llm_calls": calls,
        "trace": [trace],
    }
