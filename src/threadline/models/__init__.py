"""Chat models: the offline extractive model and the OpenAI-compatible client."""

from threadline.models.errors import LLMError, LLMTimeoutError, LLMUnavailableError
from threadline.models.extractive import ExtractiveChatModel
from threadline.models.factory import chooses_tools, create_chat_model, quotes_sources

__all__ = [
    "ExtractiveChatModel",
    "LLMError",
    "LLMTimeoutError",
    "LLMUnavailableError",
    "chooses_tools",
    "create_chat_model",
    "quotes_sources",
]
