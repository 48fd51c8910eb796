"""A turn-based table in a real browser: one account signed in on two devices (two browser
contexts), the games list marking the table that waits for its move, moves made on either
device and seen on the other, and Recollection opened to show what the seat has learned."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, BrowserContext, Page, expect

from facedown.server.accounts.passwords import PasswordCost
from facedown.server.edge.settings import ServerSettings
from facedown.server.play.table import TableConfig

from ..server.harness import RunningServer, start
from ..server.harness import run_server as serve
from .conftest import Shots
from .screens import check_screen
from .test_profile import PASSWORD, fill_account, open_page

# A stacked first deal: Ann (seat 0) holds 4 4 9 2 and draws a 1 first; she starts.
DEAL = {
    "hands": [["4", "4", "9", "2"], ["7", "3", "8", "6"]],
    "discard": "5",
    "draw": ["1"],
    "first": 0,
}


def _settings(tmp_path: Path, bot_delay: float) -> ServerSettings:
    return ServerSettings(
        data_dir=tmp_path,
        secret="turn-based-browser-test",
        table=TableConfig(bot_delay=bot_delay, reveal_seconds=120),
        password_cost=PasswordCost(time_cost=1, memory_kib=8 * 1024, parallelism=1),
        test_hooks=True,  # the stacked deal
    )


@pytest.fixture
def server(tmp_path: Path) -> Iterator[RunningServer]:
    with serve(_settings(tmp_path, 0.25)) as running:
        yield running


# A bot that waits BOT_WAIT seconds before each move: the steps between Ann's discard and her
# look at Recollection happen before the bot's next move (with a quarter of a second, a busy
# machine sometimes saw the bot hold its drawn card, or know a card more, in between).
BOT_WAIT = 3.0


@pytest.fixture
def slow_bot_server(tmp_path: Path) -> Iterator[RunningServer]:
    with serve(_settings(tmp_path, BOT_WAIT)) as running:
        yield running


def _client(page: Page, path: str) -> Any:
    """A value of the page's table client (window.__facedown), e.g. ``s.view.holding``."""
    return page.evaluate(f"() => window.__facedown?.{path}")


def _wait(page: Page, condition: str) -> None:
    page.wait_for_function(f"() => {{ const c = window.__facedown; return !!c && ({condition}); }}")


def ann_at_a_turn_based_table(
    context: BrowserContext, server: RunningServer, **extra: Any
) -> dict[str, Any]:
    """Ann signs up in this browser and opens a turn-based kivo table against a bot, dealt
    ``DEAL``, not started yet; the table as created (its code, Ann's token)."""
    signup = {"name": "Ann", "password": PASSWORD, "guest_tokens": []}
    r = context.request.post(f"{server.url}/api/account/signup", data=signup)
    assert r.status == 201, r.text()
    body = {
        "preset": "kivo",
        "seats": 2,
        "name": "Ann",
        "options": {"rounds": 1},
        "bots": ["random"],
        "mode": "turn_based",
        "deal": DEAL,
        **extra,
    }
    r = context.request.post(f"{server.url}/api/tables", data=body)
    assert r.status == 200, r.text()
    created: dict[str, Any] = r.json()
    return created


def test_a_turn_based_move_on_two_devices_and_recollection(
    browser: Browser, slow_bot_server: RunningServer, shots: Shots
) -> None:
    server = slow_bot_server
    laptop_ctx, laptop = open_page(browser)
    phone_ctx, phone = open_page(browser, 360)
    contexts: list[BrowserContext] = [laptop_ctx, phone_ctx]
    try:
        # On the laptop, Ann has an account and opens a turn-based table against a bot.
        code = ann_at_a_turn_based_table(laptop_ctx, server, seed=7)["code"]
        laptop.goto(f"{server.url}/t/{code}")  # the account's seat, found by the page
        laptop.get_by_test_id("start").click()
        expect(laptop.get_by_test_id("game")).to_be_visible()
        expect(laptop.get_by_test_id("card-0-0")).to_be_visible()  # seat 0: Ann's

        # On the phone Ann signs in: her games list marks the table waiting for her move.
        phone.goto(f"{server.url}/profile")
        fill_account(phone, "Ann", PASSWORD)
        expect(phone.get_by_test_id("account-title")).to_have_text("Ann")
        expect(phone.get_by_test_id("games-badge")).to_have_text("1")
        phone.get_by_test_id("games-link").click()
        game = phone.get_by_test_id(f"game-{code}")
        expect(game).to_have_attribute("data-your-move", "yes")
        expect(game).to_contain_text("Your move")
        check_screen(phone, "turn-based-games")  # 360 px, 44 px targets, axe-core
        game.get_by_role("link").click()
        expect(phone.get_by_test_id("game")).to_be_visible()

        # The opening look, on the phone; the laptop sees that Ann has looked.
        phone.get_by_test_id("card-0-0").click()
        phone.get_by_test_id("card-0-1").click()
        expect(phone.get_by_test_id("card-0-0")).to_have_attribute("data-face", "4")
        _wait(laptop, "c.s.view?.peeked?.[0] === true")

        # Recollection, opened on the laptop: the two cards looked at on the phone.
        laptop.get_by_test_id("recollection-open").click()
        recalled = laptop.get_by_test_id("recollection").locator("li")
        expect(recalled).to_have_count(2)
        expect(laptop.get_by_test_id("recalled-0:0")).to_contain_text("4")
        expect(laptop.get_by_test_id("recalled-0:1")).to_contain_text("4")
        shots.take(laptop, "turn-based-recollection")

        # Ann's turn (once the bot has looked): she draws on the laptop ...
        draw = laptop.get_by_test_id("act-draw")
        expect(draw).to_be_visible(timeout=4 * BOT_WAIT * 1000)
        draw.click()
        # ... and the phone, the same seat, holds the drawn card and discards it.
        _wait(phone, "c.s.view?.held === '1'")
        phone.get_by_test_id("act-discard").click()
        _wait(laptop, "c.s.view?.top_discard === '1'")
        assert _client(laptop, "s.view.holding") is False
        # Recollection on the phone knows the same cards (a discarded card is no longer held).
        phone.get_by_test_id("recollection-open").click()
        expect(phone.get_by_test_id("recollection").locator("li")).to_have_count(2)
        check_screen(phone, "turn-based-recollection")
        # The settings of a new table, turn-based: the deadline from the list, kivo's rounds.
        phone.goto(f"{server.url}/new/kivo")
        phone.get_by_test_id("mode-turn-based").check()
        expect(phone.get_by_test_id("settings-deadline")).to_have_value("86400")
        rounds = phone.get_by_test_id("settings-rounds").locator("option")
        expect(rounds).to_have_text(["1", "3", "5"])
        check_screen(phone, "turn-based-settings")
        for page in (laptop, phone):
            assert getattr(page, "js_errors") == []  # noqa: B009 - set by open_page
    finally:
        for context in contexts:
            context.close()


def test_a_live_table_shows_no_recollection(browser: Browser, server: RunningServer) -> None:
    context, page = open_page(browser)
    try:
        body = {"preset": "kivo", "seats": 2, "name": "Bo", "bots": ["random"], "deal": DEAL}
        r = context.request.post(f"{server.url}/api/tables", data=body)
        assert r.status == 200, r.text()
        created = r.json()
        page.goto(f"{server.url}/t/{created['code']}#seat={created['token']}")
        page.get_by_test_id("start").click()
        page.get_by_test_id("card-0-0").click()
        page.get_by_test_id("card-0-1").click()
        expect(page.get_by_test_id("card-0-0")).to_have_attribute("data-face", "4")
        _wait(page, "c.s.view?.peeked?.[0] === true")
        assert _client(page, "s.view.knowledge") is None
        expect(page.get_by_test_id("recollection")).to_have_count(0)
    finally:
        context.close()


# The page's visibility, as the test sets it (a browser driven by Playwright reports every page
# as visible), and every notification the page shows, recorded on the way to the browser's own.
HIDDEN_TAB_AND_NOTICES = """
window.__hidden = false;
Object.defineProperty(document, "visibilityState", {
  configurable: true,
  get: () => (window.__hidden ? "hidden" : "visible"),
});
window.__notices = [];
const BrowserNotification = window.Notification;
window.Notification = class extends BrowserNotification {
  constructor(title, options) {
    super(title, options);
    window.__notices.push({ title, body: options?.body, tag: options?.tag, shown: this });
  }
};
"""


def test_a_game_that_starts_waiting_in_a_hidden_tab_is_announced(
    browser: Browser, server: RunningServer
) -> None:
    """Ann allowed notifications; her games page is in a tab she is not looking at when her
    turn-based table starts waiting for her move: at the next look at her games (every minute)
    the browser shows "Your move", and clicking it opens the table."""
    context, page = open_page(browser)
    try:
        context.grant_permissions(["notifications"], origin=server.url)
        page.add_init_script(HIDDEN_TAB_AND_NOTICES)
        page.clock.install()
        created = ann_at_a_turn_based_table(context, server)
        code, token = created["code"], created["token"]

        page.goto(f"{server.url}/games")
        game = page.get_by_test_id(f"game-{code}")
        expect(game).to_be_visible()
        expect(game).to_have_attribute("data-your-move", "no")  # not started: nobody's move
        expect(page.get_by_test_id("games-notify")).to_have_count(0)  # already allowed
        page.evaluate("() => { window.__hidden = true; }")  # Ann looks at another tab

        with ThreadPoolExecutor(1) as thread:  # the sync browser API holds this thread's loop
            thread.submit(asyncio.run, start(server, code, token)).result()  # Ann's move now
        page.clock.fast_forward(61_000)  # the minute after which the list is asked again
        page.wait_for_function("() => window.__notices.length > 0")
        notices = page.evaluate(
            "() => window.__notices.map(({ title, body, tag }) => ({ title, body, tag }))"
        )
        assert notices == [
            {
                "title": "Your move",
                "body": f"Kivo at table {code} waits for your move.",
                "tag": f"facedown-{code}",
            }
        ]
        assert page.title() == "(1) Facedown"
        page.evaluate("() => window.__notices[0].shown.onclick()")  # Ann clicks it
        page.wait_for_url(f"{server.url}/t/{code}")
        assert getattr(page, "js_errors") == []  # noqa: B009 - set by open_page
    finally:
        context.close()
