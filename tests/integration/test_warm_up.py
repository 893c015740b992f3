"""The start-up warm-up: what a first question needs is loaded before the app takes one.

Checked in a fresh child process (what a test process loaded earlier would hide what the
warm-up did): the app's lifespan runs over a real index of the sample data, then the
first question is asked through `POST /chat`.
"""

from __future__ import annotations

import json
import sqlite3
from contextlib import closing

from support.children import run_python_reporting_json
from support.services import make_services

# The child: start the app (its lifespan warms up), look at what is loaded, ask one
# question, and report what that first question still had to load.
FIRST_QUESTION = r"""
import json, sys
from fastapi.testclient import TestClient
from lemminflect import Lemmatizer
from support.services import make_settings
from threadline.api.main import create_app
from threadline.followups.matching import compile_lexicons
from threadline.services import Services

services = Services(make_settings(sys.argv[1]))
app = create_app(services)
with TestClient(app) as client:
    lemmas_loaded = hasattr(Lemmatizer(), "lemma_dict")  # read on the first lookup
    lexicons = compile_lexicons.cache_info().currsize
    # Each tenant's tables a turn reads, kept until its next write.
    tables = {"titles": sorted(services.kb._titles), "languages": sorted(services.kb._languages)}
    before = set(sys.modules)
    asked = {"query": "Résume le rapport annuel 2024", "thread_id": "asked"}
    response = client.post("/chat", json=asked)
    imported = sorted(set(sys.modules) - before)
    report = {
        "status": response.status_code,
        "lemmas_loaded": lemmas_loaded,
        "lexicons_before": lexicons,
        "tenant_tables": tables,
        "lexicons_after": compile_lexicons.cache_info().currsize,
        "imported_by_first_turn": imported,
        "langchain_openai_loaded": "langchain_openai" in sys.modules,
        "warm_up_turns": app.state.warm_up.turns,
        "warm_up_errors": app.state.warm_up.errors,
    }
services.close()
print(json.dumps(report))
"""


def test_first_question_finds_its_tables_loaded_and_imports_nothing(tmp_path):
    data_dir = tmp_path / "data"
    make_services(data_dir).close()  # the sample data, indexed

    seen = run_python_reporting_json("-c", FIRST_QUESTION, str(data_dir))

    assert seen["status"] == 200
    assert seen["warm_up_turns"] > 0 and seen["warm_up_errors"] == []
    # lemminflect's tables (0.7 s to read) and the follow-up lexicons' patterns.
    assert seen["lemmas_loaded"]
    assert seen["lexicons_before"] > 0
    assert seen["lexicons_after"] == seen["lexicons_before"]
    # The tenant's documents' titles (a scan of its chunks, 0.2 s at 10k) and languages.
    assert seen["tenant_tables"] == {"titles": ["default"], "languages": ["default"]}
    assert seen["imported_by_first_turn"] == []
    # Neither the warm-up nor the question imported what only a model server's client
    # needs (langchain_openai: 0.3 s and tiktoken's tables).
    assert not seen["langchain_openai_loaded"]


def test_warm_up_turns_leave_nothing_in_the_store_or_the_queries_log(tmp_path):
    data_dir = tmp_path / "data"
    make_services(data_dir).close()

    seen = run_python_reporting_json("-c", FIRST_QUESTION, str(data_dir))

    assert seen["warm_up_turns"] > 0
    # Only the question asked is kept: the warm-up's conversations were a scratch store's.
    sessions = sorted(p.name for p in (data_dir / "sessions").rglob("*.json"))
    assert sessions == ["asked.json"], sessions
    with closing(sqlite3.connect(data_dir / "queries.sqlite3")) as db:
        rows = db.execute("SELECT question FROM queries_log").fetchall()
    assert rows == [("Résume le rapport annuel 2024",)], json.dumps(rows)
