"""The counters every searcher reports are correct by construction: on random positions of every game, for every
algorithm, each event keeps the invariants ``SearchInfo`` documents."""

from __future__ import annotations

import random

import pytest

from engine.games import new_game
from engine.search import make_searcher
from engine.search.info import Limits, SearchInfo, SearchOptions

pytestmark = pytest.mark.engine

GAMES = {"tictactoe": {}, "nim": {"piles": [3, 4, 5]}, "connect4": {}, "wolves": {}, "chess": {}}
SEARCHES = {"alphabeta": Limits(depth=3), "minimax": Limits(depth=2), "mcts": Limits(nodes=200)}
CHESS_PLAYOUTS = 5
"""A chess playout runs to the end of a random game: a few suffice to check the counters."""


def random_positions(game: str, count: int, seed: int) -> list:
    """``count`` unfinished positions reached by random play from the start (the start included)."""
    rng = random.Random(seed)
    positions = []
    while len(positions) < count:
        state = new_game(game, **GAMES[game])
        for _ in range(rng.randrange(0, 12)):
            if state.outcome() is not None:
                break
            state = state.play(rng.choice(state.legal_moves()))
        if state.outcome() is None:
            positions.append(state)
    return positions


def check_counters(info: SearchInfo) -> None:
    assert 0 <= info.pruned <= info.generated, ("pruned", info.pruned, info.generated)
    assert 0 <= info.cutoffs <= info.nodes, ("cutoffs", info.cutoffs, info.nodes)
    assert 0 <= info.tt_hits <= info.tt_probes, ("tt", info.tt_hits, info.tt_probes)
    assert 0 <= info.qnodes <= info.nodes, ("qnodes", info.qnodes, info.nodes)
    assert sum(info.nodes_per_depth) <= info.nodes, ("nodes per depth", info.nodes_per_depth, info.nodes)
    assert info.ebf is None or info.ebf >= 1, ("ebf", info.ebf)
    assert info.depth >= 0 and info.seldepth >= 0


@pytest.mark.parametrize("algorithm", SEARCHES)
@pytest.mark.parametrize("game", GAMES)
def test_every_event_keeps_the_counters_invariants(game: str, algorithm: str) -> None:
    for state in random_positions(game, 2, seed=sum(map(ord, game + algorithm))):
        limits = Limits(nodes=CHESS_PLAYOUTS) if (game, algorithm) == ("chess", "mcts") else SEARCHES[algorithm]
        events = list(make_searcher(state, limits, SearchOptions(algorithm=algorithm)).search())
        assert events[-1].final
        for info in events:
            check_counters(info)
        final = events[-1]
        if final.nodes_per_depth and algorithm != "mcts":
            assert final.nodes_per_depth[-1] > 0
