"""A sentence-transformers model run by ONNX Runtime: the same vectors, a third of the time.

A turn embeds one short query, and on 2 CPU cores PyTorch spends about 10 ms on it,
more than half of a turn without an LLM; ONNX Runtime computes the same vectors
(within 1e-6) in about 3 ms. The model is exported from the local sentence-transformers
directory once, with PyTorch, to a cache file keyed by the model's files, and later
processes load the file without importing PyTorch at all.

Only the pipeline the bundled model uses is supported here: a BERT-like transformer,
mean pooling, then L2 normalisation (`modules.json`); `onnx_model_supported` says
whether a directory matches, and anything else runs through PyTorch.

Two faster variants are made from the same model, for ingestion at scale (the README's
bake-off has their speed and quality):

- "fused": exported with plain (eager) attention, whose graph ONNX Runtime's transformer
  optimizer rewrites into its fused BERT operators (attention, embedding + layer norm,
  skip layer norm, bias + GELU); the same vectors within float rounding.
- "int8": the fused graph with its weights quantised to 8 bits per output channel
  (dynamic quantisation: activations are quantised on the fly), a cosine of about 0.99
  to the full model's vectors.

Every file is made once per machine under a lock file (one process makes it, the others
wait and reuse it), written to a temporary file and renamed into place.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import tempfile
import threading
import time
import warnings
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Literal

import numpy as np
from filelock import FileLock
from langchain_core.embeddings import Embeddings

_PIPELINE = [
    "sentence_transformers.models.Transformer",
    "sentence_transformers.models.Pooling",
    "sentence_transformers.models.Normalize",
]
_INPUTS = ("input_ids", "attention_mask", "token_type_ids")
_EXPORT_LOCK = threading.Lock()

logger = logging.getLogger(__name__)

OnnxVariant = Literal["full", "fused", "int8"]
"""Which graph runs: the plain export, its fused rewrite, or the fused one in int8."""
_SUFFIXES: dict[str, str] = {"full": "", "fused": "-fused", "int8": "-fused-int8"}


def onnx_model_supported(model_dir: Path) -> bool:
    """Whether the model is transformer → mean pooling → normalise, which this module runs."""
    try:
        modules = json.loads((model_dir / "modules.json").read_text(encoding="utf-8"))
        pooling_dir = next(m["path"] for m in modules if m["type"].endswith("Pooling"))
        pooling = json.loads((model_dir / pooling_dir / "config.json").read_text("utf-8"))
    except (OSError, ValueError, KeyError, StopIteration):
        return False
    modes = {k for k, v in pooling.items() if k.startswith("pooling_mode") and v}
    return [m["type"] for m in modules] == _PIPELINE and modes == {"pooling_mode_mean_tokens"}


def model_max_tokens(model_dir: Path) -> int:
    """Return the word pieces a sentence-transformers model reads (`max_seq_length`)."""
    config = json.loads((model_dir / "sentence_bert_config.json").read_text("utf-8"))
    return int(config.get("max_seq_length", 256))


def default_cache_dir() -> Path:
    """Where exported models go: `$XDG_CACHE_HOME/threadline` (or `~/.cache/threadline`)."""
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "threadline"


def _model_digest(model_dir: Path) -> str:
    """Return a key for the export: the model's files (names, sizes, mtimes) and the exporter."""
    import onnxruntime

    digest = hashlib.sha256(f"v1 onnxruntime {onnxruntime.__version__}".encode())
    for path in sorted(p for p in model_dir.rglob("*") if p.is_file()):
        stat = path.stat()
        digest.update(f"{path.relative_to(model_dir)} {stat.st_size} {stat.st_mtime_ns}".encode())
    return digest.hexdigest()[:16]


@contextmanager
def _atomic_file(target: Path) -> Iterator[str]:
    """Yield a temporary path beside `target`, renamed to it if the block succeeds.

    Concurrent writers, or a crash half-way, never leave a truncated model behind.
    """
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=target.name, suffix=".tmp")
    os.close(fd)
    try:
        yield tmp
        os.replace(tmp, target)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)


def export_onnx(model_dir: Path, target: Path, *, eager_attention: bool = False) -> None:
    """Export the transformer of a sentence-transformers directory to ONNX (needs PyTorch).

    Args:
        model_dir: The sentence-transformers directory.
        target: The `.onnx` file to write (a temporary file renamed into place).
        eager_attention: Export attention as plain matrix products and a softmax rather
            than PyTorch's fused kernel, the pattern ONNX Runtime's optimizer fuses.
    """
    import torch
    from transformers import AutoModel, AutoTokenizer

    options = {"attn_implementation": "eager"} if eager_attention else {}
    model = AutoModel.from_pretrained(str(model_dir), **options).eval()
    tokenizer = AutoTokenizer.from_pretrained(str(model_dir))

    class LastHiddenState(torch.nn.Module):
        def __init__(self, inner: torch.nn.Module) -> None:
            super().__init__()
            self.inner = inner

        def forward(  # noqa: D102
            self,
            input_ids: torch.Tensor,
            attention_mask: torch.Tensor,
            token_type_ids: torch.Tensor,
        ) -> torch.Tensor:
            out = self.inner(
                input_ids=input_ids, attention_mask=attention_mask, token_type_ids=token_type_ids
            )
            return out.last_hidden_state

    sample = tokenizer(["an example query"], return_tensors="pt")
    with _atomic_file(target) as tmp, torch.inference_mode(), warnings.catch_warnings():
        # The tracer's notes on shape-dependent Python branches: the exported graph
        # is checked against PyTorch on padded batches of other lengths in the tests.
        warnings.simplefilter("ignore")
        torch.onnx.export(
            LastHiddenState(model),
            tuple(sample[name] for name in _INPUTS),
            tmp,
            input_names=list(_INPUTS),
            output_names=["last_hidden_state"],
            dynamic_axes={
                name: {0: "batch", 1: "tokens"} for name in (*_INPUTS, "last_hidden_state")
            },
            opset_version=17,
            dynamo=False,
        )


def export_fused(model_dir: Path, target: Path) -> None:
    """Export with eager attention and rewrite the graph into ONNX Runtime's BERT operators.

    The fused operators compute the same function in fewer, larger kernels (one
    attention operator per layer instead of a dozen nodes). Measured on MTRAG passages:
    6% less CPU than the plain export at full precision, but the 8-bit copy made from
    this graph runs 1.3x faster than one made from the plain export.
    """
    from onnxruntime.transformers.optimizer import optimize_model

    config = json.loads((model_dir / "config.json").read_text(encoding="utf-8"))
    target.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=target.parent, prefix=target.name) as work:
        eager = Path(work) / "eager.onnx"  # an intermediate, not kept
        export_onnx(model_dir, eager, eager_attention=True)
        fused = optimize_model(
            str(eager),
            model_type="bert",
            num_heads=int(config["num_attention_heads"]),
            hidden_size=int(config["hidden_size"]),
        )
        with _atomic_file(target) as tmp:
            fused.save_model_to_file(tmp)


def quantize_int8(source: Path, target: Path) -> None:
    """Quantise a model's weights to 8 bits, one scale per output channel.

    Per-channel scales keep a cosine of about 0.99 to the full model's vectors on MTRAG
    passages; one scale per tensor (the default) dropped it to about 0.95.
    """
    import onnx
    from onnxruntime.quantization import QuantType, quantize_dynamic

    with _atomic_file(target) as tmp:
        quantize_dynamic(
            source,
            tmp,
            weight_type=QuantType.QInt8,
            per_channel=True,
            # The fused operators are ONNX Runtime's own, which ONNX shape inference does
            # not know: their outputs are float tensors.
            extra_options={"DefaultTensorType": onnx.TensorProto.FLOAT},
        )


def prepare_onnx_model(
    model_dir: Path, cache_dir: Path, variant: OnnxVariant = "full", *, rebuild: bool = False
) -> Path:
    """Return the cached ONNX file of a model variant, making it on first use.

    Files are keyed by the model's files and ONNX Runtime's version; "int8" is made from
    "fused", itself exported from the model. One process makes them, under a lock file
    beside the full export; the others wait for it and then reuse them.

    Args:
        model_dir: The sentence-transformers directory.
        cache_dir: Where the files are kept.
        variant: Which graph (see `OnnxVariant`).
        rebuild: Make the variant (and the fused graph it comes from) again, for a
            damaged file.
    """
    stem = f"{model_dir.parent.name}-{model_dir.name}-{_model_digest(model_dir)}"
    target = cache_dir / f"{stem}{_SUFFIXES[variant]}.onnx"
    if target.exists() and not rebuild:
        return target
    cache_dir.mkdir(parents=True, exist_ok=True)
    with _EXPORT_LOCK, FileLock(str(cache_dir / f"{stem}.lock")):
        if target.exists() and not rebuild:
            return target  # another process made it while this one waited
        if variant == "full":
            _timed(export_onnx, model_dir, target)
            return target
        fused = cache_dir / f"{stem}{_SUFFIXES['fused']}.onnx"
        if rebuild or not fused.exists():
            _timed(export_fused, model_dir, fused)
        if variant == "int8":
            _timed(quantize_int8, fused, target)
    return target


def _timed(make: Callable[[Path, Path], None], source: Path, target: Path) -> None:
    """Make `target` from `source` and log it (seconds of PyTorch on first use)."""
    started = time.perf_counter()
    make(source, target)
    logger.info("made %s in %.1f s", target.name, time.perf_counter() - started)


PADDING_PER_PASS = 16
"""Padded token slots a query batch may add before a text of its own pass is cheaper.

Measured on the turns benchmark's follow-up variants (five batches of 3 to 11 texts of
3 to 36 word pieces; AMD EPYC, 2 cores, load 12-13; median process CPU of 25 rounds):
one batch padded to the longest 422 ms, grouped at 8 / 16 / 32 slots 296 / 293 / 320 ms,
one pass per text 379 ms. The vectors are the same (padding is masked).
"""


def length_groups(lengths: Sequence[int], padding: int, most: int) -> list[list[int]]:
    """Group texts into forward passes by length, shortest first.

    A text joins the pass before it (padded to its own length, the longest so far)
    while that pads the pass's other texts by at most `padding` word pieces in all,
    and while the pass holds fewer than `most` texts.

    Args:
        lengths: Each text's length in word pieces.
        padding: The padded slots a pass may add rather than start another.
        most: The most texts one pass holds.

    Returns:
        The texts' indices per pass; every index once.
    """
    groups: list[list[int]] = []
    for i in sorted(range(len(lengths)), key=lambda i: lengths[i]):
        last = groups[-1] if groups else None
        if (
            last is not None
            and len(last) < most
            and sum(lengths[i] - lengths[j] for j in last) <= padding
        ):
            last.append(i)
        else:
            groups.append([i])
    return groups


class OnnxSentenceEmbeddings(Embeddings):
    """Mean-pooled, normalised sentence vectors computed by ONNX Runtime.

    Args:
        model_dir: A sentence-transformers directory (see `onnx_model_supported`).
        cache_dir: Where the exported `.onnx` file is kept (exported on first use).
        threads: ONNX Runtime intra-op threads (default: the usable cores, at most 4).
        batch_size: Texts per forward pass when embedding documents (sorted by length
            first). 16 rather than 64: smaller activations, less padding; measured
            13.0-16.5 chunks per CPU-second at 64 against 17.8-18.9 at 16 for the 8-bit
            model on an AMD EPYC (`benchmarks/results/ingestion-pipeline.md`).
        max_tokens: Word pieces a text is cut to (default: the model's
            `max_seq_length`). Part of what the vectors are: see
            `threadline.knowledge.embeddings.load_configured_dense`.
        variant: "full" (the default: PyTorch's vectors), "fused" (the same vectors
            from ONNX Runtime's fused operators) or "int8" (the fused graph with 8-bit
            weights: faster ingestion, vectors within a cosine of 0.99 of "full"); see the
            module docstring.
    """

    def __init__(
        self,
        model_dir: Path,
        *,
        cache_dir: Path | None = None,
        threads: int | None = None,
        batch_size: int = 16,
        variant: OnnxVariant = "full",
        max_tokens: int | None = None,
    ) -> None:
        import onnxruntime as ort
        from tokenizers import Tokenizer

        if not onnx_model_supported(model_dir):
            raise ValueError(f"{model_dir} is not transformer + mean pooling + normalize")
        self.model_dir = model_dir
        self.variant = variant
        self.batch_size = batch_size
        self.max_tokens = max_tokens or model_max_tokens(model_dir)
        cache = cache_dir or default_cache_dir()
        self.onnx_path = prepare_onnx_model(model_dir, cache, variant)
        options = ort.SessionOptions()
        options.intra_op_num_threads = threads or min(len(os.sched_getaffinity(0)), 4)
        options.inter_op_num_threads = 1
        # Idle pool threads sleep instead of spinning: a server has other Python work
        # (other turns) to run on the same two cores between two embeddings.
        options.add_session_config_entry("session.intra_op.allow_spinning", "0")

        def open_session() -> Any:
            return ort.InferenceSession(
                str(self.onnx_path), options, providers=["CPUExecutionProvider"]
            )

        try:
            self._session = open_session()
        except Exception:  # a damaged cache file (disk full, bad copy): make it again
            self.onnx_path = prepare_onnx_model(model_dir, cache, variant, rebuild=True)
            self._session = open_session()
        self._tokenizer = Tokenizer.from_file(str(model_dir / "tokenizer.json"))
        self._tokenizer.enable_truncation(self.max_tokens)
        self._tokenizer.no_padding()  # `_forward` pads each batch to its own longest text

    def _embed(self, texts: list[str]) -> np.ndarray:
        return self._forward(self._tokenizer.encode_batch(texts))

    def _forward(self, encodings: list[Any]) -> np.ndarray:
        """One forward pass over tokenized texts, padded to the longest of them."""
        width = max(len(e.ids) for e in encodings)
        feeds = {name: np.zeros((len(encodings), width), dtype=np.int64) for name in _INPUTS}
        for row, e in enumerate(encodings):
            n = len(e.ids)
            feeds["input_ids"][row, :n] = e.ids
            feeds["attention_mask"][row, :n] = e.attention_mask
            feeds["token_type_ids"][row, :n] = e.type_ids
        hidden = self._session.run(None, feeds)[0]
        mask = feeds["attention_mask"][..., None].astype(np.float32)
        pooled = (hidden * mask).sum(axis=1) / np.clip(mask.sum(axis=1), 1e-9, None)
        norms = np.linalg.norm(pooled, axis=1, keepdims=True)
        return pooled / np.clip(norms, 1e-12, None)

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        """Vectors for passages, `batch_size` at a time, batched by length.

        Texts of similar length share a batch, as sentence-transformers does, so short
        passages are not padded to the length of the longest one.
        """
        if not texts:
            return []
        encodings = self._tokenizer.encode_batch(list(texts))
        order = sorted(range(len(texts)), key=lambda i: len(encodings[i].ids))
        vectors: list[list[float]] = [[] for _ in texts]
        for start in range(0, len(order), self.batch_size):
            rows = order[start : start + self.batch_size]
            for row, vector in zip(rows, self._forward([encodings[i] for i in rows]), strict=True):
                vectors[row] = vector.tolist()
        return vectors

    def embed_query(self, text: str) -> list[float]:
        """Return the vector of one query."""
        return self._embed([text])[0].tolist()

    def embed_query_batch(self, texts: list[str]) -> list[list[float]]:
        """Query vectors for several texts, in as few passes as padding makes worth it.

        A follow-up's variants range from the message alone to the message with the
        previous query and titles: padded to the longest, most of one batch's token
        slots were padding. Texts of close lengths share a pass (`length_groups`); a
        text's vector does not depend on the pass it is in (the padding is masked),
        except with 8-bit weights, whose activations are scaled per batch: those keep
        one batch, the vectors they always had.
        """
        if self.variant == "int8" or not texts:
            return self.embed_documents(texts)
        encodings = self._tokenizer.encode_batch(list(texts))
        groups = length_groups([len(e.ids) for e in encodings], PADDING_PER_PASS, self.batch_size)
        vectors: list[list[float]] = [[] for _ in texts]
        for rows in groups:
            for row, vector in zip(rows, self._forward([encodings[i] for i in rows]), strict=True):
                vectors[row] = vector.tolist()
        return vectors

    def __repr__(self) -> str:
        """Name the model by its directory (the default repr shows only an address)."""
        return (
            f"OnnxSentenceEmbeddings({self.model_dir}, variant={self.variant!r}, "
            f"max_tokens={self.max_tokens})"
        )
