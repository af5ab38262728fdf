"""Socket.IO handlers (default namespace): ``join``, ``leave``, ``move``, ``resign``, ``takeback``, ``rematch``,
the lab's ``lab_start`` and ``lab_stop``, and the analysis board's ``analyse``, ``analyse_stop`` and
``exercise_check``.

A connection's seat comes from the token in its connect ``auth``; it applies to the game the token names. Every
event is rate-limited per connection and its payload checked; a refused event gets an ``error`` event back (to
the sender only) and changes nothing. See docs/protocol.md.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import wraps
from typing import Any

from flask import current_app, request
from flask_limiter import RateLimitExceeded
from flask_socketio import disconnect, emit, join_room, leave_room
from socketio.exceptions import ConnectionRefusedError

from webapp.arena.analysis import parse_check, parse_node
from webapp.arena.assemble import Arena
from webapp.arena.lab import parse_run
from webapp.arena.lab import room_of as lab_room
from webapp.errors import ArenaError, ErrorCode, database_unavailable
from webapp.seats import BadTokenError, SeatClaim, read_token
from webapp.store import DatabaseUnavailableError
from webapp.transport import internals
from webapp.transport.socket_packets import MALFORMED_EVENT
from webapp.transport.sockets import socketio
from webapp.transport.token_bucket import TokenBucket
from webapp.validation import check_event
from webapp.views import address_limits

log = logging.getLogger(__name__)

FLOOD_BURSTS = 5
"""A connection whose refused events exceed what its rate refills by this many bursts is disconnected."""
CLOSING_GRACE = 3.0
"""Seconds a closed connection's client has, once every packet queued for it is written and acknowledged by its
system, to finish sending what it was sending, read what it was sent and answer the closing handshake, before the
server stops reading it (what it sends meanwhile is read and dropped; a client that closes its side sooner ends the
connection sooner). A client whose send fails because the server stopped reading is reset, and python-socketio's
client then drops what it had received and not yet handled, such as the error that told it why: on a loaded
machine a client takes a second or more to get there."""
CLOSING_WAIT = 8.0
"""Seconds at most before the server stops reading a client it closed, even if its writer is still blocked (a client
that does not read): a flood ends."""
UNREADABLE_LIMIT = 10
"""The number of packets the server cannot read that closes a connection: a client that sends them is broken or
hostile (the app's own never does). They are counted over the connection's life, never forgiven with time, so the
log lines and errors they cost stay bounded however slowly they arrive."""


@dataclass(slots=True)
class Connection:
    """What the server knows of one Socket.IO connection: its seat claim (if any), its rate limit (``bucket``),
    how many more refused events it may send before it is disconnected (``patience``, refilled at the same rate: a
    client a little over its limit only gets errors, a flood is cut off), and the lab runs it started (``runs``:
    only it may stop them, and they stop when it disconnects)."""

    claim: SeatClaim | None
    bucket: TokenBucket
    patience: TokenBucket
    runs: set[str] = field(default_factory=set)
    unreadable: int = 0
    """How many packets it sent that the server could not read."""
    closing: bool = False
    """Set once it is closed for what it sent (its patience ran out, or too many unreadable packets): the events it
    had sent before the server stopped reading it are handled without answers, so the last error it hears says that
    the connection is closed."""
    _sending: threading.Lock = field(default_factory=threading.Lock)
    """Held while an error is queued for it, so that none is queued after the closing one (its events are handled
    on several threads)."""

    def send_error(self, payload: dict[str, Any]) -> None:
        """Emit ``error`` with ``payload`` to the current connection (this one), unless it is closing."""
        with self._sending:
            if not self.closing:
                _answer_error(payload)

    def close_with_error(self, payload: dict[str, Any]) -> bool:
        """Emit ``error`` with ``payload`` to the current connection (this one) as the last one it hears, and mark it
        closing; False (and nothing sent) if it was closing already."""
        with self._sending:
            if self.closing:
                return False
            _answer_error(payload)
            self.closing = True
            return True

    def seat_in(self, game_id: str) -> int | None:
        """The connection's seat in ``game_id``, or None for a spectator."""
        return self.claim.seat if self.claim is not None and self.claim.game_id == game_id else None


def _answer_error(payload: dict[str, Any]) -> None:
    """Emit ``error`` to the current connection straight from this node (which holds it), not through the message
    queue: it is queued before anything that follows, such as the connection's closing."""
    server = socketio.server  # type: ignore[attr-defined]  # set by init_app; the stubs lack it
    server.emit("error", payload, to=_sid(), namespace="/", ignore_queue=True)


_connections: dict[str, Connection] = {}
_connections_lock = threading.Lock()


def _arena() -> Arena:
    return current_app.extensions["arena"]


def _client() -> str:
    """The connection's address: whose share of the engines the searches it causes take."""
    return request.remote_addr or ""


def _sid() -> str:
    return request.sid  # type: ignore[attr-defined]  # set by Flask-SocketIO, unknown to the Flask stubs


def _close_connection() -> None:
    """Disconnect the current Socket.IO connection, close its Engine.IO transport without waiting and stop reading
    from its client: Socket.IO's disconnect alone leaves the transport open, and the WebSocket's reader keeps
    reading a client that never answers the closing handshake, each packet still costing a read and a refusal."""
    transport = internals.engine_socket_of(socketio.server, _sid())  # type: ignore[attr-defined]  # set by init_app
    disconnect()
    if transport is None:
        current_app.extensions["connections"].end_current(after=CLOSING_GRACE)
        return
    internals.close(transport, internals.DisconnectReason.SERVER_DISCONNECT, abort=False)
    # close() queued an end marker after the last packets; its writer takes that marker (leaving the queue empty)
    # only once it has sent them all, and then sends the WebSocket's closing frame.
    current_app.extensions["connections"].end_current(after=CLOSING_GRACE,
                                                      written=lambda: internals.sent_everything(transport),
                                                      at_most=CLOSING_WAIT)


def _close_with_error(connection: Connection, payload: dict[str, Any]) -> None:
    """Send ``payload`` as the last ``error`` the current connection hears and close it (nothing if it is closing
    already)."""
    if connection.close_with_error(payload):
        _close_connection()


def _close_for_unreadable_packets(connection: Connection, data: object, fields: tuple[str, ...]) -> None:
    """Close the current connection for its ``UNREADABLE_LIMIT``-th unreadable packet ``data`` (as ``on_malformed``
    gets it, unchecked): a last ``bad_request`` error naming the packet's event when ``data`` passes the check (a
    client may also send a readable event of that name). The log has its line from the connection's first."""
    try:
        event = check_event(data, fields)["event"]
    except ArenaError:
        event = None
    _close_with_error(connection, {"code": "bad_request", "event": event,
                                   "message": "too many unreadable packets; this connection is closed"})


def _refusal(code: ErrorCode, message: str) -> ConnectionRefusedError:
    """A refused connection: the client's ``connect_error`` has ``message`` and ``data`` ``{code, message}``."""
    return ConnectionRefusedError(message, {"code": code, "message": message})


@socketio.on("connect")
def on_connect(auth: object = None) -> None:
    """Accept the connection; a token in ``auth`` gives it a seat. A bad ``auth`` refuses the connection."""
    claim = None
    if auth is not None:
        if not isinstance(auth, dict) or set(auth) - {"token"}:
            raise _refusal(ErrorCode.BAD_REQUEST, "auth must be {token} or nothing")
        if auth.get("token") is not None:
            try:
                claim = read_token(current_app.config["SECRET_KEY"], auth["token"])
            except BadTokenError as error:
                raise _refusal(ErrorCode.BAD_TOKEN, str(error)) from None
    rate, burst = current_app.config["ARENA_EVENT_RATE"], current_app.config["ARENA_EVENT_BURST"]
    with _connections_lock:
        _connections[_sid()] = Connection(claim, TokenBucket(rate, burst), TokenBucket(rate, FLOOD_BURSTS * burst))


@socketio.on("disconnect")
def on_disconnect(reason: object = None) -> None:
    """Forget the connection, stop the lab runs and the analysis it started and leave every room it was in."""
    sid = _sid()
    with _connections_lock:
        connection = _connections.pop(sid, None)
    arena = _arena()
    for run in connection.runs if connection is not None else ():
        arena.lab.stop(run)
    arena.analysis.close(sid)
    arena.membership.leave_all(sid)


def game_event(name: str, fields: tuple[str, ...],
               unreadable: bool = False) -> Callable[[Callable[..., None]], Callable[..., None]]:
    """Register a handler of event ``name`` taking ``(arena, connection, payload)``: rate limit, payload check
    (exactly ``fields``), and ``ArenaError`` turned into an ``error`` event to the sender. An event over the rate
    limit gets ``rate_limited``; once the connection's patience is used up as well, it gets a last
    ``rate_limited`` error and is disconnected, so a flood stops costing the server anything. The event of a packet
    the server could not read (``unreadable``) takes no place in the rate but counts towards ``UNREADABLE_LIMIT``;
    the one that reaches it is not handled: it gets a last ``bad_request`` error and disconnects the connection. A
    handler refused by a limit of the client's address (``webapp.views.address_limits``) gets a ``rate_limited`` error
    with ``retry_after`` (seconds)."""

    def register(handler: Callable[..., None]) -> Callable[..., None]:
        @wraps(handler)
        def wrapper(data: object = None, *extra: object) -> None:
            connection: Connection | None = None
            try:
                with _connections_lock:
                    connection = _connections.get(_sid())
                if connection is None:
                    raise ArenaError(ErrorCode.BAD_REQUEST, "the connection is not registered; reconnect")
                if unreadable:
                    connection.unreadable += 1
                    if connection.unreadable >= UNREADABLE_LIMIT:
                        _close_for_unreadable_packets(connection, data, fields)
                        return
                elif not connection.bucket.allow():
                    if not connection.patience.allow():
                        _close_with_error(connection, {"code": "rate_limited", "event": name,
                                                       "message": "far too many events; this connection is closed"})
                        return
                    raise ArenaError(ErrorCode.RATE_LIMITED, "too many events; slow down")
                if extra:
                    raise ArenaError(ErrorCode.BAD_REQUEST, "send one payload object")
                try:
                    handler(_arena(), connection, check_event(data, fields))
                except RateLimitExceeded as refused:
                    raise address_limits.refusal(refused) from None
                except DatabaseUnavailableError:
                    raise database_unavailable() from None
            except ArenaError as error:
                payload = {**error.details, "code": error.code, "message": error.message, "event": name}
                if connection is None:
                    _answer_error(payload)
                else:
                    connection.send_error(payload)

        socketio.on_event(name, wrapper)
        return wrapper

    return register


@game_event("join", ("game_id",))
def on_join(arena: Arena, connection: Connection, data: dict[str, Any]) -> None:
    """Enter the game's room; the sender gets ``state``, the room ``watchers``. It counts as a read of the game
    (``ARENA_READ_LIMIT``), a long game's as more (``extra_reads``)."""
    game_id = data["game_id"]
    address_limits.charge_reads(1 + address_limits.extra_reads(arena.reads.record_length(game_id)))
    arena.membership.join(game_id, _sid(), connection.seat_in(game_id), lambda: join_room(game_id))


@game_event("leave", ("game_id",))
def on_leave(arena: Arena, connection: Connection, data: dict[str, Any]) -> None:
    """Leave the game's room."""
    leave_room(data["game_id"])
    arena.membership.leave(data["game_id"], _sid())


@game_event("move", ("game_id", "move"))
@address_limits.limit_moves
def on_move(arena: Arena, connection: Connection, data: dict[str, Any]) -> None:
    """Play a move with the connection's seat; the room gets ``moved``."""
    arena.moves.play(data["game_id"], connection.seat_in(data["game_id"]), data["move"], answer=False,
               client=_client())


@game_event("resign", ("game_id",))
@address_limits.limit_moves
def on_resign(arena: Arena, connection: Connection, data: dict[str, Any]) -> None:
    """Resign with the connection's seat; the room gets ``state``."""
    arena.endings.resign(data["game_id"], connection.seat_in(data["game_id"]))


@game_event("takeback", ("game_id",))
@address_limits.limit_moves
def on_takeback(arena: Arena, connection: Connection, data: dict[str, Any]) -> None:
    """Undo back to the player's last turn; the room gets ``state``."""
    arena.moves.takeback(data["game_id"], connection.seat_in(data["game_id"]))


@game_event("rematch", ("game_id",))
@address_limits.limit_create
def on_rematch(arena: Arena, connection: Connection, data: dict[str, Any]) -> None:
    """Create (once) the rematch, or between two players offer it; the room gets ``rematch`` or ``state``."""
    arena.agreements.rematch(data["game_id"], connection.seat_in(data["game_id"]), _client())


@game_event("abort", ("game_id",))
@address_limits.limit_moves
def on_abort(arena: Arena, connection: Connection, data: dict[str, Any]) -> None:
    """Abort with the connection's seat while neither side has moved twice; the room gets ``state``."""
    arena.endings.abort(data["game_id"], connection.seat_in(data["game_id"]))


@game_event("play_alone", ("game_id",))
@address_limits.limit_moves
def on_play_alone(arena: Arena, connection: Connection, data: dict[str, Any]) -> None:
    """Play on without the invited friend; the room gets ``state``."""
    arena.agreements.play_alone(data["game_id"], connection.seat_in(data["game_id"]))


@game_event("offer", ("game_id", "kind"))
@address_limits.limit_moves
def on_offer(arena: Arena, connection: Connection, data: dict[str, Any]) -> None:
    """Offer ``kind`` to the other player, or accept theirs; the room gets ``state`` (and ``rematch``)."""
    arena.agreements.offer(data["game_id"], connection.seat_in(data["game_id"]), data["kind"], _client())


@game_event("decline", ("game_id", "kind"))
@address_limits.limit_moves
def on_decline(arena: Arena, connection: Connection, data: dict[str, Any]) -> None:
    """Decline the other player's ``kind`` offer (or withdraw one's own); the room gets ``state``."""
    arena.agreements.decline(data["game_id"], connection.seat_in(data["game_id"]), data["kind"])


@game_event(MALFORMED_EVENT, ("event", "reason"), unreadable=True)
def on_malformed(arena: Arena, connection: Connection, data: dict[str, Any]) -> None:
    """A packet that could not be decoded (``webapp.transport.socket_packets``): a ``bad_request`` error naming the
    event it was meant to be, when that could be read, and for the connection's first a log line (a flood writes
    one)."""
    event, reason = data["event"], data["reason"]
    if connection.unreadable == 1:
        log.warning("connection %s sent an unreadable %s packet: %s (its packet number %d of them closes it; no more "
                    "are logged)", _sid(), event or "Socket.IO", reason, UNREADABLE_LIMIT)
    connection.send_error({"code": "bad_request", "message": f"{reason}; nothing was done", "event": event})


@game_event("lab_start", ("game", "setup", "moves", "configs"))
@address_limits.limit_lab
def on_lab_start(arena: Arena, connection: Connection, data: dict[str, Any]) -> None:
    """Start a lab run; the sender joins its room and gets ``lab_started`` ``{run, configs}``, then ``lab`` events."""
    state, configs = parse_run(data)
    run = arena.lab.new_run()
    connection.runs.add(run)
    join_room(lab_room(run))
    emit("lab_started", {"run": run, "setup": state.setup(), "configs": [
        {"preset": c.preset, "depth": c.limits.depth, "time": c.limits.time, "playouts": c.limits.nodes}
        for c in configs]})
    arena.lab.start(run, state, configs, _client())


@game_event("lab_stop", ("run",))
@address_limits.limit_moves
def on_lab_stop(arena: Arena, connection: Connection, data: dict[str, Any]) -> None:
    """Cancel the searches of a lab run this connection started, still going (each column gets a ``cancelled``
    event); another connection's run is ``forbidden``."""
    if not isinstance(data["run"], str) or not data["run"].isalnum() or len(data["run"]) > 32:
        raise ArenaError(ErrorCode.BAD_REQUEST, "run must be the id lab_started gave")
    if data["run"] not in connection.runs:
        raise ArenaError(ErrorCode.FORBIDDEN, "only the connection that started a lab run can stop it")
    arena.lab.stop(data["run"])


@game_event("analyse", ("node", "game", "setup", "moves", "engine"))
@address_limits.limit_analysis
def on_analyse(arena: Arena, connection: Connection, data: dict[str, Any]) -> None:
    """Open a node of the analysis board: the sender gets ``analysis_node``, then its ``analysis_search`` and
    ``analysis_truth`` events; the node it analysed before stops."""
    node, engine = parse_node(data)
    arena.analysis.open(_sid(), node, engine, _client())


@game_event("exercise_check", ("node", "game", "setup", "moves", "answer", "value", "better"))
@address_limits.limit_analysis
def on_exercise_check(arena: Arena, connection: Connection, data: dict[str, Any]) -> None:
    """Check a chess exercise's answer by a review's search of the position after it: the sender gets
    ``exercise_verdict``."""
    arena.analysis.check(_sid(), parse_check(data), _client())


@game_event("analyse_stop", ())
def on_analyse_stop(arena: Arena, connection: Connection, data: dict[str, Any]) -> None:
    """Stop the engine's search on the sender's node (it gets a ``cancelled`` event); its exact values still come."""
    arena.analysis.stop(_sid())
