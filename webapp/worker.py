"""What runs inside an engine worker process: take search jobs from a pipe, run the engine, send every event
back on another pipe. No Flask here; the process only needs the engine.

Pipes, not queues: a ``Connection.send`` writes at once from the calling thread (a queue hands the object to a
feeder thread first), so an event leaves the worker as soon as the search yields it.

Messages sent back are ``(job_id, info)`` where ``info`` is a dict with a ``kind``:
"started", the engine's "progress" / "depth" / "final" events (``SearchInfo.to_dict()``), or "failed" (the search
raised; ``message`` says what). Every job ends with exactly one "final" or "failed" message.

Run as ``python -m webapp.worker`` (``main``), this module is instead a worker of the search queue of
``ARENA_SEARCH_QUEUE`` (see ``webapp.search_queue``): an RQ worker that runs each search in a forked process.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import multiprocessing
import os
import random
import signal
import sys
import threading
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from engine.truth import live_truth
from webapp.fair_queue import LIVE
from webapp.search_records import fit_info

WORKER_NICENESS = 10
"""Searches run at a lower priority than the web server, so moves and events stay fast while engines think."""
RETRY_SECONDS = 2.0
"""How long ``python -m webapp.worker`` waits before trying an unreachable Redis again."""
ITERATION_FIELDS = ("depth", "seldepth", "best", "score", "score_text", "pv", "pv_text", "nodes", "time_ms")
"""What the final event's ``iterations`` keep of each completed depth."""
CEILING_SECONDS = 60.0
CEILING_NODES = 20_000_000


@dataclass(frozen=True, slots=True)
class Ceiling:
    """The most any one search may take, whatever its settings (a level, a custom depth or time, the lab, engine
    against engine): once it has run ``seconds`` or its events count more than ``nodes`` nodes, it stops and
    plays the best move found so far. The custom-engine form and docs/protocol.md state the default."""

    seconds: float = CEILING_SECONDS
    nodes: int = CEILING_NODES


class _CeilingStop:
    """The stop flag a search sees: the job's own ``stop``, or its ``Ceiling`` reached. A flag of its own for each
    job, so a ceiling can never stop the worker's next search."""

    def __init__(self, stop: Any, ceiling: Ceiling, deadline: float | None = None) -> None:
        self._stop = stop
        seconds = ceiling.seconds if deadline is None else min(ceiling.seconds, deadline - time.time())
        self._deadline = time.monotonic() + seconds
        self._node_limit = ceiling.nodes
        self.nodes = 0
        """The node count of the search's latest event."""

    def is_set(self) -> bool:
        """Whether the search must stop now."""
        return self._stop.is_set() or self.nodes > self._node_limit or time.monotonic() >= self._deadline


@dataclass(frozen=True, slots=True)
class SearchJob:
    """One engine move to find: the position, who plays, with which settings.

    ``engine`` is ``{"level": n}`` or ``{"depth", "time", "algorithm"}`` (either with an optional
    ``"personality"``), or, for the lab, ``{"lab": {"preset", "options", "limits"}}`` (``SearchOptions`` and
    ``Limits`` fields; a plain search without oracle or chance);
    ``record_tree`` asks for the search tree (0 = no); ``not_before`` is a wall-clock time before which the final
    event is held back (pacing of engine against engine games); ``deadline``, a wall-clock time by which the search
    stops at the latest, sooner than its ``Ceiling`` (a turn resumed after a restart keeps the ceiling of its
    start). ``client`` (whose request made the search necessary: an address) and ``priority`` (``fair_queue.LIVE``
    or ``BACKGROUND``) decide when it runs (``webapp.fair_queue``).
    """

    id: int
    game_id: str
    ply: int
    seat: int
    state: Any
    engine: dict[str, Any]
    record_tree: int = 0
    not_before: float = 0.0
    seed: int | None = field(default=None)
    deadline: float | None = None
    client: str = ""
    priority: int = LIVE


def search_events(job: SearchJob, stop: Any) -> Iterator[Any]:
    """The engine's ``SearchInfo`` events for ``job``; ``stop`` (an Event) ends the search with its best move."""
    from engine.player import think
    from engine.search.info import Limits, SearchOptions

    if "lab" in job.engine:
        from engine.search import make_searcher

        lab = job.engine["lab"]
        return make_searcher(job.state, Limits(**lab["limits"]), SearchOptions(**lab["options"]), stop).search()
    rng = random.Random(job.seed)
    personality = job.engine.get("personality")
    options = SearchOptions(record_tree=job.record_tree, personality=personality) if "level" in job.engine else (
        SearchOptions(algorithm=job.engine["algorithm"], record_tree=job.record_tree, personality=personality))
    if "level" in job.engine:
        return think(job.state, Limits(), options, rng=rng, stop=stop, level=job.engine["level"])
    limits = Limits(depth=job.engine.get("depth"), time=job.engine.get("time"))
    return think(job.state, limits, options, rng=rng, stop=stop)


def _send(results: Any, job: SearchJob, info: dict[str, Any]) -> None:
    info["sent_at"] = time.time()
    results.send((job.id, info))


def run_job(job: SearchJob, results: Any, stop: Any, ceiling: Ceiling = Ceiling()) -> None:
    """Run one job, sending "started", its events, and one "final" (or "failed") on ``results`` (a pipe end).
    Each event gets ``sent_at``, the wall-clock time it left the worker. The final event also carries the job's
    ``engine`` settings, ``truth`` (each legal move's exact value where it is known cheaply,
    ``engine.truth.live_truth``: display only, computed after the move was chosen) and ``iterations``: one
    summary (``ITERATION_FIELDS``, and ``tree``, that iteration's recorded tree, or None) per completed depth, in
    order; the recorded trees are cut to fit a search record (``search_records.fit_info``). The search stops at
    ``ceiling`` at the latest, or at the job's ``deadline`` if sooner (or when ``stop`` is set), and plays its
    best move so far. A review job (``engine`` ``{"review": {"depth", "seconds"}}``) or a hints job (``{"hints":
    {"depth", "seconds"}}``) runs ``run_analysis_job`` instead."""
    if "review" in job.engine or "hints" in job.engine:
        run_analysis_job(job, results, stop, ceiling)
        return
    _send(results, job, {"kind": "started", "engine": job.engine})
    try:
        final = None
        iterations = []
        bounded = _CeilingStop(stop, ceiling, job.deadline)
        for info in search_events(job, bounded):
            bounded.nodes = info.nodes
            data = info.to_dict()
            if info.final:
                final = data
                break
            if info.kind == "depth":  # its tree is kept for the final event's iterations, not streamed
                iterations.append({name: data[name] for name in ITERATION_FIELDS} | {"tree": data.pop("tree")})
            _send(results, job, data)
        if final is None or not final.get("best"):
            raise RuntimeError("the search ended without a move")
        final = fit_info(final | {"iterations": iterations, "engine": job.engine, "truth": live_truth(job.state)})
        remaining = job.not_before - time.time()
        if remaining > 0:
            stop.wait(remaining)
        _send(results, job, final)
    except Exception as error:  # any engine failure is reported; the worker lives on
        _send(results, job, {"kind": "failed", "message": f"{type(error).__name__}: {error}"})


def run_analysis_job(job: SearchJob, results: Any, stop: Any, ceiling: Ceiling = Ceiling()) -> None:
    """Look at one position for a review (``engine.review.look_at``: the final's ``view``) or for hints
    (``engine.hints.move_hints``: the final's ``hints``) with the job's search settings: send "started", then one
    "final", or "failed"."""
    from engine.hints import move_hints
    from engine.review import SearchSettings, look_at

    _send(results, job, {"kind": "started", "engine": job.engine})
    bounded = _CeilingStop(stop, ceiling, job.deadline)
    try:
        if "review" in job.engine:
            final = {"view": look_at(job.state, SearchSettings(**job.engine["review"]), bounded).to_dict()}
        else:
            final = {"hints": move_hints(job.state, SearchSettings(**job.engine["hints"]), bounded)}
        _send(results, job, {"kind": "final", **final})
    except Exception as error:  # any engine failure is reported; the worker lives on
        _send(results, job, {"kind": "failed", "message": f"{type(error).__name__}: {error}"})


def _exit_with_parent(parent: Any) -> None:
    """Wait for the parent process to end, then end this process at once (even in the middle of a search)."""
    parent.join()
    os._exit(0)


def worker_main(jobs: Any, results: Any, stop: Any) -> None:
    """The worker process: run the jobs received on ``jobs`` until it receives None or the pipe closes; it ends
    at once when the parent process ends. SIGINT and SIGTERM are ignored: a Ctrl-C or a SIGTERM sent to the whole
    process group reaches the server, which then stops its workers itself."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    with contextlib.suppress(OSError):
        os.nice(WORKER_NICENESS)
    parent = multiprocessing.parent_process()
    if parent is not None:
        threading.Thread(target=_exit_with_parent, args=(parent,), name="parent-watch", daemon=True).start()
    while True:
        try:
            job = jobs.recv()
        except (EOFError, OSError):
            return
        if job is None:
            return
        run_job(job, results, stop)


def _preload() -> None:
    """Import the engine and every game now, so each forked search starts without importing them."""
    from engine.games import game_class, game_names

    for module in ("engine.player", "engine.search"):
        importlib.import_module(module)
    for name in game_names():
        game_class(name)


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m webapp.worker [--url redis://...] [--burst] [--name NAME]``: run the searches of the search
    queue (``--url``, default ``ARENA_SEARCH_QUEUE``) until stopped (SIGTERM or Ctrl-C lets the running search
    end first; a second one stops it at once). While Redis cannot be reached it says so and tries again every
    ``RETRY_SECONDS``; with ``--burst`` it exits with status 1 instead."""
    parser = argparse.ArgumentParser(prog="python -m webapp.worker",
                                     description="Run engine searches from the search queue of the web nodes.")
    parser.add_argument("--url", default=os.environ.get("ARENA_SEARCH_QUEUE") or None,
                        help="the queue's Redis, redis://HOST:PORT/DB (default: $ARENA_SEARCH_QUEUE)")
    parser.add_argument("--burst", action="store_true", help="quit once the queue is empty")
    parser.add_argument("--name", help="the worker's name in RQ and in its log (default: random)")
    args = parser.parse_args(argv)
    if not args.url:
        parser.error("give --url redis://HOST:PORT/DB or set ARENA_SEARCH_QUEUE")

    from redis.exceptions import RedisError
    from rq import Queue, Worker

    from webapp.search_queue import QUEUE_NAMES, connect

    try:
        redis = connect(args.url)
    except ValueError as error:
        parser.error(f"--url {args.url!r}: {error}")
    with contextlib.suppress(OSError):
        os.nice(WORKER_NICENESS)
    _preload()
    worker = None
    while True:
        try:
            if worker is not None:  # RQ stopped on a Redis error: mark it dead, start a new one
                worker.register_death()
            queues = [Queue(name, connection=redis) for name in QUEUE_NAMES]
            worker = Worker(queues, connection=redis, name=args.name)
            worker.work(burst=args.burst, logging_level="INFO")
            return 0
        except RedisError as error:
            again = "" if args.burst else f"; trying again in {RETRY_SECONDS:g} s"
            print(f"python -m webapp.worker: the search queue {args.url} cannot be reached: {error}{again}",
                  file=sys.stderr, flush=True)
            if args.burst:
                return 1
            time.sleep(RETRY_SECONDS)


if __name__ == "__main__":
    sys.exit(main())
