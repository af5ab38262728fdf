"""A game page refused by a full server (``ARENA_MAX_SOCKETS``, ``503 server_full``) says so, keeps trying, and
joins the game once a connection is free."""

from __future__ import annotations

import pytest
from playwright.sync_api import Browser, expect
from support.pages import open_page
from support.servers import GENEROUS_CONNECTIONS, EventClient, LiveServer

pytestmark = pytest.mark.servers


def test_a_page_refused_by_a_full_server_says_so_and_joins_once_there_is_room(tmp_path, browser: Browser) -> None:
    server = LiveServer(tmp_path / "instance", env={**GENEROUS_CONNECTIONS, "ARENA_MAX_SOCKETS": "1"}).start()
    try:
        created = server.post("/api/games", {"game": "nim", "options": {"piles": [3, 4]},
                                             "opponent": {"type": "friend", "open": True}, "side": 0}).json()
        second = server.post(f"/api/games/{created['id']}/seats", {}).json()
        holder = EventClient(server.url)
        page, errors = open_page(browser)
        page.goto(server.url + created["url"])
        expect(page.locator("#toast")).to_contain_text("server is full", timeout=30_000)
        holder.close()
        assert server.post(f"/api/games/{created['id']}/moves", {"move": "1:1", "token": created["token"]}).ok
        assert second["seat"] == 1
        expect(page.locator("#moves button")).to_have_count(1, timeout=60_000)
        assert errors == []
        page.context.close()
    finally:
        server.stop()
