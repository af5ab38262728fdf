"""WebSockets held by the node's event loop itself (``LoopWebSockets``): an open WebSocket costs no greenlet.

Under gunicorn's gevent worker python-engineio serves a WebSocket with simple-websocket in four greenlets: the
request's, which waits for the client's packets, a reader, a writer of the queued packets and a ping timer, about
73 KiB a connection (docs/scale.md). Here a WebSocket opened directly (the app's clients try that first) is taken
over from its request once the handshake is answered, and the request's greenlet ends:

- the loop watches the socket (a watcher of the loop, no stack); only when the client has sent something does a
  greenlet start, which reads once, decodes the frames (wsproto), hands Engine.IO each packet (the app's handlers
  run in it, one connection's in order) and ends; reads keep the pace of the connection's ``TokenBucket``
  (``webapp.transport.paced_reads``), each one after the loop has served the others;
- packets for the client are written at once without waiting: what its system does not take yet waits in the
  connection's buffer and is written when the socket can take more; a client that lets ``UNSENT_LIMIT`` bytes pile
  up is disconnected;
- pings are timed for every connection of the node by one ``Alarms``, and so is the end of a connection whose
  client did not answer a ping within Engine.IO's ``ping_timeout``. Engine.IO would look at that on every packet
  sent to the connection (and in its service task), and end it there, in the middle of whatever was sending: a
  broadcast to a room, holding the locks of the game or of its watcher count, whose disconnect handler then needs
  them again (a node whose pings stopped for good that way kept every client that went silent after it). Here
  the end comes from the alarms' thread, which holds nothing.

An upgrade from long polling to a WebSocket keeps Engine.IO's own (the app's clients open a WebSocket first; they
poll only where it fails). Hand-written because no library measured does it: python-socketio's asyncio server
costs 32 KiB a connection, with a writer and a ping task each (docs/scale.md).
"""

from __future__ import annotations

import contextlib
import functools
import logging
import socket
import threading
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

import gevent
from gevent import monkey
from wsproto.connection import Connection, ConnectionState, ConnectionType
from wsproto.events import BytesMessage, CloseConnection, Message, Ping, TextMessage
from wsproto.frame_protocol import CloseReason
from wsproto.utilities import ProtocolError, generate_accept_token

from webapp.alarms import Alarms
from webapp.clock import Clock
from webapp.transport import internals
from webapp.transport.connections import OpenConnections
from webapp.transport.paced_reads import PacedSocket

if TYPE_CHECKING:
    from _typeshed.wsgi import StartResponse, WSGIEnvironment

log = logging.getLogger(__name__)

READ_SIZE = 4096
"""Bytes read from a client at most at each turn of its connection."""
UNSENT_LIMIT = 1024 * 1024
"""Bytes waiting for a client's system to take them (beyond what that system holds already) at which the client is
disconnected: it does not read, and everything sent to it would pile up in the node."""
WRITES_PER_TURN = 200
"""Packets written to clients between two turns the writers give the rest of the node: a packet sent to a room of
thousands (python-socketio writes it to each socket in one loop) lets health checks, other rooms' packets and
requests run between its slices, as lila-ws flushes its rooms in bounded steps."""
SLICE_PAUSE = 0.0001
"""Seconds a writer pauses after ``WRITES_PER_TURN`` packets: any pause at all lets the loop look at its sockets
(a mere turn would only run the greenlets already ready: a health check's connection would wait)."""
CLOSING_SECONDS = 5.0
"""Seconds a connection the server closed has, after its closing frame is queued, before its socket is closed:
time to write what was queued and for the client to close its side (the connection then ends at once)."""

_RawSocket: type[socket.socket] = monkey.get_original("socket", "socket")
"""The standard library's socket (gevent's would wait where this one says it cannot go on)."""
CLOSING = "closing "
"""The prefix of a closing connection's key in the alarms (the others are Engine.IO session ids)."""
PONG_DUE = "pong due "
"""The prefix of the key of the time by which a connection pinged must have answered."""
EMPTY_MESSAGE = "4"
"""Engine.IO's message packet with no data."""
_READ, _WRITE = 1, 2
"""The events a watcher of the loop waits for."""


class LoopWebSockets:
    """The WebSocket transport of ``engine_io`` (a python-engineio server in gevent mode) under gunicorn, once
    installed (``install``): every WebSocket opened directly is held by the loop (module docstring). ``connections``
    counts each as in use until it ends and knows it as the current connection while its packets are handled;
    ``pings`` (on ``clock``'s monotonic time) times the pings of every Engine.IO connection of the node and the
    closing connections' ends; ``clock`` paces the reads."""

    def __init__(self, engine_io: Any, connections: OpenConnections, pings: Alarms, clock: Clock) -> None:
        self.engine_io = engine_io
        self.connections = connections
        self.clock = clock
        self._pings = pings
        self._by_sid: dict[str, _Connection] = {}
        """Every WebSocket held, by its Engine.IO session id."""
        self._framed: tuple[Any, bytes] | None = None
        """The last packet framed, and its frame."""
        self._writes = 0
        """Packets written so far (``wrote``)."""

    def install(self) -> None:
        """Serve ``engine_io``'s WebSockets opened directly here, and time its pings with ``pings`` (started here)."""
        engine_io = self.engine_io
        stock = internals.replace_websocket(engine_io, lambda handler, server: _Handshake(self, stock, handler, server))
        interval = internals.ping_interval(engine_io)
        internals.divert_pings(engine_io, lambda sid: self._pings.call_at(sid, self.clock.monotonic() + interval))
        self._pings.start(self._on_due)

    def _on_due(self, key: str) -> None:
        """A ping is due (``key``: the Engine.IO session id), or a closing connection's time is up (``CLOSING`` and
        the session id)."""
        if key.startswith(CLOSING):
            connection = self._by_sid.get(key.removeprefix(CLOSING))
            if connection is not None:
                connection.finish()
            return
        if key.startswith(PONG_DUE):
            connection = self._by_sid.get(key.removeprefix(PONG_DUE))
            if connection is not None:
                connection.end_if_silent()
            return
        sid = key
        engine_socket = internals.engine_socket(self.engine_io, sid)
        if engine_socket is not None and internals.is_open(engine_socket):
            connection = self._by_sid.get(sid)
            now = self.clock.time()
            if connection is not None:  # noted before the ping goes: its answer may come while it is written
                connection.pinged = now
                self._pings.call_at(PONG_DUE + sid, self.clock.monotonic() + internals.ping_timeout(self.engine_io))
            internals.ping(engine_socket, now)

    def frame(self, pkt: Any, websocket: Connection) -> bytes:
        """The WebSocket frame that carries ``pkt`` (made by ``websocket``). A server's frames are not masked, so a
        packet sent to a whole room (python-socketio builds it once) is encoded and framed once for all."""
        if self._framed is None or self._framed[0] is not pkt:
            encoded: str | bytes = pkt.encode()
            message = TextMessage(encoded) if isinstance(encoded, str) else BytesMessage(encoded)
            self._framed = (pkt, websocket.send(message))
        return self._framed[1]

    def wrote(self) -> None:
        """A packet was written to a client: after every ``WRITES_PER_TURN`` of them, give the rest of the node a
        turn (the writer is a greenlet sending a packet, never the loop's own callback)."""
        self._writes += 1
        if self._writes % WRITES_PER_TURN == 0:
            self.clock.sleep(SLICE_PAUSE)  # a pause, not just a turn: the loop polls its sockets meanwhile

    def opened(self, connection: _Connection) -> Any:
        """``connection`` takes its Engine.IO socket over: it is held until ``ended``, and its pings' answers are
        awaited by the alarms (``PONG_DUE``) instead of by each packet sent to it (module docstring). Returns the
        socket's queue before, with what it holds so far."""
        engine_socket = connection.engine_socket
        queued = internals.take_over(engine_socket, connection, functools.partial(_not_closed, engine_socket))
        self._by_sid[engine_socket.sid] = connection
        self.connections.hold(connection.client, connection.stop_reading)
        return queued

    def ended(self, connection: _Connection) -> None:
        """``connection``'s socket is closed: forget it (and its Engine.IO socket, once closed)."""
        self._by_sid.pop(connection.engine_socket.sid, None)
        if connection.engine_socket.closed:
            internals.forget(self.engine_io, connection.engine_socket.sid)
        self.connections.release(connection.client)

    def close_later(self, connection: _Connection) -> None:
        """End ``connection`` (``finish``) ``CLOSING_SECONDS`` from now, if it has not ended by then."""
        self._pings.call_at(CLOSING + connection.engine_socket.sid, self.clock.monotonic() + CLOSING_SECONDS)


def _not_closed(engine_socket: Any) -> bool:
    """Engine.IO's ``check_ping_timeout`` for a connection held here: ``SocketIsClosedError`` once it is closed,
    else True (its pings' answers are the alarms' business)."""
    if engine_socket.closed:
        raise internals.SocketClosedError()
    return True


class _Handshake:
    """Engine.IO's WebSocket for one request (its ``_async["websocket"]``): answers the handshake and hands the
    connection to the loop, or, for an upgrade from polling or a request not served by gunicorn, uses Engine.IO's
    own (``stock``)."""

    def __init__(self, transport: LoopWebSockets, stock: Any, handler: Callable[[Any], Any], server: Any) -> None:
        self.transport = transport
        self.stock = stock
        self.handler = handler
        self.server = server

    def __call__(self, environ: WSGIEnvironment, start_response: StartResponse) -> Iterable[bytes]:
        engine_socket = internals.new_websocket_session(self.handler)
        paced = environ.get("gunicorn.socket")
        if not isinstance(paced, PacedSocket) or engine_socket is None:
            return self.stock(self.handler, self.server)(environ, start_response)
        key = environ.get("HTTP_SEC_WEBSOCKET_KEY", "")
        if environ.get("HTTP_SEC_WEBSOCKET_VERSION") != "13" or not key:
            internals.close(engine_socket, internals.DisconnectReason.TRANSPORT_ERROR, abort=True)
            body = b"a WebSocket handshake needs Sec-WebSocket-Version 13 and a Sec-WebSocket-Key"
            start_response("400 Bad Request", [("Content-Type", "text/plain"), ("Content-Length", str(len(body)))])
            return [body]
        # The descriptor itself changes hands (gunicorn's close of its socket object is then nothing): the loop
        # goes on watching the descriptor number it knows.
        client = _RawSocket(fileno=paced.client.detach())
        client.setblocking(False)
        _keep_only_the_request(environ)
        connection = _Connection(self.transport, client, engine_socket, paced.budget, environ)
        connection.start(b"HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                         b"Sec-WebSocket-Accept: " + generate_accept_token(key.encode()) + b"\r\n\r\n")
        # gunicorn then writes nothing and ends the request's greenlet (as for simple-websocket's).
        raise StopIteration


def _keep_only_the_request(environ: WSGIEnvironment) -> None:
    """Keep in ``environ`` only what describes the request (its strings, and the Flask app's entry that
    Flask-SocketIO reads): python-socketio keeps a connection's environ for as long as it is open, to handle each
    event in a request context made from it, and the server's objects in it (its reader of the request, with the
    parsed message, its socket, the request object of the handshake's context) would stay with it."""
    for name, value in list(environ.items()):
        if not isinstance(value, str | bool | int | tuple) and name != "flask.app":
            del environ[name]


class _Connection:
    """One WebSocket held by the loop. It is also its Engine.IO socket's queue: ``put`` writes a packet at once,
    ``None`` closes; ``empty`` says whether everything was written, ``join`` waits for that."""

    __slots__ = ("_budget", "_close_code", "_environ", "_message", "_message_size", "_reading", "_stopped", "_unsent",
                 "_woken", "_writing", "client", "ending", "engine_socket", "finished", "pinged", "transport",
                 "websocket")

    def __init__(self, transport: LoopWebSockets, client: socket.socket, engine_socket: Any, budget: Any,
                 environ: WSGIEnvironment) -> None:
        """``environ``: the connection's, which python-socketio keeps (each event handled adds a request object to
        it, taken out again once the event is handled)."""
        self.transport = transport
        self._environ = environ
        self.client = client
        self.engine_socket = engine_socket
        self.websocket = Connection(ConnectionType.SERVER)
        self._budget = budget
        loop = gevent.get_hub().loop
        self._reading = loop.io(client.fileno(), _READ)
        self._writing: Any = None
        self._unsent = bytearray()
        self._message: list[str | bytes] = []
        self._message_size = 0
        self._stopped = False
        self._close_code = CloseReason.NORMAL_CLOSURE
        self._woken: threading.Condition | None = None
        self.ending = False
        self.finished = False
        self.pinged: float | None = None
        """Engine.IO's ``last_ping`` when the transport last pinged the client."""

    def start(self, handshake: bytes) -> None:
        """Send ``handshake`` (the HTTP answer), then what Engine.IO has queued so far, and wait for the client."""
        queued = self.transport.opened(self)
        self._write(handshake)
        while not queued.empty():
            self.put(queued.get())
        self._reading.start(self._readable)

    # Engine.IO's queue

    def put(self, pkt: Any) -> None:
        """Write ``pkt`` to the client now (what its system cannot take yet is kept and written later); ``None``
        closes the connection once everything before it is written."""
        if pkt is None:
            self._end()
            return
        if self.ending or self.websocket.state is not ConnectionState.OPEN:
            return
        self._write(self.transport.frame(pkt, self.websocket))
        self.transport.wrote()

    def empty(self) -> bool:
        """Whether everything put so far has been written to the client's system (or the connection has ended)."""
        return not self._unsent

    def join(self) -> None:
        """Return once ``empty`` (at most ``CLOSING_SECONDS`` after the connection was closed)."""
        while not self.empty() and not self.finished:
            self._wait(CLOSING_SECONDS)

    # reading

    def stop_reading(self) -> None:
        """Read nothing more: the connection ends."""
        if self.finished:
            return
        self._stopped = True
        self._wake()
        if self._reading.active:
            self._reading.stop()
            gevent.spawn(self._read)

    def _readable(self) -> None:
        # In the loop's own callback, which may not wait: the reading is done in a greenlet.
        self._reading.stop()
        gevent.spawn(self._read)

    def _read(self) -> None:
        try:
            data = b"" if self._stopped else self.client.recv(READ_SIZE)
        except BlockingIOError:
            self._watch_reads()
            return
        except OSError:
            data = b""
        if not data:
            self._client_gone()
            return
        owed = self._budget.charge(len(data))
        if not self.ending:  # once closing, what the client sends is read and dropped until it ends its side
            with self.transport.connections.serving(self.client):
                self._take(data)
            self._environ.pop("werkzeug.request", None)
        until = self.transport.clock.monotonic() + owed
        while not self._stopped and not self.finished and (left := until - self.transport.clock.monotonic()) > 0:
            self._wait(left)
        if self._stopped:
            self._client_gone()
        else:
            self._watch_reads()

    def _watch_reads(self) -> None:
        if not self.finished and not self._reading.active:
            self._reading.start(self._readable)

    def _take(self, data: bytes) -> None:
        """Hand Engine.IO every packet that ``data`` completes."""
        try:
            self.websocket.receive_data(data)
            for event in self.websocket.events():
                if self.ending or self._stopped:
                    return
                if isinstance(event, Message):
                    self._message.append(event.data)
                    self._message_size += len(event.data)
                    if self._message_size > internals.max_message_size(self.transport.engine_io):
                        log.warning("%s: packet is too large, closing connection", self.engine_socket.sid)
                        self._close_engine_socket(CloseReason.MESSAGE_TOO_BIG)
                    elif event.message_finished:
                        parts, self._message, self._message_size = self._message, [], 0
                        self._receive(parts[0][:0].join(parts))  # type: ignore[arg-type]  # parts of one kind
                elif isinstance(event, Ping):
                    self._write(self.websocket.send(event.response()))
                elif isinstance(event, CloseConnection):
                    if self.websocket.state is ConnectionState.REMOTE_CLOSING:
                        self._write(self.websocket.send(event.response()))
                    self._close_engine_socket()
        except ProtocolError:
            self._close_engine_socket(CloseReason.PROTOCOL_ERROR)

    def _receive(self, encoded: str | bytes) -> None:
        try:
            # An empty message is an empty Engine.IO message packet to python-socketio, which refuses it as an
            # unreadable Socket.IO packet (``webapp.transport.socket_packets``), as it does the text "4".
            self.engine_socket.receive(internals.received(encoded or EMPTY_MESSAGE))
        except internals.UnknownPacketError:
            pass
        except internals.SocketClosedError:
            self._close_engine_socket()
        except Exception:
            log.exception("%s: unreadable packet, closing connection", self.engine_socket.sid)
            self._close_engine_socket()

    def _close_engine_socket(self, code: CloseReason = CloseReason.NORMAL_CLOSURE) -> None:
        """The client has gone or broke the protocol: Engine.IO's socket closes (and with it this connection, with
        the closing frame's ``code``)."""
        self._close_code = code
        if not self.engine_socket.closed:
            internals.close(self.engine_socket, internals.DisconnectReason.TRANSPORT_CLOSE, abort=True)
        self._end()

    def end_if_silent(self) -> None:
        """The client's answer to the last ping is due: unless it came (Engine.IO then forgets the ping's time until
        the next one), close the connection as Engine.IO closes one that stopped answering."""
        engine_socket = self.engine_socket
        if (self.ending or not internals.is_open(engine_socket) or self.pinged is None
                or internals.answered_since(engine_socket, self.pinged)):
            return
        log.debug("%s: no answer to a ping within %g s, closing connection", engine_socket.sid,
                  internals.ping_timeout(self.transport.engine_io))
        internals.close(engine_socket, internals.DisconnectReason.PING_TIMEOUT, abort=False)

    def _client_gone(self) -> None:
        self._close_engine_socket()
        self.finish()

    # writing

    def _cut(self) -> None:
        """End the connection without writing anything more (what is unsent may end mid-frame). Its reader
        closes it, so that the app's disconnect handler runs after the handler it may be running, not beside it."""
        self._unsent.clear()
        self.stop_reading()

    def _write(self, data: bytes) -> None:
        if self.finished or self._stopped:
            return
        self._unsent += data
        self._flush()

    def _flush(self) -> None:
        """Write what the client's system takes now, without waiting; watch for room for the rest."""
        try:
            while self._unsent:
                del self._unsent[:self.client.send(self._unsent)]
        except BlockingIOError:
            pass
        except OSError:  # the client has gone
            self._cut()
            return
        if len(self._unsent) > UNSENT_LIMIT:
            log.warning("%s: the client does not read, closing connection", self.engine_socket.sid)
            self._cut()
            return
        if self._unsent:
            if self._writing is None:
                self._writing = gevent.get_hub().loop.io(self.client.fileno(), _WRITE)
            if not self._writing.active:
                self._writing.start(self._flush)
            return
        if self._writing is not None:
            self._writing.stop()
        if self.ending:
            with contextlib.suppress(OSError):  # the client has gone meanwhile
                self.client.shutdown(socket.SHUT_WR)
        self._wake()

    # ending

    def _end(self) -> None:
        """Engine.IO closed the socket: send the closing frame after what is queued (then end the sending side),
        read and drop what the client still sends until it ends its side, and end within ``CLOSING_SECONDS``.
        Reading on keeps the socket's input empty: a socket closed with unread input resets the connection, and
        the client's system then drops what it had received and not yet handed to the client (the error that
        said why it was closed)."""
        if self.ending:
            return
        self.ending = True
        if self.websocket.state is ConnectionState.OPEN:
            self._write(self.websocket.send(CloseConnection(code=self._close_code)))
        else:
            self._flush()
        if not self.finished:
            self.transport.close_later(self)

    def finish(self) -> None:
        """Close the socket now and forget the connection."""
        if self.finished:
            return
        self.finished = True
        self._reading.stop()
        self._reading.close()
        if self._writing is not None:
            self._writing.stop()
            self._writing.close()
        self._unsent.clear()
        self.client.close()
        self.transport.ended(self)
        self._wake()

    def _wait(self, seconds: float) -> None:
        """Wait ``seconds`` of the transport's clock, or until ``_wake``."""
        if self._woken is None:
            self._woken = threading.Condition()
        with self._woken:
            self.transport.clock.wait(self._woken, seconds)

    def _wake(self) -> None:
        if self._woken is not None:
            with self._woken:
                self._woken.notify_all()
