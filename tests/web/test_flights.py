"""A card that comes back while its last flight is still on its way is a whole card again.

When you let your held card go, it flies to where it lands (Svelte's crossfade) and stops being a
card of the table at once: no test id, hidden from screen readers, out of the page's flow, inert.
If you hold a card again before that flight ends (a slow or busy device: the flight is still
running when your next turn comes), Svelte brings the same element back rather than drawing a
new one.  It must come back whole: the held card with its test id, seen by screen readers, in
the page's flow, and the only face outside the table's places being the one you hold.  (This
was the face "10 at 'game'" that tests/web/test_no_memory_aid.py met on a busy machine.)
"""

from __future__ import annotations

from typing import Any

from playwright.sync_api import Browser, expect

from ..server.harness import RunningServer
from .test_browser import SLOW_FLIGHTS, WAIT, end_opening, new_page, no_js_errors, open_table

# You play first and draw the 13 (no power), discard it; whether the bot draws or calls, you
# draw a 10 next.
DEAL: dict[str, Any] = {
    "hands": [["1", "2", "3", "4"], ["5", "6", "7", "8"]],
    "discard": "9",
    "draw": ["13", "10", "10"],
    "first": 0,
}

# Every element that shows a face, where it is: its nearest test id, and whether it is leaving.
FACES = """() => [...document.querySelectorAll("[data-face]")]
  .filter((e) => e.getAttribute("data-face"))
  .map((e) => ({
    face: e.getAttribute("data-face"),
    where: e.closest("[data-testid]")?.getAttribute("data-testid") ?? "",
    leaving: e.closest("[inert]") !== null,
    hidden: e.closest("[aria-hidden=true]") !== null,
  }))"""


def test_a_card_held_again_while_the_last_one_flies_is_whole(
    browser: Browser, server: RunningServer
) -> None:
    body = {
        "preset": "cabo",
        "seats": 2,
        "name": "Ida",
        "bots": ["easy"],
        "peek_seconds": 600,
        "turn_seconds": 600,
        "seed": 3,
        "deal": DEAL,
    }
    created = open_table(server, body)
    context, page = new_page(browser, width=360, height=740)
    context.add_init_script(SLOW_FLIGHTS)  # a flight takes a minute
    page.goto(f"{server.url}/t/{created['code']}#seat={created['token']}")
    page.get_by_test_id("start").click()
    page.get_by_test_id("card-0-0").click()
    page.get_by_test_id("card-0-1").click()
    end_opening(page)

    page.get_by_test_id("act-draw").click()
    expect(page.get_by_test_id("held").locator("[data-face]")).to_have_attribute("data-face", "13")
    page.get_by_test_id("act-discard").click()
    expect(page.get_by_test_id("held")).to_have_count(0)
    # The bot's turn, then yours again, all while the 13 is still flying to the pile.
    page.get_by_test_id("act-draw").click(timeout=WAIT)
    held = page.get_by_test_id("held")
    expect(held.locator("[data-face]")).to_have_attribute("data-face", "10")
    assert page.evaluate("document.getAnimations().length") > 0  # flights still running

    faces = [f for f in page.evaluate(FACES) if not f["leaving"]]
    assert {f["where"] for f in faces} <= {"held", "discard"} | {
        f"card-{s}-{c}" for s in range(2) for c in range(4)
    }, faces
    assert [f for f in faces if f["where"] == "held"] == [
        {"face": "10", "where": "held", "leaving": False, "hidden": False}
    ]
    assert held.get_attribute("aria-hidden") is None
    assert held.evaluate("(e) => getComputedStyle(e).position") != "absolute"
    no_js_errors(page)
    context.close()
