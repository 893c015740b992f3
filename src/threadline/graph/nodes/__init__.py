"""The turn graph's nodes: one module-level function per node, grouped by concern.

Each node takes the turn's `State` (and the run's `Runtime[Context]` or config
where it needs them) and returns a partial update. The long-lived parts come
from `threadline.graph.context.run_services()`, so a node can be imported and
called alone, and a benchmark can compile a smaller graph of the same nodes.
"""

from threadline.graph.nodes.generate import generate
from threadline.graph.nodes.load import load_conversation
from threadline.graph.nodes.persist import persist
from threadline.graph.nodes.reformulate import reformulate
from threadline.graph.nodes.replies import ask, clarify, decline, reply
from threadline.graph.nodes.retrieve import retrieve
from threadline.graph.nodes.route import route_turn
from threadline.graph.nodes.tool import use_tool

__all__ = [
    "ask",
    "clarify",
    "decline",
    "generate",
    "load_conversation",
    "persist",
    "reformulate",
    "reply",
    "retrieve",
    "route_turn",
    "use_tool",
]
