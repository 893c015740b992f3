"""The knowledge base's language shares follow the documents it indexed (real engine)."""

from __future__ import annotations

from support.services import make_services


def test_language_shares_follow_the_indexed_documents(tmp_path) -> None:
    services = make_services(tmp_path / "data")  # the sample: English, one French report
    try:
        shares = services.kb.language_shares(tenant="default")
        assert set(shares) == {"en", "fr"} and shares["en"] > shares["fr"] > 0
        assert abs(sum(shares.values()) - 1.0) < 1e-9
        assert services.kb.language_shares(tenant="nobody") == {}
        services.kb.delete_document("reports-rapport-annuel-2024", tenant="default")
        assert services.kb.language_shares(tenant="default") == {"en": 1.0}
    finally:
        services.close()
