"""Documents API: upload Markdown/text/HTML/PDF, list, delete; limits and clear errors."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

from support.pdf import make_pdf
from support.services import make_services
from threadline.api.main import create_app


@pytest.fixture(scope="module")
def services(tmp_path_factory):
    svc = make_services(tmp_path_factory.mktemp("docs"), corpus=[], max_upload_bytes=64 * 1024)
    yield svc
    svc.close()


@pytest.fixture(scope="module")
def client(services):
    with TestClient(create_app(services)) as test_client:
        yield test_client


def upload(client, name: str, data: bytes, content_type: str = "application/octet-stream", **form):
    return client.post("/documents", files={"file": (name, data, content_type)}, data=form)


def test_markdown_upload_list_reupload_delete(client):
    body = b"---\ntitle: Leave policy\n---\n## Annual leave\nStaff get 25 days of annual leave.\n"
    created = upload(client, "leave.md", body, source="hr", metadata='{"owner": "people"}')
    assert created.status_code == 201, created.text
    assert created.json() | {"updated_at": None} == {
        "doc_id": "leave",
        "title": "Leave policy",
        "source": "hr",
        "chunks": 1,
        "updated_at": None,
        "status": "added",
    }
    assert (
        upload(client, "leave.md", body, source="hr", metadata='{"owner": "people"}').json()[
            "status"
        ]
        == "unchanged"
    )
    listing = client.get("/documents").json()
    assert {"doc_id": "leave", "chunks": 1}.items() <= listing["data"][0].items()
    answer = client.post("/chat", json={"query": "How many days of annual leave?"}).json()
    assert "25 days" in answer["answer"] and answer["citations"][0]["doc_id"] == "leave"
    assert client.delete("/documents/leave").json() == {"message": "Document deleted successfully"}
    missing = client.delete("/documents/leave")
    assert missing.status_code == 404 and missing.json()["error"]["code"] == "document_not_found"


def test_a_field_given_twice_is_refused_and_nothing_is_stored(client):
    # FastAPI keeps a repeated field's last value: the second file used to be stored
    # under the first's name, and the first dropped without a word.
    before = client.get("/documents").json()["count"]
    files = [
        ("file", ("one.md", b"## One\nThe first file.\n", "text/markdown")),
        ("file", ("two.md", b"## Two\nThe second file.\n", "text/markdown")),
    ]
    reply = client.post("/documents", files=files)
    assert reply.status_code == 422, reply.text
    assert (
        reply.json()["error"]["code"] == "repeated_field"
        and "file" in reply.json()["error"]["message"]
    )
    titled = client.post(
        "/documents",
        files=[("file", ("one.md", b"## One\nText.\n", "text/markdown"))],
        data={"title": ["A", "B"]},
    )
    assert titled.status_code == 422 and titled.json()["error"]["code"] == "repeated_field"
    # A field the route does not read is ignored, once or twice, as any unknown field.
    extra = client.post(
        "/documents",
        files=[("file", ("extra.md", b"## Extra\nText.\n", "text/markdown"))],
        data={"colour": ["red", "blue"]},
    )
    assert extra.status_code == 201, extra.text
    assert client.delete("/documents/extra").status_code == 200
    # The fields checked are the form's, as the schema lists them.
    from threadline.api.routes.documents import UPLOAD_FIELDS

    schema = client.get("/openapi.json").json()
    body = schema["paths"]["/documents"]["post"]["requestBody"]["content"]["multipart/form-data"]
    ref = body["schema"]["$ref"].rsplit("/", 1)[-1]
    assert set(schema["components"]["schemas"][ref]["properties"]) == set(UPLOAD_FIELDS)
    assert client.get("/documents").json()["count"] == before


def test_html_keeps_headings_and_drops_scripts(client):
    html = (
        b"<html><head><title>Parking rules</title><script>alert(1)</script></head><body>"
        b"<nav>Home | About</nav><h2>Visitors</h2><p>Visitors park on level 2.</p>"
        b"<h2>Staff</h2><p>Staff park on level 3.</p></body></html>"
    )
    created = upload(client, "parking.html", html, "text/html")
    assert created.status_code == 201, created.text
    assert created.json()["title"] == "Parking rules" and created.json()["chunks"] == 2
    answer = client.post("/chat", json={"query": "Where do visitors park?"}).json()
    assert "level 2" in answer["answer"]
    assert answer["citations"][0]["section"] == "Visitors"


def test_pdf_upload_extracts_text(client):
    pdf = make_pdf(
        ["Badge policy", "Lost badges are replaced at the front desk for 10 euros."],
        title="Badge policy",
    )
    created = upload(client, "badges.pdf", pdf, "application/pdf")
    assert created.status_code == 201, created.text
    assert created.json()["title"] == "Badge policy"
    answer = client.post("/chat", json={"query": "How much does a lost badge cost?"}).json()
    assert "10 euros" in answer["answer"]


@pytest.mark.parametrize(
    ("name", "data", "content_type", "status", "code"),
    [
        ("tool.exe", b"MZ\x90\x00", "application/octet-stream", 415, "unsupported_media_type"),
        ("photo.png", b"\x89PNG", "image/png", 415, "unsupported_media_type"),
        ("broken.pdf", b"%PDF-1.4 garbage", "application/pdf", 400, "unreadable_document"),
        ("latin1.txt", "café".encode("latin-1"), "text/plain", 400, "unreadable_document"),
        ("big.md", b"# Big\n" + b"x" * (70 * 1024), "text/markdown", 413, "payload_too_large"),
        ("empty.md", b"   \n", "text/markdown", 400, "unreadable_document"),
    ],
)
def test_bad_uploads_are_refused_and_leave_the_index_as_it_was(
    client, services, name, data, content_type, status, code
):
    before = services.kb.count()
    response = upload(client, name, data, content_type)
    assert response.status_code == status, response.text
    assert response.json()["error"]["code"] == code
    assert services.kb.count() == before


def test_client_paths_never_become_ids_or_paths(client):
    created = upload(client, "../../etc/evil.md", b"## Note\nA harmless note.")
    assert created.status_code == 201
    assert created.json()["doc_id"] == "evil"
    bad_id = upload(client, "x.md", b"## A\nText.", doc_id="../x")
    assert bad_id.status_code == 422
