"""Friend games keep their free seat for the invited player, and browsers keep one small cookie for every seat."""

from __future__ import annotations

from support.helpers import assert_error, create

from webapp.seats import issue_token


def test_the_free_seat_needs_the_invitation_of_the_share_link(app, client):
    created = create(client)
    game_id = created["id"]
    bot = app.test_client()
    assert_error(bot.post(f"/api/games/{game_id}/seats", json={}), 403, "bad_invite")
    assert_error(bot.post(f"/api/games/{game_id}/seats", json={"invite": "x" * 22}), 403, "bad_invite")
    assert_error(bot.post(f"/api/games/{game_id}/seats", json={"invite": 5}), 403, "bad_invite")
    state = client.get(f"/api/games/{game_id}").json
    assert not state["seats"][1]["taken"]
    assert client.get("/api/games").json["games"][0]["free_seat"] is False  # not listed as open
    friend = app.test_client().post(f"/api/games/{game_id}/seats", json={"invite": created["invite"]})
    assert friend.status_code == 200 and friend.json["seat"] == 1


def test_a_game_open_to_anyone_is_listed_and_needs_no_invitation(app, client):
    created = create(client, {"game": "tictactoe", "opponent": {"type": "friend", "open": True}, "side": 0})
    [listed] = client.get("/api/games").json["games"]
    assert listed["free_seat"] is True and listed["opponent"] == {"type": "friend", "open": True}
    taken = app.test_client().post(f"/api/games/{created['id']}/seats", json={})
    assert taken.status_code == 200 and taken.json["seat"] == 1
    assert client.get("/api/games").json["games"][0]["free_seat"] is False


def test_only_the_players_ever_see_the_invitation(app, client):
    created = create(client)
    game_id, invite = created["id"], created["invite"]
    spectator = app.test_client()
    assert invite not in spectator.get(f"/api/games/{game_id}").get_data(as_text=True)
    assert invite not in spectator.get("/api/games").get_data(as_text=True)
    assert 'data-invite=""' in spectator.get(f"/g/{game_id}").get_data(as_text=True)
    assert invite not in client.get(f"/api/games/{game_id}").get_data(as_text=True)
    assert f'data-invite="{invite}"' in client.get(f"/g/{game_id}").get_data(as_text=True)
    engine_game = create(client, {"game": "nim", "opponent": {"type": "engine", "level": 1}, "side": 0})
    assert engine_game["invite"] is None and engine_game["invite_url"] is None


def test_one_cookie_holds_every_seat_of_a_browser(app, client):
    answers = [client.post("/api/games", json={"game": "tictactoe", "opponent": {"type": "friend"}, "side": 0})
               for _ in range(30)]
    set_cookies = [cookie for answer in answers for cookie in answer.headers.getlist("Set-Cookie")]
    assert len(set_cookies) == 1 and set_cookies[0].startswith("arena_player=")  # set once, then reused
    assert len(client.get_cookie("arena_player").value) < 80
    games = [answer.json for answer in answers]
    for game in games:
        assert client.get(f"/api/games/{game['id']}").json["you"] == 0
        assert f'data-token="{game["token"]}"' in client.get(f"/g/{game['id']}").get_data(as_text=True)
    assert client.post(f"/api/games/{games[0]['id']}/alone", json={}).status_code == 200  # the cookie is enough
    assert client.post(f"/api/games/{games[0]['id']}/moves", json={"move": "5"}).status_code == 200
    stranger = app.test_client()
    assert stranger.get(f"/api/games/{games[0]['id']}").json["you"] is None
    assert_error(stranger.post(f"/api/games/{games[1]['id']}/moves", json={"move": "5"}), 403, "bad_token")


def test_seat_cookies_of_earlier_versions_are_carried_over_and_expired(app):
    browser = app.test_client()
    created = create(app.test_client())
    legacy = f"arena_seat_{created['id']}"
    browser.set_cookie(legacy, created["token"])
    browser.set_cookie("arena_seat_forged1", issue_token("not the key", "forged1", 0))
    answer = browser.get(f"/api/games/{created['id']}")
    assert answer.json["you"] == 0
    set_cookies = answer.headers.getlist("Set-Cookie")
    assert any(c.startswith(f"{legacy}=;") and "Expires=Thu, 01 Jan 1970" in c for c in set_cookies)
    assert any(c.startswith("arena_player=") for c in set_cookies)
    assert browser.get_cookie(legacy) is None and browser.get_cookie("arena_seat_forged1") is None
    assert browser.get(f"/api/games/{created['id']}").json["you"] == 0
    assert browser.post(f"/api/games/{created['id']}/moves", json={"move": "5"}).status_code == 200


def test_a_request_carries_over_at_most_20_old_seat_cookies_each_counted_as_a_seat_taken(app):
    from sqlalchemy import func, select

    from webapp.store.tables import PlayerSeatRow

    store = app.extensions["arena"].store

    def rows() -> int:
        with store.database.sessions() as session:
            return session.scalar(select(func.count()).select_from(PlayerSeatRow))

    app.config["ARENA_SEAT_LIMIT"] = "30/day"  # the default's 30 a minute, over a window no test straddles
    created = create(app.test_client())
    secret = app.config["SECRET_KEY"]
    cookies = {f"arena_seat_old{n:03d}": issue_token(secret, f"old{n:03d}", 1) for n in range(299)}
    cookies[f"arena_seat_{created['id']}"] = created["token"]  # sent last: read first, being the game asked for
    asked = f"/api/games/{created['id']}"

    def browser(address: str = "127.0.0.1", leave_out: int | None = None):
        """A client without an identity holding ``cookies`` (but the ``leave_out``-th), as a script sends them."""
        client = app.test_client()
        client.environ_base["REMOTE_ADDR"] = address
        for number, (name, value) in enumerate(cookies.items()):
            if number != leave_out:
                client.set_cookie(name, value)
        return client

    def expired(answer) -> set[str]:
        return {c.split("=", 1)[0] for c in answer.headers.getlist("Set-Cookie") if "Expires=Thu, 01 Jan 1970" in c}

    before = rows()
    answer = browser().get(asked)
    assert answer.status_code == 200 and answer.json["you"] == 0
    assert len(expired(answer)) == 20 and f"arena_seat_{created['id']}" in expired(answer)
    assert expired(answer) <= set(cookies)
    assert rows() == before + 20

    # The same cookies again, from anywhere: the same identity, the same rows.
    again = browser("127.0.0.2").get(asked)
    assert again.json["you"] == 0 and expired(again) == expired(answer)
    assert rows() == before + 20

    # Other sets of them (other identities) from the first address: its 30 seats are 20 used, so each
    # request carries over only the asked game's seat, while one fits; then nothing, and every request is served.
    answers = [browser(leave_out=number).get(asked) for number in range(15)]
    assert [a.json["you"] for a in answers] == [0] * 10 + [None] * 5
    assert [len(expired(a)) for a in answers] == [1] * 10 + [0] * 5
    assert rows() == before + 30
