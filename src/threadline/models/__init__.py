"""Chat models: the offline extractive model and the OpenAI-compatible client."""

from threadline.models.extractive import ExtractiveChatModel
from threadline.models.factory import create_chat_model, is_extractive

__all__ = ["ExtractiveChatModel", "create_chat_model", "is_extractive"]
