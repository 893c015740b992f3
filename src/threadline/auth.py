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
import logging
import secrets
import threading
from dataclasses import dataclass
from pathlib import Path

from pydantic import BaseModel, Field, field_validator

from threadline.store.ids import validate_id

KEY_PREFIX = "tl_"

log = logging.getLogger("threadline.auth")


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


class KeyConfigurationError(ValueError):
    """The configured keys cannot be used.

    A keys file missing or unreadable, a line that is not a key, or one key configured twice.
    """


class DuplicateKeyError(KeyConfigurationError):
    """The same key digest appears in two entries of the key configuration."""


def read_keys_file(file: Path) -> list[ApiKeyEntry]:
    """Return the keys of a keys file: one JSON object a line; blank and `#` lines skipped.

    Raises:
        KeyConfigurationError: If the file cannot be read (missing, not UTF-8, a
            directory...) or a line is not a key, naming the line.
    """
    try:
        text = file.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        # A keys file that cannot be read is not "no keys": that would serve every
        # caller, unauthenticated, as the local tenant.
        reason = error.strerror if isinstance(error, OSError) else "it is not UTF-8 text"
        raise KeyConfigurationError(f"the API keys file {file} cannot be read: {reason}") from error
    entries = []
    for number, line in enumerate(text.splitlines(), start=1):
        if line.strip() and not line.lstrip().startswith("#"):
            try:
                entries.append(ApiKeyEntry.model_validate(json.loads(line)))
            except ValueError as error:  # json.JSONDecodeError, pydantic.ValidationError
                raise KeyConfigurationError(
                    f"the API keys file {file}, line {number}, is not a key: "
                    f"{str(error).splitlines()[0]}"
                ) from error
    return entries


def load_key_entries(inline: list[ApiKeyEntry], file: Path | None) -> list[ApiKeyEntry]:
    """All configured keys: the settings' list plus the keys file's lines.

    Raises:
        KeyConfigurationError: If the keys file cannot be read or holds a line that is
            not a key; DuplicateKeyError if one key is configured twice.
    """
    entries = list(inline)
    if file is not None:
        entries += read_keys_file(file)
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


def keys_configured(inline: list[ApiKeyEntry], file: Path | None) -> bool:
    """Whether requests need a key: some key is configured inline, or a keys file is named.

    A named keys file turns keys on whatever it holds: empty, it admits no one.
    """
    return bool(inline) or file is not None


def _file_version(file: Path) -> tuple[int, int, int, int] | None:
    """Return what tells one state of a file from another unread (None: no such file)."""
    try:
        stat = file.stat()
    except OSError:
        return None
    return (stat.st_ino, stat.st_size, stat.st_mtime_ns, stat.st_ctime_ns)


class KeyRing:
    """Looks keys up by digest, in constant time per entry.

    The keys file is read again when it changes (checked by one `stat` per lookup), so a
    key removed from it is refused from the next request on, in every worker process,
    without a restart. A file changed into one that cannot be used (gone, a line that is
    not a key, a key twice) refuses every key (`KeyConfigurationError`) until it is
    fixed, as `threadline serve` refuses to start with it: serving its last good keys
    would keep a key being revoked working.
    """

    def __init__(self, entries: list[ApiKeyEntry], keys_file: Path | None = None) -> None:
        """Index the inline entries and read the keys file, if any.

        Raises:
            KeyConfigurationError: If the keys file cannot be used now.
        """
        self._inline = list(entries)
        self._file = keys_file
        self._lock = threading.Lock()
        self._version = _file_version(keys_file) if keys_file is not None else None
        self._entries = load_key_entries(self._inline, keys_file)
        self._problem: str | None = None

    @property
    def enabled(self) -> bool:
        """With no keys configured, the service runs as one local tenant."""
        return keys_configured(self._inline, self._file)

    @property
    def tenants(self) -> frozenset[str]:
        """The tenants requests may act in: the keys' tenants, or the local one."""
        if not self.enabled:
            return frozenset({LOCAL_PRINCIPAL.tenant})
        return frozenset(entry.tenant for entry in self._entries)

    def _current(self) -> list[ApiKeyEntry]:
        """Return the entries as the keys file holds them now (read again if it changed)."""
        if self._file is None:
            return self._entries
        version = _file_version(self._file)
        with self._lock:
            if version != self._version:
                self._version = version
                try:
                    self._entries = load_key_entries(self._inline, self._file)
                    self._problem = None
                except KeyConfigurationError as error:
                    self._entries = []
                    self._problem = str(error)
                    log.error("API keys refused until the keys file is fixed: %s", error)
            if self._problem is not None:
                raise KeyConfigurationError(self._problem)
            return self._entries

    def authenticate(self, key: str) -> Principal | None:
        """Return the principal a key belongs to, or None.

        Raises:
            KeyConfigurationError: If the keys file changed into one that cannot be used.
        """
        digest = hash_key(key)
        found = None
        for entry in self._current():
            if hmac.compare_digest(entry.sha256, digest):
                found = entry
        if found is None:
            return None
        return Principal(
            found.tenant, frozenset(found.caller_apps), found.name or None, found.sha256[:8]
        )
