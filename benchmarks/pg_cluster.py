"""A throw-away PostgreSQL cluster for the tests and benchmarks (Debian's `postgresql`).

`initdb` in a temporary directory, a free loopback port, trust authentication on
127.0.0.1 only, the socket inside the directory (never /var/run/postgresql). The
server refuses to run as root, so when the caller is root the cluster belongs to
the `postgres` system user the Debian package creates (``runuser``).

    python -m benchmarks.pg_cluster   # start one, print its URL, stop on Enter
"""

from __future__ import annotations

import glob
import os
import pwd
import shutil
import socket
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any

SERVER_USER = "postgres"
"""The system user that owns the cluster when the caller is root."""


def find_bindir() -> Path | None:
    """Directory of `initdb`/`pg_ctl`: `$PG_BINDIR`, the newest Debian version, or PATH."""
    explicit = os.environ.get("PG_BINDIR")
    if explicit:
        return Path(explicit) if (Path(explicit) / "initdb").is_file() else None
    versions = sorted(
        glob.glob("/usr/lib/postgresql/*/bin/initdb"),
        key=lambda p: int(Path(p).parts[-3]) if Path(p).parts[-3].isdigit() else 0,
    )
    if versions:
        return Path(versions[-1]).parent
    found = shutil.which("initdb")
    return Path(found).parent if found else None


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class Cluster:
    """One PostgreSQL server in a temporary directory; `stop()` removes everything."""

    def __init__(self, bindir: Path | None = None, *, max_connections: int = 300) -> None:
        """Prepare (not start) a cluster.

        Args:
            bindir: Where `initdb` and `pg_ctl` live; found with `find_bindir` by default.
            max_connections: The server's connection limit (writer processes each hold
                a pool).

        Raises:
            RuntimeError: If PostgreSQL's server binaries are not installed.
        """
        found = bindir or find_bindir()
        if found is None:
            raise RuntimeError(
                "PostgreSQL is not installed (no initdb); apt-get install postgresql"
            )
        self.bindir = found
        self.max_connections = max_connections
        self.port = _free_port()
        self.root = Path(tempfile.mkdtemp(prefix="threadline-pg-"))
        self.datadir = self.root / "data"
        self._as_user: list[str] = []
        if os.geteuid() == 0:
            # initdb and postgres refuse root: run them as the package's system user.
            entry = pwd.getpwnam(SERVER_USER)
            os.chown(self.root, entry.pw_uid, entry.pw_gid)
            self._as_user = ["runuser", "-u", SERVER_USER, "--"]

    @property
    def url(self) -> str:
        """URL of the `postgres` database as the superuser."""
        return self.database_url("postgres")

    def database_url(self, database: str) -> str:
        """URL of one database of this cluster."""
        return f"postgresql://postgres@127.0.0.1:{self.port}/{database}"

    def _run(self, *args: str, timeout: float = 120) -> None:
        run = subprocess.run(
            [*self._as_user, *args], capture_output=True, text=True, timeout=timeout
        )
        if run.returncode != 0:
            raise RuntimeError(f"{Path(args[0]).name} failed: {(run.stderr or run.stdout)[-800:]}")

    def start(self) -> Cluster:
        """Create the cluster if needed and start the server; returns self."""
        if not (self.datadir / "PG_VERSION").exists():
            self._run(
                str(self.bindir / "initdb"),
                "-D",
                str(self.datadir),
                "-U",
                "postgres",
                "--auth=trust",
                "--encoding=UTF8",
                "--locale=C",
                "--no-instructions",
            )
        self._pg_ctl("start", "-w", "-t", "60", "-l", str(self.root / "server.log"))
        return self

    def _pg_ctl(self, command: str, *args: str) -> None:
        options = (
            f"-c listen_addresses=127.0.0.1 -c port={self.port} "
            f"-c unix_socket_directories={self.root} -c max_connections={self.max_connections}"
        )
        self._run(
            str(self.bindir / "pg_ctl"), command, "-D", str(self.datadir), "-o", options, *args
        )

    def restart(self) -> None:
        """Restart the server (fast shutdown: every client connection is cut)."""
        self._pg_ctl("restart", "-w", "-t", "60", "-m", "fast", "-l", str(self.root / "server.log"))

    def stop(self) -> None:
        """Stop the server and delete the cluster."""
        try:
            if (self.datadir / "postmaster.pid").exists():
                self._pg_ctl("stop", "-w", "-t", "60", "-m", "fast")
        finally:
            shutil.rmtree(self.root, ignore_errors=True)

    def cpu_seconds(self) -> float | None:
        """CPU time (user + system) the server's processes have used so far, from /proc.

        Backends that already exited are not counted, so read it while the clients
        whose work it measures are still connected.
        """
        try:
            postmaster = int((self.datadir / "postmaster.pid").read_text().split()[0])
        except (OSError, ValueError, IndexError):
            return None
        ticks = 0
        for entry in os.listdir("/proc"):
            if not entry.isdigit():
                continue
            try:
                fields = Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(entry) == postmaster or int(fields[1]) == postmaster:
                ticks += int(fields[11]) + int(fields[12])
        return ticks / os.sysconf("SC_CLK_TCK")

    def wait_ready(self, timeout: float = 30) -> None:
        """Wait until the server accepts connections."""
        import psycopg

        deadline = time.monotonic() + timeout
        while True:
            try:
                psycopg.connect(self.url, connect_timeout=2).close()
                return
            except psycopg.OperationalError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.1)

    def create_database(self, name: str, template: str | None = None) -> str:
        """Create a database (optionally a copy of `template`); returns its URL."""
        import psycopg
        from psycopg import sql

        statement = sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name))
        if template is not None:
            statement += sql.SQL(" TEMPLATE {}").format(sql.Identifier(template))
        with psycopg.connect(self.url, autocommit=True) as conn:
            conn.execute(statement)
        return self.database_url(name)

    def drop_database(self, name: str) -> None:
        """Drop a database, cutting its remaining connections."""
        import psycopg
        from psycopg import sql

        with psycopg.connect(self.url, autocommit=True) as conn:
            conn.execute(
                sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name))
            )


def migrated_database(url: str | None, log: Any = print) -> tuple[str, Cluster | None]:
    """Provide a migrated database for a benchmark: ``url``, or a new throw-away cluster's.

    Args:
        url: An existing database to migrate and use; ``None`` starts a cluster.
        log: Progress output.

    Returns:
        ``(url, cluster)``; the caller stops the cluster (``None`` when ``url`` was given).
    """
    import psycopg

    from threadline.store.pg_schema import migrate

    cluster = None
    if url is None:
        cluster = Cluster().start()
        cluster.wait_ready()
        url = cluster.create_database("threadline_bench")
        log(f"throw-away PostgreSQL cluster on port {cluster.port}")
    with psycopg.connect(url, autocommit=True) as conn:
        migrate(conn)
    return url, cluster


if __name__ == "__main__":
    cluster = Cluster().start()
    try:
        print(cluster.url, flush=True)  # noqa: T201
        input()
    finally:
        cluster.stop()
