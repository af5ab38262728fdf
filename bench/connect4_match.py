"""A Connect Four match between two levels of the engine, from varied openings, colours alternating.

    .venv/bin/python -m bench.connect4_match [--strong 8] [--weak 6] [--games 40] [--plies 2] [--seed 1]

Openings are sequences of ``--plies`` moves (every one of the 7^plies sequences, shuffled with ``--seed``); each
opening is played twice, the strong level taking the first player's side once and the second player's once. Moves
come from ``engine.player.think_at_level`` exactly as in the web app (oracles included). Prints one line per game and
the strong level's score (win 1, draw 1/2) at the end; the exit status is 0.
"""

from __future__ import annotations

import argparse
import itertools
import random
import time

from engine.games.connect4 import Connect4
from engine.player import think_at_level


def openings(plies: int, seed: int) -> list[str]:
    """Every sequence of ``plies`` columns that does not end the game, in a shuffled order."""
    sequences = ["".join(columns) for columns in itertools.product("1234567", repeat=plies)]
    playable = [text for text in sequences if Connect4.from_setup(text).outcome() is None]
    random.Random(seed).shuffle(playable)
    return playable


def play_game(opening: str, levels: tuple[int, int], rng: random.Random) -> tuple[Connect4, float, float]:
    """Play from ``opening``, ``levels[0]`` moving first; the final state and mean seconds per move of each side."""
    state = Connect4.from_setup(opening)
    thinking = [0.0, 0.0]
    moves = [0, 0]
    while state.outcome() is None:
        side = state.to_move
        started = time.perf_counter()
        *_, final = think_at_level(state, levels[side], rng=rng)
        thinking[side] += time.perf_counter() - started
        moves[side] += 1
        state = state.play(state.parse_move(final.best))
    return state, thinking[0] / max(moves[0], 1), thinking[1] / max(moves[1], 1)


def main() -> int:
    """Run the match and print it."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--strong", type=int, default=8)
    parser.add_argument("--weak", type=int, default=6)
    parser.add_argument("--games", type=int, default=40)
    parser.add_argument("--plies", type=int, default=2)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    starts = openings(args.plies, args.seed)
    points = 0.0
    tally = {"win": 0, "draw": 0, "loss": 0}
    print(f"level {args.strong} vs level {args.weak}, {args.games} games, {args.plies}-ply openings", flush=True)
    for game in range(args.games):
        opening = starts[(game // 2) % len(starts)]
        strong_side = game % 2
        levels = (args.strong, args.weak) if strong_side == 0 else (args.weak, args.strong)
        state, seconds_first, seconds_second = play_game(opening, levels, rng)
        winner = state.outcome().winner
        result = "draw" if winner is None else "win" if winner == strong_side else "loss"
        tally[result] += 1
        points += {"win": 1.0, "draw": 0.5, "loss": 0.0}[result]
        print(
            f"game {game + 1:2d} opening {opening} level {levels[0]} vs {levels[1]}: {result} for level "
            f"{args.strong} in {state.moves} stones; {state.setup()}; "
            f"s/move {seconds_first:.2f} {seconds_second:.2f}; running score {points / (game + 1):.1%}",
            flush=True,
        )
    print(
        f"level {args.strong} scored {points}/{args.games} = {points / args.games:.1%} "
        f"(+{tally['win']} ={tally['draw']} -{tally['loss']}) against level {args.weak}",
        flush=True,
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
