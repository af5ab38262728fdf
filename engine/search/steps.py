"""Recording every node an alpha-beta search visits, in the order it visits them, for the search stepper.

A searcher records only when it is given a ``StepRecorder`` (``record_steps``); without one its hot loop pays one
``is None`` test per hook. The recorder keeps one row per node, in visit order, as columns (``StepRecord``):

- where the node is: ``ply`` (plies below the root; a node's parent is the last earlier node one ply up), ``move``
  (the move that led to it, in the game's notation; "pass" for a null move), ``index`` (that move's place in the
  parent's ordered list, -1 for the root and a pass) and ``kind`` (how the parent searched it, ``KINDS``);
- what it entered with: the window ``alpha`` and ``beta`` (beyond ``±WIN``: infinite) and the remaining ``depth``;
- what it did: the transposition-table probe (``tt``, ``PROBES``; ``tt_entry`` holds the depth, -1 for proven, and
  the bounds of a hit), its moves in the order tried, each with the number of its reason in ``reasons`` (``order``:
  ``[move, reason]`` pairs), moves left out without a search (``skipped``, with why: ``skip_reason``, ``SKIPS``),
  for a cut-off, the index of the move that caused it (``cut``), and whether it searched a ply shallower than it
  entered with (``shallower``: the rows of the nodes whose table had no move to try first, internal iterative
  reduction; their ``depth`` is the depth searched);
- what it returned: ``value`` (fail-soft, for the side to move at the node), its ``bound`` against the window it
  entered with (``BOUNDS``) and where the value came from (``source``, ``SOURCES``).

``order``, ``skipped``, ``skip_reason``, ``cut`` and ``tt_entry`` are sparse: keyed by the node's number as a string
(JSON keys).
Scores keep the searcher's convention: a decided score is ``±(WIN - plies from the root)``.
"""

from __future__ import annotations

from typing import Any, TypedDict

STEP_LIMIT = 50_000
"""Most nodes a recorded search may visit: a larger one is stopped and reported too large, not recorded."""

KINDS = {
    "R": "the root of an iteration",
    "F": "searched with the full window",
    "P": "a null-window probe: does the move beat the best so far?",
    "S": "re-searched with the full window: the probe found the move better",
    "L": "a reduced probe (late move reduction): searched one ply shallower first",
    "N": "the null move: the side to move passes, to see whether the position is strong enough anyway",
    "Q": "a capture of the quiescence search, past the horizon",
}
"""How a node was searched, by its ``kind`` letter."""

PROBES = {
    "-": "no table probe",
    "m": "table miss: the position was not stored",
    "o": "table hit, used only to order: its move is tried first (stored too shallow, or its bounds decide nothing)",
    "n": "table hit that narrowed the window to its stored bounds",
    "c": "table hit that cut: its stored value answers this window, no move searched",
}
"""What the transposition-table probe gave, by its ``tt`` letter."""

SOURCES = {
    "s": "its moves were searched",
    "e": "the game is over here",
    "h": "the horizon: the evaluation function's estimate",
    "t": "the transposition table",
    "b": "the bounds: mate distance or the game's rules decide the window",
    "p": "the null move failed high: passing already refutes the window",
    "f": "futility: the static score is so far above the window that searching cannot bring it back",
    "r": "a draw by repetition or the fifty-move rule",
    "q": "stand pat: the static score already reaches the window, or no capture improves it",
    "g": "an endgame table: the exact distance to mate (or a draw)",
    "x": "the search was stopped inside this node",
}
"""Where a node's value came from, by its ``source`` letter."""

SKIPS = {
    "w": "each hands the opponent a win at once",
    "l": ("quiet moves this close to the horizon and this late in the order: not expected to raise alpha (late move "
          "pruning)"),
}
"""Why a node's ``skipped`` moves were left out, by its ``skip_reason`` letter."""

BOUNDS = {
    "e": "exact: inside the window",
    "l": "a lower bound: it reached beta (fail high), the true value is at least this",
    "u": "an upper bound: it fell to alpha or below (fail low), the true value is at most this",
}
"""What a node's value says about its true value, by its ``bound`` letter (the fail-soft contract)."""


class StepRecord(TypedDict):
    """A recorded search (see the module docstring); ``nodes`` is the number of rows."""

    nodes: int
    ply: list[int]
    move: list[str]
    index: list[int]
    kind: str
    alpha: list[int]
    beta: list[int]
    depth: list[int]
    tt: str
    tt_entry: dict[str, list[int]]
    order: dict[str, list[list[str | int]]]
    reasons: list[str]
    skipped: dict[str, list[str]]
    skip_reason: dict[str, str]
    cut: dict[str, int]
    shallower: list[int]
    value: list[int | None]
    bound: str
    source: str


def legend() -> dict[str, dict[str, str]]:
    """What each letter of a record's ``kind``, ``tt``, ``source`` and ``bound`` columns and of its ``skip_reason``
    means."""
    return {"kind": KINDS, "tt": PROBES, "source": SOURCES, "bound": BOUNDS, "skip": SKIPS}


class StepRecorder:
    """Collects the rows of one search; the searcher calls ``child`` then ``enter`` for each node, the other
    methods for the node entered last and not yet left, and ``leave`` when it returns."""

    def __init__(self) -> None:
        self.ply: list[int] = []
        self.move: list[Any] = []
        self.index: list[int] = []
        self.kind: list[str] = []
        self.alpha: list[int] = []
        self.beta: list[int] = []
        self.depth: list[int] = []
        self.tt: list[str] = []
        self.tt_entry: dict[str, list[int]] = {}
        self.order: dict[str, list[list[Any]]] = {}
        self.reasons: list[str] = []
        self._reason_ids: dict[str, int] = {}
        self.skipped: dict[str, list[Any]] = {}
        self.skip_reason: dict[str, str] = {}
        self.cut: dict[str, int] = {}
        self.shallower_rows: list[int] = []
        self.value: list[int | None] = []
        self.bound: list[str] = []
        self.source: list[str] = []
        self._stack: list[int] = []
        self._next: tuple[int, str, Any] = (-1, "R", "")

    @property
    def nodes(self) -> int:
        """Rows recorded so far."""
        return len(self.ply)

    def child(self, index: int, kind: str, move: Any) -> None:
        """The next ``enter`` is ``move``, the ``index``-th of the current node's order, searched as ``kind``."""
        self._next = (index, kind, move)

    def root(self) -> None:
        """The next ``enter`` is the root of an iteration."""
        self._next = (-1, "R", "")

    def enter(self, alpha: int, beta: int, depth: int) -> None:
        """A node is visited with the window ``(alpha, beta)`` and ``depth`` plies left."""
        index, kind, move = self._next
        self._next = (-1, "F", "")
        self._stack.append(len(self.ply))
        self.ply.append(len(self._stack) - 1)
        self.move.append(move)
        self.index.append(index)
        self.kind.append(kind)
        self.alpha.append(alpha)
        self.beta.append(beta)
        self.depth.append(depth)
        self.tt.append("-")
        self.value.append(None)
        self.bound.append("e")
        self.source.append("x")

    def probe(self, outcome: str, depth: int = 0, lower: int = 0, upper: int = 0) -> None:
        """The current node's table probe: ``outcome`` (a ``PROBES`` letter) and, for a hit, the stored entry."""
        node = self._stack[-1]
        self.tt[node] = outcome
        if outcome != "m":
            self.tt_entry[str(node)] = [depth, lower, upper]

    def ordered(self, moves: list[Any], reasons: list[str]) -> None:
        """The current node's moves in the order they will be tried, each with why it is there."""
        ids = self._reason_ids
        rows = []
        for move, reason in zip(moves, reasons, strict=True):
            number = ids.get(reason)
            if number is None:
                number = ids[reason] = len(self.reasons)
                self.reasons.append(reason)
            rows.append([move, number])
        self.order[str(self._stack[-1])] = rows

    def skip(self, moves: list[Any], reason: str = "w") -> None:
        """Moves of the current node left out without a search, and why (a ``SKIPS`` letter)."""
        if moves:
            node = str(self._stack[-1])
            self.skipped[node] = list(moves)
            self.skip_reason[node] = reason

    def shallower(self) -> None:
        """The current node searches a ply shallower than it was entered with (its table had no move to try first)."""
        node = self._stack[-1]
        self.depth[node] -= 1
        self.shallower_rows.append(node)

    def cutoff(self, index: int) -> None:
        """The current node's ``index``-th move reached beta: the rest are not searched."""
        self.cut[str(self._stack[-1])] = index

    def answer(self, source: str) -> None:
        """Where the current node's value comes from (a ``SOURCES`` letter; "s" is set by ``leave`` when no
        other was given)."""
        self.source[self._stack[-1]] = source

    def leave(self, value: int) -> None:
        """The current node returns ``value``."""
        node = self._stack.pop()
        self.value[node] = value
        if self.source[node] == "x":
            self.source[node] = "s"
        self.bound[node] = "u" if value <= self.alpha[node] else "l" if value >= self.beta[node] else "e"

    def result(self) -> StepRecord:
        """The record so far (nodes left unfinished by a stop keep value None and source "x")."""
        return {"nodes": self.nodes, "ply": self.ply, "move": self.move, "index": self.index,
                "kind": "".join(self.kind), "alpha": self.alpha, "beta": self.beta, "depth": self.depth,
                "tt": "".join(self.tt), "tt_entry": self.tt_entry, "order": self.order, "reasons": self.reasons,
                "skipped": self.skipped, "skip_reason": self.skip_reason, "cut": self.cut,
                "shallower": self.shallower_rows, "value": self.value, "bound": "".join(self.bound),
                "source": "".join(self.source)}


class OrderingQuality(TypedDict):
    """How well a recorded search ordered its moves (``ordering_quality``)."""

    cutoffs: int
    first_move_cutoffs: int
    branching: float
    depth: int
    last_pass_nodes: int
    minimal_tree: int


def minimal_tree(branching: float, depth: int) -> int:
    """Nodes of the minimal tree alpha-beta searches with perfect ordering in a uniform tree of ``branching`` moves
    per node to ``depth`` (Knuth and Moore, 1975): ``b^ceil(k/2) + b^floor(k/2) - 1`` nodes at each ply ``k``."""
    return round(sum(branching ** ((k + 1) // 2) + branching ** (k // 2) - 1 for k in range(depth + 1)))


def ordering_quality(record: StepRecord) -> OrderingQuality:
    """The share of cut-offs the first move made, and the last pass over the root (its depth and nodes) beside the
    minimal tree of a uniform tree with the record's mean number of moves per searched node at that depth."""
    cuts = record["cut"]
    sizes = [len(rows) for node, rows in record["order"].items() if record["kind"][int(node)] != "Q" and rows]
    branching = sum(sizes) / len(sizes) if sizes else 0.0
    last_root = record["kind"].rfind("R")
    depth = record["depth"][last_root] if last_root >= 0 else 0
    return {"cutoffs": len(cuts), "first_move_cutoffs": sum(1 for index in cuts.values() if index == 0),
            "branching": round(branching, 2), "depth": depth, "last_pass_nodes": record["nodes"] - max(last_root, 0),
            "minimal_tree": minimal_tree(branching, depth)}


def entry_step(record: StepRecord, node: int) -> int:
    """The 1-based step at which the stepper enters row ``node`` of ``record``: every row is one step when entered
    and one when it returns, after the rows below it."""
    open_rows = 0
    step = 0
    for ply in record["ply"][:node + 1]:
        step += open_rows - ply + 1  # the returns of the rows closed by this one, then its entry
        open_rows = ply + 1
    return step
