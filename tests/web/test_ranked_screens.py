"""The ranked screens' layout in a real browser, at a phone's size and a laptop's, in English and
German: the header's links and button are 44 x 44 px targets inside the viewport; the
leaderboard shows a provisional rating whole on a phone; the profile names each session by its
browser and system ("Chrome on Linux"), not by its raw User-Agent."""

from __future__ import annotations

import asyncio
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from playwright.sync_api import Browser, Page, expect

from facedown.store import MemoryStore

from ..server.harness import RunningServer
from .screens import SIZES, TOUCH, check_screen, inside_viewport
from .test_browser import new_page, no_js_errors
from .test_ranked import _rated, server, sign_up, store

__all__ = ["server", "store"]  # the fixtures, taken from the ranked browser tests

LONG_NAME = "Maximiliane-Alexandra"

HEADER_TARGETS = """(least) => [...document.querySelectorAll("header.top a, header.top button")]
  .map((el) => {
    const r = el.getBoundingClientRect();
    return { what: el.textContent.trim(), width: r.width, height: r.height };
  })
  .filter((t) => t.width < least - 0.5 || t.height < least - 0.5)"""


def header_problems(page: Page) -> list[Any]:
    small: list[Any] = page.evaluate(HEADER_TARGETS, TOUCH)
    return small + inside_viewport(page, "header.top a, header.top button")


def each_size(page: Page, check: Any) -> None:
    for width, height in SIZES:
        page.set_viewport_size({"width": width, "height": height})
        page.wait_for_function("w => window.innerWidth === w", arg=width)
        check(width)


def test_header_targets_leaderboard_and_sessions_fit(
    browser: Browser, server: RunningServer, store: MemoryStore
) -> None:
    context, page = new_page(browser, 360, 740, reduced_motion=True)

    # Signed out, then signed in (one link more, and a name), in both languages.
    page.goto(server.url + "/")
    expect(page.get_by_test_id("ranked-link")).to_be_visible()
    for signed_in in (False, True):
        if signed_in:
            sign_up(page, server, LONG_NAME)
            expect(page.get_by_test_id("games-link")).to_be_visible()
        for _ in range(2):  # English, then German (and back)

            def header(width: int) -> None:
                found = header_problems(page)
                assert found == [], f"header at {width} px: {found}"

            each_size(page, header)
            page.get_by_test_id("language").click()
    page.set_viewport_size({"width": 360, "height": 740})

    # The profile: this browser's session by name, the raw agent only in its tooltip.
    expect(page.get_by_test_id("session-agent")).to_have_text("Chrome on Linux")
    agent = page.get_by_test_id("session-agent").get_attribute("title") or ""
    assert "Mozilla/5.0" in agent
    expect(page.get_by_test_id("sessions")).not_to_contain_text("Mozilla")
    page.get_by_test_id("language").click()
    expect(page.get_by_test_id("session-agent")).to_have_text("Chrome unter Linux")
    page.get_by_test_id("language").click()
    check_screen(page, "profile-sessions")

    # A provisional rating of a long name: whole on a phone, nothing to scroll sideways.
    with ThreadPoolExecutor(1) as thread:  # Playwright's own loop runs in this thread
        thread.submit(asyncio.run, _rated(store, LONG_NAME)).result()
    page.goto(server.url + "/ranked/leaderboard/kivo-2")
    rating = page.get_by_test_id("leaderboard-rating")
    expect(rating).to_contain_text("1120")
    expect(rating).to_contain_text("provisional")
    for language in ("en", "de"):

        def board(width: int, language: str = language) -> None:
            clipped: list[Any] = page.evaluate(
                """() => [...document.querySelectorAll("[data-testid=leaderboard] .scroll")]
                  .filter((b) => b.scrollWidth > b.clientWidth + 0.5)
                  .map((b) => [b.scrollWidth, b.clientWidth])"""
            )
            assert clipped == [], f"the leaderboard scrolls sideways at {width} px ({language})"
            cells = "[data-testid=leaderboard-row] td, [data-testid=leaderboard-row] td *"
            assert inside_viewport(page, cells) == [], width

        each_size(page, board)
        page.get_by_test_id("language").click()
    expect(rating).to_contain_text("provisional")
    check_screen(page, "leaderboard-provisional")
    no_js_errors(page)
    context.close()
