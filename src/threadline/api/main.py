"""The FastAPI application: routers, error handlers, and the long-lived services."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from fastapi import Depends, FastAPI
from fastapi.middleware.cors import CORSMiddleware
from starlette.concurrency import run_in_threadpool

from threadline import __version__
from threadline.api.body_limit import BodyLimit
from threadline.api.errors import install_error_handlers
from threadline.api.json_keys import UniqueJsonKeys
from threadline.api.methods import HttpMethods
from threadline.api.openai_errors import install_openai_routing_errors
from threadline.api.query_params import refuse_repeated_query_parameters
from threadline.api.routes import (
    chat,
    conversations,
    documents,
    export,
    feedback,
    health,
    openai_compat,
    session_lineage,
    sessions,
    turns,
    web,
)
from threadline.api.security import SecurityHeaders, install_docs
from threadline.api.turn_errors import install_turn_error_handlers
from threadline.auth import KeyRing
from threadline.chat import ChatService
from threadline.conversations.worker import start_worker
from threadline.heap import freeze_startup_heap
from threadline.services import Services
from threadline.settings import Settings, get_settings
from threadline.warmup import warm_up

log = logging.getLogger("threadline.api")

UPLOAD_FORM_SLACK = 64 * 1024
"""Room for an upload's form fields and multipart framing beside its file."""


def request_body_limit(settings: Settings) -> int:
    """Return the largest request body read: `max_request_bytes`, or an upload's file and form."""
    return max(settings.max_request_bytes, settings.max_upload_bytes + UPLOAD_FORM_SLACK)


def create_app(services: Services | None = None) -> FastAPI:
    """Build the app; `services` defaults to the process settings' ones."""

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        svc = services or Services(get_settings())
        # Open the index and load the models before the first request, not during it.
        await run_in_threadpool(lambda: (svc.kb, svc.llm, svc.store, svc.querylog))
        app.state.services = svc
        app.state.keyring = KeyRing(svc.settings.api_keys, svc.settings.api_keys_file)
        app.state.chat = ChatService(svc)
        if svc.settings.spelling_fixes:
            # The index's vocabulary, summed over every document (3 s at 10k chunks, more
            # the first time after an upgrade), is read before the first question, not by it.
            tenants = sorted(app.state.keyring.tenants)
            await run_in_threadpool(lambda: [svc.kb.vocabulary(tenant=t) for t in tenants])
        # The first question costs what the later ones do: what a turn loads on first use
        # (lemma tables, the dense model's first passes, patterns) is loaded now by turns
        # held in a scratch store, before the server listens (so before /health answers).
        tenants = sorted(app.state.keyring.tenants)
        app.state.warm_up = await run_in_threadpool(warm_up, svc, tenants=tenants)
        log.info("warm-up: %d turns in %.2f s", app.state.warm_up.turns, app.state.warm_up.seconds)
        # Conversation indexing runs beside the requests; stopped before the services close.
        app.state.conversation_worker = await run_in_threadpool(start_worker, svc)
        # What startup loaded lives as long as the process: out of the full collections.
        freeze_startup_heap()
        try:
            yield
        finally:
            if app.state.conversation_worker is not None:
                await run_in_threadpool(app.state.conversation_worker.stop)
            if services is None:
                await run_in_threadpool(svc.close)

    app = FastAPI(
        title="threadline",
        version=__version__,
        summary="Multi-turn, strictly grounded chat over a team's documents.",
        lifespan=lifespan,
        # FastAPI's own docs pages load their files from a CDN: ours are served locally.
        docs_url=None,
        redoc_url=None,
        dependencies=[Depends(refuse_repeated_query_parameters)],
    )
    settings = services.settings if services else get_settings()
    # Innermost: a body is checked for repeated keys once the ceiling has let it through.
    app.add_middleware(UniqueJsonKeys)
    # Inside the CORS and security headers, so a refusal still gets them.
    app.add_middleware(
        BodyLimit,
        limit=request_body_limit(settings),
        seconds=settings.max_request_body_seconds,
    )
    if settings.cors_origins:
        app.add_middleware(
            CORSMiddleware,
            allow_origins=settings.cors_origins,
            allow_methods=["*"],
            allow_headers=["*"],
        )
    app.add_middleware(SecurityHeaders)
    # Outermost: a HEAD answer carries every header its GET would (CORS, security).
    app.add_middleware(HttpMethods, routes=lambda: app.routes)
    install_error_handlers(app)
    install_openai_routing_errors(app)
    install_turn_error_handlers(app)
    install_docs(app)
    app.include_router(health.router)
    app.include_router(chat.router)
    # Before sessions: `/sessions/import` is not the session `import`.
    app.include_router(export.router)
    app.include_router(sessions.router)
    app.include_router(session_lineage.router)
    app.include_router(conversations.router)
    app.include_router(openai_compat.router)
    app.include_router(web.router)
    app.include_router(documents.router)
    app.include_router(documents.ingestions_router)
    app.include_router(feedback.router)
    app.include_router(turns.router)
    return app
