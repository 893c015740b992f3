"""The sparse term index does not depend on the process: checked in two fresh interpreters."""

from __future__ import annotations

import os
import subprocess
import sys

from threadline.knowledge.sparse import Bm25SparseEmbeddings


def test_term_index_is_identical_across_processes() -> None:
    code = (
        "from threadline.knowledge.sparse import Bm25SparseEmbeddings as E;"
        "print(E().embed_query('Les éoliennes P1 incidents').indices)"
    )
    outputs = set()
    for seed in ("1", "2"):
        env = {**os.environ, "PYTHONHASHSEED": seed}
        result = subprocess.run(
            [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True
        )
        outputs.add(result.stdout)
    assert outputs == {
        f"{Bm25SparseEmbeddings().embed_query('Les éoliennes P1 incidents').indices}\n"
    }
