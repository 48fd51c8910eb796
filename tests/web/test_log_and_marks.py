"""Issue 33 §4: no lasting record where the rules give no memory aid.

At a table without Recollection the "What happened" log shows the lines of the last few moves
only (web/src/lib/logview.ts); where Recollection is on (a turn-based table) it keeps them all.
There the border of a card the seat remembers is not the "you can tap this" highlight: both are
read from the rendered page (computed styles and a screenshot), for a card that is remembered,
one that can be tapped, and one that is both.
"""

from __future__ import annotations

import re
from typing import Any

from playwright.sync_api import Browser, Page, expect

from ..server.harness import RunningServer
from .conftest import Shots
from .test_browser import end_opening, new_page, no_js_errors, open_table, opening_peek
from .test_turn_based import ann_at_a_turn_based_table

RECENT_MOVES = 4  # web/src/lib/logview.ts
FIRST_LINE = "You looked at your cards 1, 2"

# No card with a power anywhere (the 0-13 deck's powers are 7 to 12): every turn is a draw and
# a discard or a replacement, whoever plays it.
LOW_DEAL: dict[str, Any] = {
    "hands": [["4", "4", "2", "3"], ["5", "3", "6", "1"]],
    "discard": "5",
    "draw": ["1", "2", "6", "0", "1", "2", "4", "5", "6", "0", "2", "1"],
    "first": 0,
}


def _wait(page: Page, condition: str) -> None:
    page.wait_for_function(f"() => {{ const c = window.__facedown; return !!c && ({condition}); }}")


def _a_turn(page: Page) -> None:
    """Draw and discard, skipping a power if one is offered; wait until the move is played."""
    page.get_by_test_id("act-draw").click()
    page.get_by_test_id("act-discard").click()
    _wait(
        page,
        "c.s.pending === null && (c.s.view.to_act !== 0 || c.s.legal.some(a => a.do === 'skip'))",
    )
    if page.get_by_test_id("act-skip").count():
        page.get_by_test_id("act-skip").click()
    _wait(page, "c.s.pending === null && c.s.view.to_act !== 0")


# Read in one go (a bot may move between two reads): the moves the client knows of, by seq
# (each has a line or more in its log), and the lines the screen shows, with their moves.
READ_LOG = """() => {
  const items = [...document.querySelectorAll('[data-testid="log"] li')];
  return {
    moves: [...new Set(window.__facedown.s.log.map((e) => e.seq))],
    texts: items.map((li) => li.innerText),
    seqs: items.map((li) => Number(li.getAttribute("data-seq"))),
  };
}"""


def _read_log(page: Page) -> tuple[list[int], list[str], list[int]]:
    found: dict[str, Any] = page.evaluate(READ_LOG)
    return found["moves"], found["texts"], found["seqs"]


def test_without_recollection_the_log_shows_the_last_moves_only(
    browser: Browser, server: RunningServer, shots: Shots
) -> None:
    body = {
        "preset": "cabo",
        "seats": 2,
        "name": "Ann",
        "bots": ["easy"],
        "peek_seconds": 600,
        "turn_seconds": 600,
        "seed": 5,
        "deal": LOW_DEAL,
    }
    created = open_table(server, body)
    context, page = new_page(browser, reduced_motion=True)
    page.goto(f"{server.url}/t/{created['code']}#seat={created['token']}")
    page.get_by_test_id("start").click()
    opening_peek(page, 0)
    end_opening(page)
    expect(page.get_by_test_id("log")).to_contain_text(FIRST_LINE)
    for _ in range(3):
        if page.get_by_test_id("reveal").is_visible():
            break
        expect(page.get_by_test_id("act-draw").or_(page.get_by_test_id("reveal"))).to_be_visible()
        if page.get_by_test_id("act-draw").is_visible():
            _a_turn(page)
    moves, texts, seqs = _read_log(page)
    assert len(moves) > RECENT_MOVES + 2, moves  # a history longer than what is shown
    # The log tells the last moves only, each whole; the opening look is long gone from it.
    assert texts, "the log is empty"
    assert not any(FIRST_LINE in t for t in texts), texts
    assert set(seqs) <= set(moves[-RECENT_MOVES:]), (seqs, moves)
    assert moves[-1] in seqs
    expect(page.get_by_test_id("log-recent")).to_contain_text(f"last {RECENT_MOVES} moves")
    shots.take(page, "recent-log")
    no_js_errors(page)
    context.close()


# The computed look of a card: its border, and the ring inside it (::after) if any.
LOOK = """(id) => {
  const inner = document.querySelector(`[data-testid="${id}"] .inner`);
  const ring = getComputedStyle(inner, "::after");
  return {
    border: getComputedStyle(inner).borderTopColor,
    classes: inner.parentElement.className,
    ring: ring.content !== "none" && ring.content !== ""
      ? ring.borderTopColor + " " + ring.borderTopStyle
      : null,
  };
}"""


def _look(page: Page, testid: str) -> dict[str, Any]:
    found: dict[str, Any] = page.evaluate(LOOK, testid)
    return found


def test_with_recollection_the_log_is_whole_and_remembered_is_not_tappable(
    browser: Browser, server: RunningServer, shots: Shots
) -> None:
    context, page = new_page(browser, reduced_motion=True)
    created = ann_at_a_turn_based_table(context, server, seed=3, deal=LOW_DEAL)
    page.goto(f"{server.url}/t/{created['code']}")
    page.get_by_test_id("start").click()
    opening_peek(page, 0)
    expect(page.get_by_test_id("act-draw")).to_be_visible()

    # Ann draws: each of her cards can be tapped (to replace it); her first two are remembered
    # (Recollection), no longer shown.
    page.get_by_test_id("act-draw").click()
    expect(page.get_by_test_id("card-0-2")).to_have_class(re.compile(r"\bclickable\b"))
    expect(page.get_by_test_id("card-0-0")).to_have_attribute("data-face", "")
    expect(page.get_by_test_id("card-0-0")).to_have_class(re.compile(r"\bremembered\b"))
    both, tappable = _look(page, "card-0-0"), _look(page, "card-0-2")
    shots.take(page, "remembered-and-tappable")
    # She discards: the bot's turn, none of her cards can be tapped.
    page.get_by_test_id("act-discard").click()
    _wait(page, "c.s.pending === null && c.s.view.to_act !== 0")
    expect(page.get_by_test_id("card-0-0")).not_to_have_class(re.compile(r"\bclickable\b"))
    remembered, plain = _look(page, "card-0-0"), _look(page, "card-0-2")
    shots.take(page, "remembered")
    assert "remembered" in remembered["classes"]
    assert "clickable" not in remembered["classes"]
    assert plain["ring"] is None, plain
    assert tappable["ring"] is None, tappable
    highlight = tappable["border"]
    assert highlight != plain["border"], (tappable, plain)  # the tap highlight shows
    # A remembered card does not wear the tap highlight, and its mark is another colour and
    # line; a card both remembered and tappable shows both.
    assert remembered["border"] != highlight, (remembered, tappable)
    assert remembered["ring"] is not None, remembered
    assert highlight not in remembered["ring"], remembered
    assert "dashed" in remembered["ring"], remembered
    assert both["border"] == highlight, both
    assert both["ring"] == remembered["ring"], both

    # The log is whole where Recollection is on: the opening look is still in it after turns.
    for _ in range(2):
        expect(page.get_by_test_id("act-draw").or_(page.get_by_test_id("reveal"))).to_be_visible()
        if page.get_by_test_id("act-draw").is_visible():
            _a_turn(page)
    moves, texts, seqs = _read_log(page)
    assert len(moves) > RECENT_MOVES + 2, moves
    assert any(FIRST_LINE in t for t in texts), texts
    assert set(seqs) == set(moves)
    expect(page.get_by_test_id("log-recent")).to_have_count(0)
    no_js_errors(page)
    context.close()
