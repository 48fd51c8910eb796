"""The profile page in a real browser: a guest with a finished match signs up and finds it in
their history (with its replay link), signs in on a second device, ends that device's session,
changes the password, signs out and in again; a wrong password is refused with a message."""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from playwright.sync_api import Browser, BrowserContext, Page, expect

from facedown.server.accounts.passwords import PasswordCost
from facedown.server.edge.settings import ServerSettings
from facedown.server.play.table import TableConfig

from ..server.harness import Player, RunningServer, create_table, run_server, start
from .conftest import Shots

WAIT = 20_000
PASSWORD = "a long passphrase"  # noqa: S105 - a test account's
NEW_PASSWORD = "another passphrase"  # noqa: S105 - a test account's


@pytest.fixture
def server(tmp_path: Path) -> Iterator[RunningServer]:
    # Real argon2id hashes, at a cost that keeps a busy test machine quick.
    settings = ServerSettings(
        data_dir=tmp_path,
        secret="profile-test-secret",
        table=TableConfig(bot_delay=0.25, reveal_seconds=0.01),
        password_cost=PasswordCost(time_cost=1, memory_kib=8 * 1024, parallelism=1),
    )
    with run_server(settings) as running:
        yield running


# The elements that reach past the right edge of the screen (tag, class, test id, right edge).
WIDER_THAN_THE_SCREEN = """() => [...document.querySelectorAll("body *")]
  .filter((e) => e.getBoundingClientRect().right > document.documentElement.clientWidth + 0.5
    && !e.closest(".scroll"))
  .map((e) => [e.tagName, e.className, e.dataset.testid || "", e.getBoundingClientRect().right])"""


def open_page(browser: Browser, width: int = 1024) -> tuple[BrowserContext, Page]:
    context = browser.new_context(viewport={"width": width, "height": 900}, locale="en-US")
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.on(
        "console",
        lambda m: errors.append(m.text) if "Content Security Policy" in m.text else None,
    )
    page.set_default_timeout(WAIT)
    setattr(page, "js_errors", errors)  # noqa: B010 - checked at the end
    return context, page


async def _play_out(server: RunningServer, code: str, tokens: list[str]) -> None:
    await start(server, code, tokens[0])
    players = [Player(server.ws_url, code, t, seed=i) for i, t in enumerate(tokens)]
    async with asyncio.timeout(120):
        await asyncio.gather(*(p.play(tap_rate=0.0) for p in players))
    assert all(p.done for p in players)


def fill_account(page: Page, name: str, password: str) -> None:
    page.get_by_test_id("account-name").fill(name)
    page.get_by_test_id("account-password").fill(password)
    page.get_by_test_id("account-submit").click()


def test_sign_up_sign_in_and_the_profile_page(
    browser: Browser, server: RunningServer, shots: Shots
) -> None:
    # A guest finished a match at a table; this browser holds the seat token (as it does after
    # playing there).
    code, tokens = create_table(server, "kivo", 2, options={"rounds": 1})
    # In a thread of its own: Playwright's sync API runs an event loop in this one.
    with ThreadPoolExecutor(1) as thread:
        thread.submit(asyncio.run, _play_out(server, code, tokens)).result()
    seats = [{"code": code, "token": tokens[0], "name": "Ann", "preset": "kivo", "at": 1}]

    laptop, page = open_page(browser)
    laptop.add_init_script(
        f"localStorage.setItem('facedown.seats', {json.dumps(json.dumps(seats))})"
    )
    page.goto(server.url + "/")
    expect(page.get_by_test_id("profile-link")).to_have_text("Sign in", timeout=WAIT)
    page.get_by_test_id("profile-link").click()
    expect(page).to_have_url(re.compile(r"/profile$"), timeout=WAIT)
    page.get_by_test_id("account-switch").click()
    fill_account(page, "Ann", PASSWORD)
    expect(page.get_by_test_id("account-title")).to_have_text("Ann", timeout=WAIT)
    expect(page.get_by_test_id("profile-link")).to_have_text("Ann", timeout=WAIT)
    expect(page.get_by_test_id("no-ratings")).to_be_visible(timeout=WAIT)
    # The guest's match is the account's now, linked to its replay.
    rows = page.get_by_test_id("history-row")
    expect(rows).to_have_count(1, timeout=WAIT)
    expect(rows.first).to_contain_text(code, timeout=WAIT)
    expect(rows.first).to_contain_text("Ann", timeout=WAIT)
    link = rows.first.get_by_test_id("replay-link")
    assert re.fullmatch(r"#/replay/[^/]+/1", link.get_attribute("href") or "")
    expect(page.get_by_test_id("session")).to_have_count(1, timeout=WAIT)
    shots.take(page, "profile")
    # The session cookie is out of reach of scripts.
    assert page.evaluate("() => document.cookie") == ""

    # A second device: a wrong password first, then the right one.
    phone, other = open_page(browser, width=360)
    other.goto(server.url + "/profile")
    fill_account(other, "Ann", "not the password")
    expect(other.get_by_test_id("account-error")).to_have_text(
        "Wrong user name or password.", timeout=WAIT
    )
    fill_account(other, "Ann", PASSWORD)
    expect(other.get_by_test_id("account-title")).to_have_text("Ann", timeout=WAIT)
    expect(other.get_by_test_id("history-row")).to_have_count(1, timeout=WAIT)
    shots.take(other, "profile-360")
    # Nothing wider than the phone: the history table scrolls inside its panel.
    wide = other.evaluate(WIDER_THAN_THE_SCREEN)
    assert wide == [], wide

    # The laptop sees both devices and signs the phone out.
    page.reload()
    expect(page.get_by_test_id("session")).to_have_count(2, timeout=WAIT)
    page.get_by_test_id("revoke").click()
    expect(page.get_by_test_id("session")).to_have_count(1, timeout=WAIT)
    other.reload()
    expect(other.get_by_test_id("account-submit")).to_be_visible(timeout=WAIT)

    # The phone signs in again; the laptop changes the password, which signs the phone out.
    fill_account(other, "Ann", PASSWORD)
    expect(other.get_by_test_id("account-title")).to_have_text("Ann", timeout=WAIT)
    page.get_by_test_id("current-password").fill(PASSWORD)
    page.get_by_test_id("new-password").fill(NEW_PASSWORD)
    page.get_by_test_id("change-password").click()
    expect(page.get_by_role("status")).to_contain_text(
        "one other device was signed out", timeout=WAIT
    )
    other.reload()
    expect(other.get_by_test_id("account-submit")).to_be_visible(timeout=WAIT)

    # Sign out, and back in with the new password.
    page.get_by_test_id("sign-out").click()
    expect(page.get_by_test_id("account-submit")).to_be_visible(timeout=WAIT)
    expect(page.get_by_test_id("profile-link")).to_have_text("Sign in", timeout=WAIT)
    fill_account(page, "Ann", NEW_PASSWORD)
    expect(page.get_by_test_id("account-title")).to_have_text("Ann", timeout=WAIT)

    # Sign out everywhere: the phone (signed in again) is out too.
    fill_account(other, "Ann", NEW_PASSWORD)
    expect(other.get_by_test_id("account-title")).to_have_text("Ann", timeout=WAIT)
    page.get_by_test_id("sign-out-everywhere").click()
    expect(page.get_by_test_id("account-submit")).to_be_visible(timeout=WAIT)
    other.reload()
    expect(other.get_by_test_id("account-submit")).to_be_visible(timeout=WAIT)
    for p in (page, other):
        assert getattr(p, "js_errors", []) == []
    laptop.close()
    phone.close()


def test_a_signed_in_player_opens_a_table_with_the_account(
    browser: Browser, server: RunningServer
) -> None:
    context, page = open_page(browser)
    page.goto(server.url + "/profile")
    page.get_by_test_id("account-switch").click()
    fill_account(page, "Sam", PASSWORD)
    expect(page.get_by_test_id("account-title")).to_have_text("Sam", timeout=WAIT)
    # Play against bots from the home page: the table's seat is the account's.
    page.get_by_test_id("profile-link").click()  # back to the profile: no change
    page.goto(server.url + "/")
    page.get_by_test_id("name").fill("Sam")
    page.get_by_test_id("play-now").click()
    expect(page).to_have_url(re.compile(r"/t/[A-Z0-9]+$"), timeout=WAIT)
    table_code = page.url.rsplit("/", 1)[1]
    # On another device, signed in to the same account, joining by code takes the same seat.
    phone, other = open_page(browser)
    other.goto(server.url + "/profile")
    fill_account(other, "Sam", PASSWORD)
    expect(other.get_by_test_id("account-title")).to_have_text("Sam", timeout=WAIT)
    answer = other.evaluate(
        """async (code) => {
          const r = await fetch(`/api/tables/${code}/join`, {
            method: "POST", headers: {"content-type": "application/json"},
            body: JSON.stringify({name: "Sam"})});
          return (await r.json()).seat;
        }""",
        table_code,
    )
    assert answer == 0
    assert getattr(page, "js_errors", []) == []
    context.close()
    phone.close()
