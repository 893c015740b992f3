"""The real local model of the tests: llama.cpp's server with SmolLM2-135M, built once per machine.

The build, the model and the server process are `benchmarks.llama_server` (the LLM
benchmark uses them too); this script is what `make test` runs before pytest, so the
build (minutes, once per machine) is done and reported before the tests start.

    python tests/support/llama_server.py          # build (if missing), print the paths
    python tests/support/llama_server.py --check  # only report; exit 1 if not built
"""

from __future__ import annotations

import sys
from pathlib import Path

if __name__ == "__main__":
    # Run as a script, the repository root (where `benchmarks` lives) is not on sys.path.
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
    from benchmarks.llama_server import main

    sys.exit(main(sys.argv[1:]))
