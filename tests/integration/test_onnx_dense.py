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


@pytest.fixture(scope="module")
def int8_model(onnx_model) -> OnnxSentenceEmbeddings:
    """The 8-bit variant, made (fused, then quantised) in the test's own cache."""
    return OnnxSentenceEmbeddings(
        bundled_minilm_path(), cache_dir=onnx_model.onnx_path.parent, variant="int8"
    )


def test_the_fused_graph_gives_the_pytorch_vectors(onnx_model):
    fused = OnnxSentenceEmbeddings(
        bundled_minilm_path(), cache_dir=onnx_model.onnx_path.parent, variant="fused"
    )
    assert fused.onnx_path.name.endswith("-fused.onnx")
    import onnx

    ops = {node.op_type for node in onnx.load(str(fused.onnx_path)).graph.node}
    assert {"Attention", "SkipLayerNormalization"} <= ops  # what makes it faster
    full = np.array(onnx_model.embed_documents(TEXTS))
    assert np.abs(np.array(fused.embed_documents(TEXTS)) - full).max() < 1e-5


def test_the_int8_model_is_close_to_the_full_model_and_made_once(onnx_model, int8_model):
    path = int8_model.onnx_path
    assert path.name.endswith("-fused-int8.onnx")
    assert path.stat().st_size < onnx_model.onnx_path.stat().st_size / 2
    full = np.array(onnx_model.embed_documents(TEXTS))
    quantized = np.array(int8_model.embed_documents(TEXTS))
    assert np.allclose(np.linalg.norm(quantized, axis=1), 1.0, atol=1e-5)
    cosines = (full * quantized).sum(axis=1)
    # Measured on the texts: 0.977-0.997 on an Intel Xeon; on an AMD EPYC (AVX2, no VNNI)
    # 0.990-0.996 for the three with words, and over 150 MTRAG passages at least 0.985 and
    # 0.993 on average. One scale per tensor instead of per channel gave 0.92-0.95. The
    # empty text (no chunk or query is ever empty: its vector is the [CLS]/[SEP] pair alone,
    # where the 8-bit error weighs most) depends on the CPU's 8-bit kernel: 0.977 on the
    # Xeon, 0.965-0.968 on the EPYC (0.973 there with `reduce_range`, ONNX Runtime's remedy
    # for the saturation of its AVX2 kernel), so it has a bound of its own.
    worded = [i for i, text in enumerate(TEXTS) if text.strip()]
    assert cosines[worded].min() > 0.97 and cosines[worded].mean() > 0.985
    assert cosines.min() > 0.95
    assert not np.allclose(full, quantized, atol=1e-3)  # really another model
    stamp = path.stat().st_mtime_ns
    again = OnnxSentenceEmbeddings(bundled_minilm_path(), cache_dir=path.parent, variant="int8")
    assert again.onnx_path == path and path.stat().st_mtime_ns == stamp  # reused
    assert np.allclose(again.embed_documents(TEXTS), quantized, atol=1e-6)
    assert not list(path.parent.glob("*.tmp")) and not list(path.parent.glob("*-eager*"))


def test_a_damaged_int8_file_is_made_again(onnx_model, int8_model):
    path = int8_model.onnx_path
    want = int8_model.embed_query("refund policy")
    path.write_bytes(b"half a model")
    repaired = OnnxSentenceEmbeddings(bundled_minilm_path(), cache_dir=path.parent, variant="int8")
    assert repaired.onnx_path == path and path.stat().st_size > 1_000_000
    assert np.allclose(repaired.embed_query("refund policy"), want, atol=1e-6)


@pytest.mark.parametrize("variant", ["full", "int8"])
def test_length_buckets_give_each_text_its_own_vector_in_order(onnx_model, int8_model, variant):
    model = {"full": onnx_model, "int8": int8_model}[variant]
    # Lengths interleaved so that sorting by length moves every text to another batch.
    texts = [f"{'warranty terms ' * (n % 7 * 9)}passage {n}" for n in range(11)]
    size, model.batch_size = model.batch_size, 3
    try:
        bucketed = np.array(model.embed_documents(texts))
    finally:
        model.batch_size = size
    one_by_one = np.array([model.embed_query(text) for text in texts])
    cosines = (bucketed * one_by_one).sum(axis=1)
    if variant == "full":
        assert np.abs(bucketed - one_by_one).max() < 1e-5
    else:
        # Dynamic quantisation scales activations per batch, so the batch a text shares
        # moves its vector a little (measured: cosine 0.993 or more on MTRAG passages).
        assert cosines.min() > 0.98
    others = bucketed @ one_by_one.T  # each row is closest to its own text: the order holds
    assert (others.argmax(axis=1) == np.arange(len(texts))).all()


def test_a_query_batch_runs_texts_of_close_lengths_together_with_the_vectors_of_each(
    onnx_model, int8_model, monkeypatch
):
    # A follow-up's variants: the message, with a few words, with the history.
    texts = [
        "and for P2?",
        "What SLA applies to the enterprise plan for P2?",
        "and for P2? (sla enterprise plan)",
        "Brightwell support policy — Response times — and for P2? (sla applies enterprise"
        " plan business incidents guarantees 99.95 monthly credits)",
        "p2",
    ]
    passes: list[int] = []
    for model in (onnx_model, int8_model):
        forward = model._forward

        def counted(encodings, forward=forward):
            passes.append(len(encodings))
            return forward(encodings)

        monkeypatch.setattr(model, "_forward", counted)
    batched = np.array(onnx_model.embed_query_batch(texts))
    assert len(passes) > 1  # the long variant is not the padding of the short ones
    assert sum(passes) == len(texts)
    alone = np.array([onnx_model.embed_query(text) for text in texts])
    assert np.abs(batched - alone).max() < 1e-6  # each its own vector, in order
    passes.clear()
    int8_model.embed_query_batch(texts)
    assert passes == [len(texts)]  # scaled per batch: 8-bit weights keep one batch


def test_settings_choose_the_int8_model_with_its_own_identity(tmp_path):
    from threadline.knowledge.embeddings import create_embedding_setup
    from threadline.settings import Settings

    int8 = create_embedding_setup(
        Settings(_env_file=None, data_dir=tmp_path, embeddings="hybrid", dense_model="minilm-int8")
    )
    assert isinstance(int8.dense, OnnxSentenceEmbeddings) and int8.dense.variant == "int8"
    assert int8.dense_model == "minilm-int8" and int8.dense_size == 384
    legacy = create_embedding_setup(
        Settings(_env_file=None, data_dir=tmp_path, embeddings="dense", dense_runtime="onnx-int8")
    )
    assert legacy.dense is int8.dense and legacy.dense_model == "minilm-int8"
    fused = create_embedding_setup(
        Settings(_env_file=None, data_dir=tmp_path, embeddings="dense", dense_runtime="onnx-fused")
    )
    assert isinstance(fused.dense, OnnxSentenceEmbeddings) and fused.dense.variant == "fused"
    assert fused.dense_model == "minilm"  # the same vectors: an index of minilm serves


def test_minilm_and_its_int8_copy_share_an_index_and_other_models_are_refused(tmp_path):
    from support.paths import SAMPLE
    from support.services import make_services, make_settings
    from threadline.knowledge.filters import SearchFilters
    from threadline.knowledge.index import KnowledgeBase

    questions = ["How do I get my money back?", "How fast is a P1 incident answered?"]

    def top_chunks(dense_model: str) -> list[list[str]]:
        kb = KnowledgeBase(make_settings(tmp_path, embeddings="hybrid", dense_model=dense_model))
        try:
            found = [kb.search(q, filters=SearchFilters(tenant="default"), k=3) for q in questions]
        finally:
            kb.close()
        return [[hit.chunk.chunk_id for hit in hits] for hits in found]

    make_services(tmp_path, [SAMPLE / "support"], embeddings="hybrid").close()
    # Built with full precision, queried with 8-bit weights: the same passages come first.
    assert top_chunks("minilm-int8")[0][:2] == top_chunks("minilm")[0][:2]
    assert top_chunks("minilm-int8")[1][0] == top_chunks("minilm")[1][0]
    settings = make_settings(tmp_path, embeddings="hybrid", dense_model="e5-small")
    with pytest.raises(RuntimeError, match="built with dense model 'minilm'"):
        KnowledgeBase(settings)


def test_concurrent_first_uses_make_each_file_once(tmp_path):
    """Two processes ask for the int8 model at once: the fused graph and its int8 copy are
    made once, under the lock file, and nothing half-written is left."""
    from pathlib import Path

    from support.concurrent_python import run_at_once
    from support.tiny_models import make_tiny_transformer

    model = make_tiny_transformer(tmp_path / "tiny" / "model")
    cache = tmp_path / "cache"
    code = (
        "import logging, sys\n"
        "from pathlib import Path\n"
        "logging.basicConfig(level=logging.INFO, stream=sys.stdout, format='%(message)s')\n"
        "from threadline.knowledge.onnx_dense import prepare_onnx_model\n"
        "print('path', prepare_onnx_model(Path(sys.argv[1]), Path(sys.argv[2]), 'int8'))"
    )
    outputs = run_at_once(code, str(model), str(cache))
    lines = [line for out in outputs for line in out.strip().splitlines()]
    made = sorted(line.split()[1] for line in lines if line.startswith("made "))
    paths = {line.split(maxsplit=1)[1] for line in lines if line.startswith("path ")}
    int8 = Path(paths.pop())
    assert not paths and int8.name.endswith("-fused-int8.onnx")
    stem = int8.name.removesuffix("-fused-int8.onnx")
    assert made == [f"{stem}-fused-int8.onnx", f"{stem}-fused.onnx"]  # once each
    assert sorted(p.name for p in cache.iterdir()) == [*made, f"{stem}.lock"]


def test_the_passage_length_is_part_of_the_index_identity(tmp_path):
    from threadline.knowledge.embeddings import create_embedding_setup
    from threadline.settings import Settings

    def setup(**overrides):
        return create_embedding_setup(
            Settings(_env_file=None, data_dir=tmp_path, embeddings="hybrid", **overrides)
        )

    assert setup().dense_model == "minilm"
    assert setup(dense_max_tokens=256).dense_model == "minilm"  # the model's own length
    short = setup(dense_max_tokens=128)
    assert short.dense_model == "minilm:max-tokens-128"
    assert isinstance(short.dense, OnnxSentenceEmbeddings) and short.dense.max_tokens == 128
    int8 = setup(dense_model="minilm-int8", dense_max_tokens=128)
    assert int8.dense_model == "minilm-int8:max-tokens-128" and int8.dense.variant == "int8"
    long_text = TEXTS[2]  # about 400 word pieces: the two lengths read different text
    assert not np.allclose(short.dense.embed_query(long_text), setup().dense.embed_query(long_text))
    assert np.allclose(short.dense.embed_query(TEXTS[0]), setup().dense.embed_query(TEXTS[0]))
