"""Domain errors of the chat model: the model server is down, or too slow.

The graph and the chat facade raise these; the API maps them to HTTP (503
`llm_unavailable`, 504 `llm_timeout`), so nothing below the API imports FastAPI.
"""

from __future__ import annotations

DEADLINE_KEY = "threadline_deadline"
"""Run metadata key: the turn's deadline on the `time.perf_counter()` clock.

The chat facade puts it in the run's config; the bounded model reads it from the
run's callbacks, so no node has to pass it along.
"""


class LLMError(Exception):
    """The chat model could not answer; the turn was not stored and may be retried."""

    code = "llm_error"
    retry_after = 5
    """Seconds a client should wait before retrying (the `Retry-After` header)."""


class LLMUnavailableError(LLMError):
    """The model server refused the connection or answered with a 5xx."""

    code = "llm_unavailable"


class LLMTimeoutError(LLMError):
    """A model call timed out, or the turn's deadline passed."""

    code = "llm_timeout"
