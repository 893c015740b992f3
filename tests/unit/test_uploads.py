"""An upload made into a document: conversion, the uploader's fields, merged metadata."""

from __future__ import annotations

import re
import unicodedata

import pytest

from threadline.knowledge.documents import DocumentError
from threadline.knowledge.uploads import document_from_upload, parse_metadata_json

BODY = b"---\ntitle: From front matter\nsource: hr\nowner: people\nlevel: 1\n---\n## A\nText.\n"


def test_front_matter_is_read_and_the_uploaders_fields_win():
    doc = document_from_upload(BODY, suffix=".md", filename="Travel.md")
    assert (doc.doc_id, doc.title, doc.source, doc.path) == (
        "travel",
        "From front matter",
        "hr",
        None,
    )
    assert doc.metadata == {"owner": "people", "level": 1}

    doc = document_from_upload(
        BODY,
        suffix=".md",
        filename="Travel.md",
        doc_id="Trips",
        title="Given",
        source="ops",
        metadata='{"level": 2, "team": "x"}',
    )
    assert (doc.doc_id, doc.title, doc.source) == ("trips", "Given", "ops")
    assert doc.metadata == {"owner": "people", "level": 2, "team": "x"}


def test_an_upload_without_a_source_lands_in_uploads():
    doc = document_from_upload(
        b"<title>Page</title><h2>A</h2><p>Text.</p>", suffix=".html", filename="p.html"
    )
    assert (doc.title, doc.source) == ("Page", "uploads")
    assert doc.text.endswith("## A\n\nText.")


@pytest.mark.parametrize(
    ("metadata", "code", "status"),
    [
        ("[1]", "validation_error", 422),
        ("not json", "validation_error", 422),
        ("[" * 4000 + "]" * 4000, "metadata_too_large", 400),
        ('{"notes": "' + "x" * 9000 + '"}', "metadata_too_large", 400),
    ],
)
def test_bad_metadata_is_refused_with_its_code(metadata, code, status):
    with pytest.raises(DocumentError) as refused:
        parse_metadata_json(metadata)
    assert (refused.value.code, refused.value.status) == (code, status)


def test_merged_metadata_is_bounded_too():
    front = b"---\nnotes: " + b"y" * 5000 + b"\n---\nText."
    with pytest.raises(DocumentError) as refused:
        document_from_upload(
            front, suffix=".md", filename="m.md", metadata='{"more": "' + "z" * 5000 + '"}'
        )
    assert refused.value.code == "metadata_too_large"


def test_a_file_without_text_is_unreadable():
    with pytest.raises(DocumentError, match="no text") as refused:
        document_from_upload(b"---\ntitle: Empty\n---\n\n", suffix=".md", filename="e.md")
    assert refused.value.code == "unreadable_document"


NUL, SURROGATE = "a\x00b", "a\ud800b"


@pytest.mark.parametrize(
    ("field", "bad", "where", "code", "status"),
    [
        ("title", NUL, "title", "validation_error", 422),
        ("title", SURROGATE, "title", "validation_error", 422),
        ("source", NUL, "source", "validation_error", 422),
        ("source", SURROGATE, "source", "validation_error", 422),
        ("filename", NUL, "title", "validation_error", 422),  # the default title
        ("filename", SURROGATE, "title", "validation_error", 422),
        # UTF-8 bytes cannot spell a lone surrogate: only NUL reaches the text.
        ("text", NUL, "text", "unreadable_document", 400),
    ],
)
def test_text_no_store_can_keep_is_refused(field, bad, where, code, status):
    # A title or passage is copied into answers and the conversation store, where
    # PostgreSQL refuses NUL and no UTF-8 store holds a lone surrogate.
    kwargs = {"suffix": ".txt", "filename": "notes.txt"}
    data = b"Some text without a heading."
    if field == "text":
        data = f"Some {bad} text.".encode()
    elif field == "filename":
        kwargs["filename"] = f"{bad}.txt"
    else:
        kwargs[field] = bad
    with pytest.raises(DocumentError) as caught:
        document_from_upload(data, **kwargs)
    assert (caught.value.code, caught.value.status) == (code, status), caught.value
    assert f"{where}: " in str(caught.value)


def test_names_differing_only_in_letters_ids_cannot_spell_are_different_documents():
    # Every fully non-Latin name was the id "document" and `Отчёт 2024` and `План 2024`
    # were both "2024": each upload replaced the document uploaded before it.
    def doc_id(name: str) -> str:
        return document_from_upload(b"# T\n\nSome text.\n", suffix=".md", filename=name).doc_id

    names = ["Отчёт 2024.md", "План 2024.md", "日本.md", "中文.md", "résumé.md", "résumè.md"]
    ids = [doc_id(name) for name in names]
    assert len(set(ids)) == len(names), ids
    assert all(re.fullmatch(r"[a-z0-9._-]{1,128}", i) for i in ids), ids
    assert ids[0].startswith("2024-") and ids[4].startswith("r-sum-"), ids
    # The same name gives the same id: uploaded again (from macOS, decomposed), it replaces.
    assert doc_id(unicodedata.normalize("NFD", "Résumé.md")) == ids[4]
    assert len(doc_id("é" + "a" * 120 + ".md")) <= 128
    # ASCII names keep the ids they always had.
    assert [doc_id(n) for n in ("Travel.md", "Employee Handbook.md", "..md")] == [
        "travel",
        "employee-handbook",
        "document",
    ]
