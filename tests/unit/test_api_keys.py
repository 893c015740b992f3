"""API keys are stored hashed, never in the clear."""

from __future__ import annotations

from threadline.auth import ApiKeyEntry, KeyRing, hash_key


def test_keys_are_stored_hashed():
    entry = ApiKeyEntry(sha256=hash_key("tl_secret"), tenant="t")
    assert "tl_secret" not in entry.model_dump_json()
    ring = KeyRing([entry])
    assert ring.authenticate("tl_secret").tenant == "t"
    assert ring.authenticate("tl_secreT") is None


def test_a_key_names_a_tenant_and_caller_apps_the_stores_accept():
    # Any 1-128 characters were accepted: a tenant like "../acme" made every session
    # route of that key a 400 invalid_id, and "\x00staged" (the staging tenant of
    # document uploads) or a look-alike of another tenant could be configured.
    import pytest
    from pydantic import ValidationError

    digest = hash_key("tl_k")
    for tenant in ("../acme", "a/b", "\x00staged", "аcme", " acme"):
        with pytest.raises(ValidationError, match="tenant"):
            ApiKeyEntry(sha256=digest, tenant=tenant)
    for apps in (["web", "a b"], [""], ["wéb"]):
        with pytest.raises(ValidationError, match="caller_app"):
            ApiKeyEntry(sha256=digest, tenant="acme", caller_apps=apps)
    kept = ApiKeyEntry(sha256=digest, tenant="acme-2.eu:prod", caller_apps=["*", "web_1"])
    assert (kept.tenant, kept.caller_apps) == ("acme-2.eu:prod", ["*", "web_1"])


def test_one_key_configured_for_two_tenants_is_refused(tmp_path):
    # The lookup kept the last entry it met: the key silently opened the second tenant.
    import pytest

    from threadline.auth import DuplicateKeyError, load_key_entries

    digest = hash_key("tl_shared")
    first = ApiKeyEntry(name="a", sha256=digest, tenant="acme")
    file = tmp_path / "keys.jsonl"
    file.write_text(ApiKeyEntry(sha256=digest, tenant="globex").model_dump_json() + "\n")
    with pytest.raises(DuplicateKeyError, match="configured twice"):
        load_key_entries([first], file)
    with pytest.raises(DuplicateKeyError):
        load_key_entries([first, first], None)
    other = ApiKeyEntry(sha256=hash_key("tl_other"), tenant="globex")
    assert load_key_entries([first, other], None) == [first, other]


def test_the_tenants_requests_act_in_are_the_keys_or_the_local_one():
    assert KeyRing([]).tenants == {"default"}
    ring = KeyRing(
        [
            ApiKeyEntry(sha256=hash_key("tl_a"), tenant="acme"),
            ApiKeyEntry(sha256=hash_key("tl_b"), tenant="acme", caller_apps=["web"]),
            ApiKeyEntry(sha256=hash_key("tl_c"), tenant="globex"),
        ]
    )
    assert ring.tenants == {"acme", "globex"}
