"""The use_tool node: answer a catalog question with a typed tool call."""

from __future__ import annotations

from typing import Any

from langchain_core.messages import HumanMessage, SystemMessage

from threadline.graph import prompts
from threadline.graph.context import run_services
from threadline.graph.state import State, ToolCall
from threadline.graph.tools import make_catalog_tools, products_as_sources
from threadline.models import chooses_tools


def use_tool(state: State) -> dict[str, Any]:
    """Run a catalog tool; a model that calls tools picks the tool and its arguments.

    The router's typed request stands when the model cannot call tools (its profile
    says so: the offline model) or when a reference resolved it already.

    Args:
        state: The turn's state after routing (the router's typed tool request).

    Returns:
        The partial update: tool_call, chunks, search_query, stop_reason, llm_calls, trace.
    """
    services = run_services()
    tools = {t.name: t for t in make_catalog_tools(services.kb.catalog, state.tenant)}
    call: ToolCall | dict[str, Any] = state.tool_call or {}
    calls = 0
    llm = services.llm
    # A reference into the listed products was resolved deterministically: no choice left.
    if chooses_tools(llm) and not state.followup.resolved:
        reply = llm.bind_tools(list(tools.values())).invoke(
            [SystemMessage(prompts.TOOL_SYSTEM_PROMPT), HumanMessage(state.query)]
        )
        calls = 1
        if reply.tool_calls and reply.tool_calls[0]["name"] in tools:
            call = ToolCall(name=reply.tool_calls[0]["name"], args=reply.tool_calls[0]["args"])
    try:
        products = tools[call["name"]].invoke(call["args"])
    except Exception as exc:  # a model's bad arguments must not crash the turn
        return {
            "stop_reason": f"tool_error:{type(exc).__name__}",
            "llm_calls": calls,
            "trace": [{"node": "use_tool", "call": call, "error": str(exc)}],
        }
    chunks = products_as_sources(products, call)
    return {
        "tool_call": call,
        "chunks": chunks,
        "search_query": f"{call['name']}({call['args']})",
        "stop_reason": None if chunks else "no_matching_products",
        "llm_calls": calls,
        "trace": [{"node": "use_tool", "call": call, "results": len(chunks)}],
    }
