"""Dependencies the routes declare (`Annotated` aliases, FastAPI style)."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Request

from threadline.chat import ChatService
from threadline.services import Services
from threadline.store import ConversationStore


def get_services(request: Request) -> Services:
    """The services created in the app's lifespan."""
    return request.app.state.services


def get_chat(request: Request) -> ChatService:
    """The chat facade created in the app's lifespan."""
    return request.app.state.chat


def get_store(request: Request) -> ConversationStore:
    """The conversation store."""
    return request.app.state.services.store


def get_tenant() -> str:
    """The caller's tenant (one local tenant until API keys are configured)."""
    return "default"


ServicesDep = Annotated[Services, Depends(get_services)]
ChatDep = Annotated[ChatService, Depends(get_chat)]
StoreDep = Annotated[ConversationStore, Depends(get_store)]
TenantDep = Annotated[str, Depends(get_tenant)]
