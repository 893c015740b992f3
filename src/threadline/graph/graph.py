"""The turn graph: load → route → (reformulate → retrieve | tool) → generate → persist.

One compiled graph serves the API, the CLI and LangGraph Studio. Nodes are
small verbs that return partial updates; the long-lived parts they need (store,
knowledge base, chat model, queries log) come from a `Services` provider, so
the module can be imported without opening anything.
"""

from __future__ import annotations

import html
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
from threadline.followups.trail import render_history
from threadline.graph import prompts
from threadline.graph.context import Context
from threadline.graph.reformulation import reformulate_turn, trail_turns
from threadline.graph.retrieval import retrieve_turn
from threadline.graph.routing import plan_turn, small_talk_kind
from threadline.graph.state import InputState, State
from threadline.graph.tools import make_catalog_tools, products_as_sources
from threadline.knowledge.language import frame_answer
from threadline.models import is_extractive
from threadline.querylog import QueryRecord
from threadline.services import Services, get_services
from threadline.store import FollowupInfo, OutlineItem, TurnMetadata

_CITATION = re.compile(r"\[(\d+(?:\s*,\s*\d+)*)\]")
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
    brands = sorted({p.brand for p in services.kb.catalog.products(state.tenant)})
    plan = plan_turn(
        state.query,
        outline=outline,
        source_titles=ts.get("last_titles", []),
        has_previous_turn=bool(state.history),
        brands=brands,
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
        """Search within policy and budgets (fusing query variants); retry once; pack."""
        return retrieve_turn(state, provider(), runtime.context or Context()).update

    def use_tool(state: State) -> dict[str, Any]:
        """Run a catalog tool; with a real LLM the model picks the tool and its arguments."""
        services = provider()
        tools = {t.name: t for t in make_catalog_tools(services.kb.catalog, state.tenant)}
        call, calls = state.tool_call or {}, 0
        llm = services.llm
        if not is_extractive(llm):
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
        chunks = products_as_sources(products)
        return {
            "tool_call": call,
            "chunks": chunks,
            "search_query": f"{call['name']}({call['args']})",
            "stop_reason": None if chunks else "no_matching_products",
            "llm_calls": state.llm_calls + calls,
            "trace": state.trace + [{"node": "use_tool", "call": call, "results": len(chunks)}],
        }

    def generate(state: State, runtime: Runtime[Context]) -> dict[str, Any]:
        """Answer from the packed context only, then validate citations and the outline."""
        services = provider()
        settings, context = services.settings, runtime.context or Context()
        reference = ""
        if state.followup.get("section_id"):
            section_id = state.followup["section_id"]
            title = next(
                (
                    o["title"]
                    for o in state.thread_state.get("last_outline", [])
                    if o["id"] == section_id
                ),
                "",
            )
            reference = f"FOLLOWUP_REFERENCE={section_id}: {title}"
        sources = "\n".join(
            prompts.SOURCE_TEMPLATE.format(
                id=c["label"],
                title=html.escape(c["title"]),
                section=html.escape(c["section"]),
                text=html.escape(c["text"], quote=False),
            )
            for c in state.chunks
        )
        history = render_history(
            trail_turns(state.history),
            mode=context.history_mode or settings.history_mode,
            phase="answer",
            max_titles=settings.history_max_titles,
            max_chars=settings.history_max_chars,
        )
        language = _lang(state)
        messages = [
            SystemMessage(
                context.answer_system_prompt.format(
                    language=language, keyword=settings.outline_keyword
                )
            ),
            HumanMessage(
                prompts.ANSWER_USER_PROMPT.format(
                    history=html.escape(history, quote=False),
                    followup_reference=html.escape(reference),
                    deliverable="yes" if state.deliverable else "no",
                    answer_style="list" if state.route == "tool" else "prose",
                    search_query=html.escape(state.search_query, quote=False),
                    context=sources,
                    question=html.escape(state.query, quote=False),
                )
            ),
        ]
        reply = services.llm.invoke(messages)
        calls = state.llm_calls + 1
        text = reply.text.strip()
        if not text or text.startswith(prompts.INSUFFICIENT_CONTEXT):
            return {
                "stop_reason": "insufficient_context",
                "llm_calls": calls,
                "trace": state.trace + [{"node": "generate", "result": "insufficient_context"}],
            }
        body, sections = split_outline(text, settings.outline_keyword)
        labels = {c["label"]: c for c in state.chunks}
        invalid: list[str] = []

        def keep_valid(match: re.Match[str]) -> str:
            ids = [i.strip() for i in match.group(1).split(",")]
            valid = [i for i in ids if i in labels]
            invalid.extend(i for i in ids if i not in labels)
            return "".join(f"[{i}]" for i in valid)

        body = _CITATION.sub(keep_valid, body).strip()
        if invalid and settings.citation_policy == "refuse":
            return {
                "stop_reason": "invalid_answer:citations_out_of_context",
                "llm_calls": calls,
                "trace": state.trace + [{"node": "generate", "invalid_citations": invalid}],
            }
        cited = list(
            dict.fromkeys(i.strip() for m in _CITATION.findall(body) for i in m.split(","))
        )
        if not cited:
            return {
                "stop_reason": "no_valid_citation",
                "llm_calls": calls,
                "trace": state.trace + [{"node": "generate", "invalid_citations": invalid}],
            }
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
        if is_extractive(services.llm):  # it quotes: say when the quotes are in another language
            body = frame_answer(body, language, [labels[label] for label in cited])
        return {
            "answer": body,
            "outline": [{"id": s.id, "title": s.title} for s in sections],
            "citations": citations,
            "outcome": "tool_answer" if state.route == "tool" else "grounded_answer",
            "stop_reason": "completed",
            "llm_calls": calls,
            "trace": state.trace
            + [{"node": "generate", "cited": cited, "invalid_citations": invalid}],
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

    def after_generate(state: State) -> Literal["persist", "clarify"]:
        return "persist" if state.outcome else "clarify"

    builder = StateGraph(State, input_schema=InputState, context_schema=Context)
    builder.add_node(load_conversation)
    builder.add_node(route_turn)
    builder.add_node(reformulate)
    builder.add_node(retrieve)
    builder.add_node(use_tool)
    builder.add_node(generate)
    builder.add_node(reply)
    builder.add_node(clarify)
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
    builder.add_edge("persist", END)
    return builder.compile(name="threadline")


graph = build_graph()
"""The graph LangGraph Studio serves (langgraph.json); services open on first use."""
