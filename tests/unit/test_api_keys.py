"""API keys are stored hashed, never in the clear."""

from __future__ import annotations

from threadline.auth import ApiKeyEntry, KeyRing, hash_key


def test_keys_are_stored_hashed():
    entry = ApiKeyEntry(sha256=hash_key("tl_secret"), tenant="t")
    assert "tl_secret" not in entry.model_dump_json()
    ring = KeyRing([entry])
    assert ring.authenticate("tl_secret").tenant == "t"
    assert ring.authenticate("tl_secreT") is None
