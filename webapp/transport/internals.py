"""The one module that reaches past the public API of python-engineio, python-socketio and gunicorn (each pinned
exactly in pyproject.toml): everything else in the app uses their documented API or this module's small interface.

What the transport needs of them, and why no public API gives it:

- gunicorn: its gevent worker (``GeventWorker``), whose ``run``, ``handle`` and ``handle_exit`` the project's worker
  overrides (``webapp.transport.gevent_worker``);
- python-socketio: the packet class a ``serializer`` derives from (``SocketIOPacket``), the start of a client manager
  before the first connection (``start_manager``), and the Engine.IO connection behind a Socket.IO session
  (``engine_socket_of``);
- python-engineio: its WebSocket class taken over (``replace_websocket``) and its ping timer diverted
  (``divert_pings``), so that the event loop holds the connections (``webapp.transport.loop_websockets``); an Engine.IO
  socket taken over (``take_over``), pinged (``ping``, ``answered_since``), asked to close (``close``,
  ``sent_everything``) and counted (``socket_count``), and every one closed without waiting (``close_all``).

tests/test_library_internals.py holds one contract test for each: an upgrade that changes one of them fails there
first, with the name of what changed.
"""

from __future__ import annotations

from collections.abc import Callable
from enum import Enum
from typing import Any

from engineio import exceptions as _engineio_exceptions
from engineio import packet as _engineio_packet
from engineio import socket as _engineio_socket
from gunicorn.workers.ggevent import GeventWorker
from socketio import packet as _socketio_packet

# --- gunicorn ---------------------------------------------------------------------------------------------------

GunicornGeventWorker = GeventWorker
"""gunicorn's gevent worker (``worker_class = "gevent"``)."""

# --- python-socketio --------------------------------------------------------------------------------------------

SocketIOPacket = _socketio_packet.Packet
"""The Socket.IO packet class; a server's ``serializer`` derives from it and overrides ``decode(encoded) ->
attachments``. Its packet types: ``CONNECT``, ``DISCONNECT``, ``EVENT``, ``ACK``, ``BINARY_EVENT``, ``BINARY_ACK``."""
CONNECT: int = _socketio_packet.CONNECT
DISCONNECT: int = _socketio_packet.DISCONNECT
EVENT: int = _socketio_packet.EVENT
ACK: int = _socketio_packet.ACK
BINARY_EVENT: int = _socketio_packet.BINARY_EVENT
BINARY_ACK: int = _socketio_packet.BINARY_ACK


def start_manager(server: Any, initialize: Callable[[], None]) -> None:
    """Mark ``server``'s (a ``socketio.Server``) client manager as initialised and call ``initialize``, unless that
    has been done: python-socketio itself does it at the first connection."""
    if not server.manager_initialized:
        server.manager_initialized = True
        initialize()


def engine_socket_of(server: Any, sid: str, namespace: str = "/") -> Any | None:
    """The Engine.IO socket that carries Socket.IO session ``sid`` of ``namespace`` on ``server`` (a
    ``socketio.Server``), or None once it is gone."""
    return engine_socket(server.eio, server.manager.eio_sid_from_sid(sid, namespace))


# --- python-engineio --------------------------------------------------------------------------------------------

EnginePacket = _engineio_packet.Packet
"""An Engine.IO packet: what a socket's queue holds; ``encode()`` gives its text or bytes."""
EngineSocket = _engineio_socket.Socket
"""An Engine.IO server socket (one client's session): ``sid``, ``closed``, ``closing``, ``send(packet)``,
``receive(packet)``, ``queue`` (``put``, ``get``, ``empty``, ``join``)."""
SocketClosedError = _engineio_exceptions.SocketIsClosedError
"""Raised by ``receive`` (and a ping check) once a socket is closed."""
UnknownPacketError = _engineio_exceptions.UnknownPacketError
"""Raised by ``received`` text that is no Engine.IO packet."""


class DisconnectReason(Enum):
    """Why a socket closes, as Engine.IO tells the app's disconnect handler."""

    SERVER_DISCONNECT = "SERVER_DISCONNECT"
    TRANSPORT_ERROR = "TRANSPORT_ERROR"
    TRANSPORT_CLOSE = "TRANSPORT_CLOSE"
    PING_TIMEOUT = "PING_TIMEOUT"


def received(encoded: str | bytes) -> Any:
    """The Engine.IO packet that ``encoded`` (a WebSocket message) carries; raises ``UnknownPacketError``."""
    return EnginePacket(encoded_packet=encoded)


def replace_websocket(engine_io: Any, make: Callable[[Any, Any], Any]) -> Callable[[Any, Any], Any]:
    """Make ``make(handler, server)`` the WebSocket that ``engine_io`` (an ``engineio.Server``) builds for each
    WebSocket request (a WSGI app called with the request), instead of its own; returns its own."""
    stock = engine_io._async["websocket"]
    engine_io._async = {**engine_io._async, "websocket": make}
    return stock


def divert_pings(engine_io: Any, schedule: Callable[[str], None]) -> None:
    """Instead of a background task that sleeps a ping interval and pings, ``engine_io`` calls ``schedule(sid)``
    each time one of its sockets is due for a ping timer (the socket's session id); other tasks start as before."""
    start_task = engine_io.start_background_task

    def start_background_task(target: Any, *args: Any, **kwargs: Any) -> Any:
        if getattr(target, "__func__", None) is EngineSocket._send_ping:
            schedule(target.__self__.sid)
            return None
        return start_task(target, *args, **kwargs)

    engine_io.start_background_task = start_background_task


def new_websocket_session(handler: Any) -> Any | None:
    """The Engine.IO socket whose WebSocket ``handler`` (what ``engine_io`` passes ``make``) is, if it is one not yet
    connected (a new WebSocket, not an upgrade from polling), else None."""
    engine_socket = getattr(handler, "__self__", None)
    if isinstance(engine_socket, EngineSocket) and not engine_socket.connected:
        return engine_socket
    return None


def take_over(engine_socket: Any, queue: Any, ping_check: Callable[[], bool]) -> Any:
    """Mark ``engine_socket`` connected over a WebSocket, make ``queue`` its queue of packets to send and
    ``ping_check`` its check of the client's answers to pings (called on each packet sent: True while open, else
    raises ``SocketClosedError``); returns the queue it had, with what it holds so far."""
    engine_socket.connected = engine_socket.upgraded = True
    queued = engine_socket.queue
    engine_socket.queue = queue
    engine_socket.check_ping_timeout = ping_check
    return queued


def is_open(engine_socket: Any) -> bool:
    """Whether ``engine_socket`` is neither closing nor closed."""
    return not engine_socket.closing and not engine_socket.closed


def ping(engine_socket: Any, now: float) -> None:
    """Note ``now`` (wall-clock seconds) as ``engine_socket``'s last ping and send the ping."""
    engine_socket.last_ping = now
    engine_socket.send(EnginePacket(_engineio_packet.PING))


def answered_since(engine_socket: Any, pinged: float) -> bool:
    """Whether the client answered the ping sent at ``pinged`` (Engine.IO forgets a ping's time once answered)."""
    return engine_socket.last_ping != pinged


def close(engine_socket: Any, reason: DisconnectReason, *, abort: bool) -> None:
    """Close ``engine_socket`` for ``reason`` without waiting: ``abort`` at once, else after what is queued."""
    engine_socket.close(wait=False, abort=abort, reason=getattr(engine_socket.server.reason, reason.value))


def sent_everything(engine_socket: Any) -> bool:
    """Whether ``engine_socket``'s queue has handed every packet put on it to its writer (the end marker a close
    queues included)."""
    return engine_socket.queue.empty()


def ping_interval(engine_io: Any) -> float:
    """Seconds between two pings of a client of ``engine_io``."""
    return engine_io.ping_interval


def ping_timeout(engine_io: Any) -> float:
    """Seconds a client of ``engine_io`` has to answer a ping."""
    return engine_io.ping_timeout


def socket_count(engine_io: Any) -> int:
    """Engine.IO sessions open on ``engine_io``."""
    return len(engine_io.sockets)


def engine_socket(engine_io: Any, sid: str) -> Any | None:
    """``engine_io``'s socket of session ``sid``, or None."""
    return engine_io.sockets.get(sid)


def forget(engine_io: Any, sid: str) -> None:
    """Drop ``engine_io``'s closed socket of session ``sid`` (Engine.IO drops one when its own transport ends)."""
    engine_io.sockets.pop(sid, None)


def max_message_size(engine_io: Any) -> int:
    """The largest message, in bytes, that ``engine_io`` takes from a client."""
    return engine_io.max_http_buffer_size


def close_all(engine_io: Any) -> None:
    """Close every socket of ``engine_io`` without waiting for any of them (Engine.IO's own ``disconnect()`` waits
    for each in turn): each close is queued after what the socket was sending."""
    for each in list(engine_io.sockets.values()):
        close(each, DisconnectReason.SERVER_DISCONNECT, abort=False)
