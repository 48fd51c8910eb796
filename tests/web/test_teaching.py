"""Teaching the game on the table: the Joker's own face, and the rules over the game."""

from __future__ import annotations

import json
from typing import Any

import pytest
from playwright.sync_api import Browser, expect

from ..server.harness import RunningServer
from .conftest import WEB, Shots
from .test_browser import end_opening, new_page, no_js_errors, open_table, opening_peek

# The host holds the Joker in slot 1 (the bot's cards do not matter).
JOKER_DEAL: dict[str, Any] = {
    "hands": [["JK", "5S", "9H", "3C"], ["2D", "4D", "6D", "8D"]],
    "discard": "7C",
    "draw": ["AS", "AH"],
    "first": 0,
}


def test_the_joker_has_its_own_face_and_the_rules_open_over_the_game(
    browser: Browser, server: RunningServer, shots: Shots
) -> None:
    body = {
        "preset": "boyo",
        "seats": 2,
        "name": "Jo",
        "bots": ["easy"],
        "peek_seconds": 600,
        "turn_seconds": 600,
        "seed": 7,
        "deal": JOKER_DEAL,
    }
    created = open_table(server, body)
    context, page = new_page(browser, 360, 740, reduced_motion=True)
    page.goto(f"{server.url}/t/{created['code']}#seat={created['token']}")
    page.get_by_test_id("start").click()
    assert opening_peek(page, 0) == ["JK", "5S"]

    # The Joker is drawn as a jester's cap and the word JOKER, not as the caller's star.
    joker = page.get_by_test_id("card-0-0")
    expect(joker.locator("[data-joker]")).to_be_visible()
    expect(joker.locator("svg")).to_be_visible()
    expect(joker).to_contain_text("JOKER")
    assert "★" not in joker.inner_text()
    expect(joker).to_have_attribute("aria-label", "Your card 1: Joker")
    shots.take(page, "joker")
    end_opening(page)

    # The rules link opens the preset's how-to page over the game; closing it leaves the
    # game where it was, on the same connection (no reload, the turn still ours).
    sockets: list[str] = []
    page.on("websocket", lambda ws: sockets.append(ws.url))
    expect(page.get_by_test_id("act-draw")).to_be_visible()
    page.get_by_test_id("rules-link").click()
    sheet = page.get_by_test_id("rules-sheet")
    expect(sheet).to_be_visible()
    expect(sheet.get_by_role("heading", level=1)).to_have_text("How to play Boyo")
    expect(sheet).to_be_focused()
    assert page.url.endswith(f"/t/{created['code']}")
    shots.take(page, "rules-over-game")
    sheet.get_by_test_id("howto-back").click()
    expect(sheet).to_have_count(0)
    page.get_by_test_id("rules-link").click()
    page.keyboard.press("Escape")
    expect(page.get_by_test_id("rules-sheet")).to_have_count(0)
    # The others' area and each seat in it are named for screen readers (not "'s cards").
    others = page.get_by_role("region", name="The other players' cards")
    expect(others.get_by_role("group", name="Bot (easy)'s cards", exact=True)).to_be_visible()
    # The discard pile says what its number counts.
    expect(page.get_by_test_id("discard-size")).to_have_text("1 card")
    page.get_by_test_id("act-draw").click()
    expect(page.get_by_test_id("held").locator("[data-face]")).to_have_attribute("data-face", "AS")
    expect(page.get_by_test_id("held-facts")).to_have_text("worth 1 point")
    assert sockets == []  # no new connection: the game never left the page
    no_js_errors(page)
    context.close()


HOWTO = json.loads((WEB / "src" / "lib" / "howto.json").read_text(encoding="utf-8"))


@pytest.mark.parametrize("preset", ["boyo", "cabo", "kivo", "kaboom"])
def test_the_how_to_page_walks_through_a_turn_and_scores_the_examples(
    browser: Browser, server: RunningServer, shots: Shots, preset: str
) -> None:
    context, page = new_page(browser, 360, 740, reduced_motion=True)
    page.goto(f"{server.url}/howto/{preset}")
    howto = page.get_by_test_id("howto")
    expect(howto).to_be_visible()
    # One turn drawn step by step with the game's own cards: the drawn card face up.
    walk = page.get_by_test_id("walk")
    expect(walk.locator("li")).to_have_count(6)
    drawn = HOWTO[preset]["turn"]["drawn"]
    expect(walk.locator(f"[data-face='{drawn}']").first).to_be_attached()
    # Every power in one line, and the TAP explained where the game has it.
    expect(page.get_by_test_id("powers").locator("li").first).to_contain_text(":")
    expect(page.get_by_test_id("tap")).to_have_count(1 if preset == "boyo" else 0)
    if preset == "boyo":
        expect(page.get_by_test_id("tap")).to_contain_text("penalty card")
    # The worked examples show the numbers of lib/howto.json (scored by the engine in
    # tests/test_howto_examples.py).
    for n, example in enumerate(HOWTO[preset]["examples"], start=1):
        for seat in range(len(example["hands"])):
            row = page.get_by_test_id(f"example-{n}-row-{seat}")
            expect(row.get_by_test_id("hand-total")).to_have_text(str(example["hand_totals"][seat]))
            expect(row.get_by_test_id("round-score")).to_have_text(
                str(example["round_scores"][seat])
            )
    text = howto.inner_text()
    for meaningless in ("No shooting the moon", "No 100 rule", "(s)"):
        assert meaningless not in text
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= 360, width
    shots.take(page, preset)
    no_js_errors(page)
    context.close()
