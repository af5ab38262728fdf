"""Persistence of games, their seats and their moves with SQLAlchemy (SQLite by default, PostgreSQL through
``DATABASE_URL``). Every write is its own committed transaction: when a method returns, the change is durable.

A move is a row keyed by ``(game_id, ply)``, so two writers racing for the same ply cannot both succeed: the loser
gets ``PlyTakenError`` and nothing is written.

``postgresql://`` and ``postgres://`` URLs are served by psycopg 3 (``postgresql+psycopg://``). Several nodes may
open one PostgreSQL database at the same moment: the tables are created under an advisory lock.

How it stays bounded. Per game the database holds one ``games`` row (its start setup, at most 8,000 characters, and
small JSON settings), two ``seats`` rows, one ``moves`` row per ply played (a takeback deletes rows), and one
``player_seats`` row per seat a browser took (``webapp.views.players``): about 0.5 KiB per game (plus its setup text, if
any) and 75 bytes per move (docs/scale.md, "Many games"). Nothing here deletes a finished game or a move: the games
played are the site's history and grow with play. Nothing in the store caps that growth; the rate of requests does
(Socket.IO events are limited per connection, HTTP game creation, seat taking and moves per address), and every
game but chess ends by its rules within a few dozen plies. The games that cost nothing to make, unfinished ones
without a single move, are removed after a while by ``python -m webapp.purge`` (``delete_games_without_moves``).
A web node's memory is bounded separately (``ARENA_IDLE_GAMES``, ``ARENA_UNTOUCHED_GAME_SECONDS``).
"""

from webapp.store.availability import DatabaseUnavailableError
from webapp.store.games import Store
from webapp.store.records import PlyTakenError, StoredGame, StoredMove, StoredSeat
from webapp.store.tables import GameRow, database_url

__all__ = ["DatabaseUnavailableError", "GameRow", "PlyTakenError", "Store", "StoredGame", "StoredMove", "StoredSeat",
           "database_url"]
