"""What every searcher shares: input checks, limits, stop flags, counters, events and the worker thread.

A searcher's ``search()`` is a generator of ``SearchInfo`` events. The search itself is recursive, so it runs in
a worker thread and hands its events to the generator through a queue; the generator returns after the final
event. The worker looks at the stop flags, the clock and the node budget every ``CHECK_EVERY`` nodes (well under
a millisecond of work), so a stop request ends the search within a few milliseconds with the best move so far.
Closing the generator early (``break`` out of the loop) stops the worker too.
"""

from __future__ import annotations

import math
import queue
import threading
from collections.abc import Callable, Iterator
from typing import ClassVar, Protocol

from mypy_extensions import mypyc_attr

from engine.clock import SYSTEM_MONOTONIC, Monotonic
from engine.game import WIN, Outcome, State, describe_score, score_scale
from engine.search.info import Algorithm, EventKind, Limits, RootMove, SearchInfo, SearchOptions
from engine.search.steps import StepRecord, StepRecorder

CHECK_EVERY = 256
"""Nodes between two looks at the stop flags, the clock and the node budget."""

PROGRESS_INTERVAL = 0.1
"""Seconds between two progress events during a long iteration."""

DEEPEST_ITERATION = 200
"""Deepest iteration a search attempts when no depth limit is given (the game is usually solved long before);
small enough for Python's default recursion limit. The engine's own bound, not the cap on the depth a web client
may ask for (``Depth`` in webapp/openapi.yaml)."""

ALGORITHMS = ("alphabeta", "minimax", "mcts")


class StopFlag(Protocol):
    """Anything with ``is_set()``: ``threading.Event``, ``multiprocessing.Event``..."""

    def is_set(self) -> bool: ...


class SearchAborted(Exception):
    """Raised inside the worker when a limit or a stop flag ends the search; caught by the searcher itself."""


def check_limits(limits: Limits) -> None:
    """Raise ``ValueError`` naming the bad field when a limit is not a positive number (or None)."""
    if not isinstance(limits, Limits):
        raise TypeError(f"limits must be a Limits, got {type(limits).__name__}")
    for name in ("depth", "nodes"):
        value = getattr(limits, name)
        if value is not None and (not isinstance(value, int) or isinstance(value, bool) or value < 1):
            raise ValueError(f"limits.{name} must be a positive whole number or None, got {value!r}")
    if limits.time is not None and (
        not isinstance(limits.time, int | float) or isinstance(limits.time, bool) or not limits.time > 0
        or math.isinf(limits.time)
    ):
        raise ValueError(f"limits.time must be a positive number of seconds or None, got {limits.time!r}")


def check_options(options: SearchOptions) -> None:
    """Raise ``ValueError`` naming the bad field when an option is out of range."""
    if not isinstance(options, SearchOptions):
        raise TypeError(f"options must be a SearchOptions, got {type(options).__name__}")
    if options.algorithm not in ALGORITHMS:
        raise ValueError(f"unknown algorithm {options.algorithm!r}; expected one of {', '.join(ALGORITHMS)}")
    if not isinstance(options.tt_size, int) or options.tt_size < 1:
        raise ValueError(f"options.tt_size must be a positive number of entries, got {options.tt_size!r}")
    if not isinstance(options.record_tree, int) or options.record_tree < 0:
        raise ValueError(f"options.record_tree must be 0 or a positive node count, got {options.record_tree!r}")
    if not isinstance(options.root_margin, int) or options.root_margin < 0:
        raise ValueError(f"options.root_margin must be 0 or more, got {options.root_margin!r}")
    if not options.exploration >= 0:
        raise ValueError(f"options.exploration must be 0 or more, got {options.exploration!r}")


def check_personality(state: State, options: SearchOptions) -> None:
    """Raise ``ValueError`` when ``options.personality`` is not one of the personalities of ``state``'s game
    (``personalities`` on its class; a game without any refuses every one) or is asked of a search other than
    alpha-beta (the others use the game's plain evaluation)."""
    personality = options.personality
    if personality is None:
        return
    choices = tuple(getattr(type(state), "personalities", ()))
    if not choices:
        game = getattr(type(state), "name", type(state).__name__)
        raise ValueError(f"{game} has no personalities; options.personality must be None, got {personality!r}")
    if personality not in choices:
        raise ValueError(f"unknown personality {personality!r}; expected one of {', '.join(choices)}")
    if options.algorithm != "alphabeta":
        raise ValueError(f"a personality applies to the alphabeta search, not {options.algorithm}")


def check_state(state: object) -> None:
    """Raise ``TypeError`` when ``state`` does not follow the ``engine.game.State`` contract."""
    if not isinstance(state, State):
        raise TypeError(f"expected a game state (see engine.game.State), got {type(state).__name__}")


def terminal_score(outcome: Outcome, to_move: int, ply: int) -> int:
    """Score of a finished game for the side to move, ``ply`` plies from the root: 0, WIN - ply or -(WIN - ply)."""
    if outcome.winner is None:
        return 0
    return WIN - ply if outcome.winner == to_move else -(WIN - ply)


def effective_branching_factor(nodes: int, depth: int) -> float | None:
    """The effective branching factor of an iteration that visited ``nodes`` nodes to ``depth``: the b* with
    1 + b* + ... + b*^depth = nodes (Russell and Norvig's definition), the branching of a uniform tree of that
    size and depth. Every searcher reports this one (``SearchInfo.ebf``, on the last completed iteration). None
    when it is undefined or would be below 1 (fewer nodes than plies: the transposition table or a solved position
    answered, and no tree of that depth was searched)."""
    if depth < 1 or nodes < depth + 1:
        return None
    low, high = 0.0, nodes ** (1 / depth) + 1.0
    for _ in range(60):
        middle = (low + high) / 2
        total = sum(middle ** power for power in range(depth + 1))
        if total < nodes:
            low = middle
        else:
            high = middle
    return round((low + high) / 2, 3)


def stream_events(work: Callable[[queue.SimpleQueue], None], name: str,
                  close: Callable[[], None]) -> Iterator[SearchInfo]:
    """Run ``work(events)`` in a daemon thread and yield the ``SearchInfo`` events it puts on ``events``.

    Ends after the first final event. An exception ``work`` puts on ``events`` is raised here. However the
    generator ends (final event, error, or the consumer closing it early), ``close()`` is called so the search
    winds down, and the thread is joined.
    """
    events: queue.SimpleQueue[SearchInfo | BaseException] = queue.SimpleQueue()
    worker = threading.Thread(target=work, args=(events,), name=name, daemon=True)
    worker.start()
    try:
        while True:
            event = events.get()
            if isinstance(event, BaseException):
                raise event
            yield event
            if event.final:
                return
    finally:
        close()
        worker.join()


@mypyc_attr(allow_interpreted_subclasses=True)
class BaseSearcher:
    """Common part of the searchers; subclasses implement ``_run()`` and call ``_emit``/``_tick``.

    ``stop`` is any object with ``is_set()``; ``stop()`` sets an internal flag with the same effect on the
    search that is running (each ``search()`` starts with the internal flag cleared). ``clock`` gives the time
    that ``Limits.time`` and the events' ``time_ms`` and progress interval are measured on.
    """

    algorithm: ClassVar[Algorithm]

    def __init__(self, state: State, limits: Limits = Limits(), options: SearchOptions = SearchOptions(),  # noqa: B008
                 stop: StopFlag | None = None, clock: Monotonic = SYSTEM_MONOTONIC) -> None:
        check_state(state)
        check_limits(limits)
        check_options(options)
        if stop is not None and not callable(getattr(stop, "is_set", None)):
            raise TypeError(f"stop must have an is_set() method, got {type(stop).__name__}")
        self.state = state
        self.limits = limits
        self.options = options
        self._external_stop = stop
        self._clock = clock
        self._stop_requested = threading.Event()
        self._closed = False
        self.steps: StepRecorder | None = None
        """When set before ``search()``, every node the search visits is recorded in it (alpha-beta only)."""
        self._reset_counters()

    # -- public API -------------------------------------------------------------------------------------------

    def set_position(self, state: State) -> None:
        """Search ``state`` next time; tables learnt so far (TT, killers, history) are kept."""
        check_state(state)
        self.state = state

    def record_steps(self, recorder: StepRecorder | None) -> None:
        """Record every node of the next searches in ``recorder`` (None: stop recording). Alpha-beta searchers
        record; the others ignore it."""
        self.steps = recorder

    def readable_steps(self, record: StepRecord) -> StepRecord:
        """``record`` with its moves in the game's notation (they are already, unless a searcher records its own
        internal moves)."""
        return record

    def stop(self) -> None:
        """Ask the running search to end now; it finishes with a final event holding the best move so far."""
        self._stop_requested.set()

    def search(self) -> Iterator[SearchInfo]:
        """Yield the search's events, the last one with ``final=True``; see the module docstring."""
        self._stop_requested.clear()
        self._closed = False
        yield from stream_events(self._work, f"{self.algorithm}-search", self._close)

    def _close(self) -> None:
        self._closed = True

    # -- for subclasses -----------------------------------------------------------------------------------------

    def _run(self) -> None:
        """Search ``self.state``, calling ``self._emit`` for each event; the last call must be ``_emit("final")``."""
        raise NotImplementedError

    def _reset_counters(self) -> None:
        self.nodes = 0
        self.qnodes = 0
        self.cutoffs = 0
        self.pruned = 0
        self.generated = 0
        self.tt_probes = 0
        self.tt_hits = 0
        self.seldepth = 0
        self.depth = 0
        self.nodes_per_depth: list[int] = []
        self.ebf: float | None = None
        self.score: int | None = None
        self.score_text_override: str | None = None
        self.pv: list[str] = []
        self.best: str | None = None
        self.root_moves: list[RootMove] = []
        self.tree: dict | None = None
        self.proven = False

    def _work(self, events: queue.SimpleQueue) -> None:
        self._events = events
        self._reset_counters()
        self._started = self._clock()
        self._deadline = self._started + self.limits.time if self.limits.time is not None else math.inf
        self._last_progress = self._started
        self._next_check = self._check_point()
        try:
            self._run()
        except BaseException as error:  # handed to the consumer, which re-raises it
            events.put(error)

    def _check_point(self) -> int:
        point = self.nodes + CHECK_EVERY
        return min(point, self.limits.nodes) if self.limits.nodes is not None else point

    def _should_stop(self) -> bool:
        return (self._closed or self._stop_requested.is_set()
                or (self._external_stop is not None and self._external_stop.is_set()))

    def _tick(self) -> None:
        """Called when ``nodes`` reaches the next check point: raise ``SearchAborted`` or send progress."""
        self._next_check = self._check_point()
        now = self._clock()
        if (self._should_stop() or now >= self._deadline
                or (self.limits.nodes is not None and self.nodes >= self.limits.nodes)):
            raise SearchAborted
        if now - self._last_progress >= PROGRESS_INTERVAL:
            self._last_progress = now
            self._emit("progress")

    def _elapsed(self) -> float:
        return self._clock() - self._started

    def _emit(self, kind: EventKind) -> None:
        elapsed = self._elapsed()
        scale = score_scale(self.state)
        if self.score_text_override is not None:
            score_text = self.score_text_override
        else:
            score_text = describe_score(self.score, scale) if self.score is not None else ""
        self._events.put(SearchInfo(
            kind=kind, algorithm=self.algorithm, depth=self.depth, seldepth=self.seldepth, nodes=self.nodes,
            qnodes=self.qnodes, cutoffs=self.cutoffs, pruned=self.pruned, generated=self.generated,
            tt_probes=self.tt_probes, tt_hits=self.tt_hits, time_ms=round(elapsed * 1000, 3),
            nps=int(self.nodes / elapsed) if elapsed > 0 else 0, score=self.score, score_text=score_text,
            pv=list(self.pv), best=self.best, root_moves=list(self.root_moves), ebf=self.ebf,
            final=kind == "final", nodes_per_depth=list(self.nodes_per_depth),
            tree=self.tree if kind in ("depth", "final") else None, score_scale=scale, proven=self.proven,
        ))
