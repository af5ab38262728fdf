"""Reviews of games: every exact verdict checked against an independent judge (a brute-force solver for
tic-tac-toe and small Nim, Bouton's theory for large Nim, the solved table for Wolves & Rabbit, Pons' scored
positions for Connect Four), chess graded from searches, and the command line printing what the module decides."""

from __future__ import annotations

import json
import random
from functools import cache, reduce
from operator import xor
from pathlib import Path

import pytest
from support.clocks import TickingClock

from engine.cli import main
from engine.game import WIN, State
from engine.games import new_game
from engine.games.connect4 import Connect4
from engine.games.nim import Nim
from engine.review import (
    BEST,
    BLUNDER,
    GOOD,
    INACCURACY,
    KEPT,
    MISTAKE,
    SLOW_PLIES,
    THREW_DRAW,
    THREW_WIN,
    Exercise,
    MoveVerdict,
    PositionView,
    SearchSettings,
    judge_answer,
    move_accuracy,
    review_moves,
    summarise,
    win_chance,
)
from engine.solve import tables
from engine.solve.connect4 import pons_to_engine
from engine.truth import Exact, move_values, position_value

pytestmark = pytest.mark.engine

SETS = Path(__file__).parent / "data" / "connect4"


@cache
def brute_force(state: State) -> int:
    """The exact score of ``state`` for the side to move (``±(WIN - plies)``, 0 a draw) by plain negamax."""
    outcome = state.outcome()
    if outcome is not None:
        return 0 if outcome.winner is None else (WIN if outcome.winner == state.to_move else -WIN)
    best = -2 * WIN
    for move in state.legal_moves():
        child = brute_force(state.play(move))
        mine = 0 if child == 0 else (-child - 1 if child < 0 else -child + 1)  # one ply further from the end
        best = max(best, mine)
    return best


def expected_verdict(best: int, played: int) -> str:
    """The verdict the rules give a move worth ``played`` where ``best`` was possible (engine-convention scores)."""
    if played == best:
        return BEST
    if (played > 0) == (best > 0) and (played < 0) == (best < 0):
        return KEPT
    return THREW_WIN if best > 0 else THREW_DRAW


def random_game(state: State, rng: random.Random, limit: int = 200) -> list[str]:
    moves = []
    while state.outcome() is None and len(moves) < limit:
        move = rng.choice(state.legal_moves())
        moves.append(state.move_text(move))
        state = state.play(move)
    return moves


def check_against_scores(start: State, moves: list[str], exact_score) -> None:
    """Every verdict of ``review_moves`` equals the one ``exact_score(state)`` (an independent judge) implies."""
    verdicts = review_moves(start, moves)
    state = start
    for verdict, text in zip(verdicts, moves, strict=True):
        scores = {state.move_text(move): exact_score(state.play(move)) for move in state.legal_moves()}
        mine = {move: 0 if score == 0 else (-score - 1 if score < 0 else -score + 1) for move, score in scores.items()}
        best = max(mine.values())
        assert verdict.exact and verdict.verdict == expected_verdict(best, mine[text]), (start, moves, verdict)
        assert verdict.before == Exact.text.fget(_exact(best)) and verdict.after == _exact(mine[text]).text
        if verdict.verdict != BEST:
            assert mine[verdict.best] == best
        state = state.play(state.parse_move(text))


def _exact(score: int) -> Exact:
    if score == 0:
        return Exact("draw")
    return Exact("win" if score > 0 else "loss", WIN - abs(score))


def test_every_tictactoe_verdict_matches_brute_force() -> None:
    rng = random.Random(7)
    for _ in range(60):
        start = new_game("tictactoe")
        check_against_scores(start, random_game(start, rng), brute_force)


@pytest.mark.parametrize("rules", [((3, 4, 5), None, False), ((2, 3, 6), 3, False), ((1, 4, 5), None, True),
                                   ((3, 5, 6), 2, True)])
def test_every_small_nim_verdict_matches_brute_force(rules) -> None:
    rng = random.Random(11)
    for _ in range(25):
        start = Nim(*rules)
        check_against_scores(start, random_game(start, rng), brute_force)


def test_large_nim_verdicts_follow_boutons_theory() -> None:
    """Too large to search (until the piles shrink): the review knows who wins, and its verdicts follow the XOR
    of the piles."""
    rng = random.Random(3)
    for _ in range(10):
        start = Nim((40, 50, 60, 70, 80))
        moves = random_game(start, rng, limit=12)
        state = start
        for verdict, text in zip(review_moves(start, moves), moves, strict=True):
            wins_now = reduce(xor, state.piles, 0) != 0
            state = state.play(state.parse_move(text))
            keeps = reduce(xor, state.piles, 0) == 0  # the opponent is left lost
            assert verdict.before.split()[0] == ("win" if wins_now else "loss")
            if wins_now and not keeps:
                assert verdict.verdict == THREW_WIN
            else:
                assert verdict.verdict in (BEST, KEPT)


def test_every_wolves_verdict_matches_the_table() -> None:
    rng = random.Random(5)
    for _ in range(8):
        start = new_game("wolves")
        check_against_scores(start, random_game(start, rng), lambda state: tables.probe(state).score)


def test_connect_four_truth_matches_pons_scores() -> None:
    lines = (SETS / "end_easy.txt").read_text().split("\n")[:40] + (SETS / "middle_easy.txt").read_text().split(
        "\n")[:10]
    for line in filter(None, lines):
        moves, score = line.split()
        state = new_game("connect4", moves)
        values = move_values(state, clock=TickingClock(0.0))  # a clock standing still: all the time it takes
        assert values is not None
        assert position_value(values).score == pons_to_engine(int(score), state.moves)  # type: ignore[attr-defined]


def test_connect_four_verdicts_from_a_scored_position() -> None:
    moves, score = (SETS / "end_easy.txt").read_text().split("\n")[0].split()
    start = Connect4.from_setup(moves)
    rng = random.Random(2)
    played = random_game(start, rng)
    verdicts = review_moves(start, played, clock=TickingClock(0.0))
    assert verdicts[0].before == Exact.text.fget(_exact(pons_to_engine(int(score), start.moves)))
    assert all(verdict.exact for verdict in verdicts)


def test_a_chess_blunder_is_graded_with_the_better_move() -> None:
    moves = ["e4", "e5", "Qh5", "Nc6", "Bc4", "Nf6"]  # 3...Nf6?? allows Qxf7 mate
    verdicts = review_moves(new_game("chess"), moves, SearchSettings(depth=3, seconds=10), clock=TickingClock(0.0))
    blunder = verdicts[5]
    assert blunder.verdict == BLUNDER and blunder.move_shown == "Nf6" and blunder.win_after == 0.0
    assert blunder.loss == round(blunder.win_before - blunder.win_after, 1) >= 15  # what the shown chances say
    assert blunder.after == "loss in 1" and blunder.best_shown in ("g6", "Qe7", "Qf6")
    white, black = summarise(verdicts, "chess")
    assert black.accuracy is not None and white.accuracy is not None and black.accuracy < white.accuracy
    assert black.counted == black.moves == 3 and black.method == "win chance"


def test_win_chances_and_accuracy_follow_lichess_curves() -> None:
    """Lichess's published points: 0 centipawns is 50 %, +300 about 75 %, a forced result 100 or 0 %, with no cap
    between (+20 pawns is more than +10); a move losing nothing is 100 % accurate, 10 points about 64.6 %."""
    assert win_chance(0) == 50.0 and 74.9 < win_chance(300) < 75.2 and win_chance(-300) == 100 - win_chance(300)
    assert win_chance(WIN - 5) == 100.0 and win_chance(-(WIN - 5)) == 0.0
    assert win_chance(1000) < win_chance(2000) < 100.0 and win_chance(-200_000) >= 0.0
    assert move_accuracy(0) == 100.0 and 64.5 < move_accuracy(10) < 64.7 and move_accuracy(100) == 0.0


LOST_GAME = ("g2g4 d7d5 g4g5 e7e5 b2b3 d8g5 g1f3 g5f6 f3g1 g8e7 b1c3 c8f5 a2a4 b8c6 c3b5 e8c8 c2c3 a7a6 b5a3 d5d4 "
             "c3d4 c6d4 a3c4 f5c2 f1h3 c8b8 d1c2 d4c2 e1f1 c2a1 f1e1 a1b3 c1b2 f6c6 e2e4 c6c4 b2e5 d8d2 h3g4 c4c1 "
             "g4d1 c1d1")
"""The game of docs/review.md: White loses material, then is mated."""


def test_a_lost_position_grades_by_what_its_values_say() -> None:
    """The example of a lost game: losses on one scale of win chances, mates included, graded as a person would
    (giving away a last 2 % of a lost game is no error; dropping from 25 % to 4 % is a blunder)."""
    moves = LOST_GAME.split()
    verdicts = review_moves(new_game("chess"), moves, SearchSettings(depth=5, seconds=60), clock=TickingClock(0.0))
    for verdict in verdicts:
        assert verdict.win_before is not None and verdict.win_after is not None
        if verdict.verdict != BEST:
            assert verdict.loss == round(max(0.0, verdict.win_before - verdict.win_after), 1)
        if verdict.after_score is not None and abs(verdict.after_score) > WIN - 1000:
            assert verdict.win_after in (0.0, 100.0)
    lost = [verdict for verdict in verdicts if verdict.by == 0 and verdict.win_before < 5]
    assert lost and all(verdict.verdict in (BEST, "good") for verdict in lost)


def test_the_command_line_prints_the_modules_verdicts(capsys) -> None:
    moves = ["5", "1", "9", "3", "2"]
    assert main(["review", "tictactoe", "--moves", " ".join(moves), "--json"]) == 0
    printed = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert printed == [verdict.to_dict() for verdict in review_moves(new_game("tictactoe"), moves)]
    assert main(["review", "tictactoe", "--moves", "5 5"]) == 2


def test_live_truth_stays_within_a_live_turns_means() -> None:
    from engine.truth import live_truth

    assert live_truth(new_game("tictactoe", "5"))["2"].text == "loss in 3"
    early = live_truth(new_game("connect4", "11111177777"))  # 11 stones: every move is a look-up in the book
    assert early is not None and sorted(early) == list("234567")
    assert early == move_values(new_game("connect4", "11111177777"))
    assert live_truth(new_game("chess")) is None
    assert live_truth(Nim((40, 50, 60))) is None  # 150 legal moves: too many to send
    assert live_truth(Nim((3, 4, 5)))["1:2"].to_dict() == {"result": "win", "plies": 11, "score": WIN - 11,
                                                           "text": "win in 6"}


def _verdict(verdict: str, before: int | None, after: int | None, exact: bool) -> MoveVerdict:
    return MoveVerdict(7, "3", 0, verdict, "win in 3", "win in 9", "4", None if exact else 1.0, exact, "3", "4",
                       before, after)


def test_a_mistake_makes_an_exercise_and_a_small_slip_does_not() -> None:
    """A thrown-away result, a chess mistake or blunder, or more than ``SLOW_PLIES`` plies of a kept result given
    away make an exercise; an inaccuracy, or a slower win by ``SLOW_PLIES`` plies at most, do not. Only a searched
    position's exercise carries the review's value."""
    assert Exercise.of(_verdict(THREW_WIN, WIN - 5, 0, True)) == Exercise(7, "3", "4", None, None)
    slow = WIN - 5 - SLOW_PLIES - 1
    assert Exercise.of(_verdict(KEPT, WIN - 5, slow, True)) == Exercise(7, "3", "4", SLOW_PLIES, None)
    assert Exercise.of(_verdict(KEPT, WIN - 5, slow + 1, True)) is None
    assert Exercise.of(_verdict(MISTAKE, 120, -200, False)) == Exercise(7, "3", "4", None, 120)
    assert Exercise.of(_verdict(INACCURACY, 120, 20, False)) is None
    assert Exercise.of(_verdict(BEST, 120, 120, False)) is None


def test_an_answer_is_graded_from_the_reviews_value() -> None:
    """The review's choice is best; another move is graded by the fall of the win chance from the review's value
    to what the search after it found (the opponent's score, turned)."""
    state = new_game("chess")
    def after(score: int) -> PositionView:
        return PositionView(None, score, None, "d7d5")
    assert judge_answer(state, "e2e4", 30, "e2e4", after(-10)).verdict == BEST
    good = judge_answer(state, "g1f3", 30, "e2e4", after(-20))
    assert good.verdict == GOOD and (good.win_before, good.win_after) == (52.8, 51.8) and good.move_shown == "Nf3"
    blunder = judge_answer(state, "f2f3", 30, "e2e4", after(500))
    assert blunder.verdict == BLUNDER and blunder.loss == round(blunder.win_before - blunder.win_after, 1) >= 15
