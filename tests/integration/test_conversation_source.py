"""Past conversations as a chat source: only when the caller app's policy and the request say so."""

from __future__ import annotations

import pytest

from support.conversations import add_turns
from support.services import make_services
from threadline.chat import ChatService, TurnRequest
from threadline.conversations.worker import ConversationIndexer

QUESTION = "What did we decide about the Zephyr rollout?"
PAST = [(QUESTION, "We decided to roll out Zephyr to the Lyon office in March.")]


@pytest.fixture(scope="module")
def chat(tmp_path_factory):
    services = make_services(
        tmp_path_factory.mktemp("convsource"),
        source_policy={
            "memory-bot": ["support", "conversations"],
            "plain-bot": ["support"],
            "other-bot": ["support", "conversations"],
        },
    )
    add_turns(services.store, "default", "memory-bot", "past", PAST)
    add_turns(services.store, "other", "memory-bot", "past-other-tenant", PAST)
    ConversationIndexer(services.store, services.conversations).run_once(force=True)
    yield ChatService(services)
    services.close()


def _turn(chat, thread: str, caller_app: str, sources, tenant: str = "default"):
    return chat.run_turn(
        TurnRequest(
            query=QUESTION,
            thread_id=thread,
            caller_app=caller_app,
            sources=sources,
            tenant=tenant,
        )
    )


def test_allowed_and_requested_past_exchanges_are_cited(chat) -> None:
    result = _turn(chat, "now-1", "memory-bot", ["conversations"])
    assert result.outcome == "grounded_answer", result.answer
    assert "Lyon" in result.answer
    cited = result.citations[0]
    assert cited["source"] == "conversations"
    assert cited["doc_id"] == "conversation:past"
    assert cited["section"] == "Exchange 1"


def test_not_requested_means_documents_only(chat) -> None:
    result = _turn(chat, "now-2", "memory-bot", None)
    assert all(c["source"] != "conversations" for c in result.citations)
    assert "Lyon" not in result.answer


def test_not_in_the_policy_is_denied_or_off(chat) -> None:
    denied = _turn(chat, "now-3", "plain-bot", ["conversations"])
    assert denied.stop_reason == "source_denied:conversations"
    # An app the policy does not name may not search conversations either (off by default).
    unnamed = _turn(chat, "now-4", "default", ["conversations"])
    assert unnamed.outcome == "clarify" and not unnamed.citations


def test_other_apps_and_tenants_do_not_see_the_exchanges(chat) -> None:
    other_app = _turn(chat, "now-5", "other-bot", ["conversations"])
    assert not other_app.citations and other_app.outcome == "clarify"
    other_tenant = _turn(chat, "now-6", "memory-bot", ["conversations"], tenant="third")
    assert not other_tenant.citations
