"""An upload made into a document: conversion, the uploader's fields, merged metadata."""

from __future__ import annotations

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
