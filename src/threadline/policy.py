"""The source policy: which knowledge sources a caller app may search (and whether it may debug).

It sits outside the graph and the API because both apply it: the graph when a
turn retrieves, the API when the web page looks up a cited passage. A request
may narrow the caller app's allowlist, never widen it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence


class PolicyViolation(Exception):
    """A retrieval intent the policy refuses; `reason` is the stop_reason."""

    def __init__(self, reason: str) -> None:
        """Keep the machine-readable reason."""
        super().__init__(reason)
        self.reason = reason


def allowed_sources(
    policy: Mapping[str, Sequence[str]], caller_app: str, requested: Sequence[str] | None
) -> tuple[str, ...] | None:
    """Return the sources a turn may search: the caller app's allowlist, narrowed by the request.

    Args:
        policy: Allowlists by caller app; the `"*"` entry applies to apps not listed.
        caller_app: The app making the request.
        requested: The sources the request asks for, or None for "whatever is allowed".

    Returns:
        The sources to search, or None when neither the policy nor the request
        restricts sources.

    Raises:
        PolicyViolation: `source_denied:<names>` when the request asks for sources
            outside the caller app's allowlist.
    """
    allow = policy.get(caller_app, policy.get("*"))
    if requested is None:
        return tuple(allow) if allow is not None else None
    requested = tuple(dict.fromkeys(requested))
    if allow is not None:
        denied = [s for s in requested if s not in allow]
        if denied:
            raise PolicyViolation(f"source_denied:{','.join(sorted(denied))}")
    return requested


CATALOG_SOURCE = "catalog"
"""The source name of the product catalog (its tools' passages carry it too)."""


def may_read_catalog(
    policy: Mapping[str, Sequence[str]], caller_app: str, requested: Sequence[str] | None
) -> bool:
    """Whether a turn may read the product catalog: `catalog` is among the sources it may search.

    The catalog's tools answer from the products directly, not through a search, so
    they check the policy here: a caller app (or a request) whose sources leave the
    catalog out gets no product from it, as it gets no passage of another source.
    """
    try:
        allow = allowed_sources(policy, caller_app, requested)
    except PolicyViolation:
        return False
    return allow is None or CATALOG_SOURCE in allow


def may_debug(debug_apps: Sequence[str], caller_app: str) -> bool:
    """Whether a caller app may see turns' traces (`THREADLINE_DEBUG_CALLER_APPS`).

    A trace holds ids, titles and scores of passages within the caller app's own
    sources, never their text; it is still kept from apps not named, since it shows
    how the service decides.

    Args:
        debug_apps: The allowed caller apps; `"*"` allows every app.
        caller_app: The app asking.

    Returns:
        True when the app may see traces.
    """
    return "*" in debug_apps or caller_app in debug_apps
