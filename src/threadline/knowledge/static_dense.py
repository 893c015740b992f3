"""A static embedding model distilled from the bundled MiniLM: dense ingestion at scale.

MiniLM runs six transformer layers over every token of every chunk: on 2 CPU cores it
embeds about 18 chunks/s, so a million chunks take 15 hours. A static model (model2vec)
keeps one vector per vocabulary token, computed once by passing each token through
MiniLM (distillation), reduced by PCA to 256 dimensions and weighted by token frequency
(SIF); a text's vector is then the mean of its tokens' vectors, a table look-up in numpy
(measured: 2,700 chunks/s against MiniLM's 15 on the same loaded cores). It loses context
(word order, senses), so it ranks worse than MiniLM: the README's bake-off has the
numbers, and the choice per deployment.

Nothing is downloaded: the model is distilled from the MiniLM on disk on first use (with
PyTorch, as the ONNX export is made), into the cache directory, keyed by the source
model's files, the model2vec version and the distillation parameters. The distillation
runs under a file lock and is written to a temporary directory renamed into place, so
concurrent processes distil once and a crash never leaves half a model; later processes
load the cached model with numpy alone.
"""

from __future__ import annotations

import hashlib
import logging
import os
import shutil
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import numpy as np
from filelock import FileLock
from langchain_core.embeddings import Embeddings

from threadline.knowledge.onnx_dense import default_cache_dir

logger = logging.getLogger(__name__)

PCA_DIMS = 256
"""Dimensions kept by the distillation's PCA (model2vec's default, and what was measured)."""
SIF_COEFFICIENT = 1e-4
"""model2vec's default SIF weighting: frequent tokens (by vocabulary rank) weigh less."""
_LOCK = threading.Lock()


def _model2vec_version() -> str:
    try:
        from model2vec import __version__
    except ImportError as exc:  # pragma: no cover - depends on the install
        raise RuntimeError(
            "THREADLINE_DENSE_MODEL=minilm-static needs the model2vec package: "
            "pip install 'threadline[dense]'"
        ) from exc
    return str(__version__)


def static_model_dir(source_dir: Path, cache_dir: Path | None = None) -> Path:
    """Where the static model distilled from `source_dir` is cached.

    The key covers the source model's files (names, sizes, mtimes), the model2vec
    version and the distillation parameters: changing any of them distils anew.
    """
    digest = hashlib.sha256(
        f"static v1 model2vec {_model2vec_version()} pca {PCA_DIMS} sif {SIF_COEFFICIENT}".encode()
    )
    for path in sorted(p for p in source_dir.rglob("*") if p.is_file()):
        stat = path.stat()
        digest.update(f"{path.relative_to(source_dir)} {stat.st_size} {stat.st_mtime_ns}".encode())
    name = f"{source_dir.parent.name}-{source_dir.name}-static-{digest.hexdigest()[:16]}"
    return (cache_dir or default_cache_dir()) / name


def distill_static_model(source_dir: Path, target: Path) -> None:
    """Distil a model2vec static model from a sentence-transformers directory (needs PyTorch).

    Saved to a temporary directory beside `target`, then renamed to it: a reader sees
    the whole model or none. The caller holds the lock (see `ensure_static_model`).
    """
    from model2vec.distill import distill

    started = time.perf_counter()
    model = distill(
        model_name=str(source_dir),
        pca_dims=PCA_DIMS,
        sif_coefficient=SIF_COEFFICIENT,
        device="cpu",
    )
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(dir=target.parent, prefix=target.name, suffix=".tmp"))
    try:
        model.save_pretrained(tmp)
        os.replace(tmp, target)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    logger.info("distilled %s into %s in %.0f s", source_dir, target, time.perf_counter() - started)


def ensure_static_model(source_dir: Path, cache_dir: Path | None = None) -> tuple[Path, bool]:
    """Return the cached static model of `source_dir`, distilling it if it is not there.

    One process distils; the others wait on the lock file beside the model and then
    find it in place.

    Returns:
        (the model directory, whether this call distilled it).
    """
    target = static_model_dir(source_dir, cache_dir)
    if target.exists():
        return target, False
    target.parent.mkdir(parents=True, exist_ok=True)
    with _LOCK, FileLock(str(target) + ".lock"):
        if target.exists():  # another process distilled it while this one waited
            return target, False
        distill_static_model(source_dir, target)
        return target, True


class StaticEmbeddings(Embeddings):
    """Sentence vectors from a model2vec static model distilled from MiniLM (numpy only).

    Queries and passages are embedded alike (MiniLM has no prefixes); vectors are L2
    normalised, so a dot product is the cosine.

    Args:
        source_dir: The sentence-transformers model to distil from (the bundled MiniLM).
        cache_dir: Where the distilled model is kept (default: `default_cache_dir()`).
        batch_size: Texts per look-up batch when embedding documents.

    Attributes:
        distilled: Whether creating this object distilled the model (False when it was
            loaded from the cache).
        dimensions: The vectors' size.
    """

    def __init__(
        self, source_dir: Path, *, cache_dir: Path | None = None, batch_size: int = 1024
    ) -> None:
        from model2vec import StaticModel

        self.source_dir = source_dir
        self.batch_size = batch_size
        self.model_dir, self.distilled = ensure_static_model(source_dir, cache_dir)
        try:
            self._model: Any = StaticModel.from_pretrained(self.model_dir, force_download=False)
        except Exception:  # a damaged cache (disk full, bad copy): distil it again
            with _LOCK, FileLock(str(self.model_dir) + ".lock"):
                shutil.rmtree(self.model_dir, ignore_errors=True)
                distill_static_model(source_dir, self.model_dir)
            self.distilled = True
            self._model = StaticModel.from_pretrained(self.model_dir, force_download=False)
        self.dimensions = int(self._model.dim)
        # A text with no token in the vocabulary (emoji only) averages to zeros, which
        # has no cosine: it gets this fixed unit vector instead.
        self._fallback = np.full(self.dimensions, self.dimensions**-0.5, dtype=np.float32)

    def _encode(self, texts: list[str]) -> np.ndarray:
        # No thread pool: a server embeds from several requests at once already, and a
        # look-up batch is too short for threads to pay.
        vectors = np.asarray(
            self._model.encode(
                texts, batch_size=self.batch_size, use_multiprocessing=False, normalize=True
            ),
            dtype=np.float32,
        )
        empty = ~np.any(vectors, axis=1)
        vectors[empty] = self._fallback
        return vectors

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        """Return the vectors of passages."""
        return self._encode(list(texts)).tolist() if texts else []

    def embed_query(self, text: str) -> list[float]:
        """Return the vector of one query."""
        return self._encode([text])[0].tolist()

    def embed_query_batch(self, texts: list[str]) -> list[list[float]]:
        """Query vectors for several texts in one look-up (queries and passages alike)."""
        return self.embed_documents(texts)

    def __repr__(self) -> str:
        """Name the model by its cache directory (the default repr shows only an address)."""
        return f"StaticEmbeddings({self.model_dir})"
