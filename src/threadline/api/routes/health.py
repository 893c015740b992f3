"""`GET /health`: 200 once the index and models are ready."""

from __future__ import annotations

from fastapi import APIRouter
from starlette.concurrency import run_in_threadpool

from threadline import __version__
from threadline.api.deps import ServicesDep
from threadline.api.schemas import HealthPublic

router = APIRouter(tags=["health"])


@router.get("/health", response_model=HealthPublic)
async def read_health(services: ServicesDep):
    """Readiness: the vector engine answers and the models are configured."""
    chunks = await run_in_threadpool(services.kb.count)
    return HealthPublic(
        status="ok",
        llm=services.settings.llm or "offline",
        embeddings=services.kb.embedding_name,
        chunks=chunks,
        version=__version__,
    )
