"""Real servers for tests: gunicorn on a free loopback port (``LiveServer``), Socket.IO clients that record
what they receive and wait for it with timeouts (``EventClient``), raw WebSockets (``open_websocket``,
``masked_frame``) and a client sending without pause (``flooding``)."""

from __future__ import annotations

import contextlib
import fcntl
import itertools
import os
import signal
import socket
import subprocess
import sys
import tempfile
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import engineio
import requests
import socketio

from .inbox import Inbox
from .waiting import eventually

ROOT = Path(__file__).resolve().parents[2]
START_TIMEOUT = 30.0

GENEROUS_LIMITS = {name: "100000/minute" for name in
                   ("ARENA_CREATE_LIMIT", "ARENA_SEAT_LIMIT", "ARENA_MOVE_LIMIT", "ARENA_LAB_LIMIT",
                    "ARENA_ANALYSIS_LIMIT", "ARENA_READ_LIMIT", "ARENA_CONNECT_LIMIT")}
"""Per-address rate limits (``webapp.views.address_limits``) for tests and benchmarks that legitimately create hundreds
of games, moves, reads or connections from one loopback address; as config keys or environment variables."""
GENEROUS_CONNECTIONS = {**GENEROUS_LIMITS, "ARENA_SOCKETS_PER_ADDRESS": "100000"}
"""``GENEROUS_LIMITS`` and a per-address cap on Socket.IO connections far above the hundreds these tests and
benchmarks open from one loopback address; as environment variables of a ``LiveServer``."""


def _test_ports() -> range:
    """The larger of the port ranges below and above the system's ephemeral range."""
    low, high = (int(bound) for bound in Path("/proc/sys/net/ipv4/ip_local_port_range").read_text().split())
    below, above = range(max(1024, low - 16_384), low), range(high + 1, 65_536)
    ports = max(below, above, key=len)
    if len(ports) < 1_000:
        raise RuntimeError(f"the ephemeral port range {low}-{high} leaves too few ports for the tests' servers")
    return ports


TEST_PORTS = _test_ports()
"""The ports the tests' servers listen on: outside the system's ephemeral range, which the system hands out for
every client connection and ``bind(0)``, so none of those can take a server's port while the server is stopped
between a stop and a start on that port (an outage test)."""
PORT_LOCKS = Path(tempfile.gettempdir()) / "arena-test-ports"
"""One lock file per port handed out: a process holds the lock of each port it took until it exits, so no other
test process (another pytest-xdist worker, another run on the machine) takes that port meanwhile, even while its
server is stopped."""
_start_index = os.getpid() * 7_919 % len(TEST_PORTS)
_handed_out = itertools.count()
_held_locks: list[int] = []


def free_port() -> int:
    """A port of ``TEST_PORTS`` that was free on 127.0.0.1 a moment ago and that no other living process took from
    here (its lock is now held by this process until it exits)."""
    PORT_LOCKS.mkdir(exist_ok=True)
    for _ in TEST_PORTS:
        port = TEST_PORTS[(_start_index + next(_handed_out)) % len(TEST_PORTS)]
        lock = os.open(PORT_LOCKS / str(port), os.O_CREAT | os.O_RDWR)
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
            with socket.socket() as sock:
                sock.bind(("127.0.0.1", port))
        except OSError:  # locked by another process, or in use by a server that is not ours
            os.close(lock)
            continue
        _held_locks.append(lock)
        return port
    raise RuntimeError(f"no free port in {TEST_PORTS}")


class LiveServer:
    """``gunicorn -w 1 "webapp:create_app()"`` (or ``app``, importable from the tests' folder) on 127.0.0.1 (the
    gevent worker of gunicorn.conf.py), with its instance folder (SQLite file and secret key) in ``instance``.
    ``start`` waits until the API answers; ``stop`` sends SIGTERM, ``kill`` SIGKILL to the whole process group
    (gunicorn and the engine workers)."""

    def __init__(self, instance: Path, env: dict[str, str] | None = None, port: int | None = None,
                 graceful_timeout: float = 5, app: str = "webapp:create_app()") -> None:
        self.instance = instance
        self.app = app
        self.graceful_timeout = graceful_timeout
        self.port = port or free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.env = {**os.environ, "ARENA_INSTANCE": str(instance), "ARENA_WORKERS": "1", **(env or {})}
        self.process: subprocess.Popen[bytes] | None = None
        self.log = instance / "gunicorn.log"

    def start(self) -> LiveServer:
        """Start gunicorn and wait (at most 30 s) for ``GET /api/games`` to answer 200."""
        self.instance.mkdir(parents=True, exist_ok=True)
        command = [sys.executable, "-m", "gunicorn", "-w", "1",
                   "--graceful-timeout", str(self.graceful_timeout), "--no-control-socket",
                   "--pythonpath", str(Path(__file__).resolve().parent), "-b", f"127.0.0.1:{self.port}", self.app]
        with self.log.open("ab") as log:
            self.process = subprocess.Popen(command, cwd=ROOT, env=self.env, stdout=log, stderr=log,
                                            start_new_session=True)
        try:
            self._wait_until_answering()
        except BaseException:
            self.kill()
            raise
        return self

    def _wait_until_answering(self) -> None:
        process = self.process
        assert process is not None

        def answering() -> bool:
            if process.poll() is not None:
                raise RuntimeError(f"gunicorn exited with {process.returncode}:\n{self.log.read_text()}")
            try:
                return requests.get(self.url + "/api/games", timeout=5).status_code == 200
            except requests.RequestException:
                return False

        try:
            eventually(answering, "gunicorn's first answer", START_TIMEOUT)
        except AssertionError as error:
            raise RuntimeError(f"{error}:\n{self.log.read_text()}") from error

    def stop(self) -> None:
        """SIGTERM, then SIGKILL if it has not exited within 15 s."""
        if self.process is None or self.process.poll() is not None:
            return
        os.killpg(self.process.pid, signal.SIGTERM)
        try:
            self.process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            self.kill()

    def kill(self) -> None:
        """SIGKILL gunicorn's whole process group, as a crash or power cut would."""
        if self.process is None:
            return
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.process.pid, signal.SIGKILL)
        self.process.wait(timeout=10)

    def engine_workers(self) -> list[int]:
        """The process ids of the server's engine workers (the ``spawn`` processes of its search pool)."""
        assert self.process is not None
        workers = []
        for entry in Path("/proc").iterdir():
            with contextlib.suppress(OSError):
                if entry.name.isdigit() and os.getsid(int(entry.name)) == self.process.pid \
                        and b"spawn_main" in (entry / "cmdline").read_bytes():
                    workers.append(int(entry.name))
        return workers

    def post(self, path: str, body: dict[str, Any] | None = None, **kwargs: Any) -> requests.Response:
        return requests.post(self.url + path, json=body if body is not None else {}, timeout=10, **kwargs)

    def get(self, path: str, **kwargs: Any) -> requests.Response:
        return requests.get(self.url + path, timeout=10, **kwargs)


class _InOrderEngineIOClient(engineio.Client):
    """An Engine.IO client that handles each message on its reading thread, in the order they arrive (the library's
    client starts a thread per message, so two messages arriving together could be handled in either order)."""

    def _trigger_event(self, event: str, *args: Any, **kwargs: Any) -> Any:
        return super()._trigger_event(event, *args, **{**kwargs, "run_async": False})


class _InOrderClient(socketio.Client):
    """A python-socketio client whose events are handled in the order they arrive."""

    def _engineio_client_class(self) -> type[engineio.Client]:
        return _InOrderEngineIOClient


class EventClient(Inbox):
    """A python-socketio client (WebSocket transport) that is the ``Inbox`` of every event it receives, in the order
    it arrives."""

    def __init__(self, url: str, token: str | None = None,
                 on_event: Callable[[str, Any], None] | None = None) -> None:
        """Connects to ``url``; ``on_event(event, data)``, when given, is called on the reading thread as each event
        arrives, before the next one is read."""
        super().__init__()
        self._on_event = on_event
        self.disconnects: list[str] = []
        """Why the client was disconnected, each time it was (python-socketio's reasons: ``"server disconnect"``
        when the server's Socket.IO disconnect arrived, ``"transport close"`` or ``"transport error"`` when the
        connection ended without one)."""
        self.sio = _InOrderClient(reconnection=False)
        self.sio.on("*", self._record)
        self.sio.on("disconnect", self._disconnected)
        self.sio.connect(url, auth={"token": token} if token else None, transports=["websocket"], wait_timeout=10)

    def _disconnected(self, reason: object = None) -> None:
        self.disconnects.append(str(reason))

    def _record(self, event: str, data: Any = None) -> None:
        self.add(event, data)
        if self._on_event is not None:
            self._on_event(event, data)

    def emit(self, event: str, data: Any) -> None:
        self.sio.emit(event, data)

    def close(self) -> None:
        self.sio.disconnect()


class SearchFreezer:
    """A spectator of one game that freezes the server's engine workers (SIGSTOP) the moment it hears a ``search``
    event matching what ``freeze_at`` was given: from then on the search sends nothing new and cannot end until
    ``thaw``, so a test can look at what the pages show of a running search however slow the machine is. The
    worker may have sent a few more events between the one matched and the signal: those still arrive, and
    ``latest`` gives the last one heard. The search's own clock runs on while it is frozen, so once thawed it ends
    at its next check. A cancel made while it is frozen may have to wait for ``thaw`` (the frozen process can hold a
    lock the cancel needs). Use it as a context manager: leaving stops matching, closes the socket and thaws."""

    def __init__(self, server: LiveServer, game_id: str) -> None:
        self._server = server
        self._lock = threading.Lock()
        self._matches: Callable[[dict[str, Any]], bool] | None = None
        self._frozen: list[int] = []
        self._problem: str | None = None
        self.frozen_on: dict[str, Any] | None = None
        """The ``search`` payload the workers were frozen on."""
        self._froze = threading.Event()
        self._client = EventClient(server.url, on_event=self._hear)
        self._client.emit("join", {"game_id": game_id})
        self._client.wait_for("state")

    def freeze_at(self, matches: Callable[[dict[str, Any]], bool]) -> None:
        """Freeze at the next ``search`` event (its whole payload, ``{"ply", "seat", "info"}``) that ``matches``."""
        with self._lock:
            self._matches, self.frozen_on = matches, None
            self._froze.clear()

    def _hear(self, event: str, data: Any) -> None:
        with self._lock:
            if event != "search" or self._matches is None or not self._matches(data):
                return
            self._matches, self.frozen_on = None, data
            workers = self._server.engine_workers()
            if not workers:
                self._problem = "the server has no engine worker process to freeze"
            for pid in workers:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGSTOP)
                    self._frozen.append(pid)
            self._froze.set()

    def wait_frozen(self, timeout: float = 30) -> dict[str, Any]:
        """The payload the workers were frozen on, once they are; raises ``TimeoutError`` after ``timeout`` s."""
        if not self._froze.wait(timeout):
            raise TimeoutError(f"no matching search event within {timeout} s; got {self._client.summary()}")
        assert self._problem is None, self._problem
        assert self.frozen_on is not None
        return self.frozen_on

    def latest(self, ply: int) -> dict[str, Any]:
        """The ``info`` of the last "progress" or "depth" event heard from the search at ``ply``."""
        running = [data["info"] for data in self._client.received("search")
                   if data["ply"] == ply and data["info"]["kind"] in ("progress", "depth")]
        assert running, f"no search event of ply {ply} heard"
        return running[-1]

    def thaw(self) -> None:
        """Let the frozen workers go on (SIGCONT)."""
        with self._lock:
            for pid in self._frozen:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGCONT)
            self._frozen = []

    def __enter__(self) -> SearchFreezer:
        return self

    def __exit__(self, *exc: object) -> None:
        with self._lock:
            self._matches = None
        self._client.close()
        self.thaw()

WEBSOCKET_UPGRADE = ("GET /socket.io/?EIO=4&transport=websocket HTTP/1.1\r\nHost: {host}\r\nUpgrade: websocket\r\n"
                     "Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
                     "Sec-WebSocket-Version: 13\r\n\r\n")
"""A client's request opening an Engine.IO WebSocket (``str.format`` it with ``host``)."""


def masked_frame(opcode: int, payload: bytes) -> bytes:
    """A client's WebSocket frame (``opcode``: 0x1 text, 0x2 binary) of up to 65,535 bytes, masked with a zero key
    (as RFC 6455 allows)."""
    length = len(payload)
    head = bytes([0x80 | opcode, 0x80 | length]) if length < 126 else bytes([0x80 | opcode, 0xFE]) + length.to_bytes(2)
    return head + b"\0\0\0\0" + payload


def open_websocket(port: int, timeout: float | None = None) -> tuple[socket.socket, bytes]:
    """A raw WebSocket to the Engine.IO endpoint of the server on ``port``, joined to the Socket.IO namespace when
    the server accepts it: ``(socket, the head of the server's answer)``; ``timeout`` is the socket's."""
    sock = socket.create_connection(("127.0.0.1", port), timeout=timeout)
    sock.sendall(WEBSOCKET_UPGRADE.format(host=f"127.0.0.1:{port}").encode())
    answer = b""
    while b"\r\n\r\n" not in answer and (chunk := sock.recv(4096)):
        answer += chunk
    if answer.startswith(b"HTTP/1.1 101"):
        sock.sendall(masked_frame(0x1, b"40"))  # Socket.IO's namespace connect
    return sock, answer


@dataclass
class Flood:
    """What ``flooding`` reports: the bytes sent so far, and the sending thread (alive while the flood goes on)."""

    sent: int = 0
    sender: threading.Thread = field(default_factory=threading.Thread)


@contextlib.contextmanager
def flooding(sock: socket.socket, chunk: bytes) -> Iterator[Flood]:
    """Send ``chunk`` on ``sock`` again and again without pause (with no timeout: a send waits as long as the server
    does not read), and read and drop whatever the server answers, until the block ends or the server ends the
    connection; then close ``sock``."""
    sock.settimeout(None)
    flood = Flood()
    stop = threading.Event()

    def send() -> None:
        with contextlib.suppress(OSError):
            while not stop.is_set():
                sock.sendall(chunk)
                flood.sent += len(chunk)

    def drain() -> None:
        with contextlib.suppress(OSError):
            while not stop.is_set() and sock.recv(65536):
                pass

    flood.sender = threading.Thread(target=send, name="flood", daemon=True)
    drainer = threading.Thread(target=drain, name="flood-drain", daemon=True)
    flood.sender.start()
    drainer.start()
    try:
        yield flood
    finally:
        stop.set()
        with contextlib.suppress(OSError):
            sock.shutdown(socket.SHUT_RDWR)
        sock.close()
        flood.sender.join()
        drainer.join()
