"""Helpers shared by the browser tests: a page of its own for each person, and typing a chess move."""

from __future__ import annotations

from playwright.sync_api import Browser, Page


def open_page(browser: Browser, width: int = 1280, height: int = 900) -> tuple[Page, list[str]]:
    """A page in a fresh context (its own cookies, the dark theme, downloads accepted) and the list its script
    errors are collected in."""
    context = browser.new_context(viewport={"width": width, "height": height}, color_scheme="dark",
                                  accept_downloads=True)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    return page, errors


def type_move(page: Page, text: str) -> None:
    """Type ``text`` in the chess move field and press Enter."""
    page.fill("#move-text", text)
    page.press("#move-text", "Enter")
