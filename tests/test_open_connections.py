"""How ``OpenConnections.end_current`` ends a client it cut off (``webapp.transport.connections``): not before what was
queued for it has been written and the client has taken every byte, then its reads are stopped; on a real socket pair
and a clock moved by hand."""

from __future__ import annotations

import socket
import threading

from support.clocks import ManualClock
from support.waiting import eventually

from webapp.transport.connections import OpenConnections


def test_a_cut_off_client_is_ended_once_all_is_written_and_taken_and_then_read_no_more(socket_pair):
    clock, (server, client) = ManualClock(), socket_pair
    queued = threading.Event()
    queued.set()
    stopped: list[socket.socket] = []

    def app(environ, start_response):
        connections.end_current(after=0.05, written=lambda: not queued.is_set(), at_most=60)
        return [b""]

    connections = OpenConnections(app, clock, stopped.append)
    list(connections({"gunicorn.socket": server}, lambda *args: None))
    server.sendall(b"the last error")
    queued.clear()  # the writer has taken it: written, not yet taken by the client
    threading.Event().wait(0.3)
    assert not stopped
    assert client.recv(100) == b"the last error"
    eventually(lambda: stopped == [server], "the reader stopped once the client took every byte")
    assert server.recv(100) == b""  # shut down for reading
    server.sendall(b"still open for writing")  # the server's own end stays open; the duplicate is closed
    assert client.recv(100) == b"still open for writing"


def test_a_client_that_takes_nothing_is_ended_after_at_most(socket_pair):
    clock, (server, _) = ManualClock(), socket_pair
    stopped: list[socket.socket] = []

    def app(environ, start_response):
        connections.end_current(after=0.05, at_most=5)
        return [b""]

    connections = OpenConnections(app, clock, stopped.append)
    server.sendall(b"never read")
    list(connections({"gunicorn.socket": server}, lambda *args: None))
    threading.Event().wait(0.3)
    assert not stopped
    clock.advance(5)
    eventually(lambda: stopped == [server], "the reader stopped at the limit")
