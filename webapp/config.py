"""Settings of the web app, read from the environment with working defaults. This is the one module of
``webapp`` that reads the environment.

``instance_path()`` is the folder of the node's files; ``load_config(instance_path)`` returns the Flask config keys
the app uses, read once when the app is made. Nothing here needs setting for a local run: the SQLite file and a
generated secret key live in the instance folder.
"""

from __future__ import annotations

import os
import secrets
import socket
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from limits import parse_many

MAX_BODY_BYTES = 16 * 1024
"""Largest HTTP body and Socket.IO message accepted."""


DEFAULT_IDLE_GAMES = 200
"""How many finished games nobody watches stay in memory (``ARENA_IDLE_GAMES``), so that reading one again does
not replay it from the store each time: about 2.5 KiB each, up to about 1 MiB for a long chess game."""

DEFAULT_UNTOUCHED_GAME_SECONDS = 600.0
"""After how many seconds nobody touched a game (no request or event for it, no watcher in this node's room, no
search of it queued or running on this node) it leaves memory (``ARENA_UNTOUCHED_GAME_SECONDS``; 0: never). It stays
in the database; the next request loads it again."""


DEFAULT_UNWATCHED_PAUSE = 60.0
"""Seconds after which an engine-against-engine game nobody watches pauses before its next engine turn
(``ARENA_UNWATCHED_PAUSE``); it goes on as soon as somebody opens it."""


DEFAULT_MAX_SOCKETS = 10_000
"""How many Socket.IO connections one node holds at once (``ARENA_MAX_SOCKETS``): past it a new one is refused
(``server_full``) while HTTP requests are still served. Each costs the node a descriptor and about 9 KiB
(docs/scale.md)."""

DEFAULT_SOCKETS_PER_ADDRESS = 20
"""How many of a node's Socket.IO connections one client address may hold at once (``ARENA_SOCKETS_PER_ADDRESS``),
as nginx's ``limit_conn`` in deploy/arena.conf: a few addresses cannot fill ``ARENA_MAX_SOCKETS``."""
CONNECTIONS_PER_ADDRESS = 64
"""How many HTTP connections of one client connected directly (no proxy in front, ``ARENA_PROXY_HOPS`` 0) a node
serves at once (``webapp.transport.gevent_worker``; a WebSocket the event loop has taken over no longer counts); behind
nginx, nginx bounds each address's connections."""

HTTP_CONNECTIONS = 1_000
"""Connections a node keeps for HTTP requests beyond its Socket.IO connections: gunicorn's ``worker_connections``
is ``ARENA_MAX_SOCKETS`` plus this (gunicorn.conf.py)."""


DEFAULT_LIMITS = {
    "ARENA_CREATE_LIMIT": "30/minute;300/hour",
    "ARENA_SEAT_LIMIT": "30/minute",
    "ARENA_MOVE_LIMIT": "120/minute",
    "ARENA_LAB_LIMIT": "10/minute",
    "ARENA_ANALYSIS_LIMIT": "240/minute;3000/hour",
    "ARENA_READ_LIMIT": "1200/minute",
    "ARENA_CONNECT_LIMIT": "60/minute",
}
"""How many games, seats taken, moves (HTTP and Socket.IO together), lab runs, analysis board nodes, API reads and
Socket.IO connections one client address may start (``webapp.views.address_limits``); the ``limits`` notation:
"N/second|minute|hour|day", several joined by ";"."""


class ConfigError(ValueError):
    """An environment variable holds a value the app cannot use; the message names it."""


def _number(env: Mapping[str, str], name: str, default: float, low: float, high: float) -> float:
    text = env.get(name)
    if text is None or text == "":
        return default
    try:
        value = float(text)
    except ValueError:
        raise ConfigError(f"{name}={text!r} is not a number") from None
    if not low <= value <= high:
        raise ConfigError(f"{name}={text!r} must be between {low:g} and {high:g}")
    return value


def _limits(env: Mapping[str, str], name: str) -> str:
    text = env.get(name) or DEFAULT_LIMITS[name]
    try:
        parse_many(text)
    except ValueError:
        raise ConfigError(f"{name}={text!r} is not a rate limit such as '30/minute' or '30/minute;300/hour'") from None
    return text


REDIS_SCHEMES = ("redis://", "rediss://", "unix://")


def _redis_url(env: Mapping[str, str], name: str) -> str | None:
    text = env.get(name) or None
    if text is not None and not text.startswith(REDIS_SCHEMES):
        raise ConfigError(f"{name}={text!r} is not a Redis URL (redis://host:6379/0, rediss://... or unix://...)")
    return text


def instance_path(env: Mapping[str, str] | None = None) -> Path | None:
    """The node's instance folder from ``ARENA_INSTANCE`` in ``env`` (default ``os.environ``), made absolute; None
    when unset (Flask's default, ``instance/`` beside the package, is used)."""
    env = os.environ if env is None else env
    folder = env.get("ARENA_INSTANCE")
    return Path(folder).resolve() if folder else None


def search_queue_url(env: Mapping[str, str] | None = None) -> str | None:
    """``ARENA_SEARCH_QUEUE`` from ``env`` (default ``os.environ``): the Redis URL of the search queue, or None."""
    return _redis_url(os.environ if env is None else env, "ARENA_SEARCH_QUEUE")


def proxy_hops(env: Mapping[str, str] | None = None) -> int:
    """``ARENA_PROXY_HOPS`` from ``env`` (default ``os.environ``): how many proxies in front of the node to trust."""
    return int(_number(os.environ if env is None else env, "ARENA_PROXY_HOPS", 0, 0, 10))


def max_sockets(env: Mapping[str, str] | None = None) -> int:
    """``ARENA_MAX_SOCKETS`` from ``env`` (default ``os.environ``): how many Socket.IO connections a node holds."""
    return int(_number(os.environ if env is None else env, "ARENA_MAX_SOCKETS", DEFAULT_MAX_SOCKETS, 1, 1_000_000))


def secret_key(instance_path: Path) -> str:
    """The key in ``<instance>/secret_key``, created (random, 32 bytes, mode 0600) on first use."""
    path = instance_path / "secret_key"
    if path.exists():
        return path.read_text().strip()
    instance_path.mkdir(parents=True, exist_ok=True)
    key = secrets.token_hex(32)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w") as file:
        file.write(key + "\n")
    return key


def database_url(instance_path: Path, env: Mapping[str, str] | None = None) -> str:
    """``DATABASE_URL`` from ``env`` (default ``os.environ``), else the SQLite file in the instance folder."""
    env = os.environ if env is None else env
    return env.get("DATABASE_URL") or f"sqlite:///{instance_path / 'arena.sqlite3'}"


def load_config(instance_path: Path, env: Mapping[str, str] | None = None) -> dict[str, Any]:
    """The app's settings from ``env`` (default ``os.environ``); a bad value raises ``ConfigError``.

    Keys: ``SECRET_KEY``, ``DATABASE_URL``, ``ARENA_WORKERS``, ``ARENA_PACE``, ``ARENA_EVENT_RATE``,
    ``ARENA_EVENT_BURST``, ``ARENA_MAX_SOCKETS``, ``ARENA_SOCKETS_PER_ADDRESS``, ``ARENA_PROXY_HOPS``,
    ``ARENA_IDLE_GAMES``, ``ARENA_UNWATCHED_PAUSE``, ``ARENA_UNTOUCHED_GAME_SECONDS``, ``SOCKETIO_MESSAGE_QUEUE``,
    ``ARENA_SEARCH_QUEUE``, ``ARENA_NODE`` (the node's name in ``/api/health``; default the host name and the
    instance folder's name), ``NODE_MODULES``, ``MAX_CONTENT_LENGTH`` and the rate limits of ``DEFAULT_LIMITS``.
    """
    env = os.environ if env is None else env
    config: dict[str, Any] = {
        "SECRET_KEY": env.get("SECRET_KEY") or secret_key(instance_path),
        "DATABASE_URL": database_url(instance_path, env),
        "ARENA_WORKERS": int(_number(env, "ARENA_WORKERS", 2, 1, 64)),
        "ARENA_PACE": _number(env, "ARENA_PACE", 0.5, 0, 60),
        "ARENA_EVENT_RATE": _number(env, "ARENA_EVENT_RATE", 10, 0.1, 10_000),
        "ARENA_EVENT_BURST": _number(env, "ARENA_EVENT_BURST", 20, 1, 100_000),
        "ARENA_MAX_SOCKETS": max_sockets(env),
        "ARENA_SOCKETS_PER_ADDRESS": int(_number(env, "ARENA_SOCKETS_PER_ADDRESS", DEFAULT_SOCKETS_PER_ADDRESS, 1,
                                                 1_000_000)),
        "ARENA_PROXY_HOPS": proxy_hops(env),
        "ARENA_IDLE_GAMES": int(_number(env, "ARENA_IDLE_GAMES", DEFAULT_IDLE_GAMES, 0, 100_000)),
        "ARENA_UNWATCHED_PAUSE": _number(env, "ARENA_UNWATCHED_PAUSE", DEFAULT_UNWATCHED_PAUSE, 0, 86_400),
        "ARENA_UNTOUCHED_GAME_SECONDS": _number(env, "ARENA_UNTOUCHED_GAME_SECONDS", DEFAULT_UNTOUCHED_GAME_SECONDS,
                                                0, 7 * 86_400),
        "SOCKETIO_MESSAGE_QUEUE": _redis_url(env, "SOCKETIO_MESSAGE_QUEUE"),
        "ARENA_SEARCH_QUEUE": search_queue_url(env),
        "ARENA_NODE": env.get("ARENA_NODE") or f"{socket.gethostname()}:{instance_path.name}",
        "MAX_CONTENT_LENGTH": MAX_BODY_BYTES,
        **{name: _limits(env, name) for name in DEFAULT_LIMITS},
    }
    if env.get("NODE_MODULES"):
        config["NODE_MODULES"] = env["NODE_MODULES"]
    return config
