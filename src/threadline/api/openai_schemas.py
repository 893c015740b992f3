"""Models of the OpenAI-compatible routes (`/v1/models`, `/v1/chat/completions`).

Only the part of OpenAI's Chat Completions contract that threadline can honour is
modelled strictly (`model`, `messages`, `stream`, `stream_options`, `n`, `user`).
Everything else a client or chat UI sends (`temperature`, `top_p`, `max_tokens`,
`tools`, `seed`, `metadata`...) is accepted and ignored: the answer is decided by
the documents and threadline's own prompts, not by sampling knobs.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from threadline.api.schemas import ChatResponse
from threadline.text.storable import unstorable_text

MODEL_ID = "threadline"


class ChatMessageIn(BaseModel):
    """One message of the `messages` list, as OpenAI clients send it."""

    model_config = ConfigDict(extra="allow")

    role: Literal["system", "developer", "user", "assistant", "tool", "function"]
    content: str | list[dict[str, Any]] | None = Field(
        default=None, description="A string, or a list of content parts (only text parts are read)."
    )
    name: str | None = None

    @model_validator(mode="after")
    def _storable_text(self) -> ChatMessageIn:
        # The text becomes the stored question, and the first question's text is hashed
        # into a thread id: text no store can keep (NUL, a lone surrogate) is refused here.
        problem = unstorable_text(self.text(), "content")
        if problem:
            raise ValueError(problem)
        return self

    def text(self) -> str:
        """Return the message's text: the string, or its text parts joined (images etc. skipped)."""
        if isinstance(self.content, str):
            return self.content
        if isinstance(self.content, list):
            parts = [
                text
                for part in self.content
                if part.get("type") in ("text", "input_text")
                and isinstance(text := part.get("text"), str)
            ]
            return "\n".join(parts)
        return ""


class StreamOptions(BaseModel):
    """`stream_options`: only `include_usage` has an effect."""

    model_config = ConfigDict(extra="allow")

    include_usage: bool | None = None


class ChatCompletionRequest(BaseModel):
    """`POST /v1/chat/completions`: the last user message is the query."""

    model_config = ConfigDict(extra="allow")

    model: str = Field(min_length=1, max_length=256, examples=[MODEL_ID])
    messages: list[ChatMessageIn] = Field(min_length=1, max_length=10_000)
    stream: bool | None = False
    stream_options: StreamOptions | None = None
    n: int | None = Field(default=None, ge=1, le=128, description="Only 1 is supported.")
    user: str | None = Field(
        default=None,
        max_length=256,
        description="Used as the conversation id when no X-Threadline-Thread-Id header is sent.",
    )


class ModelCard(BaseModel):
    """One entry of `GET /v1/models`."""

    id: str
    object: Literal["model"] = "model"
    created: int
    owned_by: str = "threadline"


class ModelList(BaseModel):
    """`GET /v1/models`."""

    object: Literal["list"] = "list"
    data: list[ModelCard]


class ThreadlineExtra(ChatResponse):
    """The `threadline` field of a completion: the `POST /chat` object, plus the id's source."""

    thread_source: Literal["header", "openwebui", "user", "derived", "new"] = Field(
        description="Which input gave the conversation id (see the README)."
    )


class AssistantMessage(BaseModel):
    """`choices[].message`."""

    role: Literal["assistant"] = "assistant"
    content: str = Field(description="The answer, then a Markdown Sources list and follow-ups.")
    refusal: None = None


class Choice(BaseModel):
    """`choices[]` of a completion."""

    index: int = 0
    message: AssistantMessage
    finish_reason: Literal["stop"] = "stop"
    logprobs: None = None


class Usage(BaseModel):
    """Rough counts: whitespace-separated words, not model tokens."""

    prompt_tokens: int
    completion_tokens: int
    total_tokens: int


class ChatCompletion(BaseModel):
    """A non-streaming `POST /v1/chat/completions` answer."""

    id: str
    object: Literal["chat.completion"] = "chat.completion"
    created: int
    model: str
    system_fingerprint: str | None = None
    choices: list[Choice]
    usage: Usage
    threadline: ThreadlineExtra


class OpenAIErrorDetail(BaseModel):
    """OpenAI's error object; `code` is threadline's stable error code."""

    message: str
    type: str
    param: str | None = None
    code: str | None = None


class OpenAIError(BaseModel):
    """Every error of the `/v1` routes has this shape."""

    error: OpenAIErrorDetail
