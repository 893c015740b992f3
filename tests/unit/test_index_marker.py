"""`embeddings.json`: the record of which dense model built an index, read at every open.

Written once, at an index's first open; a marker cut short there (a crash, a full disk)
stopped every later start with a JSONDecodeError traceback. It is now written whole or
not at all, and a damaged one is refused in words that name it and what to do.
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest

from threadline.knowledge.embeddings import EmbeddingSetup, check_index_embeddings, vector_space

MINILM = EmbeddingSetup(
    dense=None, sparse=None, dense_size=384, name="hybrid", dense_model="minilm"
)


@pytest.mark.parametrize("damage", [b"", b'{"dense_mo', b"[1, 2]", b"\xff\xfe"])
def test_a_damaged_marker_is_refused_naming_the_file_and_the_remedy(
    tmp_path: Path, damage: bytes
) -> None:
    marker = tmp_path / "embeddings.json"
    marker.write_bytes(damage)

    with pytest.raises(RuntimeError, match="embeddings.json is damaged") as refused:
        check_index_embeddings(tmp_path, MINILM)

    assert str(marker) in str(refused.value)
    assert marker.read_bytes() == damage  # kept: only its owner knows the model


def test_the_first_open_writes_a_whole_marker_and_no_temporary_file(tmp_path: Path) -> None:
    check_index_embeddings(tmp_path / "index", MINILM)

    assert [p.name for p in (tmp_path / "index").iterdir()] == ["embeddings.json"]
    marker = json.loads((tmp_path / "index" / "embeddings.json").read_text(encoding="utf-8"))
    assert marker == {"dense_model": "minilm"}
    check_index_embeddings(tmp_path / "index", MINILM)  # read back: same space, no error


def test_a_passage_length_other_than_the_models_own_is_another_vector_space() -> None:
    assert vector_space("minilm:max-tokens-128") != vector_space("minilm")
    assert vector_space("minilm:max-tokens-128") != vector_space("minilm:max-tokens-64")
    # The 8-bit copy shares MiniLM's space at the same length, not across lengths.
    assert vector_space("minilm-int8:max-tokens-128") == vector_space("minilm:max-tokens-128")
    assert vector_space("minilm-int8") == vector_space("minilm")
    assert vector_space("path:/m:int8-per-channel:max-tokens-128") == "path:/m:max-tokens-128"


def test_an_index_read_to_256_word_pieces_is_refused_at_128(tmp_path: Path) -> None:
    check_index_embeddings(tmp_path, MINILM)  # built with the model's own 256
    shorter = dataclasses.replace(MINILM, dense_model="minilm-int8:max-tokens-128")

    with pytest.raises(RuntimeError, match="built with dense model 'minilm'"):
        check_index_embeddings(tmp_path, shorter)

    fresh = tmp_path / "fresh"
    check_index_embeddings(fresh, shorter)  # a new index records the length...
    check_index_embeddings(fresh, dataclasses.replace(MINILM, dense_model="minilm:max-tokens-128"))
    with pytest.raises(RuntimeError, match="max-tokens-128"):  # ...and refuses the others
        check_index_embeddings(fresh, MINILM)
