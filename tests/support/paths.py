"""Where the tests find the repository, its sample documents and the shared benchmark data."""

from __future__ import annotations

from pathlib import Path

# tests/support/paths.py -> the repository root, whichever tier directory a test lives in.
ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "data" / "sample"
# The benchmark data sits beside the repository (not in it); tests that need it skip without it.
SHARED_BENCH = ROOT.parent / "shared" / "bench"
FOLLOWUP_CORPUS = SHARED_BENCH / "followups" / "corpus"
