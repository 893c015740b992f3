"""The graph's conditional edges: which node runs next, from what the last one decided."""

from __future__ import annotations

from typing import Literal

from threadline.graph.state import State


def after_route(state: State) -> Literal["reply", "use_tool", "reformulate", "clarify"]:
    """After routing: small talk, a catalog tool, a search, or a question back.

    Raises:
        ValueError: On a route no node handles.
    """
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
    """After retrieval or a tool: answer from the context, or ask when there is none."""
    return "generate" if state.chunks else "clarify"


def after_generate(state: State) -> Literal["persist", "decline", "ask", "clarify"]:
    """After generation: keep the answer, decline, ask which one, or clarify.

    Raises:
        ValueError: On a verdict no node handles.
    """
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
