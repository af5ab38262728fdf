"""Headless Chromium for the browser tests: Debian's /usr/bin/chromium driven by Playwright (never its own
download), and the folder where the tests leave their screenshots (tests/artifacts, not committed)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, expect, sync_playwright

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
    "--disable-sync", "--no-first-run",
]
ARTIFACTS = Path(__file__).resolve().parent.parent / "artifacts"

expect.set_options(timeout=15_000)
"""The machine's two cores are shared with the engine's worker processes: give each expectation room to wait."""


@pytest.fixture(scope="session")
def browser() -> Iterator[Browser]:
    """One Chromium for the whole session; each test opens its own contexts (separate cookies, like two people)."""
    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()


@pytest.fixture
def artifacts() -> Path:
    """Where screenshots go, to be looked at after the run."""
    ARTIFACTS.mkdir(exist_ok=True)
    return ARTIFACTS


@pytest.fixture(autouse=True)
def contexts_closed_after(browser: Browser) -> Iterator[None]:
    """Every browser context a test opened is closed once it ends: a page left open would go on running for the rest
    of the session (its socket reconnecting to a stopped server, a running clock redrawn, a pulse animated)."""
    yield
    for context in browser.contexts:
        context.close()
