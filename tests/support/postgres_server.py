"""A real PostgreSQL server for tests: ``initdb`` in a temporary folder, ``pg_ctl start`` on a free loopback port,
removed again by ``stop``. PostgreSQL refuses to run as root, so under uid 0 every server command runs as the
``postgres`` user (``runuser -u postgres --``) on a folder it owns."""

from __future__ import annotations

import glob
import itertools
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

import psycopg

from .servers import free_port

SERVER_USER = "postgres"
"""The system user that runs the server when the tests run as root."""
SUPERUSER = "arena"
"""The database superuser made by ``initdb`` (trust authentication: no password)."""
START_TIMEOUT = 30


def find_binary(name: str) -> str:
    """The newest ``/usr/lib/postgresql/<version>/bin/<name>``; ``FileNotFoundError`` when PostgreSQL is missing."""
    found = sorted(glob.glob(f"/usr/lib/postgresql/*/bin/{name}"), key=lambda path: int(Path(path).parts[4]))
    if not found:
        raise FileNotFoundError(f"no /usr/lib/postgresql/*/bin/{name}: install the postgresql package")
    return found[-1]


class PostgresServer:
    """A throw-away PostgreSQL cluster on 127.0.0.1 and a free port, trust authentication, fsync off (nothing here
    outlives the test run), its unix socket inside its own temporary folder. ``create_database()`` gives the
    ``postgresql://`` URL of a new empty database; ``stop`` shuts the server down and deletes the folder."""

    def __init__(self, port: int | None = None) -> None:
        self.port = port or free_port()
        self.folder: Path | None = None
        self.running = False
        """Whether the server runs (between ``resume`` and ``pause``)."""
        self._names = itertools.count(1)

    @property
    def as_root(self) -> bool:
        return os.geteuid() == 0

    def _run(self, *command: str) -> None:
        prefix = ["runuser", "-u", SERVER_USER, "--"] if self.as_root else []
        result = subprocess.run([*prefix, *command], capture_output=True, text=True, timeout=START_TIMEOUT)
        if result.returncode != 0:
            raise RuntimeError(f"{' '.join(command)} failed ({result.returncode}):\n{result.stdout}{result.stderr}")

    def start(self) -> PostgresServer:
        """Create the cluster and start the server; returns once it accepts connections."""
        self.folder = Path(tempfile.mkdtemp(prefix="arena-postgres-"))
        if self.as_root:
            shutil.chown(self.folder, SERVER_USER, SERVER_USER)
        data = self.folder / "data"
        self._run(find_binary("initdb"), "-D", str(data), "-U", SUPERUSER, "-A", "trust", "-E", "UTF8",
                  "--no-sync", "--no-instructions")
        try:
            self.resume()
        except RuntimeError as error:
            log = self.log()
            shutil.rmtree(self.folder, ignore_errors=True)
            self.folder = None
            raise RuntimeError(f"{error}\n{log}") from None
        return self

    def resume(self) -> None:
        """Start the server of the cluster (again, after ``pause``); returns once it accepts connections."""
        assert self.folder is not None, "start() first"
        settings = (f"-p {self.port} -c listen_addresses=127.0.0.1 -c unix_socket_directories={self.folder} "
                    "-c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=200")
        self._run(find_binary("pg_ctl"), "-D", str(self.folder / "data"), "-l", str(self.folder / "server.log"),
                  "-o", settings, "-w", "-t", str(START_TIMEOUT), "start")
        self.running = True

    def pause(self) -> None:
        """Stop the server (fast shutdown: open connections are closed), keeping its data for ``resume``."""
        assert self.folder is not None, "start() first"
        self._run(find_binary("pg_ctl"), "-D", str(self.folder / "data"), "-m", "fast", "-w", "stop")
        self.running = False

    def log(self) -> str:
        """The server's log so far."""
        path = self.folder / "server.log" if self.folder else None
        return path.read_text() if path and path.exists() else ""

    def url(self, database: str = "postgres") -> str:
        """The ``postgresql://`` URL of ``database`` on this server."""
        return f"postgresql://{SUPERUSER}@127.0.0.1:{self.port}/{database}"

    def create_database(self) -> str:
        """Create a new empty database and return its ``postgresql://`` URL."""
        name = f"arena_{next(self._names)}"
        with psycopg.connect(f"host=127.0.0.1 port={self.port} user={SUPERUSER} dbname=postgres",
                             autocommit=True) as connection:
            connection.execute(f'CREATE DATABASE "{name}"')
        return self.url(name)

    def stop(self) -> None:
        """Stop the server (fast shutdown: open connections are closed) and delete its folder."""
        if self.folder is None:
            return
        try:
            if self.running:
                self.pause()
        finally:
            shutil.rmtree(self.folder, ignore_errors=True)
            self.folder = None
