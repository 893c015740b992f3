"""Markdown documents into chunks: front matter, headings, long sections, code fences."""

from __future__ import annotations

import pytest

from support.markdown import DOC, write
from threadline.knowledge.documents import DocumentError, chunk_document, load_document


def test_front_matter_and_heading_chunks(tmp_path):
    doc = load_document(write(tmp_path / "hr" / "travel.md", DOC), root=tmp_path)
    assert (doc.doc_id, doc.title, doc.source, doc.updated_at) == (
        "hr-travel",
        "Travel policy",
        "hr",
        "2024-05-01",
    )
    assert doc.metadata == {"owner": "people-team"}
    chunks = chunk_document(doc)
    assert [c.section for c in chunks] == ["Booking", "Expenses", "Expenses > Receipts"]
    assert [c.position for c in chunks] == [0, 1, 2]
    assert chunks[1].embedding_text.startswith("Travel policy — Expenses\n")
    again = chunk_document(load_document(tmp_path / "hr" / "travel.md", root=tmp_path))
    assert [c.chunk_id for c in again] == [c.chunk_id for c in chunks]  # deterministic ids


def test_long_sections_are_split_and_keep_their_heading(tmp_path):
    body = "## Long\n" + " ".join(f"Sentence number {i} is here." for i in range(300))
    chunks = chunk_document(load_document(write(tmp_path / "long.md", body)))
    assert len(chunks) > 3
    assert {c.section for c in chunks} == {"Long"}
    assert all(len(c.text) <= 1200 for c in chunks)


def test_a_heading_is_cut_as_a_title_is(tmp_path):
    # Every citation, outline and stored answer repeats the section name: a heading of
    # 1.5 MB made each turn citing it answer and store megabytes.
    body = "# Big\n## " + "word " * 50_000 + "\nThe code is 4711.\n### Sub\nMore text.\n"
    chunks = chunk_document(load_document(write(tmp_path / "big.md", body)))
    long_name = ("word " * 60)[:299] + "…"
    assert [c.section for c in chunks] == [long_name, f"{long_name} > Sub"]
    assert len(chunks[0].section) == 300


def test_bad_front_matter_is_a_clear_error(tmp_path):
    with pytest.raises(DocumentError, match="front matter"):
        load_document(write(tmp_path / "bad.md", "---\ntitle: [unclosed\n---\ntext"))


def test_a_comment_in_fenced_code_is_not_a_heading(tmp_path):
    body = (
        "# Deploy guide\n\n## Install\nRun the script:\n\n```bash\n# install the package\n"
        "pip install threadline\n```\n\nThen restart.\n\n~~~\n## not a heading either\n~~~\n\n"
        "## Configure\nSet the key.\n"
    )
    doc = load_document(write(tmp_path / "deploy.md", body))
    assert doc.title == "Deploy guide"
    chunks = chunk_document(doc)
    assert [c.section for c in chunks] == ["Install", "Configure"]
    assert "# install the package\npip install threadline" in chunks[0].text
    assert chunks[0].text.endswith("~~~\n## not a heading either\n~~~")


def test_a_fence_left_open_runs_to_the_end(tmp_path):
    body = "## Code\n```\n# first\n## second\n"
    doc = load_document(write(tmp_path / "open.md", body))
    assert doc.title == "Code"
    assert [(c.section, c.text) for c in chunk_document(doc)] == [
        ("Code", "```\n# first\n## second")
    ]
