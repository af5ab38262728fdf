"""One contract test for each use of python-engineio's, python-socketio's and gunicorn's internals
(``webapp.transport.internals``, the only module that reaches them, and the test kit's in-order client in
``tests/support/servers.py``), run against the installed, pinned releases: an upgrade that changes one fails here
first, and the message says what changed and where the project depends on it."""

from __future__ import annotations

import ast
import hashlib
import inspect
import queue
import threading
from pathlib import Path
from typing import Any

import engineio
import pytest
import socketio
from engineio import packet as engineio_packet
from engineio import socket as engineio_socket
from gunicorn.workers.ggevent import GeventWorker

from webapp.transport import internals
from webapp.transport.gevent_worker import PromptGeventWorker
from webapp.transport.socket_packets import ReadablePacket


def engine_server() -> Any:
    return engineio.Server(async_mode="threading", ping_interval=7, ping_timeout=3, max_http_buffer_size=1234)


def engine_socket(server: Any, sid: str = "s1") -> Any:
    made = engineio_socket.Socket(server, sid)
    server.sockets[sid] = made
    return made


PUBLIC = {"socketio": {"Server", "Manager", "RedisManager"}, "socketio.exceptions": {"ConnectionRefusedError"},
          "flask_socketio": None, "gevent": None, "gevent.event": None, "gevent.pool": None, "gevent.server": None}
"""What the app may import from the Socket.IO, gunicorn and gevent packages outside ``webapp.transport.internals``:
their documented API (None: any name)."""


def test_only_the_internals_module_reaches_into_the_libraries() -> None:
    root = Path(__file__).resolve().parents[1]
    strays = []
    for path in sorted((root / "webapp").rglob("*.py")):
        if path.name == "internals.py" and path.parent.name == "transport":
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                found = [(alias.name, None) for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                found = [(node.module, alias.name) for alias in node.names]
            else:
                continue
            for module, name in found:
                if module.split(".")[0] not in ("engineio", "socketio", "gunicorn", "flask_socketio", "gevent"):
                    continue
                allowed = PUBLIC.get(module, set())
                if module not in PUBLIC or (allowed is not None and name not in allowed):
                    strays.append(f"{path.relative_to(root)}:{node.lineno} {module}{f'.{name}' if name else ''}")
    assert strays == [], f"reach them through webapp.transport.internals: {strays}"


# --- gunicorn ---------------------------------------------------------------------------------------------------

GEVENT_WORKER_SOURCES = {"run": "50119854ef8be38c", "handle": "0ea41a12296421e4", "handle_exit": "e2f7159c426d379c"}
"""The sha256 (first 16 hex digits) of the source of each ``GeventWorker`` method that ``PromptGeventWorker``
overrides, as read from gunicorn 27.0.1."""


@pytest.mark.parametrize("method", list(GEVENT_WORKER_SOURCES))
def test_the_gevent_worker_methods_the_project_worker_overrides_are_unchanged(method: str) -> None:
    source = inspect.getsource(getattr(GeventWorker, method))
    digest = hashlib.sha256(source.encode()).hexdigest()[:16]
    assert digest == GEVENT_WORKER_SOURCES[method], (
        f"gunicorn's GeventWorker.{method} changed: PromptGeventWorker ({PromptGeventWorker.__module__}) overrides it "
        f"(run is a modified copy of it); read the new one, port what changed, then update GEVENT_WORKER_SOURCES")
    assert internals.GunicornGeventWorker is GeventWorker


def test_the_gevent_worker_has_what_the_project_worker_calls() -> None:
    for name in ("notify", "handle_exit", "handle", "init_process"):
        assert callable(getattr(GeventWorker, name, None)), f"gunicorn's GeventWorker lost {name}()"


# --- python-socketio --------------------------------------------------------------------------------------------

def test_a_serializer_packet_decodes_in_its_constructor_through_decode() -> None:
    """``ReadablePacket`` overrides ``decode`` and relies on the constructor calling it, and on its fields."""
    made = ReadablePacket(encoded_packet='2["move",{"a":1}]')
    assert (made.packet_type, made.namespace, made.id, made.data) == (internals.EVENT, None, None, ["move", {"a": 1}])
    assert made.attachment_count == 0
    calls: list[str] = []

    class Recording(internals.SocketIOPacket):  # type: ignore[misc]  # python-socketio ships no types
        def decode(self, encoded_packet: str | bytes) -> int:
            calls.append(str(encoded_packet))
            return int(super().decode(encoded_packet))

    Recording(encoded_packet="0")
    assert calls == ["0"], "python-socketio's Packet no longer decodes an encoded packet through decode()"
    assert list(inspect.signature(internals.SocketIOPacket.__init__).parameters)[1:] == [
        "packet_type", "data", "namespace", "id", "binary", "encoded_packet"]


def test_the_socketio_packet_types_keep_their_numbers() -> None:
    assert (internals.CONNECT, internals.DISCONNECT, internals.EVENT, internals.ACK, internals.BINARY_EVENT,
            internals.BINARY_ACK) == (0, 1, 2, 3, 5, 6)


def test_a_manager_is_started_once_and_marked_started() -> None:
    server = socketio.Server(async_mode="threading")
    assert server.manager_initialized is False, "python-socketio's Server no longer has manager_initialized"
    started: list[int] = []
    internals.start_manager(server, lambda: started.append(1))
    internals.start_manager(server, lambda: started.append(1))
    assert started == [1] and server.manager_initialized is True
    assert "manager_initialized" in inspect.getsource(socketio.Server), \
        "python-socketio no longer starts its manager through manager_initialized: start_manager would start it twice"


def test_the_engine_socket_of_a_socketio_session() -> None:
    server = socketio.Server(async_mode="threading")
    sid = server.manager.connect("e1", "/")
    transport = object()
    server.eio.sockets["e1"] = transport
    assert internals.engine_socket_of(server, sid) is transport
    assert internals.engine_socket_of(server, "nobody") is None


# --- python-engineio --------------------------------------------------------------------------------------------

def test_a_websocket_message_becomes_a_packet_and_unknown_text_raises() -> None:
    made = internals.received("4hello")
    assert (made.packet_type, made.data) == (engineio_packet.MESSAGE, "hello")
    with pytest.raises(internals.UnknownPacketError):
        engine_socket(engine_server()).receive(internals.received("6"))  # a NOOP is not a client's to send


def test_the_websocket_class_is_replaced_and_engineio_builds_it_from_there() -> None:
    server = engine_server()
    stock = server._async["websocket"]
    made: list[Any] = []
    assert internals.replace_websocket(server, lambda handler, srv: made.append(handler)) is stock
    assert server._async["websocket"] is not stock
    assert "self.server._async['websocket'](" in inspect.getsource(engineio_socket.Socket), \
        "python-engineio no longer builds a WebSocket from _async['websocket']: replace_websocket has no effect"


def test_a_socket_due_for_a_ping_calls_the_diverted_schedule() -> None:
    server = engine_server()
    due: list[str] = []
    internals.divert_pings(server, due.append)
    socket = engine_socket(server)
    socket.schedule_ping()  # what Engine.IO does at a connection's start and on each answer to a ping
    assert due == ["s1"], "python-engineio no longer schedules a ping as a background task running Socket._send_ping"
    started: list[int] = []
    server.start_background_task(lambda: started.append(1)).join()
    assert started == [1]


def test_a_new_websocket_session_is_known_by_its_handler() -> None:
    socket = engine_socket(engine_server())
    assert internals.new_websocket_session(socket._websocket_handler) is socket
    socket.connected = True
    assert internals.new_websocket_session(socket._websocket_handler) is None
    assert internals.new_websocket_session(print) is None


class ListQueue:
    def __init__(self) -> None:
        self.items: list[Any] = []

    def put(self, item: Any) -> None:
        self.items.append(item)

    def empty(self) -> bool:
        return not self.items


def test_a_socket_taken_over_sends_to_the_new_queue_through_the_new_ping_check() -> None:
    socket = engine_socket(engine_server())
    before = socket.queue
    before.put("queued")
    taken, checks = ListQueue(), []

    def check() -> bool:
        checks.append(1)
        return True

    assert internals.take_over(socket, taken, check) is before
    assert socket.connected and socket.upgraded
    message = engineio_packet.Packet(engineio_packet.MESSAGE, "x")
    socket.send(message)
    assert taken.items == [message] and checks == [1], "Engine.IO's send no longer checks the ping, then queues"
    assert not internals.sent_everything(socket)


def test_a_ping_is_noted_sent_and_its_answer_seen() -> None:
    socket = engine_socket(engine_server())
    internals.take_over(socket, taken := ListQueue(), lambda: True)
    assert internals.is_open(socket)
    internals.ping(socket, 100.0)
    assert [each.packet_type for each in taken.items] == [engineio_packet.PING]
    assert not internals.answered_since(socket, 100.0)
    socket.receive(engineio_packet.Packet(engineio_packet.PONG))
    assert internals.answered_since(socket, 100.0), "Engine.IO no longer clears last_ping when a pong comes"


@pytest.mark.parametrize("reason", list(internals.DisconnectReason))
def test_a_close_tells_the_disconnect_handler_its_reason(reason: internals.DisconnectReason) -> None:
    server = engine_server()
    told: list[Any] = []
    server.on("disconnect", lambda sid, why: told.append((sid, why)))
    socket = engine_socket(server)
    internals.close(socket, reason, abort=True)
    assert told == [("s1", getattr(server.reason, reason.value))]
    assert not internals.is_open(socket)


def test_a_close_without_abort_queues_the_close_packet_then_the_end() -> None:
    socket = engine_socket(engine_server())
    internals.take_over(socket, taken := ListQueue(), lambda: True)
    internals.close(socket, internals.DisconnectReason.PING_TIMEOUT, abort=False)
    assert [getattr(each, "packet_type", each) for each in taken.items] == [engineio_packet.CLOSE, None]


def test_the_servers_settings_and_sockets_are_read_and_dropped() -> None:
    server = engine_server()
    assert (internals.ping_interval(server), internals.ping_timeout(server)) == (7, 3)
    assert internals.max_message_size(server) == 1234
    socket = engine_socket(server)
    assert internals.socket_count(server) == 1 and internals.engine_socket(server, "s1") is socket
    internals.forget(server, "s1")
    assert internals.socket_count(server) == 0 and internals.engine_socket(server, "s1") is None


def test_every_socket_is_closed_without_waiting() -> None:
    server = engine_server()
    sockets = [engine_socket(server, sid) for sid in ("a", "b")]
    internals.close_all(server)  # the queues are never read here: a close that waited would not return
    assert all(each.closed for each in sockets)
    assert isinstance(sockets[0].queue, queue.Queue)


# --- the test kit's in-order client (tests/support/servers.py) -------------------------------------------------

def test_a_client_makes_its_engineio_client_from_its_class_and_triggers_events_in_the_calling_thread() -> None:
    """``tests/support/servers.py``'s in-order client overrides ``socketio.Client._engineio_client_class`` and calls
    ``engineio.Client._trigger_event`` with ``run_async=False``."""

    class Marked(engineio.Client):  # type: ignore[misc]  # python-engineio ships no types
        pass

    class Client(socketio.Client):  # type: ignore[misc]  # python-socketio ships no types
        def _engineio_client_class(self) -> type[engineio.Client]:
            return Marked

    assert isinstance(Client().eio, Marked), \
        "python-socketio's Client no longer makes its Engine.IO client through _engineio_client_class"
    client, seen = engineio.Client(), []
    client.on("message", lambda data: seen.append((data, threading.get_ident())))
    client._trigger_event("message", "x", run_async=False)
    assert seen == [("x", threading.get_ident())], \
        "python-engineio's Client._trigger_event no longer handles an event in the calling thread with run_async=False"
