"""A tiny real transformer for tests that export or distil a model in seconds."""

from __future__ import annotations

import shutil
from pathlib import Path

from threadline.knowledge.embeddings import bundled_minilm_path


def make_tiny_transformer(target: Path) -> Path:
    """Write a one-layer BERT with MiniLM's tokenizer into `target` and return it."""
    from transformers import BertConfig, BertModel

    source = bundled_minilm_path()
    target.mkdir(parents=True)
    for name in ("tokenizer.json", "tokenizer_config.json", "vocab.txt", "special_tokens_map.json"):
        if (source / name).exists():
            shutil.copy(source / name, target / name)
    config = BertConfig(
        vocab_size=30522,
        hidden_size=32,
        num_hidden_layers=1,
        num_attention_heads=2,
        intermediate_size=64,
    )
    BertModel(config).save_pretrained(target)
    return target
