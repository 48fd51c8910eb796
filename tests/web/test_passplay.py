"""Pass-and-play in a real browser: one page holds every seat of a table, and the page shows a
card face only in the moment of the seat it belongs to.

The round is played to its reveal in every preset by three players on one page.  At every
step the page is read in one go: on the curtain between two moments ("pass to Maya") there is
no card face at all; while a seat's moment is open, every face is one that seat is being
shown (checked against the table's log replayed by the engine, as tests/web/test_no_memory_aid.py
checks a seat's page: the same ``Truth`` and ``check``, one per seat).  Also: a reload and
dropped connections in the middle of a turn resume it where it was; Boyo's TAP button, pressed
by whoever taps; every screen fits 360 px, has 44 px targets and no serious axe-core finding.
"""

from __future__ import annotations

import contextlib
import json
import random
import re
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, Page, expect
from playwright.sync_api import Error as PlaywrightError

from benchmarks.oracle import TableOracle

from ..server.harness import RunningServer
from .conftest import Shots
from .screens import check_screen
from .test_browser import new_page, no_js_errors
from .test_no_memory_aid import Truth, check, face_of, step

NAMES = ["Maya", "Bo", "Cyd"]
# A card of a standard deck as the page writes it: its face ("7♠") or its words ("7 of spades").
SUITED = re.compile(r"(?:10|[2-9AJQK])[♠♥♦♣]|\bof (?:spades|hearts|diamonds|clubs)\b|Joker")

# The page as the device shows it now: which seat's moment is open (None: the curtain or the
# end), every element with a card face, and all the text a player could read.
PAGE = """() => {
  const moment = document.querySelector("[data-testid=pass-moment]");
  const c = window.__facedown;
  const labels = [...document.querySelectorAll("[aria-label]")]
    .map((e) => e.getAttribute("aria-label"));
  return {
    open: moment ? Number(moment.getAttribute("data-seat")) : null,
    curtain: document.querySelector("[data-testid=pass-curtain]") !== null,
    choosing: document.querySelector("[data-testid=pass-choose]") !== null,
    reveal: document.querySelector("[data-testid=reveal]") !== null,
    faces: [...document.querySelectorAll("[data-face]")].map((e) => e.getAttribute("data-face")),
    glyphs: [...document.querySelectorAll("[data-glyph]")]
      .map((e) => e.getAttribute("data-glyph")).filter((g) => g),
    jokers: document.querySelectorAll("[data-joker]").length,
    text: document.body.innerText + "\\n" + labels.join("\\n"),
    clientSeat: c ? c.s.seat : null,
    todo: c ? c.s.legal.filter((a) => a.do !== "tap").length : 0,
    pending: c ? c.s.pending !== null : false,
    // The phase the device is in: the view of the seat that has heard the most (PassPlay's lead).
    phase: (() => {
      const lead = (window.__passplay ? window.__passplay.clients : [])
        .filter((x) => x.s.view)
        .reduce((best, x) =>
          best === null || (x.s.seq ?? -1) > (best.s.seq ?? -1) ? x : best, null);
      return lead ? lead.s.view.phase : null;
    })(),
  };
}"""


def set_up(page: Page, server: RunningServer, preset: str, names: list[str]) -> str:
    """Make the table on the device's own form; returns its code."""
    page.goto(f"{server.url}/")
    page.get_by_test_id("home-pass").click()
    page.get_by_test_id("pass-preset").select_option(preset)
    while page.get_by_test_id(f"pass-name-{len(names) - 1}").count() == 0:
        page.get_by_test_id("pass-add").click()
    for i, name in enumerate(names):
        page.get_by_test_id(f"pass-name-{i}").fill(name)
    page.get_by_test_id("pass-start").click()
    page.get_by_test_id("pass-curtain").wait_for()
    match = re.search(r"/t/([A-Z0-9]+)$", page.url)
    assert match, page.url
    return match.group(1)


def hold_every_seat(page: Page, server: RunningServer, made: dict[str, Any]) -> None:
    """A table made over HTTP (a stacked deal): the device keeps its seats, as the form does."""
    page.goto(f"{server.url}/")
    kept = [{"code": made["code"], "preset": "boyo", "seats": made["seats"], "at": 1}]
    page.evaluate("v => localStorage.setItem('facedown.passplay', v)", json.dumps(kept))
    page.goto(f"{server.url}/t/{made['code']}")
    page.get_by_test_id("pass-curtain").wait_for()


def read(page: Page) -> dict[str, Any]:
    found: dict[str, Any] = page.evaluate(PAGE)
    return found


def nothing_shown(seen: dict[str, Any], said: str) -> None:
    """The curtain (or the TAP chooser): no card face at all, not even a public one."""
    assert seen["faces"] == [], (said, seen["faces"])
    assert seen["glyphs"] == [], (said, seen["glyphs"])
    assert seen["jokers"] == 0, said
    found = SUITED.search(seen["text"])
    assert found is None, (said, seen["text"][max(0, found.start() - 60) : found.end() + 20])


class Device:
    """The page and the truth of each seat, checked at every step."""

    def __init__(self, page: Page, db: Path, code: str, seats: int) -> None:
        self.page = page
        oracle = TableOracle(db, code)
        self.truths = [Truth(oracle, recollection=False, seat=s) for s in range(seats)]
        self.curtains = 0
        self.moments = 0

    def check(self, said: str) -> dict[str, Any]:
        seen = read(self.page)
        if seen["open"] is None:
            # The round over, every card is public: the board for everyone is there while its
            # reveal panel is still being drawn (a busy machine draws it a step later).
            over = seen["phase"] in ("round_over", "match_over")
            if not seen["reveal"] and not over:
                nothing_shown(seen, said)
                self.curtains += 1
            return seen
        seat = seen["open"]
        assert seen["clientSeat"] == seat, seen  # the page shows this seat's own connection
        check(self.page, self.truths[seat])
        self.moments += 1
        return seen

    def hide(self) -> None:
        """Hide the open moment.  Its seat's moment is over: a card it was shown may not come
        back when the device returns to it (the live table's "until your next move" is not
        enough here)."""
        seen = read(self.page)
        seq = self.page.evaluate("() => window.__facedown.s.seq")
        self.page.get_by_test_id("pass-hide").click()
        expect(self.page.get_by_test_id("pass-moment")).to_have_count(0)
        truth = self.truths[seen["open"]]
        truth.follow(seq)
        truth.moment = {}


def play_round(device: Device, rng: random.Random, shots: Shots | None = None) -> None:
    """Pass the device round until the reveal, checking the page at every step."""
    page = device.page
    turns = [0]
    taken: set[str] = set()
    for n in range(900):
        seen = device.check(f"step {n}")
        if seen["reveal"]:
            return
        if seen["open"] is None:
            if shots and "curtain" not in taken:
                shots.take(page, "curtain")
                taken.add("curtain")
            with contextlib.suppress(PlaywrightError):
                page.get_by_test_id("pass-reveal").click(timeout=3_000)
            continue
        seat = seen["open"]
        if seen["todo"] == 0 and not seen["pending"]:
            # Nothing left to do in this moment: look once more, then hide and pass on.
            if shots and "moment" not in taken:
                shots.take(page, "moment")
                taken.add("moment")
            device.hide()
            continue
        with contextlib.suppress(PlaywrightError):  # the button went: look again
            step(page, rng, turns, seat)
    raise AssertionError("the round did not end")


@pytest.mark.parametrize("preset", ["boyo", "cabo", "kivo", "kaboom"])
def test_a_round_to_the_reveal_shows_each_card_only_in_its_players_moment(
    browser: Browser, logged_server: Any, shots: Shots, preset: str
) -> None:
    server, db = logged_server
    context, page = new_page(browser, 360, 740)
    page.set_default_timeout(5_000)
    code = set_up(page, server, preset, NAMES)
    device = Device(page, db, code, len(NAMES))
    # The opening looks go player by player, from the round's first player.
    first = read(page)
    assert first["curtain"], first
    play_round(device, random.Random(preset), shots)
    # The reveal: every hand, face up, for everyone at the table.
    end = read(page)
    assert end["reveal"], end
    assert end["open"] is None
    for seat, name in enumerate(NAMES):
        expect(page.get_by_test_id(f"reveal-row-{seat}")).to_contain_text(name)
    oracle = device.truths[0].oracle
    oracle.advance()
    game = oracle.states[oracle.seq]
    assert game.is_match_over  # one round, and the match is over
    assert len(game.history) == 1
    cards = [c for hand in game.history[0].hands for c in hand if c >= 0]
    up = [f for f in end["faces"] if f]
    assert len(up) >= len(cards)  # every card of every hand is face up
    shots.take(page, "reveal")
    assert device.curtains > len(NAMES)  # the device was passed between the moments
    assert device.moments > 10
    assert sum(t.faces_seen for t in device.truths) > 0  # faces were shown, each checked
    assert page.get_by_test_id("winner").is_visible()
    no_js_errors(page)
    context.close()


def test_the_opening_looks_go_player_by_player(browser: Browser, logged_server: Any) -> None:
    server, db = logged_server
    context, page = new_page(browser, 360, 740)
    code = set_up(page, server, "kivo", NAMES)
    device = Device(page, db, code, len(NAMES))
    order: list[str] = []
    for _ in NAMES:
        device.check("curtain")
        said = page.get_by_test_id("pass-to").inner_text()
        order.append(said.removeprefix("Pass to "))
        page.get_by_test_id("pass-reveal").click()
        seat = read(page)["open"]
        assert NAMES[seat] == order[-1]
        page.get_by_test_id(f"card-{seat}-0").click()
        page.get_by_test_id(f"card-{seat}-1").click()
        expect(page.get_by_test_id(f"card-{seat}-1")).not_to_have_attribute("data-face", "")
        device.check("the look")
        device.hide()
        device.check("hidden")
    assert sorted(order) == sorted(NAMES)  # each player once, one after the other
    # Play starts with the round's first player, whose look came first.
    expect(page.get_by_test_id("pass-to")).to_have_text(f"Pass to {order[0]}")
    no_js_errors(page)
    context.close()


def test_a_reload_and_dropped_connections_resume_where_the_table_was(
    browser: Browser, logged_server: Any
) -> None:
    server, db = logged_server
    context, page = new_page(browser, 360, 740)
    page.set_default_timeout(5_000)
    code = set_up(page, server, "cabo", NAMES[:2])
    device = Device(page, db, code, 2)
    rng = random.Random(3)
    # The opening looks, then the first player draws a card and holds it.
    for _ in range(2):
        page.get_by_test_id("pass-reveal").click()
        seat = read(page)["open"]
        page.get_by_test_id(f"card-{seat}-0").click()
        page.get_by_test_id(f"card-{seat}-2").click()
        expect(page.get_by_test_id(f"card-{seat}-2")).not_to_have_attribute("data-face", "")
        device.hide()
    page.get_by_test_id("pass-reveal").click()
    turn = read(page)["open"]
    page.get_by_test_id("act-draw").click()
    held = page.get_by_test_id("held").locator("[data-face]")
    expect(held).not_to_have_attribute("data-face", "")
    drawn = held.get_attribute("data-face")
    device.check("holding")
    seq = page.evaluate("() => window.__facedown.s.seq")

    page.reload()
    # The curtain first, whatever was open: the device may be in anyone's hands now.
    page.get_by_test_id("pass-curtain").wait_for()
    device.check("after the reload")
    expect(page.get_by_test_id("pass-to")).to_have_text(f"Pass to {NAMES[turn]}")
    page.get_by_test_id("pass-reveal").click()
    expect(page.get_by_test_id("held").locator("[data-face]")).to_have_attribute(
        "data-face", drawn or ""
    )
    assert page.evaluate("() => window.__facedown.s.seq") == seq  # nothing moved on
    device.check("the same turn, resumed")

    # Every seat's connection drops, as a network failure would: they come back by themselves.
    page.evaluate("() => window.__passplay.clients.forEach((c) => c.drop())")
    page.wait_for_function(
        "() => window.__passplay.clients.every((c) => c.status.state === 'open')"
    )
    expect(page.get_by_test_id("held").locator("[data-face]")).to_have_attribute(
        "data-face", drawn or ""
    )
    page.get_by_test_id("act-discard").click()
    expect(page.get_by_test_id("held")).to_have_count(0)
    device.check("discarded after the drop")
    device.hide()
    play_round(device, rng)
    expect(page.get_by_test_id("reveal")).to_be_visible()
    no_js_errors(page)
    context.close()


# After a reload, the messages of one seat's connection (by the order the page opens them) wait
# until the test lets them go: that seat is not welcomed while the others are.
HOLD_ONE_SEAT = """
(() => {
  const held = sessionStorage.getItem("held");
  if (held === null) return;
  const Real = window.WebSocket;
  let opened = 0;
  const waiting = [];
  let go = false;
  window.__release = () => { go = true; waiting.splice(0).forEach((f) => f()); };
  window.WebSocket = function (url, protocols) {
    const ws = new Real(url, protocols);
    if (opened++ !== Number(held)) return ws;
    const send = ws.send.bind(ws);
    ws.send = (data) => (go ? send(data) : waiting.push(() => send(data)));
    return ws;
  };
  window.WebSocket.prototype = Real.prototype;
  Object.assign(window.WebSocket, { CONNECTING: 0, OPEN: 1, CLOSING: 2, CLOSED: 3 });
})();
"""


@pytest.mark.parametrize("held", [0, 1])
def test_after_a_reload_no_seat_opens_before_every_seat_is_back(
    browser: Browser, logged_server: Any, held: int
) -> None:
    """A seat's moment draws that seat's own view: with the curtain up as soon as one seat was
    back, a player could open a seat whose connection was not, and the page failed ("Cannot
    read properties of null"), once on a loaded machine.  The curtain now waits for all."""
    server, _ = logged_server
    context, page = new_page(browser, 360, 740)
    context.add_init_script(HOLD_ONE_SEAT)
    set_up(page, server, "cabo", NAMES[:2])
    page.evaluate(f"sessionStorage.setItem('held', '{held}')")
    page.reload()
    page.wait_for_function(
        "() => (window.__passplay?.clients ?? []).some((c) => c.s.view !== null)"
    )
    assert page.evaluate("() => window.__passplay.clients.filter((c) => c.s.view).length") == 1
    expect(page.get_by_test_id("pass-reveal")).to_have_count(0)  # still connecting
    page.evaluate("() => window.__release()")
    page.get_by_test_id("pass-reveal").click()
    page.get_by_test_id("game").wait_for()
    no_js_errors(page)
    context.close()


def test_a_seat_that_cannot_come_back_says_why(browser: Browser, logged_server: Any) -> None:
    """The curtain waits for every seat: a seat whose connection stopped for good (here a
    token the server refuses) shows its reason and its way out, not "connecting" for ever."""
    server, _ = logged_server
    context, page = new_page(browser, 360, 740)
    set_up(page, server, "cabo", NAMES[:2])
    page.evaluate(
        """() => {
          const kept = JSON.parse(localStorage.getItem("facedown.passplay"));
          kept[0].seats[1].token = "not-a-token";
          localStorage.setItem("facedown.passplay", JSON.stringify(kept));
        }"""
    )
    page.reload()
    expect(page.locator("[data-testid=net][data-code=bad_token]")).to_be_visible()
    expect(page.get_by_test_id("pass-reveal")).to_have_count(0)
    check_screen(page, "pass-seat-refused")
    context.close()


# Boyo: Bo's first card is the 7 of spades; the first discard is the 7 of hearts (TAP compares
# ranks), so Bo's TAP on it is a hit the moment play starts.
TAP_DEAL = {
    "hands": [["2H", "3H", "4H", "5H"], ["7S", "8S", "9S", "10S"]],
    "discard": "7H",
    "draw": ["6C", "6D"],
    "first": 0,
}


def test_boyo_tap_is_one_button_for_whoever_taps(
    browser: Browser, logged_server: Any, shots: Shots
) -> None:
    server, db = logged_server
    with server.http() as http:
        body = {"preset": "boyo", "names": ["Maya", "Bo"], "deal": TAP_DEAL}
        r = http.post("/api/tables/pass-and-play", json=body)
        assert r.status_code == 200, r.text
        made = r.json()
    context, page = new_page(browser, 360, 740)
    hold_every_seat(page, server, made)
    device = Device(page, db, made["code"], 2)
    # No TAP during the opening looks.
    expect(page.get_by_test_id("pass-tap")).to_have_count(0)
    for seat in (0, 1):
        page.get_by_test_id("pass-reveal").click()
        page.get_by_test_id(f"card-{seat}-0").click()
        page.get_by_test_id(f"card-{seat}-1").click()
        expect(page.get_by_test_id(f"card-{seat}-0")).not_to_have_attribute("data-face", "")
        device.check("the look")
        device.hide()
    # Play: it is Maya's turn, and the TAP button is there for anyone.
    expect(page.get_by_test_id("pass-to")).to_have_text("Pass to Maya")
    page.get_by_test_id("pass-tap").click()
    device.check("who taps?")
    expect(page.get_by_test_id("pass-choose")).to_be_visible()
    check_screen(page, "pass-tap-who")
    page.get_by_test_id("pass-tapper-1").click()
    # Bo's moment, ready to TAP: the choice of one of his cards is open.
    expect(page.get_by_test_id("pass-moment")).to_have_attribute("data-seat", "1")
    expect(page.get_by_test_id("hint")).to_have_text(
        "Choose the card of yours that matches the top discard"
    )
    device.check("Bo taps")
    page.get_by_test_id("card-1-0").click()
    expect(page.get_by_test_id("discard")).to_have_attribute("data-face", "7S")
    expect(page.get_by_test_id("card-1-0")).to_have_count(0)  # his hand is a card shorter
    device.check("the hit")
    shots.take(page, "tap-hit")
    device.hide()
    # Still Maya's turn: the device goes back to her.
    expect(page.get_by_test_id("pass-to")).to_have_text("Pass to Maya")
    device.check("back to Maya")
    no_js_errors(page)
    context.close()


def test_every_pass_and_play_screen_fits_a_phone_and_is_accessible(
    browser: Browser, logged_server: Any
) -> None:
    server, _ = logged_server
    context, page = new_page(browser, 360, 740)
    page.goto(f"{server.url}/pass")
    page.get_by_test_id("pass-start").wait_for()
    for _ in range(6):
        page.get_by_test_id("pass-add").click()
    for i, name in enumerate(["Maya", "Bo", "Cyd", "Dana", "Eli", "Fen", "Gus", "Hal"]):
        page.get_by_test_id(f"pass-name-{i}").fill(name)
    check_screen(page, "pass-new-eight")
    page.get_by_test_id("pass-name-7").fill("maya")
    page.get_by_test_id("pass-start").click()
    expect(page.get_by_test_id("pass-error")).to_contain_text("name of their own")
    page.get_by_test_id("pass-name-7").fill("Hal")
    page.get_by_test_id("pass-preset").select_option("boyo")
    page.get_by_test_id("pass-start").click()
    page.get_by_test_id("pass-curtain").wait_for()
    check_screen(page, "pass-curtain")
    page.get_by_test_id("pass-reveal").click()
    seat = read(page)["open"]
    check_screen(page, "pass-moment-opening")
    page.get_by_test_id(f"card-{seat}-0").click()
    page.get_by_test_id(f"card-{seat}-1").click()
    expect(page.get_by_test_id(f"card-{seat}-1")).not_to_have_attribute("data-face", "")
    check_screen(page, "pass-moment-look")
    page.get_by_test_id("pass-hide").click()
    # German: the curtain says who gets the device, in German.
    page.get_by_test_id("language").click()
    expect(page.get_by_test_id("pass-to")).to_contain_text("Weitergeben an")
    check_screen(page, "pass-curtain-de")
    no_js_errors(page)
    context.close()


def test_a_face_seen_on_the_curtain_would_fail_the_check() -> None:
    # The check itself can fail: a curtain with a face, or a face's name in its text.
    with pytest.raises(AssertionError):
        nothing_shown({"faces": ["7S"], "glyphs": [], "jokers": 0, "text": ""}, "faces")
    with pytest.raises(AssertionError):
        nothing_shown({"faces": [], "glyphs": ["7♠"], "jokers": 0, "text": ""}, "glyphs")
    text = f"Bo discarded {face_of('7S')}"
    with pytest.raises(AssertionError):
        nothing_shown({"faces": [], "glyphs": [], "jokers": 0, "text": text}, "text")
    nothing_shown({"faces": [], "glyphs": [], "jokers": 0, "text": "Pass to Maya"}, "fine")
