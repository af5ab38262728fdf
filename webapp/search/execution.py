"""How one search job runs inside a worker process (this node's pool, ``webapp.search.pool``, or a queue worker,
``webapp.search.worker``) and sends its events back: ``run_job``.

Every job ends with exactly one "final" or "failed" event. Events go out as ``(job_id, info)`` where ``info`` is a
dict with a ``kind`` (``webapp.search.job_events``): "started", the engine's "progress" / "depth" / "final" events
(``SearchInfo.to_dict()``), or "failed" (the search raised; ``message`` says what). "progress" and "depth" are
throttled where they are made (``Throttle``), so neither the pipes nor Redis carry more than
``PROGRESS_PER_SECOND`` of them per search.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Iterator
from typing import Any, Protocol

from engine.game import State
from engine.hints import exact_hints, move_hints
from engine.player import think, with_readable_moves
from engine.review import SearchSettings, look_at
from engine.search import make_searcher
from engine.search.every_move import score_every_move
from engine.search.info import Limits, SearchInfo, SearchInfoDict, SearchOptions
from engine.stepper import record_search
from engine.truth import Exact, judged, live_truth, values_from_pairs
from webapp.clock import Clock
from webapp.display import engine_label
from webapp.search.job_events import AnalysisEvent, Iteration, JobEvent
from webapp.search.jobs import Ceiling, SearchJob
from webapp.search.records import fit_info

WORKER_NICENESS = 10
"""Searches run at a lower priority than the web server, so moves and events stay fast while engines think."""
PROGRESS_PER_SECOND = 10
THROTTLED = ("progress", "depth")
"""Event kinds sent at most ``PROGRESS_PER_SECOND`` times a second per search, together: each carries every
counter so far (``nodes_per_depth`` included), so a dropped one loses nothing the next one does not repeat."""
USUAL_CEILING = Ceiling()
"""The ceiling of every search a worker runs."""
ANALYSIS_KINDS = ("review", "hints", "every_move", "truth", "steps")
"""The ``SearchJob.engine`` keys of the jobs ``run_analysis_job`` runs (one answer, no search events)."""


class Throttle:
    """Lets an event through at most ``per_second`` times a second (of ``clock``, a monotonic time); the rest are
    dropped."""

    def __init__(self, per_second: float, clock: Callable[[], float]) -> None:
        self.interval = 1 / per_second
        self._clock = clock
        self._last: float | None = None

    def allow(self) -> bool:
        """True (and the time noted) when the last allowed event is at least ``1 / per_second`` old."""
        now = self._clock()
        if self._last is not None and now - self._last < self.interval:
            return False
        self._last = now
        return True


class Results(Protocol):
    """Where ``run_job`` sends its events: a pipe end, or the search queue's publisher."""

    def send(self, message: tuple[int, JobEvent]) -> None:
        """Send ``(job_id, info)``."""


class StopSignal(Protocol):
    """What stops a search: a ``threading.Event`` or a ``multiprocessing`` one."""

    def is_set(self) -> bool:
        """Whether the search must stop now."""

    def wait(self, timeout: float | None = None) -> bool:
        """Wait until set or ``timeout`` seconds have passed; returns whether it is set."""


class _CeilingStop:
    """The stop flag a search sees: the job's own ``stop``, or its ``Ceiling`` reached (time on ``clock``). A flag
    of its own for each job, so a ceiling can never stop the worker's next search."""

    def __init__(self, stop: StopSignal, ceiling: Ceiling, clock: Clock, deadline: float | None = None) -> None:
        self._stop = stop
        self._clock = clock
        seconds = ceiling.seconds if deadline is None else min(ceiling.seconds, deadline - clock.time())
        self._deadline = clock.monotonic() + seconds
        self._node_limit = ceiling.nodes
        self.nodes = 0
        """The node count of the search's latest event."""

    def is_set(self) -> bool:
        """Whether the search must stop now."""
        return self._stop.is_set() or self.nodes > self._node_limit or self._clock.monotonic() >= self._deadline


class _Sender:
    """Sends a job's events on ``results``, each stamped with ``sent_at`` (``clock``'s Unix time when it left the
    worker), "progress" and "depth" throttled to ``PROGRESS_PER_SECOND``."""

    def __init__(self, results: Results, job: SearchJob, clock: Clock) -> None:
        self._results = results
        self._job_id = job.id
        self._clock = clock
        self._throttle = Throttle(PROGRESS_PER_SECOND, clock.monotonic)

    def send(self, info: JobEvent) -> None:
        if info["kind"] in THROTTLED and not self._throttle.allow():
            return
        info["sent_at"] = self._clock.time()
        self._results.send((self._job_id, info))


def search_events(job: SearchJob, stop: Any, clock: Clock) -> Iterator[SearchInfo]:
    """The engine's ``SearchInfo`` events for ``job``, timed on ``clock``'s monotonic time; ``stop`` (an Event) ends
    the search with its best move."""
    if "lab" in job.engine:
        lab = job.engine["lab"]
        searcher = make_searcher(job.state, Limits(**lab["limits"]), SearchOptions(**lab["options"]), stop,
                                 clock.monotonic)
        return (with_readable_moves(job.state, info) for info in searcher.search())
    rng = random.Random(job.seed)
    personality = job.engine.get("personality")
    if "level" in job.engine:
        options = SearchOptions(record_tree=job.record_tree, personality=personality)
        return think(job.state, Limits(), options, rng=rng, stop=stop, level=job.engine["level"],
                     clock=clock.monotonic)
    options = SearchOptions(algorithm=job.engine["algorithm"], record_tree=job.record_tree, personality=personality)
    limits = Limits(depth=job.engine.get("depth"), time=job.engine.get("time"))
    return think(job.state, limits, options, rng=rng, stop=stop, clock=clock.monotonic)


def run_job(job: SearchJob, results: Results, stop: StopSignal, clock: Clock,
            ceiling: Ceiling = USUAL_CEILING) -> None:
    """Run one job, sending "started", its events, and one "final" (or "failed") on ``results``. The final event also
    carries the job's ``engine`` settings and their ``engine_label``, ``truth`` (each legal move's exact value where it
    is known cheaply, ``engine.truth.live_truth``, with its verdict on the search's score, ``engine.truth.judged``:
    display only, computed after the move was chosen) and ``iterations``: one summary (``job_events.Iteration``, with
    ``tree``, that iteration's recorded tree, or None) per completed depth, in order; the recorded trees are cut to
    fit a search record (``records.fit_info``). The search stops at ``ceiling`` at the latest, or at the job's
    ``deadline`` if sooner (or when ``stop`` is set), and plays its best move so far; the ceiling, the deadline,
    the pacing (``not_before``), the events' stamps and the engine's own time (``Limits.time``, the solver's
    budgets, ``time_ms``) are read from ``clock`` (the pacing wait itself is a real wait on ``stop``). A review or
    hints job runs ``run_analysis_job`` instead."""
    if any(kind in job.engine for kind in ANALYSIS_KINDS):
        run_analysis_job(job, results, stop, clock, ceiling)
        return
    sender = _Sender(results, job, clock)
    sender.send({"kind": "started", "engine": job.engine, "engine_label": engine_label(job.engine)})
    try:
        last: SearchInfoDict | None = None
        iterations: list[Iteration] = []
        bounded = _CeilingStop(stop, ceiling, clock, job.deadline)
        for info in search_events(job, bounded, clock):
            bounded.nodes = info.nodes
            data = info.to_dict()
            if info.final:
                last = data
                break
            if info.kind == "depth":  # its tree is kept for the final event's iterations, not streamed
                iterations.append(_iteration(data, data.pop("tree", None)))
            sender.send(data)
        if last is None or not last["best"]:
            raise RuntimeError("the search ended without a move")
        truth = live_truth(job.state, _known(job), clock.monotonic)
        final = fit_info({**last, "iterations": iterations, "engine": job.engine,
                          "engine_label": engine_label(job.engine),
                          "truth": None if truth is None else judged(truth, last["root_moves"], last["depth"])})
        remaining = job.not_before - clock.time()
        if remaining > 0:
            stop.wait(remaining)
        sender.send(final)
    except Exception as error:  # any engine failure is reported; the worker lives on
        sender.send({"kind": "failed", "message": f"{type(error).__name__}: {error}"})


def _known(job: SearchJob) -> dict[str, Exact] | None:
    """The exact values the job brings along, or None."""
    return None if job.known is None else values_from_pairs(job.known)


def _iteration(depth_event: SearchInfoDict, tree: dict[str, Any] | None) -> Iteration:
    """What the final event's ``iterations`` keep of a completed depth: its "depth" event's summary and ``tree``."""
    return {"depth": depth_event["depth"], "seldepth": depth_event["seldepth"], "best": depth_event["best"],
            "score": depth_event["score"], "score_text": depth_event["score_text"], "pv": depth_event["pv"],
            "pv_text": depth_event["pv_text"], "nodes": depth_event["nodes"], "time_ms": depth_event["time_ms"],
            "tree": tree}


def _ending_when(stop: StopSignal | _CeilingStop, monotonic: Callable[[], float]) -> Callable[[], float]:
    """``monotonic``, but infinitely late once ``stop`` is set: every deadline timed on it passes then, so work
    bounded only by a deadline (the Connect Four solver) ends as soon as its job is stopped."""
    return lambda: math.inf if stop.is_set() else monotonic()


def run_analysis_job(job: SearchJob, results: Results, stop: StopSignal, clock: Clock,
                     ceiling: Ceiling = USUAL_CEILING) -> None:
    """Look at one position for a review (``engine.review.look_at``: the final's ``view``), for hints
    (``engine.hints.move_hints``: the final's ``hints``) or to score every move of a search
    (``engine.search.every_move.score_every_move``: the final's ``every_move``) with the job's settings, or for the
    analysis board's exact values (``engine.hints.exact_hints``: the final's ``hints``, None when not known), or to
    record a search node by node (``engine.stepper.record_search``: the final's ``steps``): send
    "started", then one "final", or "failed"."""
    sender = _Sender(results, job, clock)
    sender.send({"kind": "started", "engine": job.engine, "engine_label": engine_label(job.engine)})
    bounded = _CeilingStop(stop, ceiling, clock, job.deadline)
    state: State = job.state
    try:
        final: AnalysisEvent
        if "review" in job.engine:
            view = look_at(state, SearchSettings(**job.engine["review"]), bounded, known=_known(job),
                           clock=clock.monotonic)
            final = {"kind": "final", "view": view.to_dict()}
        elif "every_move" in job.engine:
            asked = job.engine["every_move"]
            scored = score_every_move(state, asked["depth"], SearchOptions(**asked["options"]), asked["seconds"],
                                      bounded, clock.monotonic)
            final = {"kind": "final", "every_move": scored.to_dict()}
        elif "steps" in job.engine:
            asked = job.engine["steps"]
            stepped = record_search(state, asked["depth"], SearchOptions(**asked["options"]), stop=bounded,
                                    clock=clock.monotonic)
            final = {"kind": "final", "steps": stepped.to_dict()}
        elif "truth" in job.engine:
            final = {"kind": "final", "hints": exact_hints(state, job.engine["truth"]["seconds"], _known(job),
                                                           _ending_when(bounded, clock.monotonic))}
        else:
            final = {"kind": "final", "hints": move_hints(state, SearchSettings(**job.engine["hints"]), bounded,
                                                          known=_known(job), clock=clock.monotonic)}
        sender.send(final)
    except Exception as error:  # any engine failure is reported; the worker lives on
        sender.send({"kind": "failed", "message": f"{type(error).__name__}: {error}"})
