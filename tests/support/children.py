"""Run a child Python process that reports what it saw as JSON on its last line.

Crash and full-disk tests run their writes in a child: a file-size limit or an
`os._exit` must not reach the test process itself.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from typing import Any


def run_python_reporting_json(*args: str, timeout: float = 300) -> Any:
    """Run `python *args` with this process's import path; return its last line as JSON.

    Fails the test with the child's stderr when the child does not exit 0.
    """
    result = subprocess.run(
        [sys.executable, *args],
        env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)},
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    return json.loads(result.stdout.strip().splitlines()[-1])
