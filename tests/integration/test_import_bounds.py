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
from threadline.export import (
    MAX_IMPORTED_ANSWER_CHARS,
    MAX_IMPORTED_CITATIONS,
    MAX_IMPORTED_OUTLINE_TITLE_CHARS,
    MAX_IMPORTED_RATINGS,
)
from threadline.followups.outline import MAX_SECTIONS
from threadline.tracing import TRACE_MAX_CHARS


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


def cited(message: dict, count: int) -> None:
    """Make the answer name `count` citations, document ids and titles."""
    citation = message["metadata"]["citations"][0]
    message["metadata"].update(
        citations=[{**citation, "id": str(i)} for i in range(1, count + 1)],
        doc_ids=[f"doc-{i}" for i in range(count)],
        titles=[f"Title {i}" for i in range(count)],
    )


def rated(message: dict, users: list[str]) -> None:
    """Give the answer one rating by each of `users`."""
    message["metadata"]["feedback"] = [
        {"user": user, "rating": "down", "created_at": "2026-01-01T00:00:00Z"} for user in users
    ]


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
        # Attack round 12: 10^6 document ids on one answer made each later turn of the
        # session take 1 to 10 s ("détaille S3": 10.1 s), 100,000 ratings 1.2 to 2 s and
        # its regenerate 7.4 s; a turn cites the passages it packed, at most 50.
        ("citations-at-limit", lambda m: cited(m, MAX_IMPORTED_CITATIONS), False),
        ("citations-over", lambda m: cited(m, MAX_IMPORTED_CITATIONS + 1), True),
        (
            "doc-ids-over",
            lambda m: m["metadata"].update(doc_ids=["d"] * (MAX_IMPORTED_CITATIONS + 1)),
            True,
        ),
        (
            "titles-over",
            lambda m: m["metadata"].update(titles=["t"] * (MAX_IMPORTED_CITATIONS + 1)),
            True,
        ),
        (
            "ratings-at-limit",
            lambda m: rated(m, [f"u{i}" for i in range(MAX_IMPORTED_RATINGS)]),
            False,
        ),
        (
            "ratings-over",
            lambda m: rated(m, [f"u{i}" for i in range(MAX_IMPORTED_RATINGS + 1)]),
            True,
        ),
        # One rating per user per answer: two by one user leave which one counts unsaid.
        ("ratings-by-one-user-twice", lambda m: rated(m, ["alice", "bob", "alice"]), True),
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


def test_an_imported_trace_is_kept_as_a_turn_keeps_one(exported) -> None:
    """A hand-made trace of 500,000 entries (4.9 MB) was stored whole, rode along with
    every JSON export (15.5 MB, 10 s) and could carry text a turn's trace never keeps;
    it is kept as a turn's: sanitised, within `TRACE_MAX_CHARS` of JSON."""
    client, export = exported

    def huge_trace(message: dict) -> None:
        message["metadata"]["trace"] = [{"node": "x", "text": "passage text"}] * 200_000

    body = variant(export, "imp-huge-trace", huge_trace)
    response = client.post(
        "/sessions/import", content=body, headers={"content-type": "application/json"}
    )
    assert response.status_code == 201, response.text

    stored = client.get("/sessions/imp-huge-trace/export", params={"format": "json"}).json()
    trace = stored["session"]["messages"][-1]["metadata"]["trace"]
    assert trace and len(json.dumps(trace, separators=(",", ":"))) <= TRACE_MAX_CHARS
    assert "passage text" not in json.dumps(trace)
    # A turn's own trace, already within the cap, is imported unchanged.
    assert (
        client.post(
            "/sessions/import",
            content=variant(export, "imp-own-trace", lambda m: None),
            headers={"content-type": "application/json"},
        ).status_code
        == 201
    )
    again = client.get("/sessions/imp-own-trace/export", params={"format": "json"}).json()
    assert again["session"]["messages"] == export["session"]["messages"]
