"""The use_tool node: answer a catalog question with a typed tool call."""

from __future__ import annotations

from typing import Any

from langchain_core.messages import HumanMessage, SystemMessage
from langchain_core.tools import BaseTool
from pydantic import BaseModel, ValidationError

from threadline.graph import prompts
from threadline.graph.context import run_services
from threadline.graph.state import State, ToolCall
from threadline.graph.tools import make_catalog_tools, products_as_sources, reconcile_tool_call
from threadline.knowledge.catalog import absent_models
from threadline.models import LLMError, chooses_tools


def use_tool(state: State) -> dict[str, Any]:
    """Run a catalog tool; a model that calls tools may pick the tool and its arguments.

    The router's typed request (its deterministic parse of the words) stands when the
    model cannot call tools (its profile says so: the offline model), when a reference
    resolved it already, when the model's call fails (a malformed reply, arguments the
    tool refuses), and when the model's call disagrees with the parse or gives an
    argument the user did not write (`reconcile_tool_call`); the trace says which. A
    model server that is down or too slow raises `LLMError`: the chat facade then runs
    the turn again on the parse with the offline model, so a tool turn never ends as a
    503 for want of an LLM.

    Args:
        state: The turn's state after routing (the router's typed tool request).

    Returns:
        The partial update: tool_call, chunks, search_query, stop_reason, llm_calls, trace.
    """
    services = run_services()
    tools = {t.name: t for t in make_catalog_tools(services.kb.catalog, state.tenant)}
    call: ToolCall | dict[str, Any] = state.tool_call or {}
    trace: dict[str, Any] = {"node": "use_tool"}
    calls = 0
    llm = services.llm
    # A reference into the listed products was resolved deterministically: no choice left.
    if chooses_tools(llm) and not state.followup.resolved:
        calls = 1
        try:
            reply = llm.bind_tools(list(tools.values())).invoke(
                [SystemMessage(prompts.TOOL_SYSTEM_PROMPT), HumanMessage(state.query)]
            )
        except LLMError:
            raise
        except Exception as exc:  # a reply the client cannot read: the parse answers
            trace["model_error"] = type(exc).__name__
        else:
            proposed = model_call(reply.tool_calls, tools)
            if isinstance(proposed, str):
                trace["model_error"] = proposed
            else:
                chosen, note = reconcile_tool_call(proposed, state.tool_call, state.query)
                call = ToolCall(name=chosen["name"], args=chosen["args"])
                trace.update(note)
    try:
        products = tools[call["name"]].invoke(call["args"])
    except Exception as exc:  # arguments the tool refuses must not crash the turn
        return {
            "stop_reason": f"tool_error:{type(exc).__name__}",
            "llm_calls": calls,
            "trace": [{**trace, "call": call, "error": str(exc)}],
        }
    chunks = products_as_sources(products, call)
    stop_reason = None if chunks else "no_matching_products"
    args = call.get("args") or {}
    if not chunks and call["name"] == "get_product" and args.get("specs"):
        if services.kb.catalog.find(state.tenant, [args["name"]]):
            stop_reason = "spec_not_stated"  # the product is there, what is asked is not
    if call["name"] == "compare_products" and _named_but_absent(services, state.tenant, args):
        # "compare the pixel 8 and the iphone 15": the catalog has no Pixel 8, which is
        # the answer (the Pixel 8 Pro compared in its place answered another question).
        chunks, stop_reason = [], "product_not_in_catalog"
    if not chunks and call["name"] == "rank_products" and args.get("names"):
        # "which is heavier?" after comparing two phones: the phones are there, the spec
        # ranked is not stated for any of them.
        if services.kb.catalog.find(state.tenant, list(args["names"])):
            stop_reason = "spec_not_stated"
    elif not chunks and call["name"] == "rank_products":
        # "the lightest phone": the catalog weighs no phone, which is the answer (not the
        # phones by price, nor a document sentence on the catalog).
        kind = services.kb.catalog.search(state.tenant, category=args.get("category"))
        if kind and not any(p.has_spec(str(args.get("spec"))) for p in kind):
            stop_reason = "spec_not_stated"
    return {
        "tool_call": call,
        "chunks": chunks,
        # What the turn found, in words: the next turn's condensed query carries them
        # ("does it have an OLED screen?" after a ranking searches those products), where
        # the call's repr would carry its argument names ("spec weight kg order asc").
        "search_query": "; ".join(str(c["title"]) for c in chunks)
        or f"{call['name']}({call['args']})",
        "stop_reason": stop_reason,
        "llm_calls": calls,
        "trace": [{**trace, "call": call, "results": len(chunks)}],
    }


def _named_but_absent(services: Any, tenant: str, args: dict[str, Any]) -> bool:
    return bool(absent_models(services.kb.catalog, tenant, list(args.get("names") or [])))


def model_call(tool_calls: list[Any], tools: dict[str, BaseTool]) -> dict[str, Any] | str:
    """Return the model's first tool call with its arguments validated, or why it is unusable.

    Args:
        tool_calls: The reply's parsed tool calls (malformed JSON arguments are not here).
        tools: The catalog tools by name.

    Returns:
        `{"name", "args"}` with the arguments the user gave (the schema's defaults left
        out), or `no_tool_call`, `unknown_tool:NAME`, `invalid_arguments:NAME`.
    """
    if not tool_calls:
        return "no_tool_call"
    name, args = tool_calls[0]["name"], tool_calls[0]["args"]
    if name not in tools:
        return f"unknown_tool:{name}"
    schema = tools[name].args_schema
    if isinstance(schema, type) and issubclass(schema, BaseModel):
        try:
            schema.model_validate(args)
        except ValidationError:
            return f"invalid_arguments:{name}"
    return {"name": name, "args": dict(args)}
