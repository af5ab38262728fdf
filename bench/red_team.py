"""The red team's attacks on one node, repeated side by side with a victim: what each costs another user's engine
moves, the node's memory and its availability, against a real gunicorn with the limits `make run` has.

    .venv/bin/python -m bench.red_team [--front both|none|nginx] [--moves 30] [--attacks rematch,creations,...]
                                       [--crashes 10] [--no-floors]

Each front starts ``gunicorn -w 1 "webapp:create_app()"`` (``ARENA_PACE=0``, every other setting as
by default) reached directly (A, ``--front none``) or through a real nginx (B, ``--front nginx``:
deploy/nginx-single.conf as committed but for its ports, every server on a free one, gunicorn with
``ARENA_PROXY_HOPS=1``). The attacker sends from
127.0.0.1; the victim from 127.0.0.2 plays Nim against the engine (depth 1, eight piles of 99, one counter a move)
and times each of its ``--moves`` moves from the request until the engine's answer is in the game's state; a
prober from 127.0.0.3 asks ``GET /api/health`` every 50 ms (the longest wait is the outage). A quiet phase first,
then one phase per attack, each lasting the victim's moves:

- ``rematch``: resign and ask a rematch in a loop (each rematch is a new game);
- ``creations``: ``POST /api/games`` in a loop;
- ``hints``: turn hints on and off in a loop;
- ``binary``: one WebSocket sends a binary-attachment placeholder, then 15,000-byte binary frames;
- ``packets``: one WebSocket sends packet types clients never send (``49``, ``44``), 1,000 of them a round;
- ``long_reads``: 80 concurrent ``GET /api/games/<id>`` of a chess game set up from 1,590 plies, in rounds;
- ``legacy_cookies``: four connections ask ``GET /api/health`` in a loop, each request carrying the
  ``arena_seat_<id>`` cookies of earlier versions for 300 real games and no ``arena_player`` cookie;
- ``slow_bodies``: 64 addresses each keep 180 connections open with a POST whose body never comes (each one the
  server answers or closes is opened again, once a second);
- ``forged_host`` (nginx only): one creation with ``Origin: http://evil.example`` and that ``X-Forwarded-Host``.

After each attack's phase the same attack runs again aimed at a decoy (an nginx on a port of its own that refuses
every request at once): the victim's figures then are the floor, what the attacker's own use of the machine's two
processors costs the victim when the node never sees the attack (``--no-floors`` skips these phases). The attacker
runs in a process of its own, as it would on its own machine.

Printed per phase: the victim's engine move p50 and p99 and the p99's ratio to the quiet phase, the prober's
longest wait, the worker's resident memory after the phase, and what the attack got (answers by status, log lines
written). ``--crashes N`` (direct front only) then kills the node (SIGKILL of the process group) within 100 ms of an
acknowledged move N times, restarts it, and checks that every acknowledged move is kept and that the clock of the
player on move lost no more than the time the server ran (both clocks within 1 s of the truth).
"""

from __future__ import annotations

import argparse
import contextlib
import http.client
import json
import multiprocessing
import random
import resource
import socket
import statistics
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any, Protocol

import websocket

from bench.many_games import rss_mib, worker_pid
from tests.support.long_games import long_game
from tests.support.servers import LiveServer, free_port
from tests.support.services import NGINX_SINGLE_CONF, Nginx

ATTACKER, VICTIM, PROBER = "127.0.0.1", "127.0.0.2", "127.0.0.3"
PILES = [99] * 8
MOVE_EVERY = 0.6
LEGACY_COOKIES = 300
SLOW_ADDRESSES, SLOW_PER_ADDRESS = 64, 180


def decoy_conf(port: int) -> str:
    """The conf of the decoy on ``port``: an nginx that refuses every request at once, what an attack costs the
    victim when the node never sees it (the attacker's own use of this machine's processors: the floor of each
    row)."""
    return f"""worker_processes 1;
pid nginx.pid;
error_log logs/error.log warn;
events {{ worker_connections 8192; }}
http {{
    access_log off;
    server {{
        listen 127.0.0.1:{port};
        location / {{ default_type application/json; return 429 '{{"error": "rate_limited"}}'; }}
    }}
}}
"""


def call(port: int, method: str, path: str, body: dict[str, Any] | None = None, source: str = ATTACKER,
         headers: dict[str, str] | None = None, timeout: float = 30) -> tuple[int, Any]:
    """One request from ``source`` on a new connection: ``(status, JSON answer or None)``."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout, source_address=(source, 0))
    try:
        sent = {**({"Content-Type": "application/json"} if body is not None else {}), **(headers or {})}
        connection.request(method, path, json.dumps(body) if body is not None else None, sent)
        answer = connection.getresponse()
        data = answer.read()
        try:
            return answer.status, json.loads(data or b"null")
        except ValueError:
            return answer.status, None
    finally:
        connection.close()


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(share * len(ordered)) - 1))]


class RefusedError(Exception):
    """A request of the victim's was answered with an error (a status other than 200, or no JSON)."""


def refused(status: int, answer: Any) -> None:
    """Raise ``RefusedError`` unless ``status`` is 200 with a JSON object."""
    if status != 200 or not isinstance(answer, dict):
        raise RefusedError(f"{status}: {answer}")


class Victim:
    """A Nim game against the engine from ``VICTIM``; ``play(n)`` times ``n`` moves to the engine's answer."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.unanswered = 0
        """How many moves of the last ``play`` got no answer, or an error."""
        self.game_id, self.token = self._new_game()

    def _new_game(self) -> tuple[str, str]:
        status, created = call(self.port, "POST", "/api/games", {
            "game": "nim", "options": {"piles": PILES, "max_take": 1},
            "opponent": {"type": "engine", "depth": 1}, "side": 0}, VICTIM)
        assert status == 201, created
        return created["id"], created["token"]

    def play(self, moves: int) -> list[float]:
        """Seconds from each move's request to the engine's answer, a move every ``MOVE_EVERY`` seconds at most (the
        victim stays under its own limit of 120 moves a minute), in a new game each phase (a long game's state costs
        more of the victim's reads)."""
        self.game_id, self.token = self._new_game()
        times = []
        self.unanswered = 0
        due = time.monotonic()
        for _ in range(moves):
            time.sleep(max(0.0, due - time.monotonic()))
            due += MOVE_EVERY
            started = time.perf_counter()
            try:
                status, state = call(self.port, "GET", f"/api/games/{self.game_id}", source=VICTIM)
                refused(status, state)
                started = time.perf_counter()
                status, answer = call(self.port, "POST", f"/api/games/{self.game_id}/moves",
                                      {"move": state["legal_moves"][0], "token": self.token}, VICTIM)
                refused(status, answer)
                pause = 0.005  # growing to 0.1 s: a slow answer is waited for within the victim's own read limit
                while answer["ply"] < state["ply"] + 2:
                    time.sleep(pause)
                    pause = min(0.1, pause * 1.5)
                    status, answer = call(self.port, "GET", f"/api/games/{self.game_id}", source=VICTIM)
                    refused(status, answer)
            except (OSError, RefusedError):  # no answer within 30 s, no connection or an error: counted, timed
                self.unanswered += 1
            times.append(time.perf_counter() - started)
        return times


class Prober(threading.Thread):
    """``GET /api/health`` from ``PROBER`` every 50 ms until stopped; ``longest`` is the longest wait (s)."""

    def __init__(self, port: int) -> None:
        super().__init__(daemon=True)
        self.port, self.longest, self.done = port, 0.0, threading.Event()

    def run(self) -> None:
        while not self.done.is_set():
            started = time.perf_counter()
            with contextlib.suppress(OSError):
                call(self.port, "GET", "/api/health", source=PROBER, timeout=10)
            self.longest = max(self.longest, time.perf_counter() - started)
            self.done.wait(0.05)


def raw_socket(port: int) -> websocket.WebSocket:
    """A Socket.IO WebSocket from ``ATTACKER``, connected to the default namespace."""
    sock = websocket.WebSocket()
    sock.connect(f"ws://127.0.0.1:{port}/socket.io/?EIO=4&transport=websocket", timeout=10,
                 socket=socket.create_connection(("127.0.0.1", port), 10, (ATTACKER, 0)))
    sock.recv()
    sock.send("40")
    sock.recv()
    return sock


def prepare(port: int) -> dict[str, dict[str, Any]]:
    """The attacker's games, made before the first phase (the attacks use up its creations): a tic-tac-toe game
    against the engine for the rematch chain, one for hints, a chess game set up from 1,590 plies, and the seat
    cookies of ``LEGACY_COOKIES`` friend games as earlier versions set them (``legacy``: its ``cookie`` header)."""
    games = {}
    setup = "startpos moves " + " ".join(long_game(1590, 1))
    for name, body in (("rematch", {"game": "tictactoe", "opponent": {"type": "engine", "level": 1}, "side": 0}),
                       ("hints", {"game": "tictactoe", "opponent": {"type": "engine", "level": 1}, "side": 0}),
                       ("long", {"game": "chess", "setup": setup, "opponent": {"type": "friend"}, "side": 0})):
        status, games[name] = call(port, "POST", "/api/games", body)
        assert status == 201, games[name]
    seats = []
    for number in range(LEGACY_COOKIES):  # from addresses of their own, each under its creation limit
        status, created = call(port, "POST", "/api/games", {"game": "tictactoe", "opponent": {"type": "friend"}},
                               source=f"127.0.1.{number // 10 + 1}")
        assert status == 201, created
        seats.append(f"arena_seat_{created['id']}={created['token']}")
    games["legacy"] = {"cookie": "; ".join(seats)}
    return games


def closed_by_server(sock: websocket.WebSocket) -> bool:
    """Whether the server has closed its side of ``sock`` (a proxy may close it and still take what the client
    sends, discarding it: then sends go on succeeding)."""
    raw = sock.sock
    raw.setblocking(False)
    try:
        while True:
            data = raw.recv(65536)
            if not data:
                return True
    except BlockingIOError:
        return False
    except OSError:
        return True
    finally:
        raw.setblocking(True)


class Stop(Protocol):
    """What an attack is told to stop by (a ``multiprocessing`` event: the attacker runs in its own process)."""

    def is_set(self) -> bool: ...

    def wait(self, timeout: float | None = None) -> bool: ...


Attack = Callable[[int, Stop, Counter[str], dict[str, dict[str, Any]]], None]


def rematch_chain(port: int, stop: Stop, got: Counter[str], games: dict[str, dict[str, Any]]) -> None:
    game = games["rematch"]
    while not stop.is_set():
        call(port, "POST", f"/api/games/{game['id']}/resign", {"token": game["token"]})
        status, answer = call(port, "POST", f"/api/games/{game['id']}/rematch", {"token": game["token"]})
        got[f"rematch {status}"] += 1
        if status == 201:
            game = answer
        else:
            stop.wait(0.01)


def creations(port: int, stop: Stop, got: Counter[str], _games: dict[str, dict[str, Any]]) -> None:
    while not stop.is_set():
        status, _ = call(port, "POST", "/api/games", {"game": "tictactoe", "opponent": {"type": "friend"}})
        got[f"create {status}"] += 1


def hints(port: int, stop: Stop, got: Counter[str], games: dict[str, dict[str, Any]]) -> None:
    game = games["hints"]
    on = True
    while not stop.is_set():
        status, _ = call(port, "POST", f"/api/games/{game['id']}/hints", {"on": on, "token": game["token"]})
        got[f"hints {status}"] += 1
        on = not on


def flood_sockets(port: int, stop: Stop, got: Counter[str],
                  send: Callable[[websocket.WebSocket, Counter[str]], None]) -> None:
    """Until ``stop``: open a WebSocket (a refusal counts in ``got``, then a pause of 0.1 s), ``send`` on it, and
    open the next one once it returns or the connection is cut (counted)."""
    while not stop.is_set():
        try:
            sock = raw_socket(port)
        except (OSError, websocket.WebSocketException):
            got["connections refused"] += 1
            stop.wait(0.1)
            continue
        try:
            send(sock, got)
        except (OSError, websocket.WebSocketException):
            got["connections cut"] += 1
        finally:
            sock.close()


def binary(port: int, stop: Stop, got: Counter[str], _games: dict[str, dict[str, Any]]) -> None:
    frame = bytes(15_000)

    def send(sock: websocket.WebSocket, got: Counter[str]) -> None:
        sock.send('45999999999-["join",{"_placeholder":true,"num":0}]')
        while not stop.is_set():
            sock.send_binary(frame)
            got["binary frames sent"] += 1
            if got["binary frames sent"] % 100 == 0 and closed_by_server(sock):
                raise ConnectionResetError("the server closed the connection")

    flood_sockets(port, stop, got, send)


def packets(port: int, stop: Stop, got: Counter[str], _games: dict[str, dict[str, Any]]) -> None:
    def send(sock: websocket.WebSocket, got: Counter[str]) -> None:
        for number in range(1000):
            sock.send("49" if number % 2 else "44")
            got["frames sent"] += 1

    flood_sockets(port, stop, got, send)


def run_together(threads: list[threading.Thread]) -> None:
    """Start ``threads``, then wait until they have all ended."""
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()


def long_reads(port: int, stop: Stop, got: Counter[str], games: dict[str, dict[str, Any]]) -> None:
    game = games["long"]

    def read() -> None:
        status, _ = call(port, "GET", f"/api/games/{game['id']}")
        got[f"read {status}"] += 1

    while not stop.is_set():
        run_together([threading.Thread(target=read) for _ in range(80)])


def legacy_cookies(port: int, stop: Stop, got: Counter[str], games: dict[str, dict[str, Any]]) -> None:
    cookie = games["legacy"]["cookie"]
    http.client._MAXHEADERS = 1000  # type: ignore[attr-defined]  # an answer may expire all 300 (Python reads 100)

    def send() -> None:
        while not stop.is_set():
            status, _ = call(port, "GET", "/api/health", headers={"Cookie": cookie})
            got[f"health {status}"] += 1

    run_together([threading.Thread(target=send) for _ in range(4)])


def slow_bodies(port: int, stop: Stop, got: Counter[str], _games: dict[str, dict[str, Any]]) -> None:
    head = (b"POST /api/games HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
            b"Content-Length: 1000\r\n\r\n{")

    def hold(source: str) -> None:
        held: list[socket.socket] = []
        while not stop.is_set():
            before = len(held)
            held = [sock for sock in held if not closed_by_peer(sock)]
            got["closed by the server"] += before - len(held)
            while len(held) < SLOW_PER_ADDRESS and not stop.is_set():
                try:
                    sock = socket.create_connection(("127.0.0.1", port), 10, (source, 0))
                    sock.sendall(head)
                except OSError:
                    got["refused"] += 1
                    break
                held.append(sock)
                got["opened"] += 1
            stop.wait(1.0)
        for sock in held:
            sock.close()

    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)  # one descriptor a connection held
    resource.setrlimit(resource.RLIMIT_NOFILE, (max(soft, min(hard, 2 * SLOW_ADDRESSES * SLOW_PER_ADDRESS)), hard))
    run_together([threading.Thread(target=hold, args=(f"127.0.2.{number + 1}",)) for number in range(SLOW_ADDRESSES)])


def closed_by_peer(sock: socket.socket) -> bool:
    """Whether the server has answered or closed ``sock`` (a slow body's connection); such a socket is closed."""
    sock.setblocking(False)
    try:
        ended = True
        sock.recv(4096)
    except BlockingIOError:
        ended = False
    except OSError:
        pass
    if ended:
        sock.close()
    else:
        sock.setblocking(True)
    return ended


ATTACKS: dict[str, Attack] = {"rematch": rematch_chain, "creations": creations, "hints": hints, "binary": binary,
                              "packets": packets, "long_reads": long_reads, "legacy_cookies": legacy_cookies,
                              "slow_bodies": slow_bodies}


def attack_in_process(name: str, port: int, stop: Stop, answers: multiprocessing.Queue[dict[str, int]],
                      games: dict[str, dict[str, Any]]) -> None:
    """Run the attack ``name`` on ``port`` until ``stop`` is set, then put what it got on ``answers``."""
    got = Counter[str]()
    ATTACKS[name](port, stop, got, games)
    answers.put(dict(got))


def phase(server: LiveServer, port: int, victim: Victim, moves: int, attack: str | None,
          games: dict[str, dict[str, Any]], target: int | None = None) -> dict[str, Any]:
    """The victim's ``moves`` while the attack named ``attack`` runs on ``target`` (by default the victim's
    ``port``; none: quiet), with the prober, the worker's memory and the number of log lines written meanwhile.
    The attacker has its own process (and interpreter lock), as it would have its own machine, so that its threads
    slow the victim's and the prober's clients only as much as its use of the processors does."""
    log_lines = len(server.log.read_text(errors="replace").splitlines())
    processes = multiprocessing.get_context("spawn")
    prober, stop, answers = Prober(port), processes.Event(), processes.Queue()
    attacker = processes.Process(target=attack_in_process, daemon=True,
                                 args=(attack, target or port, stop, answers, games)) if attack else None
    prober.start()
    if attacker:
        attacker.start()
        time.sleep(2.0)  # the attack under way (its process started)
    times = victim.play(moves)
    stop.set()
    got = answers.get(timeout=60) if attacker else {}
    if attacker:
        attacker.join(timeout=60)
    prober.done.set()
    prober.join()
    return {"p50": statistics.median(times) * 1000, "p99": percentile(times, 0.99) * 1000,
            "longest_health": prober.longest * 1000, "rss": rss_mib(worker_pid(server)),
            "got": {**got, **({"victim moves unanswered": victim.unanswered} if victim.unanswered else {})},
            "log_lines": len(server.log.read_text(errors="replace").splitlines()) - log_lines}


def forged_host(port: int) -> int:
    """The status of a creation whose ``Origin`` and ``X-Forwarded-Host`` both name another site."""
    status, _ = call(port, "POST", "/api/games", {"game": "tictactoe", "opponent": {"type": "friend"}},
                     headers={"Origin": "http://evil.example", "X-Forwarded-Host": "evil.example"})
    return status


def run_front(front: str, args: argparse.Namespace, folder: Path) -> None:
    env = {"ARENA_PACE": "0", "ARENA_PROXY_HOPS": "1" if front == "nginx" else "0"}
    server = LiveServer(folder / f"node-{front}", env=env).start()
    nginx = Nginx(folder / "nginx", NGINX_SINGLE_CONF, node_ports=(server.port,)).start() if front == "nginx" else None
    port = nginx.port if nginx else server.port
    decoy_folder = folder / f"decoy-{front}"
    decoy_folder.mkdir()
    decoy_port = free_port()
    (decoy_folder / "nginx.conf").write_text(decoy_conf(decoy_port))
    decoy = Nginx(decoy_folder, decoy_folder / "nginx.conf", decoy_port).start() if args.floors else None
    print(f"\n== front: {'nginx (B)' if nginx else 'none, gunicorn directly (A)'}")
    try:
        victim = Victim(port)
        games = prepare(port)
        victim.play(3)  # the engine's first searches start its process
        quiet = phase(server, port, victim, args.moves, None, games)
        names = ["quiet", *args.attacks]
        results, floors = {"quiet": quiet}, {}
        for name in args.attacks:
            results[name] = phase(server, port, victim, args.moves, name, games)
            if decoy:
                floors[name] = phase(server, port, victim, args.moves, name, games, target=decoy.port)
        for name in names:
            figures = results[name]
            print(f"{name:>10}: victim's engine move p50 {figures['p50']:6.1f} ms, p99 {figures['p99']:6.1f} ms "
                  f"({figures['p99'] / quiet['p99']:4.2f}x quiet); health longest {figures['longest_health']:6.1f} ms; "
                  f"RSS {figures['rss']:5.0f} MiB; log lines {figures['log_lines']}; {figures['got'] or ''}")
            if name in floors:
                floor = floors[name]
                print(f"{'':>10}  the same attack on the decoy: p50 {floor['p50']:6.1f} ms, p99 {floor['p99']:6.1f} ms "
                      f"({floor['p99'] / quiet['p99']:4.2f}x quiet)")
        if nginx:
            print(f"forged X-Forwarded-Host with a foreign Origin: {forged_host(port)}")
    finally:
        for front_server in (nginx, decoy):
            if front_server:
                front_server.stop()
        server.stop()


def crashes(count: int, folder: Path) -> None:
    """Kill the node within 100 ms of an acknowledged move ``count`` times; check moves and clocks after each."""
    server = LiveServer(folder / "crashes", env={"ARENA_PACE": "0"}).start()
    rng = random.Random(1)
    worst = 0.0
    try:
        _, created = call(server.port, "POST", "/api/games", {
            "game": "chess", "opponent": {"type": "friend", "open": True}, "side": 0,
            "clock": {"minutes": 5, "increment": 0}})
        game_id, tokens = created["id"], [created["token"]]
        tokens.append(call(server.port, "POST", f"/api/games/{game_id}/seats", {})[1]["token"])
        acknowledged: list[str] = []
        for ply in range(2 + count):
            _, state = call(server.port, "GET", f"/api/games/{game_id}")
            moved_at = time.time()
            status, answer = call(server.port, "POST", f"/api/games/{game_id}/moves",
                                  {"move": state["legal_moves"][0], "token": tokens[ply % 2]})
            assert status == 200, answer
            acknowledged.append(state["legal_moves"][0])
            if ply < 2:
                continue  # the clocks run from the third ply
            time.sleep(rng.uniform(0, 0.1))
            server.kill()
            killed_at = time.time()
            on_move = (ply + 1) % 2
            before = answer["clock"]["left_ms"][on_move]
            time.sleep(3.5)
            started_at = time.time()
            server.start()
            _, after = call(server.port, "GET", f"/api/games/{game_id}")
            read_at = time.time()
            kept = after["moves"] == acknowledged
            charged = before - after["clock"]["left_ms"][on_move]
            ran = (killed_at - moved_at) + (read_at - started_at)
            other = after["clock"]["left_ms"][1 - on_move] - answer["clock"]["left_ms"][1 - on_move]
            error = max(0.0, charged - ran * 1000, -charged, abs(other))
            worst = max(worst, error)
            print(f"crash {ply - 1:2d}: moves kept {kept}; player on move charged {charged} ms, server ran "
                  f"{ran * 1000:.0f} ms of the turn; other clock changed by {other} ms; beyond the truth "
                  f"{error:.0f} ms", flush=True)
    finally:
        server.kill()
    print(f"{count} crashes: worst clock error {worst:.0f} ms (target: within 1,000 ms)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--front", choices=("both", "none", "nginx"), default="both")
    parser.add_argument("--moves", type=int, default=30)
    parser.add_argument("--attacks", type=lambda text: text.split(","), default=list(ATTACKS))
    parser.add_argument("--crashes", type=int, default=10)
    parser.add_argument("--no-floors", dest="floors", action="store_false",
                        help="skip the phases that aim each attack at the decoy")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        for front in (("none", "nginx") if args.front == "both" else (args.front,)):
            run_front(front, args, Path(folder))
        if args.crashes:
            crashes(args.crashes, Path(folder))


if __name__ == "__main__":
    main()
