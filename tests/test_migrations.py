"""The schema comes from Alembic's revisions (webapp/store/migrations), on SQLite and on PostgreSQL: an empty database
gets the models' schema exactly (no difference autogenerate could find); a database made before migrations, with
columns and tables that later versions added missing, is brought to the newest revision with its games kept; opening
a database at the newest revision changes nothing; processes opening a new database at once take turns; records
stored before the engine's label and root moves' texts gain them, and reviews their grading."""

from __future__ import annotations

import datetime as dt
import json
import multiprocessing

import pytest
from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from sqlalchemy import create_engine, inspect, text
from support.helpers import new_game

from webapp.arena.reviews import settings_of
from webapp.search.records import encode_record
from webapp.store import Store, StoredMove, tables
from webapp.store.migrate import alembic_config, newest_revision, revision_of

pytestmark = pytest.mark.servers


def schema_differences(url: str) -> list:
    """What autogenerate finds between the database at ``url`` and the models, and the revision it is at."""
    engine = create_engine(tables.database_url(url))
    with engine.connect() as connection:
        differences = compare_metadata(MigrationContext.configure(connection), tables.Base.metadata)
        revision = revision_of(connection)
    engine.dispose()
    return [differences, revision]


def test_an_empty_database_gets_the_models_schema(database_url):
    Store(database_url).close()
    assert schema_differences(database_url) == [[], newest_revision()]


def test_a_database_made_before_migrations_is_brought_up_to_date_with_its_games(database_url):
    engine = create_engine(tables.database_url(database_url))
    tables.Base.metadata.create_all(engine)
    with engine.begin() as connection:  # as an earlier version left it: two tables and four columns missing
        connection.execute(text("DROP TABLE training"))  # a table of a later revision
        connection.execute(text("DROP TABLE reviews"))
        connection.execute(text("DROP TABLE player_seats"))
        for table, column in (("games", "version"), ("games", "offers"), ("moves", "depth"), ("moves", "clock_ms")):
            connection.execute(text(f"ALTER TABLE {table} DROP COLUMN {column}"))
    engine.dispose()
    store = Store(database_url)
    new_game(store, "g1")
    store.add_move("g1", StoredMove(1, "5", 0), to_move=1)
    store.close()
    reopened = Store(database_url)
    game = reopened.load_game("g1")
    assert game.version == 1 and [move.move for move in game.moves] == ["5"]
    reopened.remember_seat("browser-a", "g1", 0)
    assert reopened.seat_of("browser-a", "g1") == 0
    reopened.close()
    assert schema_differences(database_url) == [[], newest_revision()]


def test_a_database_older_than_a_column_keeps_its_games(database_url):
    store = Store(database_url)
    new_game(store, "g1")
    store.add_move("g1", StoredMove(1, "5", 0), to_move=1)
    with store.engine.begin() as connection:  # a database made before the version column, not yet migrated
        connection.execute(text("ALTER TABLE games DROP COLUMN version"))
        connection.execute(text("DROP TABLE training"))  # a table of a later revision
        connection.execute(text("DROP TABLE alembic_version"))
    store.close()
    reopened = Store(database_url)
    game = reopened.load_game("g1")
    assert game.version == 0 and [move.move for move in game.moves] == ["5"]
    reopened.add_move("g1", StoredMove(2, "1", 1), to_move=0)
    assert reopened.load_game("g1").version == 1
    reopened.close()


def test_opening_an_up_to_date_database_changes_nothing(database_url):
    Store(database_url).close()
    engine = create_engine(tables.database_url(database_url))
    before = sorted(inspect(engine).get_table_names())
    engine.dispose()
    Store(database_url).close()
    engine = create_engine(tables.database_url(database_url))
    assert sorted(inspect(engine).get_table_names()) == before and "alembic_version" in before
    engine.dispose()
    assert schema_differences(database_url) == [[], newest_revision()]


def test_records_stored_before_labels_and_root_texts_gain_them(database_url):
    """Revision 0002 completes the records of a database at 0001 as the room receives them now."""
    old = {"game_id": "g1", "ply": 0, "seat": 0, "info": {
        "kind": "final", "engine": {"depth": 30, "time": 1.5, "algorithm": "alphabeta", "personality": "solid"},
        "root_moves": [{"move": "e2e4", "score": 35}, {"move": "d2d4", "score": None},
                       {"move": "g1f3", "score": -999_995}]}}
    store = Store(database_url)
    new_game(store, "g1", game="chess")
    store.add_move("g1", StoredMove(1, "e2e4", 0, score=35), to_move=1, record=encode_record(old))
    current = json.loads(encode_record(old))
    current["info"] |= {"engine_label": "level 4", "root_moves": [{"move": "e2e4", "score": 35, "score_text": "+0.35"}]}
    store.add_move("g1", StoredMove(2, "e7e5", 1, score=-35), to_move=0, record=encode_record(current))
    with store.engine.begin() as connection:
        command.downgrade(alembic_config(connection), "0001")
    store.close()
    assert json.loads(Store(database_url).search_record("g1", 1))["info"] == old["info"] | {
        "engine_label": "alphabeta · depth 30 · 1.5 s · solid",
        "root_moves": [{"move": "e2e4", "score": 35, "score_text": "+0.35"},
                       {"move": "d2d4", "score": None, "score_text": None},
                       {"move": "g1f3", "score": -999_995, "score_text": "loss in 2"}]}
    assert json.loads(Store(database_url).search_record("g1", 2)) == current  # a complete record stays as it is


def test_reviews_stored_before_they_said_their_grading_gain_it(database_url):
    """Revision 0003 adds to each stored review how its losses are graded and what they count, per game."""
    store = Store(database_url)
    settings = {"depth": 8, "seconds": 0.5, "text": "a search of depth 8 (at most 0.5 s a position)"}
    for game_id, game in (("c1", "chess"), ("n1", "nim")):
        new_game(store, game_id, game=game)
        assert store.reviews.claim(game_id, stale_before=dt.datetime(2000, 1, 1, tzinfo=dt.UTC))  # a first claim
        store.reviews.save(game_id, "done", {"verdicts": [], "averages": [None, None], "settings": dict(settings)})
    with store.engine.begin() as connection:
        command.downgrade(alembic_config(connection), "0002")
    store.close()
    reopened = Store(database_url)
    grading = {key: settings_of("chess")[key] for key in ("grading", "loss_unit")}  # revision 0004 regraded it
    assert reopened.reviews.get("c1")[1]["settings"] == settings | grading
    assert reopened.reviews.get("n1")[1]["settings"] == settings | {
        "grading": "losses counted in the game's points, not graded (only chess grades them)", "loss_unit": "points"}
    assert {key: reopened.reviews.get("n1")[1]["settings"][key] for key in ("grading", "loss_unit")} == {
        key: settings_of("nim")[key] for key in ("grading", "loss_unit")}  # as a review made now says
    reopened.close()


def _verdict(ply: int, verdict: str, before: int, after: int, loss: int | None, best: str | None) -> dict:
    return {"ply": ply, "move": "e2e4", "by": (ply - 1) % 2, "verdict": verdict, "before": "", "after": "",
            "best": best, "loss": loss, "exact": False, "move_shown": "e4", "best_shown": best,
            "before_score": before, "after_score": after}


def test_chess_reviews_stored_on_centipawns_are_regraded_on_win_chances(database_url):
    """Revision 0004 regrades stored chess reviews from their scores: the review's figures then add up, and a
    downgrade gives back the centipawn grades and averages."""
    store = Store(database_url)
    old = [_verdict(1, "best", 30, -10, 0, None),
           _verdict(2, "inaccuracy", -930, -1324, 70, "Bb2"),  # capped at 10 pawns: a loss of 70 centipawns
           _verdict(3, "good", -298, -887, 0, None),  # 25 % of win chance given away, graded as nothing
           _verdict(4, "good", -2194, -999_992, 0, None)]  # into a forced mate from a lost position
    new_game(store, "c1", game="chess")
    assert store.reviews.claim("c1", stale_before=dt.datetime(2000, 1, 1, tzinfo=dt.UTC))
    stored = {"verdicts": old, "averages": [17.5, 0.0], "settings": {"depth": 8, "seconds": 0.5, "text": "t"}}
    store.reviews.save("c1", "done", json.loads(json.dumps(stored)))
    with store.engine.begin() as connection:
        command.downgrade(alembic_config(connection), "0003")
    store.close()
    reopened = Store(database_url)
    review = reopened.reviews.get("c1")[1]
    assert "averages" not in review and review["game"] == "chess"
    assert [(v["verdict"], v["loss"], v["win_before"], v["win_after"], v["best"]) for v in review["verdicts"]] == [
        ("best", 0, 52.8, 49.1, None), ("good", 2.4, 3.2, 0.8, None), ("blunder", 21.3, 25.0, 3.7, None),
        ("good", 0.0, 0.0, 0.0, None)]
    assert review["settings"]["loss_unit"] == "win-chance points"
    with reopened.engine.begin() as connection:
        command.downgrade(alembic_config(connection), "0003")
    back = reopened.reviews.get("c1")[1]
    assert [(v["verdict"], v["loss"]) for v in back["verdicts"]] == [
        ("best", 0), ("inaccuracy", 70), ("blunder", 589), ("good", 0)]
    assert back["averages"] == [(0 + 589) / 2, (70 + 0) / 2] and "game" not in back
    assert back["settings"]["loss_unit"] == "centipawns"
    reopened.close()


def open_store(url: str) -> None:
    Store(url).close()


def test_processes_starting_at_once_on_a_new_database_take_turns(database_url):
    """Two processes open a new database at once (gunicorn's workers, nodes): both start, one migrates it."""
    context = multiprocessing.get_context("spawn")
    with context.Pool(2) as pool:
        pool.map(open_store, [database_url, database_url])
    assert schema_differences(database_url) == [[], newest_revision()]
