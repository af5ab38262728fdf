"""A client flooding a real gunicorn with 1000 events a second gets ``rate_limited`` errors and is then
disconnected, while the players and spectators of its own game and of another game receive every ``moved``, in
order, and no error. (How much a flood slows the others is measured by bench/flood.py, not asserted here.) A flood
of game creations from one address is refused past its limit, creating nothing more, while another address
creates games."""

from __future__ import annotations

import contextlib
import http.client
import json
import sqlite3
import threading
import time
from collections import Counter

import pytest
from socketio.exceptions import SocketIOError
from support.servers import EventClient, LiveServer
from support.waiting import eventually

pytestmark = pytest.mark.servers

PLIES = 24
INTERVAL = 0.06
"""Seconds between two plies of a game: each player moves about 8 times a second, under the 10/s event limit."""
FLOOD_RATE = 1000
FLOOD_FROM = 4
"""The ply after which the flood starts."""
BURST = 400
"""Events sent at once: far over the default limit (a burst of 20) and the patience after it (five bursts more)."""
READ_LAG = 0.01
"""Seconds the slow client takes to handle each error it receives: its reading lags a second or so behind."""
LATE_SENDS = 10
LATE_SEND_PAUSE = 0.1
"""The slow client sends ``LATE_SENDS`` more events, one every ``LATE_SEND_PAUSE`` seconds, after its burst."""


def friend_nim(server: LiveServer) -> tuple[str, str, str]:
    """A Nim game between two people, long enough for ``PLIES`` moves of one counter: (id, token 0, token 1)."""
    created = server.post("/api/games", {"game": "nim", "options": {"piles": [99, 99], "max_take": 1},
                                          "opponent": {"type": "friend"}}).json()
    second = server.post(f"/api/games/{created['id']}/seats", {"invite": created["invite"]}).json()
    return created["id"], created["token"], second["token"]


def joined(server: LiveServer, game_id: str, token: str | None = None) -> EventClient:
    """A Socket.IO client (with the seat ``token``) that has joined ``game_id`` and received its state."""
    client = EventClient(server.url, token)
    client.emit("join", {"game_id": game_id})
    client.wait_for("state")
    return client


def flood(client: EventClient, game_id: str) -> tuple[threading.Thread, list[int]]:
    """Send ``move`` events for ``game_id`` at ``FLOOD_RATE`` a second until the server closes the connection;
    returns the sending thread and ``[events sent]``."""
    sent = [0]

    def send() -> None:
        due = time.perf_counter()
        while True:
            try:
                client.emit("move", {"game_id": game_id, "move": "1:1"})
            except SocketIOError:
                return
            sent[0] += 1
            due += 1 / FLOOD_RATE
            time.sleep(max(0.0, due - time.perf_counter()))

    thread = threading.Thread(target=send, name="flooder", daemon=True)
    thread.start()
    return thread, sent


def test_a_flooding_client_is_rate_limited_and_the_others_get_every_move(live_server):
    games = [friend_nim(live_server) for _ in range(2)]
    players = {game_id: [joined(live_server, game_id, first), joined(live_server, game_id, second)]
               for game_id, first, second in games}
    spectators = {game_id: joined(live_server, game_id) for game_id, _, _ in games}
    flooded = games[0][0]
    flooder = joined(live_server, flooded)
    for ply in range(1, PLIES + 1):
        if ply == FLOOD_FROM:
            thread, sent = flood(flooder, flooded)
        for game_id, seats in players.items():
            seats[(ply - 1) % 2].emit("move", {"game_id": game_id, "move": "1:1"})
        for game_id, seats in players.items():
            for client in (*seats, spectators[game_id]):
                client.wait_for("moved", lambda moved, game_id=game_id, ply=ply: (moved["game_id"], moved["ply"])
                                == (game_id, ply))
        time.sleep(INTERVAL)
    thread.join(timeout=20)
    assert not thread.is_alive() and not flooder.sio.connected
    for game_id, seats in players.items():
        for client in (*seats, spectators[game_id]):
            assert [moved["ply"] for moved in client.received("moved")] == list(range(1, PLIES + 1))
            assert client.received("error") == []
    errors = flooder.received("error")
    codes = Counter(error["code"] for error in errors)
    # Refusals only. How many of them it read is not asserted: a client still sending when the server closes gets
    # a reset for its next packets, and its own kernel then drops what it had not read yet (on a loaded machine,
    # most of them). The next test stops sending, and hears every refusal and the closing error.
    assert codes and set(codes) <= {"rate_limited", "forbidden"}, codes
    assert sent[0] >= codes.total(), (sent, codes)
    for client in (*spectators.values(), *(c for seats in players.values() for c in seats)):
        client.close()


def test_a_client_cut_off_is_told_why_and_told_nothing_after(live_server):
    """A burst of events far over the limit, then silence: the client hears refusals, then one error saying that
    its connection is closed, and nothing after it; the server then disconnects it."""
    game_id, _, _ = friend_nim(live_server)
    flooder = joined(live_server, game_id)
    for _ in range(BURST):
        flooder.emit("move", {"game_id": game_id, "move": "1:1"})
    eventually(lambda: not flooder.sio.connected, "the server's disconnection of the flooder")
    errors = flooder.received("error")
    closing = {"code": "rate_limited", "event": "move", "message": "far too many events; this connection is closed"}
    # (seen once, with two test runs on two cores: the closing error missing): say how the connection ended
    assert errors.count(closing) == 1 and errors[-1] == closing, (errors[-3:], len(errors), flooder.disconnects,
                                                                  live_server.log.read_text()[-3000:])
    assert {error["code"] for error in errors[:-1]} == {"rate_limited", "forbidden"}


def test_a_flood_of_game_creations_is_refused_past_the_address_limit_and_others_are_served(live_server):
    body = {"game": "tictactoe", "opponent": {"type": "friend"}}
    answers = [live_server.post("/api/games", body) for _ in range(45)]
    codes = [answer.status_code for answer in answers]
    # ARENA_CREATE_LIMIT: 30/minute, counted by a sliding-window counter, which estimates the last minute from the
    # minute before: a burst that straddles a minute's boundary may get one creation more.
    accepted = codes.count(201)
    assert codes == [201] * accepted + [429] * (45 - accepted) and accepted in (30, 31), codes
    for refused in answers[accepted:]:
        assert refused.json()["error"] == "rate_limited" and int(refused.headers["Retry-After"]) > 0
    with contextlib.closing(sqlite3.connect(live_server.instance / "arena.sqlite3")) as database:
        assert database.execute("SELECT COUNT(*) FROM games").fetchone()[0] == accepted
    other = http.client.HTTPConnection("127.0.0.1", live_server.port, timeout=10, source_address=("127.0.0.2", 0))
    other.request("POST", "/api/games", json.dumps(body), {"Content-Type": "application/json"})
    assert other.getresponse().status == 201  # another address has its own count
    other.close()


def test_a_client_cut_off_while_still_sending_and_slow_to_read_is_told_why(live_server):
    """A client whose burst is still going out, and whose reading lags behind, as on a loaded machine: the server
    keeps reading (and dropping) what it sends for ``CLOSING_GRACE`` after its last answers were taken, so its sends
    do not fail, and it reads its way to the error saying that its connection is closed. (A client's send that
    fails ends python-socketio's reader at once, dropping what it had received and not yet handled.)"""
    game_id, _, _ = friend_nim(live_server)
    flooder = EventClient(live_server.url, on_event=lambda event, data: time.sleep(READ_LAG) if event == "error"
                          else None)
    flooder.emit("join", {"game_id": game_id})
    flooder.wait_for("state")
    for _ in range(BURST):
        flooder.emit("move", {"game_id": game_id, "move": "1:1"})
    for _ in range(LATE_SENDS):  # still sending after the server has closed its side
        time.sleep(LATE_SEND_PAUSE)
        with contextlib.suppress(SocketIOError):
            flooder.emit("move", {"game_id": game_id, "move": "1:1"})
    eventually(lambda: not flooder.sio.connected, "the server's disconnection of the flooder")
    closing = {"code": "rate_limited", "event": "move", "message": "far too many events; this connection is closed"}
    errors = flooder.received("error")
    assert errors.count(closing) == 1 and errors[-1] == closing, (errors[-3:], len(errors), flooder.disconnects)
