"""THREADLINE_DENSE_MODEL=minilm-static: the static model distilled from the bundled MiniLM.

The production loader is used throughout (no mock), with the production cache
directory: the first run on a machine distils the model (minutes, with PyTorch) and
every later test, process and test session loads it from the cache. The lock and the
atomic write are tested on a tiny transformer, distilled for real into a fresh cache.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from support.concurrent_python import run_at_once
from support.paths import SAMPLE
from support.services import make_services, make_settings
from support.tiny_models import make_tiny_transformer
from threadline.knowledge.embeddings import (
    bundled_minilm_path,
    create_embedding_setup,
    load_static_model,
)
from threadline.knowledge.index import SearchFilters
from threadline.knowledge.static_dense import StaticEmbeddings, static_model_dir

# The first run on a machine distils MiniLM (about 3 minutes on 2 quiet cores, 7 under load).
pytestmark = [pytest.mark.dense, pytest.mark.timeout(900)]

_SRC = Path(__file__).resolve().parents[2] / "src"


def _env() -> dict[str, str]:
    """This environment, with this checkout's sources first on the path."""
    path = os.pathsep.join([str(_SRC), os.environ.get("PYTHONPATH", "")])
    return {**os.environ, "PYTHONPATH": path, "HF_HUB_OFFLINE": "1"}


def _python(code: str, *args: str) -> str:
    """Run code in a fresh interpreter; return its last line of output."""
    done = subprocess.run(
        [sys.executable, "-c", code, *args],
        capture_output=True,
        text=True,
        env=_env(),
        timeout=600,
        check=True,
    )
    return done.stdout.strip().splitlines()[-1]


@pytest.fixture(scope="module")
def static_model() -> StaticEmbeddings:
    """The model production loads (distilled into the cache on this machine's first run)."""
    return load_static_model()


def test_production_loads_the_static_runtime(tmp_path, static_model) -> None:
    setup = create_embedding_setup(
        make_settings(tmp_path, embeddings="hybrid", dense_model="minilm-static")
    )
    assert setup.dense is static_model and isinstance(setup.dense, StaticEmbeddings)
    assert setup.dense_model == "minilm-static" and setup.dense_size == 256
    assert static_model.model_dir == static_model_dir(bundled_minilm_path())

    query = np.array(setup.dense.embed_query("How do I get a refund for a return?"))
    passages = np.array(
        setup.dense.embed_documents(
            [
                "Refunds: a returned product is refunded to the original payment method.",
                "The board approved the environmental report on carbon emissions.",
            ]
        )
    )
    assert query.shape == (256,) and abs(np.linalg.norm(query) - 1) < 1e-3
    refund, environment = passages @ query
    assert refund > environment + 0.1
    # A batch of queries is the same look-up as one query at a time.
    batch = setup.dense.embed_query_batch(["refund", "warranty"])
    assert np.allclose(batch[1], setup.dense.embed_query("warranty"), atol=1e-6)


def test_text_without_known_tokens_gets_a_unit_vector(static_model) -> None:
    vector = np.array(static_model.embed_query(""))
    assert abs(np.linalg.norm(vector) - 1) < 1e-6


def test_the_cache_is_reused_without_distilling_or_torch(static_model) -> None:
    again = StaticEmbeddings(bundled_minilm_path())
    assert not again.distilled and again.model_dir == static_model.model_dir

    # A new process (a server worker, the CLI) loads the cached model with numpy alone.
    report = json.loads(
        _python(
            "import json, sys\n"
            "from threadline.knowledge.embeddings import create_embedding_setup\n"
            "from threadline.settings import Settings\n"
            "setup = create_embedding_setup(Settings(_env_file=None, data_dir=sys.argv[1],"
            " embeddings='dense', dense_model='minilm-static'))\n"
            "print(json.dumps({'distilled': setup.dense.distilled,"
            " 'model_dir': str(setup.dense.model_dir), 'torch': 'torch' in sys.modules,"
            " 'vector': setup.dense.embed_query('warranty of the Pixel 8a')}))",
            str(static_model.model_dir.parent / "unused-data-dir"),
        )
    )
    assert report["distilled"] is False and report["torch"] is False
    assert report["model_dir"] == str(static_model.model_dir)
    assert np.allclose(report["vector"], static_model.embed_query("warranty of the Pixel 8a"))


@pytest.fixture(scope="module")
def tiny_transformer(tmp_path_factory) -> Path:
    """A one-layer BERT with MiniLM's tokenizer: a real model that distils in seconds."""
    return make_tiny_transformer(tmp_path_factory.mktemp("tiny") / "model")


def test_concurrent_first_uses_distil_once(tmp_path, tiny_transformer) -> None:
    cache = tmp_path / "cache"
    code = (
        "import json, sys\n"
        "from pathlib import Path\n"
        "from threadline.knowledge.static_dense import ensure_static_model\n"
        "path, distilled = ensure_static_model(Path(sys.argv[1]), Path(sys.argv[2]))\n"
        "print(json.dumps([str(path), distilled]))"
    )
    outputs = run_at_once(
        code, str(tiny_transformer), str(cache), extra_env={"HF_HUB_OFFLINE": "1"}
    )
    results = [json.loads(out.strip().splitlines()[-1]) for out in outputs]
    assert sorted(distilled for _, distilled in results) == [False, True]
    model_dir = Path(results[0][0])
    assert results[1][0] == str(model_dir) == str(static_model_dir(tiny_transformer, cache))
    # Only the finished model and its lock file: no temporary directory left behind.
    assert sorted(p.name for p in cache.iterdir()) == [model_dir.name, model_dir.name + ".lock"]
    assert StaticEmbeddings(tiny_transformer, cache_dir=cache).distilled is False


def test_a_damaged_cache_is_distilled_again(tmp_path, tiny_transformer) -> None:
    cache = tmp_path / "cache"
    first = StaticEmbeddings(tiny_transformer, cache_dir=cache)
    assert first.distilled
    (first.model_dir / "model.safetensors").write_bytes(b"truncated")
    repaired = StaticEmbeddings(tiny_transformer, cache_dir=cache)
    assert repaired.distilled and len(repaired.embed_query("refund")) == first.dimensions


@pytest.fixture
def minilm_index(tmp_path) -> Iterator[Path]:
    """A hybrid index of one sample document, built with MiniLM."""
    services = make_services(
        tmp_path, [SAMPLE / "support"], embeddings="hybrid", dense_model="minilm"
    )
    services.close()
    yield tmp_path


def test_an_index_built_with_minilm_refuses_the_static_model(minilm_index, static_model) -> None:
    from threadline.knowledge.index import KnowledgeBase

    settings = make_settings(minilm_index, embeddings="hybrid", dense_model="minilm-static")
    with pytest.raises(RuntimeError, match="built with dense model 'minilm'"):
        KnowledgeBase(settings)


def test_dense_retrieval_with_the_static_model(tmp_path, static_model) -> None:
    # Dense only: the ranking is the static model's, no BM25 fused in.
    services = make_services(
        tmp_path, [SAMPLE / "support"], embeddings="dense", dense_model="minilm-static"
    )
    try:
        hits = services.kb.search(
            "Can I return a product and get my money back?",
            k=3,
            filters=SearchFilters(tenant="default"),
        )
        assert "Refunds and returns" in [hit.chunk.section for hit in hits]
    finally:
        services.close()
