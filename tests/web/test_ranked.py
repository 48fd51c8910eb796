"""Ranked play in a real browser: a guest is asked to sign in; two browsers signed in to two
accounts both queue for the same game and both land at the same table; the profile shows a
rating and the leaderboard lists it.  Every ranked screen fits a phone (360 px) and a laptop,
with 44 px targets and no serious axe-core finding (tests/web/screens.py)."""

from __future__ import annotations

import asyncio
import re
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, expect

from facedown.engine import make_ruleset
from facedown.server.accounts.passwords import PasswordCost
from facedown.server.base.text import name_key
from facedown.server.edge.settings import ServerSettings
from facedown.server.modes.matchmaking import RankedConfig
from facedown.server.modes.ranked_mode import RANKED_OPTIONS
from facedown.server.play.table import TableConfig
from facedown.store import (
    MemoryStore,
    RankedMatchRecord,
    RankedSeat,
    RatingRecord,
    SeatRecord,
    TableRecord,
)

from ..server.harness import RunningServer, run_server
from .screens import PHONE, check_screen
from .test_browser import new_page, no_js_errors

PASSWORD = "a long passphrase"  # noqa: S105 - a test account's


@pytest.fixture
def store() -> MemoryStore:
    return MemoryStore()


@pytest.fixture
def server(tmp_path: Path, store: MemoryStore) -> Iterator[RunningServer]:
    settings = ServerSettings(
        data_dir=tmp_path,
        secret="ranked-browser-test",
        # Slow timers: the checks of each screen take a while on a busy machine.
        table=TableConfig(bot_delay=0.25, reveal_seconds=120, grace_seconds=120),
        ranked=RankedConfig(tick=0.2, peek_seconds=600, turn_seconds=600, min_account_age=0.0),
        password_cost=PasswordCost(time_cost=1, memory_kib=8 * 1024, parallelism=1),
    )
    with run_server(settings, store) as running:
        yield running


def sign_up(page: Page, server: RunningServer, name: str) -> None:
    page.goto(server.url + "/profile")
    page.get_by_test_id("account-switch").click()
    page.get_by_test_id("account-name").fill(name)
    page.get_by_test_id("account-password").fill(PASSWORD)
    page.get_by_test_id("account-submit").click()
    expect(page.get_by_test_id("account-title")).to_have_text(name)


def queue_for(page: Page, preset: str, players: int) -> None:
    page.get_by_test_id("ranked-link").click()
    page.get_by_test_id("ranked-preset").select_option(preset)
    page.get_by_test_id("ranked-players").select_option(str(players))
    page.get_by_test_id("ranked-join").click()


def test_two_signed_in_browsers_queue_and_meet_at_one_table(
    browser: Browser, server: RunningServer, store: MemoryStore
) -> None:
    ann_context, ann = new_page(browser, PHONE[0], PHONE[1], reduced_motion=True)
    bob_context, bob = new_page(browser, PHONE[0], PHONE[1], reduced_motion=True)

    # A guest is asked to sign in first.
    ann.goto(server.url + "/ranked")
    expect(ann.get_by_test_id("ranked-signed-out")).to_be_visible()
    check_screen(ann, "ranked-signed-out")

    sign_up(ann, server, "Annika")
    ann.get_by_test_id("ranked-link").click()
    ann.get_by_test_id("ranked-preset").select_option("kivo")
    ann.get_by_test_id("ranked-players").select_option("2")
    expect(ann.get_by_test_id("ranked-queue-info")).to_contain_text("nobody waiting")
    check_screen(ann, "ranked")
    ann.get_by_test_id("ranked-join").click()
    expect(ann.get_by_test_id("ranked-waiting")).to_be_visible()
    expect(ann.get_by_test_id("ranked-expected")).to_contain_text("no estimate")
    check_screen(ann, "ranked-waiting")
    ann.get_by_test_id("language").click()
    expect(ann.get_by_test_id("ranked-leave")).to_have_text("Warteschlange verlassen")
    check_screen(ann, "ranked-waiting-de")
    ann.get_by_test_id("language").click()

    sign_up(bob, server, "Bobby")
    queue_for(bob, "kivo", 2)

    # Both are matched, and both land at the same table, in their seats.
    for page in (ann, bob):
        expect(page).to_have_url(re.compile(r"/t/[A-Z0-9]+$"), timeout=30_000)
        expect(page.get_by_test_id("game")).to_be_visible(timeout=30_000)
    assert ann.url == bob.url
    check_screen(ann, "ranked-table")

    # A rated match of Annika's (written to the store as a finished match's rating would be):
    # the profile shows it, and the leaderboard lists it.
    with ThreadPoolExecutor(1) as thread:  # Playwright's own loop runs in this thread
        thread.submit(asyncio.run, _rated(store, "Annika")).result()
    ann.goto(server.url + "/profile")
    expect(ann.get_by_test_id("rating")).to_contain_text("Kivo, 2 players")
    expect(ann.get_by_test_id("rating")).to_contain_text("1120")
    expect(ann.get_by_test_id("rating")).to_contain_text("provisional")
    check_screen(ann, "profile-ratings")
    ann.get_by_test_id("rating").get_by_role("link").click()
    expect(ann.get_by_test_id("leaderboard-row")).to_have_count(1)
    expect(ann.get_by_test_id("leaderboard-row")).to_contain_text("Annika")
    check_screen(ann, "leaderboard")
    ann.goto(server.url + "/ranked/leaderboard/boyo-4")
    expect(ann.get_by_test_id("leaderboard-empty")).to_be_visible()
    no_js_errors(ann, bob)
    ann_context.close()
    bob_context.close()


async def _rated(store: MemoryStore, name: str) -> None:
    user = await store.find_user(name_key(name))
    assert user is not None
    await store.enqueue(user.id, "kivo-2", 1.0)
    seats = (SeatRecord(0, "human", name, user.player_id),)
    rules = make_ruleset("kivo", RANKED_OPTIONS).to_json()
    record = TableRecord(
        "rated", "RATED1", "kivo", rules, 1, "ranked", seats=seats, status="finished"
    )
    await store.create_ranked_match(
        record, RankedMatchRecord("rated", "kivo-2", 1.0, (RankedSeat(0, user.id, 1.0),))
    )
    rating = RatingRecord(user.id, "kivo-2", 28.0, 1.0, 3.0, 1, 2.0)  # shown: 1000 + 40 x 3
    assert await store.rate_match("rated", 2.0, {"places": [1]}, [rating])
