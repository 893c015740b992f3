"""How a batch of query variants is cut into forward passes of the dense model."""

from __future__ import annotations

from threadline.knowledge.onnx_dense import length_groups


def test_close_lengths_share_a_pass_and_a_long_text_gets_its_own():
    # A follow-up's variants: the message alone, with a few words, with the history.
    lengths = [14, 4, 7, 33, 13, 12, 20]
    groups = length_groups(lengths, padding=16, most=16)
    assert sorted(i for g in groups for i in g) == list(range(len(lengths)))  # each once
    assert groups == [[1, 2, 5, 4], [0, 6], [3]]
    for group in groups:  # the padding a pass adds stays within the limit
        longest = max(lengths[i] for i in group)
        assert sum(longest - lengths[i] for i in group) <= 16


def test_equal_lengths_share_one_pass_up_to_the_most_a_pass_holds():
    assert length_groups([9, 9, 9, 9, 9], padding=0, most=16) == [[0, 1, 2, 3, 4]]
    assert length_groups([9, 9, 9, 9, 9], padding=0, most=2) == [[0, 1], [2, 3], [4]]
    assert length_groups([], padding=16, most=16) == []


def test_no_padding_allowed_gives_a_pass_per_length():
    assert length_groups([3, 5, 3, 5], padding=0, most=16) == [[0, 2], [1, 3]]
