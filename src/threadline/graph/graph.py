"""The turn graph: load → route → (reformulate → retrieve | tool) → generate → persist.

One compiled graph serves the API, the CLI and LangGraph Studio. Nodes are
small verbs that return partial updates; the long-lived parts they need (store,
knowledge base, chat model, queries log) come from a `Services` provider, so
the module can be imported without opening anything.
"""

from __future__ import annotations

import dataclasses
import re
import time
import uuid
from collections.abc import Callable
from typing import Any, Literal

from langchain_core.messages import HumanMessage, SystemMessage
from langchain_core.runnables import RunnableConfig
from langgraph.graph import END, START, StateGraph
from langgraph.runtime import Runtime

from threadline.followups.outline import OutlineSection, split_outline
from threadline.followups.references import detect_language
from threadline.graph import prompts, replies
from threadline.graph.answering import (
    answer_messages,
    decide_turn,
    decision_update,
    evidence_trace,
    generate_structured,
    guard_verdict,
)
from threadline.graph.context import Context
from threadline.graph.grounding import CITATION, support_check
from threadline.graph.reformulation import reformulate_turn
from threadline.graph.replies import partial_note
from threadline.graph.retrieval import (
    PolicyViolation,
    allowed_sources,
    named_document_context,
    retrieve_turn,
)
from threadline.graph.routing import plan_turn, small_talk_kind
from threadline.graph.state import InputState, State
from threadline.graph.targets import named_document, names_a_document
from threadline.graph.tools import make_catalog_tools, products_as_sources
from threadline.knowledge.language import frame_answer
from threadline.models import is_extractive
from threadline.querylog import QueryRecord
from threadline.services import Services, get_services
from threadline.store import FollowupInfo, OutlineItem, TurnMetadata

_NO_FOLLOWUP: dict[str, Any] = {
    "detected": False,
    "resolved": False,
    "ref_type": None,
    "section_id": None,
    "method": None,
}


def _lang(state: State) -> str:
    return state.language or detect_language(state.query)


def route_update(state: State, services: Services) -> dict[str, Any]:
    """The route_turn node: classify the message deterministically (no LLM).

    Module-level so the retrieval benchmark replays turns through this very router.

    Args:
        state: The turn's state after loading the conversation.
        services: Where the catalog's brands come from.

    Returns:
        The partial state update: route, followup, deliverable, tool_call, trace.
    """
    ts = state.thread_state
    outline = [OutlineSection(o["id"], o["title"]) for o in ts.get("last_outline", [])]
    products = services.kb.catalog.products(state.tenant)
    brands = sorted({p.brand for p in products})
    # The products the previous answer listed, in the order shown (a catalog answer).
    # A lookup of one of them ("the second one") does not replace the list it came from.
    listed: list[str] = []
    known = {p.name for p in products}
    for past in reversed(state.history):
        if past.get("route") != "tool":
            break
        titles = [t.split(" — ")[0] for t in past.get("titles", [])]
        listed = [t for t in titles if t in known]
        if len(listed) >= 2:
            break
    plan = plan_turn(
        state.query,
        outline=outline,
        source_titles=ts.get("last_titles", []),
        has_previous_turn=bool(state.history),
        brands=brands,
        listed_products=listed,
        prices={p.name: p.price_usd for p in products},
    )
    followup = dict(_NO_FOLLOWUP)
    if plan.route in ("followup_context",):
        followup.update(detected=True, ref_type="context")
    if plan.reference is not None:
        ref = plan.reference
        followup.update(
            detected=ref.detected,
            resolved=ref.resolved,
            ref_type=ref.ref_type,
            section_id=ref.section_id,
            method=ref.method,
            document_index=ref.document_index,
            reason=ref.reason,
        )
    route = plan.route
    if route == "followup_reference" and not plan.reference.resolved:
        route = "clarify"
    tool_call = {"name": plan.tool.name, "args": plan.tool.args} if plan.tool else None
    return {
        "route": route,
        "followup": followup,
        "deliverable": plan.deliverable,
        "tool_call": tool_call,
        "trace": state.trace + [{"node": "route_turn", "route": route}],
    }


def build_graph(provider: Callable[[], Services] = get_services) -> Any:
    """Compile the turn graph over the services `provider` returns (called lazily)."""

    def load_conversation(state: State, config: RunnableConfig) -> dict[str, Any]:
        """Read the conversation from the store and reset the per-turn fields."""
        services = provider()
        thread_id = state.thread_id or str(
            (config.get("configurable") or {}).get("thread_id") or ""
        )
        if not thread_id:
            raise ValueError("a turn needs a thread_id")
        keys = {"tenant": state.tenant, "caller_app": state.caller_app, "session_id": thread_id}
        # One read per turn: history and thread state come from the same file version.
        session = services.store.get_session(**keys)
        messages = session.messages if session else []
        limit = services.settings.history_turns
        history: list[dict[str, Any]] = []
        question = None
        for message in messages:
            if message.role == "user":
                question = message.content
            elif question is not None:
                meta = message.metadata or TurnMetadata()
                history.append(
                    {
                        "question": question,
                        "search_query": meta.search_query,
                        "titles": list(meta.titles),
                        "answer": message.content,
                        "route": meta.route,
                    }
                )
                question = None
        thread_state = session.thread_state().model_dump(mode="json") if messages else {}
        return {
            "thread_id": thread_id,
            "turn_id": state.turn_id or uuid.uuid4().hex,
            "history": history[-limit:] if limit else [],
            "thread_state": thread_state,
            "route": "",
            "followup": dict(_NO_FOLLOWUP),
            "deliverable": False,
            "reformulated_query": "",
            "search_query": "",
            "doc_scope": None,
            "tool_call": None,
            "chunks": [],
            "answer": "",
            "outline": [],
            "citations": [],
            "outcome": "",
            "verdict": "",
            "evidence": {},
            "clarify": None,
            "stop_reason": None,
            "llm_calls": 0,
            "trace": [{"node": "load_conversation", "turns": len(history)}],
            "message_ids": [],
        }

    def route_turn(state: State) -> dict[str, Any]:
        """Classify the message deterministically (no LLM)."""
        return route_update(state, provider())

    def reformulate(state: State, runtime: Runtime[Context]) -> dict[str, Any]:
        """Turn the message into a standalone retrieval query."""
        return reformulate_turn(state, provider(), runtime.context or Context())

    def retrieve(state: State, runtime: Runtime[Context]) -> dict[str, Any]:
        """Search within policy and budgets (fusing query variants); retry once; pack.

        A message that names a document ("Résume le manuel de sécurité") works on that
        document: it is the search scope before any scoring of the others.
        """
        services = provider()
        target = None
        if not state.doc_scope and names_a_document(state.query):
            # Only documents this turn may read: the caller app's sources, narrowed by the
            # request; with an app or workspace filter, the search alone decides.
            try:
                allowed = allowed_sources(
                    services.settings.source_policy, state.caller_app, state.sources
                )
            except PolicyViolation:
                allowed = ()
            titles = [
                (doc_id, title)
                for doc_id, title, source in services.kb.document_titles(tenant=state.tenant)
                if allowed is None or source in allowed
            ]
            if state.source_app or state.workspace:
                titles = []
            target = named_document(state.query, titles)
            if target is not None:
                state = dataclasses.replace(state, doc_scope=[target])
        context = runtime.context or Context()
        update = retrieve_turn(state, services, context).update
        if target is not None:
            update["doc_scope"] = [target]
            if not any(c["doc_id"] == target for c in update.get("chunks", [])):
                # The words of the request may not occur in the document (another
                # language): the named document itself is the context, in reading order.
                update.update(named_document_context(state, services, context, target))
        return update

    def use_tool(state: State) -> dict[str, Any]:
        """Run a catalog tool; with a real LLM the model picks the tool and its arguments."""
        services = provider()
        tools = {t.name: t for t in make_catalog_tools(services.kb.catalog, state.tenant)}
        call, calls = state.tool_call or {}, 0
        llm = services.llm
        # A reference into the listed products was resolved deterministically: no choice left.
        if not is_extractive(llm) and not state.followup.get("resolved"):
            reply = llm.bind_tools(list(tools.values())).invoke(
                [SystemMessage(prompts.TOOL_SYSTEM_PROMPT), HumanMessage(state.query)]
            )
            calls = 1
            if reply.tool_calls and reply.tool_calls[0]["name"] in tools:
                call = {"name": reply.tool_calls[0]["name"], "args": reply.tool_calls[0]["args"]}
        try:
            products = tools[call["name"]].invoke(call["args"])
        except Exception as exc:  # a model's bad arguments must not crash the turn
            return {
                "stop_reason": f"tool_error:{type(exc).__name__}",
                "llm_calls": state.llm_calls + calls,
                "trace": state.trace + [{"node": "use_tool", "call": call, "error": str(exc)}],
            }
        chunks = products_as_sources(products, call)
        return {
            "tool_call": call,
            "chunks": chunks,
            "search_query": f"{call['name']}({call['args']})",
            "stop_reason": None if chunks else "no_matching_products",
            "llm_calls": state.llm_calls + calls,
            "trace": state.trace + [{"node": "use_tool", "call": call, "results": len(chunks)}],
        }

    def generate(state: State, runtime: Runtime[Context]) -> dict[str, Any]:
        """Decide (answer, partial, not in the documents, ambiguous), then answer and check.

        The deterministic evidence check runs first. Offline, its verdict is final and a
        decline costs no model call. With an LLM, the one generation call returns the
        model's own verdict with the answer (structured output); the evidence check
        still guards an "answer" verdict the passages cannot back.
        """
        services = provider()
        settings, context = services.settings, runtime.context or Context()
        evidence = decide_turn(state)
        trace = {"node": "generate", "evidence": evidence_trace(evidence)}
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
        calls = state.llm_calls + 1
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
            return decision_update(state, evidence, verdict, trace, calls=calls - state.llm_calls)
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
                "trace": state.trace + [trace],
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
                "trace": state.trace + [trace],
            }
        if is_extractive(services.llm):  # it quotes: say when the quotes are in another language
            body = frame_answer(body, _lang(state), [labels[label] for label in cited])
        if verdict == "partial" and missing:
            body = f"{body}\n\n{partial_note(_lang(state), missing)}"
        citations = [
            {
                "id": label,
                "doc_id": labels[label]["doc_id"],
                "chunk_id": labels[label]["chunk_id"],
                "title": labels[label]["title"],
                "section": labels[label]["section"] or None,
                "source": labels[label]["source"],
            }
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
            "trace": state.trace + [trace],
        }

    def decline(state: State) -> dict[str, Any]:
        """Not in the documents: say so plainly, name the closest titles, cite nothing."""
        ev = state.evidence
        text, clarify = replies.decline(
            language=_lang(state),
            missing=ev.get("missing_named") or [],
            closest=ev.get("closest") or [],
            asks_for=ev.get("asks_for") if ev.get("reason", "").startswith("no_") else None,
        )
        return {
            "answer": text,
            "outcome": "clarify",
            "stop_reason": "not_in_documents",
            "clarify": clarify,
            "citations": [],
            "outline": [],
        }

    def ask(state: State) -> dict[str, Any]:
        """Ambiguous: ask which of the candidates the user means."""
        text, clarify = replies.ask_which(
            language=_lang(state),
            candidates=state.evidence.get("candidates") or [],
            question=state.query,
            phrase=reason.split(":")[1]
            if (reason := state.evidence.get("reason", "")).startswith("unanchored:")
            else "",
        )
        return {
            "answer": text,
            "outcome": "clarify",
            "stop_reason": "ambiguous",
            "clarify": clarify,
            "citations": [],
            "outline": [],
        }

    def reply(state: State) -> dict[str, Any]:
        """Greetings, thanks and 'what can you do': never a fact."""
        kind = small_talk_kind(state.query)
        fr = _lang(state) == "fr"
        if kind != "greeting":
            text = {
                ("thanks", True): "Avec plaisir ! Une autre question sur vos documents ?",
                ("thanks", False): "You're welcome! Anything else about your documents?",
                ("bye", True): "Au revoir ! La conversation reste disponible.",
                ("bye", False): "Goodbye! This conversation stays here when you come back.",
            }[(kind, fr)]
            return {"answer": text, "outcome": "reply", "stop_reason": "small_talk"}
        if fr:
            text = (
                "Bonjour ! Je réponds uniquement à partir des documents de votre équipe, en "
                "citant mes sources. Posez une question, demandez un résumé, puis "
                "« Détaille S2 » pour approfondir une partie."
            )
        else:
            text = (
                "Hello! I answer only from your team's documents, and I cite my sources. "
                'Ask a question or for a summary, then say "Expand S2" to go deeper into '
                "one part of it."
            )
        return {"answer": text, "outcome": "reply", "stop_reason": "small_talk"}

    def clarify(state: State) -> dict[str, Any]:
        """Ask instead of guessing: which section, which document, or a rephrasing."""
        fr = _lang(state) == "fr"
        fu = state.followup
        outline = state.thread_state.get("last_outline", [])
        listing = "\n".join(f"- {o['id']}: {o['title']}" for o in outline)
        reason = fu.get("reason") if fu.get("detected") and not fu.get("resolved") else None
        stop_reason = state.stop_reason
        clarify: dict[str, Any] = {"reason": "not_in_documents", "options": []}
        if outline and reason and fu.get("ref_type") != "document":
            clarify = replies.which_section_options(outline, _lang(state))
        if reason == "pure_anaphora":
            text = (
                f"Quelle partie voulez-vous approfondir ?\n{listing}\n"
                "Par exemple : « Détaille S2 »."
                if fr
                else f'Which part do you mean?\n{listing}\nFor example: "Expand S2".'
            )
            stop_reason = "ambiguous_reference"
        elif reason and fu.get("ref_type") == "document":
            count = len(state.thread_state.get("last_titles", []))
            sources = "source" if count == 1 else "sources"
            text = (
                f"La réponse précédente ne cite que {count} {sources}. Laquelle voulez-vous ?"
                if fr
                else f"The previous answer cites {count} {sources}. Which one do you mean?"
            )
            stop_reason = f"unresolved_reference:{reason}"
        elif reason:
            if outline:
                text = (
                    f"Cette partie n'existe pas. La réponse précédente contient :\n{listing}"
                    if fr
                    else f"There is no such part. The previous answer has:\n{listing}"
                )
            else:
                text = (
                    "La réponse précédente n'a pas de plan à détailler. Que cherchez-vous ?"
                    if fr
                    else "The previous answer has no outline to point into. What are you "
                    "looking for?"
                )
            stop_reason = f"unresolved_reference:{reason}"
        elif stop_reason and stop_reason.startswith(("source_denied", "invalid_intent")):
            text = (
                "Cette recherche n'est pas autorisée pour cette application "
                f"({stop_reason}). Reformulez ou limitez-vous aux sources permises."
                if fr
                else f"This search is not allowed for this application ({stop_reason}). "
                "Rephrase, or ask within the sources it may use."
            )
        else:
            text = (
                "Je n'ai pas trouvé de quoi répondre dans les documents. Pouvez-vous préciser "
                "la question ou le document concerné ?"
                if fr
                else "I could not find this in the documents. Could you rephrase, or name the "
                "document or topic you mean?"
            )
        return {
            "answer": text,
            "outcome": "clarify",
            "stop_reason": stop_reason or "no_context",
            "clarify": clarify,
            "citations": [],
            "outline": [],
        }

    def persist(state: State, config: RunnableConfig) -> dict[str, Any]:
        """Write the turn once (user + assistant message in one atomic write) and log it."""
        services = provider()
        fu = state.followup or _NO_FOLLOWUP
        titles = [
            f"{c['title']} — {c['section']}" if c.get("section") else c["title"]
            for c in state.citations
        ]
        metadata = TurnMetadata(
            search_query=state.search_query or None,
            doc_ids=[c["doc_id"] for c in state.citations],
            titles=titles,
            outline=[OutlineItem(**o) for o in state.outline],
            route=state.route,
            outcome=state.outcome,
            stop_reason=state.stop_reason,
            followup=FollowupInfo(
                detected=bool(fu.get("detected")),
                resolved=bool(fu.get("resolved")),
                ref_type=fu.get("ref_type"),
                section_id=fu.get("section_id"),
                method=fu.get("method"),
            ),
            citations=state.citations,
            llm_calls=state.llm_calls,
        )
        user, assistant = services.store.add_turn(
            tenant=state.tenant,
            caller_app=state.caller_app,
            session_id=state.thread_id,
            question=state.query,
            answer=state.answer,
            metadata=metadata,
            turn_id=state.turn_id,
            create=True,
        )
        started = (config.get("metadata") or {}).get("threadline_started")
        services.querylog.record(
            QueryRecord(
                tenant=state.tenant,
                caller_app=state.caller_app,
                thread_id=state.thread_id,
                turn_id=state.turn_id,
                question=state.query,
                route=state.route,
                followup_detected=bool(fu.get("detected")),
                followup_resolved=bool(fu.get("resolved")),
                followup_section_id=fu.get("section_id"),
                followup_ref_type=fu.get("ref_type"),
                followup_method=fu.get("method"),
                search_query=state.search_query or None,
                doc_ids=metadata.doc_ids,
                titles=titles,
                outline=state.outline,
                outcome=state.outcome,
                stop_reason=state.stop_reason,
                llm_calls=state.llm_calls,
                latency_ms=(time.perf_counter() - started) * 1000 if started else None,
            )
        )
        # A LangGraph thread (Studio) checkpoints state between runs: clear the
        # idempotency key so the next run in that thread is a new turn, not a retry.
        return {"message_ids": [user.id, assistant.id], "turn_id": ""}

    def after_route(
        state: State,
    ) -> Literal["reply", "use_tool", "reformulate", "clarify"]:
        match state.route:
            case "reply":
                return "reply"
            case "tool":
                return "use_tool"
            case "clarify":
                return "clarify"
            case "followup_reference" | "followup_context" | "standalone":
                return "reformulate"
            case other:
                raise ValueError(f"Unknown route {other!r}")

    def after_context(state: State) -> Literal["generate", "clarify"]:
        return "generate" if state.chunks else "clarify"

    def after_generate(state: State) -> Literal["persist", "decline", "ask", "clarify"]:
        match state.verdict:
            case "answer" | "partial":
                return "persist"
            case "not_in_documents":
                return "decline"
            case "ambiguous":
                return "ask"
            case "":
                return "clarify"  # no valid citation, refused citations, tool error
            case other:
                raise ValueError(f"Unknown verdict {other!r}")

    builder = StateGraph(State, input_schema=InputState, context_schema=Context)
    builder.add_node(load_conversation)
    builder.add_node(route_turn)
    builder.add_node(reformulate)
    builder.add_node(retrieve)
    builder.add_node(use_tool)
    builder.add_node(generate)
    builder.add_node(reply)
    builder.add_node(clarify)
    builder.add_node(decline)
    builder.add_node(ask)
    builder.add_node(persist)
    builder.add_edge(START, "load_conversation")
    builder.add_edge("load_conversation", "route_turn")
    builder.add_conditional_edges("route_turn", after_route)
    builder.add_edge("reformulate", "retrieve")
    builder.add_conditional_edges("retrieve", after_context)
    builder.add_conditional_edges("use_tool", after_context)
    builder.add_conditional_edges("generate", after_generate)
    builder.add_edge("reply", "persist")
    builder.add_edge("clarify", "persist")
    builder.add_edge("decline", "persist")
    builder.add_edge("ask", "persist")
    builder.add_edge("persist", END)
    return builder.compile(name="threadline")


graph = build_graph()
"""The graph LangGraph Studio serves (langgraph.json); services open on first use."""
