"""The README's first conversation, asked of the sample data as `make run` serves it.

A new team starts from "A conversation": each `chat '{...}'` there is posted to `POST /chat`
in order (the turns of one thread_id follow each other), over the default deployment
(hybrid embeddings with MiniLM, the offline model), and what the README shows after it must
be what the server answers: the JSON shown (a `"..."` in a list or a string stands for what
the README leaves out), and the comment lines' outcome, stop reason, search query, follow-up
and answer text (`...` leaving out a part). Three of these examples had drifted from the
server's answers without any test noticing.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest
from fastapi.testclient import TestClient

from support.paths import ROOT
from threadline.api.main import create_app

ELLIPSIS = "..."


@dataclass
class Example:
    """One `chat '{...}'` of the README and what the README says it answers."""

    request: dict[str, Any]
    shown: dict[str, Any] = field(default_factory=dict)
    answer_parts: list[str] = field(default_factory=list)


def readme_examples() -> list[Example]:
    """The examples of the README's "A conversation" section, in order."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    section = text.split("\n## A conversation\n", 1)[1].split("\n## ", 1)[0]
    examples: list[Example] = []
    in_json: list[str] | None = None
    for line in section.splitlines():
        if line == "```json":
            in_json = []
        elif line == "```" and in_json is not None:
            examples[-1].shown.update(json.loads("\n".join(in_json)))
            in_json = None
        elif in_json is not None:
            in_json.append(line)
        elif line.startswith("chat '{"):
            examples.append(Example(request=json.loads(line[len("chat '") : line.rindex("'")])))
        elif line.startswith("# ") and examples:
            read_comment(line[2:], examples[-1])
    return examples


def read_comment(comment: str, example: Example) -> None:
    """What a comment line says of the answer; prose after the facts is read as no claim."""
    if comment.startswith("search_query: "):
        example.shown["search_query"] = leading_json(comment.removeprefix("search_query: "))
    elif comment.startswith("followup: "):
        example.shown["followup"] = leading_json(comment.removeprefix("followup: "))
    elif comment.startswith('"'):
        example.answer_parts = quoted_parts(comment)
    elif found := re.match(r'outcome "(\w+)"(?:, stop_reason "(\w+)")?:?\s*(.*)$', comment):
        example.shown["outcome"] = found.group(1)
        if found.group(2):
            example.shown["stop_reason"] = found.group(2)
        if found.group(3).startswith('"'):
            example.answer_parts = quoted_parts(found.group(3))


def quoted_parts(quoted: str) -> list[str]:
    """The pieces of a quoted answer around its `...`, whitespace folded."""
    text = leading_json(quoted)
    return [folded(part) for part in text.split(ELLIPSIS) if part.strip()]


def leading_json(text: str) -> Any:
    """The JSON value a comment starts with; what follows it is prose."""
    return json.JSONDecoder().raw_decode(text)[0]


def folded(text: str) -> str:
    return " ".join(text.split())


def assert_shown(shown: Any, served: Any, where: str) -> None:
    """`served` holds what `shown` shows; a `"..."` stands for what the README leaves out."""
    if isinstance(shown, dict):
        assert isinstance(served, dict), where
        for key, value in shown.items():
            assert key in served, f"{where}.{key} missing"
            assert_shown(value, served[key], f"{where}.{key}")
    elif isinstance(shown, list):
        assert isinstance(served, list), where
        kept = shown[: shown.index(ELLIPSIS)] if ELLIPSIS in shown else shown
        if ELLIPSIS not in shown:
            assert len(served) == len(shown), f"{where}: {served!r}"
        for index, value in enumerate(kept):
            assert index < len(served), f"{where}: {served!r}"
            assert_shown(value, served[index], f"{where}[{index}]")
    elif isinstance(shown, str) and ELLIPSIS in shown:
        assert_parts_in_order(
            [folded(p) for p in shown.split(ELLIPSIS) if p.strip()], served, where
        )
    else:
        assert served == shown, f"{where}: served {served!r}, the README shows {shown!r}"


def assert_parts_in_order(parts: list[str], served: str, where: str) -> None:
    text = folded(served)
    assert text.startswith(parts[0]), f"{where}: served {served!r}, the README shows {parts!r}"
    at = len(parts[0])
    for part in parts[1:]:
        found = text.find(part, at)
        assert found >= 0, f"{where}: served {served!r}, the README shows {parts!r}"
        at = found + len(part)


EXAMPLES = readme_examples()


@pytest.fixture(scope="module")
def client(minilm_services) -> Iterator[TestClient]:
    with TestClient(create_app(minilm_services)) as test_client:
        yield test_client


def test_the_readme_shows_its_conversation():
    # The parser read the section: a change of the README's layout must not empty this test.
    assert len(EXAMPLES) >= 13
    assert sum(1 for example in EXAMPLES if example.shown or example.answer_parts) >= 11


def test_each_example_answers_what_the_readme_shows(client):
    for example in EXAMPLES:
        response = client.post("/chat", json=example.request)
        assert response.status_code == 200, response.text
        served = response.json()
        where = example.request["query"]
        assert_shown(example.shown, served, where)
        if example.answer_parts:
            assert_parts_in_order(example.answer_parts, served["answer"], f"{where}: answer")
