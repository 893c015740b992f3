"""`GET /health`: 200 once the index and models are ready; counts only what a caller may read."""

from __future__ import annotations

from fastapi import APIRouter, Request
from starlette.concurrency import run_in_threadpool

from threadline import __version__
from threadline.api.deps import ServicesDep, document_sources, presented_key
from threadline.api.errors import ApiError
from threadline.api.schemas import HealthPublic
from threadline.auth import LOCAL_PRINCIPAL, KeyConfigurationError, KeyRing
from threadline.models.structured import structured_mode

router = APIRouter(tags=["health"])


@router.get("/health", response_model=HealthPublic)
async def read_health(request: Request, services: ServicesDep) -> HealthPublic:
    """Readiness: the vector engine answers and the models are configured.

    The server listens only once the app's start-up is done, its warm-up included
    (`threadline.warmup`): a 200 here means a question is answered at full speed.

    Needs no key. `chunks` counts the caller's own tenant, within the sources its key
    may read, and is only given to a caller a key authenticates (or to anyone when the
    service runs without keys, as the one local tenant); otherwise it is null, so no one
    learns another tenant's size.
    """
    keyring: KeyRing = request.app.state.keyring
    principal = LOCAL_PRINCIPAL if not keyring.enabled else None
    # Read from the headers, not declared as security: health needs no key, and the
    # schema says so.
    scheme, _, credentials = request.headers.get("authorization", "").partition(" ")
    bearer = credentials.strip() if scheme.lower() == "bearer" else ""
    if principal is None:
        try:
            key = presented_key(request.headers.get("x-api-key"), bearer)
        except ApiError:
            key = None  # two different keys authenticate no one; health needs none
        try:
            principal = keyring.authenticate(key) if key else None
        except KeyConfigurationError:
            principal = None  # no key is good now; health needs none
    chunks = None
    if principal is not None:
        # Only the sources the key may read: the size of the others is not its business.
        sources = document_sources(principal, services.settings.source_policy)
        chunks = await run_in_threadpool(
            services.kb.count, tenant=principal.tenant, sources=sources
        )
    return HealthPublic(
        status="ok",
        llm=services.settings.llm or "offline",
        embeddings=services.kb.embedding_name,
        chunks=chunks,
        structured_output=structured_mode(services.llm),
        version=__version__,
    )
