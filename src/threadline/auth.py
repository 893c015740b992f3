"""API keys: hashed at rest, each mapped to a tenant and the caller apps it may act as.

Keys come from settings (`THREADLINE_API_KEYS`, JSON) and/or a keys file
(`THREADLINE_API_KEYS_FILE`, one JSON object per line). Only SHA-256 digests are
stored; a key is high-entropy random, so a fast hash is the right tool (a slow
password hash would only slow every request down).
"""

from __future__ import annotations

import hashlib
import hmac
import json
import secrets
from dataclasses import dataclass
from pathlib import Path

from pydantic import BaseModel, Field, field_validator

from threadline.store.ids import validate_id

KEY_PREFIX = "tl_"


class ApiKeyEntry(BaseModel):
    """One configured key, as stored (never the key itself)."""

    name: str = Field(default="", description="Who or what the key is for.")
    sha256: str = Field(pattern=r"^[0-9a-f]{64}$", description="Hex SHA-256 of the key.")
    tenant: str = Field(min_length=1, max_length=128)
    caller_apps: list[str] = Field(
        default_factory=lambda: ["*"], description='Caller apps allowed ("*" = any).'
    )

    @field_validator("tenant")
    @classmethod
    def _stored_tenant(cls, tenant: str) -> str:
        # The tenant keys every store path, row and filter: it follows the stores' id
        # rule, so no key names a tenant the stores refuse (every route a 400) or one
        # outside their namespace (the uploads' staging tenant holds a NUL).
        return validate_id(tenant, "tenant")

    @field_validator("caller_apps")
    @classmethod
    def _stored_caller_apps(cls, apps: list[str]) -> list[str]:
        return [app if app == "*" else validate_id(app, "caller_app") for app in apps]


@dataclass(frozen=True)
class Principal:
    """Who is calling: a tenant and the caller apps it may use."""

    tenant: str
    caller_apps: frozenset[str]
    key_name: str | None = None
    key_id: str | None = None
    """The first hex digits of the key's digest: tells keys of one name apart."""

    @property
    def user(self) -> str:
        """Who this caller is, for what is kept per user (ratings): `name#digest`, or `local`."""
        if self.key_id is None:
            return "local"
        return f"{self.key_name or 'key'}#{self.key_id}"

    def may_act_as(self, caller_app: str) -> bool:
        """Whether this principal may send requests as `caller_app`."""
        return "*" in self.caller_apps or caller_app in self.caller_apps


LOCAL_PRINCIPAL = Principal(tenant="default", caller_apps=frozenset({"*"}))


def hash_key(key: str) -> str:
    """Return the stored form of a key."""
    return hashlib.sha256(key.encode("utf-8")).hexdigest()


def new_key() -> str:
    """Return a fresh random key (shown once, never stored)."""
    return KEY_PREFIX + secrets.token_urlsafe(32)


def load_key_entries(inline: list[ApiKeyEntry], file: Path | None) -> list[ApiKeyEntry]:
    """All configured keys: the settings' list plus the keys file's lines."""
    entries = list(inline)
    if file is not None and file.exists():
        for line in file.read_text(encoding="utf-8").splitlines():
            if line.strip() and not line.lstrip().startswith("#"):
                entries.append(ApiKeyEntry.model_validate(json.loads(line)))
    # One key configured twice would act as whichever entry a lookup meets last: a key
    # meant for one tenant could silently open another. Refuse the configuration.
    seen: dict[str, ApiKeyEntry] = {}
    for entry in entries:
        if entry.sha256 in seen:
            first = seen[entry.sha256]
            raise DuplicateKeyError(
                f"API key {entry.sha256[:8]}… is configured twice "
                f"({first.name or 'unnamed'}: tenant {first.tenant!r}; "
                f"{entry.name or 'unnamed'}: tenant {entry.tenant!r}): keep one entry"
            )
        seen[entry.sha256] = entry
    return entries


class DuplicateKeyError(ValueError):
    """The same key digest appears in two entries of the key configuration."""


class KeyRing:
    """Looks keys up by digest, in constant time per entry."""

    def __init__(self, entries: list[ApiKeyEntry]) -> None:
        """Index the entries."""
        self._entries = entries

    @property
    def enabled(self) -> bool:
        """With no keys configured, the service runs as one local tenant."""
        return bool(self._entries)

    @property
    def tenants(self) -> frozenset[str]:
        """The tenants requests may act in: the keys' tenants, or the local one."""
        if not self._entries:
            return frozenset({LOCAL_PRINCIPAL.tenant})
        return frozenset(entry.tenant for entry in self._entries)

    def authenticate(self, key: str) -> Principal | None:
        """Return the principal a key belongs to, or None."""
        digest = hash_key(key)
        found = None
        for entry in self._entries:
            if hmac.compare_digest(entry.sha256, digest):
                found = entry
        if found is None:
            return None
        return Principal(
            found.tenant, frozenset(found.caller_apps), found.name or None, found.sha256[:8]
        )
