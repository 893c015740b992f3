"""Debian packages the tests need (Chromium, PostgreSQL), installed with apt-get when missing."""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Sequence


def apt_install(packages: Sequence[str], *, what: str, timeout: float) -> str:
    """Install `packages` with apt-get (sudo -n when not root); returns "" or why it could not.

    Args:
        packages: Debian package names.
        what: What is missing, for the messages ("chromium", "postgresql").
        timeout: Seconds allowed to each apt-get command.
    """
    apt = shutil.which("apt-get")
    if apt is None:
        return f"{what} is not installed and apt-get is not available"
    sudo: list[str] = []
    if os.geteuid() != 0:
        if shutil.which("sudo") is None:
            return f"{what} is not installed and installing it needs root (apt-get)"
        sudo = ["sudo", "-n"]
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    for command in (
        [*sudo, apt, "update"],
        [*sudo, apt, "install", "-y", "--no-install-recommends", *packages],
    ):
        try:
            run = subprocess.run(command, env=env, capture_output=True, text=True, timeout=timeout)
        except (OSError, subprocess.TimeoutExpired) as exc:
            return f"{' '.join(command)} failed: {exc}"
        if run.returncode != 0:
            tail = (run.stderr or run.stdout).strip().splitlines()[-3:]
            return f"{' '.join(command)} failed: {' | '.join(tail)}"
    return ""
