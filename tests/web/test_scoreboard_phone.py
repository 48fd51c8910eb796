"""The Physical Scoreboard on a phone: four players and several rounds at 360 x 740 (and under
phone emulation, with taps) fit with no sideways scroll, every control inside the viewport and
44 px or more, no text cut off, in English and German, with a name of 32 letters and no space,
at the usual root font and at 20 px (a phone's large text); eight players scroll inside the
table's box, not the page; the notes for Cabo's and Kaboom's 100 rule and the moon appear next
to the round that triggers them."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pytest
from playwright.sync_api import Browser, BrowserContext, Page, expect

from ..server.harness import RunningServer
from .screens import (
    LONGEST,
    LONGEST_TOO,
    PHONE,
    ROOT_FONTS,
    check_screen,
    cut_off,
    inside_viewport,
    large_text,
    page_width,
    small_targets,
)
from .test_browser import WAIT, no_js_errors
from .test_scoreboard import make_board

NAMES = ["Ann", LONGEST, "Sam", "Dana"]
# Every control on the page below the header that a player taps or types into.
CONTROLS = "main button, main input, main a, main select"


def phone(browser: Browser, *, mobile: bool, root_font: int = 16) -> tuple[BrowserContext, Page]:
    """A context of the phone's size; ``mobile``: Chromium's phone emulation (the meta viewport
    is obeyed, the page may be zoomed out to its layout width, and input is touch); the root
    font at ``root_font`` px."""
    context = browser.new_context(
        viewport={"width": PHONE[0], "height": PHONE[1]},
        locale="en-US",
        is_mobile=mobile,
        has_touch=mobile,
        device_scale_factor=2 if mobile else 1,
        reduced_motion="reduce",
    )
    large_text(context, root_font)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.on(
        "console",
        lambda m: errors.append(m.text) if "Content Security Policy" in m.text else None,
    )
    page.set_default_timeout(WAIT)
    setattr(page, "js_errors", errors)  # noqa: B010 - checked at the end of each test
    return context, page


def press(page: Page, testid: str, *, touch: bool) -> None:
    """A tap on a touch screen (it must land on the control itself), else a click."""
    target = page.get_by_test_id(testid)
    target.scroll_into_view_if_needed()
    if touch:
        target.tap()
    else:
        target.click()


def enter(
    page: Page, hands: Sequence[int | None], caller: int, *, moon: int = -1, touch: bool
) -> None:
    if moon >= 0:
        press(page, f"moon-{moon}", touch=touch)
    for p, total in enumerate(hands):
        if total is not None:
            page.get_by_test_id(f"hand-{p}").fill(str(total))
    press(page, f"caller-{caller}" if caller >= 0 else "caller-none", touch=touch)
    press(page, "board-submit", touch=touch)


def fits_with_every_control(page: Page, what: str) -> None:
    """No sideways scroll, every control of the board inside the viewport (and inside any box
    that scrolls it) and 44 px or more, no text cut off, at the size the page has now."""
    width, inner = page_width(page)
    assert width <= inner, f"{what}: the page is {width} px wide in a {inner} px viewport"
    assert inside_viewport(page, CONTROLS) == [], what
    assert small_targets(page) == [], what
    assert cut_off(page, "main") == [], what


def note_after(page: Page, number: int) -> str:
    """The test id of the row right after round ``number``'s row."""
    found: str = page.get_by_test_id(f"board-round-{number}").evaluate(
        "row => row.nextElementSibling ? row.nextElementSibling.dataset.testid || '' : ''"
    )
    return found


@ROOT_FONTS
@pytest.mark.parametrize("mobile", [False, True], ids=["360px", "phone-emulation"])
def test_four_players_and_several_rounds_fit_a_phone(
    browser: Browser, server: RunningServer, mobile: bool, root_font: int
) -> None:
    made = make_board(server, names=NAMES, preset="cabo")
    context, page = phone(browser, mobile=mobile, root_font=root_font)
    page.goto(server.url + "/scoreboard/" + made["link"].rsplit("/", 1)[-1])
    expect(page.get_by_test_id("board-table")).to_be_visible()
    fits_with_every_control(page, "no round yet")

    # Round 1: Ann reaches exactly 100 (back to 50); round 2: Sam shoots the moon (one tap),
    # which takes Ann to 100 again, where she stays (Cabo resets once); rounds 3 and 4: Ann is
    # lowest, scores 0 and stays at 100 (no new note).
    enter(page, [100, 3, 14, 9], caller=1, touch=mobile)
    expect(page.get_by_test_id("board-round-1")).to_be_visible()
    enter(page, [12, 20, None, 30], caller=0, moon=2, touch=mobile)
    expect(page.get_by_test_id("board-round-2")).to_be_visible()
    enter(page, [0, 5, 7, 2], caller=-1, touch=mobile)
    expect(page.get_by_test_id("board-round-3")).to_be_visible()
    enter(page, [1, 2, 3, 4], caller=0, touch=mobile)
    expect(page.get_by_test_id("board-round-4")).to_be_visible()
    expect(page.get_by_test_id("board-total-0")).to_have_text("100")
    fits_with_every_control(page, "four rounds")

    # Each note sits in the row right after the round that triggers it, and only there.
    assert note_after(page, 1) == "board-notes-1"
    expect(page.get_by_test_id("board-note-1-reset")).to_have_text(
        "Ann reached exactly 100: back to 50. Cabo allows this once per player."
    )
    assert note_after(page, 2) == "board-notes-2"
    expect(page.get_by_test_id("board-note-2-moon")).to_contain_text(
        "Sam shot the moon (two 12s and two 13s): 0 for Sam, 50 for everyone else"
    )
    expect(page.get_by_test_id("board-note-2-stays")).to_have_text(
        "Ann is at exactly 100 again: the reset to 50 is used up, so it stays at 100."
    )
    assert note_after(page, 3) == "board-round-4"
    expect(page.get_by_test_id("board-notes-4")).to_have_count(0)
    # A note is as wide as the table's box, not the table: it is read without scrolling.
    assert inside_viewport(page, "[data-testid^=board-note-]") == []

    # Tapping a round's number opens it again, with "take it back" next to Save.
    press(page, "edit-round-3", touch=mobile)
    expect(page.get_by_test_id("undo-round-3")).to_be_visible()
    fits_with_every_control(page, "round 3 opened again")
    press(page, "board-cancel", touch=mobile)
    expect(page.get_by_test_id("undo-round-3")).to_have_count(0)

    press(page, "language", touch=mobile)
    expect(page.get_by_test_id("board-submit")).to_have_text("Runde eintragen")
    expect(page.get_by_test_id("board-note-1-reset")).to_have_text(
        "Ann hat genau 100 Punkte erreicht: zurück auf 50. Bei Cabo geht das einmal pro Spieler."
    )
    fits_with_every_control(page, "German")
    if not mobile and root_font == 16:
        # Both sizes, both languages: fits, 44 px targets, axe-core, screenshots.
        check_screen(page, "scoreboard-cabo-de")
        press(page, "language", touch=False)
        check_screen(page, "scoreboard-cabo")
    no_js_errors(page)
    context.close()


def add_rounds(server: RunningServer, made: dict[str, Any], rounds: list[dict[str, Any]]) -> None:
    key = made["link"].rsplit("/", 1)[-1]
    with server.http() as http:
        for base, body in enumerate(rounds):
            r = http.post(f"/api/scoreboards/{key}/rounds", json={"base": base, **body})
            assert r.status_code == 200, r.text


EIGHT = ["Ann", LONGEST, "Sam", "Dana", LONGEST_TOO, "Bo", "Kim", "Lee"]
HEADS = "[data-testid=board-table] thead"


def box_scroll(page: Page, to: str) -> dict[str, float]:
    """Scroll the table's box to its start or its end; its widths and where it is now."""
    found: dict[str, float] = page.get_by_test_id("board-scroll").evaluate(
        """(box, to) => {
          box.scrollLeft = to === "end" ? box.scrollWidth : 0;
          return { scroll: box.scrollWidth, client: box.clientWidth, left: box.scrollLeft };
        }""",
        to,
    )
    return found


@ROOT_FONTS
def test_eight_players_scroll_inside_the_tables_box(
    browser: Browser, server: RunningServer, root_font: int
) -> None:
    """Eight players, two of them with 32 letters and no space, six rounds: the table is wider
    than a phone and scrolls inside its own box (the page does not), its first column and
    every note staying put; each end of it comes into view; in English and German."""
    made = make_board(server, names=EIGHT, preset="cabo")
    add_rounds(
        server,
        made,
        # A moon first (a note under round 1), then low hands: nobody reaches 100.
        [{"hand_totals": [1, 2, 50, 3, 4, 5, 2, 1], "caller": 2, "moon": 2}]
        + [{"hand_totals": [n, 3, 1, 4, 5, 2, 0, n], "caller": n} for n in range(5)],
    )
    context, page = phone(browser, mobile=False, root_font=root_font)
    page.goto(server.url + "/scoreboard/" + made["link"].rsplit("/", 1)[-1])
    expect(page.get_by_test_id("board-round-6")).to_be_visible()
    expect(page.get_by_test_id("board-note-1-moon")).to_be_visible()
    for language in ("English", "German"):
        if language == "German":
            press(page, "language", touch=False)
            expect(page.get_by_test_id("board-submit")).to_have_text("Runde eintragen")
        start = box_scroll(page, "start")
        assert start["scroll"] > start["client"] + 100, (language, start)
        fits_with_every_control(page, f"{language}, the table's start")
        assert inside_viewport(page, f"{HEADS} th:nth-child(2)") == [], language
        assert inside_viewport(page, f"{HEADS} th:last-child") != [], language
        end = box_scroll(page, "end")
        assert end["left"] > 0, (language, end)
        fits_with_every_control(page, f"{language}, the table's end")
        assert inside_viewport(page, f"{HEADS} th:last-child") == [], language
        # The round numbers (the first column) and the notes stay on screen, scrolled or not.
        assert inside_viewport(page, "[data-testid^=edit-round-]") == [], language
        assert inside_viewport(page, "[data-testid^=board-note-]") == [], language
    no_js_errors(page)
    context.close()


def test_kaboom_halves_every_exact_hundred_and_says_so(
    browser: Browser, server: RunningServer
) -> None:
    made = make_board(server, names=["Ann", "Bob"], preset="kaboom")
    add_rounds(
        server,
        made,
        [
            {"hand_totals": [40, 1], "caller": 1},
            {"hand_totals": [60, 2], "caller": 1},  # Ann: exactly 100, halved to 50
            {"hand_totals": [50, 3], "caller": 1},  # Ann: exactly 100 again, halved again
            {"hand_totals": [10, 9], "caller": 1, "moon": 0},  # Harakiri: Bob 50
        ],
    )
    context, page = phone(browser, mobile=False)
    page.goto(server.url + "/scoreboard/" + made["link"].rsplit("/", 1)[-1])
    expect(page.get_by_test_id("board-table")).to_be_visible()
    assert note_after(page, 1) == "board-round-2"
    for n in (2, 3):
        assert note_after(page, n) == f"board-notes-{n}"
        expect(page.get_by_test_id(f"board-note-{n}-reset")).to_have_text(
            "Ann reached exactly 100: halved to 50. In Kaboom this happens every time."
        )
    expect(page.get_by_test_id("board-note-4-moon")).to_contain_text("0 for Ann, 50 for everyone")
    expect(page.get_by_test_id("board-total-0")).to_have_text("50")
    expect(page.get_by_test_id("board-total-1")).to_have_text("50")
    fits_with_every_control(page, "kaboom")
    # The read-only link on a second screen (a phone too): the same notes, and it fits.
    share = made["share_link"]
    page.goto(share if share.startswith("http") else server.url + share)
    expect(page.get_by_test_id("board-readonly")).to_be_visible()
    expect(page.get_by_test_id("board-note-3-reset")).to_contain_text("every time")
    fits_with_every_control(page, "kaboom, read only")
    no_js_errors(page)
    context.close()


@pytest.mark.parametrize("mobile", [False, True], ids=["360px", "phone-emulation"])
def test_the_new_scoreboard_form_fits_a_phone(
    browser: Browser, server: RunningServer, mobile: bool
) -> None:
    """The form that makes a board, with four players and placement points (its widest), in
    English and German; it creates the board with taps."""
    context, page = phone(browser, mobile=mobile)
    page.goto(server.url + "/scoreboard")
    expect(page.get_by_test_id("board-create")).to_be_visible()
    press(page, "board-add-player", touch=mobile)
    for p, name in enumerate(NAMES):
        page.get_by_test_id(f"board-name-{p}").fill(name)
    press(page, "board-placement", touch=mobile)
    expect(page.get_by_test_id("board-points-3")).to_be_visible()
    fits_with_every_control(page, "new board")
    press(page, "language", touch=mobile)
    expect(page.get_by_test_id("board-create")).to_have_text("Punkteblock anlegen")
    fits_with_every_control(page, "new board, German")
    if not mobile:
        check_screen(page, "scoreboard-new-de")
        press(page, "language", touch=False)
        check_screen(page, "scoreboard-new")
    press(page, "board-create", touch=mobile)
    expect(page.get_by_test_id("board-table")).to_be_visible()
    no_js_errors(page)
    context.close()


def test_a_refused_round_and_its_choices_fit_a_phone(
    browser: Browser, server: RunningServer
) -> None:
    """Another device added a round first: this phone's round is refused, listed, and both
    choices (enter it again, let it go) fit, in English and German."""
    made = make_board(server, names=NAMES, preset="kivo")
    context, page = phone(browser, mobile=True)
    page.goto(server.url + "/scoreboard/" + made["link"].rsplit("/", 1)[-1])
    expect(page.get_by_test_id("board-table")).to_be_visible()
    add_rounds(server, made, [{"hand_totals": [1, 2, 3, 4], "caller": 0}])
    enter(page, [5, 6, 7, 8], caller=1, touch=True)
    expect(page.get_by_test_id("board-conflict")).to_contain_text("another device")
    fits_with_every_control(page, "refused round")
    press(page, "language", touch=True)
    expect(page.get_by_test_id("board-let-go")).to_have_text("Verwerfen")
    fits_with_every_control(page, "refused round, German")
    press(page, "board-again", touch=True)
    expect(page.get_by_test_id("board-round-2")).to_be_visible()
    no_js_errors(page)
    context.close()
