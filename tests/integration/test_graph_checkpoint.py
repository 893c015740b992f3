"""The compiled graph keeps a thread's state across runs (checkpointer) over the sample services."""

from __future__ import annotations

from langgraph.checkpoint.memory import InMemorySaver

from threadline.graph.graph import build_graph


def test_a_checkpointed_thread_starts_every_turn_with_a_clean_trace_and_count(sample_services):
    # LangGraph Studio keeps a thread's state between runs: the reducers of trace and
    # llm_calls must not carry the previous turn's entries and calls into the next.
    graph = build_graph(sample_services, checkpointer=InMemorySaver())
    config = {"configurable": {"thread_id": "studio-like-thread"}}
    first = graph.invoke({"query": "Résume le rapport annuel 2024"}, config)
    second = graph.invoke({"query": "Hello!"}, config)
    assert first["llm_calls"] == 1
    assert second["llm_calls"] == 0
    assert [t["node"] for t in second["trace"]] == ["load_conversation", "route_turn"]
    assert second["trace"][0] == {"node": "load_conversation", "turns": 1}
