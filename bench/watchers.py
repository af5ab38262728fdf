"""Many watchers of many engine games, on one gunicorn node or two behind nginx: every watcher must receive every
``moved`` of its game, in order, and the delay from the server's broadcast (``moved.sent_at``, its wall clock) to
the arrival at each watcher is measured.

    .venv/bin/python -m bench.watchers [--games 50] [--watchers 10] [--pace 1.0] [--client socketio|lean]
                                       [--probes 10] [--repeat 3]
    .venv/bin/python -m bench.watchers --nodes 2 --games 100 --watchers 10 [--spread nginx|direct] ...

Each game is Connect Four between two engines (``--level``, default 2 for both seats), created through the API
of one node (game ``i`` on node ``i % nodes``, whose engine workers then play it), ``ARENA_PACE=--pace`` seconds
between two engine moves and ``ARENA_WORKERS=--engines`` engine processes per node; their creations are spread
over one pace interval. The watchers are python-socketio ``AsyncClient``s, or with ``--client lean`` a minimal
Engine.IO/Socket.IO client on aiohttp that decodes only ``state`` and ``moved`` (WebSocket transport either way),
spread over ``--processes`` client processes, each process holding whole games. They all connect first; then the
games are created and each watcher joins its game, notes the ply of the ``state`` it gets, and records every
``moved``; when the games are over, each watcher must have received exactly the plies after its join up to the
game's last, in order (a dropped connection is reported). Latency percentiles cover the moves broadcast after
every watcher had joined. ``--probes N`` adds one watcher to each of the first N games in a process of its own:
their latency is the servers' with little client time in it.

Two nodes (``--nodes 2``): gunicorns sharing one SQLite file and ``SOCKETIO_MESSAGE_QUEUE`` on a redis-server, nginx
with deploy/nginx.conf (every server on a free loopback port). ``--spread nginx`` connects every watcher through
nginx, half of them from source addresses 127.0.1.1-250 and half from 127.0.2.1-250 (``ip_hash`` keys on the first
three octets: they land on different nodes, which the bench checks by counting nginx's upstream connections; many
addresses, because nginx allows 20 connections and a burst of 20 handshakes per address); ``--spread direct``
connects half of each game's watchers straight to each node. Either way each game has watchers on both nodes, so its
moves cross Redis.

Printed per run: the delivery check, latency p50/p95/p99/max, moves and messages per second, resident memory of
gunicorn and of the engine workers (idle, with the watchers connected, with the games: per watcher and per game),
the server's thread count, CPU shares of every process over ``--window`` seconds of the steady state, and how late
the client processes' event loops ran; with ``--stalls S``, the servers' event-loop steps longer than S seconds
(gevent's monitor thread). ``--dump FILE`` writes every move's timing, the CPU timeline and the
client loop delays as JSON. See docs/scale.md for results.
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import contextlib
import faulthandler
import json
import logging
import multiprocessing
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import requests

from bench.web_latency import cpu_seconds, loop_stalls, percentile
from tests.support.servers import GENEROUS_CONNECTIONS, LiveServer
from tests.support.services import Nginx, RedisServer

SUBNETS = ("127.0.1", "127.0.2")
"""Client source subnets for ``--spread nginx``; nginx's ip_hash (first three octets) sends them to different
nodes."""
HOSTS = 250
"""Source addresses per subnet, so that each stays under deploy/nginx.conf's 20 connections per address."""


def source(index: int) -> str:
    """The source address of watcher ``index``: alternately in each of ``SUBNETS``, spread over ``HOSTS``."""
    return f"{SUBNETS[index % 2]}.{1 + index // 2 % HOSTS}"
CONNECT_BATCH = 25
"""Watchers of one client process that connect at the same time."""


# --- processes ------------------------------------------------------------------------------------------------


def rss_mb(pid: int) -> float:
    """Resident memory of process ``pid`` in MiB (``VmRSS``)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def thread_count(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("Threads:"):
            return int(line.split()[1])
    return 0


def children(pid: int) -> list[int]:
    """Direct child processes of ``pid``."""
    found = []
    for task in Path(f"/proc/{pid}/task").iterdir():
        with contextlib.suppress(FileNotFoundError):
            found += [int(c) for c in (task / "children").read_text().split()]
    return found


def engine_pids(worker: int) -> list[int]:
    """The engine worker processes under a gunicorn worker (its spawned children, less the resource tracker)."""
    return [pid for pid in children(worker)
            if "resource_tracker" not in Path(f"/proc/{pid}/cmdline").read_text(errors="replace")]


@dataclass
class Node:
    """One gunicorn node: its server and the pid of its (single) worker process."""

    server: LiveServer
    worker: int = 0

    def start(self) -> Node:
        self.server.start()
        assert self.server.process is not None
        self.worker = children(self.server.process.pid)[0]
        return self


def upstream_connections(node_ports: list[int]) -> dict[int, int]:
    """Established TCP connections to each of ``node_ports`` (from nginx, in ``--spread nginx``)."""
    out = subprocess.run(["ss", "-tnH", "state", "established"], capture_output=True, text=True, check=True).stdout
    counts = dict.fromkeys(node_ports, 0)
    for line in out.splitlines():
        fields = line.split()
        for port in node_ports:
            if len(fields) >= 4 and fields[3] == f"127.0.0.1:{port}":
                counts[port] += 1
    return counts


# --- watchers (client processes) -----------------------------------------------------------------------------


@dataclass(frozen=True)
class Watch:
    """One watcher to run: which game (index in the run's list), the server URL to connect to, and the source
    address (None = default)."""

    game: int
    url: str
    source: str | None = None
    probe: bool = False


@dataclass
class Watched:
    """What one watcher received: the ply of its join ``state``, each ``moved`` as ``(ply, sent_at, arrival)``,
    how many ``search`` events, and the ``error`` payloads."""

    game_id: str = ""
    probe: bool = False
    join_ply: int | None = None
    moves: list[tuple[int, float, float]] = field(default_factory=list)
    searches: int = 0
    errors: list[Any] = field(default_factory=list)
    finished: bool = False
    failure: str | None = None
    dropped_at: float | None = None
    """Wall clock at which the server or the network closed the connection (the bench never reconnects)."""


class Watcher:
    """A Socket.IO ``AsyncClient`` that joins one game and records what it receives."""

    def __init__(self, watch: Watch, session: Any) -> None:
        import socketio

        self.watch = watch
        self.seen = Watched(probe=watch.probe)
        self.joined = asyncio.Event()
        self.done = asyncio.Event()
        self.sio = socketio.AsyncClient(reconnection=False, http_session=session)
        self.sio.on("state", self._on_state)
        self.sio.on("moved", self._on_moved)
        self.sio.on("search", self._on_search)
        self.sio.on("error", self._on_error)
        self.sio.on("disconnect", self._on_disconnect)
        self.stopping = False

    async def _on_state(self, state: dict[str, Any]) -> None:
        if self.seen.join_ply is None:
            self.seen.join_ply = state["ply"]
            self.joined.set()
            if state["status"] != "active":
                self._finish()

    async def _on_moved(self, moved: dict[str, Any]) -> None:
        self.seen.moves.append((moved["ply"], moved["sent_at"], time.time()))
        if moved["state"]["status"] != "active":
            self._finish()

    async def _on_search(self, _search: dict[str, Any]) -> None:
        self.seen.searches += 1

    async def _on_error(self, error: Any) -> None:
        self.seen.errors.append(error)

    async def _on_disconnect(self, *_reason: Any) -> None:
        if not self.stopping:
            self.seen.dropped_at = time.time()
            self.done.set()

    def _finish(self) -> None:
        self.seen.finished = True
        self.done.set()

    async def connect(self) -> None:
        """Connect; a failure is recorded, not raised."""
        try:
            await self.sio.connect(self.watch.url, transports=["websocket"], wait_timeout=30)
        except Exception as error:  # a watcher that cannot connect is reported, not fatal to the run
            self.fail(error)

    async def join(self, game_id: str) -> None:
        """Join ``game_id`` and wait for its state; a failure is recorded, not raised."""
        self.seen.game_id = game_id
        if self.seen.failure:
            return
        try:
            await self.sio.emit("join", {"game_id": game_id})
            await asyncio.wait_for(self.joined.wait(), 60)
        except Exception as error:  # a watcher that cannot join is reported, not fatal to the run
            self.fail(error)

    def fail(self, error: Exception) -> None:
        self.seen.failure = self.seen.failure or f"{type(error).__name__}: {error}"
        self.done.set()

    async def stop(self) -> None:
        self.stopping = True
        with contextlib.suppress(Exception):
            await self.sio.disconnect()


class LeanWatcher:
    """The same watcher speaking Engine.IO 4 / Socket.IO 5 over an aiohttp WebSocket itself: it answers pings,
    joins, decodes ``state`` and ``moved`` and only counts the other events (``search`` is most of the traffic),
    so one client process can keep up with many more watchers than with ``socketio.AsyncClient``."""

    def __init__(self, watch: Watch, session: Any) -> None:
        self.watch = watch
        self.session = session
        self.seen = Watched(probe=watch.probe)
        self.joined = asyncio.Event()
        self.done = asyncio.Event()
        self.stopping = False
        self.ws: Any = None
        self.reader: asyncio.Task[None] | None = None

    async def connect(self) -> None:
        """Open the WebSocket and the default namespace; a failure is recorded, not raised."""
        try:
            url = self.watch.url.replace("http://", "ws://") + "/socket.io/?EIO=4&transport=websocket"
            self.ws = await self.session.ws_connect(url, timeout=30, autoping=False)
            opened = await self.ws.receive_str(timeout=30)
            if not opened.startswith("0"):
                raise ConnectionError(f"unexpected Engine.IO open packet {opened[:80]!r}")
            await self.ws.send_str("40")
            while not (answer := await self.ws.receive_str(timeout=30)).startswith("40"):
                if answer.startswith("44"):
                    raise ConnectionError(f"connection refused: {answer[:200]}")
            self.reader = asyncio.ensure_future(self._read())
        except Exception as error:  # a watcher that cannot connect is reported, not fatal to the run
            self.fail(error)

    async def _read(self) -> None:
        import aiohttp

        async for message in self.ws:
            if message.type != aiohttp.WSMsgType.TEXT:
                break
            text = message.data
            if text == "2":
                await self.ws.send_str("3")
            elif text.startswith('42["moved"'):
                moved = json.loads(text[2:])[1]
                self.seen.moves.append((moved["ply"], moved["sent_at"], time.time()))
                if moved["state"]["status"] != "active":
                    self._finish()
            elif text.startswith('42["search"'):
                self.seen.searches += 1
            elif text.startswith('42["state"') and self.seen.join_ply is None:
                state = json.loads(text[2:])[1]
                self.seen.join_ply = state["ply"]
                self.joined.set()
                if state["status"] != "active":
                    self._finish()
            elif text.startswith('42["error"'):
                self.seen.errors.append(json.loads(text[2:])[1])
        if not self.stopping:
            self.seen.dropped_at = time.time()
            self.done.set()

    async def join(self, game_id: str) -> None:
        """Join ``game_id`` and wait for its state; a failure is recorded, not raised."""
        self.seen.game_id = game_id
        if self.seen.failure:
            return
        try:
            await self.ws.send_str("42" + json.dumps(["join", {"game_id": game_id}]))
            await asyncio.wait_for(self.joined.wait(), 60)
        except Exception as error:  # a watcher that cannot join is reported, not fatal to the run
            self.fail(error)

    def fail(self, error: Exception) -> None:
        self.seen.failure = self.seen.failure or f"{type(error).__name__}: {error}"
        self.done.set()

    def _finish(self) -> None:
        self.seen.finished = True
        self.done.set()

    async def stop(self) -> None:
        self.stopping = True
        with contextlib.suppress(Exception):
            await self.ws.send_str("41")
            await self.ws.close()


async def watch_loop_lag(lags: list[tuple[float, float]], tick: float = 0.01) -> None:
    """Note ``(wall clock, seconds late)`` whenever this process's event loop wakes up more than 20 ms late: a
    busy client process delays the arrivals it records."""
    while True:
        before = time.monotonic()
        await asyncio.sleep(tick)
        late = time.monotonic() - before - tick
        if late > 0.02:
            lags.append((time.time(), late))


def watch_games(watches: list[Watch], lean: bool, control: Any) -> None:
    """Client process: connect ``watches`` and send ``("connected", n)``; on ``("join", game ids)`` join them and
    send ``("joined", n)``; when every game is over (or ``("stop",)`` comes) send ``("results", [Watched as dict],
    cpu seconds, event loop lags)``."""
    asyncio.run(_watch_games(watches, lean, control))


async def _watch_games(watches: list[Watch], lean: bool, control: Any) -> None:
    import aiohttp

    logging.getLogger("engineio.client").setLevel(logging.CRITICAL)  # one "queue is empty" line per disconnect

    sessions = {source: aiohttp.ClientSession(connector=aiohttp.TCPConnector(
        limit=0, local_addr=(source, 0) if source else None)) for source in {w.source for w in watches}}
    kind = LeanWatcher if lean else Watcher
    watchers = [kind(w, sessions[w.source]) for w in watches]
    for first in range(0, len(watchers), CONNECT_BATCH):
        await asyncio.gather(*(w.connect() for w in watchers[first:first + CONNECT_BATCH]))
    control.send(("connected", sum(w.seen.failure is None for w in watchers)))
    loop = asyncio.get_running_loop()
    _, game_ids = await loop.run_in_executor(None, control.recv)
    lags: list[tuple[float, float]] = []
    lag_watch = asyncio.ensure_future(watch_loop_lag(lags))
    await asyncio.gather(*(w.join(game_ids[w.watch.game]) for w in watchers))
    control.send(("joined", sum(w.seen.failure is None for w in watchers)))
    stop = loop.run_in_executor(None, control.recv)
    games_over = asyncio.ensure_future(asyncio.gather(*(w.done.wait() for w in watchers)))
    await asyncio.wait([stop, games_over], return_when=asyncio.FIRST_COMPLETED)
    cpu = time.process_time()
    lag_watch.cancel()
    await asyncio.gather(*(w.stop() for w in watchers))
    for session in sessions.values():
        await session.close()
    control.send(("results", [asdict(w.seen) for w in watchers], cpu, lags))
    if not stop.done():
        await stop
    games_over.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await games_over


# --- the run --------------------------------------------------------------------------------------------------


@dataclass
class Cluster:
    """The servers of one run."""

    nodes: list[Node]
    redis: RedisServer | None = None
    nginx: Nginx | None = None

    def stop(self) -> None:
        if self.nginx:
            self.nginx.stop()
        for node in self.nodes:
            node.server.stop()
        if self.redis:
            self.redis.stop()


def start_cluster(folder: Path, args: argparse.Namespace) -> Cluster:
    env = {"ARENA_WORKERS": str(args.engines), "ARENA_PACE": str(args.pace), **GENEROUS_CONNECTIONS}
    if args.stalls:  # gevent's monitor thread reports each step of the loop longer than that in the server's log
        env |= {"GEVENT_MONITOR_THREAD_ENABLE": "true", "GEVENT_MAX_BLOCKING_TIME": str(args.stalls)}
    if args.nodes == 1:
        return Cluster([Node(LiveServer(folder / "node", env=env)).start()])
    redis = RedisServer(folder / "redis").start()
    env |= {"SOCKETIO_MESSAGE_QUEUE": redis.url, "DATABASE_URL": f"sqlite:///{folder / 'arena.sqlite3'}",
            "SECRET_KEY": "scale-bench"}
    cluster = Cluster([], redis)
    try:
        for name in "ab":
            cluster.nodes.append(Node(LiveServer(folder / f"node-{name}", env=env)).start())
        if args.spread == "nginx":
            node_ports = tuple(node.server.port for node in cluster.nodes)
            cluster.nginx = Nginx(folder / "nginx", node_ports=node_ports).start()
    except BaseException:
        cluster.stop()
        raise
    return cluster


def create_games(cluster: Cluster, count: int, level: int, pace: float) -> list[tuple[str, Node]]:
    """``count`` engine-against-engine games, game ``i`` created on node ``i % nodes``, their creations spread
    evenly over ``pace`` seconds (games created at once would then move in lockstep, in bursts)."""
    games = []
    started = time.monotonic()
    for index in range(count):
        time.sleep(max(0.0, started + index * pace / count - time.monotonic()))
        node = cluster.nodes[index % len(cluster.nodes)]
        created = node.server.post("/api/games", {"game": "connect4",
                                                  "opponent": {"type": "engines", "levels": [level, level]}})
        created.raise_for_status()
        games.append((created.json()["id"], node))
    return games


def plan_watches(cluster: Cluster, games: int, watchers: int, spread: str) -> list[Watch]:
    """Each game's watchers; with two nodes, half of them on each node."""
    watches = []
    for game in range(games):
        for index in range(watchers):
            if len(cluster.nodes) == 1:
                watches.append(Watch(game, cluster.nodes[0].server.url))
            elif spread == "nginx":
                assert cluster.nginx is not None
                watches.append(Watch(game, cluster.nginx.url, source(len(watches))))
            else:
                watches.append(Watch(game, cluster.nodes[index % 2].server.url))
    return watches


def memory(cluster: Cluster) -> dict[str, float]:
    """RSS in MiB of the gunicorn workers and of their engine workers, summed over the nodes."""
    return {"gunicorn": sum(rss_mb(n.worker) for n in cluster.nodes),
            "engines": sum(rss_mb(p) for n in cluster.nodes for p in engine_pids(n.worker))}


def machine_cpu_seconds() -> float:
    """Busy CPU seconds of the whole machine, every core (``/proc/stat``: all time but idle and iowait)."""
    values = [int(v) for v in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    return (sum(values) - values[3] - values[4]) / os.sysconf("SC_CLK_TCK")


class CpuTimeline(threading.Thread):
    """Samples, every ``period`` seconds, the CPU use of named groups of processes and of the whole machine
    ("machine", including processes outside the run), each as % of one core."""

    def __init__(self, pids: dict[str, list[int]], period: float = 0.5) -> None:
        super().__init__(daemon=True)
        self.pids = pids
        self.period = period
        self.samples: list[tuple[float, dict[str, float]]] = []
        """(wall clock at the end of the interval, {group: % of one core})"""
        self._stopped = threading.Event()

    def _read(self) -> dict[str, float]:
        read = {"machine": machine_cpu_seconds()}
        for name, pids in self.pids.items():
            read[name] = 0.0
            for pid in pids:
                with contextlib.suppress(FileNotFoundError, ProcessLookupError):
                    read[name] += cpu_seconds(pid)
        return read

    def run(self) -> None:
        last, last_at = self._read(), time.monotonic()
        while not self._stopped.wait(self.period):
            now, now_at = self._read(), time.monotonic()
            self.samples.append((time.time(), {k: 100 * (now[k] - last[k]) / (now_at - last_at) for k in now}))
            last, last_at = now, now_at

    def stop(self) -> None:
        self._stopped.set()
        self.join()

    def average(self, start: float, end: float) -> dict[str, float]:
        """Mean of each group's share over the samples taken between wall clock ``start`` and ``end``."""
        chosen = [shares for at, shares in self.samples if start < at <= end]
        return {k: statistics.fmean(s[k] for s in chosen) for k in chosen[0]} if chosen else {}


class HealthProbe(threading.Thread):
    """``GET /api/health`` of ``url`` every ``period`` seconds until stopped; ``times`` holds each answer's time
    (s), a request that failed counting as its 10 s timeout."""

    def __init__(self, url: str, period: float = 0.05) -> None:
        super().__init__(daemon=True)
        self.url = url
        self.period = period
        self.times: list[float] = []
        self.slowest: list[tuple[float, float]] = []
        """(seconds since the first request, seconds taken) of each request that took over a second."""
        self._stopped = threading.Event()

    def run(self) -> None:
        first = time.perf_counter()
        with requests.Session() as session:
            while not self._stopped.is_set():
                started = time.perf_counter()
                with contextlib.suppress(requests.RequestException):
                    session.get(self.url + "/api/health", timeout=10).raise_for_status()
                self.times.append(time.perf_counter() - started)
                if self.times[-1] > 1:
                    self.slowest.append((started - first, self.times[-1]))
                self._stopped.wait(self.period)

    def stop(self) -> None:
        self._stopped.set()
        self.join()


def run_once(args: argparse.Namespace) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as folder:
        cluster = start_cluster(Path(folder), args)
        try:
            result = measure(cluster, args)
            result["stalls"] = sum((loop_stalls(node.server.log.read_text(errors="replace")) for node in cluster.nodes),
                                   collections.Counter())
            return result
        finally:
            cluster.stop()


def measure(cluster: Cluster, args: argparse.Namespace) -> dict[str, Any]:
    """Connect the watchers, then create the games and join them (so that the games' moves are not broadcast
    while connections are still being opened), then wait for the games to end."""
    mem_idle = memory(cluster)
    context = multiprocessing.get_context("spawn")
    controls, processes = [], []
    watches = plan_watches(cluster, args.games, args.watchers, args.spread)
    shares = [[w for w in watches if w.game % args.processes == index] for index in range(args.processes)]
    if args.probes:
        shares.append([Watch(w.game, w.url, w.source, probe=True)
                       for w in plan_watches(cluster, args.probes, 1, args.spread)])
    for index, share in enumerate(shares):
        ours, theirs = context.Pipe()
        process = context.Process(target=watch_games, name=f"watchers-{index}",
                                  args=(share, args.client == "lean", theirs))
        process.start()
        controls.append(ours)
        processes.append(process)
    connect_started = time.monotonic()
    connected = sum(control.recv()[1] for control in controls)
    connect_seconds = time.monotonic() - connect_started
    mem_connected = memory(cluster)
    games = create_games(cluster, args.games, args.level, args.pace)
    for control in controls:
        control.send(("join", [game_id for game_id, _ in games]))
    joined = sum(control.recv()[1] for control in controls)
    all_joined = time.time()
    time.sleep(1)  # the engine pools start with the first search
    mem_games = memory(cluster)
    server_threads = [thread_count(n.worker) for n in cluster.nodes]
    spread = upstream_connections([n.server.port for n in cluster.nodes]) if cluster.nginx else None
    pids = {f"gunicorn:{n.server.port}": [n.worker] for n in cluster.nodes} | {
            "engines": [p for n in cluster.nodes for p in engine_pids(n.worker)],
            "watchers": [p.pid for p in processes]}
    if cluster.redis and cluster.redis.process:
        pids["redis"] = [cluster.redis.process.pid]
    if cluster.nginx and cluster.nginx.process:
        pids["nginx"] = [cluster.nginx.process.pid, *children(cluster.nginx.process.pid)]
    meter = CpuTimeline(pids)
    meter.start()
    health = HealthProbe(cluster.nodes[0].server.url)
    health.start()
    deadline = time.monotonic() + args.timeout
    results: list[Watched] = []
    client_cpu = 0.0
    lags: list[tuple[float, float]] = []
    for control in controls:
        if not control.poll(max(0.0, deadline - time.monotonic())):
            for other in controls:
                with contextlib.suppress(OSError):
                    other.send(("stop",))
        message = control.recv()
        results += [Watched(**seen) for seen in message[1]]
        client_cpu += message[2]
        lags += message[3]
    for control in controls:
        with contextlib.suppress(OSError):
            control.send(("stop",))
    health.stop()
    for process in processes:
        process.join(timeout=30)
    meter.stop()
    finals = {game_id: node.server.get(f"/api/games/{game_id}").json() for game_id, node in games}
    return summarise(args, results, finals, all_joined, {
        "connected": connected, "joined": joined, "connect_seconds": connect_seconds, "mem_idle": mem_idle,
        "mem_connected": mem_connected, "mem_games": mem_games, "server_threads": server_threads,
        "cpu": meter.average(all_joined, all_joined + args.window), "spread": spread, "client_cpu": client_cpu,
        "lags": lags, "cpu_timeline": meter.samples, "health": health.times, "health_slowest": health.slowest})


def summarise(args: argparse.Namespace, results: list[Watched], finals: dict[str, dict[str, Any]],
              all_joined: float, facts: dict[str, Any]) -> dict[str, Any]:
    """Check every watcher's moves against its game's final ply; latency and throughput figures."""
    problems: list[str] = []
    delays, probe_delays, moved, searches, errors = [], [], 0, 0, 0
    timeline: list[tuple[str, int, float, float]] = []
    for seen in results:
        final = finals[seen.game_id]
        searches += seen.searches
        errors += len(seen.errors)
        moved += len(seen.moves)
        if seen.failure:
            problems.append(f"game {seen.game_id}: a watcher failed: {seen.failure}")
            continue
        assert seen.join_ply is not None
        # A move broadcast while the watcher was joining may arrive before the join state that already holds it.
        plies = [ply for ply, _, _ in seen.moves if ply > seen.join_ply]
        expected = list(range(seen.join_ply + 1, final["ply"] + 1))
        if plies != expected:
            missing = sorted(set(expected) - set(plies))
            dropped = "" if seen.dropped_at is None else f"connection dropped {seen.dropped_at - all_joined:.1f} s " \
                "after all joined, "
            problems.append(f"game {seen.game_id}: {dropped}joined at ply {seen.join_ply}, final ply {final['ply']}, "
                            f"got {len(plies)} moved, missing {missing[:10]}, out of order or extra: "
                            f"{[p for p in plies if p not in expected][:10]}")
        if final["status"] == "active":
            problems.append(f"game {seen.game_id}: still going at the end (ply {final['ply']})")
        (probe_delays if seen.probe else delays).extend(
            arrival - sent for _, sent, arrival in seen.moves if sent >= all_joined)
        timeline += [(seen.game_id, ply, sent - all_joined, arrival - sent) for ply, sent, arrival in seen.moves]
    sent_times = sorted({(seen.game_id, ply, sent) for seen in results for ply, sent, _ in seen.moves
                         if sent >= all_joined}, key=lambda item: item[2])
    window_moves = [s for s in sent_times if s[2] <= all_joined + args.window]
    ms = sorted(d * 1000 for d in delays)
    if args.dump:
        args.dump.write_text(json.dumps({
            "moves": sorted(timeline, key=lambda t: t[2]),
            "cpu": [(at - all_joined, shares) for at, shares in facts["cpu_timeline"]],
            "client_lags": sorted((at - all_joined, late) for at, late in facts["lags"])}))
    return {
        **facts, "problems": problems, "moved": moved, "searches": searches, "errors": errors,
        "watchers": len(results), "delays": len(ms),
        "probe_p50": statistics.median(probe_delays) * 1000 if probe_delays else float("nan"),
        "probe_p99": percentile(probe_delays, 0.99) * 1000 if probe_delays else float("nan"),
        "p50": statistics.median(ms) if ms else float("nan"), "p95": percentile(ms, 0.95) if ms else float("nan"),
        "p99": percentile(ms, 0.99) if ms else float("nan"), "max": ms[-1] if ms else float("nan"),
        "moves_per_s": len(window_moves) / args.window,
        "finished": sum(f["status"] != "active" for f in finals.values()),
        "plies": sum(f["ply"] for f in finals.values()),
    }


def report(args: argparse.Namespace, r: dict[str, Any]) -> None:
    for problem in r["problems"][:20]:
        print("  PROBLEM", problem)
    watchers = args.games * args.watchers
    print(f"  {r['connected']}/{watchers} watchers connected in {r['connect_seconds']:.1f} s, {r['joined']} joined; "
          f"games finished {r['finished']}/{args.games} ({r['plies']} plies); moved received {r['moved']}, "
          f"search {r['searches']}, error events {r['errors']}; problems {len(r['problems'])}")
    print(f"  moved sent_at -> arrival (after all joined, n={r['delays']}): p50 {r['p50']:.1f} ms  "
          f"p95 {r['p95']:.1f} ms  p99 {r['p99']:.1f} ms  max {r['max']:.1f} ms")
    health = sorted(r["health"])
    if health:
        print(f"  GET /api/health of the first node every 50 ms while the games played (n={len(health)}): "
              f"p50 {1000 * statistics.median(health):.1f} ms  p99 {1000 * percentile(health, 0.99):.1f} ms  "
              f"max {1000 * health[-1]:.1f} ms; over 1 s: "
              + (", ".join(f"{took:.1f} s at {at:.1f} s" for at, took in r["health_slowest"]) or "none"))
    if args.probes:
        print(f"  probes ({args.probes} watchers of the first games, alone in their own process): "
              f"p50 {r['probe_p50']:.1f} ms  p99 {r['probe_p99']:.1f} ms")
    print(f"  first {args.window:g} s after all joined: {r['moves_per_s']:.1f} moves/s = "
          f"{r['moves_per_s'] * args.watchers:.0f} moved messages/s; CPU % of one core: "
          + ", ".join(f"{k} {v:.0f}" for k, v in r["cpu"].items()))
    idle, connected, games = (r[k]["gunicorn"] for k in ("mem_idle", "mem_connected", "mem_games"))
    print(f"  gunicorn RSS ({args.nodes} node(s)): idle {idle:.1f} MiB, {watchers} watchers connected "
          f"{connected:.1f}, games joined and playing {games:.1f} MiB -> "
          f"{1024 * (connected - idle) / watchers:.0f} KiB per watcher, "
          f"{1024 * (games - connected) / args.games:.0f} KiB per game with its watchers in its room; "
          f"engine workers {r['mem_games']['engines']:.1f} MiB; server threads {r['server_threads']}")
    if r["spread"] is not None:
        print(f"  nginx upstream connections per node port: {r['spread']}")
    lags = [late for _, late in r["lags"]]
    print(f"  watcher processes: CPU over the whole run {r['client_cpu']:.1f} s; event loop late by > 20 ms "
          f"{len(lags)} times, at most {1000 * max(lags, default=0):.0f} ms")
    if args.stalls:
        print(f"  server event-loop stalls over {args.stalls * 1000:.0f} ms (whole run, start-up included): "
              f"{sum(r['stalls'].values())}")
        for place, count in r["stalls"].most_common():
            print(f"    {count:4d}  {place}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--nodes", type=int, choices=(1, 2), default=1)
    parser.add_argument("--games", type=int, default=50)
    parser.add_argument("--watchers", type=int, default=10, help="watchers per game")
    parser.add_argument("--level", type=int, default=2, help="engine level of both seats (1-8)")
    parser.add_argument("--pace", type=float, default=1.0, help="ARENA_PACE: seconds between two engine moves")
    parser.add_argument("--engines", type=int, default=2, help="ARENA_WORKERS: engine processes per node")
    parser.add_argument("--processes", type=int, default=2, help="client processes holding the watchers")
    parser.add_argument("--client", choices=("socketio", "lean"), default="socketio",
                        help="watchers: python-socketio AsyncClients, or the lean protocol client (less client CPU)")
    parser.add_argument("--probes", type=int, default=0,
                        help="extra watchers (one per game) in a process of their own, timed apart from the rest")
    parser.add_argument("--spread", choices=("nginx", "direct"), default="nginx",
                        help="two nodes: watchers through nginx from two source addresses, or straight to the nodes")
    parser.add_argument("--window", type=float, default=10.0, help="seconds of steady state for CPU and throughput")
    parser.add_argument("--timeout", type=float, default=300.0, help="longest wait for the games to end")
    parser.add_argument("--dump", type=Path, help="write every (game, ply, sent_at - all joined, delay) here as JSON")
    parser.add_argument("--repeat", type=int, default=1, help="runs; medians are printed after them")
    parser.add_argument("--stalls", type=float, default=0,
                        help="count the servers' event-loop stalls longer than this many seconds (0: do not watch)")
    args = parser.parse_args()
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(1))  # stop the servers (``finally``) when told to stop
    faulthandler.dump_traceback_later(args.repeat * (args.timeout + 120), exit=True)
    runs = []
    for index in range(args.repeat):
        print(f"run {index + 1}/{args.repeat}: {args.nodes} node(s), {args.games} games x {args.watchers} watchers, "
              f"pace {args.pace:g} s, {args.processes} {args.client} watcher processes",
              flush=True)
        runs.append(run_once(args))
        report(args, runs[-1])
    if args.repeat > 1:
        print("medians: " + ", ".join(f"{key} {statistics.median(r[key] for r in runs):.1f} ms"
                                      for key in ("p50", "p95", "p99", "max"))
              + f", problems {[len(r['problems']) for r in runs]}")


if __name__ == "__main__":
    main()
