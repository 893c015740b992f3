"""Documents API: upload Markdown/text/HTML/PDF, list, delete; limits and clear errors."""

from __future__ import annotations

import json
import re

import pytest
from fastapi.testclient import TestClient

from support.pdf import make_pdf
from support.services import make_services, make_settings
from threadline.api.main import create_app
from threadline.knowledge.payloads import chunk_payload
from threadline.services import Services
from threadline.store import ConversationStore


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


def test_a_file_name_with_no_last_part_is_named_as_a_missing_one(client):
    # The client's name is cut to its last part; "/", "." or "//" have none, and the id
    # made from the empty name that was left was a 500.
    for name in ("/", ".", "//", "./"):
        created = upload(client, name, b"## Note\nA note with no name.\n", "text/markdown")
        assert created.status_code == 201, (name, created.text)
        assert created.json()["doc_id"] == "upload"


def test_a_new_version_with_no_text_under_its_headings_keeps_the_stored_one(client, services):
    # Headings alone make no chunk: the empty version was written over the stored one,
    # the document was gone and the upload said 409 "deleted while it was being written".
    assert (
        upload(client, "agenda.md", b"# Agenda\n## Budget\nThe budget is 40k.\n").status_code == 201
    )
    for headings in (b"# Agenda\n## Budget\n", b"## Budget\n## Hiring\n"):
        refused = upload(client, "agenda.md", headings, "text/markdown")
        assert refused.status_code == 400, refused.text
        assert refused.json()["error"]["code"] == "unreadable_document"
        assert "40k" in document_text(services, "agenda")
    refused = upload(client, "headings-only.md", b"## A\n## B\n", "text/markdown")
    assert refused.status_code == 400, refused.text
    assert services.kb.document_info("headings-only") is None


def document_text(services, doc_id: str) -> str:
    return " ".join(chunk.text for chunk in services.kb.document_chunks(doc_id))


def test_names_giving_one_id_never_replace_each_other(client, services):
    # Ids keep ASCII letters, digits and `. _ -`: "q3 plan.md" and "q3-plan.md" both gave
    # "q3-plan", and the second upload silently replaced the first document.
    first = upload(client, "q3-plan.md", b"## Plan\nThe dash plan ships in May.\n")
    assert (first.status_code, first.json()["doc_id"]) == (201, "q3-plan"), first.text
    for other in ("q3 plan.md", "q3,plan.md", "Q3 (plan).md"):
        refused = upload(client, other, b"## Plan\nThe other plan ships in June.\n")
        assert refused.status_code == 409, refused.text
        assert refused.json()["error"]["code"] == "document_id_taken"
    assert "May" in document_text(services, "q3-plan")
    assert "June" not in document_text(services, "q3-plan")
    # The same name (in another case, or as a PDF) is the same document: it replaces.
    again = upload(client, "Q3-Plan.md", b"## Plan\nThe dash plan ships in July.\n")
    assert (again.status_code, again.json()["status"]) == (201, "updated"), again.text
    assert "July" in document_text(services, "q3-plan")
    # An id the caller gives names the document it means.
    given = upload(client, "q3 plan.md", b"## Plan\nGiven in August.\n", doc_id="q3-plan")
    assert (given.status_code, given.json()["status"]) == (201, "updated"), given.text
    assert "August" in document_text(services, "q3-plan")


def test_a_file_name_too_long_has_its_own_code(client, services):
    before = services.kb.count()
    for name in ("n" * 129 + ".md", "é" * 256 + ".md"):
        refused = upload(client, name, b"## A\nText.\n")
        assert refused.status_code == 422, refused.text
        assert refused.json()["error"]["code"] == "filename_too_long"
        assert "255" in refused.json()["error"]["message"]
    assert services.kb.count() == before
    assert upload(client, "n" * 128 + ".md", b"## A\nText.\n").status_code == 201


def test_an_index_written_before_names_were_kept_opens_with_its_ids(tmp_path, monkeypatch):
    # What the index stored before names were kept: the same payloads but `doc_name`.
    from threadline.knowledge import index as index_module

    def payload_of_before(*args, **kwargs):
        meta = chunk_payload(*args, **kwargs)
        del meta["doc_name"]
        return meta

    corpus = tmp_path / "corpus"
    corpus.mkdir()
    (corpus / "Travel Policy.md").write_text("## Trains\nTrains are booked in second class.\n")
    (corpus / "Отчёт 2024.md").write_text("## Ventes\nLes ventes ont atteint 12 millions.\n")
    with monkeypatch.context() as before:
        before.setattr(index_module, "chunk_payload", payload_of_before)
        old = make_services(tmp_path / "data", corpus=[corpus])
        old_ids = [d.doc_id for d in old.kb.list_documents()]
        old.close()
    assert old_ids[1] == "travel-policy", old_ids
    reopened = Services(make_settings(tmp_path / "data"))
    try:
        assert [d.doc_id for d in reopened.kb.list_documents()] == old_ids
        with TestClient(create_app(reopened)) as opened:
            reply = opened.post("/chat", json={"query": "Which class are trains booked in?"})
            assert reply.json()["citations"][0]["doc_id"] == "travel-policy", reply.text
            # A document of unknown name is replaced by a file giving its id, as before;
            # its name is kept from then on.
            same = upload(opened, "Travel Policy.md", b"## Trains\nFirst class now.\n")
            assert (same.status_code, same.json()["doc_id"]) == (201, "travel-policy")
            other = upload(opened, "travel_policy.md", b"## Trains\nText.\n")
            assert other.json()["doc_id"] == "travel_policy"
            clash = upload(opened, "travel,policy.md", b"## Trains\nText.\n")
            assert clash.status_code == 409, clash.text
    finally:
        reopened.close()


def test_ingest_reports_a_second_file_whose_name_gives_the_same_id(tmp_path):
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    (corpus / "a b.md").write_text("## A\nThe spaced file says blue.\n")
    (corpus / "a-b.md").write_text("## A\nThe dashed file says red.\n")
    services = make_services(tmp_path / "data", corpus=[])
    try:
        report = services.kb.ingest_paths([corpus])
        assert report.added == ["a-b"] and list(report.errors) == [str(corpus / "a-b.md")]
        assert "blue" in document_text(services, "a-b")
    finally:
        services.close()


@pytest.mark.parametrize(
    ("body", "form"),
    [
        # The upload form's own fields set these; metadata set them where the form did not
        # (a chunk scoped to another app's source_app) or lost its value to the index's.
        (b"## Leave\nStaff get 25 days.\n", {"metadata": '{"source_app": "hr-bot", "owner": "x"}'}),
        (b"## Leave\nStaff get 25 days.\n", {"metadata": '{"doc_name": "leave-v2"}'}),
        (b"---\ntitle: Leave\nworkspace: payroll\n---\n## Leave\nStaff get 25 days.\n", {}),
        (b"---\ngeneration: 7\n---\n## Leave\nStaff get 25 days.\n", {}),
    ],
)
def test_metadata_naming_a_field_the_index_keeps_is_refused(client, body, form):
    response = upload(client, "reserved-keys.md", body, source="hr", **form)
    assert response.status_code == 422, response.text
    assert response.json()["error"]["code"] == "reserved_metadata_key"
    listed = client.get("/documents").json()["data"]
    assert all(d["doc_id"] != "reserved-keys" for d in listed)


SALES = "# Sales report\n\n## Units\n\nSales were {units} units in March.\n\n## Staff\n\n{staff}\n"


@pytest.fixture(params=["json", "postgres"])
def replacing(request, tmp_path):
    """A client over an empty index and the JSON store or a fresh PostgreSQL database."""
    extra = (
        {"database_url": request.getfixturevalue("pg_url")} if request.param == "postgres" else {}
    )
    svc = make_services(tmp_path / "data", corpus=[], **extra)
    with TestClient(create_app(svc)) as test_client:
        yield test_client, svc
    svc.close()


def cite(client, thread: str, query: str) -> dict:
    answer = client.post("/chat", json={"query": query, "thread_id": thread})
    assert answer.status_code == 200, answer.text
    [citation] = answer.json()["citations"]
    return citation


def open_cited(client, citation: dict, *, digest: bool = True):
    """Open a citation's passage as the web page does (with its digest when it has one)."""
    params = {"text_sha256": citation["text_sha256"]} if digest and citation["text_sha256"] else {}
    return client.get(
        f"/documents/{citation['doc_id']}/chunks/{citation['chunk_id']}", params=params
    )


def test_a_citation_opens_the_text_it_quoted_or_says_its_document_changed(replacing):
    # A passage's id is its document's id and position, the same in every version: after
    # the report was uploaded again, "42 units [1]" opened "Sales were 57 units".
    client, _ = replacing
    staff = "The team has 9 people in the shop."
    assert (
        upload(client, "sales.md", SALES.format(units=42, staff=staff).encode()).status_code == 201
    )
    units = cite(client, "sales", "How many units were sold in March?")
    people = cite(client, "sales", "How many people are in the team?")
    assert re.fullmatch(r"[0-9a-f]{64}", units["text_sha256"])
    stored = client.get("/sessions/sales/messages").json()["data"]
    assert [m["metadata"]["citations"] for m in stored if m["role"] == "assistant"] == [
        [units],
        [people],
    ]
    assert "42 units" in open_cited(client, units).json()["text"]

    # Another passage changed: the one quoted is still the document's, and opens.
    other = SALES.format(units=42, staff="The team has 11 people in the shop.").encode()
    assert upload(client, "sales.md", other).json()["status"] == "updated"
    assert "42 units" in open_cited(client, units).json()["text"]
    assert open_cited(client, people).json()["error"]["code"] == "passage_changed"

    # The quoted passage changed: told so (410), never shown the new text as the quote.
    newer = SALES.format(units=57, staff="The team has 11 people in the shop.").encode()
    assert upload(client, "sales.md", newer).json()["status"] == "updated"
    changed = open_cited(client, units)
    assert changed.status_code == 410, changed.text
    assert changed.json()["error"]["code"] == "passage_changed" and "57" not in changed.text
    # Asked for without the digest, the passage is the current version's (as before).
    assert "57 units" in open_cited(client, units, digest=False).json()["text"]
    path = f"/documents/{units['doc_id']}/chunks/{units['chunk_id']}"
    assert "57 units" in client.get(path, params={"text_sha256": ""}).json()["text"]
    for bad in ("null", units["text_sha256"].upper(), units["text_sha256"][:-1]):
        refused = client.get(path, params={"text_sha256": bad})
        assert refused.status_code == 422 and refused.json()["error"]["code"] == "validation_error"

    # The new version is shorter: the quoted passage is gone, and said to be changed.
    shorter = b"# Sales report\n\n## Units\n\nSales were 57 units in March.\n"
    assert upload(client, "sales.md", shorter).json()["status"] == "updated"
    assert open_cited(client, people).status_code == 410

    # The digest goes with the session through its JSON export and import.
    exported = client.get("/sessions/sales/export?format=json").json()
    imported = client.post("/sessions/import?session_id=sales-copy", json=exported)
    assert imported.status_code == 201, imported.text
    copied = client.get("/sessions/sales-copy/messages").json()["data"]
    assert copied[1]["metadata"]["citations"] == [units]
    assert open_cited(client, copied[1]["metadata"]["citations"][0]).status_code == 410


def without_digests(value):
    """The same JSON as a session stored before citations kept a digest of their text."""
    if isinstance(value, dict):
        return {k: without_digests(v) for k, v in value.items() if k != "text_sha256"}
    if isinstance(value, list):
        return [without_digests(v) for v in value]
    return value


def test_a_session_stored_before_digests_loads_and_opens_its_citations_as_before(replacing):
    client, services = replacing
    assert (
        upload(
            client, "sales.md", SALES.format(units=42, staff="Nine people.").encode()
        ).status_code
        == 201
    )
    cite(client, "today", "How many units were sold in March?")
    exported = client.get("/sessions/today/export?format=json").json()
    old_export = without_digests(exported)
    assert "text_sha256" not in json.dumps(old_export)
    imported = client.post("/sessions/import?session_id=old-export", json=old_export)
    assert imported.status_code == 201, imported.text
    sessions = ["old-export"]
    if isinstance(services.store, ConversationStore):
        # A session file as the JSON store wrote it before (the indented layout, no digest).
        session = services.store.get_session(
            tenant="default", caller_app="default", session_id="today"
        )
        old_file = without_digests(session.model_dump(mode="json")) | {"id": "old-file"}
        path = services.store.root / "default" / "default" / "old-file.json"
        path.write_text(json.dumps(old_file, indent=2), encoding="utf-8")
        sessions.append("old-file")
    assert (
        upload(
            client, "sales.md", SALES.format(units=57, staff="Nine people.").encode()
        ).status_code
        == 201
    )
    for session_id in sessions:
        messages = client.get(f"/sessions/{session_id}/messages")
        assert messages.status_code == 200, messages.text
        [citation] = messages.json()["data"][1]["metadata"]["citations"]
        assert citation["text_sha256"] is None
        # No digest to compare: the passage opens as it did before, at its current text.
        assert "57 units" in open_cited(client, citation).json()["text"]
        follow = client.post("/chat", json={"query": "How many units?", "thread_id": session_id})
        assert follow.status_code == 200, follow.text


def test_documents_page_in_id_order_reading_one_first_chunk_per_document(tmp_path):
    """Pages of `GET /documents` cover every document once, with its chunk count.

    A listing reads each document's first chunk, without its text: reading every chunk
    made it grow with the index (2.3 s at 17k chunks).
    """
    svc = make_services(tmp_path / "data", corpus=[])
    engine = svc.kb._engine  # noqa: SLF001 - to record what the listing reads
    real_metadatas = engine.metadatas
    read: list[dict] = []

    def recording_metadatas(flt, **kwargs):
        for meta in real_metadatas(flt, **kwargs):
            read.append(meta)
            yield meta

    engine.metadatas = recording_metadatas
    sections = {"d-alpha": 3, "c-beta": 1, "e-gamma": 2, "a-delta": 4, "b-epsilon": 1}
    try:
        with TestClient(create_app(svc)) as client:
            for doc_id, parts in sections.items():
                body = "".join(
                    f"## Part {i}\nPart {i} of {doc_id} says {i * 7} things.\n"
                    for i in range(parts)
                )
                assert upload(client, f"{doc_id}.md", body.encode()).status_code == 201
            # A new version with fewer chunks: only the live version's are counted.
            sections["d-alpha"] = 2
            body = "## One\nThe new alpha.\n## Two\nIts second part.\n"
            assert upload(client, "d-alpha.md", body.encode()).json()["status"] == "updated"
            read.clear()
            pages, offset = [], 0
            while True:
                page = client.get("/documents", params={"offset": offset, "limit": 2}).json()
                assert page["count"] == len(sections)
                if not page["data"]:
                    break
                pages.append([(d["doc_id"], d["chunks"]) for d in page["data"]])
                offset += 2
    finally:
        svc.close()
    assert [len(page) for page in pages] == [2, 2, 1]
    listed = [entry for page in pages for entry in page]
    assert listed == sorted(sections.items())
    # Four listings (three pages and the empty one past the end), a first chunk each
    # document, no text read.
    assert len(read) == 4 * len(sections)
    assert all("text" not in meta and meta["doc_id"] in sections for meta in read)
