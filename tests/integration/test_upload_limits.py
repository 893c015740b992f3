"""Uploads that cost too much or break parsers get a 4xx with a stable code (issue 14,
items 3, 5 and 6): YAML alias bombs and deep front matter, deep or big `metadata`, PDF
decompression bombs, too many pages, too much text, too long an extraction. The
keep-alive connection that survives a refused upload is in e2e/test_upload_keep_alive.py."""

from __future__ import annotations

import tracemalloc

import pytest
from fastapi.testclient import TestClient

from support.pdf import make_flate_bomb_pdf, make_many_pages_pdf, make_pdf
from support.services import make_services
from threadline.api.main import create_app

# 265 bytes of YAML aliases that expand to 9**5 strings (threadline on main: 5.5 s, 290 MB).
LAUGHS = (
    '---\na: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]\n'
    "b: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]\nc: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]\n"
    "d: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]\ne: [*d,*d,*d,*d,*d,*d,*d,*d,*d]\n---\n# Bomb\nText.\n"
)


@pytest.fixture(scope="module")
def services(tmp_path_factory):
    svc = make_services(
        tmp_path_factory.mktemp("limits"),
        corpus=[],
        max_document_pages=50,
        max_document_chars=20_000,
        max_document_chunks=100,
    )
    yield svc
    svc.close()


@pytest.fixture(scope="module")
def client(services):
    with TestClient(create_app(services)) as test_client:
        yield test_client


def upload(client, name: str, data: bytes, content_type: str = "text/markdown", **form):
    return client.post("/documents", files={"file": (name, data, content_type)}, data=form)


def refused(response, status: int, code: str) -> None:
    assert (response.status_code, response.json()["error"]["code"]) == (status, code), response.text


def test_a_yaml_alias_bomb_is_refused_within_bounded_memory(client, services):
    before = services.kb.count()
    tracemalloc.start()
    try:
        response = upload(client, "bomb.md", LAUGHS.encode())
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    refused(response, 400, "invalid_front_matter")
    assert peak < 20 * 1024 * 1024, f"peak {peak} bytes"
    assert services.kb.count() == before


@pytest.mark.parametrize(
    ("front_matter", "code"),
    [
        ("x: " + "[" * 3000 + "]" * 3000, "invalid_front_matter"),  # RecursionError on main
        ("x: " + "{a: " * 30 + "1" + "}" * 30, "invalid_front_matter"),
        ("notes: " + "x" * 10_000, "metadata_too_large"),  # fits the front matter, not a chunk
        ("notes: " + "x" * 17_000, "invalid_front_matter"),
        ("source: " + "s" * 500, "metadata_too_large"),
        ("- a list", "invalid_front_matter"),
    ],
    ids=["deep flow", "deep mapping", "big value", "huge block", "long source", "not a map"],
)
def test_bad_front_matter_is_a_400(client, services, front_matter, code):
    before = services.kb.count()
    response = upload(client, "fm.md", f"---\n{front_matter}\n---\n# T\nText.\n".encode())
    refused(response, 400, code)
    assert services.kb.count() == before


@pytest.mark.parametrize(
    "metadata",
    [
        "[" * 4000 + "]" * 4000,  # RecursionError in the JSON parser on main
        '{"a": ' * 20 + "1" + "}" * 20,
        '{"notes": "' + "x" * 9000 + '"}',
    ],
    ids=["deep list", "deep object", "big"],
)
def test_a_deep_or_big_metadata_field_is_a_400(client, services, metadata):
    before = services.kb.count()
    response = upload(client, "m.md", b"## A\nText.", metadata=metadata)
    refused(response, 400, "metadata_too_large")
    assert services.kb.count() == before


@pytest.mark.parametrize("escape", ["\\ud800", "\\0"], ids=["lone surrogate", "nul"])
def test_text_no_index_can_store_in_front_matter_or_metadata_is_refused(client, services, escape):
    # JSON and YAML escapes spell what UTF-8 bytes cannot: a lone surrogate made the
    # write fail with a 500 (UnicodeEncodeError).
    before = services.kb.count()
    front_matter = f'---\ntitle: "T{escape}"\n---\n## A\nText.\n'.encode()
    refused(upload(client, "fm.md", front_matter), 400, "invalid_front_matter")
    json_escape = escape.replace("\\0", "\\u0000")
    metadata = f'{{"note": "x{json_escape}"}}'
    refused(upload(client, "m.md", b"## A\nText.", metadata=metadata), 422, "validation_error")
    assert services.kb.count() == before


UNINDEXABLE_YAML = {
    "impossible date": "2024-13-45",  # YAML reads it as a date: ValueError, not YAMLError
    "huge int": "9" * 30,  # no 64-bit integer holds it: the engine's payload refused it
    "huge negative int": "-" + "9" * 30,
    "nan": ".nan",  # not JSON: no payload holds it
    "infinity": "-.inf",
}


@pytest.mark.parametrize("value", UNINDEXABLE_YAML.values(), ids=UNINDEXABLE_YAML.keys())
def test_a_front_matter_value_no_index_can_store_is_a_400(client, services, value, tmp_path):
    # Each was a 500 (the upload failed in the YAML constructor or in the engine's
    # write), and `threadline ingest` stopped on it with a traceback.
    before = services.kb.count()
    body = f"---\nrevision: {value}\n---\n# T\nText.\n".encode()
    refused(upload(client, "fm.md", body), 400, "invalid_front_matter")
    (tmp_path / "fm.md").write_bytes(body)
    report = services.kb.ingest_paths([tmp_path / "fm.md"])
    assert len(report.errors) == 1 and "front matter" in str(report.errors), report.errors
    assert services.kb.count() == before


@pytest.mark.parametrize(
    "number", ["NaN", "Infinity", "-Infinity", "9" * 30, "-" + "9" * 30, "1e999"]
)
def test_a_metadata_number_no_index_can_store_is_a_422(client, services, number):
    # Python's JSON parser reads NaN, Infinity and integers of any size; the engine's
    # payload holds none of them, and the upload was a 500.
    before = services.kb.count()
    response = upload(client, "m.md", b"## A\nText.", metadata=f'{{"n": [1, {number}]}}')
    refused(response, 422, "validation_error")
    assert services.kb.count() == before


@pytest.mark.parametrize(
    "metadata",
    ['{"level": "public", "level": "secret"}', '{"owner": {"team": "a", "team": "b"}}'],
    ids=["top", "nested"],
)
def test_metadata_naming_a_key_twice_is_refused_and_nothing_stored(client, services, metadata):
    # A multipart form is not a JSON body, so round 4's check never saw it: the
    # field was parsed with plain json.loads, the last value stored, a 201.
    before = services.kb.count()
    response = upload(client, "dup.md", b"## A\nText.", metadata=metadata)
    refused(response, 422, "duplicate_json_key")
    assert services.kb.count() == before
    assert services.kb.document_info("dup") is None


def test_front_matter_and_metadata_within_the_bounds_are_kept(client):
    body = b"---\ntitle: Kept\ntags: [a, b]\nowner: {team: docs}\n---\n## A\nKept text.\n"
    created = upload(client, "kept.md", body, metadata='{"level": {"n": 1}}')
    assert created.status_code == 201, created.text
    assert created.json()["title"] == "Kept"
    assert client.delete("/documents/kept").status_code == 200


def test_a_pdf_decompression_bomb_is_a_400(client, services):
    before = services.kb.count()
    response = upload(client, "bomb.pdf", make_flate_bomb_pdf(200 << 20), "application/pdf")
    refused(response, 400, "decompression_bomb")
    assert services.kb.count() == before


def test_too_many_pages_is_a_413(client, services):
    before = services.kb.count()
    pdf = make_many_pages_pdf(60, "The same line on every page.")
    refused(upload(client, "pages.pdf", pdf, "application/pdf"), 413, "too_many_pages")
    assert services.kb.count() == before
    ok = upload(client, "few.pdf", make_many_pages_pdf(3, "Three pages."), "application/pdf")
    assert ok.status_code == 201, ok.text
    assert client.delete("/documents/few").status_code == 200


def test_too_much_text_is_a_413(client, services):
    before = services.kb.count()
    pdf = make_many_pages_pdf(45, "A line of text repeated on page after page. " * 12)
    refused(upload(client, "long.pdf", pdf, "application/pdf"), 413, "document_too_long")
    body = b"# Long\n" + b"Words and more words. " * 2000
    refused(upload(client, "long.md", body), 413, "document_too_long")
    assert services.kb.count() == before


def test_many_tiny_sections_past_the_chunk_limit_are_a_413(client, services):
    before = services.kb.count()
    body = "".join(f"## {i}\nx\n" for i in range(150)).encode()  # 150 chunks from 1 KB
    refused(upload(client, "tiny.md", body), 413, "too_many_chunks")
    assert services.kb.count() == before


def test_an_extraction_past_its_time_limit_is_a_422(tmp_path):
    services = make_services(tmp_path, corpus=[], max_extraction_seconds=0.0)
    try:
        with TestClient(create_app(services)) as client:
            pdf = make_pdf(["Timed", "Any extraction takes more than no time at all."])
            refused(upload(client, "t.pdf", pdf, "application/pdf"), 422, "extraction_timeout")
            assert services.kb.count() == 0
    finally:
        services.close()
