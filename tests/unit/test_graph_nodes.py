"""The graph's nodes and edges on their own, without services."""

from __future__ import annotations

import pytest

from threadline.graph.edges import after_context, after_generate, after_route
from threadline.graph.nodes import clarify, reply
from threadline.graph.state import State, TurnFollowup
from threadline.store import OutlineItem, ThreadState


def test_reply_and_clarify_nodes_run_alone_without_services():
    assert reply(State(query="merci", language="fr"))["answer"].startswith("Avec plaisir")
    state = State(
        query="Tell me more",
        language="en",
        followup=TurnFollowup(detected=True, resolved=False, ref_type="anaphora"),
        thread_state=ThreadState(last_outline=[OutlineItem(id="S1", title="Intro")]),
    )
    state.followup.reason = "pure_anaphora"
    update = clarify(state)
    assert update["stop_reason"] == "ambiguous_reference"
    assert update["answer"].startswith("Which part do you mean?\n- S1: Intro")
    assert update["clarify"]["options"] == [{"label": "S1 · Intro", "query": "Expand S1"}]


def test_edges_name_the_next_node_and_refuse_unknown_values():
    assert after_route(State(route="tool")) == "use_tool"
    assert after_route(State(route="followup_context")) == "reformulate"
    assert after_context(State()) == "clarify"
    assert after_generate(State(verdict="partial")) == "persist"
    assert after_generate(State(verdict="")) == "clarify"
    with pytest.raises(ValueError, match="Unknown route"):
        after_route(State(route="elsewhere"))
    with pytest.raises(ValueError, match="Unknown verdict"):
        after_generate(State(verdict="maybe"))


def test_the_stored_followup_drops_what_only_the_turn_uses():
    followup = TurnFollowup(detected=True, ref_type="document", document_index=2, reason="x")
    assert followup.stored().model_dump() == {
        "detected": True,
        "resolved": False,
        "ref_type": "document",
        "section_id": None,
        "method": None,
    }
