"""Minimax, alpha-beta and alpha-beta with TT and ordering agree on random reachable positions (hypothesis).

At a fixed depth the comparison turns off the rule-based ``bounds`` option (mate-distance pruning and the games'
``score_bounds`` / ``non_losing_moves``), since those give a depth-limited search the game's true value where
plain minimax sees only the heuristic; searched to the end, everything is on. In tic-tac-toe and Connect Four a
position always occurs at the same ply, so the transposition table (which reuses deeper results) cannot change
a fixed-depth value; in Nim it can (the same piles come at different plies), so Nim with the TT is compared
searched to the end, and at fixed depth without it.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.game import State
from engine.games.connect4 import Connect4
from engine.games.nim import Nim
from engine.games.tictactoe import TicTacToe
from engine.search import analyse
from engine.search.info import Limits, SearchOptions

pytestmark = pytest.mark.engine

MINIMAX = SearchOptions(algorithm="minimax", iterative=False)
BARE = SearchOptions(iterative=False, tt=False, ordering=False, pvs=False, aspiration=False, lmr=False,
                     null_move=False, bounds=False)
FULL_AT_DEPTH = SearchOptions(lmr=False, null_move=False, bounds=False)

choices = st.lists(st.integers(min_value=0, max_value=1_000), max_size=12)


def reachable(state: State, picks: list[int], most: int) -> State:
    """The position after playing, from ``state``, the moves picked (index modulo the legal moves)."""
    for pick in picks[:most]:
        moves = state.legal_moves()
        if not moves:
            break
        state = state.play(moves[pick % len(moves)])
    return state


def values(state: State, depth: int | None, *option_sets: SearchOptions) -> list[int]:
    return [analyse(state, Limits(depth=depth), options).score for options in option_sets]


@settings(max_examples=60, deadline=None)
@given(picks=choices, depth=st.integers(min_value=1, max_value=4))
def test_tictactoe_same_value_at_the_same_depth(picks: list[int], depth: int) -> None:
    state = reachable(TicTacToe(), picks, 7)
    minimax, bare, full = values(state, depth, MINIMAX, BARE, FULL_AT_DEPTH)
    assert minimax == bare == full


@settings(max_examples=30, deadline=None)
@given(picks=choices)
def test_tictactoe_same_value_to_the_end_with_everything_on(picks: list[int]) -> None:
    state = reachable(TicTacToe(), picks, 8)
    minimax, full = values(state, None, MINIMAX, SearchOptions())
    assert minimax == full


nim_positions = st.lists(st.integers(min_value=0, max_value=4), min_size=1, max_size=3).filter(
    lambda piles: sum(piles) <= 7)


@settings(max_examples=40, deadline=None)
@given(piles=nim_positions, max_take=st.sampled_from([None, 2, 3]), misere=st.booleans(),
       depth=st.integers(min_value=1, max_value=5))
def test_nim_same_value(piles: list[int], max_take: int | None, misere: bool, depth: int) -> None:
    state = Nim(tuple(piles), max_take, misere)
    assert values(state, depth, MINIMAX)[0] == values(state, depth, BARE)[0]
    exact = values(state, None, MINIMAX, BARE, SearchOptions(iterative=False), SearchOptions())
    assert len(set(exact)) == 1


@settings(max_examples=25, deadline=None)
@given(picks=choices, depth=st.integers(min_value=1, max_value=3))
def test_connect4_same_value_at_the_same_depth(picks: list[int], depth: int) -> None:
    state = reachable(Connect4.initial(), picks, 12)
    minimax, bare, full = values(state, depth, MINIMAX, BARE, FULL_AT_DEPTH)
    assert minimax == bare == full
