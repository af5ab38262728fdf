"""What a search reports and what bounds it: ``SearchInfo`` events, ``RootMove`` rows, ``Limits``, ``SearchOptions``.

Every searcher (alpha-beta, minimax, MCTS) yields the same ``SearchInfo`` events from ``search()``: one per
completed depth (``kind="depth"``), about every 100 ms during a long depth (``kind="progress"``), and exactly one
last event with ``final=True`` (``kind="final"``). Counters are totals since the search started and never
decrease; an alpha-beta event's ``depth``, ``score``, ``best``, ``pv``, ``root_moves`` and ``ebf`` describe the last
completed depth (a progress event's only its counters run on; a final event after a stop keeps a better move the
unfinished depth proved, with its score in the headline and its row). Moves are in the game's move notation
(``state.move_text``), so events are JSON-able and picklable.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any, Literal, NotRequired, TypedDict, cast

from engine.game import describe_score

Algorithm = Literal["alphabeta", "minimax", "mcts"]
EventKind = Literal["progress", "depth", "final"]


@dataclass(frozen=True, slots=True)
class Limits:
    """When a search must stop: at ``depth`` plies, after ``time`` seconds, or after ``nodes`` nodes.

    None means no limit of that kind. With no limit at all, alpha-beta searches until the game's value is
    proven (or until the stop flag is set). For MCTS, ``nodes`` counts playouts (iterations).
    """

    depth: int | None = None
    time: float | None = None
    nodes: int | None = None


@dataclass(frozen=True, slots=True)
class SearchOptions:
    """Which techniques a search uses; every one can be switched off so the same code serves the comparison."""

    algorithm: Algorithm = "alphabeta"
    alphabeta: bool = True
    pvs: bool = True
    iterative: bool = True
    tt: bool = True
    tt_size: int = 1 << 20
    ordering: bool = True
    killers: bool = True
    history: bool = True
    aspiration: bool = True
    quiescence: bool = True
    null_move: bool = True
    lmr: bool = True
    check_extension: bool = True
    bounds: bool = True
    """Mate-distance pruning and the game's rule-based hints (``score_bounds``, ``non_losing_moves``)."""
    record_tree: int = 0
    """When positive, record the search tree (at most this many nodes) and attach it to the final event."""
    exploration: float = 1.41
    """UCT exploration constant for MCTS."""
    seed: int | None = None
    """Seed of the random choices (MCTS playouts); None for a fresh seed."""
    root_margin: int = 0
    """Root moves scoring within this margin of the best get exact scores (level play picks among them)."""
    root_lines: bool = False
    """With ``root_margin``, every root move with an exact score also gets its own line (``RootMove.pv``): the
    several lines of an analysis (multi-PV)."""
    personality: str | None = None
    """An evaluation style the game offers (its state class's ``personalities``, e.g. chess: balanced, aggressive,
    solid), used by its alpha-beta searcher; None for the game's default. Games without any refuse one."""


@dataclass(frozen=True, slots=True)
class RootMove:
    """One candidate move at the root: its score (None if not searched yet) and the nodes spent on it.

    For MCTS, ``visits`` and ``value`` (mean result in [-1, 1] for the side to move) are filled too; for a move
    of the opening book (``source`` "book"), ``visits`` is the number of book lines through it.
    """

    move: str
    score: int | None
    nodes: int = 0
    visits: int | None = None
    value: float | None = None
    bound: str | None = None
    """How far ``score`` is to be trusted: "exact", "upper" (the move is worth at most this; it was refuted by
    a cutoff), "lower" (at least this), or None when there is no score."""
    text: str | None = None
    """``move`` in the notation people read (chess: SAN) when the game has one that differs; else None."""
    pv: list[str] | None = None
    """The line the search expects after this move, the move first, when the search keeps one per root move
    (``SearchOptions.root_lines``) and the score is exact; else None."""
    pv_text: list[str] | None = None
    """``pv`` in the notation people read (chess: SAN) when the game has one that differs; else None."""


@dataclass(frozen=True, slots=True)
class SearchInfo:
    """One report from a running search. See the module docstring for when each kind is sent."""

    kind: EventKind
    algorithm: Algorithm
    depth: int
    seldepth: int
    nodes: int
    qnodes: int
    cutoffs: int
    pruned: int
    generated: int
    """Moves generated at interior nodes (quiescence included); ``pruned`` counts those of them never searched
    (skipped after a cutoff, or by a pruning rule), so ``pruned <= generated`` and ``pruned / generated`` is the
    share of moves never searched."""
    tt_probes: int
    tt_hits: int
    time_ms: float
    nps: int
    score: int | None
    score_text: str
    pv: list[str]
    best: str | None
    root_moves: list[RootMove]
    ebf: float | None
    final: bool
    nodes_per_depth: list[int] = field(default_factory=list)
    """Nodes spent on each completed iteration, index 0 = depth 1."""
    tree: dict[str, Any] | None = None
    """The recorded search tree, only when ``record_tree`` was set: on a "depth" event the tree of that iteration,
    on the final event the tree of the last completed one."""
    source: str = "search"
    """Where the move comes from: "search", "book" (opening book) or "table" (solved table)."""
    pv_text: list[str] | None = None
    """``pv`` in the notation people read (chess: SAN) when the game has one that differs; else None."""
    building: dict[str, Any] | None = None
    """While an oracle prepares before any search (a solved table built on first use), what it does and how far it
    is: ``{"what", "stage", "done", "total"}`` (``total`` None when not known); None otherwise."""
    search_best: str | None = None
    """The search's own best move when a level played another on purpose (its randomness): ``best`` is then the
    move played, with its own ``score``, ``score_text`` and ``pv``; None when ``best`` is the search's choice."""
    score_scale: int = 1
    """Score units per point of the game's heuristic (its state class's ``score_scale``: 100 for chess's
    centipawns, else 1), as ``score_text`` and each root move's ``score_text`` are written."""
    proven: bool = False
    """The score is the game's value, whatever the depth: no heuristic evaluation took part in the last completed
    iteration (alpha-beta stops deepening there), or it was read from a solved table or found by the solver; False
    when not known."""
    table_size: int | None = None
    """For a move read from a solved table (``source`` "table"): how many positions the table holds; else None."""
    book_hits: int = 0
    """Positions whose value an opening book gave inside the search (Connect Four's solver, at 12 stones)."""

    def to_dict(self) -> SearchInfoDict:
        """JSON-able form of the event (dataclass fields as a dict); each root move also has its ``score_text``
        (``engine.game.describe_score`` of its score in ``score_scale``; None without a score)."""
        data = cast("SearchInfoDict", asdict(self))
        for root_move in data["root_moves"]:
            score = root_move["score"]
            root_move["score_text"] = None if score is None else describe_score(score, self.score_scale)
        return data


class RootMoveDict(TypedDict):
    """``RootMove`` as JSON."""

    move: str
    score: int | None
    nodes: int
    visits: int | None
    value: float | None
    bound: str | None
    text: str | None
    pv: list[str] | None
    pv_text: list[str] | None
    score_text: NotRequired[str | None]
    """Added by ``SearchInfo.to_dict``: the text of ``score``, as the event's own ``score_text`` is written."""


class SearchInfoDict(TypedDict):
    """``SearchInfo`` as JSON (``to_dict``), its fields documented there. ``tree`` is always in ``to_dict()``; a
    relay may leave it out (the web app streams "depth" events without their trees) and stamp the event with the
    wall-clock time it sent it (``sent_at``)."""

    kind: EventKind
    algorithm: Algorithm
    depth: int
    seldepth: int
    nodes: int
    qnodes: int
    cutoffs: int
    pruned: int
    generated: int
    tt_probes: int
    tt_hits: int
    time_ms: float
    nps: int
    score: int | None
    score_text: str
    pv: list[str]
    best: str | None
    root_moves: list[RootMoveDict]
    ebf: float | None
    final: bool
    nodes_per_depth: list[int]
    tree: NotRequired[dict[str, Any] | None]
    source: str
    pv_text: list[str] | None
    building: dict[str, Any] | None
    search_best: str | None
    score_scale: int
    proven: bool
    table_size: int | None
    book_hits: int
    sent_at: NotRequired[float]
