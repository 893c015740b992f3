"""On-disk state that fails or is damaged under a running service: what a user sees.

The session store is the record of a conversation; the queries log mirrors it for
debugging. A log that cannot be written (a damaged SQLite file, a full disk) must not
turn a stored turn, rating or choice into a 500 that says it was not saved: a client
that believes it and sends the question again stores it twice.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import psycopg
import pytest
from fastapi.testclient import TestClient

from support.server import Server, free_port, run_cli
from support.services import make_services
from threadline.api.main import create_app


def damage_queries_log(services) -> Path:
    """Replace the queries log by bytes SQLite does not read, as a damaged disk would."""
    services.querylog.close()  # its next write opens the file again
    path = services.settings.queries_log_path
    for side in path.parent.glob(f"{path.name}-*"):  # the WAL and its index
        side.unlink()
    path.write_bytes(b"not a database " * 400)
    return path


@pytest.fixture
def client(tmp_path: Path):
    services = make_services(tmp_path / "data")
    with TestClient(create_app(services), raise_server_exceptions=False) as test_client:
        test_client.services = services  # type: ignore[attr-defined]
        yield test_client
    services.close()


def test_a_stored_turn_is_answered_even_when_the_queries_log_cannot_be_written(client) -> None:
    first = client.post("/chat", json={"query": "What SLA applies to the enterprise plan?"})
    assert first.status_code == 200, first.text
    thread = first.json()["session_id"]
    damage_queries_log(client.services)

    second = client.post("/chat", json={"query": "And for P2?", "thread_id": thread})

    assert second.status_code == 200, second.text
    assert second.json()["outcome"] == "grounded_answer"
    stored = client.get(f"/sessions/{thread}/messages").json()["data"]
    assert [m["content"] for m in stored if m["role"] == "user"] == [
        "What SLA applies to the enterprise plan?",
        "And for P2?",
    ]
    assert stored[-1]["content"] == second.json()["answer"]


def test_ratings_regenerate_and_select_are_answered_when_the_log_cannot_be_written(
    client,
) -> None:
    reply = client.post("/chat", json={"query": "What SLA applies to the enterprise plan?"})
    thread = reply.json()["session_id"]
    answer_id = client.get(f"/sessions/{thread}/messages").json()["data"][-1]["id"]
    damage_queries_log(client.services)

    rated = client.post(
        f"/sessions/{thread}/messages/{answer_id}/feedback",
        json={"rating": "down", "reason": "incomplete"},
    )
    again = client.post(f"/sessions/{thread}/regenerate", json={})
    kept = client.post(f"/sessions/{thread}/messages/{answer_id}/select")

    assert rated.status_code == 200, rated.text
    assert again.status_code == 200, again.text
    assert kept.status_code == 200, kept.text
    stored = client.get(f"/sessions/{thread}/messages").json()["data"]
    first = next(m for m in stored if m["id"] == answer_id)
    assert [f["rating"] for f in first["metadata"]["feedback"]] == ["down"]
    answers = [m for m in stored if m["role"] == "assistant"]
    assert len(answers) == 2
    assert [bool(m["metadata"].get("superseded")) for m in answers] == [False, True]


def catalog_file(folder: Path, name: str, products: list[dict]) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{name}.json"
    path.write_text(json.dumps({"products": products}), encoding="utf-8")
    return path


GOOD_PRODUCT = {"id": "ok-1", "name": "Orbit Lamp", "brand": "Orbit", "price_usd": 40}


@pytest.mark.parametrize(
    "bad_product",
    [
        {"name": "Nova Phone", "price_usd": "call us"},
        {"name": "Nova Phone", "price_usd": None},
        {"name": "Nova Phone", "price_usd": 10, "specs": ["weight", 1]},
        {"name": "Nova Phone", "price_usd": 10, "release_year": "soon"},
    ],
    ids=["price-text", "price-null", "specs-list", "year-text"],
)
def test_ingesting_a_catalog_a_turn_cannot_read_is_refused_and_turns_keep_working(
    client, tmp_path: Path, bad_product: dict
) -> None:
    kb = client.services.kb
    bad = catalog_file(tmp_path / "in", "gadgets", [GOOD_PRODUCT, bad_product])

    report = kb.ingest_paths([bad])

    assert "product 2" in report.errors[str(bad)] and not report.catalogs
    assert [p.name for p in kb.catalog.products("default") if p.catalog == "gadgets"] == []
    for query in (
        "What SLA applies to the enterprise plan?",
        "Compare the MacBook Air and the Dell XPS 13",
    ):
        assert client.post("/chat", json={"query": query}).status_code == 200


def test_a_catalog_file_naming_a_key_twice_is_refused_and_nothing_stored(
    client, tmp_path: Path
) -> None:
    # Parsed with plain json.loads, the last "price_usd" won: a check or a tool that
    # read the first saw another price than the one turns then answered with.
    kb = client.services.kb
    folder = tmp_path / "in"
    folder.mkdir()
    dup = folder / "gadgets.json"
    dup.write_text(
        '{"products": [{"name": "Orbit Lamp", "price_usd": 10, "price_usd": 99}]}',
        encoding="utf-8",
    )

    report = kb.ingest_paths([dup])

    assert "price_usd" in report.errors[str(dup)] and not report.catalogs, report
    assert "Orbit Lamp" not in {p.name for p in kb.catalog.products("default")}


@pytest.mark.parametrize(
    "price", ["NaN", "1e999", "1" + "0" * 400, "1e308"], ids=["nan", "inf", "400-digits", "1e308"]
)
def test_a_catalog_price_no_store_keeps_or_no_product_has_is_refused(
    client, tmp_path: Path, price: str
) -> None:
    # A 400-digit integer stopped `ingest` with a traceback (float() overflowed) and
    # 1e308 was saved and quoted in full; NaN and 1e999 (infinity) stay refused.
    kb = client.services.kb
    folder = tmp_path / "in"
    folder.mkdir()
    huge = folder / "gadgets.json"
    huge.write_text(
        '{"products": [{"name": "Orbit Lamp", "price_usd": ' + price + "}]}", encoding="utf-8"
    )

    report = kb.ingest_paths([huge])

    assert re.search(r"price_usd|the number", report.errors[str(huge)]), report
    assert not report.catalogs
    assert "Orbit Lamp" not in {p.name for p in kb.catalog.products("default")}


def test_a_damaged_catalog_file_costs_its_products_only(client, tmp_path: Path) -> None:
    kb = client.services.kb
    damaged = catalog_file(tmp_path / "in", "gadgets", [GOOD_PRODUCT])
    kb.ingest_paths([damaged])
    stored = kb.catalog._dir("default") / "gadgets.json"  # noqa: SLF001
    stored.write_bytes(stored.read_bytes()[:20])  # cut short, as by a full disk or a bad copy

    products = client.post("/chat", json={"query": "Compare the MacBook Air and the Dell XPS 13"})
    documents = client.post("/chat", json={"query": "What SLA applies to the enterprise plan?"})

    assert products.status_code == 200, products.text
    assert products.json()["outcome"] == "tool_answer"  # the sample catalog still answers
    assert documents.status_code == 200, documents.text
    assert documents.json()["outcome"] == "grounded_answer"
    assert "Orbit Lamp" not in {p.name for p in kb.catalog.products("default")}
    assert stored.exists()  # kept for whoever repairs it, never deleted


def test_serve_on_a_damaged_queries_log_refuses_in_one_line_and_keeps_the_file(
    tmp_path: Path,
) -> None:
    data = tmp_path / "data"
    data.mkdir()
    damaged = data / "queries.sqlite3"
    damaged.write_bytes(b"not a database " * 400)

    port = str(free_port())
    result = run_cli(data, "serve", "--port", port, timeout=120, THREADLINE_LLM="offline")

    assert result.returncode == 1
    [line] = result.stderr.strip().splitlines()
    assert line.startswith(f"error: the queries log {damaged} is damaged")
    assert "move it aside" in line
    assert damaged.read_bytes() == b"not a database " * 400


def test_a_second_serve_on_a_held_index_without_server_json_refuses_in_one_line(
    tmp_path: Path,
) -> None:
    data = tmp_path / "data"
    data.mkdir()
    env = {"THREADLINE_EMBEDDINGS": "sparse", "THREADLINE_LLM": "offline"}
    first = Server(data, **env)
    try:
        (data / "server.json").unlink()  # lost: a crash of a wrapper, a manual clean-up

        result = run_cli(data, "serve", "--port", str(free_port()), timeout=120, **env)

        assert result.returncode == 3, (result.stdout, result.stderr)
        output = result.stdout + result.stderr
        [line] = [line for line in output.splitlines() if line.strip()]
        assert f"The index in {data} is held by process {first.process.pid}" in line
        assert "Traceback" not in output and "IndexLockedError" not in output
        assert first.chat(query="What SLA applies to the enterprise plan?")  # still serving
    finally:
        first.stop()


def test_on_postgresql_a_turn_is_answered_when_the_log_table_cannot_be_written(
    tmp_path: Path, pg_url: str
) -> None:
    services = make_services(tmp_path / "data", database_url=pg_url)
    try:
        with TestClient(create_app(services), raise_server_exceptions=False) as pg_client:
            first = pg_client.post(
                "/chat", json={"query": "What SLA applies to the enterprise plan?"}
            )
            thread = first.json()["session_id"]
            with psycopg.connect(pg_url, autocommit=True) as conn:
                conn.execute("ALTER TABLE queries_log RENAME TO queries_log_moved")

            second = pg_client.post("/chat", json={"query": "And for P2?", "thread_id": thread})
            answer_id = pg_client.get(f"/sessions/{thread}/messages").json()["data"][-1]["id"]
            rated = pg_client.post(
                f"/sessions/{thread}/messages/{answer_id}/feedback", json={"rating": "up"}
            )

            assert second.status_code == 200, second.text
            assert rated.status_code == 200, rated.text
            stored = pg_client.get(f"/sessions/{thread}/messages").json()["data"]
            assert [m["content"] for m in stored if m["role"] == "user"] == [
                "What SLA applies to the enterprise plan?",
                "And for P2?",
            ]
    finally:
        services.close()
