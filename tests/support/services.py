"""Real Debian servers for the scale tests, each started on loopback in a temporary folder and stopped by the test:
``RedisServer`` (redis-server) and ``Nginx`` (nginx with deploy/'s confs as committed, on free ports)."""

from __future__ import annotations

import contextlib
import re
import socket
import subprocess
from pathlib import Path

from .servers import ROOT, free_port
from .waiting import eventually

REDIS_SERVER = "/usr/bin/redis-server"
NGINX = "/usr/sbin/nginx"
NGINX_CONF = ROOT / "deploy" / "nginx.conf"
NGINX_SINGLE_CONF = ROOT / "deploy" / "nginx-single.conf"
DEPLOY_PORT = 8080
"""Where ``deploy/arena.conf`` listens; its upstream nodes are on ``DEPLOY_NODE_PORTS``."""
DEPLOY_NODE_PORTS = (8001, 8002)
START_TIMEOUT = 15.0


def wait_for_port(port: int, timeout: float = START_TIMEOUT) -> None:
    """Return once 127.0.0.1:``port`` accepts a TCP connection; ``AssertionError`` after ``timeout`` seconds."""

    def accepts() -> bool:
        with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), timeout=1):
            return True
        return False

    eventually(accepts, f"a listener on 127.0.0.1:{port}", timeout)


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
    """nginx run with ``conf`` (``deploy/nginx.conf``, ``NGINX_SINGLE_CONF``, or a conf of the caller's), its pid,
    logs and temporary files under ``prefix``. A deploy/ conf runs as committed but for its addresses: it listens on
    ``port`` instead of 8080 and passes to ``node_ports`` instead of 8001 and 8002 (free ports by default, so that
    runs in parallel never meet). ``url`` is nginx's address."""

    def __init__(self, prefix: Path, conf: Path = NGINX_CONF, port: int | None = None,
                 node_ports: tuple[int, ...] = ()) -> None:
        self.prefix = prefix
        self.conf = conf
        self.port = port or free_port()
        self.node_ports = node_ports
        self.url = f"http://127.0.0.1:{self.port}"
        self.process: subprocess.Popen[bytes] | None = None

    def start(self) -> Nginx:
        for folder in ("logs", "tmp", "conf"):
            (self.prefix / folder).mkdir(parents=True, exist_ok=True)
        command = [NGINX, "-p", str(self.prefix), "-c", str(self._rendered_conf()), "-g", "daemon off;"]
        self.process = subprocess.Popen(command, stdout=subprocess.DEVNULL,
                                        stderr=(self.prefix / "logs" / "stderr.log").open("wb"))
        try:
            wait_for_port(self.port)
        except TimeoutError:
            self.stop()
            raise RuntimeError(f"nginx did not start: {self.error_log()}") from None
        return self

    def _rendered_conf(self) -> Path:
        """``conf`` itself when it is not one of deploy/'s; otherwise a copy of every deploy/ conf in
        ``prefix/conf`` with the listening and upstream addresses replaced, and the copy of ``conf``."""
        if self.conf.parent != NGINX_CONF.parent:
            return self.conf
        addresses = {DEPLOY_PORT: self.port, **dict(zip(DEPLOY_NODE_PORTS, self.node_ports, strict=False))}
        for source in NGINX_CONF.parent.glob("*.conf"):
            text = source.read_text()
            for deployed, used in addresses.items():
                text = re.sub(rf"\b127\.0\.0\.1:{deployed}\b", f"127.0.0.1:{used}", text)
            (self.prefix / "conf" / source.name).write_text(text)
        return self.prefix / "conf" / self.conf.name

    def error_log(self) -> str:
        return "\n".join(path.read_text() for path in (self.prefix / "logs").glob("*.log"))

    def stop(self) -> None:
        stop_process(self.process)
