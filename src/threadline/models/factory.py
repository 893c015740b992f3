"""Chat model factory: `ChatOpenAI` when configured, the offline extractive model otherwise."""

from __future__ import annotations

from langchain_core.language_models import BaseChatModel

from threadline.models.extractive import ExtractiveChatModel
from threadline.settings import Settings


def create_chat_model(settings: Settings) -> BaseChatModel:
    """Build the chat model the settings select.

    Raises:
        ValueError: for an unknown provider.
    """
    match settings.llm:
        case "offline":
            return ExtractiveChatModel(
                outline_keyword=settings.outline_keyword,
                max_outline_sections=settings.max_outline_sections,
            )
        case "openai":
            from langchain_openai import ChatOpenAI

            return ChatOpenAI(
                model=settings.chat_model,
                # An OpenAI-compatible server (vLLM, Ollama...) may need no key at all.
                api_key=settings.openai_api_key or "not-needed",
                base_url=settings.openai_base_url,
                temperature=0,
                timeout=settings.llm_timeout,
                max_retries=1,
            )
        case other:
            raise ValueError(f"Unknown llm provider {other!r}. Expected one of: offline, openai")


def is_extractive(model: BaseChatModel) -> bool:
    """True for the offline model, which cannot condense queries or call tools."""
    return isinstance(model, ExtractiveChatModel)
