"""Starting a chess game from a FEN or a PGN: the conversion to the setup notation and ``POST /api/games``."""

from __future__ import annotations

import pytest

from engine.game import InvalidSetupError
from webapp.views.chess_import import chess_setup, is_pgn

START = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"
KINGS_GAMBIT_PGN = '[Event "Casual game"]\n[White "A"]\n[Black "B"]\n\n1. e4 e5 2. f4 exf4 3. Nf3 *\n'
ENDGAME_FEN = "8/8/8/4k3/8/8/4P3/4K3 w - - 0 1"


def create_chess(client, setup: str):
    return client.post("/api/games", json={"game": "chess", "opponent": {"type": "friend"}, "setup": setup})


def test_fen_startpos_and_setup_notation_pass_through_unchanged():
    for text in (ENDGAME_FEN, "startpos", "startpos moves e2e4", f"{START} moves e2e4 e7e5"):
        assert not is_pgn(text)
        assert chess_setup(text) == text


def test_a_pgn_becomes_its_start_fen_and_uci_moves():
    assert chess_setup(KINGS_GAMBIT_PGN) == f"{START} moves e2e4 e7e5 f2f4 e5f4 g1f3"
    assert chess_setup("1.e4 c5 1-0") == f"{START} moves e2e4 c7c5"


def test_a_pgn_with_a_fen_header_starts_there():
    pgn = f'[SetUp "1"]\n[FEN "{ENDGAME_FEN}"]\n\n1. Kd2 Kd4 *'
    assert chess_setup(pgn) == f"{ENDGAME_FEN} moves e1d2 e5d4"


@pytest.mark.parametrize(("text", "reason"), [
    ("1. e4 e5 2. Ke3 *", "illegal san: 'Ke3'"),
    ("hello there", "neither a FEN nor a PGN"),
    ('[Event "only headers"]', "neither a FEN nor a PGN"),
    ('[Variant "Crazyhouse"]\n\n1. e4 *', "only standard chess"),
])
def test_bad_pgns_raise_invalid_setup_naming_the_problem(text, reason):
    with pytest.raises(InvalidSetupError, match=reason):
        chess_setup(text)


def test_create_from_a_fen(client):
    response = create_chess(client, ENDGAME_FEN)
    assert response.status_code == 201, response.json
    state = client.get(response.json["url"].replace("/g/", "/api/games/")).json
    assert state["start_setup"] == ENDGAME_FEN
    assert state["view"]["fen"] == ENDGAME_FEN and state["history"] == []


def test_create_from_a_pgn_keeps_its_moves_in_the_board_but_not_in_the_arena_history(client):
    response = create_chess(client, KINGS_GAMBIT_PGN)
    assert response.status_code == 201, response.json
    state = client.get(f"/api/games/{response.json['id']}").json
    assert state["start_setup"] == f"{START} moves e2e4 e7e5 f2f4 e5f4 g1f3"
    assert state["view"]["san"] == ["e4", "e5", "f4", "exf4", "Nf3"]
    assert state["view"]["opening"]["eco"].startswith("C3")
    assert state["history"] == [] and state["to_move"] == 1
    assert "1. e4 e5 2. f4 exf4 3. Nf3" in client.get(f"/api/games/{response.json['id']}/pgn").text


@pytest.mark.parametrize(("setup", "words"), [
    ("8/8/8/8/8/8/8/8 w - - 0 1", "impossible position"),
    ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR x KQkq - 0 1", "bad FEN"),
    ("1. e4 e5 2. Ke3 *", "illegal san"),
    ("x" * 8001, "at most 8000 characters"),
])
def test_bad_setups_are_400_with_the_reason_and_create_nothing(client, setup, words):
    response = create_chess(client, setup)
    assert response.status_code == 400, response.json
    assert response.json["error"] == "bad_game"
    assert words in response.json["message"]
    assert client.get("/api/games").json["games"] == []


def test_a_setup_over_16_kb_is_413(client):
    response = create_chess(client, "1. e4 " * 3000)
    assert response.status_code == 413 and response.json["error"] == "too_large"
