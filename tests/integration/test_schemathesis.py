"""Schemathesis over the app's own OpenAPI schema: every route, valid and invalid data.

The app is the real one (`create_app(make_services(...))`: sparse embeddings, the
offline model, the sample documents), called in-process over ASGI, with one API key
configured so the schema's security requirement is real: schemathesis sends the key
(`auth.openapi`), and its `ignored_auth` check replays 2xx requests without it and with
a wrong one, expecting 401.

Every check schemathesis has runs on every response: no 5xx, status codes documented,
bodies and content types matching the schema, invalid data refused with a 4xx, valid
data accepted, missing headers and unsupported methods refused. The few exceptions are
listed in `known_refusal` with the reason each one is not a bug. The streaming routes
get one more check (`streams_are_well_formed`): their 200 is `text/event-stream`, which
the schema cannot describe, so the events are parsed and the final answer is validated
against the `POST /chat` model.

Bounded and reproducible: a fixed `max_examples` per operation and phase, a fixed seed
with derandomized generation, no example database, and a per-example deadline.
"""

from __future__ import annotations

import json
import re
import shutil
from datetime import timedelta

import pytest
import schemathesis
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, settings
from schemathesis.config import SchemathesisConfig
from schemathesis.core.failures import CustomFailure
from schemathesis.specs.openapi.checks import positive_data_acceptance

from support.services import make_services
from threadline.api.main import create_app
from threadline.api.openai_schemas import ChatCompletion
from threadline.api.schemas import ChatResponse
from threadline.auth import ApiKeyEntry, hash_key

pytestmark = [
    # A guard against a hang, not a speed check: one test function runs every operation of
    # the schema (about 30), 127 s at load 3-5 and past 240 s at load 10-15, where CI ran
    # out of this guard with no request hanging (each example still has its 5 s deadline).
    pytest.mark.timeout(900),
    # starlette-testclient, schemathesis's ASGI client, uses an anyio alias anyio deprecated.
    pytest.mark.filterwarnings("ignore:The anyio.abc.BlockingPortal alias:DeprecationWarning"),
]

API_KEY = "tl_schemathesis-test-key"
MAX_EXAMPLES = 12
SEED = 20_240_917

CONFIG = {
    "seed": SEED,
    # Generation cost, not API problems: header values must be valid HTTP header text, so
    # most strings drawn for the pattern-constrained headers are discarded, and a slow CI
    # machine must not fail on generation speed (max-examples and the deadline bound time).
    "suppress-health-check": ["filter_too_much", "too_slow"],
    # The key goes in X-API-Key (one of the schema's two security schemes).
    "auth": {"openapi": {"APIKeyHeader": {"api_key": API_KEY}}},
    "generation": {
        "mode": "all",  # positive and negative data
        "max-examples": MAX_EXAMPLES,
        "deterministic": True,
        "database": "none",
        # Not a bug: unknown query parameters are ignored, as most HTTP APIs do (chat UIs
        # and SDKs add their own); unknown *body* fields are refused (`extra="forbid"`).
        "allow-extra-parameters": False,
    },
    "phases": {
        # Stateful links are not declared in the schema: nothing to chain.
        "stateful": {"enabled": False},
    },
    "operations": [
        {
            "include-path": "/v1/chat/completions",
            # Most valid bodies name another model (404): more examples reach the turn.
            "generation": {"max-examples": 2 * MAX_EXAMPLES},
            # The coverage phase's boundary cases for this body include lists of 10,000
            # (and 10,001) messages, about 30 s to generate; the fuzzing phase still sends
            # valid and invalid bodies, and e2e/test_openai_compat.py covers the limits.
            "phases": {"coverage": {"enabled": False}},
        },
    ],
}


class _LifespanOnce:
    """The app, minus the lifespan events each schemathesis request would replay.

    Schemathesis opens a fresh ASGI test client per request, and each would run the
    app's lifespan again (loading the services, compiling the graph: ~20 ms a call).
    The real lifespan runs once, in the fixture; the requests reach the app itself.
    """

    def __init__(self, app) -> None:
        self.app = app

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] == "lifespan":
            while True:
                message = await receive()
                kind = message["type"].rsplit(".", 1)[-1]  # startup / shutdown
                await send({"type": f"lifespan.{kind}.complete"})
                if kind == "shutdown":
                    return
        await self.app(scope, receive, send)


@pytest.fixture(scope="module")
def services(tmp_path_factory):
    data_dir = tmp_path_factory.mktemp("schemathesis")
    key = ApiKeyEntry(name="schemathesis", sha256=hash_key(API_KEY), tenant="default")
    svc = make_services(data_dir, api_keys=[key])
    yield svc
    svc.close()
    shutil.rmtree(data_dir, ignore_errors=True)


@pytest.fixture(scope="module")
def api_schema(services):
    app = create_app(services)
    with TestClient(app):  # the real lifespan, once
        yield schemathesis.openapi.from_asgi(
            "/openapi.json", _LifespanOnce(app), config=SchemathesisConfig.from_dict(CONFIG)
        )


@pytest.fixture(autouse=True)
def _pytest_nodeid_shim(request):
    # schemathesis 4.15 renames lazy-schema subtests through `Node._nodeid`, which
    # pytest 9.2 no longer has; without it the lazy test dies before its first request.
    if not hasattr(request.node, "_nodeid"):
        request.node._nodeid = request.node.nodeid


schema = schemathesis.pytest.from_fixture("api_schema")


def _error_code(response) -> str | None:
    try:
        body = response.json()
    except ValueError:
        return None
    error = body.get("error") if isinstance(body, dict) else None
    return error.get("code") if isinstance(error, dict) else None


# Refusals of schema-valid data by a rule JSON Schema cannot state. Each is documented
# (its status is in the schema, checked by status_code_conformance) and has a stable code.
TWO_IDS = "give session_id or thread_id, not two different ids"
_OPENAI_RULES = {"no_user_message", "empty_query", "query_too_long", "unsupported_value"}
_UPLOAD_RULES = {"unreadable_document", "unsupported_media_type", "payload_too_large"}


def _refuses_nul(response) -> bool:
    """A NUL character in stored text (PostgreSQL refuses it): not stated as a `pattern`,
    whose exact-length examples the coverage phase could not generate in time."""
    error = response.json()["error"]
    texts = [d["msg"] for d in error.get("details") or []] or [error.get("message", "")]
    return all("contains a NUL character" in text for text in texts)


def known_refusal(case, response) -> str | None:
    """Why a schema-valid request was refused (not a bug), or None."""
    label, status, code = case.operation.label, response.status_code, _error_code(response)
    if status in (400, 422) and code == "validation_error" and _refuses_nul(response):
        return "text with a NUL character, which no store keeps"
    if status in (400, 422) and code == "invalid_json_number":
        # JSON Schema's "integer" has no bound: a 30-digit one is schema-valid.
        return "an integer past 64 bits, which no store keeps (NaN and 1e999 are not JSON)"
    if label in ("POST /chat", "POST /chat/stream") and status == 422:
        details = response.json()["error"]["details"] or []
        if [d["msg"] for d in details] == [f"Value error, {TWO_IDS}"]:
            return "session_id and thread_id name two different sessions"
        if [d["msg"] for d in details] == ["Value error, query is blank"]:
            # The schema's pattern (\S) cannot name Unicode's format characters.
            return "a question of only invisible characters (zero-width, bidi marks)"
    if label == "POST /sessions/import" and status == 422 and code == "validation_error":
        details = response.json()["error"]["details"] or []
        if details and all(
            d["loc"][:2] == ["body", "session"] and d["msg"].startswith("Value error")
            for d in details
        ):
            return "message ids, one question and answer per turn, alternatives of a question"
    if label == "POST /v1/chat/completions" and status == 400 and code in _OPENAI_RULES:
        return "the messages hold no usable question, or n != 1"
    if label == "POST /documents":
        if code in _UPLOAD_RULES:
            return "the file's type or content is not one the converters read"
        if status == 422 and code == "validation_error":
            error = response.json()["error"]
            if error["message"] == "metadata must be a JSON object":
                return "the metadata form field is a string that must hold a JSON object"
            if error["message"].startswith("metadata holds text that cannot be stored"):
                return "the metadata's JSON escapes spell a NUL or a lone surrogate"
            details = error["details"] or []
            if details and all(d["loc"][:2] == ["body", "file"] for d in details):
                return "a multipart part without a filename is a form field, not a file"
    if label == "POST /sessions/{session_id}/fork" and code == "invalid_message_index":
        return "at_message lies past the end of the session"
    return None


def _sse_events(text: str) -> list[tuple[str, str]]:
    # Lines end at CR, LF or CRLF only, as the SSE spec (and a browser's EventSource) has
    # it: str.splitlines() also breaks at U+0085, U+2028 and U+2029, which JSON data may
    # hold unescaped (a query "0\x850" made it cut the final answer in two).
    events = []
    for block in re.sub(r"\r\n?", "\n", text).strip().split("\n\n"):
        fields = dict(line.split(": ", 1) for line in block.split("\n") if ": " in line)
        events.append((fields.get("event", "message"), fields.get("data", "")))
    return events


def _content_type(response) -> str:
    value = response.headers.get("content-type") or [""]
    return value[0] if isinstance(value, list) else value


def streams_are_well_formed(ctx, response, case) -> bool | None:
    """A 200 `text/event-stream` ends with a valid final answer (or a coded error event)."""
    if response.status_code != 200 or not _content_type(response).startswith("text/event-stream"):
        return None
    events = _sse_events(response.content.decode("utf-8"))

    def fail(message: str):
        raise CustomFailure(
            operation=case.operation.label, title="Malformed event stream", message=message
        )

    if case.operation.label == "POST /chat/stream":
        name, data = events[-1]
        if name == "final":
            ChatResponse.model_validate_json(data)
        elif name != "error" or "code" not in json.loads(data):
            fail(f"the stream ends with {name!r}, not `final` or a coded `error`")
    elif case.operation.label == "POST /v1/chat/completions":
        if events[-1][1] != "[DONE]":
            fail("the stream does not end with `data: [DONE]`")
        chunks = [json.loads(data) for _, data in events[:-1]]
        if not chunks or any(c.get("object") != "chat.completion.chunk" for c in chunks):
            fail("an event is not a `chat.completion.chunk`")
    return None


def completions_validate(ctx, response, case) -> bool | None:
    """The JSON branch of `/v1/chat/completions` is a full `ChatCompletion`."""
    if case.operation.label == "POST /v1/chat/completions" and response.status_code == 200:
        if _content_type(response).startswith("application/json"):
            ChatCompletion.model_validate_json(response.content)
    return None


def call_and_check(case):
    """Send the case and run every check on the answer (see the module doc)."""
    response = case.call()
    reason = known_refusal(case, response)
    case.validate_response(
        response,
        excluded_checks=[positive_data_acceptance] if reason else [],
        additional_checks=[streams_are_well_formed, completions_validate],
    )
    return response


# The health checks are suppressed here too, not only in CONFIG: schemathesis lays the
# test's own settings over its config wherever they differ from Hypothesis's defaults,
# and under CI=true Hypothesis's "ci" profile gives this decorator a suppress list of its
# own (too_slow only), which would switch filter_too_much back on for CI runs alone.
@schema.parametrize()
@settings(
    deadline=timedelta(seconds=5),
    suppress_health_check=[HealthCheck.filter_too_much, HealthCheck.too_slow],
)
def test_api_conforms_to_its_schema(case):
    call_and_check(case)


# Generated data reaches the streaming branches only by chance (a valid body that also
# finds sources, `stream: true`...): these cases make sure each branch is checked.
BRANCHES = [
    ("/chat", {"query": "Résume le rapport annuel 2024"}, "application/json"),
    ("/chat/stream", {"query": "Résume le rapport annuel 2024"}, "text/event-stream"),
    ("/chat/stream", {"query": "hi", "session_id": "no-such-session"}, "application/json"),
    # Unicode line separators travel unescaped inside the JSON of an event.
    ("/chat/stream", {"query": "SLA\x85 of the Enterprise\u2028plan?"}, "text/event-stream"),
    (
        "/v1/chat/completions",
        {"model": "threadline", "messages": [{"role": "user", "content": "What SLA applies?"}]},
        "application/json",
    ),
    (
        "/v1/chat/completions",
        {
            "model": "threadline",
            "stream": True,
            "stream_options": {"include_usage": True},
            "messages": [{"role": "user", "content": "What SLA applies?"}],
        },
        "text/event-stream",
    ),
    ("/v1/chat/completions", {"model": "threadline", "messages": [{"role": "system"}]}, None),
]


@pytest.mark.parametrize(("path", "body", "content_type"), BRANCHES)
def test_each_branch_of_the_chat_routes_conforms(api_schema, path, body, content_type):
    operation = api_schema[path]["POST"]
    case = operation.Case(body=body, media_type="application/json", headers={"X-API-Key": API_KEY})
    response = call_and_check(case)
    if content_type is None:
        assert response.status_code == 400
    else:
        assert _content_type(response).startswith(content_type)


def test_document_upload_and_delete_conform(api_schema, services):
    # Schemathesis sends a file part either without a filename or named after the field
    # (`file`, no suffix), so generated uploads never reach the 201; this one does, with
    # the requests-based ASGI client schemathesis itself uses (its checks read requests'
    # responses).
    from starlette_testclient import TestClient as StarletteClient

    operation = api_schema["/documents"]["POST"]
    body = b"## Badge policy\nLost badges are replaced at the front desk."
    case = operation.Case(
        body={"file": body, "doc_id": "st-badges"},
        media_type="multipart/form-data",
        headers={"X-API-Key": API_KEY},
    )
    with StarletteClient(api_schema.app) as client:
        response = client.post(
            "/documents",
            headers={"X-API-Key": API_KEY},
            files={"file": ("badges.md", body, "text/markdown")},
            data={"doc_id": "st-badges"},
        )
    assert response.status_code == 201, response.text
    case.validate_response(response)
    delete = api_schema["/documents/{doc_id}"]["DELETE"].Case(
        path_parameters={"doc_id": "st-badges"}, headers={"X-API-Key": API_KEY}
    )
    assert call_and_check(delete).status_code == 200
    assert "st-badges" not in {d.doc_id for d in services.kb.list_documents(tenant="default")}
