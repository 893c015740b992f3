"""A real `threadline serve` in a child process, for the load and turn benchmarks.

A fresh data directory ingested with `threadline ingest` (`ingest`), the server on
a free loopback port with an environment cleared of the developer's threadline,
OpenAI and Qdrant settings (`ServerProcess`, `server_env`), and what the
benchmarks read about it from ``/proc``: resident memory, CPU seconds, the
machine's busy time, plus an optional py-spy profile of the server.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

import httpx

HOST = "127.0.0.1"  # loopback only, never anything else


def free_port() -> int:
    """Return a free TCP port on the loopback interface."""
    with socket.socket() as sock:
        sock.bind((HOST, 0))
        return sock.getsockname()[1]


def server_env(data_dir: Path, embeddings: str, **extra: str) -> dict[str, str]:
    """Return the server's environment: no inherited threadline/OpenAI/Qdrant settings."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("THREADLINE_", "OPENAI_"))}
    env.pop("QDRANT_URL", None)
    env.update(
        THREADLINE_DATA_DIR=str(data_dir),
        THREADLINE_EMBEDDINGS=embeddings,
        THREADLINE_LLM="offline",
        **extra,
    )
    return env


def rss_kb(pid: int) -> int | None:
    """Resident set size of a process in KiB (Linux ``/proc``), None if unknown."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    except (OSError, ValueError):
        pass
    return None


def cpu_seconds(pid: int) -> float | None:
    """User + system CPU time of a process so far, in seconds (Linux ``/proc``)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError):
        return None


def machine_busy_seconds() -> float | None:
    """CPU seconds all processes of the machine have used so far (``/proc/stat``)."""
    try:
        fields = Path("/proc/stat").read_text().splitlines()[0].split()[1:]
        user, nice, system, _idle, _iowait, irq, softirq, steal = (int(x) for x in fields[:8])
        return (user + nice + system + irq + softirq + steal) / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError):
        return None


def start_py_spy(pid: int, seconds: float, out: Path) -> subprocess.Popen | None:
    """Sample ``pid`` with py-spy (collapsed stacks) for ``seconds``; None if not installed."""
    exe = shutil.which("py-spy") or str(Path(sys.executable).with_name("py-spy"))
    if not Path(exe).exists():
        return None
    out.parent.mkdir(parents=True, exist_ok=True)
    return subprocess.Popen(
        [
            exe,
            "record",
            "--pid",
            str(pid),
            "--duration",
            str(int(seconds)),
            "--rate",
            "200",
            "--format",
            "raw",
            "--nonblocking",
            "-o",
            str(out),
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )


def top_frames(collapsed: Path, limit: int = 25) -> list[tuple[str, float]]:
    """Share of samples spent in each function (anywhere on the stack), largest first."""
    totals: Counter[str] = Counter()
    samples = 0
    for line in collapsed.read_text("utf-8", errors="replace").splitlines():
        stack, _, count = line.rpartition(" ")
        if not count.isdigit():
            continue
        n = int(count)
        samples += n
        for frame in set(stack.split(";")):
            name = frame.split(" (", 1)[0]
            if name.startswith(("process ", "thread ")):
                continue
            totals[frame.rsplit(":", 1)[0] if ":" in frame else frame] += n
    return (
        [(name, round(100 * n / samples, 1)) for name, n in totals.most_common(limit)]
        if samples
        else []
    )


class ServerProcess:
    """`python -m threadline.cli serve` on a free loopback port (a child process).

    Args:
        data_dir: THREADLINE_DATA_DIR of the server.
        embeddings: THREADLINE_EMBEDDINGS.
        log_path: Where the server's output goes.
        env: More environment variables for the server.
    """

    def __init__(
        self, data_dir: Path, embeddings: str, log_path: Path, env: dict[str, str] | None = None
    ) -> None:
        self.port = free_port()
        self.url = f"http://{HOST}:{self.port}"
        self.log_path = log_path
        self._log = log_path.open("wb")
        self.process = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "threadline.cli",
                "serve",
                "--host",
                HOST,
                "--port",
                str(self.port),
            ],
            env=server_env(data_dir, embeddings, **(env or {})),
            cwd=data_dir,
            stdout=self._log,
            stderr=subprocess.STDOUT,
        )
        self.pid = self.process.pid

    def wait_healthy(self, timeout: float = 180.0) -> dict[str, Any]:
        """Poll /health until it answers 200; the health payload."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"server exited: {self.log_tail()}")
            try:
                response = httpx.get(f"{self.url}/health", timeout=5)
                if response.status_code == 200:
                    return response.json()
            except httpx.HTTPError:
                pass
            time.sleep(0.3)
        raise TimeoutError(f"server not healthy after {timeout:.0f}s: {self.log_tail()}")

    def log_tail(self, chars: int = 3000) -> str:
        """Return the end of the server's output."""
        self._log.flush()
        try:
            return self.log_path.read_text("utf-8", errors="replace")[-chars:]
        except OSError:
            return ""

    def log_errors(self) -> list[str]:
        """Lines of the server's output that report an error or a traceback."""
        self._log.flush()
        try:
            text = self.log_path.read_text("utf-8", errors="replace")
        except OSError:
            return []
        return [
            line
            for line in text.splitlines()
            if "Traceback" in line or " 500 " in line or line.startswith("ERROR")
        ]

    def stop(self) -> None:
        """SIGTERM, then SIGKILL after 20 s; idempotent."""
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self._log.close()


def ingest(data_dir: Path, sample_dir: Path, embeddings: str) -> float:
    """`threadline ingest` in a child process (the server must not be running); seconds."""
    started = time.perf_counter()
    subprocess.run(
        [sys.executable, "-m", "threadline.cli", "ingest", str(sample_dir)],
        env=server_env(data_dir, embeddings),
        cwd=data_dir,
        check=True,
        capture_output=True,
        timeout=600,
    )
    return time.perf_counter() - started
