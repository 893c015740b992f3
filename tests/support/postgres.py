"""A real PostgreSQL for the tests: Debian's `postgresql`, a throw-away cluster per run.

The server binaries come from apt (installed here when missing, like the browser
test's Chromium); the cluster itself (`benchmarks.pg_cluster`) lives in a
temporary directory on a free loopback port, run by the unprivileged `postgres`
user, and is removed at the end of the session. Each test gets its own database,
a copy of one migrated template, so tests never see each other's rows.

    python tests/support/postgres.py          # install postgresql with apt-get if missing
    python tests/support/postgres.py --check  # only report; exit 1 if it is missing
"""

from __future__ import annotations

import itertools
import os
import subprocess
import sys
from pathlib import Path

try:
    from support.debian import apt_install
except ModuleNotFoundError:  # run as a script: tests/support itself is on sys.path
    from debian import apt_install  # type: ignore[no-redef]

    # ... and the repository root is not, where benchmarks.pg_cluster lives (`make test`
    # runs this file as a script; pytest and `python -m` have the root on sys.path).
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

PACKAGES = ("postgresql",)
TEMPLATE = "threadline_template"
_names = itertools.count()


def install_postgresql(timeout: float = 900) -> tuple[str | None, str]:
    """Install Debian's `postgresql` with apt-get when missing; returns (bindir, why not)."""
    from benchmarks.pg_cluster import find_bindir

    found = find_bindir()
    if found:
        return str(found), ""
    why = apt_install(PACKAGES, what="postgresql", timeout=timeout)
    if why:
        return None, why
    found = find_bindir()
    return (str(found), "") if found else (None, "apt-get installed postgresql but no initdb")


def start_cluster():
    """Install if needed, start a cluster and create the migrated template database."""
    import psycopg

    from benchmarks.pg_cluster import Cluster
    from threadline.store.pg_schema import migrate

    bindir, why = install_postgresql()
    if bindir is None:
        raise RuntimeError(f"PostgreSQL for the tests: {why}")
    cluster = Cluster().start()
    try:
        cluster.wait_ready()
        url = cluster.create_database(TEMPLATE)
        with psycopg.connect(url, autocommit=True) as conn:
            migrate(conn)
    except BaseException:
        cluster.stop()
        raise
    return cluster


def fresh_database(cluster, *, migrated: bool = True) -> tuple[str, str]:
    """A new database (a copy of the migrated template, or empty); returns (name, URL)."""
    name = f"t{os.getpid()}_{next(_names)}"
    return name, cluster.create_database(name, TEMPLATE if migrated else None)


def psql(url: str, sql: str) -> subprocess.CompletedProcess:
    """Run SQL with the real `psql` client (as the cluster's tests see it: text output)."""
    from benchmarks.pg_cluster import find_bindir

    bindir = find_bindir()
    binary = str(bindir / "psql") if bindir and (bindir / "psql").is_file() else "psql"
    return subprocess.run(
        [binary, url, "-X", "-v", "ON_ERROR_STOP=1", "-c", sql],
        capture_output=True,
        text=True,
        timeout=60,
    )


def main(argv: list[str]) -> int:
    if "--check" in argv:
        from benchmarks.pg_cluster import find_bindir

        found = find_bindir()
        print(found or "postgresql: not installed")
        return 0 if found else 1
    bindir, why = install_postgresql()
    if bindir is None:
        print(f"postgresql: {why}", file=sys.stderr)
        return 1
    print(bindir)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
