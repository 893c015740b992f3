"""Dependencies the routes declare (`Annotated` aliases, FastAPI style)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Annotated

from fastapi import Depends, Query, Request, Security
from fastapi.security import APIKeyHeader, HTTPAuthorizationCredentials, HTTPBearer

from threadline.api.errors import ApiError
from threadline.api.schemas import ID_SCHEMA
from threadline.auth import LOCAL_PRINCIPAL, KeyConfigurationError, KeyRing, Principal
from threadline.chat import ChatService
from threadline.services import Services
from threadline.store import ConversationStore

bearer_scheme = HTTPBearer(auto_error=False, description="An API key as a bearer token.")
api_key_header = APIKeyHeader(name="X-API-Key", auto_error=False, description="An API key.")


def get_services(request: Request) -> Services:
    """Return the services created in the app's lifespan."""
    return request.app.state.services


def get_chat(request: Request) -> ChatService:
    """Return the chat facade created in the app's lifespan."""
    return request.app.state.chat


def get_store(request: Request) -> ConversationStore:
    """Return the conversation store."""
    return request.app.state.services.store


def presented_key(api_key: str | None, bearer: str | None) -> str | None:
    """Return the one key a request presents, in `X-API-Key` or as a bearer token.

    Raises:
        ApiError: 401 `conflicting_api_keys` when the two headers carry different keys:
            acting as either would be a guess at which tenant the caller meant, so the
            request is not authenticated (a 401, as a wrong key's, with its own code).
    """
    if api_key and bearer and api_key != bearer:
        raise ApiError(
            401,
            "conflicting_api_keys",
            "X-API-Key and Authorization: Bearer carry different keys; send one.",
        )
    return api_key or bearer or None


def get_principal(
    request: Request,
    bearer: Annotated[HTTPAuthorizationCredentials | None, Security(bearer_scheme)],
    api_key: Annotated[str | None, Security(api_key_header)],
) -> Principal:
    """Authenticate the caller; with no keys configured, everyone is the local tenant.

    Raises:
        ApiError: 401 `unauthorized` when keys are configured and none valid is given.
    """
    keyring: KeyRing = request.app.state.keyring
    if not keyring.enabled:
        return LOCAL_PRINCIPAL
    key = presented_key(api_key, bearer.credentials if bearer else None)
    try:
        principal = keyring.authenticate(key) if key else None
    except KeyConfigurationError as error:
        # The keys file changed into one serve would refuse: no key is good until it is
        # fixed (the reason is in the server's log, not told to callers).
        raise ApiError(
            503,
            "api_keys_invalid",
            "The server's API key configuration cannot be used: no key is accepted until "
            "an administrator fixes it.",
        ) from error
    if principal is None:
        raise ApiError(401, "unauthorized", "A valid API key is required.")
    return principal


PrincipalDep = Annotated[Principal, Depends(get_principal)]


def get_tenant(principal: PrincipalDep) -> str:
    """Return the caller's tenant."""
    return principal.tenant


def authorize_caller_app(principal: Principal, caller_app: str) -> None:
    """Refuse a caller app the key may not act as.

    Raises:
        ApiError: 403 `caller_app_forbidden`.
    """
    if not principal.may_act_as(caller_app):
        raise ApiError(403, "caller_app_forbidden", f"This key may not act as {caller_app!r}.")


def get_caller_app(
    principal: PrincipalDep,
    caller_app: Annotated[
        str,
        Query(
            min_length=1,
            max_length=128,
            description="The calling application.",
            json_schema_extra=ID_SCHEMA,
        ),
    ] = "default",
) -> str:
    """Return the `caller_app` query parameter, checked against the key."""
    authorize_caller_app(principal, caller_app)
    return caller_app


CallerAppDep = Annotated[str, Depends(get_caller_app)]


def document_sources(
    principal: Principal, policy: Mapping[str, Sequence[str]]
) -> frozenset[str] | None:
    """Return the sources whose documents a key may read, write and delete; None: all of them.

    A key reaches a source when one of the caller apps it may act as may search it
    (`source_policy`, with its `"*"` fallback for apps it does not name). A key that
    may act as any app reaches every source the policy gives any app, and all of
    them when an app the policy does not name is unrestricted.
    """
    fallback = policy.get("*")
    if "*" in principal.caller_apps:
        if fallback is None:
            return None
        return frozenset(source for sources in policy.values() for source in sources)
    reachable: set[str] = set()
    for app in principal.caller_apps:
        allow = policy.get(app, fallback)
        if allow is None:
            return None
        reachable.update(allow)
    return frozenset(reachable)


def get_document_sources(principal: PrincipalDep, request: Request) -> frozenset[str] | None:
    """Return the caller's document scope (see `document_sources`)."""
    return document_sources(principal, request.app.state.services.settings.source_policy)


DocumentSourcesDep = Annotated[frozenset[str] | None, Depends(get_document_sources)]
ServicesDep = Annotated[Services, Depends(get_services)]
ChatDep = Annotated[ChatService, Depends(get_chat)]
StoreDep = Annotated[ConversationStore, Depends(get_store)]
TenantDep = Annotated[str, Depends(get_tenant)]
