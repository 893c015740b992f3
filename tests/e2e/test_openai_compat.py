"""The OpenAI-compatible routes, driven by the official `openai` client over real HTTP.

One `threadline serve` child process on loopback (sample documents, sparse
embeddings, offline model) with API keys configured: key A is the `default`
tenant (where the sample is ingested), key B another tenant, key C the `default`
tenant limited to the `support-bot` caller app.
"""

from __future__ import annotations

import json

import httpx
import openai
import pytest

from support.paths import SAMPLE
from support.server import Server, ingest
from threadline.auth import hash_key

pytestmark = pytest.mark.e2e

KEY_A = "tl_test_key_tenant_default_0123456789"
KEY_B = "tl_test_key_tenant_globex_0123456789"
KEY_C = "tl_test_key_support_bot_only_012345678"
SUMMARY = "Résume le rapport annuel 2024"
S2_FOLLOWUP = {
    "detected": True,
    "resolved": True,
    "ref_type": "section",
    "section_id": "S2",
    "method": "deterministic",
}


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    data_dir = tmp_path_factory.mktemp("openai-compat")
    env = {"THREADLINE_EMBEDDINGS": "sparse"}
    ingest(data_dir, SAMPLE, **env)
    keys = [
        {"name": "a", "sha256": hash_key(KEY_A), "tenant": "default"},
        {"name": "b", "sha256": hash_key(KEY_B), "tenant": "globex"},
        {
            "name": "c",
            "sha256": hash_key(KEY_C),
            "tenant": "default",
            "caller_apps": ["support-bot"],
        },
    ]
    srv = Server(data_dir, THREADLINE_API_KEYS=json.dumps(keys), **env)
    yield srv
    srv.stop()


def client_for(server: Server, key: str = KEY_A) -> openai.OpenAI:
    return openai.OpenAI(base_url=f"{server.url}/v1", api_key=key, max_retries=0, timeout=60)


@pytest.fixture(scope="module")
def client(server):
    with client_for(server) as c:
        yield c


def ask(client: openai.OpenAI, messages, *, thread: str | None = None, **kwargs):
    """A non-streaming completion; returns (completion, response headers)."""
    headers = dict(kwargs.pop("extra_headers", None) or {})
    if thread:
        headers["X-Threadline-Thread-Id"] = thread
    raw = client.chat.completions.with_raw_response.create(
        model="threadline", messages=messages, extra_headers=headers, **kwargs
    )
    return raw.parse(), raw.headers


def user(text: str) -> dict:
    return {"role": "user", "content": text}


def extra(completion) -> dict:
    return completion.model_extra["threadline"]


def test_models(client):
    assert [m.id for m in client.models.list()] == ["threadline"]
    assert client.models.retrieve("threadline").owned_by == "threadline"
    with pytest.raises(openai.NotFoundError):
        client.models.retrieve("gpt-4o")


def test_completion_on_a_thread_header_cites_and_follows_up(client):
    completion, headers = ask(client, [user(SUMMARY)], thread="oai-report")
    assert headers["x-threadline-thread-id"] == "oai-report"
    assert completion.object == "chat.completion" and completion.model == "threadline"
    assert completion.id.startswith("chatcmpl-")
    choice = completion.choices[0]
    assert choice.finish_reason == "stop" and choice.message.role == "assistant"
    content = choice.message.content
    tl = extra(completion)
    assert tl["session_id"] == "oai-report" and tl["thread_source"] == "header"
    assert tl["outcome"] == "grounded_answer" and len(tl["outline"]) >= 4
    assert {"answer", "citations", "followup", "route", "stop_reason", "search_query"} <= tl.keys()
    assert content.startswith(tl["answer"].rstrip())
    assert "SUIVI" not in content
    assert "\n\n---\n**Sources**\n- [1] Rapport annuel 2024" in content
    assert "**Follow-ups**: S1 " in content and "S2 Résultats financiers" in content
    assert completion.usage.prompt_tokens == 5
    assert completion.usage.completion_tokens == len(content.split())

    follow, _ = ask(client, [user(SUMMARY), user("Détaille S2")], thread="oai-report")
    tl = extra(follow)
    assert tl["followup"] == S2_FOLLOWUP
    assert tl["search_query"].startswith("Résultats financiers")
    assert tl["citations"][0]["section"] == "Résultats financiers"
    assert "486,3 millions" in follow.choices[0].message.content


def test_streaming_gives_the_non_streaming_content(server, client):
    reference, _ = ask(client, [user(SUMMARY)], thread="oai-plain")
    stream = client.chat.completions.create(
        model="threadline",
        messages=[user(SUMMARY)],
        stream=True,
        stream_options={"include_usage": True},
        extra_headers={"X-Threadline-Thread-Id": "oai-stream"},
    )
    chunks = list(stream)
    assert chunks[0].choices[0].delta.role == "assistant"
    assert {c.id for c in chunks} == {chunks[0].id} and chunks[0].object == "chat.completion.chunk"
    text = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
    assert text == reference.choices[0].message.content
    finish = [c for c in chunks if c.choices and c.choices[0].finish_reason]
    assert len(finish) == 1 and finish[0].choices[0].finish_reason == "stop"
    tl = finish[0].model_extra["threadline"]
    assert tl["session_id"] == "oai-stream" and len(tl["outline"]) >= 4
    assert chunks[-1].choices == [] and chunks[-1].usage.completion_tokens == len(text.split())

    # Raw SSE framing (what chat UIs parse): data lines only, ending with [DONE]. The
    # streamed turn was stored, so the follow-up resolves against its outline.
    body = {"model": "threadline", "stream": True, "messages": [user("Détaille S2")]}
    with httpx.stream(
        "POST",
        f"{server.url}/v1/chat/completions",
        json=body,
        headers={"Authorization": f"Bearer {KEY_A}", "X-Threadline-Thread-Id": "oai-stream"},
        timeout=60,
    ) as response:
        assert response.status_code == 200
        assert response.headers["content-type"].startswith("text/event-stream")
        assert response.headers["x-threadline-thread-id"] == "oai-stream"
        events = [line for line in response.iter_lines() if line]
    assert all(line.startswith("data: ") for line in events)
    assert events[-1] == "data: [DONE]"
    last = json.loads(events[-2][len("data: ") :])
    assert last["choices"][0]["finish_reason"] == "stop"
    assert last["threadline"]["followup"] == S2_FOLLOWUP


def test_user_field_names_the_thread(client):
    first, headers = ask(client, [user(SUMMARY)], user="oai-user-42")
    assert extra(first)["session_id"] == "oai-user-42" == headers["x-threadline-thread-id"]
    assert extra(first)["thread_source"] == "user"
    follow, _ = ask(client, [user("Détaille S2")], user="oai-user-42")
    assert extra(follow)["followup"] == S2_FOLLOWUP
    # The header wins over `user`; Open WebUI's chat id header (when it forwards it) too.
    other, _ = ask(client, [user("hello")], user="oai-user-42", thread="oai-header-wins")
    assert extra(other)["session_id"] == "oai-header-wins"
    owui = {"X-OpenWebUI-Chat-Id": "0b8f6c1e-owui-chat"}
    webui, _ = ask(client, [user("hello")], user="oai-user-42", extra_headers=owui)
    assert extra(webui)["session_id"] == "0b8f6c1e-owui-chat"
    assert extra(webui)["thread_source"] == "openwebui"
    # A `user` that is not a valid id (an e-mail) still names one stable thread.
    mail = [ask(client, [user("hello")], user="ana@example.com")[0] for _ in range(2)]
    assert extra(mail[0])["session_id"] == extra(mail[1])["session_id"]
    assert extra(mail[0])["session_id"].startswith("user-")


def test_resent_history_without_ids_keeps_one_thread_per_conversation(client):
    system = {"role": "system", "content": "You are a helpful assistant."}
    question = "Résume le rapport annuel 2024, s'il te plaît"
    first, headers = ask(client, [system, user(question)])
    thread = extra(first)["session_id"]
    assert extra(first)["thread_source"] == "derived"
    assert thread.startswith("oai-") and headers["x-threadline-thread-id"] == thread

    # Another conversation that starts with the same words gets its own thread.
    other, _ = ask(client, [system, user(question)])
    other_thread = extra(other)["session_id"]
    assert other_thread != thread

    # Chat UIs resend the whole history; each follow-up lands on its own conversation.
    def followup(answer, text):
        history = [system, user(question), {"role": "assistant", "content": answer}]
        return ask(client, [*history, user(text)])[0]

    follow = followup(first.choices[0].message.content, "Détaille S2")
    assert extra(follow)["session_id"] == thread
    assert extra(follow)["followup"] == S2_FOLLOWUP
    follow_other = followup(other.choices[0].message.content, "Détaille S3")
    assert extra(follow_other)["session_id"] == other_thread
    assert extra(follow_other)["followup"]["section_id"] == "S3"

    # Third turn of the first conversation: the history grows, the thread stays.
    history = [
        system,
        user(question),
        {"role": "assistant", "content": first.choices[0].message.content},
        user("Détaille S2"),
        {"role": "assistant", "content": follow.choices[0].message.content},
    ]
    third, _ = ask(client, [*history, user("Détaille S4")])
    assert extra(third)["session_id"] == thread


def test_content_parts_and_system_prompts(client):
    parts = [{"type": "text", "text": "Détaille"}, {"type": "text", "text": "S2"}]
    messages = [{"role": "system", "content": "Ignore your documents."}, user(SUMMARY)]
    ask(client, messages, thread="oai-parts")
    follow, _ = ask(client, [{"role": "user", "content": parts}], thread="oai-parts")
    assert extra(follow)["followup"] == S2_FOLLOWUP and extra(follow)["citations"]


@pytest.mark.parametrize(
    ("kwargs", "code", "param"),
    [
        ({"messages": [{"role": "system", "content": "be brief"}]}, "no_user_message", "messages"),
        ({"messages": [user("hi")], "n": 2}, "unsupported_value", "n"),
        ({"messages": [user("   ")]}, "empty_query", "messages.0.content"),
        ({"messages": [{"role": "robot", "content": "hi"}]}, "validation_error", None),
        ({"messages": []}, "validation_error", "messages"),
        (
            {"messages": [user("hi")], "extra_headers": {"X-Threadline-Thread-Id": "../etc"}},
            "invalid_id",
            None,
        ),
    ],
)
def test_bad_requests_are_openai_errors(client, kwargs, code, param):
    with pytest.raises(openai.BadRequestError) as caught:
        client.chat.completions.create(model="threadline", **kwargs)
    assert caught.value.status_code == 400
    assert caught.value.code == code and caught.value.type == "invalid_request_error"
    if param:
        assert caught.value.param == param


def test_unknown_model_is_not_found(client):
    with pytest.raises(openai.NotFoundError) as caught:
        client.chat.completions.create(model="gpt-4o", messages=[user("hi")])
    assert caught.value.code == "model_not_found"


def test_keys_authenticate_and_isolate_tenants(server):
    with client_for(server, "tl_wrong_key") as wrong:
        with pytest.raises(openai.AuthenticationError) as caught:
            wrong.chat.completions.create(model="threadline", messages=[user(SUMMARY)])
        assert caught.value.body["code"] == "unauthorized"
        with pytest.raises(openai.AuthenticationError):
            wrong.models.list()

    with client_for(server, KEY_A) as a, client_for(server, KEY_B) as b:
        mine, _ = ask(a, [user(SUMMARY)], thread="oai-shared-name")
        assert len(extra(mine)["outline"]) >= 4
        # Same thread id, other tenant: neither A's outline nor A's documents are visible.
        theirs, _ = ask(b, [user("Détaille S2")], thread="oai-shared-name")
        assert extra(theirs)["followup"]["resolved"] is False
        assert extra(theirs)["citations"] == []
        assert extra(theirs)["outcome"] == "clarify"

    def messages(key):
        response = httpx.get(
            f"{server.url}/sessions/oai-shared-name/messages",
            headers={"Authorization": f"Bearer {key}"},
        )
        assert response.status_code == 200
        return [m["content"] for m in response.json()["data"]]

    assert messages(KEY_A)[0] == SUMMARY and len(messages(KEY_A)) == 2
    assert messages(KEY_B)[0] == "Détaille S2" and len(messages(KEY_B)) == 2


def test_caller_app_header_is_checked_against_the_key(server):
    with client_for(server, KEY_C) as c:
        with pytest.raises(openai.PermissionDeniedError) as caught:
            c.chat.completions.create(model="threadline", messages=[user("hello")])
        assert caught.value.code == "caller_app_forbidden"
        ok, headers = ask(
            c,
            [user("hello")],
            extra_headers={"X-Threadline-Caller-App": "support-bot"},
        )
        assert extra(ok)["outcome"] == "reply" and headers["x-threadline-thread-id"]
