# threadline: `make run` serves the API on the sample data, `make test` runs the suite.
.DEFAULT_GOAL := help
SHELL := /bin/bash

PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
PIP := $(BIN)/python -m pip
# Empty by default: `threadline serve` then reads THREADLINE_HOST / THREADLINE_PORT from the
# environment or .env (127.0.0.1:8000 unset); `make run PORT=8100` overrides both.
HOST ?=
PORT ?=
SERVE_ADDRESS = $(if $(HOST),--host $(HOST)) $(if $(PORT),--port $(PORT))
# The tiers, fastest first: a broken unit test is reported before the slow tiers start.
# `make test` ends with the 25 slowest steps, to keep the suite's time in view.
TEST_FILE ?= tests/unit tests/integration tests/e2e
# This machine keeps a CPU build of torch on disk; from PyPI alone pip would pull a CUDA build.
TORCH_LINKS := $(if $(wildcard /opt/wheels),--find-links /opt/wheels,)

.PHONY: help install run serve ingest test lint format bench clean

help: ## Show this help
	@grep -E '^[a-zA-Z0-9_-]+:.*?## ' $(MAKEFILE_LIST) | awk 'BEGIN {FS = ":.*?## "}; {printf "  %-16s %s\n", $$1, $$2}'

$(BIN)/.installed: pyproject.toml
	@echo "[1/3] virtual environment in $(VENV)"
	$(PYTHON) -m venv $(VENV)
	$(PIP) install --quiet --upgrade pip
	@echo "[2/3] torch (CPU build; the longest step on a cold cache)"
	$(PIP) install --quiet $(TORCH_LINKS) "torch==2.13.0"
	@echo "[3/3] threadline and its dependencies"
	$(PIP) install --quiet -e ".[dense,test]"
	@echo "installed: $(BIN)/threadline"
	touch $@

install: $(BIN)/.installed ## Create the virtual environment and install threadline

ingest: install ## Ingest the sample data (unchanged files are skipped)
	$(BIN)/threadline ingest data/sample

run: ingest ## Ingest the sample data and serve the API (127.0.0.1:8000, or THREADLINE_HOST/PORT, or HOST=/PORT=)
	$(BIN)/threadline serve $(SERVE_ADDRESS)

serve: install ## Serve the API without ingesting
	$(BIN)/threadline serve $(SERVE_ADDRESS)

# One process serves LangGraph's API (for Studio) and threadline's API (/chat, /sessions) from
# langgraph.json's http.app, so it owns the embedded index: use it instead of `make run`, not beside it.
STUDIO_PORT ?= 2024
.PHONY: studio
studio: ingest ## Ingest the sample data and run `langgraph dev` (Studio + the API) on $(STUDIO_PORT)
	LANGGRAPH_CLI_NO_ANALYTICS=1 LANGGRAPH_NO_VERSION_CHECK=true \
		$(BIN)/langgraph dev --port $(STUDIO_PORT) --no-browser

# The real-model tests need llama.cpp's server: built once per machine into
# ~/.cache/threadline (minutes of compiling the first time; tests/support/llama_server.py).
test: install ## Run every tier (installs chromium and postgresql, builds llama.cpp once)
	$(BIN)/python tests/support/browser.py
	$(BIN)/python tests/support/postgres.py
	$(BIN)/python tests/support/llama_server.py
	$(BIN)/python -m pytest --durations=25 $(TEST_FILE)

# The unit tier needs neither chromium nor postgresql: no server, process, socket or model.
.PHONY: test-fast test-integration test-e2e
test-fast: install ## Run the unit tier only (under a minute)
	$(BIN)/python -m pytest tests/unit

test-integration: install ## Run the integration tier (real engine, store, PostgreSQL, models)
	$(BIN)/python tests/support/postgres.py
	$(BIN)/python -m pytest tests/integration

test-e2e: install ## Run the e2e tier (real servers, the browser, Studio, a local model)
	$(BIN)/python tests/support/browser.py
	$(BIN)/python tests/support/postgres.py
	$(BIN)/python tests/support/llama_server.py
	$(BIN)/python -m pytest tests/e2e

lint: install ## Lint (ruff, docstrings included), check formatting, type-check src/ (mypy)
	$(BIN)/ruff check src tests benchmarks
	$(BIN)/ruff format --diff src tests benchmarks
	$(BIN)/mypy src

format: install ## Format with ruff
	$(BIN)/ruff format src tests benchmarks
	$(BIN)/ruff check --fix src tests benchmarks

MTRAG ?= ../shared/bench/mtrag
MTRAG_FR ?= ../shared/bench/mtrag-fr
ANSWERS ?= ../shared/bench/answers
RESULTS ?= benchmarks/results
# One MTRAG index for the English and French runs (same corpus, same embeddings).
BENCH_INDEX ?= data/bench/mtrag-index
LOAD_SECONDS ?= 180
# Index sizes (chunks) of the growth table: ingestion time by part and turn latency.
SCALE_SIZES ?= 10000,50000,100000,200000

# `python -m benchmarks` from this directory: the benchmarks are not in the installed
# package (benchmarks/README.md says why); `make` runs here, so they are importable.
bench: install ## Run every benchmark (over two hours on 2 shared cores); results in benchmarks/results
	mkdir -p $(RESULTS)
	rm -rf $(BENCH_INDEX)
	$(BIN)/python -m benchmarks retrieval --corpus $(MTRAG)/corpus.jsonl --tasks $(MTRAG)/dev.jsonl \
		--index-dir $(BENCH_INDEX) --out $(RESULTS)/mtrag-dev-run.jsonl --qrels $(MTRAG)/dev_qrels.tsv --score \
		| tee $(RESULTS)/mtrag-dev.txt
	$(BIN)/python -m benchmarks retrieval --corpus $(MTRAG)/corpus.jsonl --tasks $(MTRAG_FR)/dev.jsonl \
		--index-dir $(BENCH_INDEX) --out $(RESULTS)/mtrag-fr-dev-run.jsonl --qrels $(MTRAG_FR)/dev_qrels.tsv --score \
		| tee $(RESULTS)/mtrag-fr-dev.txt
	$(BIN)/python -m benchmarks models --out $(RESULTS)/models.json \
		--corpus $(MTRAG)/corpus.jsonl --tasks $(MTRAG)/dev.jsonl --tasks $(MTRAG_FR)/dev.jsonl
	$(BIN)/python -m benchmarks answers --corpus $(MTRAG)/corpus.jsonl --tasks $(ANSWERS)/dev.jsonl \
		--out $(RESULTS)/answers-dev-run.jsonl --score | tee $(RESULTS)/answers-dev.txt
	$(BIN)/python -m benchmarks answers-ceilings --corpus $(MTRAG)/corpus.jsonl --tasks $(ANSWERS)/dev.jsonl \
		--out $(BENCH_INDEX)-answers-ceilings-run.jsonl --results $(RESULTS)
	$(BIN)/python -m benchmarks llm --out $(RESULTS)/llm.json --limit 20 \
		--corpus $(MTRAG)/corpus.jsonl --tasks $(ANSWERS)/dev.jsonl
	$(BIN)/python -m benchmarks engine $(RESULTS)
	$(BIN)/python -m benchmarks engine $(RESULTS)/engine_scale.json \
		--sizes 10000,50000,200000 --engines edge --queries 200
	$(BIN)/python -m benchmarks history --out $(RESULTS)/history.json
	$(BIN)/python -m benchmarks conversations --tasks $(MTRAG)/dev.jsonl \
		--out $(RESULTS)/conversations.json
	$(BIN)/python -m benchmarks store --out $(RESULTS)/store.json
	$(BIN)/python -m benchmarks store --backend postgres --layouts one,many \
		--out $(RESULTS)/store-postgres.json
	$(BIN)/python -m benchmarks turns --out $(RESULTS)/turns.json
	$(BIN)/python -m benchmarks turns --sizes 10000 --turns 160 --http-seconds 0 \
		--ingest-chunks 0 --postgres --out $(RESULTS)/turns-postgres.json
	$(BIN)/python -m benchmarks scale --out $(RESULTS)/scale.json --sizes $(SCALE_SIZES)
	$(BIN)/python -m benchmarks document-routes --out $(RESULTS)/document-routes.json
	$(BIN)/python -m benchmarks load --out $(RESULTS)/load.json --duration $(LOAD_SECONDS)
	$(BIN)/python -m benchmarks load --out $(RESULTS)/load-sparse.json --duration 60 \
		--embeddings sparse
	$(BIN)/python -m benchmarks load --out $(RESULTS)/load-postgres.json \
		--duration $(LOAD_SECONDS) --backend postgres

clean: ## Remove the virtual environment and everything the service wrote
	rm -rf $(VENV) data/sessions data/qdrant data/catalog data/queries.sqlite3* data/bench \
		data/vocabulary data/ingest-journal data/server.json
