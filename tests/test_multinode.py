"""Several web nodes sharing one database and a Redis Socket.IO message queue: two real gunicorn nodes behind nginx
(deploy/nginx.conf as committed) with a real redis-server, and two in-process arenas on one database (SQLite, then
PostgreSQL) for the engine's races: two nodes resuming the same engine turn, and a game changed on the node that is
not searching it."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest
from support.servers import GENEROUS_CONNECTIONS, EventClient, LiveServer
from support.services import Nginx, RedisServer
from support.waiting import eventually

from webapp.arena.assemble import ArenaSettings, assemble
from webapp.arena.turns import CHANGED_ELSEWHERE
from webapp.clock import SYSTEM_CLOCK
from webapp.search.pool import EngineRunner
from webapp.store import Store
from webapp.validation import check_new_game

pytestmark = pytest.mark.servers

def node_env(queue: str, database: Path, name: str) -> dict[str, str]:
    """The environment of one node of a cluster: shared queue, database and secret; its own name; per-address
    limits far above the hundreds of games these tests create from one address (the limits' own test below sets
    its own)."""
    return {"SOCKETIO_MESSAGE_QUEUE": queue, "DATABASE_URL": f"sqlite:///{database}", "SECRET_KEY": "cluster-key",
            "ARENA_NODE": name, "ARENA_PACE": "0", **GENEROUS_CONNECTIONS}


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    """Redis, nodes "a" and "b" on one SQLite file, and nginx in front of them (deploy/nginx.conf, every port a
    free one): ``(nginx, {"a": node, "b": node})``."""
    folder = tmp_path_factory.mktemp("cluster")
    redis = RedisServer(folder / "redis").start()
    nodes: dict[str, LiveServer] = {}
    try:
        for name in "ab":
            env = node_env(redis.url, folder / "arena.sqlite3", name)
            nodes[name] = LiveServer(folder / name, env=env).start()
        nginx = Nginx(folder / "nginx", node_ports=(nodes["a"].port, nodes["b"].port)).start()
        try:
            yield nginx, nodes
        finally:
            nginx.stop()
    finally:
        for node in nodes.values():
            node.stop()
        redis.stop()


def joined(url: str, game_id: str, token: str | None = None) -> EventClient:
    client = EventClient(url, token)
    client.emit("join", {"game_id": game_id})
    client.wait_for("state")
    return client


def next_event(client: EventClient, event: str, after: int, timeout: float = 10) -> dict:
    """The first ``event`` payload the client receives after the first ``after`` ones."""
    eventually(lambda: len(client.received(event)) > after, f"a new {event!r} event", timeout, interval=0.02)
    return client.received(event)[after]


def nginx_and_other_node(cluster) -> tuple[str, LiveServer, LiveServer]:
    """nginx's URL, the node nginx sends this machine's clients to (ip_hash), and the other node."""
    nginx, nodes = cluster
    served = nginx_node = nodes[_get(nginx.url + "/api/health")["node"]]
    other = next(node for node in nodes.values() if node is not served)
    return nginx.url, nginx_node, other


def _get(url: str) -> dict:
    import requests

    answer = requests.get(url, timeout=10)
    assert answer.status_code == 200, answer.text
    return answer.json()


def _post(url: str, body: dict) -> dict:
    import requests

    answer = requests.post(url, json=body, timeout=10)
    assert answer.status_code in (200, 201), answer.text
    return answer.json()


def test_a_player_through_nginx_and_a_spectator_on_the_other_node_see_the_game_and_the_engine_think(cluster):
    entry, served, other = nginx_and_other_node(cluster)
    created = _post(entry + "/api/games", {"game": "tictactoe", "side": 0,
                                           "opponent": {"type": "engine", "time": 0.6, "algorithm": "minimax"}})
    game_id = created["id"]
    player = joined(entry, game_id, created["token"])
    spectator = joined(other.url, game_id)
    try:
        assert _get(served.url + "/api/health")["message_queue"] == "up"
        for ply, move in ((1, "5"), (3, None)):
            if move is None:
                move = player.wait_for("moved", lambda m, ply=ply: m["ply"] == ply - 1)["state"]["legal_moves"][0]
            player.emit("move", {"game_id": game_id, "move": move})
            seen = spectator.wait_for("moved", lambda m, ply=ply: m["ply"] == ply)
            assert seen["move"] == move and seen["by"] == 0
            reply = spectator.wait_for("moved", lambda m, ply=ply: m["ply"] == ply + 1)
            assert reply["by"] == 1
            # The client handles each message in a thread of its own, so events sent together may be recorded in
            # either order: wait for the final event rather than expect it before the move.
            final = spectator.wait_for("search", lambda s, ply=ply: s["ply"] == ply and s["info"]["kind"] == "final")
            assert final["info"]["best"] == reply["move"]
            kinds = {s["info"]["kind"] for s in spectator.received("search") if s["ply"] == ply}
            assert "started" in kinds and kinds & {"depth", "progress"}, kinds
        player.wait_for("moved", lambda m: m["ply"] == 4)
        for client in (spectator, player):
            assert sorted(m["ply"] for m in client.received("moved")) == [1, 2, 3, 4]
        assert spectator.received("error") == [] and player.received("error") == []
        assert _get(f"{other.url}/api/games/{game_id}")["moves"] == reply["state"]["moves"]
    finally:
        player.close()
        spectator.close()


def test_a_friend_game_with_its_players_on_different_nodes_is_played_to_the_end(cluster):
    entry, served, other = nginx_and_other_node(cluster)
    created = _post(entry + "/api/games", {"game": "tictactoe", "side": 0, "opponent": {"type": "friend"}})
    game_id = created["id"]
    second = _post(f"{other.url}/api/games/{game_id}/seats", {"invite": created["invite"]})
    assert second["seat"] == 1
    players = [joined(entry, game_id, created["token"]), joined(other.url, game_id, second["token"])]
    try:
        moves = ["1", "4", "2", "5", "3"]
        for ply, move in enumerate(moves, start=1):
            players[(ply - 1) % 2].emit("move", {"game_id": game_id, "move": move})
            for player in players:
                player.wait_for("moved", lambda m, ply=ply: m["ply"] == ply)
        for player in players:
            assert [(m["ply"], m["move"]) for m in player.received("moved")] == list(enumerate(moves, start=1))
            assert player.received("error") == []
        final = players[1].wait_for("moved", lambda m: m["ply"] == len(moves))["state"]
        assert final["status"] == "finished" and final["result"]["winner"] == 0
        for node in (served, other):
            state = _get(f"{node.url}/api/games/{game_id}")
            assert state["moves"] == moves and state["status"] == "finished"
            assert state["version"] == 1 + len(moves)  # the seat taken, then each move, whichever node stored it

        players[0].emit("rematch", {"game_id": game_id})  # offered, on the first node
        players[1].wait_for("state", lambda state: state["offers"]["rematch"] == 0)  # the other node shows it
        players[1].emit("rematch", {"game_id": game_id})  # accepted: made on the second node
        theirs = players[1].wait_for("rematch")
        mine = players[0].wait_for("rematch")  # from the other node: the link, no token
        assert "token" not in mine and theirs["new_id"] == mine["new_id"] and theirs["seat"] == 0
        players[0].emit("rematch", {"game_id": game_id})  # as the page does: its own node answers with the token
        mine = players[0].wait_for("rematch", lambda r: "token" in r)
        assert mine["seat"] == 1 and theirs["new_id"] == mine["new_id"]
        assert [len(player.received("rematch")) for player in players] == [2, 1]
    finally:
        for player in players:
            player.close()


def test_two_moves_for_the_same_ply_sent_at_once_to_the_two_nodes_one_is_accepted(cluster):
    _, nodes = cluster
    created = _post(nodes["a"].url + "/api/games", {"game": "tictactoe", "side": 0, "opponent": {"type": "friend"}})
    game_id = created["id"]
    second = _post(f"{nodes['b'].url}/api/games/{game_id}/seats", {"invite": created["invite"]})
    tabs = {name: joined(nodes[name].url, game_id, created["token"]) for name in "ab"}
    opponent = joined(nodes["b"].url, game_id, second["token"])
    try:
        ply = 0
        for first_try, second_try, reply in (("1", "2", "5"), ("3", "7", "9")):
            errors_before = {name: len(tab.received("error")) for name, tab in tabs.items()}
            start = threading.Barrier(2)

            def send(name: str, move: str, start: threading.Barrier = start) -> None:
                start.wait()
                tabs[name].emit("move", {"game_id": game_id, "move": move})

            senders = [threading.Thread(target=send, args=("a", first_try)),
                       threading.Thread(target=send, args=("b", second_try))]
            for sender in senders:
                sender.start()
            for sender in senders:
                sender.join()
            ply += 1
            for client in (*tabs.values(), opponent):
                client.wait_for("moved", lambda m, ply=ply: m["ply"] == ply)
            landed = [m["move"] for m in opponent.received("moved") if m["ply"] == ply]
            assert len(landed) == 1 and landed[0] in (first_try, second_try)
            winner, loser = ("a", "b") if landed[0] == first_try else ("b", "a")
            error = next_event(tabs[loser], "error", errors_before[loser])
            assert error["code"] == "not_your_turn" and error["event"] == "move"
            assert tabs[winner].received("error")[errors_before[winner]:] == []
            states = [_get(f"{node.url}/api/games/{game_id}") for node in nodes.values()]
            assert states[0]["moves"] == states[1]["moves"] and len(states[0]["moves"]) == ply
            assert states[0]["to_move"] == states[1]["to_move"] == 1
            opponent.emit("move", {"game_id": game_id, "move": reply})
            ply += 1
            for client in (*tabs.values(), opponent):
                client.wait_for("moved", lambda m, ply=ply: m["ply"] == ply)
        for client in (*tabs.values(), opponent):
            assert sorted(m["ply"] for m in client.received("moved")) == [1, 2, 3, 4]
    finally:
        for client in (*tabs.values(), opponent):
            client.close()


@pytest.fixture(params=["sqlite", "postgresql"])
def two_arenas(request, tmp_path):
    """Two in-process arenas ("a", "b") on one database (an SQLite file, or a real PostgreSQL server), one engine
    worker each, and what each emitted: ``(arenas, {name: [(event, payload), ...]})``."""
    url = f"sqlite:///{tmp_path / 'shared.sqlite3'}"
    if request.param == "postgresql":
        url = request.getfixturevalue("postgres_server").create_database()
    emitted: dict[str, list[tuple[str, dict]]] = {"a": [], "b": []}
    arenas = {name: assemble(Store(url), "key", lambda event, payload, to, name=name: emitted[name].append(
        (event, payload)), EngineRunner(1, SYSTEM_CLOCK), ArenaSettings(pace=0)) for name in "ab"}
    yield arenas, emitted
    for arena in arenas.values():
        arena.close()


def search_ends(emitted: dict[str, list[tuple[str, dict]]]) -> list[tuple[str, dict]]:
    """The ``final`` and ``cancelled`` search events, with the name of the arena that sent each."""
    return [(name, payload["info"]) for name, events in emitted.items() for event, payload in list(events)
            if event == "search" and payload["info"]["kind"] in ("final", "cancelled")]


def wait_for_search_ends(emitted: dict[str, list[tuple[str, dict]]], count: int, timeout: float = 20) -> None:
    """Wait until ``count`` searches have ended (each ends with one ``final`` or one ``cancelled``)."""
    eventually(lambda: len(search_ends(emitted)) >= count, f"the end of {count} searches", timeout)


def test_two_nodes_resuming_the_same_engine_turn_land_exactly_one_move(two_arenas):
    arenas, emitted = two_arenas
    # A turn of 2 s: still running when node b looks, however loaded the machine is between the two calls.
    request = check_new_game({"game": "nim", "options": {"piles": [3, 4, 5]}, "side": 1,
                              "opponent": {"type": "engine", "time": 2, "algorithm": "minimax"}})
    game_id, _, _ = arenas["a"].creation.create(request)
    assert arenas["b"].resume() == 1
    wait_for_search_ends(emitted, 2)
    ends = search_ends(emitted)
    assert sorted(info["kind"] for _, info in ends) == ["cancelled", "final"]
    assert {name for name, _ in ends} == {"a", "b"}, "each node ends its own search once"
    assert next(info for _, info in ends if info["kind"] == "cancelled")["reason"] == CHANGED_ELSEWHERE
    events = emitted["a"] + emitted["b"]
    moved = [payload for event, payload in events if event == "moved"]
    assert [m["ply"] for m in moved] == [1]
    assert next(info for _, info in ends if info["kind"] == "final")["best"] == moved[0]["move"]
    assert [payload for event, payload in events if event == "error"] == []
    for arena in arenas.values():
        state = arena.reads.game_state(game_id, None)
        assert state["moves"] == [moved[0]["move"]] and state["to_move"] == 1


def test_a_search_is_stopped_soon_after_the_player_resigns_on_another_node(two_arenas):
    arenas, emitted = two_arenas
    request = check_new_game({"game": "nim", "options": {"piles": [9, 9, 9, 9]}, "side": 0,
                              "opponent": {"type": "engine", "time": 30, "algorithm": "minimax"}})
    game_id, seat, _ = arenas["a"].creation.create(request)
    arenas["a"].moves.play(game_id, seat, "1:1")
    assert arenas["a"].runner.state_of(game_id) != "idle"
    arenas["b"].endings.resign(game_id, seat)
    # The resigning node's copy matches the store exactly, so its next action needs no reload.
    assert arenas["b"].store.version_of(game_id) == arenas["b"].cache.get(game_id).version
    wait_for_search_ends(emitted, 1, timeout=10)
    assert search_ends(emitted) == [("a", {"kind": "cancelled", "reason": CHANGED_ELSEWHERE})]
    assert arenas["a"].runner.state_of(game_id) == "idle"
    assert [event for event, _ in emitted["a"] + emitted["b"] if event in ("moved", "error")] == ["moved"]
    state = arenas["a"].reads.game_state(game_id, None)
    assert state["result"] == {"winner": 1, "reason": "resigned"} and state["moves"] == ["1:1"]


def test_the_nodes_count_an_address_together_in_redis(tmp_path):
    redis = RedisServer(tmp_path / "redis").start()
    limits = {"ARENA_CREATE_LIMIT": "3/day", "ARENA_MOVE_LIMIT": "2/day"}  # a day: see test_address_limits.WINDOW
    nodes = [LiveServer(tmp_path / name, env={**node_env(redis.url, tmp_path / "arena.sqlite3", name), **limits})
             for name in "ab"]
    try:
        for node in nodes:
            node.start()
        body = {"game": "tictactoe", "side": 0, "opponent": {"type": "friend"}}
        created = [_post(nodes[0].url + "/api/games", body), _post(nodes[1].url + "/api/games", body),
                   _post(nodes[0].url + "/api/games", body)]
        refused = nodes[1].post("/api/games", body)
        assert refused.status_code == 429 and refused.json()["error"] == "rate_limited"
        assert int(refused.headers["Retry-After"]) > 0
        game_id, token = created[0]["id"], created[0]["token"]
        assert nodes[1].post(f"/api/games/{game_id}/alone", {"token": token}).status_code == 200
        assert nodes[1].post(f"/api/games/{game_id}/moves", {"move": "5", "token": token}).status_code == 200
        player = EventClient(nodes[0].url, token)
        player.emit("move", {"game_id": game_id, "move": "1"})  # not this seat's turn, but counted all the same
        player.wait_for("error")
        player.emit("move", {"game_id": game_id, "move": "1"})
        error = player.wait_for("error", lambda e: e["code"] == "rate_limited")
        assert error["retry_after"] > 0
        player.close()
        assert _get(f"{nodes[0].url}/api/games/{game_id}")["moves"] == ["5"]
    finally:
        for node in nodes:
            node.stop()
        redis.stop()


def test_an_engine_turn_whose_node_dies_mid_search_is_taken_over_by_the_other_node(tmp_path):
    redis = RedisServer(tmp_path / "redis").start()
    nodes = [LiveServer(tmp_path / name, env=node_env(redis.url, tmp_path / "arena.sqlite3", name))
             for name in "ab"]
    try:
        for node in nodes:
            node.start()
        created = _post(nodes[0].url + "/api/games", {"game": "connect4", "side": 0, "opponent": {
            "type": "engine", "depth": 40, "time": 4, "algorithm": "alphabeta"}})
        game_id = created["id"]
        player = joined(nodes[0].url, game_id, created["token"])
        spectator = joined(nodes[1].url, game_id)
        player.emit("move", {"game_id": game_id, "move": "4"})
        spectator.wait_for("search", lambda s: s["ply"] == 1 and s["info"]["kind"] == "started")
        nodes[0].kill()  # the node searching the engine's turn dies; its lease runs out, node b takes the turn over
        moved = spectator.wait_for("moved", lambda m: m["ply"] == 2, timeout=30)
        assert moved["by"] == 1
        assert "takes it over" in nodes[1].log.read_text()
        assert _get(f"{nodes[1].url}/api/games/{game_id}")["moves"][:1] == ["4"]
        spectator.close()
    finally:
        for node in nodes:
            node.stop()
        redis.stop()


def test_the_watcher_count_adds_up_the_watchers_of_both_nodes(cluster):
    _, nodes = cluster
    created = _post(nodes["a"].url + "/api/games", {"game": "tictactoe", "side": 0, "opponent": {"type": "friend"}})
    game_id = created["id"]
    player = joined(nodes["a"].url, game_id, created["token"])
    watchers = [joined(nodes["b"].url, game_id) for _ in range(2)]
    try:
        player.wait_for("watchers", lambda w: w["count"] == 3)  # within one upkeep round of node a
        watchers[0].wait_for("watchers", lambda w: w["count"] == 3)  # node a's count reaches node b's room too
        # Node b learns node a's player on its own next report when its watchers joined before node a reported.
        eventually(lambda: _get(f"{nodes['b'].url}/api/games/{game_id}")["watchers"] == 3,
                   "node b counting node a's player")
        watchers.pop().close()
        player.wait_for("watchers", lambda w: w["count"] == 2)
    finally:
        player.close()
        for watcher in watchers:
            watcher.close()


def test_a_request_with_the_old_seat_cookies_of_180_games_passes_nginx_and_gets_20_expired(cluster, monkeypatch):
    import http.client

    import requests

    monkeypatch.setattr(http.client, "_MAXHEADERS", 1000)  # Python's client reads at most 100 headers; browsers more
    entry, served, _ = nginx_and_other_node(cluster)
    games = [_post(served.url + "/api/games", {"game": "tictactoe", "side": 0, "opponent": {"type": "friend"}})
             for _ in range(180)]  # the most cookies a browser keeps for one site, made past nginx's creation limit
    cookie = "; ".join(f"arena_seat_{game['id']}={game['token']}" for game in games)
    assert len(cookie) > 14_000
    answer = requests.get(f"{entry}/api/games/{games[0]['id']}", headers={"Cookie": cookie}, timeout=10)
    assert answer.status_code == 200 and answer.json()["you"] == 0
    set_cookies = answer.raw.headers.getlist("Set-Cookie")
    expired = {c.split("=", 1)[0] for c in set_cookies if "Expires=Thu, 01 Jan 1970" in c}
    assert len(expired) == 20 and f"arena_seat_{games[0]['id']}" in expired  # the rest with the next requests
    assert expired <= {f"arena_seat_{game['id']}" for game in games}
    assert any(c.startswith("arena_player=") for c in set_cookies)
