"""Reviews of finished games through the engine workers, stored once for everyone holding the link.

A review looks at every position of the game (``engine.review.look_at``: the exact value of each move where known,
else a search of ``SETTINGS``), one job per position on the shared runner as background work of whoever asked:
after every live game's engine turn and within that client's share of the engines (``webapp.search.fair_queue``), so it
never starves a game being played. Its jobs' key is ``review:<game id>:<position>``. While it runs, the
game's room gets ``review`` ``{game_id, status: "running", done, total}``; at the end ``review`` with the stored
review (``status`` "done", ``verdicts``, ``summaries``, ``exercises``, ``settings``), computed by
``engine.review.verdicts_from`` as the command line computes it. A review is claimed in the store first
(``store.reviews.claim``): asking again, on any node, while it runs or once it is done starts nothing.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import functools
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, NotRequired, TypedDict

from engine.game import State
from engine.review import (
    Exercise,
    MoveVerdict,
    PositionView,
    SearchSettings,
    SeatSummary,
    describe_grading,
    loss_unit,
    positions_of,
    shown_move,
    summarise,
    verdicts_from,
)
from webapp.clock import Clock
from webapp.errors import ArenaError, ErrorCode
from webapp.search.fair_queue import BACKGROUND
from webapp.search.jobs import Runner, SearchJob
from webapp.store import Store

SETTINGS = SearchSettings()
"""The search of each position without a known truth: 0.5 s (docs/review.md)."""
STALE_SECONDS = 120.0
"""A review said to be running but silent this long (its node stopped) may be started again."""


class ReviewResult(TypedDict):
    """A finished review as stored: the ``game``'s name, each move's verdict (``engine.review.MoveVerdict.to_dict()``)
    and the search settings (``settings_of``)."""

    game: str
    verdicts: list[dict[str, Any]]
    settings: dict[str, Any]


def settings_of(game: str) -> dict[str, Any]:
    """The settings of ``game``'s reviews as the page shows them: the search of positions without a known truth
    (``depth``, ``seconds`` and ``text`` in words), how its losses are graded (``grading``, in words) and what they
    count (``loss_unit``)."""
    return dataclasses.asdict(SETTINGS) | {"text": SETTINGS.describe(), "grading": describe_grading(game),
                                           "loss_unit": loss_unit(game)}


class ReviewStatus(TypedDict):
    """The ``review`` message and answer: ``status`` "none", "running" (with ``done`` of ``total`` positions),
    "done" (with the review), "cancelled" or "failed" (with a ``message`` when sent as it fails)."""

    game_id: str
    status: str
    done: NotRequired[int]
    total: NotRequired[int]
    verdicts: NotRequired[list[dict[str, Any]]]
    summaries: NotRequired[list[dict[str, Any]]]
    exercises: NotRequired[list[dict[str, Any]]]
    settings: NotRequired[dict[str, Any]]
    message: NotRequired[str | None]


class AnalysisPayload(TypedDict):
    """The ``analysis`` message and answer about the position after ``ply`` moves: "running", "failed" (with a
    ``message``) or "done" with the engine's ``best`` move (and as players read it), its ``value`` and ``how``
    it was found ("exact" or the search settings in words)."""

    game_id: str
    ply: int
    status: str
    message: NotRequired[str | None]
    best: NotRequired[str | None]
    best_shown: NotRequired[str | None]
    value: NotRequired[str | None]
    how: NotRequired[str]


def summaries_of(result: Mapping[str, Any]) -> list[SeatSummary]:
    """Each seat's figures (``engine.review.summarise``) of a done review's ``result`` (a ``ReviewResult``)."""
    return summarise([MoveVerdict.from_dict(verdict) for verdict in result["verdicts"]], result["game"])


def exercises_of(result: Mapping[str, Any]) -> list[Exercise]:
    """The exercises (``engine.review.Exercise``) that the moves of a done review's ``result`` make, in move order."""
    found = (Exercise.of(MoveVerdict.from_dict(verdict)) for verdict in result["verdicts"])
    return [exercise for exercise in found if exercise is not None]


def _done(game_id: str, result: Mapping[str, Any]) -> ReviewStatus:
    """The status of a done review whose ``result`` is a ``ReviewResult`` (as stored, or just made), with each
    seat's figures and the exercises its mistakes make worked out from its verdicts."""
    return {"game_id": game_id, "status": "done", "verdicts": result["verdicts"],
            "summaries": [summary.to_dict() for summary in summaries_of(result)],
            "exercises": [exercise.to_dict() for exercise in exercises_of(result)], "settings": result["settings"]}


def _review_key(game_id: str, index: int) -> str:
    """The runner's key of the search of position ``index`` of the review of ``game_id``."""
    return f"review:{game_id}:{index}"


@dataclass(slots=True)
class _Run:
    """A review running on this node: its positions, what was found of each so far, who asked."""

    positions: list[State]
    moves: list[str]
    client: str
    views: dict[int, PositionView] = field(default_factory=dict)


class Reviews:
    """The reviews this node runs. ``emit(event, payload, to=room)`` sends Socket.IO messages."""

    def __init__(self, store: Store, runner: Runner, emit: Callable[..., None],
                 job_ids: Callable[[], int], clock: Clock) -> None:
        self.store = store
        self.runner = runner
        self.emit = emit
        self._job_ids = job_ids
        self._clock = clock
        self._runs: dict[str, _Run] = {}
        self._lock = threading.Lock()

    def status(self, game_id: str) -> ReviewStatus:
        """``{game_id, status, ...}``: "none" when never asked, "running" with ``done``/``total``, "done" with the
        review, "cancelled" or "failed"."""
        stored = self.store.reviews.get(game_id)
        if stored is None:
            return {"game_id": game_id, "status": "none"}
        status, result = stored
        if status == "done" and result is not None:
            return _done(game_id, result)
        with self._lock:
            run = self._runs.get(game_id)
        return {"game_id": game_id, "status": status} if run is None else self._progress(game_id, run, status)

    def start(self, game_id: str, start: State, moves: list[str], client: str) -> ReviewStatus:
        """Review the game ``game_id`` (played ``moves`` from ``start``) for ``client`` (an address), unless a review
        of it is running or done; returns its status. The caller has checked that the game may be reviewed."""
        stale = self._clock.now() - dt.timedelta(seconds=STALE_SECONDS)
        if not self.store.reviews.claim(game_id, stale):
            return self.status(game_id)
        run = _Run(positions_of(start, moves), moves, client)
        with self._lock:
            self._runs[game_id] = run
        engine = {"review": dataclasses.asdict(SETTINGS)}
        for index, state in enumerate(run.positions):
            self.runner.submit(SearchJob(id=self._job_ids(), key=_review_key(game_id, index), ply=index,
                                         seat=state.to_move, state=state, engine=engine, client=client,
                                         priority=BACKGROUND),
                               functools.partial(self._on_event, game_id))
        return self._progress(game_id, run)

    def cancel(self, game_id: str, client: str) -> ReviewStatus:
        """Stop the review of ``game_id`` running on this node for ``client`` (the address that asked for it;
        ``forbidden`` for another, ``not_allowed`` when none runs here); its status becomes "cancelled" and it may
        be asked for again."""
        status: ReviewStatus = {"game_id": game_id, "status": "cancelled"}
        with self._lock:  # stored and sent under the lock: no progress of the run can be stored or sent after it
            run = self._runs.get(game_id)
            if run is None:
                raise ArenaError(ErrorCode.NOT_ALLOWED, "no review of this game is running on this server")
            if run.client != client:
                raise ArenaError(ErrorCode.FORBIDDEN, "only the address that asked for this review may cancel it")
            del self._runs[game_id]
            self.store.reviews.save(game_id, "cancelled")
            self.emit("review", status, to=game_id)
        for index in range(len(run.positions)):
            self.runner.cancel(_review_key(game_id, index), "review cancelled")
        return status

    def analyse(self, game_id: str, ply: int, state: State, client: str) -> AnalysisPayload:
        """Look at the position after ``ply`` moves of ``game_id`` as a review does ("what would the engine do
        here?"), as background work of ``client``; the answer reaches the game's room as ``analysis``. Returns
        ``{game_id, ply, status: "running"}``."""
        engine = {"review": dataclasses.asdict(SETTINGS)}
        self.runner.submit(SearchJob(id=self._job_ids(), key=f"analysis:{game_id}:{ply}", ply=ply,
                                     seat=state.to_move, state=state, engine=engine, client=client,
                                     priority=BACKGROUND),
                           functools.partial(self._on_analysis, game_id))
        return {"game_id": game_id, "ply": ply, "status": "running"}

    def _on_analysis(self, game_id: str, job: SearchJob, info: dict[str, Any]) -> None:
        """The runner's handler of an analysed position of ``game_id``: send the room what the engine would do
        there, its best move (as players read it) and that move's value, exact or searched."""
        if info["kind"] not in ("final", "failed"):
            return
        if info["kind"] == "failed":
            failed: AnalysisPayload = {"game_id": game_id, "ply": job.ply, "status": "failed",
                                       "message": info.get("message")}
            self.emit("analysis", failed, to=game_id)
            return
        view = PositionView.from_dict(info["view"])
        exact = view.exact
        best: str | None
        value: str | None
        if exact:
            best = max(exact, key=lambda move: exact[move].rank())
            value, how = exact[best].text, "exact"
        else:
            best, value, how = view.best, view.score_text, SETTINGS.describe()
        shown = None if best is None else shown_move(job.state, best)
        done: AnalysisPayload = {"game_id": game_id, "ply": job.ply, "status": "done", "best": best,
                                 "best_shown": shown, "value": value, "how": how}
        self.emit("analysis", done, to=game_id)

    def _on_event(self, game_id: str, job: SearchJob, info: dict[str, Any]) -> None:
        """The runner's handler of the review searches of ``game_id``: keep each position's findings; when all
        are in, judge the moves, store the review and send it to the game's room. A progress is stored and sent
        with the lock held, so that it cannot follow a cancel's "cancelled"."""
        kind = info["kind"]
        if kind not in ("final", "failed"):
            return
        with self._lock:
            run = self._runs.get(game_id)
            if run is None:
                return
            if kind == "failed":
                del self._runs[game_id]
            else:
                run.views[job.ply] = PositionView.from_dict(info["view"])
                finished = len(run.views) == len(run.positions)
                if finished:
                    del self._runs[game_id]
                else:
                    self.store.reviews.save(game_id, "running")
                    self.emit("review", self._progress(game_id, run), to=game_id)
        if kind == "failed":
            for index in range(len(run.positions)):
                self.runner.cancel(_review_key(game_id, index), "review failed")
            self.store.reviews.save(game_id, "failed")
            failed: ReviewStatus = {"game_id": game_id, "status": "failed", "message": info.get("message")}
            self.emit("review", failed, to=game_id)
        elif finished:
            result = self._judge(run)
            self.store.reviews.save(game_id, "done", dict(result))
            self.emit("review", _done(game_id, result), to=game_id)

    @staticmethod
    def _progress(game_id: str, run: _Run, status: str = "running") -> ReviewStatus:
        return {"game_id": game_id, "status": status, "done": len(run.views), "total": len(run.positions)}

    @staticmethod
    def _judge(run: _Run) -> ReviewResult:
        views = [run.views[index] for index in range(len(run.positions))]
        verdicts = verdicts_from(run.positions, run.moves, views)
        game = run.positions[0].name
        return {"game": game, "verdicts": [verdict.to_dict() for verdict in verdicts], "settings": settings_of(game)}
