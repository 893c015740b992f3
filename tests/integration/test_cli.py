"""The `threadline` command: ingest, chat, sessions, log."""

from __future__ import annotations

import fnmatch
import json
import re

import pytest
from typer.testing import CliRunner

from support.paths import ROOT, SAMPLE
from threadline.cli import app
from threadline.settings import get_settings


@pytest.fixture
def runner(tmp_path, monkeypatch):
    monkeypatch.setenv("THREADLINE_DATA_DIR", str(tmp_path))
    monkeypatch.setenv("THREADLINE_EMBEDDINGS", "sparse")
    monkeypatch.setenv("THREADLINE_LLM", "offline")
    monkeypatch.chdir(tmp_path)  # no developer .env
    get_settings.cache_clear()
    yield CliRunner()
    get_settings.cache_clear()


def test_make_clean_removes_everything_ingest_and_chat_wrote(runner, tmp_path):
    """`make clean` says it removes everything the service wrote under data/: it does.

    It left the vocabulary files, the ingest journal and the server's address behind.
    """
    assert runner.invoke(app, ["ingest", str(SAMPLE)]).exit_code == 0
    chat = runner.invoke(app, ["chat", "--thread-id", "clean-1", "-m", "What is the warranty?"])
    assert chat.exit_code == 0, chat.output
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    recipe = makefile.split("\nclean: ", 1)[1].split("\n\n", 1)[0]
    removed = re.findall(r"\bdata/(\S+)", recipe)
    written = sorted(path.name for path in tmp_path.iterdir())  # the data dir (runner)
    assert written, "ingest and chat wrote nothing"
    left = [name for name in written if not any(fnmatch.fnmatch(name, p) for p in removed)]
    assert left == []
    assert "server.json" in removed  # written by `threadline serve`, not by this test


def test_ingest_chat_sessions_and_log(runner):
    result = runner.invoke(app, ["ingest", str(SAMPLE)])
    assert result.exit_code == 0, result.output
    assert "added 4" in result.output and "catalogs 1" in result.output
    again = runner.invoke(app, ["ingest", str(SAMPLE)])
    assert "unchanged 4" in again.output

    chat = runner.invoke(
        app,
        [
            "chat",
            "--thread-id",
            "cli-1",
            "-m",
            "Résume le rapport annuel 2024",
            "-m",
            "Détaille S2",
        ],
    )
    assert chat.exit_code == 0, chat.output
    assert "SUIVI" in chat.output and "followup=section:S2" in chat.output

    listing = runner.invoke(app, ["sessions", "list"])
    assert "cli-1" in listing.output and "1 session(s)" in listing.output
    shown = runner.invoke(app, ["sessions", "show", "cli-1"])
    assert len(json.loads(shown.output)["messages"]) == 4

    log = runner.invoke(app, ["log", "--thread", "cli-1", "--json"])
    rows = [json.loads(line) for line in log.output.splitlines()]
    assert [r["followup_section_id"] for r in rows] == [None, "S2"]
    assert rows[1]["followup_method"] == "deterministic" and rows[1]["llm_calls"] == 1

    deleted = runner.invoke(app, ["sessions", "delete", "cli-1"])
    assert deleted.exit_code == 0
    assert runner.invoke(app, ["sessions", "show", "cli-1"]).exit_code == 1


def test_ingest_missing_path_fails_clearly(runner, tmp_path):
    result = runner.invoke(app, ["ingest", str(tmp_path / "nope")])
    assert result.exit_code == 2
    assert "no such file or directory" in result.output


def test_tables_never_cut_ids_or_ellipsise(runner):
    assert runner.invoke(app, ["ingest", str(SAMPLE)]).exit_code == 0
    thread = "sess_20261123094512_a1b2c3d4e5f6a7b8c9d0e1f2"
    question = "What does the security handbook say about device encryption at rest?"
    chat = runner.invoke(app, ["chat", "--thread-id", thread, "-m", question])
    assert chat.exit_code == 0, chat.output
    listing = runner.invoke(app, ["sessions", "list"], terminal_width=80)
    assert thread in listing.output, listing.output
    log = runner.invoke(app, ["log", "--thread", thread], terminal_width=80)
    assert "…" not in log.output, log.output
    assert "device" in log.output


def test_with_keys_on_serve_says_how_to_ingest_for_a_tenant(runner, tmp_path):
    from threadline.auth import ApiKeyEntry, hash_key
    from threadline.cli import tenants_hint

    assert tenants_hint(get_settings()) is None
    settings = get_settings().model_copy(
        update={"api_keys": [ApiKeyEntry(sha256=hash_key("tl_x"), tenant="acme")]}
    )
    hint = tenants_hint(settings)
    assert "acme" in hint and "--tenant" in hint and '"default"' in hint
    assert "--tenant" in runner.invoke(app, ["ingest", "--help"]).output


def test_serve_refuses_a_key_configured_twice_in_one_line(runner, tmp_path, monkeypatch):
    from threadline.auth import ApiKeyEntry, hash_key

    digest = hash_key("tl_shared")
    inline = ApiKeyEntry(name="acme-web", sha256=digest, tenant="acme")
    monkeypatch.setenv("THREADLINE_API_KEYS", json.dumps([inline.model_dump()]))
    keys_file = tmp_path / "keys.jsonl"
    keys_file.write_text(
        ApiKeyEntry(name="globex-web", sha256=digest, tenant="globex").model_dump_json() + "\n",
        encoding="utf-8",
    )
    monkeypatch.setenv("THREADLINE_API_KEYS_FILE", str(keys_file))
    get_settings.cache_clear()
    result = runner.invoke(app, ["serve", "--port", "1"])
    assert result.exit_code == 1, result.output
    assert "configured twice" in result.output and "'globex'" in result.output
    assert "Traceback" not in result.output


@pytest.mark.timeout(120)  # without the check, serve started and served everyone
@pytest.mark.parametrize(
    ("content", "said"),
    [(None, "cannot be read"), ('{"sha256": "ab", "tenant": "acme"}\n', "line 1, is not a key")],
)
def test_serve_refuses_a_keys_file_it_cannot_use_in_one_line(
    runner, tmp_path, monkeypatch, content, said
):
    # A named keys file that did not exist served everyone as the local tenant, with no
    # key and no warning; a line that was not a key ended in a traceback.
    keys_file = tmp_path / "keys.jsonl"
    if content is not None:
        keys_file.write_text(content, encoding="utf-8")
    monkeypatch.setenv("THREADLINE_API_KEYS_FILE", str(keys_file))
    get_settings.cache_clear()
    result = runner.invoke(app, ["serve", "--port", "1"])
    assert result.exit_code == 1, result.output
    assert said in result.output and "keys.jsonl" in result.output
    assert "Traceback" not in result.output and len(result.output.strip().splitlines()) == 1


@pytest.mark.parametrize(
    "args",
    [
        ["sessions", "show", "x", "--tenant", "../etc"],
        ["sessions", "delete", "x", "--caller-app", "a/b"],
        ["sessions", "export", "x", "--tenant", "t\u0435nant"],  # a Cyrillic "e"
        ["sessions", "show", "../../passwd"],
        ["sessions", "export", "..", "--format", "json"],
        ["sessions", "delete", ""],
        ["sessions", "import", "export.json", "--tenant", "a\\b"],
        ["sessions", "list", "--caller-app", ""],
        ["conversations", "search", "hello", "--tenant", "a/b"],
        ["ingest", "doc.md", "--tenant", "../other"],
    ],
)
def test_an_invalid_id_on_the_command_line_is_one_line_not_a_traceback(runner, args):
    # These ids reached the store unchecked and ended in an InvalidIdError traceback.
    from pathlib import Path

    Path("export.json").write_text(
        '{"session": {"id": "x", "created_at": '
        '"2024-01-01T00:00:00Z", "updated_at": "2024-01-01T00:00:00Z"}}'
    )
    Path("doc.md").write_text("# Doc\n\nSome text.\n")
    result = runner.invoke(app, args)
    assert result.exit_code == 2, (args, result.output, result.exception)
    assert not isinstance(result.exception, Exception) or isinstance(
        result.exception, SystemExit
    ), result.exception
    assert "Traceback" not in result.output and "Invalid value" in result.output, result.output
    assert not any(Path(".").rglob("*.json.lock")) and not Path("../etc").exists()


def test_an_export_to_an_unwritable_path_says_so_in_one_line(runner, tmp_path):
    assert runner.invoke(app, ["sessions", "import", _write_export(tmp_path)]).exit_code == 0
    for out in (tmp_path, tmp_path / "missing-dir" / "x.md"):
        result = runner.invoke(app, ["sessions", "export", "exp-1", "--out", str(out)])
        assert result.exit_code == 1, (out, result.output, result.exception)
        assert isinstance(result.exception, SystemExit), result.exception
        assert "cannot write" in result.output


def _write_export(tmp_path) -> str:
    path = tmp_path / "exp.json"
    path.write_text(
        json.dumps(
            {
                "session": {
                    "id": "exp-1",
                    "created_at": "2024-01-01T00:00:00Z",
                    "updated_at": "2024-01-01T00:00:00Z",
                }
            }
        )
    )
    return str(path)


@pytest.mark.parametrize(
    "lax",
    [
        {"created_at": 1704067200},  # a time as a number
        {"title": 7},  # a title as a number
    ],
)
def test_sessions_import_refuses_what_the_api_import_refuses(runner, tmp_path, lax):
    # The API reads an export strictly; the CLI read it laxly and stored these.
    from fastapi.testclient import TestClient

    from support.services import make_services
    from threadline.api.main import create_app

    session = {
        "id": "lax-1",
        "created_at": "2024-01-01T00:00:00Z",
        "updated_at": "2024-01-01T00:00:00Z",
        **lax,
    }
    path = tmp_path / "lax.json"
    path.write_text(json.dumps({"session": session}), encoding="utf-8")
    result = runner.invoke(app, ["sessions", "import", str(path)])
    assert result.exit_code == 2, result.output
    assert "not a threadline session export" in result.output
    assert "lax-1" not in runner.invoke(app, ["sessions", "list"]).output
    services = make_services(tmp_path / "api", corpus=[], embeddings="sparse")
    with TestClient(create_app(services)) as client:
        refused = client.post("/sessions/import", content=path.read_bytes())
    services.close()
    assert refused.status_code == 422, refused.text
