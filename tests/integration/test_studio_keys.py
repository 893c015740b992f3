"""The Studio entry (`studio.py`, what `langgraph dev` mounts) with API keys configured.

LangGraph's own routes (`/runs`, `/threads`) take no key and a run's input names its
tenant: measured with `langgraph dev` and keys set, `POST /chat` without a key was
401 while a run with `{"tenant": "default"}` and no key answered from that tenant's
documents and wrote its session. The entry now refuses to load when any key is
configured; it is imported here in a child process as `langgraph dev` imports it.
"""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
from pathlib import Path

from support.server import server_env

KEY_ENTRY = {
    "name": "web",
    "sha256": hashlib.sha256(b"a-secret-key").hexdigest(),
    "tenant": "acme",
    "caller_apps": ["web"],
}


def import_studio(data_dir: Path, **env: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-c", "import threadline.studio"],
        env=server_env(data_dir, THREADLINE_EMBEDDINGS="sparse", THREADLINE_LLM="offline", **env),
        cwd=data_dir,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_studio_refuses_to_load_with_api_keys_inline_or_in_a_file(tmp_path: Path) -> None:
    keys_file = tmp_path / "keys.jsonl"
    keys_file.write_text(json.dumps(KEY_ENTRY) + "\n", encoding="utf-8")

    inline = import_studio(tmp_path, THREADLINE_API_KEYS=json.dumps([KEY_ENTRY]))
    from_file = import_studio(tmp_path, THREADLINE_API_KEYS_FILE=str(keys_file))
    # A keys file named but missing turns keys on (serve refuses it): Studio too.
    missing = import_studio(tmp_path, THREADLINE_API_KEYS_FILE=str(tmp_path / "absent.jsonl"))
    without = import_studio(tmp_path)

    for refused in (inline, from_file, missing):
        assert refused.returncode != 0
        assert "StudioKeysError: LangGraph Studio's routes (/threads, /runs) take no API key" in (
            refused.stderr
        )
    assert without.returncode == 0, without.stderr
