"""The replay's words in a browser: whoever watches, through whichever seat's eyes, each seat is
named ("Bot (easy) looked at two cards"), never "you"; a bot is named in the page's language
("Bot (leicht)")."""

from __future__ import annotations

import asyncio
import random
from concurrent.futures import ThreadPoolExecutor

from playwright.sync_api import Browser, Page, expect

from ..server.harness import RunningServer, applied, create_table, seated
from .screens import check_screen
from .test_browser import new_page, no_js_errors

PREFER = ("call", "opening_peek", "draw", "discard", "skip", "end_turn", "next_round")


async def _finish_against_a_bot(server: RunningServer, code: str, token: str) -> None:
    async with seated(server, code, [token]) as (me,):
        await me.send({"type": "start"})
        await me.until("event")
        rng = random.Random(3)
        for _ in range(3000):
            if me.view.get("phase") == "match_over":
                return
            moves = [a for kind in PREFER for a in me.legal if a["do"] == kind]
            if not moves:
                await me.recv(10)  # the bot's turn
                continue
            action = moves[0] if moves[0]["do"] == "call" else rng.choice(moves[:1] + moves)
            answer = await me.act({k: v for k, v in action.items() if k != "by"})
            if applied(answer):
                await me.until_seq(answer["seq"])
        raise AssertionError("the match did not end")


def _events_through(page: Page, steps: int) -> list[str]:
    lines: list[str] = []
    for _ in range(steps):
        lines += page.get_by_test_id("replay-events").locator("li").all_text_contents()
        if page.get_by_test_id("replay-forward").is_disabled():
            break
        where = page.get_by_test_id("replay-where").text_content()
        page.get_by_test_id("replay-forward").click()
        expect(page.get_by_test_id("replay-where")).not_to_have_text(where or "")
    return lines


def test_a_replay_names_every_seat_and_translates_the_bot(
    browser: Browser, server: RunningServer
) -> None:
    code, tokens = create_table(
        server, "cabo", 2, bots=["easy"], options={"score_limit": 40}, seed=5, peek_seconds=600
    )
    with ThreadPoolExecutor(1) as pool:  # Playwright's own loop runs in this thread
        pool.submit(asyncio.run, _finish_against_a_bot(server, code, tokens[0])).result(300)
    with server.http() as http:
        r = http.post(f"/api/tables/{code}/share", headers={"authorization": f"Bearer {tokens[0]}"})
        assert r.status_code == 200, r.text
        url = r.json()["url"]

    context, page = new_page(browser, 360, 740, reduced_motion=True)
    page.goto(server.url + url)
    expect(page.get_by_test_id("replay-where")).to_contain_text("Step 0 of")
    # Through the bot's eyes: its look is the bot's, in the third person, with what it saw.
    page.get_by_test_id("replay-seat").select_option("1")
    lines = _events_through(page, 12)
    text = " | ".join(lines)
    assert "Bot (easy) looked at two cards (" in text, text
    assert not any(line.startswith("You") or " your " in line for line in lines), text
    # Through Ann's eyes the same: she is named.
    page.get_by_test_id("replay-seat").select_option("0")
    page.get_by_test_id("replay-first").click()
    lines = _events_through(page, 12)
    assert any(line.startswith("Ann looked at two cards (") for line in lines), lines
    assert not any(line.startswith("You") for line in lines), lines
    assert "Round 1 is over" in lines, lines  # the round's number, from its result
    check_screen(page, "replay-words")

    # In German the bot is "Bot (leicht)": in the names, the seat choice and the log.
    page.get_by_test_id("language").click()
    expect(page.locator("h1 + p")).to_contain_text("Bot (leicht)")
    expect(page.get_by_test_id("replay-seat").locator("option").nth(2)).to_contain_text(
        "Bot (leicht)"
    )
    page.get_by_test_id("replay-seat").select_option("1")
    page.get_by_test_id("replay-first").click()
    lines = _events_through(page, 12)
    assert any(line.startswith("Bot (leicht)") for line in lines), lines
    assert not any(line.startswith("Du ") for line in lines), lines
    check_screen(page, "replay-words-de")
    no_js_errors(page)
    context.close()
