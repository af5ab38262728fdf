"""Shared fixtures for the whole suite, and its markers: ``browser`` for the tests in ``tests/browser`` (they drive
Chromium), ``servers`` for every test that starts real servers (gunicorn, nginx, redis-server, PostgreSQL, or the
browser tests' gunicorn)."""

from __future__ import annotations

import contextlib
import os
import socket
from collections.abc import Iterator
from pathlib import Path

import pytest

BROWSER_TESTS = Path(__file__).parent / "browser"


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Mark every browser test ``browser`` and ``servers``."""
    for item in items:
        if BROWSER_TESTS in item.path.parents:
            item.add_marker(pytest.mark.browser)
            item.add_marker(pytest.mark.servers)


@pytest.fixture(scope="session", autouse=True)
def engine_cache(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """The engine's cache folder (``ARENA_CACHE``: solved tables, the opening index) for this run, shared by its
    parallel workers and by every server they start, never the user's own ``~/.cache``."""
    root = tmp_path_factory.getbasetemp()
    if "PYTEST_XDIST_WORKER" in os.environ:
        root = root.parent  # the run's folder, above each worker's own
    folder = root / "arena-cache"
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("ARENA_CACHE", str(folder))
        yield folder


@pytest.fixture(scope="session")
def postgres_server():
    """A real PostgreSQL server on a free loopback port for the whole run (started on first use, stopped at the
    end); ``postgres_server.create_database()`` gives the ``postgresql://`` URL of a new empty database."""
    from support.postgres_server import PostgresServer

    server = PostgresServer().start()
    yield server
    server.stop()


@pytest.fixture(params=["sqlite", "postgresql"])
def database_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """A new empty database, once a SQLite file and once a database on the test PostgreSQL server."""
    if request.param == "postgresql":
        return request.getfixturevalue("postgres_server").create_database()
    return f"sqlite:///{tmp_path / 'arena.sqlite3'}"


@pytest.fixture
def live_server(tmp_path: Path):
    """A real gunicorn serving the app on a free loopback port, with SQLite in ``tmp_path``; stopped afterwards.
    Attributes: ``url``, ``port``, ``start()``, ``stop()``, ``kill()``, ``get(path)``, ``post(path, body)``."""
    from support.servers import LiveServer

    server = LiveServer(tmp_path / "instance").start()
    yield server
    server.stop()


@pytest.fixture(scope="module")
def module_server(tmp_path_factory: pytest.TempPathFactory):
    """One real gunicorn (as ``live_server``) for all the tests of a module, for modules whose tests each make
    games of their own and never stop the server or count what it holds; per-address limits
    ``servers.GENEROUS_CONNECTIONS`` (every test of the module comes from 127.0.0.1)."""
    from support.servers import GENEROUS_CONNECTIONS, LiveServer

    server = LiveServer(tmp_path_factory.mktemp("server") / "instance", env=GENEROUS_CONNECTIONS).start()
    yield server
    server.stop()


@pytest.fixture
def clock():
    """A ``helpers.ManualClock``: a test that asks for it gets an ``app`` whose time moves only when the test
    advances it."""
    from support.clocks import ManualClock

    return ManualClock()


@pytest.fixture
def app(request: pytest.FixtureRequest, tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """The Flask app with its instance folder (SQLite file, secret key) in ``tmp_path``, on the test's ``clock`` if
    it asks for one (else the system's), its searches run by the real engine on one thread of the test's process
    (``fakes.ThreadRunner``), or, for a test marked ``engine_processes``, by one engine worker process as a node
    runs them; its runner is stopped afterwards."""
    from support.fakes import ThreadRunner

    from webapp import create_app

    monkeypatch.setenv("ARENA_INSTANCE", str(tmp_path / "instance"))
    for name in ("DATABASE_URL", "SECRET_KEY", "ARENA_WORKERS", "SOCKETIO_MESSAGE_QUEUE", "ARENA_SEARCH_QUEUE",
                 "ARENA_CREATE_LIMIT", "ARENA_SEAT_LIMIT", "ARENA_MOVE_LIMIT", "ARENA_LAB_LIMIT",
                 "ARENA_ANALYSIS_LIMIT", "ARENA_READ_LIMIT", "ARENA_CONNECT_LIMIT", "ARENA_SOCKETS_PER_ADDRESS"):
        monkeypatch.delenv(name, raising=False)
    clock = request.getfixturevalue("clock") if "clock" in request.fixturenames else None
    runner = None if request.node.get_closest_marker("engine_processes") else ThreadRunner()
    application = create_app({"TESTING": True, "ARENA_WORKERS": 1}, clock, runner)
    yield application
    application.extensions["arena"].close()


@pytest.fixture
def hand_arena(tmp_path: Path):
    """The game core on a ``fakes.HandRunner`` (``fakes.HandArena``): the test answers each search itself, and reads
    every event sent; closed afterwards."""
    from support.fakes import HandArena

    setup = HandArena.open(tmp_path)
    yield setup
    setup.close()


@pytest.fixture
def client(app):
    """A Flask test client of ``app``."""
    return app.test_client()


@pytest.fixture
def socket_pair() -> Iterator[tuple[socket.socket, socket.socket]]:
    """A connected pair of real sockets, closed afterwards: (the server's end, the client's end)."""
    server, client = socket.socketpair()
    with contextlib.closing(server), contextlib.closing(client):
        yield server, client
