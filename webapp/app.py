"""The web app's factory: ``create_app()`` builds the Flask app with its collaborators (served as
``"webapp:create_app()"``, see ``webapp``)."""

from __future__ import annotations

import atexit
import secrets
from pathlib import Path
from typing import Any

from flask import Flask
from werkzeug.middleware.proxy_fix import ProxyFix

from engine.chess.openings import load_index as load_opening_index
from engine.games import game_class, game_names
from webapp.alarms import Alarms
from webapp.arena.assemble import Arena, ArenaSettings, assemble
from webapp.arena.watcher_counts import WatcherCounts
from webapp.clock import SYSTEM_CLOCK, Clock
from webapp.config import MAX_BODY_BYTES, instance_path, load_config
from webapp.search.jobs import Runner
from webapp.search.leases import SearchLeases
from webapp.search.pool import EngineRunner
from webapp.search.queue_runner import QueuedRunner
from webapp.search.solved import RememberingRunner
from webapp.store import Store
from webapp.transport import internals
from webapp.transport.connections import OpenConnections
from webapp.transport.loop_websockets import LoopWebSockets
from webapp.transport.message_queue import ResilientRedisManager
from webapp.transport.paced_reads import PaceReads
from webapp.transport.redis_clients import connect as connect_redis
from webapp.transport.request_bodies import ReadBodies
from webapp.transport.room_index import IndexedManager
from webapp.transport.shutdown import NodeStop
from webapp.transport.socket_cap import CapSockets
from webapp.transport.socket_packets import ReadablePacket
from webapp.transport.sockets import async_mode, socketio
from webapp.views import events  # noqa: F401 - registers the Socket.IO handlers on ``socketio``
from webapp.views.address_limits import LimitHandshakes, charge_seat_claims
from webapp.views.address_limits import init_app as install_address_limits
from webapp.views.api import bp as api_bp
from webapp.views.error_pages import init_app as install_error_pages
from webapp.views.headers import add_security_headers
from webapp.views.pages import bp as pages_bp
from webapp.views.players import Players


def create_app(test_config: dict[str, Any] | None = None, clock: Clock = SYSTEM_CLOCK,
               runner: Runner | None = None) -> Flask:
    """The app, configured from the environment (see docs/protocol.md, "Configuration") and ``test_config``, its
    game core reading the time from ``clock`` and running its searches on ``runner`` (by default the workers of
    ``ARENA_SEARCH_QUEUE`` if set, else a pool of ``ARENA_WORKERS`` engine processes of this node, which start with
    the first search; the app closes it).

    Opens the database, sets up the runner of searches and restarts the
    search of every unfinished game whose turn is the engine's. With ``SOCKETIO_MESSAGE_QUEUE``, emits reach the
    other nodes through Redis (``webapp.transport.message_queue``; each node keeps serving its own clients while Redis
    is unreachable). Socket.IO events of one connection are handled in order: under gunicorn's gevent worker a WebSocket
    opened directly is held by the event loop, and a greenlet started when its client sends handles what it sent
    (``webapp.transport.loop_websockets``); other connections are handled in their own greenlet (their own thread
    elsewhere: ``webapp.transport.sockets.async_mode``; ``async_handlers=False``): nothing is started per event. At most
    ``ARENA_MAX_SOCKETS`` connections are held (``webapp.transport.socket_cap``). A packet that cannot be decoded
    reaches the handlers as an event of its own (``webapp.transport.socket_packets``).
    """
    folder = instance_path()
    app = Flask(__name__, instance_path=str(folder) if folder else None)
    # Werkzeug would answer a path with "//" by a redirect to the URL rebuilt from the request's Host header, which
    # the client chose: such paths are a 404 instead, so no answer ever points to another host.
    app.url_map.merge_slashes = False
    Path(app.instance_path).mkdir(parents=True, exist_ok=True)
    app.config.from_mapping(load_config(Path(app.instance_path)))
    if test_config:
        app.config.from_mapping(test_config)
    app.register_blueprint(api_bp)
    app.register_blueprint(pages_bp)
    install_error_pages(app)

    queue_url = app.config["SOCKETIO_MESSAGE_QUEUE"]
    queue = ResilientRedisManager(queue_url, clock) if queue_url else None
    socketio.init_app(app, async_mode=async_mode(), max_http_buffer_size=MAX_BODY_BYTES, async_handlers=False,
                      manage_session=False, client_manager=queue or IndexedManager(),
                      serializer=ReadablePacket)  # type: ignore[call-arg]  # python-socketio's option, not in the stubs
    # The cap is checked after the address's own limit, and nothing waits between its check and Engine.IO's
    # taking the connection, so handshakes arriving together cannot all pass at the cap.
    engine_io = socketio.server.eio  # type: ignore[attr-defined]  # set by init_app; the stubs lack it
    app.wsgi_app = CapSockets(app.wsgi_app, lambda: internals.socket_count(engine_io),  # type: ignore[method-assign]
                              app.config["ARENA_MAX_SOCKETS"], _sockets_from, app.config["ARENA_SOCKETS_PER_ADDRESS"])
    app.wsgi_app = LimitHandshakes(app, app.wsgi_app)  # type: ignore[method-assign]
    _trust_proxies(app, app.config["ARENA_PROXY_HOPS"])
    add_security_headers(app)
    install_address_limits(app)
    store = Store(app.config["DATABASE_URL"], clock)
    players = Players(store, app.config["SECRET_KEY"], charge_seat_claims)
    players.install(app)
    app.extensions["players"] = players
    app.extensions["clock"] = clock
    arena = _assemble_arena(app, store, queue is not None, clock, runner)
    app.extensions["arena"] = arena
    if queue is not None:
        queue.on_reconnect = arena.reads.broadcast_cached_games
        queue.start()
    atexit.register(arena.close)
    paced_reads = PaceReads(app.wsgi_app, clock)
    connections = OpenConnections(ReadBodies(paced_reads, clock), clock, paced_reads.stop_reading)
    app.wsgi_app = connections  # type: ignore[method-assign]
    app.extensions["connections"] = connections
    if async_mode() == "gevent":
        LoopWebSockets(engine_io, connections, Alarms(clock, "pings", monotonic=True), clock).install()
    # A gunicorn worker of ours runs it on its graceful stop (gunicorn.conf.py's ``post_worker_init``).
    app.extensions["node_stop"] = NodeStop(socketio.server,  # type: ignore[attr-defined]  # set by init_app; the stubs lack it
                                           arena.close, connections, clock)
    arena.resume()
    _import_every_game()
    return app


def _sockets_from(address: str) -> int:
    """How many Socket.IO connections of this node come from client ``address`` (python-socketio keeps the
    request of each, with its ``REMOTE_ADDR`` as the proxies in front forwarded it)."""
    held = socketio.server.environ  # type: ignore[attr-defined]  # set by init_app; the stubs lack it
    return sum(1 for environ in list(held.values()) if environ.get("REMOTE_ADDR") == address)


def _import_every_game() -> None:
    """Import every game's module and load the chess opening index now, before the node serves (chess's module
    takes about a second, the index as long when its cache must be rebuilt): under gunicorn's event loop, a first
    use while serving would stall every connection of the node for that long."""
    for name in game_names():
        game_class(name)
    load_opening_index()


def _assemble_arena(app: Flask, store: Store, shared: bool, clock: Clock, workers: Runner | None) -> Arena:
    """The game core with its collaborators: the runner of searches (``workers`` if given, else this node's
    processes or the workers of ``ARENA_SEARCH_QUEUE``; solved positions remembered in the database), and with
    ``SOCKETIO_MESSAGE_QUEUE`` (``shared``) the leases and watcher counts kept in that Redis under this node's random
    name."""
    config = app.config
    search_queue = config["ARENA_SEARCH_QUEUE"]
    if workers is None:
        # The engine processes read the system's clock: a test's clock cannot be driven from inside them.
        workers = (QueuedRunner(search_queue, clock) if search_queue
                   else EngineRunner(config["ARENA_WORKERS"], SYSTEM_CLOCK))
    runner = RememberingRunner(workers, store.solved)
    settings = ArenaSettings(pace=config["ARENA_PACE"], shared=shared, idle_games=config["ARENA_IDLE_GAMES"],
                             untouched_seconds=config["ARENA_UNTOUCHED_GAME_SECONDS"],
                             unwatched_pause=config["ARENA_UNWATCHED_PAUSE"])
    bookkeeping = connect_redis(config["SOCKETIO_MESSAGE_QUEUE"]) if shared else None
    node = secrets.token_hex(8)
    return assemble(store, config["SECRET_KEY"], socketio.emit, runner, settings,
                    leases=SearchLeases(bookkeeping, node) if bookkeeping is not None else None,
                    watcher_counts=WatcherCounts(bookkeeping, node, clock) if bookkeeping is not None else None,
                    clock=clock)


def _trust_proxies(app: Flask, hops: int) -> None:
    """With ``hops`` > 0 (``ARENA_PROXY_HOPS``), believe that many proxies' ``X-Forwarded-For``, ``-Proto`` and
    ``-Host`` (werkzeug's ``ProxyFix``), so the request's scheme, and with it the ``Secure`` cookie flag and the
    same-origin checks, are those the browser used; with 0, those headers are ignored (anyone could forge them)."""
    if hops:
        app.wsgi_app = ProxyFix(app.wsgi_app, x_for=hops, x_proto=hops, x_host=hops)  # type: ignore[method-assign]
