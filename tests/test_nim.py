"""Nim: rules, bad input, and the search against the theory for every configuration the engine promises.

Configurations: up to 4 piles of up to 7 counters (any take, normal and misère; takes of at most 1, 2 or 3, normal
play) and one pile of up to 30 with takes of at most 1-5 (normal and misère). One searcher per rule set is
reused through ``set_position``: the rules are fixed within a game, and the transposition table it keeps makes the
whole sweep fast. Each search runs to the end of the game (no depth limit), so its score is exact.
"""

from __future__ import annotations

from dataclasses import replace
from functools import reduce
from itertools import combinations_with_replacement
from operator import xor

import pytest

from engine.game import IllegalMoveError, InvalidSetupError, is_decided
from engine.games.nim import Nim, theory_loss
from engine.search import final_event
from engine.search.alphabeta import Searcher
from engine.search.info import SearchOptions
from engine.truth import move_values

pytestmark = pytest.mark.engine

EXACT = SearchOptions(iterative=False, tt_size=1 << 16)


def mover_loses(piles: tuple[int, ...], max_take: int | None, misere: bool) -> bool:
    """The theory of issue 2: whether the side to move loses with best play."""
    if max_take is not None:
        if len(piles) == 1:
            return piles[0] % (max_take + 1) == (1 if misere else 0)
        return reduce(xor, (n % (max_take + 1) for n in piles), 0) == 0
    if misere and all(n <= 1 for n in piles):
        return sum(piles) % 2 == 1
    return reduce(xor, piles, 0) == 0


def configurations(most_piles: int, largest: int) -> list[tuple[int, ...]]:
    return [piles for count in range(1, most_piles + 1)
            for piles in combinations_with_replacement(range(largest + 1), count)]


def check_against_theory(rules: list[tuple[int | None, bool]], all_piles: list[tuple[int, ...]]) -> int:
    checked = 0
    for max_take, misere in rules:
        searcher = Searcher(Nim(all_piles[0], max_take, misere), options=EXACT)
        for piles in all_piles:
            searcher.set_position(Nim(piles, max_take, misere))
            info = final_event(searcher.search())
            assert is_decided(info.score), (piles, max_take, misere, info.score)
            assert (info.score < 0) == mover_loses(piles, max_take, misere), (piles, max_take, misere, info.score)
            if info.score > 0 and any(piles):  # the move played keeps the win: the opponent is left lost
                after = Nim(piles, max_take, misere).play(Nim(piles).parse_move(info.best))
                assert mover_loses(after.piles, max_take, misere) or after.outcome() is not None
            checked += 1
    return checked


def test_up_to_four_piles_of_seven_with_any_take() -> None:
    assert check_against_theory([(None, False), (None, True)], configurations(4, 7)) == 2 * 494


def test_up_to_four_piles_of_seven_with_a_maximum_take() -> None:
    assert check_against_theory([(1, False), (2, False), (3, False)], configurations(4, 7)) == 3 * 494


def test_one_pile_up_to_thirty_with_takes_up_to_five() -> None:
    rules = [(k, misere) for k in range(1, 6) for misere in (False, True)]
    assert check_against_theory(rules, [(n,) for n in range(31)]) == 10 * 31


def test_the_seed_cases() -> None:
    four = final_event(Searcher(Nim.from_setup("4")).search())
    assert four.best == "1:4" and four.score_text == "win in 1"
    ten = final_event(Searcher(Nim.from_setup("10 max=3")).search())
    assert ten.best == "1:2" and ten.score_text == "win in 3"


def test_notation_round_trips() -> None:
    state = Nim.from_setup("3,4,5 max=3 misere next=2")
    assert state.setup() == "3,4,5 max=3 misere next=2"
    assert state.play(state.parse_move("2:3")).piles == (3, 1, 5)


@pytest.mark.parametrize(("text", "message"), [("", "empty Nim position"), ("3,x", "not a comma-separated"),
                                               ("3 maxi=2", "unknown word"), ("3,100", "a pile holds 0 to 99"),
                                               ("3 max=0", "max_take must be")])
def test_invalid_setups_say_what_is_wrong(text: str, message: str) -> None:
    with pytest.raises(InvalidSetupError, match=message):
        Nim.from_setup(text)


@pytest.mark.parametrize(("text", "message"), [("4:1", "there is no pile 4"), ("1:0", "at least one"),
                                               ("1:9", "holds only 3"), ("2:4", "at most 3"), ("1-1", "PILE:COUNT")])
def test_illegal_moves_say_what_is_wrong(text: str, message: str) -> None:
    with pytest.raises(IllegalMoveError, match=message):
        Nim.from_setup("3,5,7 max=3").parse_move(text)


@pytest.mark.parametrize("misere", [False, True])
@pytest.mark.parametrize("max_take", [None, 1, 2, 3])
def test_the_theory_is_the_exhaustive_truth_where_it_has_a_rule(misere: bool, max_take: int | None) -> None:
    """``theory_loss`` (which orders the search's moves) says which positions the side to move loses exactly as
    the exhaustive truth has it, for every rule set; it has no rule (None) only for misère with a take limit on
    several piles."""
    for piles in combinations_with_replacement(range(5), 3):
        if not any(piles):
            continue
        values = move_values(Nim(tuple(piles), max_take, misere))
        assert values is not None
        theory = theory_loss(list(piles), max_take, misere)
        several = sum(1 for size in piles if size) > 1
        assert (theory is None) == (misere and max_take is not None and several)
        if theory is not None:
            assert all(value.result == "loss" for value in values.values()) == theory


@pytest.mark.parametrize("piles", [(2, 3, 4), (1, 3, 5), (3, 4, 5), (1, 2, 3, 4)])
def test_ordering_never_costs_nodes_in_nim(piles: tuple[int, ...]) -> None:
    """The lab's "+ ordering" against its plain alpha-beta, to the end of the game: the theory's winning moves first
    search fewer nodes, where killers and history (moves that refuted other piles) searched more."""
    plain = SearchOptions(pvs=False, iterative=False, tt=False, ordering=False, killers=False, history=False,
                          aspiration=False, null_move=False, lmr=False, bounds=False)
    ordered = replace(plain, ordering=True, killers=True, history=True)
    nodes = [final_event(Searcher(Nim(piles), options=options).search()).nodes for options in (plain, ordered)]
    assert nodes[1] < nodes[0]
