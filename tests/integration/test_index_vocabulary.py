"""The index's vocabulary on a real index: kept on ingest and delete, read by /chat.

"cheapest fone?" was declined on the sample data (no chunk holds "fone", and the sparse
index kept no vocabulary to compare it with); "Can I get support by e mail?" was answered
from the one passage writing "e-mail", not from those writing "email".
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from support.services import make_services
from threadline.api.main import create_app
from threadline.knowledge.documents import load_document
from threadline.services import Services


@pytest.fixture(scope="module")
def client(sample_services):
    with TestClient(create_app(sample_services)) as test_client:
        yield test_client


def chat(client: TestClient, query: str) -> dict:
    response = client.post("/chat", json={"query": query})
    assert response.status_code == 200, response.text
    return response.json()


def test_a_misspelt_word_is_searched_and_checked_as_the_indexed_word(client):
    body = chat(client, "cheapest fone?")
    assert body["outcome"] == "grounded_answer", body["answer"]
    assert "cheapest phone in the Brightwell catalog at $199" in body["answer"]


def test_a_compound_typed_with_a_space_finds_it_written_closed(client):
    # "e mail" was "e" and "mail": only the French report's "e-mail" held them.
    body = chat(client, "Can I get support by e mail?")
    assert body["outcome"] == "grounded_answer", body["answer"]
    assert "with email and web support" in body["answer"]
    assert {c["title"] for c in body["citations"]} == {"Brightwell support policy"}


def test_the_sample_vocabulary_leaves_known_words_and_codes_alone(sample_services):
    vocabulary = sample_services.kb.vocabulary(tenant="default")
    assert vocabulary.frequency("phone") > 0
    for query in ("What is the price of the Pixel 8a?", "cheapest phone?", "Is the XPS 14 sold?"):
        assert vocabulary.spelling_fixes(query) == []


def write(folder: Path, name: str, text: str) -> Path:
    path = folder / name
    path.write_text(text, encoding="utf-8")
    return path


@pytest.fixture
def documents(tmp_path: Path) -> Path:
    folder = tmp_path / "docs"
    folder.mkdir()
    write(folder, "parking.md", "# Parking\n\nThe parking garage opens at seven.\n")
    write(folder, "canteen.md", "# Canteen\n\nThe canteen serves lunch; the garage is next door.\n")
    return folder


def open_services(data_dir: Path, folder: Path | None = None) -> Services:
    return make_services(data_dir, corpus=[folder] if folder else [])


def test_the_vocabulary_follows_ingest_update_and_delete(tmp_path, documents):
    services = open_services(tmp_path / "data", documents)
    try:
        kb = services.kb
        vocabulary = kb.vocabulary(tenant="default")
        assert vocabulary.frequency("garag") == 2  # one chunk of each document
        assert vocabulary.frequency("canteen") == 1
        assert kb.vocabulary(tenant="other").frequency("garag") == 0  # per tenant

        write(documents, "canteen.md", "# Canteen\n\nThe canteen serves dinner.\n")
        kb.ingest_paths([documents])
        updated = kb.vocabulary(tenant="default")
        assert updated.frequency("dinner") == 1 and updated.frequency("lunch") == 0
        assert updated.frequency("garag") == 1

        assert kb.delete_document("parking", tenant="default")
        after = kb.vocabulary(tenant="default")
        assert after.frequency("parking") == 0 and after.frequency("garag") == 0
        assert after.frequency("canteen") == 1
        assert len(list((tmp_path / "data" / "vocabulary").rglob("*.json"))) == 1
    finally:
        services.close()


def test_the_vocabulary_is_stored_with_the_index_and_rebuilt_when_missing(tmp_path, documents):
    data_dir = tmp_path / "data"
    services = open_services(data_dir, documents)
    before = dict(services.kb.vocabulary(tenant="default").frequencies())
    services.close()
    assert list((data_dir / "vocabulary").rglob("*.json"))

    reopened = open_services(data_dir)  # read from the stored files
    try:
        assert dict(reopened.kb.vocabulary(tenant="default").frequencies()) == before
    finally:
        reopened.close()

    # An index written before the vocabulary existed: computed from its chunks.
    shutil.rmtree(data_dir / "vocabulary")
    rebuilt = open_services(data_dir)
    try:
        assert dict(rebuilt.kb.vocabulary(tenant="default").frequencies()) == before
        assert list((data_dir / "vocabulary").rglob("*.json"))
    finally:
        rebuilt.close()


def test_a_document_added_alone_is_in_the_vocabulary_at_once(tmp_path, documents):
    services = open_services(tmp_path / "data")
    try:
        kb = services.kb
        assert kb.vocabulary(tenant="default").frequency("garag") == 0
        kb.ingest_document(load_document(documents / "parking.md", root=documents))
        assert kb.vocabulary(tenant="default").frequency("garag") == 1
    finally:
        services.close()


def test_a_vocabulary_file_that_cannot_be_written_leaves_the_document_published(
    tmp_path, documents
):
    # A file where the vocabulary's directory goes: every write of it fails, as on a
    # full disk; the document is still ingested and its terms still read.
    data_dir = tmp_path / "data"
    data_dir.mkdir()
    (data_dir / "vocabulary").write_text("not a directory", encoding="utf-8")
    services = open_services(data_dir)
    try:
        report = services.kb.ingest_paths([documents])
        assert not report.errors and sorted(report.added) == ["canteen", "parking"]
        assert services.kb.vocabulary(tenant="default").frequency("garag") == 2
    finally:
        services.close()


def test_a_write_updates_the_kept_sum_without_summing_every_document_again(
    tmp_path, documents, monkeypatch
):
    data_dir = tmp_path / "data"
    services = open_services(data_dir, documents)
    try:
        kb = services.kb
        assert kb.vocabulary(tenant="default").frequency("garag") == 2  # the sum, kept

        def summed_again(tenant: str) -> None:
            raise AssertionError(f"{tenant}'s documents summed again after a write")

        monkeypatch.setattr(kb, "_sum_document_terms", summed_again)
        write(documents, "canteen.md", "# Canteen\n\nThe canteen serves dinner.\n")
        write(documents, "library.md", "# Library\n\nThe library lends books; dinner is late.\n")
        kb.ingest_paths([documents])
        assert kb.delete_document("parking", tenant="default")
        kept = dict(kb.vocabulary(tenant="default").frequencies())
        monkeypatch.undo()
    finally:
        services.close()
    assert kept["dinner"] == 2 and "lunch" not in kept and "garag" not in kept

    # What the writes left is what the documents now hold, summed afresh.
    shutil.rmtree(data_dir / "vocabulary")
    reopened = open_services(data_dir)
    try:
        assert dict(reopened.kb.vocabulary(tenant="default").frequencies()) == kept
    finally:
        reopened.close()


def test_the_server_reads_the_vocabulary_before_the_first_question(tmp_path, documents):
    data_dir = tmp_path / "data"
    open_services(data_dir, documents).close()
    shutil.rmtree(data_dir / "vocabulary")  # as after an upgrade: computed from the chunks
    services = open_services(data_dir)
    try:
        with TestClient(create_app(services)):
            # Started, no request made: the terms are computed and stored already.
            assert len(list((data_dir / "vocabulary").rglob("*.json"))) == 2
    finally:
        services.close()


def _parking_file(data_dir: Path) -> tuple[Path, dict]:
    [path] = [
        p
        for p in (data_dir / "vocabulary").rglob("*.json")
        if json.loads(p.read_text(encoding="utf-8"))["doc_id"] == "parking"
    ]
    return path, json.loads(path.read_text(encoding="utf-8"))


DAMAGED = {
    "truncated": lambda good: json.dumps(good)[:25],
    "not json": lambda good: "{{{",
    "a list": lambda good: "[]",
    "terms a list": lambda good: json.dumps({**good, "terms": ["garag"]}),
    "count a text": lambda good: json.dumps({**good, "terms": {"garag": "many"}}),
    "count an object": lambda good: json.dumps({**good, "terms": {"garag": {"n": 1}}}),
    "count negative": lambda good: json.dumps({**good, "terms": {"garag": -50}}),
    "count a float": lambda good: json.dumps({**good, "terms": {"garag": 1.5}}),
    "generation a text": lambda good: json.dumps({**good, "generation": str(good["generation"])}),
    "deeply nested": lambda good: "[" * 200_000 + "]" * 200_000,
    "huge": lambda good: json.dumps(
        {**good, "terms": {**good["terms"], "pad": 1, "x" * 400_000: 1}}
    ),
    "another tenant's terms": lambda good: json.dumps(
        {**good, "tenant": "other", "terms": {"secretword": 9}}
    ),
}


@pytest.mark.parametrize("damage", DAMAGED.values(), ids=DAMAGED.keys())
def test_a_damaged_or_hostile_vocabulary_file_is_recomputed_from_the_chunks(
    tmp_path, documents, damage
):
    # Each was a 500 on every turn of the tenant (AttributeError, TypeError,
    # RecursionError), or its terms were taken as they were: a negative count, a
    # file holding another tenant's terms, a file of any size read whole.
    data_dir = tmp_path / "data"
    services = open_services(data_dir, documents)
    before = dict(services.kb.vocabulary(tenant="default").frequencies())
    services.close()
    path, good = _parking_file(data_dir)
    path.write_text(damage(good), encoding="utf-8")

    reopened = make_services(data_dir, corpus=[], max_document_chars=20_000)
    try:
        assert dict(reopened.kb.vocabulary(tenant="default").frequencies()) == before
        with TestClient(create_app(reopened)) as client:
            assert (
                client.post("/chat", json={"query": "When does the garage open?"}).status_code
                == 200
            )
    finally:
        reopened.close()
    assert _parking_file(data_dir)[1] == good  # written again from the chunks
