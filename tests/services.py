"""Real Debian servers for the scale tests, each started on loopback in a temporary folder and stopped by the test:
``RedisServer`` (redis-server) and ``Nginx`` (nginx with ``deploy/nginx.conf`` exactly as committed)."""

from __future__ import annotations

import contextlib
import socket
import subprocess
import time
from collections.abc import Callable
from pathlib import Path

from servers import ROOT, free_port

REDIS_SERVER = "/usr/bin/redis-server"
NGINX = "/usr/sbin/nginx"
NGINX_CONF = ROOT / "deploy" / "nginx.conf"
NGINX_SINGLE_CONF = ROOT / "deploy" / "nginx-single.conf"
NGINX_PORT = 8080
"""Where ``deploy/nginx.conf`` listens; its upstream nodes are on ``NODE_PORTS``."""
NODE_PORTS = (8001, 8002)
START_TIMEOUT = 15.0


def wait_for_port(port: int, timeout: float = START_TIMEOUT) -> None:
    """Return once 127.0.0.1:``port`` accepts a TCP connection; ``TimeoutError`` after ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), timeout=1):
            return
        time.sleep(0.05)
    raise TimeoutError(f"nothing listens on 127.0.0.1:{port} after {timeout} s")


def wait_until_free(ports: tuple[int, ...], timeout: float, on_wait: Callable[[list[int]], None] | None = None,
                    interval: float = 1.0) -> None:
    """Return once nothing listens on any of ``ports`` (another run may be using the fixed ports of
    deploy/nginx.conf); ``on_wait(busy ports)`` is called before each pause; ``RuntimeError`` after ``timeout``."""
    deadline = time.monotonic() + timeout
    while True:
        listening = subprocess.run(["ss", "-ltnH"], capture_output=True, text=True, check=True).stdout
        busy = [port for port in ports if f"127.0.0.1:{port} " in listening or f"*:{port} " in listening]
        if not busy:
            return
        if time.monotonic() > deadline:
            raise RuntimeError(f"ports {busy} are still in use after {timeout:g} s")
        if on_wait is not None:
            on_wait(busy)
        time.sleep(interval)


def stop_process(process: subprocess.Popen[bytes] | None) -> None:
    """SIGTERM ``process`` (if it runs), then SIGKILL if it has not exited within 5 s."""
    if process is None or process.poll() is not None:
        return
    process.terminate()
    try:
        process.wait(timeout=5)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait(timeout=5)


def descendants(pid: int) -> set[int]:
    """Every process below ``pid`` (Linux ``/proc``): a gunicorn master's worker and its engine processes."""
    found: set[int] = set()
    pending = [pid]
    while pending:
        current = pending.pop()
        try:
            children = Path(f"/proc/{current}/task/{current}/children").read_text().split()
        except FileNotFoundError:
            continue
        for child in map(int, children):
            found.add(child)
            pending.append(child)
    return found


def alive(pid: int) -> bool:
    """Whether process ``pid`` exists and is not a zombie."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except FileNotFoundError:
        return False
    return state != "Z"


class RedisServer:
    """``redis-server`` on a free loopback port, no persistence, its log in ``folder``. ``url`` is its
    ``redis://`` address; ``stop`` and ``start`` again keep the same port (to test an outage and a recovery)."""

    def __init__(self, folder: Path, port: int | None = None) -> None:
        self.folder = folder
        self.port = port or free_port()
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self.process: subprocess.Popen[bytes] | None = None

    def start(self) -> RedisServer:
        self.folder.mkdir(parents=True, exist_ok=True)
        command = [REDIS_SERVER, "--port", str(self.port), "--bind", "127.0.0.1", "--save", "", "--appendonly",
                   "no", "--dir", str(self.folder), "--logfile", str(self.folder / "redis.log"),
                   "--maxclients", "10000"]
        self.process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        wait_for_port(self.port)
        return self

    def stop(self) -> None:
        """Stop the server (SIGTERM, then SIGKILL after 5 s); clients see their connections drop."""
        stop_process(self.process)


class Nginx:
    """nginx run with ``conf`` unchanged (``deploy/nginx.conf`` or ``NGINX_SINGLE_CONF``), its pid, logs and
    temporary files under ``prefix``; ``port`` is the one the conf listens on (deploy's: 8080). With deploy/'s confs
    it spreads clients over the nodes on ports 8001 and 8002 (``ip_hash``), or sends them all to 8001."""

    def __init__(self, prefix: Path, conf: Path = NGINX_CONF, port: int = NGINX_PORT) -> None:
        self.prefix = prefix
        self.conf = conf
        self.port = port
        self.url = f"http://127.0.0.1:{port}"
        self.process: subprocess.Popen[bytes] | None = None

    def start(self) -> Nginx:
        for folder in ("logs", "tmp"):
            (self.prefix / folder).mkdir(parents=True, exist_ok=True)
        command = [NGINX, "-p", str(self.prefix), "-c", str(self.conf), "-g", "daemon off;"]
        self.process = subprocess.Popen(command, stdout=subprocess.DEVNULL,
                                        stderr=(self.prefix / "logs" / "stderr.log").open("wb"))
        try:
            wait_for_port(self.port)
        except TimeoutError:
            self.stop()
            raise RuntimeError(f"nginx did not start: {self.error_log()}") from None
        return self

    def error_log(self) -> str:
        return "\n".join(path.read_text() for path in (self.prefix / "logs").glob("*.log"))

    def stop(self) -> None:
        stop_process(self.process)
