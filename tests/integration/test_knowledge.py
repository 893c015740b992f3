"""Ingestion into the real index: deterministic ids, idempotence, replacement, pruning, search.

Chunking a document alone is in unit/test_chunking.py.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from support.markdown import DOC, write
from support.services import make_services
from threadline.knowledge.embeddings import load_dense_model
from threadline.knowledge.index import SearchFilters


def test_ingest_is_idempotent_replaces_changed_files_and_prunes(tmp_path):
    corpus = tmp_path / "corpus"
    write(corpus / "hr" / "travel.md", DOC)
    write(corpus / "notes.txt", "The office closes at 6 pm on Fridays.")
    services = make_services(tmp_path / "data", corpus=[corpus])
    kb = services.kb
    try:
        docs = {d.doc_id: d.chunks for d in kb.list_documents()}
        assert docs == {"hr-travel": 3, "notes": 1}

        report = kb.ingest_paths([corpus])
        assert report.unchanged == ["hr-travel", "notes"] and report.chunks_written == 0

        write(corpus / "hr" / "travel.md", DOC.replace("40 euros", "55 euros"))
        report = kb.ingest_paths([corpus])
        assert report.updated == ["hr-travel"] and report.unchanged == ["notes"]
        hits = kb.search("meals reimbursed", k=3, filters=SearchFilters(tenant="default"))
        assert "55 euros" in hits[0].chunk.text
        assert kb.count() == 4  # the old chunks were replaced, not added to

        (corpus / "notes.txt").unlink()
        report = kb.ingest_paths([corpus], prune=True)
        assert report.removed == ["notes"]
        assert [d.doc_id for d in kb.list_documents()] == ["hr-travel"]
    finally:
        services.close()


def test_prune_keeps_a_document_whose_file_is_there_but_unreadable(tmp_path):
    # A file that failed to load gave no id, so prune took its document for one whose
    # file is gone and deleted it: a notes file saved as Latin-1 lost its stored text.
    corpus = tmp_path / "corpus"
    write(corpus / "hr" / "travel.md", DOC)
    write(corpus / "notes.txt", "The office closes at 6 pm on Fridays.")
    services = make_services(tmp_path / "data", corpus=[corpus])
    kb = services.kb
    try:
        (corpus / "notes.txt").write_bytes("The café closes at 6 pm.".encode("latin-1"))
        report = kb.ingest_paths([corpus], prune=True)
        assert list(report.errors) == [str(corpus / "notes.txt")] and report.removed == []
        assert [d.doc_id for d in kb.list_documents()] == ["hr-travel", "notes"]
        hits = kb.search("office closes", k=1, filters=SearchFilters(tenant="default"))
        assert "6 pm on Fridays" in hits[0].chunk.text
        (corpus / "notes.txt").unlink()  # gone now: pruned
        assert kb.ingest_paths([corpus], prune=True).removed == ["notes"]
    finally:
        services.close()


def test_document_titles_follow_every_write(tmp_path):
    """Named-document turns match these titles; the kept list must change with the index."""
    corpus = tmp_path / "corpus"
    write(corpus / "hr" / "travel.md", DOC)
    write(corpus / "notes.txt", "The office closes at 6 pm on Fridays.")
    services = make_services(tmp_path / "data", corpus=[corpus])
    kb = services.kb
    try:
        listed = [(d.doc_id, d.title, d.source) for d in kb.list_documents()]
        assert kb.document_titles() == listed and [t[0] for t in listed] == ["hr-travel", "notes"]
        assert kb.document_titles(tenant="acme") == []

        write(corpus / "hr" / "travel.md", DOC.replace("title: Travel policy", "title: Trips"))
        kb.ingest_paths([corpus])
        assert ("hr-travel", "Trips", "hr") in kb.document_titles()

        kb.delete_document("notes")
        assert [t[0] for t in kb.document_titles()] == ["hr-travel"]
        assert kb.document_titles() == [(d.doc_id, d.title, d.source) for d in kb.list_documents()]
    finally:
        services.close()


def test_bad_file_is_reported_and_others_still_ingest(tmp_path):
    corpus = tmp_path / "corpus"
    write(corpus / "good.md", "## A\nAlpha text.")
    (corpus / "bad.md").write_bytes(b"\xff\xfe\x00 not utf-8")
    write(corpus / "data.json", '{"not": "a catalog"}')
    services = make_services(tmp_path / "data", corpus=[])
    try:
        report = services.kb.ingest_paths([corpus])
        assert report.added == ["good"]
        assert set(map(Path, report.errors)) == {corpus / "bad.md", corpus / "data.json"}
    finally:
        services.close()


def test_tenants_and_sources_filter_search(tmp_path):
    corpus = tmp_path / "corpus"
    write(corpus / "a.md", "---\nsource: alpha\n---\n## Pricing\nThe alpha plan costs 10 dollars.")
    write(corpus / "b.md", "---\nsource: beta\n---\n## Pricing\nThe beta plan costs 20 dollars.")
    services = make_services(tmp_path / "data", corpus=[corpus])
    kb = services.kb
    try:
        kb.ingest_paths([corpus / "a.md"], tenant="other")
        default = kb.search("plan costs", k=5, filters=SearchFilters(tenant="default"))
        assert {h.chunk.doc_id for h in default} == {"a", "b"}
        only_beta = kb.search(
            "plan costs", k=5, filters=SearchFilters(tenant="default", sources=("beta",))
        )
        assert {h.chunk.doc_id for h in only_beta} == {"b"}
        other = kb.search("plan costs", k=5, filters=SearchFilters(tenant="other"))
        assert {h.chunk.doc_id for h in other} == {"a"}
        assert kb.count(tenant="other") == 1
    finally:
        services.close()


@pytest.mark.dense
def test_hybrid_embeddings_find_paraphrases(tmp_path):
    corpus = tmp_path / "corpus"
    write(
        corpus / "a.md",
        "## Refunds\nCustomers may return a device within 30 days for a full refund.",
    )
    write(corpus / "b.md", "## Parking\nStaff park in the north lot after 8 am.")
    services = make_services(tmp_path / "data", corpus=[corpus], embeddings="hybrid")
    try:
        assert services.kb.embedding_name == "hybrid"
        hits = services.kb.search(
            "can I send back a phone I bought?", k=2, filters=SearchFilters(tenant="default")
        )
        assert hits[0].chunk.doc_id == "a"
    finally:
        services.close()


@pytest.mark.dense
def test_batched_search_ranks_as_single_searches_with_one_minilm_call(tmp_path):
    import numpy as np

    services = make_services(tmp_path / "data", embeddings="hybrid")
    try:
        kb = services.kb
        dense = load_dense_model()  # the process-wide model the index uses
        queries = [
            "What SLA applies to the enterprise plan?",
            "SLA enterprise plan P2 incidents",
            "",
            "rapport annuel 2024 chiffre d'affaires",
        ]
        flt = SearchFilters(tenant="default")
        singles = [kb.search(q, k=5, filters=flt) for q in queries]
        calls = []
        original = dense.embed_query_batch
        object.__setattr__(dense, "embed_query_batch", lambda t: calls.append(t) or original(t))
        try:
            batched = kb.search_many(queries, k=5, filters=flt)
        finally:
            object.__delattr__(dense, "embed_query_batch")
        # One call into the model for the batch (its passes grouped by length inside).
        assert calls == [[q for q in queries if q]]
        assert batched[2] == []
        for got, want in zip(batched, singles, strict=True):
            assert [h.chunk.chunk_id for h in got] == [h.chunk.chunk_id for h in want]
        # A query embedded in a batch is the vector embed_query makes (up to padding).
        vectors = dense.embed_query_batch(queries[:2])
        assert np.allclose(vectors[1], dense.embed_query(queries[1]), atol=1e-5)
    finally:
        services.close()


def test_document_info_reads_one_payload_and_agrees_with_the_listing(tmp_path):
    """The answer to an upload reads the document's first chunk, not all of its chunks."""
    corpus = tmp_path / "corpus"
    write(corpus / "hr" / "travel.md", DOC)
    services = make_services(tmp_path / "data", corpus=[corpus])
    kb = services.kb
    try:
        read: list[dict] = []
        metadatas = kb._engine.metadatas

        def counting(flt, **kwargs):
            for meta in metadatas(flt, **kwargs):
                read.append(meta)
                yield meta

        kb._engine.metadatas = counting
        info = kb.document_info("hr-travel")
        assert len(read) == 1
        del kb._engine.metadatas
        assert [info] == kb.list_documents() and info.chunks == 3
        assert kb.document_info("missing") is None
    finally:
        services.close()
