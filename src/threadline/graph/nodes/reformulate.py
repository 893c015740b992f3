"""The reformulate node: the message as a standalone retrieval query."""

from __future__ import annotations

from typing import Any

from langgraph.runtime import Runtime

from threadline.graph.context import Context, run_services
from threadline.graph.reformulation import reformulate_turn
from threadline.graph.state import State


def reformulate(state: State, runtime: Runtime[Context]) -> dict[str, Any]:
    """Turn the message into a standalone retrieval query.

    Args:
        state: The turn's state after routing.
        runtime: The run's knobs (the condensation prompt).

    Returns:
        The partial update: reformulated_query, doc_scope, followup, llm_calls, trace.
    """
    return reformulate_turn(state, run_services(), runtime.context or Context())
