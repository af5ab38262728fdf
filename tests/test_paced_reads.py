"""A WebSocket's reads at the pace of its budget (``webapp.transport.paced_reads``: ``PacedSocket``, and ``PaceReads``,
which hands one to each WebSocket request), on a real socket pair and a clock moved by hand."""

from __future__ import annotations

import threading

from support.clocks import ManualClock
from support.waiting import eventually

from webapp.transport.paced_reads import PacedSocket, PaceReads
from webapp.transport.token_bucket import TokenBucket


def reading(paced: PacedSocket, size: int) -> tuple[threading.Thread, list[bytes]]:
    """A thread reading ``size`` bytes from ``paced`` once; its result lands in the list."""
    got: list[bytes] = []
    thread = threading.Thread(target=lambda: got.append(paced.recv(size)), daemon=True)
    thread.start()
    return thread, got


def test_reads_within_the_budget_return_at_once_and_one_past_it_waits_for_the_refill(socket_pair):
    clock, (server, client) = ManualClock(), socket_pair
    paced = PacedSocket(server, TokenBucket(100, 300, clock.monotonic), clock)
    client.sendall(bytes(500))
    assert paced.recv(200) == bytes(200)
    thread, got = reading(paced, 200)  # 100 left: owes 100, one second at 100 a second
    thread.join(0.3)
    assert thread.is_alive() and not got
    clock.advance(0.5)
    thread.join(0.3)
    assert thread.is_alive()
    clock.advance(0.5)
    eventually(lambda: got, "the read's return once the budget has refilled")
    assert got == [bytes(200)]


def test_a_stopped_socket_reads_nothing_more_even_what_was_sent_before(socket_pair):
    clock, (server, client) = ManualClock(), socket_pair
    paced = PacedSocket(server, TokenBucket(100, 100, clock.monotonic), clock)
    client.sendall(bytes(1000))
    thread, got = reading(paced, 500)  # owes 400: waits four seconds of the clock
    thread.join(0.3)
    assert thread.is_alive()
    paced.stop()
    eventually(lambda: got, "the waiting read's return once stopped")
    assert got == [b""] and paced.recv(100) == b""
    assert paced.fileno() == server.fileno()  # everything else is the socket's own


def test_only_a_websocket_request_gets_a_paced_socket_and_only_while_it_is_served(socket_pair):
    clock, (server, client) = ManualClock(), socket_pair
    seen: list[object] = []

    def app(environ, start_response):
        seen.append(environ["gunicorn.socket"])
        pace.stop_reading(server)  # as a handler cutting the client off would, through OpenConnections
        return [b""]

    pace = PaceReads(app, clock)
    pace({"gunicorn.socket": server, "PATH_INFO": "/api/health"}, lambda *args: None)
    assert seen[-1] is server
    pace({"gunicorn.socket": server, "HTTP_UPGRADE": "WebSocket"}, lambda *args: None)
    paced = seen[-1]
    assert isinstance(paced, PacedSocket)
    client.sendall(b"x")
    assert paced.recv(10) == b""  # stopped while served
    assert not pace._paced  # forgotten once served
