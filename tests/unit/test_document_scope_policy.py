"""Which documents a turn may be scoped to follows the caller app's policy."""

from __future__ import annotations

from threadline.api.deps import document_sources
from threadline.auth import Principal

POLICY = {"support-bot": ["support", "catalog"]}


def test_document_scope_follows_the_policy():
    any_app = frozenset({"*"})
    assert document_sources(Principal("t", any_app), {}) is None
    assert document_sources(Principal("t", any_app), POLICY) is None  # unnamed apps: all
    assert document_sources(Principal("t", frozenset({"support-bot"})), POLICY) == {
        "support",
        "catalog",
    }
    assert document_sources(Principal("t", frozenset({"web"})), POLICY) is None
    fallback = {**POLICY, "*": ["public"]}
    assert document_sources(Principal("t", frozenset({"web"})), fallback) == {"public"}
    assert document_sources(Principal("t", any_app), fallback) == {
        "support",
        "catalog",
        "public",
    }
