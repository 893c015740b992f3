"""Reading a server's refusal of a response format, and reading an answer call's reply."""

from __future__ import annotations

import httpx
import openai
import pytest

from threadline.graph.answering import read_reply
from threadline.models import LLMTimeoutError, LLMUnavailableError
from threadline.models.structured import StructuredModes, format_unsupported

REQUEST = httpx.Request("POST", "http://127.0.0.1:1/v1/chat/completions")


def status_error(status: int, message: str) -> openai.APIStatusError:
    response = httpx.Response(status, request=REQUEST, json={"error": {"message": message}})
    return openai.APIStatusError(message, response=response, body={"message": message})


def wrapped(cause: BaseException) -> LLMUnavailableError:
    """What the bounded model raises for a 5xx: the domain error, the client's as cause."""
    try:
        raise LLMUnavailableError("the model server answered") from cause
    except LLMUnavailableError as error:
        return error


@pytest.mark.parametrize(
    "error",
    [
        wrapped(status_error(500, "Input should be 'text' or 'json_object' (response_format)")),
        status_error(400, "json_schema is not supported"),
        status_error(422, "unsupported value for response_format.type"),
    ],
)
def test_a_refused_format_is_recognised(error):
    assert format_unsupported(error)


@pytest.mark.parametrize(
    "error",
    [
        wrapped(status_error(503, "response_format: model overloaded")),  # busy, not a refusal
        wrapped(status_error(500, "CUDA out of memory")),  # says nothing about the format
        status_error(429, "rate limited: response_format calls"),
        LLMTimeoutError("the model server did not answer in time"),
        wrapped(openai.APIConnectionError(request=REQUEST)),
    ],
)
def test_an_outage_is_not_a_refusal(error):
    assert format_unsupported(error) is None


def test_modes_are_kept_per_server_and_forgotten_on_demand():
    modes = StructuredModes()
    llama, vllm = ("http://127.0.0.1:8080/v1", "smollm2"), ("http://127.0.0.1:8000/v1", "qwen")
    modes.record(llama, "json_object")
    assert modes.known(llama) == "json_object" and modes.known(vllm) is None
    modes.forget(llama)
    assert modes.known(llama) is None


def test_a_json_reply_cut_at_its_cap_keeps_what_arrived():
    reply = read_reply('{"verdict": "answer", "answer": "The SLA guarantees 99.95% uptime. [1] Th')
    assert reply.verdict == "answer" and reply.answer.startswith("The SLA guarantees 99.95%")


def test_a_json_reply_cut_before_its_verdict_is_read_by_its_answer():
    assert read_reply('{"answer": "Uptime is 99.95%. [1]"').verdict == "answer"
    assert read_reply('{"verdict": "answ').verdict == "not_in_documents"


def test_plain_text_is_an_answer_and_the_marker_a_decline():
    assert read_reply("Uptime is 99.95%. [1]").answer == "Uptime is 99.95%. [1]"
    assert read_reply("INSUFFICIENT_CONTEXT").verdict == "not_in_documents"
    assert read_reply("{not json at all").answer == "{not json at all"


@pytest.mark.timeout(10)
def test_a_chain_of_causes_that_comes_back_on_itself_ends():
    # An error made its own cause (as `raise exc from exc` does) hung the probe of a
    # server's first answer at 100% CPU; a loop of two errors is no refusal either.
    own = LLMTimeoutError("the turn's deadline passed during the answer")
    own.__cause__ = own
    first, second = LLMTimeoutError("a"), LLMTimeoutError("b")
    first.__cause__, second.__cause__ = second, first
    assert format_unsupported(own) is None
    assert format_unsupported(first) is None
