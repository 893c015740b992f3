"""The bounded OpenAI client: a token cap per call kind, the deadline, domain errors."""

from __future__ import annotations

import time

import httpx
import openai
import pytest

from threadline.models import LLMTimeoutError, LLMUnavailableError
from threadline.models.bounded import BoundedChatOpenAI, domain_error, raise_as_domain_error
from threadline.models.factory import create_chat_model
from threadline.settings import Settings


def model() -> BoundedChatOpenAI:
    settings = Settings(_env_file=None, llm="openai", openai_base_url="http://127.0.0.1:9/v1")
    chat = create_chat_model(settings)
    assert isinstance(chat, BoundedChatOpenAI)
    assert chat.max_retries == 0 and chat.max_tokens == settings.llm_max_tokens
    return chat


def test_the_cap_follows_the_kind_of_call():
    chat = model()
    answer = chat._bounded_payload({"response_format": {"type": "json_schema"}}, None)
    tool = chat._bounded_payload({"tools": [{"type": "function"}]}, None)
    rewrite = chat._bounded_payload({}, None)
    assert answer["max_tokens"] == answer["max_completion_tokens"] == chat.max_tokens
    assert tool["max_tokens"] == chat.tool_max_tokens
    assert rewrite["max_tokens"] == chat.rewrite_max_tokens == 96
    # A cap the caller asked for stands (a plain-text answer binds the answer's cap).
    assert chat._bounded_payload({}, None, asked=10)["max_tokens"] == 10
    assert chat._bounded_payload({}, None, asked=700)["max_tokens"] == 700


def test_the_timeout_is_what_is_left_of_the_deadline():
    chat = model()
    payload = chat._bounded_payload({}, time.perf_counter() + 2)
    assert 0 < payload["timeout"] <= 2
    with pytest.raises(LLMTimeoutError):
        chat._bounded_payload({}, time.perf_counter() - 1)


def test_client_errors_map_to_domain_errors():
    request = httpx.Request("POST", "http://127.0.0.1:9/v1/chat/completions")
    assert isinstance(domain_error(openai.APITimeoutError(request)), LLMTimeoutError)
    assert isinstance(domain_error(openai.APIConnectionError(request=request)), LLMUnavailableError)
    down = openai.InternalServerError(
        "down", response=httpx.Response(502, request=request), body=None
    )
    assert isinstance(domain_error(down), LLMUnavailableError)
    bad = openai.BadRequestError("bad", response=httpx.Response(400, request=request), body=None)
    assert domain_error(bad) is None  # a configuration fault, not an outage


def test_a_domain_error_raised_in_the_stream_is_not_its_own_cause():
    # The turn's deadline passing mid-answer raised `LLMTimeoutError` from itself; the
    # structured-output probe then walked its causes forever (a CI run hung 300 s there).
    deadline = LLMTimeoutError("the turn's deadline passed during the answer")
    with pytest.raises(LLMTimeoutError) as raised:
        raise_as_domain_error(deadline)
    assert raised.value is deadline and raised.value.__cause__ is None
    request = httpx.Request("POST", "http://127.0.0.1:9/v1/chat/completions")
    slow = openai.APITimeoutError(request)
    with pytest.raises(LLMTimeoutError) as mapped:
        raise_as_domain_error(slow)
    assert mapped.value.__cause__ is slow
    bad = openai.BadRequestError("bad", response=httpx.Response(400, request=request), body=None)
    with pytest.raises(openai.BadRequestError) as kept:
        raise_as_domain_error(bad)
    assert kept.value is bad and kept.value.__cause__ is None
