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
        # The user is told what to change, in words; the code stays for clients.
        assert "too long" in too_long.answer and "invalid_intent" not in too_long.answer
        assert "not allowed" not in too_long.answer
    finally:
        services.close()


def test_a_caller_app_whose_sources_leave_out_the_catalog_gets_no_product(
    sample_services, monkeypatch
):
    # The catalog's tools answer from the products, not through a search: they must
    # follow the sources a turn may read, as retrieval does.
    from threadline.chat import ChatService, TurnRequest

    chat = ChatService(sample_services)
    monkeypatch.setattr(sample_services.settings, "source_policy", {"support-bot": ["support"]})
    queries = ["Which laptop is the lightest?", "What phones do you have under $500?"]
    for n, query in enumerate(queries):
        allowed = chat.run_turn(TurnRequest(query=query, thread_id=f"catalog-{n}"))
        assert allowed.route == "tool" and allowed.citations, query  # the control
        # Its policy leaves the catalog out; a request narrows it out.
        for request in ({"caller_app": "support-bot"}, {"sources": ["support"]}):
            thread = f"catalog-{n}-{len(request)}-{next(iter(request))}"
            result = chat.run_turn(TurnRequest(query=query, thread_id=thread, **request))
            assert result.route != "tool", (query, request)
            assert not any(c["doc_id"].startswith("catalog:") for c in result.citations)
            assert all(c["source"] != "catalog" for c in result.citations), (query, request)


def test_a_question_about_the_documents_names_only_the_sources_the_turn_may_read(
    sample_services, monkeypatch
):
    # The titles a reply names follow the policy as a search does: the caller app's
    # sources, narrowed by the request's; a request outside them names none.
    from threadline.chat import ChatService, TurnRequest

    chat = ChatService(sample_services)
    monkeypatch.setattr(sample_services.settings, "source_policy", {"support-bot": ["support"]})
    for n, request in enumerate(
        ({"caller_app": "support-bot"}, {"sources": ["support"]}, {"sources": ["handbook"]})
    ):
        result = chat.run_turn(
            TurnRequest(query="quels documents as-tu ?", thread_id=f"about-{n}", **request)
        )
        assert result.outcome == "reply" and result.citations == [], result.answer
        assert "Les documents que je peux consulter" in result.answer
        named = ["Brightwell support policy" in result.answer, "handbook" in result.answer]
        assert named == ([False, True] if request == {"sources": ["handbook"]} else [True, False])
        assert "catalog" not in result.answer and "Rapport annuel" not in result.answer
    denied = chat.run_turn(
        TurnRequest(
            query="What documents do you have?",
            thread_id="about-denied",
            caller_app="support-bot",
            sources=["handbook"],
        )
    )
    assert denied.outcome == "reply" and "handbook" not in denied.answer
    assert "No document is available to you yet." in denied.answer
