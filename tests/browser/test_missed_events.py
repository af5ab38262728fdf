"""A page that misses events or gets them out of order still shows the game as the server has it: Playwright sits
between the server and the page's WebSocket and drops, holds back and reorders the server's messages."""

from __future__ import annotations

from collections.abc import Callable

import requests
from playwright.sync_api import Browser, Page, WebSocketRoute, expect
from support.waiting import eventually

NIM = {"game": "nim", "options": {"piles": [3, 4, 5]}, "opponent": {"type": "friend"}, "side": 0}
MOVES = ["1:1", "2:1", "3:1", "1:1", "2:1"]


class Interceptor:
    """Forwards the server's Socket.IO frames to the page, except those ``plan`` says to drop (``"drop"``) or hold
    back until the next forwarded frame of the same event has passed (``"hold"``). ``plan`` maps
    ``(event, n)`` (the n-th frame of that event, from 1) to an action; ``seen`` counts frames per event."""

    def __init__(self, plan: dict[tuple[str, int], str]) -> None:
        self.plan = plan
        self.seen: dict[str, int] = {}
        self.held: list[str] = []

    def route(self, ws: WebSocketRoute) -> None:
        server = ws.connect_to_server()

        def from_server(message: str | bytes) -> None:
            event = self.event_of(message)
            if event is None:
                ws.send(message)
                return
            self.seen[event] = self.seen.get(event, 0) + 1
            action = self.plan.get((event, self.seen[event]))
            if action == "drop":
                return
            if action == "hold":
                self.held.append(message)  # type: ignore[arg-type]
                return
            ws.send(message)
            while self.held:
                ws.send(self.held.pop(0))

        server.on_message(from_server)

    @staticmethod
    def event_of(message: str | bytes) -> str | None:
        if not isinstance(message, str) or not message.startswith('42["'):
            return None
        return message[4:message.index('"', 4)]


def wait_until(page: Page, condition: Callable[[], bool], what: str) -> None:
    """Let Playwright deliver messages until ``condition`` holds."""
    eventually(condition, what, timeout=15, interval=0.02, pause=lambda seconds: page.wait_for_timeout(seconds * 1000))


def friend_game(server_url: str) -> tuple[str, list[str]]:
    created = requests.post(server_url + "/api/games", json=NIM, timeout=10).json()
    second = requests.post(f"{server_url}/api/games/{created['id']}/seats", json={"invite": created["invite"]},
                           timeout=10).json()
    return created["id"], [created["token"], second["token"]]


def play(server_url: str, game_id: str, tokens: list[str], ply: int) -> None:
    answer = requests.post(f"{server_url}/api/games/{game_id}/moves",
                           json={"move": MOVES[ply - 1], "token": tokens[(ply - 1) % 2]}, timeout=10)
    assert answer.status_code == 200, answer.text


def test_a_page_that_loses_and_reorders_moves_shows_the_game_as_it_is(module_server, browser: Browser) -> None:
    game_id, tokens = friend_game(module_server.url)
    interceptor = Interceptor({("moved", 2): "drop", ("moved", 4): "hold"})
    page = browser.new_context().new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.route_web_socket("**/socket.io/**", interceptor.route)
    page.goto(f"{module_server.url}/g/{game_id}")
    expect(page.locator("#status-main")).not_to_have_text("Loading the game…")
    wait_until(page, lambda: interceptor.seen.get("watchers", 0) >= 1, "a watchers event")

    for ply in range(1, len(MOVES) + 1):
        play(module_server.url, game_id, tokens, ply)
        wait_until(page, lambda ply=ply: interceptor.seen.get("moved", 0) >= ply, f"the moved event of ply {ply}")
    assert interceptor.held == []  # the held-back move reached the page after the one that followed it

    server_state = requests.get(f"{module_server.url}/api/games/{game_id}", timeout=10).json()
    expect(page.locator("#moves button[data-ply]")).to_have_count(len(MOVES))
    page.wait_for_timeout(300)  # the late message has been handled by now; the page must not have gone back
    expect(page.locator("#moves button[data-ply]")).to_have_count(len(MOVES))
    assert page.locator("#moves button[data-ply]").last.get_attribute("title").endswith(MOVES[-1])
    assert server_state["version"] == 1 + len(MOVES) and errors == []


def test_a_spectator_that_misses_the_rematch_event_still_follows_the_players(module_server, browser: Browser):
    game_id, tokens = friend_game(module_server.url)
    interceptor = Interceptor({("rematch", 1): "drop"})
    page = browser.new_context().new_page()
    page.route_web_socket("**/socket.io/**", interceptor.route)
    page.goto(f"{module_server.url}/g/{game_id}")
    wait_until(page, lambda: interceptor.seen.get("watchers", 0) >= 1, "a watchers event")
    requests.post(f"{module_server.url}/api/games/{game_id}/resign", json={"token": tokens[1]}, timeout=10)
    offered = requests.post(f"{module_server.url}/api/games/{game_id}/rematch", json={"token": tokens[0]}, timeout=10)
    assert offered.status_code == 202  # offered; the other player's ask makes it
    made = requests.post(f"{module_server.url}/api/games/{game_id}/rematch", json={"token": tokens[1]},
                         timeout=10).json()
    wait_until(page, lambda: interceptor.seen.get("rematch", 0) >= 1, "a rematch event")
    expect(page.locator("#rematch-banner")).to_be_visible()
    expect(page.locator("#rematch-link")).to_have_attribute("href", f"/g/{made['id']}")
