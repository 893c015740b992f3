"""`ChatOpenAI` with bounded calls: a token cap per call kind, the turn's deadline, no retry.

Every request carries a `max_tokens` cap chosen by what the call is (the kind is read
from the request itself, so the graph's call sites need no knowledge of it):

* a plain text call is the condensation of a follow-up: a short cap;
* a call offering tools is the tool choice: a short cap;
* a call asking for structured output (`response_format`) is the answer: the setting;
* a caller that binds its own cap (`llm.bind(max_tokens=...)`) keeps it: a plain-text
  answer must do so, or it would get the condensation's short cap.

The request's timeout is the smaller of the per-call timeout and what is left of the
turn's deadline (`DEADLINE_KEY` in the run's metadata, set by the chat facade); a
call that would start after the deadline fails at once, and a streamed answer is
closed when the deadline passes between two chunks (closing the connection is what
tells llama.cpp, vLLM or Ollama to stop generating), and so is the answer of a
turn whose client went away (`threadline.models.cancellation`). Failures become the domain
errors of `threadline.models.errors`; an answer cut at its cap is returned as the text
it is (the openai client would raise instead of handing a cut JSON answer back), and
the graph checks it like any other. A stream that ends with no finish reason at all was
cut by the server, not by its cap (llama-cpp-python's server ends a streamed answer
when another request arrives): it fails as `LLMUnavailableError`, since what arrived,
often nothing, is no answer and no decline.

A call whose caller does not stream (`POST /chat`, the CLI) is streamed all the same,
and its chunks joined: a whole JSON response cannot be stopped once asked for, while a
stream can be closed between two chunks when the turn's client leaves or its deadline
passes. The tool choice is the exception: it is capped short, and is asked whole.
"""

from __future__ import annotations

import time
from collections.abc import AsyncGenerator, AsyncIterator, Generator, Iterator
from typing import Any, NoReturn, cast

import openai
from langchain_core.callbacks import (
    AsyncCallbackManagerForLLMRun,
    CallbackManagerForLLMRun,
)
from langchain_core.language_models import LanguageModelInput
from langchain_core.language_models.chat_models import generate_from_stream
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatGenerationChunk, ChatResult
from langchain_core.runnables.config import ensure_config
from langchain_openai import ChatOpenAI

from threadline.models.cancellation import TURN_KEY, TurnCancelledError, turn_cancelled
from threadline.models.errors import (
    DEADLINE_KEY,
    LLMError,
    LLMTimeoutError,
    LLMUnavailableError,
)
from threadline.models.turn_requests import count_request

RunManager = CallbackManagerForLLMRun | AsyncCallbackManagerForLLMRun | None


def deadline_of(run_manager: RunManager) -> float | None:
    """Return the turn's deadline carried in the run's metadata, if any.

    A call gets it from its run manager; a streamed call is given none by LangChain
    (`stream()` does not pass its run manager to `_stream`), so the config of the
    runnable in progress (the graph node's, which inherits the turn's metadata) is read.
    """
    metadata = (run_manager.metadata if run_manager is not None else None) or {}
    if DEADLINE_KEY not in metadata:
        metadata = ensure_config().get("metadata") or {}
    value = metadata.get(DEADLINE_KEY)
    return float(value) if isinstance(value, int | float) else None


def turn_of(run_manager: RunManager) -> str | None:
    """Return the turn's token carried in the run's metadata (read as `deadline_of` does)."""
    metadata = (run_manager.metadata if run_manager is not None else None) or {}
    if TURN_KEY not in metadata:
        metadata = ensure_config().get("metadata") or {}
    token = metadata.get(TURN_KEY)
    return token if isinstance(token, str) else None


UNFINISHED = "the model server ended the answer before it was finished"
"""Why a stream that ended with no finish reason failed.

llama-cpp-python's server ends a streamed answer early, with no finish reason, when
another request arrives while it generates (its `interrupt_requests`, on by default):
what arrived is part of an answer, often nothing, and says nothing about the documents.
"""


def ends_the_answer(chunk: ChatGenerationChunk) -> bool:
    """Whether a streamed chunk carries the finish reason a whole answer ends with."""
    return bool((chunk.generation_info or {}).get("finish_reason"))


def joined(chunks: list[ChatGenerationChunk]) -> ChatResult:
    """Join a streamed call's chunks into the result a whole response would have been."""
    if not chunks:  # a server that streamed nothing answered the empty text
        return ChatResult(generations=[ChatGeneration(message=AIMessage(content=""))])
    return generate_from_stream(iter(chunks))


def domain_error(exc: BaseException) -> LLMError | None:
    """Map a client error to a domain error; None for an error that is not the server's.

    A 4xx (a bad request, a wrong key) is a configuration fault, not an outage: it is
    left as it is and ends as an internal error, which is what it is.
    """
    if isinstance(exc, LLMError):
        return exc
    if isinstance(exc, openai.APITimeoutError):
        return LLMTimeoutError("the model server did not answer in time")
    if isinstance(exc, openai.APIConnectionError):
        return LLMUnavailableError("the model server cannot be reached")
    if isinstance(exc, openai.APIStatusError) and exc.status_code >= 500:
        return LLMUnavailableError(f"the model server answered {exc.status_code}")
    return None


def raise_as_domain_error(exc: Exception) -> NoReturn:
    """Raise the domain error a client error maps to, caused by it; else the error itself.

    An error that is already a domain error (the turn's deadline, a cancelled turn,
    raised inside the stream) is raised as it is: `raise exc from exc` would make it its
    own cause, and a walk down the causes (`structured.format_unsupported`) would never end.
    """
    mapped = domain_error(exc)
    if mapped is None or mapped is exc:
        raise exc
    raise mapped from exc


class BoundedChatOpenAI(ChatOpenAI):
    """`ChatOpenAI` whose every request is capped in tokens and bounded in time."""

    rewrite_max_tokens: int = 96
    """Cap of a plain text call (the condensation of a follow-up)."""
    tool_max_tokens: int = 256
    """Cap of a call offering tools (the tool choice)."""
    send_legacy_max_tokens: bool = True
    """Also send `max_tokens` (local servers read it; OpenAI reads `max_completion_tokens`)."""

    def _bounded_payload(
        self, payload: dict[str, Any], deadline: float | None, asked: int | None = None
    ) -> dict[str, Any]:
        """Set the request's token cap and timeout.

        Args:
            payload: The request as `ChatOpenAI` built it.
            deadline: The turn's deadline (`time.perf_counter()` clock), if any.
            asked: A cap the caller passed itself (`bind(max_tokens=...)`): it stands.

        Raises:
            LLMTimeoutError: the deadline has passed already.
        """
        if asked:
            cap: int | None = asked
        elif "response_format" in payload:
            cap = self.max_tokens
        elif payload.get("tools"):
            cap = self.tool_max_tokens
        else:
            cap = self.rewrite_max_tokens
        if cap is not None:
            payload["max_completion_tokens"] = cap
            if self.send_legacy_max_tokens:
                payload["max_tokens"] = cap
            else:
                payload.pop("max_tokens", None)
        if deadline is not None:
            left = deadline - time.perf_counter()
            if left <= 0:
                raise LLMTimeoutError("the turn's deadline passed before the model call")
            per_call = self.request_timeout
            payload["timeout"] = min(left, per_call) if isinstance(per_call, int | float) else left
        return payload

    def _get_request_payload(
        self, input_: LanguageModelInput, *, stop: list[str] | None = None, **kwargs: Any
    ) -> dict[str, Any]:
        deadline = kwargs.pop(DEADLINE_KEY, None)
        asked = kwargs.get("max_completion_tokens") or kwargs.get("max_tokens")
        payload = super()._get_request_payload(input_, stop=stop, **kwargs)
        return self._bounded_payload(payload, deadline, asked)

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        if not kwargs.get("tools"):  # streamed, so that it can be stopped (module doc)
            return joined(list(self._stream(messages, stop, run_manager, **kwargs)))
        kwargs[DEADLINE_KEY] = deadline_of(run_manager)
        count_request(turn_of(run_manager))
        try:
            return super()._generate(messages, stop, run_manager, **kwargs)
        except openai.LengthFinishReasonError as exc:
            return self._create_chat_result(exc.completion)  # the cut text, checked as any
        except Exception as exc:
            raise_as_domain_error(exc)

    async def _agenerate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: AsyncCallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        if not kwargs.get("tools"):
            chunks = self._astream(messages, stop, run_manager, **kwargs)
            return joined([chunk async for chunk in chunks])
        kwargs[DEADLINE_KEY] = deadline_of(run_manager)
        count_request(turn_of(run_manager))
        try:
            return await super()._agenerate(messages, stop, run_manager, **kwargs)
        except openai.LengthFinishReasonError as exc:
            return self._create_chat_result(exc.completion)
        except Exception as exc:
            raise_as_domain_error(exc)

    def _stream(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> Iterator[ChatGenerationChunk]:
        deadline = kwargs[DEADLINE_KEY] = deadline_of(run_manager)
        turn = turn_of(run_manager)
        count_request(turn)
        chunks = cast(
            Generator[ChatGenerationChunk, None, None],
            super()._stream(messages, stop, run_manager, **kwargs),
        )
        finished = False
        try:
            for chunk in chunks:
                if deadline is not None and time.perf_counter() > deadline:
                    raise LLMTimeoutError("the turn's deadline passed during the answer")
                if turn_cancelled(turn):
                    raise TurnCancelledError("the client went away during the answer")
                finished = finished or ends_the_answer(chunk)
                yield chunk
            if not finished:
                raise LLMUnavailableError(UNFINISHED)
        except openai.LengthFinishReasonError:
            return  # the cut text was streamed already: it is the message
        except Exception as exc:
            raise_as_domain_error(exc)
        finally:
            chunks.close()  # closes the HTTP response: the server stops generating

    async def _astream(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: AsyncCallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> AsyncIterator[ChatGenerationChunk]:
        deadline = kwargs[DEADLINE_KEY] = deadline_of(run_manager)
        turn = turn_of(run_manager)
        count_request(turn)
        chunks = cast(
            AsyncGenerator[ChatGenerationChunk, None],
            super()._astream(messages, stop, run_manager, **kwargs),
        )
        finished = False
        try:
            async for chunk in chunks:
                if deadline is not None and time.perf_counter() > deadline:
                    raise LLMTimeoutError("the turn's deadline passed during the answer")
                if turn_cancelled(turn):
                    raise TurnCancelledError("the client went away during the answer")
                finished = finished or ends_the_answer(chunk)
                yield chunk
            if not finished:
                raise LLMUnavailableError(UNFINISHED)
        except openai.LengthFinishReasonError:
            return
        except Exception as exc:
            raise_as_domain_error(exc)
        finally:
            await chunks.aclose()
