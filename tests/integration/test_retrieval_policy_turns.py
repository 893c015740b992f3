"""A policy violation ends a real turn with a stop reason, not an exception."""

from __future__ import annotations


def test_policy_violations_end_the_turn_with_a_stop_reason_not_an_exception(tmp_path):
    from support.services import make_services
    from threadline.chat import ChatService, TurnRequest

    services = make_services(tmp_path, source_policy={"support-bot": ["support"]})
    chat = ChatService(services)
    try:
        denied = chat.run_turn(
            TurnRequest(
                query="What SLA applies?",
                thread_id="p1",
                caller_app="support-bot",
                sources=["support", "rapports"],
            )
        )
        assert denied.outcome == "clarify" and denied.stop_reason == "source_denied:rapports"
        narrowed = chat.run_turn(
            TurnRequest(
                query="Résume le rapport annuel 2024", thread_id="p2", caller_app="support-bot"
            )
        )
        assert all(c["source"] == "support" for c in narrowed.citations)
        too_long = chat.run_turn(TurnRequest(query="SLA " * 400, thread_id="p3"))
        assert too_long.stop_reason == "invalid_intent:query_too_long"
    finally:
        services.close()
