"""The screens of a turn-based table that only time brings, in a real browser in English and in
German: the deadline of a move (the table's timer in hours, the games list's "move due by"), a
missed deadline counted in the games list, the forfeit after three missed deadlines (on the
table and in the games list), and the prompt to allow notifications (asked, refused, allowed).
The server runs on a FakeClock, so a day's deadline passes when the test moves the clock on;
each screen gets the screens.py checks at both sizes and a screenshot."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, BrowserContext, Page, expect

from facedown.server.accounts.passwords import PasswordCost
from facedown.server.base.clock import FakeClock
from facedown.server.edge.settings import ServerSettings
from facedown.server.play.table import TableConfig

from ..server.harness import RunningServer, advance, run_server
from .screens import check_screen
from .test_profile import PASSWORD
from .test_turn_based import DEAL

LOCALES = {"en": "en-US", "de": "de-DE"}
DAY = 86400
WAIT = 20_000  # ms


@pytest.fixture
def clocked_server(tmp_path: Path) -> Iterator[tuple[RunningServer, FakeClock]]:
    settings = ServerSettings(
        data_dir=tmp_path,
        secret="deadline-screens-test",
        table=TableConfig(bot_delay=0.0, reveal_seconds=120),
        password_cost=PasswordCost(time_cost=1, memory_kib=8 * 1024, parallelism=1),
        test_hooks=True,  # the stacked deal
    )
    # Started at the real time: a page loaded while a timer runs takes the server's clock to be
    # the browser's (a real server's is), so a deadline in 2023 would show as run out.
    clock = FakeClock(start=time.time())
    with run_server(settings, clock=clock) as running:
        yield running, clock


def _move_clock(server: RunningServer, clock: FakeClock, seconds: float) -> None:
    """Move the server's clock on and run what falls due (in a thread of its own: the sync
    browser API holds this thread's event loop)."""
    with ThreadPoolExecutor(1) as thread:
        thread.submit(asyncio.run, advance(server, clock, seconds)).result()


def _open(browser: Browser, lang: str) -> tuple[BrowserContext, Page]:
    context = browser.new_context(viewport={"width": 1280, "height": 800}, locale=LOCALES[lang])
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.set_default_timeout(WAIT)
    setattr(page, "js_errors", errors)  # noqa: B010 - checked at the end
    return context, page


def _sign_up(context: BrowserContext, server: RunningServer) -> None:
    signup = {"name": "Ann", "password": PASSWORD, "guest_tokens": []}
    r = context.request.post(f"{server.url}/api/account/signup", data=signup)
    assert r.status == 201, r.text()


def _my_game(context: BrowserContext, server: RunningServer, code: str) -> dict[str, Any]:
    r = context.request.get(f"{server.url}/api/account/games")
    assert r.status == 200, r.text()
    game: dict[str, Any] = next(g for g in r.json()["games"] if g["code"] == code)
    return game


def _miss_a_deadline(
    context: BrowserContext, server: RunningServer, clock: FakeClock, code: str
) -> dict[str, Any]:
    """Let the bot move until the table waits for Ann, then let her deadline pass; her game as
    the games list has it afterwards."""
    game = _my_game(context, server, code)
    missed = game["missed"]
    for _ in range(50):
        _move_clock(server, clock, 0)  # the bot's move, if it is the bot's turn
        game = _my_game(context, server, code)
        if game["missed"] > missed:
            return game
        if game["deadline"] is not None and 0 in game["waiting_for"]:
            _move_clock(server, clock, game["deadline"] - clock.now() + 1)
    raise AssertionError(f"Ann's deadline never passed: {game}")


@pytest.mark.parametrize("lang", ["en", "de"])
def test_the_deadline_and_forfeit_screens(
    browser: Browser, clocked_server: tuple[RunningServer, FakeClock], lang: str
) -> None:
    server, clock = clocked_server
    context, page = _open(browser, lang)
    try:
        _sign_up(context, server)
        body = {
            "preset": "kivo",
            "seats": 2,
            "name": "Ann",
            "options": {"rounds": 1},
            "bots": ["random"],
            "mode": "turn_based",
            "move_deadline": DAY,
            "deal": DEAL,
        }
        r = context.request.post(f"{server.url}/api/tables", data=body)
        assert r.status == 200, r.text()
        code = r.json()["code"]
        page.goto(f"{server.url}/t/{code}")
        page.get_by_test_id("start").click()
        expect(page.get_by_test_id("game")).to_be_visible()

        # The deadline: a day for the opening look, said in hours on the table.
        timer = page.locator(".timer[role=timer]")
        hours = "Std." if lang == "de" else "h"
        expect(timer).to_contain_text(hours)
        check_screen(page, f"turn-based-deadline-{lang}")

        # A missed deadline: the timer played for Ann; her games list counts it.
        game = _miss_a_deadline(context, server, clock, code)
        assert game["missed"] == 1
        # Recollection: the two cards the server looked at for Ann when her time ran out.
        page.goto(f"{server.url}/t/{code}")
        page.get_by_test_id("recollection-open").click()
        expect(page.get_by_test_id("recollection").locator("li")).to_have_count(2)
        check_screen(page, f"turn-based-recollection-{lang}")
        page.goto(f"{server.url}/games")
        row = page.get_by_test_id(f"game-{code}")
        expect(row).to_contain_text("1 von 3" if lang == "de" else "1 of 3")
        expect(row).to_contain_text("Bot (Zufall)" if lang == "de" else "Bot (random)")
        if game["deadline"] is not None:
            expect(row).to_contain_text("Zug fällig bis" if lang == "de" else "Move by")
        check_screen(page, f"turn-based-missed-{lang}")

        # Two more: the seat is forfeited, a bot plays it to the end of the match.
        _miss_a_deadline(context, server, clock, code)
        game = _miss_a_deadline(context, server, clock, code)
        assert game["seats"][0]["forfeited"] is True, game
        page.goto(f"{server.url}/t/{code}")
        forfeit = page.get_by_test_id("forfeited")
        expect(forfeit).to_be_visible()
        expect(forfeit).to_contain_text("Drei verpasste Fristen" if lang == "de" else "Three")
        # Out of the match: Ann sees it as a spectator does, her seat's knowledge (the two
        # cards looked at for her) gone with the rest of its cards.
        expect(page.get_by_test_id("recollection")).to_have_count(0)
        check_screen(page, f"turn-based-forfeit-{lang}")

        page.goto(f"{server.url}/games")
        row = page.get_by_test_id(f"game-{code}")
        # The bot that took the seat plays on at once (its moves need no clock): the match may
        # already be over; the three missed deadlines are still counted.
        expect(row).to_contain_text("3 von 3" if lang == "de" else "3 of 3")
        check_screen(page, f"turn-based-forfeit-games-{lang}")
        assert getattr(page, "js_errors") == []  # noqa: B009 - set by _open
    finally:
        context.close()


@pytest.mark.parametrize("lang", ["en", "de"])
def test_the_notification_prompt(
    browser: Browser, clocked_server: tuple[RunningServer, FakeClock], lang: str
) -> None:
    """The games page asks to notify; refused, it says where to change that; allowed (in a
    browser that granted it), it says the browser will tell."""
    server, _ = clocked_server
    context, page = _open(browser, lang)
    allowed_ctx, allowed = _open(browser, lang)
    try:
        _sign_up(context, server)
        page.goto(f"{server.url}/games")
        ask = page.get_by_test_id("games-notify")
        expect(ask).to_be_visible()
        check_screen(page, f"notify-ask-{lang}")
        # Nobody granted this context the permission: the browser refuses when asked.
        ask.click()
        expect(ask).to_have_count(0)
        refused = "gesperrt" if lang == "de" else "blocked"
        expect(page.locator(".games")).to_contain_text(refused)
        check_screen(page, f"notify-refused-{lang}")

        allowed_ctx.grant_permissions(["notifications"], origin=server.url)
        r = allowed_ctx.request.post(
            f"{server.url}/api/account/signin", data={"name": "Ann", "password": PASSWORD}
        )
        assert r.status == 200, r.text()
        allowed.goto(f"{server.url}/games")
        expect(allowed.get_by_test_id("games-summary")).to_be_visible()
        expect(allowed.get_by_test_id("games-notify")).to_have_count(0)
        on = "Dieser Browser gibt Bescheid" if lang == "de" else "This browser"
        expect(allowed.locator(".games")).to_contain_text(on)
        check_screen(allowed, f"notify-allowed-{lang}")
        for p in (page, allowed):
            assert getattr(p, "js_errors") == []  # noqa: B009 - set by _open
    finally:
        context.close()
        allowed_ctx.close()
