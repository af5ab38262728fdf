"""The Connect Four oracle: exact play from the exact solver.

Registered in ``engine.oracles`` so that ``engine.player.think`` plays perfectly. The solver searches down to the
opening book (12 stones, ``engine.solve.connect4_book``) or to the end of the game; scoring every legal move of a
position, compiled (``bench/connect4_exact_by_ply.py``, 200 positions per ply from Pons' Begin-Medium and
Middle-Medium lines, docs/compiled.md) takes at most 143 ms up to 11 stones, and is hardest just past the book: at
12 and 13 stones a median of 70 and 41 ms, 95th percentiles of 527 and 250 ms, at most 1.8 and 2.1 s; from 24 empty
cells down at most 56 ms. So level ``ATTEMPT_LEVEL`` plays the solver's move in every position, giving it
``ATTEMPT_SECONDS`` (no position sampled came near; when one does, the oracle answers None and the ordinary search
plays); from ``SOLVER_EMPTY`` empty cells down, levels ``SOLVER_LEVEL`` and up take the exact move without a limit.
"""
from __future__ import annotations

from collections.abc import Iterator

from engine.clock import SYSTEM_MONOTONIC, Deadline, Monotonic
from engine.game import describe_score
from engine.games.connect4 import CELLS, WIDTH, Connect4
from engine.search.info import RootMove, SearchInfo
from engine.solve.connect4 import Solver, SolveTimeout, pons_to_engine
from engine.solve.solver_pool import SOLVERS

SOLVER_EMPTY = 24
"""Levels ``SOLVER_LEVEL`` and up play the solver's move when at most this many cells are empty."""
SOLVER_LEVEL = 7
"""The weakest level that plays exact endgames; lower levels keep their search and randomness."""
ATTEMPT_LEVEL = 8
"""The level that plays the solver's move from the first move on, when it is proven within ``ATTEMPT_SECONDS``."""
ATTEMPT_SECONDS = 5.0


def scored_moves(state: Connect4, solver: Solver, deadline: Deadline | None = None,
                 weak: bool = False) -> Iterator[tuple[int, int, int]]:
    """``(pons_score, move, nodes)`` of each legal move of ``state`` as soon as it is proven, centre first (the
    solver's ``book_hits`` are then those of that move's proof).

    Pons' score of a move is minus the score of the position it leads to (his scores count the winner's stones
    at the end, so they do not depend on the ply); a move that wins at once scores ``(43 - stones) // 2``. With
    ``weak``, only the signs of the solved moves' scores are exact (a move that wins at once keeps its score, as in
    Pons' ``analyze``). A position that is its own mirror image (the empty board, say) solves one of each pair of
    mirrored moves and gives the other the same score (its ``nodes`` 0). Raises ``SolveTimeout`` when ``deadline``
    passes first.
    """
    symmetric = state.position == state.mirror_position and state.mask == state.mirror_mask
    found: dict[int, int] = {}
    for move in state.legal_moves():
        if symmetric and WIDTH - 1 - move in found:
            yield found[WIDTH - 1 - move], move, 0
            continue
        child = state.play(move)
        outcome = child.outcome()
        if outcome is not None:
            yield 0 if outcome.winner is None else (CELLS + 1 - state.moves) // 2, move, 0
            continue
        score = -solver.solve(child, weak=weak, deadline=deadline)
        found[move] = score
        yield score, move, solver.nodes


def move_scores(state: Connect4, solver: Solver, deadline: Deadline | None = None,
                weak: bool = False) -> list[tuple[int, int, int]]:
    """``scored_moves``, all of them, best first (ties: centre first)."""
    # sorted is stable and legal_moves is centre first
    return sorted(scored_moves(state, solver, deadline, weak), key=lambda entry: entry[0], reverse=True)


def principal_variation(state: Connect4, solver: Solver, deadline: Deadline | None = None) -> list[int]:
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
        return (f"plays perfectly from the first move, from the exact solver and its opening book (searching only "
                f"if a proof took over {ATTEMPT_SECONDS:g} s)")
    if level >= SOLVER_LEVEL:
        return f"plays perfectly from the exact solver once at most {SOLVER_EMPTY} cells are empty, and searches before"
    return None


def connect4_answers(state: Connect4, level: int | None,
                     attempt_seconds: float | None = ATTEMPT_SECONDS, clock: Monotonic = SYSTEM_MONOTONIC,
                     ) -> Iterator[SearchInfo]:
    """The solver at work on ``state``: a "progress" event as each legal move is proven (its exact score among the
    root moves, the others still None, the nodes and time so far), then the exact best move as a final event
    (``source="solver"``); or nothing more than progress when it has nothing to say.

    Nothing to say when the game is over, no level is given (a custom search shows the search that was asked for),
    ``level`` is below ``SOLVER_LEVEL``, more than ``SOLVER_EMPTY`` cells are empty below ``ATTEMPT_LEVEL``, or the
    attempt ran out of time (``attempt_seconds`` on ``clock``; None gives it all the time it takes). The final's
    ``score`` is exact in the engine's ``WIN - plies`` convention, ``root_moves`` holds the exact score of every
    legal move (bound "exact"), ``pv`` is a line of perfect play (to the end of the game unless an attempt's time
    ran out first), ``depth`` its length and ``nodes`` counts the solver's negamax calls.
    """
    if level is None or level < SOLVER_LEVEL or state.outcome() is not None:
        return
    empty = CELLS - state.moves
    started = clock()
    deadline = None
    if level >= ATTEMPT_LEVEL:
        deadline = None if attempt_seconds is None else Deadline(started + attempt_seconds, clock)
    elif empty > SOLVER_EMPTY:
        return
    with SOLVERS.borrow() as solver:
        scored: list[tuple[int, int, int]] = []
        book_hits = 0
        try:
            for entry in scored_moves(state, solver, deadline):
                scored.append(entry)
                book_hits += solver.book_hits if entry[2] else 0
                if len(scored) < len(state.legal_moves()):
                    yield _solver_event(state, scored, [], (clock() - started) * 1000, book_hits)
            scored.sort(key=lambda entry: entry[0], reverse=True)
        except SolveTimeout:
            return
        best_move = scored[0][1]
        pv = [best_move, *principal_variation(state.play(best_move), solver, deadline)]
    yield _solver_event(state, scored, pv, (clock() - started) * 1000, book_hits)


def _solver_event(state: Connect4, scored: list[tuple[int, int, int]], pv: list[int], elapsed: float,
                  book_hits: int) -> SearchInfo:
    """A final event (with its line ``pv``, ``scored`` best first) or, without a line, a progress event of the moves
    ``scored`` so far (the rest listed without a score), after ``elapsed`` ms, with the positions the opening book
    answered (``book_hits``)."""
    nodes = sum(entry[2] for entry in scored)
    proven = {move: (pons, move_nodes) for pons, move, move_nodes in scored}
    final = bool(pv)
    order = [move for _, move, _ in scored] if final else state.legal_moves()
    root_moves = [RootMove(state.move_text(move), pons_to_engine(proven[move][0], state.moves), proven[move][1],
                           bound="exact") if move in proven else RootMove(state.move_text(move), None)
                  for move in order]
    score = pons_to_engine(scored[0][0], state.moves) if final else None
    return SearchInfo(
        kind="final" if final else "progress", algorithm="alphabeta", depth=len(pv), seldepth=len(pv), nodes=nodes,
        qnodes=0, cutoffs=0, pruned=0, generated=len(scored), tt_probes=0, tt_hits=0, time_ms=elapsed,
        nps=int(nodes / elapsed * 1000) if elapsed else 0, score=score,
        score_text="" if score is None else describe_score(score, Connect4.score_scale),
        pv=[state.move_text(m) for m in pv], best=state.move_text(pv[0]) if final else None, root_moves=root_moves,
        ebf=None, final=final, source="solver", score_scale=Connect4.score_scale, proven=final, book_hits=book_hits,
    )
