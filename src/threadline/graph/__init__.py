"""The threadline turn graph (LangGraph)."""

from threadline.graph.graph import build_graph, graph

__all__ = ["build_graph", "graph"]
