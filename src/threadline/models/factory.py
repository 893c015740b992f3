"""Chat model factory: `ChatOpenAI` when configured, the offline extractive model otherwise."""

from __future__ import annotations

from langchain_core.language_models import BaseChatModel
from pydantic import SecretStr

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
            from threadline.models.bounded import BoundedChatOpenAI

            return BoundedChatOpenAI(
                model=settings.chat_model,
                # An OpenAI-compatible server (vLLM, Ollama...) may need no key at all.
                api_key=settings.openai_api_key or SecretStr("not-needed"),
                base_url=settings.openai_base_url,
                temperature=0,
                timeout=settings.llm_timeout,
                # No retry: a timed-out generation may still be running on the server
                # (it keeps generating after the client leaves), and a retry queues
                # behind it. A refused connection would be safe to retry (nothing was
                # generated) but the client cannot tell the two apart before the
                # timeout has been spent; the API answers a retryable 503 instead.
                max_retries=0,
                max_completion_tokens=settings.llm_max_tokens,
                rewrite_max_tokens=settings.llm_rewrite_max_tokens,
                tool_max_tokens=settings.llm_tool_max_tokens,
                # OpenAI itself reads max_completion_tokens; local servers read max_tokens.
                send_legacy_max_tokens=settings.openai_base_url is not None,
            )
        case other:
            raise ValueError(f"Unknown llm provider {other!r}. Expected one of: offline, openai")


def chooses_tools(model: BaseChatModel) -> bool:
    """Whether the model picks a tool and its arguments itself.

    Read from LangChain's model profile (`tool_calling`); a model without a profile
    (a local OpenAI-compatible server) is taken to call tools.
    """
    return bool((model.profile or {}).get("tool_calling", True))


def quotes_sources(model: BaseChatModel) -> bool:
    """Whether the model only copies source sentences (the offline extractive model).

    Such a model cannot judge whether the sources answer a question, condense a
    conversation or translate: the graph's deterministic checks decide for it.
    """
    return bool(getattr(model, "quotes_sources", False))
