"""An import is bounded by what a chat turn can write, not only by the request size.

Measured on the sample data (one 13 MB import each, under the 16 MB request limit):
an answer whose outline had 200,000 sections made each later turn of its session take
18 to 73 s of the server's CPU; an outline of 8 titles of 1.6 MB made its follow-ups
"too long for a search" and a new question take 25 s; a 12.8 MB answer made a new
question take 59 s. A turn writes at most 8 sections (`MAX_SECTIONS`), and an answer
of a few thousand characters: an export holding more is refused (422), nothing stored.
"""

from __future__ import annotations

import json
import time

import pytest
from fastapi.testclient import TestClient

from support.services import make_services
from threadline.api.main import create_app
from threadline.export import MAX_IMPORTED_ANSWER_CHARS, MAX_IMPORTED_OUTLINE_TITLE_CHARS
from threadline.followups.outline import MAX_SECTIONS


@pytest.fixture(scope="module")
def exported(tmp_path_factory):
    services = make_services(tmp_path_factory.mktemp("data"))
    with TestClient(create_app(services)) as client:
        reply = client.post("/chat", json={"query": "Résume le rapport annuel 2024"})
        assert reply.status_code == 200 and reply.json()["outline"], reply.text
        session = reply.json()["session_id"]
        export = client.get(f"/sessions/{session}/export?format=json").json()
        yield client, export
    services.close()


def variant(export: dict, session_id: str, change) -> str:
    file = json.loads(json.dumps(export))
    file["session"]["id"] = session_id
    change(file["session"]["messages"][-1])
    return json.dumps(file)


def outline_of(count: int, title_chars: int = 20) -> list[dict]:
    return [{"id": f"S{i}", "title": "t" * title_chars} for i in range(1, count + 1)]


@pytest.mark.parametrize(
    ("name", "change", "refused"),
    [
        (
            "outline-at-limit",
            lambda m: m["metadata"].update(outline=outline_of(MAX_SECTIONS)),
            False,
        ),
        (
            "outline-over",
            lambda m: m["metadata"].update(outline=outline_of(MAX_SECTIONS + 1)),
            True,
        ),
        (
            "title-at-limit",
            lambda m: m["metadata"].update(outline=outline_of(2, MAX_IMPORTED_OUTLINE_TITLE_CHARS)),
            False,
        ),
        (
            "title-over",
            lambda m: m["metadata"].update(
                outline=outline_of(2, MAX_IMPORTED_OUTLINE_TITLE_CHARS + 1)
            ),
            True,
        ),
        ("answer-at-limit", lambda m: m.update(content="a" * MAX_IMPORTED_ANSWER_CHARS), False),
        ("answer-over", lambda m: m.update(content="a" * (MAX_IMPORTED_ANSWER_CHARS + 1)), True),
    ],
)
def test_imports_beyond_what_a_turn_writes_are_refused_and_store_nothing(
    exported, name: str, change, refused: bool
) -> None:
    client, export = exported
    session_id = f"imp-{name}"
    body = variant(export, session_id, change)

    response = client.post(
        "/sessions/import", content=body, headers={"content-type": "application/json"}
    )

    if refused:
        assert response.status_code == 422, response.text
        assert response.json()["error"]["code"] == "validation_error"
        assert client.get(f"/sessions/{session_id}").status_code == 404
    else:
        assert response.status_code == 201, response.text


def test_a_session_at_the_import_limit_exports_as_markdown_in_linear_time(exported) -> None:
    """The Markdown export counted each question's answers by reading the whole session.

    A session of 10,000 messages (the most an import takes) took 12 s of CPU per
    export, for anyone allowed to read it to ask again and again; about 0.2 s now.
    """
    client, export = exported
    file = json.loads(json.dumps(export))
    question, answer = file["session"]["messages"][:2]
    # One citation (its footnote) and no trace, so 10,000 messages fit in a request.
    answer = {**answer, "content": "An answer. [1]", "metadata": {**answer["metadata"]}}
    answer["metadata"].pop("trace")
    answer["metadata"]["citations"] = answer["metadata"]["citations"][:1]
    messages = []
    for turn in range(5_000):
        ids = {"turn_id": f"t{turn:032x}"}
        messages += [
            {**question, **ids, "id": f"msg_q{turn:031x}"},
            {**answer, **ids, "id": f"msg_a{turn:031x}"},
        ]
    file["session"].update(id="imp-at-the-limit", messages=messages)
    imported = client.post(
        "/sessions/import", content=json.dumps(file), headers={"content-type": "application/json"}
    )
    assert imported.status_code == 201, imported.text

    # CPU time, not wall time: the quadratic export cost 12 s of CPU, the linear one about
    # 0.2 s, and a busy machine (a CI run beside benchmarks) stretches the wall clock of
    # either (3.6 s of wall time measured at load 20) but not the CPU the export uses.
    started = time.process_time()
    markdown = client.get("/sessions/imp-at-the-limit/export", params={"format": "md"})
    cpu = time.process_time() - started

    assert markdown.status_code == 200
    assert markdown.text.count("\n## ") == 5_000 and "set aside" not in markdown.text
    assert cpu < 3.0, f"{cpu:.1f} s of CPU"
