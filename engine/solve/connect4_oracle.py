"""The Connect Four oracle: exact play from the exact solver once few enough cells are empty.

Registered in ``engine.oracles`` so that ``engine.player.think`` plays perfect endgames. Solving every legal move
of a position, compiled (``bench/connect4_exact_by_ply.py``, 20 positions per ply from Pons' Begin-Medium and
Middle-Medium lines, docs/compiled.md): at 24 empty cells a median of 7 ms and a 95th percentile of 39 ms; at 32
empty, 15 of 20 within 0.5 s. So from ``SOLVER_EMPTY`` empty cells down, levels ``SOLVER_LEVEL`` and up take the
exact move instead of searching; level ``ATTEMPT_LEVEL`` also tries from ``ATTEMPT_EMPTY`` empty cells, giving the
solver ``ATTEMPT_SECONDS``, and plays the solver's move whenever it is proven in that time; when it is not, the
oracle answers None and the ordinary search plays.
"""
from __future__ import annotations

import time

from engine.game import describe_score
from engine.games.connect4 import CELLS, Connect4
from engine.search.info import RootMove, SearchInfo
from engine.solve.connect4 import Solver, SolveTimeout, pons_to_engine
from engine.solve.solver_pool import SOLVERS

SOLVER_EMPTY = 24
"""The oracle answers when at most this many cells are empty."""
SOLVER_LEVEL = 7
"""The weakest level that plays exact endgames; lower levels keep their search and randomness."""
ATTEMPT_EMPTY = 32
"""Up to this many empty cells, the strongest level tries the solver within ``ATTEMPT_SECONDS``."""
ATTEMPT_SECONDS = 0.5
ATTEMPT_LEVEL = 8


def move_scores(state: Connect4, solver: Solver, deadline: float | None = None,
                weak: bool = False) -> list[tuple[int, int, int]]:
    """``(pons_score, move, nodes)`` of every legal move of ``state``, best first (ties: centre first).

    Pons' score of a move is minus the score of the position it leads to (his scores count the winner's stones
    at the end, so they do not depend on the ply); a move that wins at once scores ``(43 - stones) // 2``. With
    ``weak``, only the signs of the solved moves' scores are exact (a move that wins at once keeps its score, as in
    Pons' ``analyze``). Raises ``SolveTimeout`` when ``deadline`` (a ``time.perf_counter()`` value) passes first.
    """
    scored = []
    for move in state.legal_moves():
        child = state.play(move)
        outcome = child.outcome()
        if outcome is not None:
            score = 0 if outcome.winner is None else (CELLS + 1 - state.moves) // 2
            scored.append((score, move, 0))
            continue
        score = -solver.solve(child, weak=weak, deadline=deadline)
        scored.append((score, move, solver.nodes))
    scored.sort(key=lambda entry: entry[0], reverse=True)  # stable: legal_moves is centre first
    return scored


def principal_variation(state: Connect4, solver: Solver, deadline: float | None = None) -> list[int]:
    """A line of perfect play from ``state`` to the end of the game (``solver``'s table speeds it up), cut
    short where ``deadline`` passes."""
    line = []
    while state.outcome() is None:
        try:
            move = move_scores(state, solver, deadline)[0][1]
        except SolveTimeout:
            break
        line.append(move)
        state = state.play(move)
    return line


def describe_level(level: int) -> str | None:
    """What the exact solver does at ``level``, in words for the level picker, or None when the level only
    searches."""
    if level >= ATTEMPT_LEVEL:
        return (f"plays perfectly from the exact solver once at most {ATTEMPT_EMPTY} cells are empty (if it finishes "
                f"within {ATTEMPT_SECONDS:g} s; at {SOLVER_EMPTY} always), and searches before that")
    if level >= SOLVER_LEVEL:
        return f"plays perfectly from the exact solver once at most {SOLVER_EMPTY} cells are empty, and searches before"
    return None


def connect4_oracle(state: Connect4, level: int | None) -> SearchInfo | None:
    """The exact best move as a final ``SearchInfo`` (``source="solver"``), or None.

    None when the game is over, no level is given (a custom search shows the search that was asked for), ``level``
    is below ``SOLVER_LEVEL``, more than ``SOLVER_EMPTY`` cells are empty (``ATTEMPT_EMPTY`` at ``ATTEMPT_LEVEL``),
    or the attempt ran out of time. Otherwise
    ``score`` is exact in the engine's ``WIN - plies`` convention, ``root_moves`` holds the exact score of every
    legal move (bound "exact"), ``pv`` is a line of perfect play (to the end of the game unless an attempt's time
    ran out first) and ``nodes`` counts the solver's negamax calls.
    """
    if level is None or level < SOLVER_LEVEL or state.outcome() is not None:
        return None
    empty = CELLS - state.moves
    started = time.perf_counter()
    deadline = None
    if empty > SOLVER_EMPTY:
        if empty > ATTEMPT_EMPTY or level < ATTEMPT_LEVEL:
            return None
        deadline = started + ATTEMPT_SECONDS
    with SOLVERS.borrow() as solver:
        try:
            scored = move_scores(state, solver, deadline)
        except SolveTimeout:
            return None
        best_score, best_move, _ = scored[0]
        pv = [best_move, *principal_variation(state.play(best_move), solver, deadline)]
    nodes = sum(entry[2] for entry in scored)
    score = pons_to_engine(best_score, state.moves)
    elapsed = (time.perf_counter() - started) * 1000
    root_moves = [
        RootMove(state.move_text(move), pons_to_engine(pons, state.moves), move_nodes, bound="exact")
        for pons, move, move_nodes in scored
    ]
    return SearchInfo(
        kind="final", algorithm="alphabeta", depth=len(pv), seldepth=len(pv), nodes=nodes, qnodes=0, cutoffs=0,
        pruned=0, generated=len(scored), tt_probes=0, tt_hits=0, time_ms=elapsed,
        nps=int(nodes / elapsed * 1000) if elapsed else 0, score=score,
        score_text=describe_score(score, Connect4.score_scale), pv=[state.move_text(m) for m in pv],
        best=state.move_text(best_move), root_moves=root_moves, ebf=None, final=True, source="solver",
        score_scale=Connect4.score_scale,
    )
