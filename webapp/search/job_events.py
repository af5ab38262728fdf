"""The events a search job sends from where it runs (``webapp.search.execution.run_job``), as their JSON is typed.

Each event is stamped with ``sent_at`` (the wall-clock time it left the worker) on its way out. A job sends
"started", then the engine's "progress" and "depth" events (``engine.search.info.SearchInfoDict``; a "depth" event
without its tree, which is kept for the final event's ``iterations``), and one "final" or "failed". A review or
hints job sends an ``AnalysisEvent`` as its "final". The runners add "queued" and "cancelled" of their own
(``webapp.search.jobs``).
"""

from __future__ import annotations

from typing import Any, Literal, NotRequired, TypedDict

from engine.hints import MoveHints
from engine.search.info import SearchInfoDict


class StartedEvent(TypedDict):
    """The job began on a worker, with these ``engine`` settings (``SearchJob.engine``) and their label
    (``webapp.display.engine_label``)."""

    kind: Literal["started"]
    engine: dict[str, Any]
    engine_label: str
    sent_at: NotRequired[float]


class FailedEvent(TypedDict):
    """The search raised; ``message`` says what."""

    kind: Literal["failed"]
    message: str
    sent_at: NotRequired[float]


class Iteration(TypedDict):
    """What a final event keeps of one completed depth: a summary of its "depth" event, with that depth's tree."""

    depth: int
    seldepth: int
    best: str | None
    score: int | None
    score_text: str
    pv: list[str]
    pv_text: list[str] | None
    nodes: int
    time_ms: float
    tree: dict[str, Any] | None


class FinalEvent(SearchInfoDict):
    """The engine's final event with the job's ``engine`` settings and their label, ``truth``
    (``engine.truth.live_truth``) and its ``iterations``, in order."""

    iterations: list[Iteration]
    engine: dict[str, Any]
    engine_label: str
    truth: dict[str, dict[str, Any]] | None


class AnalysisEvent(TypedDict):
    """The "final" of a review job (``view``: ``engine.review.PositionView.to_dict()``), of a hints job
    (``hints``: ``engine.hints.move_hints``), of an analysis board's truth job (``hints``:
    ``engine.hints.exact_hints``, None when the values are not known) or of an every-move job (``every_move``: the
    final event of ``engine.search.every_move.score_every_move``)."""

    kind: Literal["final"]
    view: NotRequired[dict[str, Any]]
    hints: NotRequired[MoveHints | None]
    every_move: NotRequired[SearchInfoDict]
    steps: NotRequired[dict[str, Any]]
    sent_at: NotRequired[float]


JobEvent = StartedEvent | SearchInfoDict | FinalEvent | AnalysisEvent | FailedEvent
"""Any event ``run_job`` sends."""
