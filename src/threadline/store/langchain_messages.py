"""Stored messages as LangChain messages, for every backend.

``langchain_core`` is imported inside the function: it is heavy, and writer
processes (benchmarks, workers) never need it.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from langchain_core.messages import BaseMessage

    from threadline.store.models import Message

LANGCHAIN_KWARGS_KEY = "threadline"
"""Key under ``additional_kwargs`` holding turn id, timestamp and turn metadata."""


def to_langchain_messages(messages: Iterable[Message]) -> list[BaseMessage]:
    """Convert stored messages to ``HumanMessage``/``AIMessage`` objects.

    Each message keeps the stored id as ``id``. The turn id, the timestamp and (for
    answers) the turn metadata sit under ``additional_kwargs["threadline"]``, one
    namespaced key so provider integrations that read well-known keys such as
    ``name`` are not affected.

    Args:
        messages: Stored messages, oldest first.

    Returns:
        The LangChain messages, in the same order.
    """
    from langchain_core.messages import AIMessage, HumanMessage

    converted: list[BaseMessage] = []
    for message in messages:
        extra = {
            LANGCHAIN_KWARGS_KEY: {
                "turn_id": message.turn_id,
                "created_at": message.created_at.isoformat(),
                "metadata": (
                    message.metadata.model_dump(mode="json")
                    if message.metadata is not None
                    else None
                ),
            }
        }
        if message.role == "user":
            converted.append(
                HumanMessage(content=message.content, id=message.id, additional_kwargs=extra)
            )
        else:
            converted.append(
                AIMessage(content=message.content, id=message.id, additional_kwargs=extra)
            )
    return converted
