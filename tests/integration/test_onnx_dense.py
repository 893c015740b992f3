"""The dense model through ONNX Runtime: the vectors PyTorch makes, from a cached export."""

from __future__ import annotations

import json
import shutil

import numpy as np
import pytest

from threadline.knowledge.embeddings import bundled_minilm_path, load_dense_model
from threadline.knowledge.onnx_dense import OnnxSentenceEmbeddings, onnx_model_supported

pytestmark = pytest.mark.dense

TEXTS = [
    "What SLA applies to the enterprise plan?",
    "et pour P2 ?",
    "Brightwell covers the Galaxy A55 with a 2-year warranty. " * 40,  # past 256 tokens
    "",
]


@pytest.fixture(scope="module")
def onnx_model(tmp_path_factory) -> OnnxSentenceEmbeddings:
    return OnnxSentenceEmbeddings(bundled_minilm_path(), cache_dir=tmp_path_factory.mktemp("onnx"))


def test_onnx_vectors_are_the_pytorch_vectors(onnx_model):
    torch_model = load_dense_model(runtime="torch")
    want = np.array(torch_model.embed_documents(TEXTS))
    got = np.array(onnx_model.embed_documents(TEXTS))  # one padded batch
    assert got.shape == (len(TEXTS), 384)
    assert np.abs(got - want).max() < 1e-5
    for text in TEXTS[:2]:
        assert np.allclose(onnx_model.embed_query(text), torch_model.embed_query(text), atol=1e-5)
    assert np.allclose(onnx_model.embed_query_batch(TEXTS[:2]), want[:2], atol=1e-5)
    assert np.allclose(np.linalg.norm(got, axis=1), 1.0, atol=1e-5)


def test_the_export_is_made_once_and_a_damaged_one_is_made_again(onnx_model):
    path = onnx_model.onnx_path
    stamp = path.stat().st_mtime_ns
    again = OnnxSentenceEmbeddings(bundled_minilm_path(), cache_dir=path.parent)
    assert again.onnx_path == path and path.stat().st_mtime_ns == stamp  # reused
    path.write_bytes(b"not an onnx model")  # a bad copy, a full disk...
    repaired = OnnxSentenceEmbeddings(bundled_minilm_path(), cache_dir=path.parent)
    assert path.stat().st_size > 1_000_000
    assert np.allclose(repaired.embed_query("SLA"), onnx_model.embed_query("SLA"), atol=1e-6)
    assert not list(path.parent.glob("*.tmp"))  # no half-written export left behind


def test_only_mean_pooled_normalised_models_run_on_onnx(tmp_path):
    model = tmp_path / "model"
    shutil.copytree(bundled_minilm_path(), model, ignore=shutil.ignore_patterns("*.safetensors"))
    assert onnx_model_supported(model)
    pooling = model / "1_Pooling" / "config.json"
    config = json.loads(pooling.read_text())
    pooling.write_text(
        json.dumps({**config, "pooling_mode_mean_tokens": False, "pooling_mode_cls_token": True})
    )
    assert not onnx_model_supported(model)
    modules = model / "modules.json"
    modules.write_text(json.dumps(json.loads(modules.read_text())[:2]))  # no Normalize
    assert not onnx_model_supported(model)
    assert not onnx_model_supported(tmp_path / "missing")


def test_settings_choose_the_runtime(tmp_path):
    from threadline.knowledge.embeddings import create_embedding_setup
    from threadline.settings import Settings

    onnx = create_embedding_setup(Settings(_env_file=None, data_dir=tmp_path, embeddings="hybrid"))
    assert isinstance(onnx.dense, OnnxSentenceEmbeddings)
    torch = create_embedding_setup(
        Settings(_env_file=None, data_dir=tmp_path, embeddings="dense", dense_runtime="torch")
    )
    assert not isinstance(torch.dense, OnnxSentenceEmbeddings)
    assert hasattr(torch.dense, "embed_query_batch")


def test_the_int8_copy_is_close_to_the_full_model_and_made_once(onnx_model):
    int8 = OnnxSentenceEmbeddings(
        bundled_minilm_path(), cache_dir=onnx_model.onnx_path.parent, int8=True
    )
    assert int8.onnx_path.name.endswith("-int8.onnx")
    assert int8.onnx_path.stat().st_size < onnx_model.onnx_path.stat().st_size / 2
    full = np.array(onnx_model.embed_documents(TEXTS[:3]))
    quantized = np.array(int8.embed_documents(TEXTS[:3]))
    cosines = (full * quantized).sum(axis=1)
    assert cosines.min() > 0.85 and not np.allclose(full, quantized, atol=1e-3)
    stamp = int8.onnx_path.stat().st_mtime_ns
    again = OnnxSentenceEmbeddings(
        bundled_minilm_path(), cache_dir=onnx_model.onnx_path.parent, int8=True
    )
    assert again.onnx_path.stat().st_mtime_ns == stamp
