"""The replay page in a browser: a finished match, stepped through face up and by a seat's eyes.

The match is played to its end by scripted clients through the real server; the page is opened
from the share link a player gets, from the players' own route, and from the match-end screen.
"""

from __future__ import annotations

import asyncio
import json
import random
import re
from concurrent.futures import ThreadPoolExecutor

from playwright.sync_api import Browser, Page, expect

from ..server.harness import RunningServer, create_table, play_to_end, seated
from .conftest import Shots

DOWN = "face down"


async def _finish(server: RunningServer, code: str, tokens: list[str]) -> None:
    async with seated(server, code, tokens) as clients:
        await clients[0].send({"type": "start"})
        for c in clients:
            await c.until("event")
        await play_to_end(clients, random.Random(11))


def _finished_match(server: RunningServer) -> tuple[str, list[str], dict[str, str]]:
    # Seeded (test hooks), so that the match has more than one round.
    code, tokens = create_table(
        server,
        "cabo",
        2,
        options={"score_limit": 40},
        seed=77,
        peek_seconds=600,
        turn_seconds=86400,
    )
    # Playwright's own event loop runs in this thread: the scripted clients play in another.
    with ThreadPoolExecutor(1) as pool:
        pool.submit(asyncio.run, _finish(server, code, tokens)).result(timeout=300)
    with server.http() as http:
        r = http.post(f"/api/tables/{code}/share", headers={"authorization": f"Bearer {tokens[1]}"})
        assert r.status_code == 200, r.text
        link: dict[str, str] = r.json()
    return code, tokens, link


def _where(page: Page, text: str) -> None:
    expect(page.get_by_test_id("replay-where")).to_contain_text(text)


def _labels(page: Page, owner: int) -> list[str]:
    cards = page.get_by_test_id(f"replay-hand-{owner}").locator("[data-testid^=replay-card-]")
    return [cards.nth(i).get_attribute("aria-label") or "" for i in range(cards.count())]


def test_a_replay_steps_forward_back_to_a_round_and_through_a_seats_eyes(
    browser: Browser, server: RunningServer, shots: Shots
) -> None:
    _, _, link = _finished_match(server)
    page = browser.new_page()
    page.goto(server.url + link["url"])
    _where(page, "Step 0 of")
    expect(page.get_by_test_id("replay-action")).to_contain_text("The deal of round 1")
    # Face up: every card of the deal shows.
    for owner in (0, 1):
        labels = _labels(page, owner)
        assert len(labels) == 4
        assert all(DOWN not in label for label in labels), labels
    dealt = page.get_by_test_id("replay-card-0-0").get_attribute("data-face")
    shots.take(page, "face-up")
    page.get_by_test_id("replay-forward").click()
    _where(page, "Step 1 of")
    expect(page.get_by_test_id("replay-events")).to_contain_text("looked at")
    page.keyboard.press("ArrowRight")
    _where(page, "Step 2 of")
    page.get_by_test_id("replay-back").click()
    page.get_by_test_id("replay-back").click()
    _where(page, "Step 0 of")
    expect(page.get_by_test_id("replay-card-0-0")).to_have_attribute("data-face", dealt or "")
    # Through seat 1's eyes: at the deal it has seen nothing.
    page.get_by_test_id("replay-seat").select_option("1")
    expect(page.get_by_test_id("replay-card-0-0")).to_have_attribute("data-face", "")
    assert all(DOWN in label for label in _labels(page, 0) + _labels(page, 1))
    # Its opening look (steps 1 and 2 are the two looks, in either order): two of its own
    # cards show at that step, none of the other seat's; with what it knew, from then on.
    mine, theirs = (page.get_by_test_id(f"replay-hand-{o}").locator(".card.up") for o in (1, 0))
    page.get_by_test_id("replay-forward").click()
    _where(page, "Step 1 of")
    if mine.count() == 0:
        page.get_by_test_id("replay-forward").click()
        _where(page, "Step 2 of")
    expect(mine).to_have_count(2)
    expect(theirs).to_have_count(0)
    page.get_by_test_id("replay-knew").check()
    page.get_by_test_id("replay-round").select_option("1")
    _where(page, "Step 0 of")
    expect(mine).to_have_count(0)
    for _ in range(3):
        page.get_by_test_id("replay-forward").click()
    _where(page, "Step 3 of")
    expect(mine).to_have_count(2)
    expect(theirs).to_have_count(0)
    shots.take(page, "seat-eyes")
    # To round 2's deal, then to the end: the winner is named.
    rounds = page.get_by_test_id("replay-round").locator("option")
    assert rounds.count() >= 2
    page.get_by_test_id("replay-round").select_option("2")
    _where(page, "round 2")
    expect(page.get_by_test_id("replay-action")).to_contain_text("Next round")
    page.get_by_test_id("replay-last").click()
    expect(page.get_by_test_id("replay-winner")).to_be_visible()
    expect(page.get_by_test_id("replay-forward")).to_be_disabled()
    # A forged key is refused, in words.
    forged = link["url"][:-3] + ("abc" if not link["url"].endswith("abc") else "xyz")
    page.goto(server.url + forged)
    expect(page.get_by_test_id("replay-error")).to_contain_text("not valid")
    page.close()


def test_a_player_opens_the_replay_from_its_route_and_shares_it_from_the_match_end(
    browser: Browser, server: RunningServer
) -> None:
    code, tokens, link = _finished_match(server)
    table_id, match_no = link["match"].split("/")
    page = browser.new_page()
    page.goto(server.url + "/")
    seat = {"code": code, "token": tokens[0], "name": "Ann", "preset": "cabo", "at": 1}
    page.evaluate("s => localStorage.setItem('facedown.seats', s)", json.dumps([seat]))
    page.goto(f"{server.url}/#/replay/{table_id}/{match_no}")
    _where(page, "Step 0 of")
    page.get_by_test_id("replay-forward").click()
    _where(page, "Step 1 of")
    # The match-end screen of the table: the share button gives the same link.
    page.goto(f"{server.url}/t/{code}")
    expect(page.get_by_test_id("winner")).to_be_visible()
    page.get_by_test_id("share-replay-button").click()
    url = page.get_by_test_id("share-replay-url")
    expect(url).to_have_value(re.compile(re.escape(link["url"]) + "$"))
    page.get_by_test_id("share-replay-open").click()
    _where(page, "Step 0 of")
    page.close()
