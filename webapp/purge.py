"""Delete abandoned empty games: ``python -m webapp.purge [--days 30]``.

Removes from the database (``DATABASE_URL``, else the SQLite file of ``ARENA_INSTANCE``) every unfinished game in
which nobody moved (no move was ever played, or every move was taken back, or only the engine moved in a game with
a person's seat) and that nothing changed for ``--days`` days, with its seats, moves and the browsers' records of
them; a game that is another game's rematch stays. Its links then answer
``404 not_found``. Meant for a daily cron job or systemd timer; it runs beside the web nodes, which hold such a game
in memory only while someone still watches it (``ARENA_UNTOUCHED_GAME_SECONDS``).
"""

from __future__ import annotations

import argparse
import datetime as dt
from pathlib import Path

from flask import Flask

from webapp.clock import SYSTEM_CLOCK
from webapp.config import database_url, instance_path
from webapp.store import Store

MIN_DAYS = 1.0


def purge(store: Store, days: float, now: dt.datetime) -> int:
    """Delete the unfinished games nobody moved in, unchanged since ``days`` before ``now``; returns how many."""
    if days < MIN_DAYS:
        raise ValueError(f"--days must be at least {MIN_DAYS:g}, not {days:g}")
    return store.delete_games_without_moves(now - dt.timedelta(days=days))


def main(argv: list[str] | None = None) -> None:
    """Parse the arguments, purge, and print how many games were deleted."""
    parser = argparse.ArgumentParser(prog="python -m webapp.purge", description=__doc__.split("\n")[0])
    parser.add_argument("--days", type=float, default=30.0, help="untouched for this many days (at least 1)")
    args = parser.parse_args(argv)
    folder = instance_path() or Path(Flask("webapp").instance_path)
    store = Store(database_url(folder))
    try:
        deleted = purge(store, args.days, SYSTEM_CLOCK.now())
    except ValueError as error:
        parser.error(str(error))
    finally:
        store.close()
    print(f"deleted {deleted} unfinished games without a move, unchanged for {args.days:g} days")


if __name__ == "__main__":
    main()
