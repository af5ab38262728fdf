"""Redis, the Socket.IO message queue of two real gunicorn nodes, stopped while they run and started again on the
same port: each node keeps serving its own clients, logs the outage once, and shares events again once it returns."""

from __future__ import annotations

import signal

import pytest
from support.servers import EventClient, LiveServer
from support.services import RedisServer
from support.waiting import eventually

from engine import BUILD
from webapp.transport.message_queue import redacted

pytestmark = pytest.mark.servers

UNREACHABLE = "Socket.IO message queue"


def joined(url: str, game_id: str, token: str | None = None) -> EventClient:
    client = EventClient(url, token)
    client.emit("join", {"game_id": game_id})
    client.wait_for("state")
    return client


def wait_for_queue(node: LiveServer, status: str, timeout: float = 15) -> None:
    """Wait until the node's health route reports its message queue ``status`` ("up" or "down")."""
    eventually(lambda: node.get("/api/health").json()["message_queue"] == status,
               f"{node.url} reporting its message queue {status}", timeout, interval=0.1)


def play(mover: EventClient, game_id: str, move: str, ply: int, watchers: list[EventClient]) -> None:
    """``mover`` plays ``move`` as ply ``ply``; every watcher (the mover too) receives its ``moved``."""
    mover.emit("move", {"game_id": game_id, "move": move})
    for watcher in (mover, *watchers):
        watcher.wait_for("moved", lambda m: m["ply"] == ply, timeout=10)


def test_a_redis_outage_leaves_each_node_serving_its_own_clients_and_recovery_is_automatic(tmp_path):
    redis = RedisServer(tmp_path / "redis").start()
    env = {"SOCKETIO_MESSAGE_QUEUE": redis.url, "DATABASE_URL": f"sqlite:///{tmp_path / 'arena.sqlite3'}",
           "SECRET_KEY": "cluster-key", "ARENA_PACE": "0"}
    nodes = {name: LiveServer(tmp_path / name, env={**env, "ARENA_NODE": name}) for name in "ab"}
    clients: list[EventClient] = []
    try:
        for node in nodes.values():
            node.start()
        a, b = nodes["a"], nodes["b"]
        # On node a, a friend game with both players on a and a spectator on b.
        friends = a.post("/api/games", {"game": "tictactoe", "side": 0, "opponent": {"type": "friend"}}).json()
        friend_id = friends["id"]
        second = a.post(f"/api/games/{friend_id}/seats", {"invite": friends["invite"]}).json()
        x, o = joined(a.url, friend_id, friends["token"]), joined(a.url, friend_id, second["token"])
        far_spectator = joined(b.url, friend_id)
        # On node b, a game against the engine, its player on b and a spectator on a.
        engine = b.post("/api/games", {"game": "nim", "options": {"piles": [3, 4, 5]}, "side": 0, "opponent": {
            "type": "engine", "time": 0.3, "algorithm": "minimax"}}).json()
        engine_id = engine["id"]
        player = joined(b.url, engine_id, engine["token"])
        engine_spectator = joined(a.url, engine_id)
        clients += [x, o, far_spectator, player, engine_spectator]
        play(x, friend_id, "1", 1, [o, far_spectator])

        redis.stop()
        wait_for_queue(a, "down")
        wait_for_queue(b, "down")
        play(o, friend_id, "5", 2, [x])
        play(x, friend_id, "9", 3, [o])
        assert a.post(f"/api/games/{friend_id}/moves", {"move": "3", "token": second["token"]}).status_code == 200
        x.wait_for("moved", lambda m: m["ply"] == 4)
        player.emit("move", {"game_id": engine_id, "move": "1:1"})
        reply = player.wait_for("moved", lambda m: m["ply"] == 2)
        assert reply["by"] == 1
        final = player.wait_for("search", lambda s: s["ply"] == 1 and s["info"]["kind"] == "final")
        assert final["info"]["best"] == reply["move"]
        assert "started" in [s["info"]["kind"] for s in player.received("search") if s["ply"] == 1]
        for node, game_id, ply in ((a, friend_id, 4), (b, engine_id, 2), (a, engine_id, 2), (b, friend_id, 4)):
            answer = node.get(f"/api/games/{game_id}")
            assert answer.status_code == 200 and answer.json()["ply"] == ply
        assert far_spectator.received("moved")[-1]["ply"] == 1, "events crossed nodes without a queue"
        assert engine_spectator.received("moved") == []
        for client in clients:
            assert client.received("error") == []

        redis.start()
        wait_for_queue(a, "up")
        wait_for_queue(b, "up")
        # What the far clients missed arrives as the current state, then new moves cross nodes again.
        far_spectator.wait_for("state", lambda s: s["ply"] == 4, timeout=10)
        engine_spectator.wait_for("state", lambda s: s["ply"] == 2, timeout=10)
        play(x, friend_id, "7", 5, [o, far_spectator])
        player.emit("move", {"game_id": engine_id, "move": reply["state"]["legal_moves"][0]})
        engine_spectator.wait_for("moved", lambda m: m["ply"] == 4, timeout=10)
        assert engine_spectator.wait_for("search", lambda s: s["ply"] == 3 and s["info"]["kind"] == "final")
        for client in clients:
            assert client.received("error") == []
            moved = [m["ply"] for m in client.received("moved")]
            assert len(moved) == len(set(moved)), f"a move arrived twice: {moved}"
    finally:
        for client in clients:
            client.close()
        for node in nodes.values():
            node.stop()
        redis.stop()
    for node in nodes.values():
        log = node.log.read_text()
        assert log.count(f"{UNREACHABLE} {redis.url} is unreachable") == 1, log
        assert log.count(f"{UNREACHABLE} {redis.url} reconnected") == 1, log
        assert "Traceback" not in log and "Cannot publish to redis" not in log, log


def test_a_node_started_while_redis_is_down_or_with_redis_hung_serves_its_clients_and_recovers(tmp_path):
    redis = RedisServer(tmp_path / "redis")
    env = {"SOCKETIO_MESSAGE_QUEUE": redis.url, "ARENA_NODE": "alone"}
    node = LiveServer(tmp_path / "node", env=env).start()
    try:
        wait_for_queue(node, "down")  # noticed with no client connected yet
        created = node.post("/api/games", {"game": "tictactoe", "side": 0, "opponent": {"type": "friend"}}).json()
        game_id = created["id"]
        second = node.post(f"/api/games/{game_id}/seats", {"invite": created["invite"]}).json()
        x, o = joined(node.url, game_id, created["token"]), joined(node.url, game_id, second["token"])
        play(x, game_id, "5", 1, [o])
        redis.start()
        wait_for_queue(node, "up")
        assert node.get("/api/health").json() == {"status": "ok", "node": "alone", "message_queue": "up",
                                                  "database": "up", "games_in_memory": 1, "engine": BUILD.to_dict()}
        # A Redis that stops answering but keeps its connections open (SIGSTOP) is noticed by its silence.
        assert redis.process is not None
        redis.process.send_signal(signal.SIGSTOP)
        try:
            play(o, game_id, "1", 2, [x])
            wait_for_queue(node, "down")
            play(x, game_id, "9", 3, [o])
        finally:
            redis.process.send_signal(signal.SIGCONT)
        wait_for_queue(node, "up")
        play(o, game_id, "3", 4, [x])
        assert x.received("error") == [] and o.received("error") == []
        x.close()
        o.close()
    finally:
        node.stop()
        redis.stop()
    log = node.log.read_text()
    assert log.count("is unreachable") == 2 and log.count("reconnected") == 2, log
    assert "Traceback" not in log, log


def test_log_lines_name_the_queue_without_its_password():
    assert redacted("redis://arena:s3cret@queue.example:6380/0") == "redis://arena:***@queue.example:6380/0"
    assert redacted("redis://127.0.0.1:6379/0") == "redis://127.0.0.1:6379/0"
