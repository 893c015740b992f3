"""langgraph.json points at a real compiled graph (what `langgraph dev` loads)."""

from __future__ import annotations

import importlib.util
import json

from langgraph.graph.state import CompiledStateGraph

from support.paths import ROOT


def test_langgraph_json_loads_the_compiled_graph():
    config = json.loads((ROOT / "langgraph.json").read_text())
    path, _, attribute = config["graphs"]["threadline"].partition(":")
    spec = importlib.util.spec_from_file_location("studio_graph", ROOT / path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    graph = getattr(module, attribute)
    assert isinstance(graph, CompiledStateGraph)
    nodes = set(graph.get_graph().nodes)
    assert {"route_turn", "reformulate", "retrieve", "use_tool", "generate", "persist"} <= nodes
    assert set(graph.get_input_jsonschema()["properties"]) >= {"query", "thread_id"}
