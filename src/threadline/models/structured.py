"""Which structured-output request a model server takes, learnt once per server and model.

The answer call asks for a JSON object (verdict, answer, missing). Servers differ in
how it may be asked:

* ``json_schema``: OpenAI's ``response_format`` with a JSON schema (OpenAI, vLLM,
  LM Studio, recent Ollama);
* ``json_object``: ``response_format: {"type": "json_object"}``; llama.cpp's server
  (llama-cpp-python 0.3) takes only this and ``text``, and turns the ``schema`` it
  may carry into a grammar; it refuses ``json_schema`` with a 500 saying so;
* ``text``: no ``response_format`` at all; the answer is read from plain text
  (citation markers, attribution of marker-less sentences).

The first answer call to a server tries them in that order; a refusal that names the
format moves to the next one, and the mode that answered is kept for the process, per
(base URL, model), so later turns make no probing call. A refused connection or a
timeout says nothing about the format: it is raised, and the next turn resumes the
probe after the modes already refused.
"""

from __future__ import annotations

import contextlib
import re
import sys
import threading
from collections.abc import Iterator
from typing import Literal

import openai
from langchain_core.language_models import BaseChatModel

StructuredMode = Literal["json_schema", "json_object", "text"]
MODES: tuple[StructuredMode, ...] = ("json_schema", "json_object", "text")
"""The modes, best first: each is tried only when the one before it was refused."""

ServerKey = tuple[str, str]

# What a server's refusal of a response_format says: llama.cpp's validation error names
# the field ('response_format', "Input should be 'text' or 'json_object'"); others say
# "json_schema is not supported" or "unsupported response format".
_FORMAT_WORDS = re.compile(r"response_format|json_schema|json_object|structured output", re.I)
# Statuses that say the server is busy or behind a failing gateway, whatever the body.
_TRANSIENT_STATUSES = {408, 409, 429, 502, 503, 504}


def server_key(llm: BaseChatModel) -> ServerKey | None:
    """Return the (base URL, model) a model talks to; None for a model with no server."""
    openai_models = sys.modules.get("langchain_openai")
    # A ChatOpenAI exists only once its package is imported: the offline model's turns
    # do not import it (0.3 s and its dependencies, tiktoken's among them).
    if openai_models is None or not isinstance(llm, openai_models.ChatOpenAI):
        return None
    base_url = str(llm.openai_api_base or "https://api.openai.com/v1").rstrip("/")
    return base_url, llm.model_name


def format_unsupported(error: BaseException) -> str | None:
    """Return why a failed call says its response format is not supported, else None.

    The server's answer is the error itself or its cause (the bounded model maps a
    5xx to `LLMUnavailableError` from the client's `APIStatusError`).

    Args:
        error: What the answer call raised.

    Returns:
        A short reason (the status and the start of the server's message) when the
        server refused the format; None for anything else, a timeout or a refused
        connection in particular.
    """
    seen: BaseException | None = error
    walked: set[int] = set()  # a chain that comes back to an error it holds ends there
    while seen is not None and not isinstance(seen, openai.APIStatusError):
        walked.add(id(seen))
        seen = seen.__cause__
        if seen is not None and id(seen) in walked:
            return None
    if seen is None or seen.status_code in _TRANSIENT_STATUSES:
        return None
    message = str(seen.message or "") + " " + str(seen.body or "")
    if not _FORMAT_WORDS.search(message):
        return None
    return f"{seen.status_code}: {' '.join(message.split())[:160]}"


class StructuredModes:
    """The structured-output mode of each server, learnt on first use; thread-safe.

    While a server's mode is unknown, one caller at a time probes it (`probing`);
    the others wait and then read what it learnt.
    """

    def __init__(self) -> None:
        """Start knowing nothing."""
        self._known: dict[ServerKey, StructuredMode] = {}
        self._refused: dict[ServerKey, set[StructuredMode]] = {}
        self._probe_locks: dict[ServerKey, threading.Lock] = {}
        self._lock = threading.Lock()

    def known(self, key: ServerKey) -> StructuredMode | None:
        """Return the mode learnt for `key`, if any."""
        with self._lock:
            return self._known.get(key)

    def candidates(self, key: ServerKey) -> tuple[StructuredMode, ...]:
        """Return the modes still worth trying for `key`, best first (text always is)."""
        with self._lock:
            refused = self._refused.get(key, set())
        return tuple(mode for mode in MODES if mode not in refused or mode == "text")

    def refuse(self, key: ServerKey, mode: StructuredMode) -> None:
        """Keep that `key` refused `mode` (a probe cut short by a timeout resumes after it)."""
        with self._lock:
            self._refused.setdefault(key, set()).add(mode)

    def record(self, key: ServerKey, mode: StructuredMode) -> None:
        """Keep the mode that answered for `key`."""
        with self._lock:
            self._known[key] = mode

    def forget(self, key: ServerKey | None = None) -> None:
        """Forget what was learnt about `key` (every server when None)."""
        with self._lock:
            if key is None:
                self._known.clear()
                self._refused.clear()
            else:
                self._known.pop(key, None)
                self._refused.pop(key, None)

    @contextlib.contextmanager
    def probing(self, key: ServerKey) -> Iterator[None]:
        """Hold `key`'s probe lock: one caller at a time learns a server's mode."""
        with self._lock:
            lock = self._probe_locks.setdefault(key, threading.Lock())
        with lock:
            yield


STRUCTURED_MODES = StructuredModes()
"""The process's knowledge of its model servers (one per process, like the model)."""


def structured_mode(llm: BaseChatModel) -> StructuredMode | None:
    """Return the mode learnt for the model's server; None before its first answer."""
    key = server_key(llm)
    return STRUCTURED_MODES.known(key) if key is not None else None
