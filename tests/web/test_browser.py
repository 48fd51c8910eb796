"""Whole rounds in real browsers: three players at a boyo table, a cabo round with a set,
a seat moved to another device, a reconnect in the middle of a turn, the 360 px layout, the
buttons staying put when a card lands, and a turn played by keyboard alone (the focus never
falls to <body>).

Most deals are random (a table's seed is secret), so those tests play by what the screen offers
and loop, with a bound, until they have done what they are about: a power, a TAP, a call.  The
cabo round and the keyboard turn are stacked through the server's test hooks, so the set
replacement succeeds and the keyboard player draws a card with powers.

Cards fly between places (Svelte's crossfade).  The boyo round, the device move and the
reconnect run with motion; the cabo round and the 360 px layout run with reduced motion, and
check that no card moved then; the keyboard turn runs both ways.
"""

from __future__ import annotations

import json
import re
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import anyio
import pytest
from playwright.sync_api import Browser, BrowserContext, Page, expect
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

from facedown.server.base.addresses import ClientLimits
from facedown.server.edge.settings import ServerSettings
from facedown.server.play.table import TableConfig

from ..server.harness import RunningServer, run_server, start
from .conftest import Shots

WAIT = 20_000  # ms for anything the server or a bot has to do first
NAMES = ("Ann", "Maya", "Sam")


# Records every Web Animation longer than 0 ms (Svelte runs its transitions as Web Animations):
# the test can tell whether cards flew.
RECORD_FLIGHTS = """
window.__flights = [];
const animate = Element.prototype.animate;
Element.prototype.animate = function (keyframes, options) {
  const ms = typeof options === "number" ? options : (options && options.duration) || 0;
  if (ms > 0) window.__flights.push({ ms, cls: this.getAttribute("class") || "" });
  return animate.call(this, keyframes, options);
};
"""


def new_page(
    browser: Browser, width: int = 1024, height: int = 900, *, reduced_motion: bool = False
) -> tuple[BrowserContext, Page]:
    context = browser.new_context(
        viewport={"width": width, "height": height},
        locale="en-US",
        reduced_motion="reduce" if reduced_motion else "no-preference",
    )
    context.add_init_script(RECORD_FLIGHTS)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    # The server's Content-Security-Policy: anything it blocks is an error of the test.
    page.on(
        "console",
        lambda m: errors.append(m.text) if "Content Security Policy" in m.text else None,
    )
    page.set_default_timeout(WAIT)
    setattr(page, "js_errors", errors)  # noqa: B010 - checked at the end of each test
    return context, page


# Under the server's Content-Security-Policy (no eval), page.wait_for_function must be given a
# function ("() => ..."): a bare expression is re-evaluated as a string, which the page refuses.


def no_js_errors(*pages: Page) -> None:
    """No script error, and nothing the Content-Security-Policy refused, on these pages."""
    for page in pages:
        assert getattr(page, "js_errors", []) == []


def flights(page: Page) -> list[dict[str, Any]]:
    """The card flights (animations of flying cards) this page has run so far."""
    found: list[dict[str, Any]] = page.evaluate("window.__flights")
    return [f for f in found if "flyer" in f["cls"] or "held" in f["cls"] or "ghost" in f["cls"]]


def face(page: Page, seat: int, slot: int) -> str:
    return page.get_by_test_id(f"card-{seat}-{slot}").get_attribute("data-face") or ""


def wait_turn(pages: list[Page], timeout: float = 20.0) -> int:
    """The index of the page whose player may draw now."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        for i, page in enumerate(pages):
            if page.get_by_test_id("act-draw").is_visible():
                return i
        time.sleep(0.1)
    raise AssertionError("nobody's turn came")


def log_has(page: Page, pattern: str) -> None:
    expect(page.get_by_test_id("log")).to_contain_text(re.compile(pattern))


def opening_peek(page: Page, seat: int) -> list[str]:
    page.get_by_test_id(f"card-{seat}-0").click()
    page.get_by_test_id(f"card-{seat}-1").click()
    expect(page.get_by_test_id(f"card-{seat}-0")).not_to_have_attribute("data-face", "")
    return [face(page, seat, 0), face(page, seat, 1)]


def end_opening(page: Page) -> None:
    """READY after the opening peek, while the opening lasts. Play starts as soon as everyone
    has looked, so when the bots looked first (a busy machine is slow to click), this look was
    the last one: there is no READY to press, and the turn has begun."""
    ready, draw = page.get_by_test_id("act-ready"), page.get_by_test_id("act-draw")
    expect(ready.or_(draw)).to_be_visible()
    try:
        ready.click(timeout=2_000)
    except PlaywrightTimeoutError:  # the bots looked in the meantime and play started
        expect(draw).to_be_visible()


def open_table(server: RunningServer, body: dict[str, Any]) -> dict[str, Any]:
    """Open a table over HTTP (a stacked deal needs the test hooks the server runs with)."""
    with server.http() as http:
        r = http.post("/api/tables", json=body)
        assert r.status_code == 200, r.text
        created: dict[str, Any] = r.json()
    return created


def play_now(page: Page, server: RunningServer, name: str, preset: str, bots: int) -> None:
    page.goto(server.url + "/")
    page.get_by_test_id("name").fill(name)
    page.get_by_test_id("preset").select_option(preset)
    while page.locator("[data-testid^=bot-level-]").count() < bots:
        page.get_by_role("button", name=re.compile("Add a bot")).click()
    page.get_by_test_id("play-now").click()
    expect(page.get_by_test_id("game")).to_be_visible()


def test_boyo_round_three_players(browser: Browser, server: RunningServer, shots: Shots) -> None:  # noqa: C901 - one scripted round, top to bottom
    contexts, pages = zip(*(new_page(browser) for _ in range(3)), strict=True)
    host, second, third = pages

    # The host opens a private boyo table for three with one round and slow timers.
    host.goto(server.url + "/")
    host.get_by_test_id("open-private").click()
    host.get_by_test_id("name").fill("Ann")
    host.get_by_test_id("settings-preset").select_option("boyo")
    expect(host.get_by_test_id("special-rules")).to_contain_text("TAP")
    host.get_by_test_id("seat-count").select_option("3")
    host.get_by_label("Rounds").fill("1")
    host.get_by_label("Turn timer (seconds)").fill("600")
    host.get_by_label("Opening peek (seconds)").fill("600")
    shots.take(host, "settings")
    host.get_by_test_id("open-table").click()
    link = host.get_by_test_id("invite-link").input_value()
    assert re.search(r"/t/[A-Z0-9]{6}$", link)

    # Two friends follow the link, give a name and take a seat.
    for page, name in ((second, "Maya"), (third, "Sam")):
        page.goto(link)
        page.get_by_test_id("join-name").fill(name)
        page.get_by_test_id("take-seat").click()
        expect(page.get_by_test_id("seats")).to_contain_text(name)
    expect(host.get_by_test_id("seats")).to_contain_text("Sam")
    shots.take(host, "lobby")
    host.get_by_test_id("start").click()

    # The opening peek: choose two, they flip; READY hides them again.
    for page in pages:
        expect(page.get_by_test_id("game")).to_be_visible()
    opening_peek(host, 0)
    shots.take(host, "opening-peek")
    host.get_by_test_id("act-ready").click()
    expect(host.get_by_test_id("card-0-0")).to_have_attribute("data-face", "")
    opening_peek(second, 1)
    opening_peek(third, 2)

    power = tapped = False
    for _ in range(40):
        i = wait_turn(list(pages))
        page, other = pages[i], (i + 1) % 3
        if power and tapped:
            break
        page.get_by_test_id("act-draw").click()
        expect(page.get_by_test_id("held")).to_be_visible()
        if not power:
            for kind in ("peek", "spy", "swap"):
                button = page.get_by_test_id(f"act-{kind}")
                if not button.is_visible():
                    continue
                button.click()
                if kind == "peek":
                    page.get_by_test_id(f"card-{i}-2").click()
                    mine = page.get_by_test_id(f"card-{i}-2")
                    expect(mine).not_to_have_attribute("data-face", "")
                elif kind == "spy":
                    page.get_by_test_id(f"card-{other}-2").click()
                    expect(page.get_by_test_id(f"card-{other}-2")).not_to_have_attribute(
                        "data-face", ""
                    )
                else:
                    page.get_by_test_id(f"card-{i}-3").click()
                    page.get_by_test_id(f"card-{other}-3").click()
                    log_has(pages[other], "swapped their card 4 with your card 4")
                said = {"peek": "You peeked", "spy": "You spied", "swap": "You swapped"}
                log_has(page, said[kind])
                shots.take(page, f"power-{kind}")
                power = True
                break
        page.get_by_test_id("act-discard").click()
        page.get_by_test_id("act-end_turn").click()
        expect(pages[other].get_by_test_id("act-draw")).to_be_visible()
        if not tapped:
            # An out-of-turn TAP by the player after next: hit or miss, everyone reads it.
            tapper = (i + 2) % 3
            expect(pages[tapper].get_by_test_id("turn")).to_have_text(f"{NAMES[other]}'s turn")
            pages[tapper].get_by_test_id("act-tap").click()
            pages[tapper].get_by_test_id(f"card-{tapper}-1").click()
            for p in pages:
                log_has(p, r"tapped a \S+: (hit|miss, penalty card)")
            shots.take(pages[tapper], "tap")
            tapped = True
    assert power
    assert tapped

    # The call: BOYO at the start of a turn; then each other player has one final turn.
    caller = wait_turn(list(pages))
    pages[caller].get_by_test_id("act-call").click()
    for p in pages:
        log_has(p, "called BOYO!")
    expect(pages[(caller + 1) % 3].get_by_test_id("final")).to_contain_text("2 final turn")
    shots.take(pages[(caller + 1) % 3], "final-turns")
    for _ in range(2):
        i = wait_turn(list(pages))
        assert i != caller
        pages[i].get_by_test_id("act-draw").click()
        pages[i].get_by_test_id("act-discard").click()
        pages[i].get_by_test_id("act-end_turn").click()

    # The reveal: every hand face up, scores, the match scoreboard and the winner.
    for p in pages:
        expect(p.get_by_test_id("reveal")).to_be_visible()
        # A shared first place reads as a draw (the deal is not stacked: it can happen).
        expect(p.get_by_test_id("winner")).to_contain_text(re.compile("Winner|draw"))
    expect(host.locator("[data-testid^=reveal-row-]")).to_have_count(3)
    expect(host.get_by_test_id("act-rematch")).to_be_visible()
    expect(second.get_by_test_id("act-rematch")).to_have_count(0)
    shots.take(host, "reveal")
    # With motion on, cards flew: drawn cards from the pile, discards onto it, the swap.
    for p in pages:
        assert flights(p), "no card flew"
    no_js_errors(*pages)
    for context in contexts:
        context.close()


# Cleo holds two 4s in her first two slots and draws the third 4; the bots' cards do not matter.
CABO_DEAL: dict[str, Any] = {
    "hands": [["4", "4", "9", "2"], ["7", "3", "8", "6"], ["0", "1", "2", "3"]],
    "discard": "5",
    "draw": ["4"],
    "first": 0,
}


def test_cabo_round_with_a_set(browser: Browser, server: RunningServer, shots: Shots) -> None:
    # The table is opened through the API with a stacked deal (the server runs with test hooks),
    # and the browser takes the host's seat by the link that moves a seat to another device.
    body = {
        "preset": "cabo",
        "seats": 3,
        "name": "Cleo",
        "bots": ["medium", "medium"],
        "peek_seconds": 600,
        "turn_seconds": 600,
        "seed": 2024,
        "deal": CABO_DEAL,
    }
    created = open_table(server, body)
    context, page = new_page(browser, reduced_motion=True)
    page.goto(f"{server.url}/t/{created['code']}#seat={created['token']}")
    page.get_by_test_id("start").click()
    assert opening_peek(page, 0) == ["4", "4"]
    end_opening(page)

    # On the first turn: draw the third 4, then offer the two known 4s as a set for it.
    page.get_by_test_id("act-draw").click()
    expect(page.get_by_test_id("held").locator("[data-face]")).to_have_attribute("data-face", "4")
    page.get_by_test_id("act-set").click()
    page.get_by_test_id("card-0-0").click()
    page.get_by_test_id("card-0-1").click()
    expect(page.get_by_test_id("act-set-confirm")).to_have_text("Replace 2 cards")
    shots.take(page, "set-chosen")
    page.get_by_test_id("act-set-confirm").click()

    # The set matches: both 4s go onto the pile, the drawn 4 takes slot 1, slot 2 stays empty.
    log_has(page, r"You replaced your set 1, 2 with one card: 4, 4 to the pile")
    expect(page.get_by_test_id("discard")).to_have_attribute("data-face", "4")
    expect(page.get_by_test_id("card-0-1")).to_have_count(0)
    expect(page.get_by_test_id("my-hand").get_by_role("img", name="empty place")).to_have_count(1)
    expect(page.get_by_test_id("my-hand").locator("[data-testid^=card-0-]")).to_have_count(3)
    expect(page.get_by_test_id("held")).to_have_count(0)
    shot = shots.take(page, "set-done")
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert shot.stat().st_size > 10_000

    # Then call Cabo at the next turn (or play out the final turns if a bot called first).
    for _ in range(20):
        if page.get_by_test_id("reveal").is_visible():
            break
        if page.get_by_test_id("act-call").is_visible():
            page.get_by_test_id("act-call").click()
            log_has(page, "You called Cabo!")
        elif page.get_by_test_id("act-draw").is_visible():
            page.get_by_test_id("act-draw").click()
            page.get_by_test_id("act-discard").click()
        elif page.get_by_test_id("act-skip").is_visible():
            page.get_by_test_id("act-skip").click()
        time.sleep(0.3)
    expect(page.get_by_test_id("reveal")).to_be_visible()
    expect(page.get_by_test_id("reason").first).to_be_visible()
    shots.take(page, "reveal")
    assert flights(page) == []  # reduced motion: no card moved, they appear where they land
    no_js_errors(page)
    context.close()


def test_a_seat_moves_to_another_device(
    browser: Browser, server: RunningServer, shots: Shots
) -> None:
    old_context, old = new_page(browser)
    sockets: list[str] = []
    old.on("websocket", lambda ws: sockets.append(ws.url))
    play_now(old, server, "Nia", "kivo", bots=2)
    opening_peek(old, 0)
    code = old.url.rsplit("/", 1)[-1]

    # "Open on another device": a link to this table with the seat's token in the fragment.
    old.get_by_test_id("device-open").click()
    link = old.get_by_test_id("device-link").input_value()
    match = re.fullmatch(rf"{re.escape(server.url)}/t/{code}#seat=([A-Za-z0-9_.-]+)", link)
    assert match, link
    token = match.group(1)
    stored = old.evaluate("localStorage.getItem('facedown.seats')")
    assert token in stored  # the token this browser plays the seat with
    old_context.grant_permissions(["clipboard-read", "clipboard-write"], origin=server.url)
    old.bring_to_front()  # the clipboard is written only by a focused page, as a click makes it
    old.get_by_test_id("device-copy").click()
    expect(old.get_by_test_id("device-copy")).to_have_text("Copied")
    assert old.evaluate("navigator.clipboard.readText()") == link
    shots.take(old, "link")

    # Another browser (a fresh context: nothing stored) opens the link: same table, same seat.
    new_context, new = new_page(browser)
    new.goto(link)
    expect(new.get_by_test_id("my-hand")).to_be_visible()
    expect(new.get_by_test_id("card-0-0")).to_be_visible()  # seat 0, the seat of the link
    assert new.url == f"{server.url}/t/{code}"  # the token left the address bar at once
    assert new.evaluate("location.hash") == ""
    # Kept as this browser keeps its own seats; the name and preset come from the table.
    new.wait_for_function(
        "() => JSON.parse(localStorage.getItem('facedown.seats'))[0].preset !== ''"
    )
    kept = json.loads(new.evaluate("localStorage.getItem('facedown.seats')"))
    assert [(s["code"], s["token"], s["name"], s["preset"]) for s in kept] == [
        (code, token, "Nia", "kivo")
    ]
    expect(new.get_by_test_id("seat-1")).to_be_visible()

    # The new device plays the seat's turn: draw, then replace card 4 with the drawn card.
    new.get_by_test_id("act-draw").click()
    expect(new.get_by_test_id("held")).to_be_visible()
    expect(old.get_by_test_id("held")).to_be_visible()  # the old device shows the same seat
    new.get_by_test_id("card-0-3").click()
    # Read from each device's own log, not from the screen's: at a table without Recollection
    # the screen keeps the last few moves only, and the two bots may have played more since.
    replaced = "e => e.event.type === 'replaced' && e.event.by === 0 && e.event.slots?.[0] === 3"
    new.wait_for_function(f"() => window.__facedown.s.log.some({replaced})")
    shots.take(new, "moved")

    # The server keeps every device of a player at the seat: the old one is not thrown out,
    # sees the move, and never reconnected (no loop taking the seat back and forth).
    old.wait_for_function(f"() => window.__facedown.s.log.some({replaced})")
    expect(old.get_by_test_id("net")).to_have_count(0)
    expect(new.get_by_test_id("net")).to_have_count(0)
    assert len(sockets) == 1, sockets
    assert flights(new)  # motion on: the drawn card flew on both screens
    assert flights(old)

    # A reload on the new device (no fragment now) comes back to the seat from storage.
    new.reload()
    expect(new.get_by_test_id("my-hand")).to_be_visible()
    expect(new.get_by_test_id("card-0-0")).to_be_visible()
    no_js_errors(old, new)
    old_context.close()
    new_context.close()


def test_reconnect_in_the_middle_of_a_turn(
    browser: Browser, server: RunningServer, shots: Shots
) -> None:
    context, page = new_page(browser)
    play_now(page, server, "Rita", "kivo", bots=2)
    opening_peek(page, 0)

    # A dropped socket while holding a drawn card: the client says hello again by itself
    # with its token and last seq, and the turn goes on where it was, in the same seat.
    page.get_by_test_id("act-draw").click()
    expect(page.get_by_test_id("held")).to_be_visible()
    held = page.get_by_test_id("held").locator("[data-face]").get_attribute("data-face")
    assert held
    page.evaluate("window.__facedown.drop()")
    expect(page.get_by_test_id("net")).to_be_visible()
    shots.take(page, "reconnecting")
    expect(page.get_by_test_id("net")).to_have_count(0)
    expect(page.get_by_test_id("held").locator("[data-face]")).to_have_attribute("data-face", held)
    page.get_by_test_id("act-discard").click()
    log_has(page, "You discarded")
    if page.get_by_test_id("act-skip").is_visible():
        page.get_by_test_id("act-skip").click()

    # A reload (the page closed and opened again from the link) in the middle of the next turn.
    page.get_by_test_id("act-draw").click()
    expect(page.get_by_test_id("held")).to_be_visible()
    held = page.get_by_test_id("held").locator("[data-face]").get_attribute("data-face")
    url = page.url
    page.close()
    page = context.new_page()
    page.set_default_timeout(WAIT)
    page.goto(url)
    expect(page.get_by_test_id("held").locator("[data-face]")).to_have_attribute(
        "data-face", held or ""
    )
    expect(page.get_by_test_id("my-hand")).to_be_visible()
    expect(page.get_by_test_id("card-0-0")).to_be_visible()  # seat 0: the same seat as before
    shots.take(page, "after-reload")

    # A refused action gets a clear message from the server's error frame (the table is quiet:
    # the bots wait for this turn, so the refusal is the engine's, not a stale seq).
    page.evaluate("window.__facedown.act({do: 'end_turn'})")
    expect(page.get_by_test_id("error")).to_contain_text(
        "Refused: turns on this table end by themselves"
    )
    shots.take(page, "refused")
    page.get_by_test_id("card-0-3").click()  # replace: the drawn card goes in, card 4 out
    log_has(page, "You replaced your card 4")

    context.close()


def test_360px_layout_and_german(browser: Browser, server: RunningServer, shots: Shots) -> None:
    context, page = new_page(browser, width=360, height=740)
    page.goto(server.url + "/")
    shots.take(page, "home")
    play_now(page, server, "Mo", "boyo", bots=3)
    opening_peek(page, 0)
    expect(page.get_by_test_id("act-draw")).to_be_visible()
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= 360, f"the page is {width} px wide at a 360 px viewport"
    for button in page.locator(".controls button").all():
        box = button.bounding_box()
        assert box is not None
        assert box["x"] >= 0
        assert box["x"] + box["width"] <= 360
    shots.take(page, "table")

    page.get_by_test_id("language").click()
    expect(page.get_by_test_id("act-draw")).to_have_text("Ziehen")
    expect(page.get_by_test_id("act-call")).to_have_text("BOYO")
    page.get_by_test_id("act-draw").click()
    expect(page.get_by_test_id("act-end_turn")).to_have_count(0)
    page.get_by_test_id("act-discard").click()
    expect(page.get_by_test_id("act-end_turn")).to_have_text("ZUG BEENDEN")
    shots.take(page, "table-de")
    assert page.evaluate("document.documentElement.scrollWidth") <= 360

    page.goto(server.url + "/howto/kaboom")
    expect(page.get_by_role("heading", level=1)).to_have_text("So spielt man Kaboom")
    expect(page.locator("article")).to_contain_text("Harakiri")
    shots.take(page, "howto-de")
    no_js_errors(page)
    context.close()


# --------------------------------------------------------------------------- cards in flight

# Every Web Animation (a card's flight among them) a hundred times slower: a flight of a quarter
# to half a second is still under way when the test looks at the page.
SLOW_FLIGHTS = """
const animateAtSpeed = Element.prototype.animate;
Element.prototype.animate = function (keyframes, options) {
  if (options && typeof options === "object" && options.duration) {
    options = { ...options, duration: options.duration * 100 };
  }
  return animateAtSpeed.call(this, keyframes, options);
};
"""

# Every frame from now on: the page's scroll width, the widest one kept.
WATCH_WIDTH = """() => {
  window.__widest = 0;
  const frame = () => {
    window.__widest = Math.max(window.__widest, document.documentElement.scrollWidth);
    requestAnimationFrame(frame);
  };
  requestAnimationFrame(frame);
}"""

# You play first and draw a 5 (no power: discarding it ends nothing but the draw).
QUICK_DEAL: dict[str, Any] = {
    "hands": [["2S", "3H", "4C", "6D"], ["KS", "QH", "JC", "10D"]],
    "discard": "4H",
    "draw": ["5D", "6C", "6H", "3S"],
    "first": 0,
}


def test_a_card_overshooting_its_place_never_widens_a_phone(
    browser: Browser, server: RunningServer
) -> None:
    # At 360 px, the cards flying: you draw and discard at once.  The draw pile's top card is
    # still on its way to your hand when the held card goes and the piles close up; the flight
    # keeps the path it started with, so it flies past the place it was going to, off the right
    # edge.  The game screen clips it (components/Game.svelte): in no frame is the page wider
    # than the phone (without the clip: 409 px).
    body = {
        "preset": "boyo",
        "seats": 2,
        "name": "Vi",
        "bots": ["medium"],
        "peek_seconds": 600,
        "turn_seconds": 600,
        "seed": 5,
        "deal": QUICK_DEAL,
    }
    created = open_table(server, body)
    context, page = new_page(browser, width=360, height=740)
    page.goto(f"{server.url}/t/{created['code']}#seat={created['token']}")
    page.get_by_test_id("start").click()
    opening_peek(page, 0)
    end_opening(page)
    page.evaluate(WATCH_WIDTH)
    page.evaluate("window.__flights = []")
    page.get_by_test_id("act-draw").click()
    page.get_by_test_id("act-discard").click()
    expect(page.get_by_test_id("act-end_turn")).to_be_visible()
    page.wait_for_timeout(1_000)  # every flight has landed (600 ms at most)
    assert any("ghost" in f["cls"] for f in page.evaluate("window.__flights"))
    widest = page.evaluate("window.__widest")
    assert widest <= 360, f"the page was {widest} px wide while the cards flew"
    no_js_errors(page)
    context.close()


# The bot plays first; its cards have four different ranks, so it has nothing to TAP.
FLIGHT_DEAL: dict[str, Any] = {
    "hands": [["2S", "3H", "4C", "6D"], ["KS", "QH", "JC", "10D"]],
    "discard": "5H",
    "draw": ["6C", "6H", "6S"],
    "first": 1,
}


def test_buttons_stay_put_when_a_flight_ends(browser: Browser, server: RunningServer) -> None:
    # At 360 px the bot's held card takes a line of its own in the bot's seat.  When the bot lets
    # it go, the page takes its new shape at once; nothing moves later, when the card lands
    # (the buttons used to jump up then: a press and release that straddled the jump, on a busy
    # machine even Playwright's, made no click, and the turn started with nothing done).
    body = {
        "preset": "boyo",
        "seats": 2,
        "name": "Vi",
        "bots": ["medium"],
        "peek_seconds": 600,
        "turn_seconds": 600,
        "seed": 5,
        "deal": FLIGHT_DEAL,
    }
    created = open_table(server, body)
    context, page = new_page(browser, width=360, height=740)
    context.add_init_script(SLOW_FLIGHTS)
    page.goto(f"{server.url}/t/{created['code']}#seat={created['token']}")
    page.get_by_test_id("start").click()
    opening_peek(page, 0)
    end_opening(page)

    # The bot's turn is over and its card still on its way (Svelte makes a leaving one inert).
    draw, call = page.get_by_test_id("act-draw"), page.get_by_test_id("act-call")
    expect(draw).to_be_visible(timeout=WAIT)
    log_has(page, r"Bot \(medium\) (replaced|discarded)")
    assert page.evaluate("document.querySelectorAll('[inert]').length") > 0
    before = [draw.bounding_box(), call.bounding_box()]

    # Every flight ends; the cards that left are gone from the page.
    page.evaluate("document.getAnimations().forEach((a) => a.finish())")
    page.wait_for_function("() => document.querySelectorAll('[inert]').length === 0")
    assert [draw.bounding_box(), call.bounding_box()] == before
    no_js_errors(page)
    context.close()


# --------------------------------------------------------------------------- keyboard only

# Kim holds four cards and draws the black King of spades first (in boyo: peek, spy and swap).
KEYBOARD_DEAL: dict[str, Any] = {
    "hands": [["5S", "9H", "3C", "QD"], ["3D", "6D", "8S", "4H"]],
    "discard": "2H",
    "draw": ["KS"],
    "first": 0,
}

# What has the keyboard focus: None for <body> (or nothing), else what the control is.
FOCUSED = """() => {
  const el = document.activeElement;
  if (el === null || el === document.body) return null;
  return {
    testid: el.getAttribute("data-testid") || "",
    kind: el.getAttribute("data-focus") || "",
    label: el.getAttribute("aria-label") || el.textContent.trim(),
  };
}"""


def focused(page: Page) -> dict[str, Any]:
    """The focused control; fails when the focus fell to <body>."""
    found: dict[str, Any] | None = page.evaluate(FOCUSED)
    assert found is not None, "the keyboard focus fell to <body>"
    return found


def expect_focus(page: Page, testid: str, kind: str) -> dict[str, Any]:
    """The focus comes to ``testid``, a control of ``kind`` (data-focus); one to choose or press
    is waited for until it takes a key (it waits while the last action is on its way)."""
    page.wait_for_function(
        "id => document.activeElement?.getAttribute('data-testid') === id", arg=testid
    )
    if kind in ("my-choice", "choice", "action"):
        page.wait_for_function(
            "() => document.activeElement.getAttribute('aria-disabled') !== 'true'"
        )
    found = focused(page)
    assert found["kind"] == kind, found
    assert found["label"], f"{testid} has no label"
    return found


def tab_to(page: Page, testid: str, *, back: bool = False, limit: int = 40) -> int:
    """Press Tab (Shift+Tab) until ``testid`` has the focus, as a keyboard player would."""
    for presses in range(1, limit + 1):
        page.keyboard.press("Shift+Tab" if back else "Tab")
        if focused(page)["testid"] == testid:
            return presses
    raise AssertionError(f"{limit} presses of Tab never reached {testid}")


@pytest.mark.parametrize("reduced", [False, True], ids=["motion", "reduced-motion"])
def test_a_whole_turn_by_keyboard_only(
    browser: Browser, server: RunningServer, shots: Shots, reduced: bool
) -> None:
    # Kim plays by keyboard alone; Lee, at the other seat, uses the mouse (and is slow: Kim's
    # READY comes while Lee still looks at the cards).  The deal is stacked (test hooks).
    body = {
        "preset": "boyo",
        "seats": 2,
        "name": "Kim",
        "peek_seconds": 600,
        "turn_seconds": 600,
        "seed": 7,
        "deal": KEYBOARD_DEAL,
    }
    created = open_table(server, body)
    lee_context, lee = new_page(browser, reduced_motion=reduced)
    lee.goto(f"{server.url}/t/{created['code']}")
    lee.get_by_test_id("join-name").fill("Lee")
    lee.get_by_test_id("take-seat").click()
    context, page = new_page(browser, reduced_motion=reduced)
    page.goto(f"{server.url}/t/{created['code']}#seat={created['token']}")
    expect(page.get_by_test_id("start")).to_be_enabled()

    # The lobby: Tab to Start, Enter.  The lobby goes; the focus goes to the first card of the
    # opening peek, not to <body>.
    tab_to(page, "start")
    page.keyboard.press("Enter")
    expect_focus(page, "card-0-0", "my-choice")

    # Screen readers hear what happened and whose turn it is: polite live regions that are on
    # the page from the start (one added together with its text may go unread).
    log = page.get_by_test_id("log")
    expect(log).to_have_attribute("role", "log")
    expect(log).to_have_attribute("aria-live", "polite")
    expect(page.get_by_test_id("turn")).to_have_attribute("aria-live", "polite")
    expect(page.get_by_test_id("hint")).to_have_attribute("aria-live", "polite")

    # The opening peek: Enter on card 1, Tab, Enter on card 2.  The two cards flip; the focus
    # stays on the card just chosen (the same element: it was not drawn anew), now telling it.
    page.keyboard.press("Enter")
    expect(page.get_by_test_id("card-0-0")).to_have_attribute("aria-pressed", "true")
    assert tab_to(page, "card-0-1") == 1
    page.keyboard.press("Enter")
    expect(page.get_by_test_id("card-0-1")).to_have_attribute("data-face", "9H")
    found = expect_focus(page, "card-0-1", "card")
    assert found["label"] == "Your card 2: 9 of hearts"
    # The log says what you did, not what you saw: the faces are on the cards for their moment.
    expect(log.locator("li").last.locator("[aria-hidden=true]")).to_have_text(
        "You looked at your cards 1, 2"
    )
    expect(log.locator("li").last.locator(".sr-only")).to_have_text("You looked at your cards 1, 2")
    shots.take(page, "opening")

    # READY hides the cards; the button goes, and with nothing to do until Lee has looked,
    # the focus goes to the line that says so.
    tab_to(page, "act-ready")
    page.keyboard.press("Enter")
    expect(page.get_by_test_id("card-0-1")).to_have_attribute("data-face", "")
    found = expect_focus(page, "turn", "status")
    assert found["label"] == "Waiting for the others to look at their cards"

    # Lee looks; Kim's turn starts, read out by the turn line, where the focus still is.
    opening_peek(lee, 1)
    expect(page.get_by_test_id("turn")).to_have_text("Your turn")
    expect(log.locator("li").last.locator("[aria-hidden=true]")).to_have_text(
        "Play starts: You first"
    )
    assert focused(page)["testid"] == "turn"

    # Draw: the focus goes to the first card the drawn card can replace.
    tab_to(page, "act-draw")
    page.keyboard.press("Enter")
    expect(page.get_by_test_id("held").locator("[data-face]")).to_have_attribute("data-face", "KS")
    expect(log.locator("li").last.locator("[aria-hidden=true]")).to_have_text("You drew a card")
    # What the drawn card is worth and gives, and what each power offered does.
    expect(page.get_by_test_id("held-facts")).to_have_text(
        "worth 13 points · gives peek, spy, swap"
    )
    expect(page.get_by_test_id("hint")).to_contain_text("Spy: look at one card of another player.")
    expect_focus(page, "card-0-0", "my-choice")

    # A power, peek: Tab on to Peek, Enter (the button stays, pressed, with the focus), then
    # Shift+Tab back to the card to look at, Enter.  The card stays, and so does the focus.
    tab_to(page, "act-peek")
    page.keyboard.press("Enter")
    expect(page.get_by_test_id("act-peek")).to_have_attribute("aria-pressed", "true")
    expect(page.get_by_test_id("hint")).to_have_text("Choose one of your cards to peek at")
    expect_focus(page, "act-peek", "action")
    assert tab_to(page, "card-0-3", back=True) == 1
    page.keyboard.press("Enter")
    expect(page.get_by_test_id("card-0-3")).to_have_attribute("data-face", "QD")
    expect(log.locator("li").last.locator("[aria-hidden=true]")).to_have_text(
        "You peeked at your card 4"
    )
    expect_focus(page, "card-0-3", "my-choice")  # it may still be replaced

    # Spy (the black King has it too): back over Kim's own cards to one of Lee's.
    tab_to(page, "act-spy")
    page.keyboard.press("Enter")
    expect_focus(page, "act-spy", "action")
    tab_to(page, "card-1-3", back=True)
    page.keyboard.press("Enter")
    expect(page.get_by_test_id("card-1-3")).to_have_attribute("data-face", "4H")
    expect(log.locator("li").last.locator("[aria-hidden=true]")).to_have_text(
        "You spied on Lee's card 4"
    )
    # No face you were shown alone stays in the log (no memory aid at this table).
    for face in ("K♠", "Q♦", "4♥", "King of spades", "Queen of diamonds", "4 of hearts"):
        expect(log).not_to_contain_text(face)
    expect_focus(page, "card-1-3", "card")
    shots.take(page, "spied")

    # Replace card 1: its card flies to the pile and the drawn King takes its place (a new
    # element); the focus goes on to the next step, END TURN.
    tab_to(page, "card-0-0")
    expect_focus(page, "card-0-0", "my-choice")
    page.keyboard.press("Enter")
    expect(log.locator("li").last.locator("[aria-hidden=true]")).to_have_text(
        "You replaced your card 1: 5♠ to the pile"
    )
    expect(page.get_by_test_id("discard")).to_have_attribute("data-face", "5S")
    expect_focus(page, "act-end_turn", "action")

    # END TURN: nothing is left to do; the focus goes to the line saying whose turn it is.
    page.keyboard.press("Enter")
    found = expect_focus(page, "turn", "status")
    assert found["label"] == "Lee's turn"
    log_has(lee, "Kim spied on your card 4")
    shots.take(page, "end-turn")

    # Every card and every button of the table has a name for screen readers.
    names = page.locator(".game button, .game [data-testid^=card-]").evaluate_all(
        "els => els.map(el => el.getAttribute('aria-label') || el.textContent.trim())"
    )
    assert len(names) > 8, names
    assert all(names), names
    if reduced:
        assert flights(page) == []  # no card moved
    else:
        assert flights(page), "no card flew"
    no_js_errors(page, lee)
    context.close()
    lee_context.close()


def test_leaving_a_match_asks_first(browser: Browser, server: RunningServer) -> None:
    # One tap on Leave during a match asks; Stay keeps you at the table, Leave goes home.
    context, page = new_page(browser)
    play_now(page, server, "Ann", "kivo", 1)
    page.get_by_test_id("leave").click()
    expect(page.get_by_test_id("leave-ask")).to_be_visible()
    page.get_by_test_id("leave-no").click()
    expect(page.get_by_test_id("game")).to_be_visible()
    expect(page.get_by_test_id("leave-ask")).to_have_count(0)
    page.get_by_test_id("leave").click()
    page.get_by_test_id("leave-yes").click()
    expect(page.get_by_test_id("game")).to_have_count(0)
    expect(page.get_by_test_id("play-now")).to_be_visible()
    no_js_errors(page)
    context.close()


def test_a_table_link_shows_the_game_before_you_sit_down(
    browser: Browser, server: RunningServer
) -> None:
    created = open_table(
        server, {"preset": "kaboom", "seats": 3, "name": "Rosa", "bots": [None, "easy"]}
    )
    context, page = new_page(browser)
    page.goto(server.url + f"/t/{created['code']}")
    expect(page.get_by_test_id("join-game")).to_have_text("A game of Kaboom, hosted by Rosa.")
    seats = page.get_by_test_id("join-seats").locator("li")
    expect(seats).to_have_text(["Rosa", "open seat", "Easy"])
    page.get_by_test_id("join-rules").locator("summary").click()
    expect(page.get_by_test_id("join-rules")).to_contain_text("Two 12s and two 13s at the reveal")
    page.get_by_test_id("join-name").fill("Tom")
    page.get_by_test_id("take-seat").click()
    expect(page.get_by_test_id("join-game")).to_have_count(0)
    no_js_errors(page)
    context.close()


def test_an_idle_spectator_is_told_why_and_watches_again_with_one_tap(
    browser: Browser, tmp_path: Path
) -> None:
    """The server closes a spectator that sent nothing for spectator_idle seconds (here 1: less
    than the 1.5 s of quiet after which the page pings): the page stops reconnecting, says why
    in words of its own, and one tap on Watch again brings the table back."""
    settings = ServerSettings(
        data_dir=tmp_path,
        secret="browser-test-secret",
        table=TableConfig(bot_delay=0.25, grace_seconds=600),
        clients=ClientLimits(spectator_idle=1.0),
    )
    with run_server(settings) as server:
        created = open_table(
            server, {"preset": "kivo", "seats": 2, "name": "Rosa", "bots": ["easy"]}
        )
        # The host starts the match (on a thread of its own: Playwright's loop runs on this one).
        with ThreadPoolExecutor(1) as pool:
            pool.submit(anyio.run, start, server, created["code"], created["token"]).result(30)
        context, page = new_page(browser)
        page.goto(server.url + f"/t/{created['code']}")  # no seat here: the page watches
        expect(page.get_by_text("You are watching")).to_be_visible()
        net = page.get_by_test_id("net")
        expect(net).to_have_attribute("data-code", "idle", timeout=15_000)
        expect(net).to_contain_text("the table stopped sending to you")
        expect(page.get_by_test_id("error")).to_have_count(0)  # said once, not twice
        page.wait_for_timeout(1_500)  # the page does not reconnect by itself
        expect(net).to_have_attribute("data-code", "idle")
        page.get_by_test_id("net-restart").click()
        expect(net).to_have_count(0)  # connected again: no line about the connection
        expect(page.get_by_text("You are watching")).to_be_visible()
        no_js_errors(page)
        context.close()
