"""Your games (``/api/me/...``): a browser lists the games it played, newest first, by page and by game, with its
side, its opponent, its result and its review's accuracy; exports them; forgets them; moves them to another browser
by a signed link that expires. Another browser, or a forged cookie, sees and changes nothing of them."""

from __future__ import annotations

from support.helpers import assert_error, create, state_when
from support.waiting import WAIT, eventually

from webapp.views.history import MOVE_LINK_SECONDS


def play_friend_game(app, client, moves: list[str], game: str = "tictactoe") -> str:
    """A friend game that ``client`` created (the first seat) against a friend in another browser, with ``moves``
    played."""
    created = create(client, {"game": game, "opponent": {"type": "friend"}, "side": 0}, alone=False)
    friend = app.test_client().post(f"/api/games/{created['id']}/seats", json={"invite": created["invite"]}).json
    for index, move in enumerate(moves):
        token = created["token"] if index % 2 == 0 else friend["token"]
        answer = client.post(f"/api/games/{created['id']}/moves", json={"move": move, "token": token})
        assert answer.status_code == 200, answer.json
    return created["id"]


def test_a_browser_lists_its_games_newest_first_by_page_and_by_game(app, client, clock) -> None:
    won = play_friend_game(app, client, ["5", "1", "9", "3", "2", "7", "8"])  # X: 5 9 2 8, three in the middle
    clock.advance(60)
    engine = create(client, {"game": "connect4", "opponent": {"type": "engine", "level": 1}, "side": 0})
    clock.advance(60)
    playing = play_friend_game(app, client, ["5"])
    page = client.get("/api/me/games").json
    assert [game["id"] for game in page["games"]] == [playing, engine["id"], won] and page["after"] is None
    first = {game["id"]: game for game in page["games"]}
    assert first[won] | {"created_at": None} == {
        "id": won, "url": f"/g/{won}", "game": "tictactoe", "title": "Tic-tac-toe", "seat": 0, "side": "X",
        "opponent": "a person", "status": "finished", "result": "won", "reason": first[won]["reason"], "plies": 7,
        "created_at": None, "review": {"status": "none", "accuracy": None, "method": None},
        "analyse_url": "/analyse/tictactoe?moves=5+1+9+3+2+7+8"}
    assert first[engine["id"]]["opponent"] == "Engine level 1" and first[engine["id"]]["side"] == "Red"
    assert first[playing]["result"] is None and first[playing]["status"] == "active"
    one = client.get("/api/me/games?limit=1").json
    assert [game["id"] for game in one["games"]] == [playing] and one["after"]
    rest = client.get("/api/me/games", query_string={"limit": 5, "after": one["after"]}).json
    assert [game["id"] for game in rest["games"]] == [engine["id"], won] and rest["after"] is None
    assert [game["id"] for game in client.get("/api/me/games?game=connect4").json["games"]] == [engine["id"]]
    for bad in ("game=go", "limit=0", "limit=101", "limit=x", "after=yesterday"):
        assert_error(client.get(f"/api/me/games?{bad}"), 400, "bad_request")


def test_a_reviewed_game_shows_the_sides_accuracy(app, client) -> None:
    game_id = play_friend_game(app, client, ["5", "2", "1", "9", "3", "7", "4", "6", "8"])  # the review test's game
    assert client.post(f"/api/games/{game_id}/review", json={}).status_code == 202

    def reviewed() -> dict | None:
        game = client.get("/api/me/games").json["games"][0]
        return game if game["review"]["status"] == "done" else None

    review = eventually(reviewed, "the review listed as done", WAIT)["review"]
    assert review == {"status": "done", "accuracy": 60.0, "method": "best result kept"}  # X kept it in 3 of 5


def test_another_browser_and_a_forged_cookie_see_nothing(app, client) -> None:
    mine = play_friend_game(app, client, ["5"])
    other = app.test_client()
    assert other.get("/api/me/games").json == {"games": [], "after": None}
    assert other.post("/api/me/forget", json={}).json == {"forgotten": 0}
    forged = app.test_client()
    forged.set_cookie("arena_player", client.get_cookie("arena_player").value[:-4] + "AAAA")
    assert forged.get("/api/me/games").json["games"] == []
    assert [game["id"] for game in client.get("/api/me/games").json["games"]] == [mine]


def test_export_gives_pgn_for_chess_and_moves_for_the_others(app, client) -> None:
    chess_id = play_friend_game(app, client, ["e4", "e5"], game="chess")
    play_friend_game(app, client, ["5", "1"])
    exported = client.get("/api/me/games/export")
    assert exported.status_code == 200 and exported.mimetype == "text/plain"
    text = exported.get_data(as_text=True)
    assert '[Event "' in text and "1. e4 e5" in text and f"/g/{chess_id}" in text
    assert "# Tic-tac-toe " in text and ": X against a person, unfinished\n5 1\n" in text
    only = client.get("/api/me/games/export?game=tictactoe").get_data(as_text=True)
    assert "1. e4" not in only and "5 1" in only


def test_forgetting_empties_the_list_and_keeps_the_games(app, client) -> None:
    game_id = play_friend_game(app, client, ["5"])
    assert client.post("/api/me/forget", json={}).json == {"forgotten": 1}
    assert client.get("/api/me/games").json["games"] == []
    assert client.get(f"/api/games/{game_id}").status_code == 200  # still there for its link
    assert_error(client.post("/api/me/forget", json={"all": True}), 400, "bad_request")


def test_a_move_link_gives_the_games_to_another_browser_until_it_expires(app, client, clock) -> None:
    game_id = play_friend_game(app, client, ["5"])
    link = client.post("/api/me/move-link", json={}).json
    assert link["url"].startswith("/me/move/") and link["expires_in"] == MOVE_LINK_SECONDS
    token = link["url"].removeprefix("/me/move/")
    other = app.test_client()
    page = other.get(link["url"])
    assert page.status_code == 200 and b"Move the games here" in page.data
    assert other.get("/api/me/games").json["games"] == []  # opening the link moves nothing
    assert other.post("/api/me/move", json={"token": token}).json == {"moved": 1}
    assert [game["id"] for game in other.get("/api/me/games").json["games"]] == [game_id]
    assert client.get("/api/me/games").json["games"] == []
    state = state_when(other, game_id, lambda state: state["you"] == 0, "the game's seat held by the new browser")
    assert state["you"] == 0
    assert_error(other.post("/api/me/move", json={"token": token[:-3] + "abc"}), 403, "bad_token")
    late = other.post("/api/me/move-link", json={}).json["url"].removeprefix("/me/move/")
    clock.advance(MOVE_LINK_SECONDS + 1)
    assert_error(client.post("/api/me/move", json={"token": late}), 403, "bad_token")
    assert_error(client.post("/api/me/move", json={}), 400, "bad_request")
