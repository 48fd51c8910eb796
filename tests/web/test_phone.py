"""The phone (360 x 740) and the laptop (1280 x 800): every screen fits with no horizontal
scroll, its buttons and cards are touch targets of 44 x 44 px or more, axe-core finds no serious
or critical violation, and a screenshot of each is kept (tests/web/screens.py).  On the game
screen, at every step of play: every button, card and pile inside the viewport, no text cut
off, no box scrolling sideways but the scores', also with the root font at 20 px (a phone's
large text).  Then what happens between rounds on a phone, the eight-seat table, names of 32
letters with no space in German, a long match's scoreboard, the header over bot turns, and the
arrow keys."""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, Page, expect
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

from facedown.server.edge.settings import ServerSettings
from facedown.server.play.table import TableConfig

from ..server.harness import RunningServer, run_server
from .screens import (
    LONGEST,
    LONGEST_TOO,
    PHONE,
    ROOT_FONTS,
    SIZES,
    check_screen,
    cut_off,
    empty_below,
    game_outside,
    inside_viewport,
    large_text,
    shoot,
    small_targets,
)
from .test_browser import (
    WAIT,
    end_opening,
    log_has,
    new_page,
    no_js_errors,
    open_table,
    opening_peek,
    wait_turn,
)

LONG_NAME = "Maximiliana Wolkenstein-Hartmann"


def phone(browser: Browser, root_font: int = 16) -> tuple[Any, Page]:
    context, page = new_page(browser, PHONE[0], PHONE[1], reduced_motion=True)
    large_text(context, root_font)
    return context, page


# The boxes of the game screen that scroll sideways now, but the reveal's tables (.scroll),
# which are meant to: a long match's scores.
SIDEWAYS = """() => [...document.querySelectorAll("[data-testid=game] *")]
  .filter((el) => !el.classList.contains("scroll"))
  .filter((el) => ["auto", "scroll"].includes(getComputedStyle(el).overflowX))
  .filter((el) => el.scrollWidth > el.clientWidth + 1)
  .map((el) => `${el.tagName.toLowerCase()}: ${el.scrollWidth} in ${el.clientWidth} px`)"""


def game_fits(page: Page, what: str) -> None:
    """Every button, card and pile of the game screen inside the viewport, no text cut off
    without an ellipsis, no box but the scores' scrolling sideways, every target 44 px or more:
    at the size the page has now."""
    outside = game_outside(page)
    assert outside == [], f"{what}: outside the viewport: {outside}"
    cut = cut_off(page, "[data-testid=game]")
    assert cut == [], f"{what}: text cut off: {cut}"
    sideways = page.evaluate(SIDEWAYS)
    assert sideways == [], f"{what}: scrolls sideways: {sideways}"
    small = small_targets(page)
    assert small == [], f"{what}: targets under 44 px: {small}"


def on_screen(page: Page, testid: str) -> bool:
    """The whole element is inside the viewport, as the page is scrolled now."""
    inside: bool = page.get_by_test_id(testid).evaluate(
        """el => {
          const r = el.getBoundingClientRect();
          return r.width > 0 && r.top >= 0 && r.left >= 0 &&
            r.bottom <= window.innerHeight && r.right <= window.innerWidth;
        }"""
    )
    return inside


def expect_on_screen(page: Page, testid: str) -> None:
    page.wait_for_function(
        """id => {
          const el = document.querySelector(`[data-testid="${id}"]`);
          if (!el) return false;
          const r = el.getBoundingClientRect();
          return r.width > 0 && r.top >= 0 && r.bottom <= window.innerHeight;
        }""",
        arg=testid,
    )


def press_first(page: Page, steps: tuple[str, ...]) -> bool:
    """Press the first of these buttons that is on the page and not waiting; the table moves on
    meanwhile (a bot plays), so one may go between the look and the press."""
    for step in steps:
        button = page.get_by_test_id(step)
        try:
            if button.is_visible() and button.get_attribute("aria-disabled", timeout=500) != "true":
                button.click(timeout=2_000)
                return True
        except PlaywrightTimeoutError:
            return False
    return False


QUICKEST = ("act-call", "act-draw", "act-discard", "act-end_turn", "act-skip")


def play_until_reveal(page: Page, seat: int, *, limit: int = 120) -> None:
    """Play this seat's turns the quickest way (call when it may, else draw and discard) until
    the round is over."""
    reveal = page.get_by_test_id("reveal")
    for _ in range(limit):
        game_fits(page, f"seat {seat}, {page.get_by_test_id('game').get_attribute('data-phase')}")
        if page.locator("[data-testid=reveal]:not([data-lingering])").count():
            return
        if not press_first(page, QUICKEST):
            time.sleep(0.15)
    expect(reveal).to_be_visible()


# --------------------------------------------------------------------------- every screen


@ROOT_FONTS
def test_every_screen_fits_a_phone(browser: Browser, server: RunningServer, root_font: int) -> None:
    context, page = phone(browser, root_font)
    page.goto(server.url + "/")
    expect(page.get_by_test_id("play-now")).to_be_visible()
    page.get_by_role("button", name=re.compile("Add a bot")).click()
    check_screen(page, "home")

    page.get_by_test_id("open-private").click()
    page.get_by_test_id("name").fill("Ann")
    page.get_by_test_id("seat-count").select_option("8")
    check_screen(page, "settings")
    page.get_by_test_id("seat-count").select_option("2")
    # Slow timers: the checks of each screen take a while on a busy machine.
    page.get_by_label("Turn timer (seconds)").fill("600")
    page.get_by_label("Opening peek (seconds)").fill("600")
    page.get_by_test_id("open-table").click()
    expect(page.get_by_test_id("invite-link")).to_be_visible()
    check_screen(page, "lobby")
    link = page.get_by_test_id("invite-link").input_value()

    friend_context, friend = phone(browser, root_font)
    friend.goto(link)
    expect(friend.get_by_test_id("join-game")).to_be_visible()
    friend.get_by_test_id("join-rules").locator("summary").click()
    check_screen(friend, "join")
    friend.get_by_test_id("join-name").fill("Bea")
    friend.get_by_test_id("take-seat").click()
    expect(page.get_by_test_id("seats")).to_contain_text("Bea")
    check_screen(page, "lobby-full")

    page.get_by_test_id("start").click()
    expect(page.get_by_test_id("game")).to_be_visible()
    check_screen(page, "table-2-opening")
    opening_peek(page, 0)
    check_screen(page, "table-2-peeked")

    # A turn: the drawn card held, its powers offered; then the same in German.
    opening_peek(friend, 1)  # the last look: play starts
    turn = wait_turn([page, friend])
    player = (page, friend)[turn]
    player.get_by_test_id("act-draw").click()
    expect(player.get_by_test_id("held")).to_be_visible()
    check_screen(player, "table-2-holding")
    player.get_by_test_id("language").click()
    expect(player.get_by_test_id("act-discard")).to_have_text("Abwerfen")
    check_screen(player, "table-2-holding-de")
    player.get_by_test_id("language").click()

    page.goto(server.url + "/howto/boyo")
    expect(page.get_by_role("heading", level=1)).to_be_visible()
    check_screen(page, "howto")
    no_js_errors(page, friend)
    context.close()
    friend_context.close()


def reveal_cut_off(page: Page) -> list[str]:
    """What of the reveal panel is not wholly on screen (sideways): its columns, every card."""
    return inside_viewport(
        page, "[data-testid=reveal] th, [data-testid=reveal] td, [data-testid=reveal] .mini"
    )


@ROOT_FONTS
def test_eight_seats_from_the_opening_to_the_match_end(
    browser: Browser, server: RunningServer, root_font: int
) -> None:
    # A boyo match of two rounds against seven bots, on a phone.
    body = {
        "preset": "boyo",
        "seats": 8,
        "name": "Mo",
        "bots": ["medium"] * 7,
        "peek_seconds": 600,
        "turn_seconds": 600,
        "options": {"rounds": 2},
    }
    created = open_table(server, body)
    context, page = phone(browser, root_font)
    page.goto(f"{server.url}/t/{created['code']}#seat={created['token']}")
    page.get_by_test_id("start").click()

    # The opening peek: your own hand is on screen with the line that asks you to choose.
    expect(page.get_by_test_id("turn")).to_have_text("Choose 2 of your cards to look at")
    expect_on_screen(page, "my-hand")
    assert on_screen(page, "turn")
    check_screen(page, "table-8-opening")
    opening_peek(page, 0)
    end_opening(page)
    expect(page.get_by_test_id("act-draw")).to_be_visible(timeout=WAIT)
    check_screen(page, "table-8-turn")

    # The reveal: every column and every card of every hand on screen, nothing cut off.
    play_until_reveal(page, 0)
    expect(page.locator("[data-testid^=reveal-row-]")).to_have_count(8)
    assert reveal_cut_off(page) == []
    check_screen(page, "reveal")

    # Next round closes the panel and takes you to your cards, the focus on the first.
    page.get_by_test_id("act-next_round").click()
    expect(page.get_by_test_id("reveal")).to_have_count(0)
    expect(page.get_by_test_id("turn")).to_have_text("Choose 2 of your cards to look at")
    expect_on_screen(page, "my-hand")
    assert on_screen(page, "turn")
    page.wait_for_function(
        "() => document.activeElement?.getAttribute('data-testid') === 'card-0-0'"
    )
    opening_peek(page, 0)
    end_opening(page)

    # The second round is the last: the match end, the scoreboard and the winner.
    play_until_reveal(page, 0)
    expect(page.get_by_test_id("winner")).to_be_visible()
    expect(page.get_by_test_id("scoreboard")).to_be_visible()
    assert reveal_cut_off(page) == []
    assert inside_viewport(page, "[data-testid=scoreboard] th, [data-testid=scoreboard] td") == []
    check_screen(page, "match-end")
    for width, height in SIZES:
        page.set_viewport_size({"width": width, "height": height})
        below = empty_below(page)
        assert below < 60, f"{below:.0f} px of empty scroll below the match end at {width} px"
    no_js_errors(page)
    context.close()


# --------------------------------------------------------------------------- between rounds


@pytest.fixture
def quick_reveal(tmp_path: Path) -> Iterator[RunningServer]:
    """A server whose reveal lasts 3 s: the bots' table moves on to the next round by itself."""
    settings = ServerSettings(
        data_dir=tmp_path,
        secret="browser-test-secret",
        table=TableConfig(bot_delay=0.2, reveal_seconds=3, grace_seconds=60),
        test_hooks=True,
    )
    with run_server(settings) as running:
        yield running


def test_a_peek_the_timer_made_waits_until_you_look(
    browser: Browser, quick_reveal: RunningServer
) -> None:
    # Against a bot, the next round starts while you still read the scores (the reveal's timer),
    # and its opening peek's 3 s run out under the open panel: the server looks at two cards
    # for you.  You see them when you close the panel, until READY, not before, even if you
    # reload the page before.
    body = {
        "preset": "boyo",
        "seats": 2,
        "name": "Ida",
        "bots": ["medium"],
        "peek_seconds": 3,
        "turn_seconds": 600,
        "options": {"rounds": 2},
    }
    created = open_table(quick_reveal, body)
    context, page = phone(browser)
    page.goto(f"{quick_reveal.url}/t/{created['code']}#seat={created['token']}")
    page.get_by_test_id("start").click()
    expect(page.get_by_test_id("game")).to_be_visible()
    play_until_reveal(page, 0)

    # Round 2 starts by itself; the panel stays up, and says so.
    reveal = page.get_by_test_id("reveal")
    expect(page.get_by_test_id("reveal-started")).to_be_visible(timeout=WAIT)
    # The peek's timer runs out: the bot has looked, the server looked for you, play starts.
    expect(page.get_by_test_id("missed-peek")).to_have_count(1, timeout=WAIT)
    expect(reveal).to_be_visible()
    faces = [page.get_by_test_id(f"card-0-{slot}").get_attribute("data-face") for slot in range(4)]
    assert faces == ["", "", "", ""], "the cards showed under the open scores"
    # The log says that time ran out and what was done for you (after the bot's moves too).
    log_has(page, r"Time ran out: a look at two of your cards was played for you")

    # A reload before you looked loses nothing: the scores are up again, the cards still wait
    # face down (the tab kept them; the server sent what happened since, so a card the bot
    # swapped away meanwhile is not shown where it was).
    page.reload()
    expect(page.get_by_test_id("missed-peek")).to_have_count(1, timeout=WAIT)
    expect(reveal).to_be_visible()
    faces = [page.get_by_test_id(f"card-0-{slot}").get_attribute("data-face") for slot in range(4)]
    assert faces == ["", "", "", ""], "the cards showed under the open scores after the reload"

    # Closing the panel shows the two cards looked at for you, on screen, until READY.
    page.get_by_test_id("reveal-close").click()
    expect(reveal).to_have_count(0)
    expect(page.get_by_test_id("missed-peek")).to_be_visible()
    expect_on_screen(page, "my-hand")
    # Two cards face up; one only when the bot, playing meanwhile, swapped one of them away
    # (a card that moved is no longer shown where it was).
    up = page.locator("[data-testid=my-hand] [data-face]:not([data-face=''])")
    page.wait_for_function(
        "() => document.querySelectorAll(\"[data-testid=my-hand] [data-face]:not([data-face=''])\")"
        ".length > 0"
    )
    assert up.count() in (1, 2)
    # (They are up for 10 s here: the screen's checks, slower, come after READY.)
    shoot(page, "missed-peek")
    page.get_by_test_id("act-ready").click()
    expect(up).to_have_count(0)
    check_screen(page, "after-missed-peek")
    no_js_errors(page)
    context.close()


# --------------------------------------------------------------------------- the header


def test_the_header_stays_put_over_bot_turns(browser: Browser, server: RunningServer) -> None:
    # A long name, on a phone: the line saying whose turn it is changes on every turn, and the
    # header keeps its height (the cards below do not jump).
    created = open_table(
        server,
        {
            "preset": "kivo",
            "seats": 4,
            "name": LONG_NAME,
            "bots": ["easy", None, "easy"],
            "peek_seconds": 600,
            "turn_seconds": 600,
        },
    )
    context, page = phone(browser)
    friend_context, friend = phone(browser)
    friend.goto(f"{server.url}/t/{created['code']}")
    friend.get_by_test_id("join-name").fill("Wilhelmina Featherstonehaugh")
    friend.get_by_test_id("take-seat").click()
    page.goto(f"{server.url}/t/{created['code']}#seat={created['token']}")
    page.get_by_test_id("start").click()
    for p, seat in ((page, 0), (friend, 2)):
        opening_peek(p, seat)
        # READY, while the opening lasts: the last look starts play at once, so READY may go
        # between being seen and being clicked (and it is not this seat's turn to draw).
        try:
            p.get_by_test_id("act-ready").click(timeout=2_000)
        except PlaywrightTimeoutError:
            expect(p.get_by_test_id("act-ready")).to_have_count(0)

    bar = page.get_by_test_id("bar")
    heights: dict[str, float] = {}
    for _ in range(200):
        status = page.get_by_test_id("turn").text_content() or ""
        box = bar.bounding_box()
        assert box is not None
        heights.setdefault(status, box["height"])
        assert box["height"] == pytest.approx(heights[status], abs=0.5)
        if len(heights) >= 4 and sum("Bot" in s for s in heights) >= 2:
            break
        for p in (page, friend):
            press_first(p, ("act-draw", "act-discard", "act-end_turn", "act-skip"))
        time.sleep(0.05)
    assert any(LONG_NAME.split()[0] in s or "Wilhelmina" in s for s in heights), heights
    assert sum("Bot" in s for s in heights) >= 2, heights
    assert len(set(round(h) for h in heights.values())) == 1, heights
    no_js_errors(page, friend)
    context.close()
    friend_context.close()


# --------------------------------------------------------------------------- the longest words

# You play first and draw the black King (its facts are the longest: worth, and all three
# powers), then call; the other two draw cards without powers, so nobody swaps your low hand
# away (Red Kings, a Joker, an Ace: -4), and you win the one round.
LONG_DEAL: dict[str, Any] = {
    "hands": [["KH", "KD", "JK", "AS"], ["9S", "9H", "10S", "10H"], ["QS", "QH", "JS", "JH"]],
    "discard": "4C",
    "draw": ["KS", "5C", "6C", "5D", "6D", "3C", "3D", "2C", "2D", "4D", "4H", "5H", "6H"],
    "first": 0,
}
OTHERS = ("act-draw", "act-discard", "act-end_turn", "act-skip")


@ROOT_FONTS
def test_the_longest_names_in_german_fit_a_phone(
    browser: Browser, server: RunningServer, root_font: int
) -> None:
    # Two players with names of 32 letters and no space, a bot, the game in German (its longest
    # words on the buttons and under the piles): every seat label, the card held, the turn line,
    # the reveal, the scores and the winner on screen, nothing cut off but the turn line's
    # ellipsis, every target 44 px or more; both at 16 px and at 20 px (a phone's large text).
    assert len(LONGEST) == len(LONGEST_TOO) == 32
    created = open_table(
        server,
        {
            "preset": "boyo",
            "seats": 3,
            "name": LONGEST,
            "bots": [None, "medium"],
            "peek_seconds": 600,
            "turn_seconds": 600,
            "seed": 7,
            "deal": LONG_DEAL,
            "options": {"rounds": 1},
        },
    )
    context, page = phone(browser, root_font)
    friend_context, friend = phone(browser, root_font)
    friend.goto(f"{server.url}/t/{created['code']}")
    friend.get_by_test_id("join-name").fill(LONGEST_TOO)
    friend.get_by_test_id("take-seat").click()
    page.goto(f"{server.url}/t/{created['code']}#seat={created['token']}")
    for p in (page, friend):
        p.get_by_test_id("language").click()
    expect(page.get_by_test_id("seats")).to_contain_text(LONGEST_TOO)
    page.get_by_test_id("start").click()
    for p, seat in ((page, 0), (friend, 1)):
        expect(p.get_by_test_id("turn")).to_have_text("Wähle 2 deiner Karten zum Ansehen")
        game_fits(p, f"seat {seat}, opening")
        opening_peek(p, seat)
        game_fits(p, f"seat {seat}, peeked")
    # Everyone has looked (the bot at once): play starts.

    # Your first turn: the black King held, with its three powers and all it gives in words.
    page.get_by_test_id("act-draw").click()
    expect(page.get_by_test_id("held-facts")).to_have_text(
        "13 Punkte wert · Aktion: Ansehen, Spionieren, Tauschen"
    )
    expect(page.get_by_test_id("act-spy")).to_have_text("Spionieren")
    check_screen(page, f"longest-holding-de-{root_font}")
    expect(friend.get_by_test_id("seat-0")).to_contain_text(LONGEST)
    expect(friend.get_by_test_id("held-0")).to_be_visible()
    game_fits(friend, "the other one holds a card")
    page.get_by_test_id("act-discard").click()

    # Then everyone plays the quickest way: you call at your next turn, the round ends.
    for _ in range(200):
        if all(p.get_by_test_id("winner").is_visible() for p in (page, friend)):
            break
        for p, seat, moves in ((page, 0, QUICKEST), (friend, 1, OTHERS)):
            game_fits(p, f"seat {seat}, {p.get_by_test_id('game').get_attribute('data-phase')}")
            press_first(p, moves)
        time.sleep(0.1)
    expect(page.get_by_test_id("winner")).to_have_text(f"Du gewinnst! Gewinner: {LONGEST}")
    expect(friend.get_by_test_id("winner")).to_have_text(f"Gewinner: {LONGEST}")
    for p in (page, friend):
        expect(p.locator("[data-testid^=reveal-row-]")).to_have_count(3)
        expect(p.get_by_test_id("scoreboard").locator("tbody tr")).to_have_count(3)
        expect(p.get_by_test_id("reveal-row-1")).to_contain_text(LONGEST_TOO)
        assert reveal_cut_off(p) == []
    check_screen(page, f"longest-match-end-de-{root_font}")
    game_fits(friend, "the match end, not the host")
    no_js_errors(page, friend)
    context.close()
    friend_context.close()


SCOREBOARD_BOX = "[data-testid=scoreboard]"


def box_scroll(page: Page, to: str) -> dict[str, float]:
    """Scroll the scoreboard's box to its start or its end; its widths and where it is now."""
    found: dict[str, float] = page.locator(SCOREBOARD_BOX).evaluate(
        """(table, to) => {
          const box = table.parentElement;
          box.scrollLeft = to === "end" ? box.scrollWidth : 0;
          return { scroll: box.scrollWidth, client: box.clientWidth, left: box.scrollLeft };
        }""",
        to,
    )
    return found


def name_lines(page: Page) -> int:
    """The lines your name takes in the scoreboard."""
    lines: int = page.locator(f"{SCOREBOARD_BOX} tr.me .name").evaluate(
        """(el) => {
          const range = document.createRange();
          range.selectNodeContents(el);
          return new Set([...range.getClientRects()].map((r) => Math.round(r.top))).size;
        }"""
    )
    return lines


def test_a_long_match_scrolls_its_scoreboard_inside_its_box(
    browser: Browser, server: RunningServer
) -> None:
    # Twelve rounds against a bot, the longest name: the scoreboard (a round a column) is wider
    # than the phone, and scrolls sideways inside its own box, which stays on screen; the page
    # does not scroll sideways, and each end of the table comes into view.
    rounds = 12
    body = {
        "preset": "boyo",
        "seats": 2,
        "name": LONGEST,
        "bots": ["easy"],
        "peek_seconds": 600,
        "turn_seconds": 600,
        "options": {"rounds": rounds},
    }
    created = open_table(server, body)
    context, page = phone(browser)
    page.goto(f"{server.url}/t/{created['code']}#seat={created['token']}")
    page.get_by_test_id("start").click()
    for n in range(1, rounds + 1):
        expect(page.get_by_test_id("turn")).to_have_text("Choose 2 of your cards to look at")
        opening_peek(page, 0)
        end_opening(page)
        play_until_reveal(page, 0)
        if n < rounds:
            page.get_by_test_id("act-next_round").click()
            expect(page.get_by_test_id("reveal")).to_have_count(0)
    expect(page.get_by_test_id("winner")).to_be_visible()
    columns = page.locator(f"{SCOREBOARD_BOX} thead th")
    expect(columns).to_have_count(rounds + 2)
    game_fits(page, "the match end")
    assert inside_viewport(page, "[data-testid=reveal] .scroll") == []

    start = box_scroll(page, "start")
    assert start["scroll"] > start["client"] + 20, start
    assert inside_viewport(page, f"{SCOREBOARD_BOX} th[scope=row]") == []
    assert inside_viewport(page, f"{SCOREBOARD_BOX} td.sum") != []
    # The longest name is read in a few lines, not a letter a line.
    assert name_lines(page) <= 4
    # Scrolled to its end: the totals in view, the names still beside them.
    end = box_scroll(page, "end")
    assert end["left"] > 0, end
    assert inside_viewport(page, f"{SCOREBOARD_BOX} td.sum") == []
    assert inside_viewport(page, f"{SCOREBOARD_BOX} th[scope=row]") == []
    check_screen(page, "long-match-end")
    no_js_errors(page)
    context.close()


# --------------------------------------------------------------------------- keyboard


def focused_id(page: Page) -> str:
    found: str = page.evaluate("() => document.activeElement?.getAttribute('data-testid') || ''")
    return found


def test_arrow_keys_move_between_cards(browser: Browser, server: RunningServer) -> None:
    # "Play now" starts the game at once: the focus is on your first card, not on <body>.
    context, page = new_page(browser, 1280, 800)
    page.goto(server.url + "/")
    page.get_by_test_id("name").fill("Kai")
    page.get_by_test_id("preset").select_option("cabo")
    page.get_by_test_id("play-now").click()
    expect(page.get_by_test_id("game")).to_be_visible()
    page.wait_for_function(
        "() => document.activeElement?.getAttribute('data-testid') === 'card-0-0'"
    )

    # Right and left along your hand (and no further than its ends), then up to the player
    # above (the next seat, its card of the same place) and back down.
    page.keyboard.press("ArrowRight")
    assert focused_id(page) == "card-0-1"
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowRight")
    assert focused_id(page) == "card-0-3"
    page.keyboard.press("ArrowRight")
    assert focused_id(page) == "card-0-3"
    page.keyboard.press("ArrowLeft")
    assert focused_id(page) == "card-0-2"
    page.keyboard.press("Home")
    assert focused_id(page) == "card-0-0"
    page.keyboard.press("End")
    assert focused_id(page) == "card-0-3"
    page.keyboard.press("ArrowUp")
    above = re.fullmatch(r"card-([1-9])-3", focused_id(page))
    assert above, focused_id(page)
    page.keyboard.press("ArrowLeft")
    assert focused_id(page) == f"card-{above[1]}-2"
    page.keyboard.press("ArrowDown")
    assert focused_id(page) == "card-0-2"
    # Enter on a focused card still chooses it.
    page.keyboard.press("Enter")
    expect(page.get_by_test_id("card-0-2")).to_have_attribute("aria-pressed", "true")
    no_js_errors(page)
    context.close()
