"""A document is replaced whole or not at all (issue 14, items 2 and 9).

A SIGKILL in the middle of an ingestion, and a document left incomplete by an older
crash. Concurrent uploads through a real server are in e2e/test_ingest_concurrent_uploads.py.
"""

from __future__ import annotations

import dataclasses
import os
import random
import signal
import subprocess
import time

import pytest

from support.server import CLI, server_env
from support.services import make_services, make_settings
from support.versioned_documents import assert_whole, versioned_document
from threadline.knowledge.documents import load_document
from threadline.knowledge.index import SearchFilters
from threadline.knowledge.versions import new_generation, write_journal
from threadline.services import Services

SPARSE = {"THREADLINE_EMBEDDINGS": "sparse", "THREADLINE_LLM": "offline"}


def stored_chunks(services, doc_id: str) -> tuple[list[str], list[int]]:
    chunks = services.kb.document_chunks(doc_id)
    return [c.text for c in chunks], [c.position for c in chunks]


def staged_count(services) -> int:
    from threadline.knowledge.index import STAGED_TENANT

    return services.kb.count(tenant=STAGED_TENANT)


@pytest.mark.parametrize("attempt", range(4))
def test_a_sigkill_during_ingestion_leaves_the_document_whole_or_absent(tmp_path, attempt):
    corpus, data_dir = tmp_path / "corpus", tmp_path / "data"
    corpus.mkdir()
    big = corpus / "big.md"
    if attempt % 2:  # an update of a document already there
        big.write_bytes(versioned_document(1, 900))
        make_services(data_dir, corpus=[corpus], embeddings="sparse").close()
    big.write_bytes(versioned_document(2, 1500))
    child = subprocess.Popen(
        [*CLI, "ingest", str(corpus)],
        env=server_env(data_dir, **SPARSE),
        cwd=tmp_path,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    journal = data_dir / "ingest-journal"
    deadline = time.monotonic() + 120
    while not (journal.is_dir() and any(journal.glob("*.json"))):
        assert child.poll() is None, "the ingestion ended before it was seen writing"
        assert time.monotonic() < deadline
        time.sleep(0.01)
    # A random point of the write (1,500 chunks take 1-3 s here), later with each attempt.
    time.sleep(0.35 * attempt + random.Random(attempt).uniform(0.0, 0.4))
    os.kill(child.pid, signal.SIGKILL)
    child.wait()

    services = make_services(data_dir, corpus=[], embeddings="sparse")  # start-up repairs
    try:
        texts, positions = stored_chunks(services, "big")
        if texts:
            version, _ = assert_whole(texts, positions)
            assert version in ({1, 2} if attempt % 2 else {2})
        else:
            assert attempt % 2 == 0, "an update lost the old version"
        assert staged_count(services) == 0
        assert not any(journal.glob("*.json"))
        # Ingesting the same file again repairs whatever was left.
        report = services.kb.ingest_paths([corpus])
        expected = "unchanged" if texts and version == 2 else ("updated" if texts else "added")
        outcomes = {"added": report.added, "updated": report.updated}
        outcomes["unchanged"] = report.unchanged
        assert {name: ids for name, ids in outcomes.items() if ids} == {expected: ["big"]}
        assert assert_whole(*stored_chunks(services, "big")) == (2, 1500)
        assert [d.chunks for d in services.kb.list_documents()] == [1500]
    finally:
        services.close()


def test_an_incomplete_document_is_re_ingested_on_the_next_upload(tmp_path):
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    (corpus / "doc.md").write_bytes(versioned_document(1, 40))
    services = make_services(tmp_path / "data", corpus=[corpus])
    try:
        # What a crash under the old code left: the first chunks, the rest never written.
        from qdrant_client import models

        flt = SearchFilters(tenant="default", doc_ids=("doc",)).to_qdrant()
        flt.must.append(models.FieldCondition(key="metadata.position", range=models.Range(gte=12)))
        services.kb._engine.delete_where(flt)
        assert len(services.kb.document_chunks("doc")) == 12
        report = services.kb.ingest_paths([corpus])
        assert report.updated == ["doc"] and not report.unchanged
        assert assert_whole(*stored_chunks(services, "doc")) == (1, 40)
    finally:
        services.close()


def test_a_delete_cut_short_is_finished_on_the_next_open_and_spares_a_later_upload(tmp_path):
    # What a crash in the middle of a delete leaves: the delete's journal entry, written
    # before its first chunk went, and the document's chunks (all or some of them).
    data = tmp_path / "data"
    services = make_services(data)
    kb = services.kb
    gone, kept = sorted(d.doc_id for d in kb.list_documents())[:2]
    for doc_id in (gone, kept):
        journal = kb._journal_path("default", doc_id)
        write_journal(journal, "default", doc_id, new_generation(), deleting=True)
    # `kept` is uploaded again after its delete began: a newer version, not the deleted one.
    upload = tmp_path / "kept.md"
    upload.write_text("# Kept\n\nA version written after the delete.\n", encoding="utf-8")
    doc = load_document(upload)
    kb.ingest_document(dataclasses.replace(doc, doc_id=kept))
    services.close()

    reopened = Services(make_settings(data))
    try:
        assert sorted(d.doc_id for d in reopened.kb.list_documents()).count(gone) == 0
        texts = [c.text for c in reopened.kb.document_chunks(kept)]
        assert texts and all("after the delete" in text for text in texts), texts
        assert not list((data / "ingest-journal").glob("*"))
    finally:
        reopened.close()
