"""Headless Chromium for the web page's end-to-end test: Debian's package, driven by Playwright.

Playwright's own browser download is never used (`playwright install` needs the
network at run time); the test launches the system's `chromium` instead.

    python tests/support/browser.py          # install chromium with apt-get if missing
    python tests/support/browser.py --check  # only report; exit 1 if it is missing
"""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

# Fonts are only recommended by chromium; without them pages render in fallback glyphs.
try:
    from support.debian import apt_install
except ModuleNotFoundError:  # run as a script: tests/support itself is on sys.path
    from debian import apt_install  # type: ignore[no-redef]

PACKAGES = ("chromium", "fonts-liberation", "fonts-dejavu-core")

CANDIDATES = ("/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/lib/chromium/chromium")

LAUNCH_ARGS = [
    "--headless=new",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def find_chromium() -> str | None:
    """The Chromium binary: `THREADLINE_CHROMIUM`, a Debian path, or `chromium` on PATH."""
    explicit = os.environ.get("THREADLINE_CHROMIUM")
    if explicit:
        return explicit if Path(explicit).is_file() else None
    for path in CANDIDATES:
        if Path(path).is_file() and os.access(path, os.X_OK):
            return path
    return shutil.which("chromium") or shutil.which("chromium-browser")


def install_chromium(timeout: float = 900) -> tuple[str | None, str]:
    """Install Debian's `chromium` with apt-get when missing; returns (path, why not)."""
    found = find_chromium()
    if found:
        return found, ""
    why = apt_install(PACKAGES, what="chromium", timeout=timeout)
    if why:
        return None, why
    found = find_chromium()
    return (found, "") if found else (None, "apt-get installed chromium but no binary was found")


def playwright_missing() -> str | None:
    """Why Playwright's Python package cannot be used, or None."""
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError as exc:
        return f"the playwright package is not installed ({exc}); pip install playwright"
    return None


def main(argv: list[str]) -> int:
    if "--check" in argv:
        path = find_chromium()
        print(path or "chromium: not installed")
        problem = playwright_missing()
        if problem:
            print(problem)
        return 0 if path and not problem else 1
    path, why = install_chromium()
    if path is None:
        print(f"chromium: {why}", file=sys.stderr)
        return 1
    print(path)
    problem = playwright_missing()
    if problem:
        print(problem, file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
