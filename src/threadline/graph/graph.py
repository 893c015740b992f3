"""The turn graph: load → route → (reformulate → retrieve | tool) → generate → persist.

Wiring only: the nodes live in `threadline.graph.nodes`, the conditional edges
in `threadline.graph.edges`. One compiled graph serves the API, the CLI and
LangGraph Studio; the long-lived parts the nodes use (store, knowledge base,
chat model, queries log) are bound per compiled graph (`build_graph(services)`)
or, for the module-level `graph` Studio loads, the process-wide services opened
on first use, so importing this module opens nothing.
"""

from __future__ import annotations

from typing import Any

from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.graph import END, START, StateGraph
from langgraph.graph.state import CompiledStateGraph

from threadline.graph.context import Context, bind_services
from threadline.graph.edges import after_context, after_generate, after_route
from threadline.graph.nodes import (
    ask,
    clarify,
    decline,
    generate,
    load_conversation,
    persist,
    reformulate,
    reply,
    retrieve,
    route_turn,
    use_tool,
)
from threadline.graph.state import InputState, State
from threadline.services import Services

TurnGraph = CompiledStateGraph[State, Context, Any, Any]
"""The compiled turn graph's type (input: an `InputState` or a dict of its fields)."""


def build_graph(
    services: Services | None = None, *, checkpointer: BaseCheckpointSaver | None = None
) -> TurnGraph:
    """Compile the turn graph.

    Args:
        services: The services its runs use; None means the process-wide ones.
        checkpointer: Keeps each thread's state between runs (the LangGraph server
            brings its own; the API and the CLI need none: the store is the record).

    Returns:
        The compiled graph.
    """
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
    compiled = builder.compile(checkpointer=checkpointer, name="threadline")
    return compiled if services is None else compiled.with_config(bind_services(services))


graph = build_graph()
"""The graph LangGraph Studio serves (langgraph.json); services open on first use."""
