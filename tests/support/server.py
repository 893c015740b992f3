"""`threadline serve` as a child process on a loopback port, for end-to-end tests."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx

CLI = [sys.executable, "-m", "threadline.cli"]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def server_env(data_dir: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("THREADLINE_", "OPENAI_"))}
    env.pop("QDRANT_URL", None)
    env["THREADLINE_DATA_DIR"] = str(data_dir)
    env.update(extra)
    return env


def run_cli(
    data_dir: Path, *args: str, timeout: float = 300, **env: str
) -> subprocess.CompletedProcess:
    """`threadline <args>` as a child process over this data directory (output captured)."""
    return subprocess.run(
        [*CLI, *args],
        env=server_env(data_dir, **env),
        cwd=data_dir,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def ingest(data_dir: Path, corpus: Path, **env: str) -> subprocess.CompletedProcess:
    """`threadline ingest <corpus>` into this data directory; fails the test if it fails."""
    result = run_cli(data_dir, "ingest", str(corpus), **env)
    assert result.returncode == 0, result.stderr
    return result


class Server:
    """`threadline serve` as a child process on a loopback port."""

    def __init__(self, data_dir: Path, **env: str) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.process = subprocess.Popen(
            [*CLI, "serve", "--host", "127.0.0.1", "--port", str(self.port)],
            env=server_env(data_dir, **env),
            cwd=data_dir,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
        )
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(self.process.stderr.read().decode()[-2000:])
            try:
                if httpx.get(f"{self.url}/health", timeout=2).status_code == 200:
                    return
            except httpx.HTTPError:
                time.sleep(0.3)
        self.stop()
        raise TimeoutError("server did not become healthy")

    def __enter__(self) -> Server:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.stop()

    def chat(self, **body) -> dict:
        response = httpx.post(f"{self.url}/chat", json=body, timeout=60)
        assert response.status_code == 200, response.text
        return response.json()

    def stop(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
