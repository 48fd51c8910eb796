"""Every screen of the web client, in English and in German, at 360 x 740 and 1280 x 800, with
the checks of screens.py: no sideways scroll, every control at least 44 px, no serious or
critical axe-core finding; a screenshot of each (artifacts/screenshots/, "all-<screen>-<lang>").

Some screens are checked in one language by the tests about them too; here each is checked in
both, so a long German word that breaks a layout is found.  The list of screens:

- without a table: home, new table (each preset, and turn-based), how to play (each preset),
  ranked (signed out), profile (signed out), games (signed out), new scoreboard, a scoreboard
  with rounds, its read-only view, new pass-and-play, pass-and-play's curtain, a player's moment
  and the look at two cards;
- a table: lobby (an open seat), join (the invitation), the game's opening look, a spectator,
  after the look, a turn, holding a drawn card, the reveal between rounds, the match end, the
  replay;
- an account: profile (with the finished match), games, ranked (signed in), a leaderboard.

The turn-based deadline, forfeit and notification screens are in test_deadline_screens.py."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import Browser, BrowserContext, Page, expect

from ..server.harness import RunningServer
from .faces import assert_faces_shown
from .screens import PHONE, SIZES, check_screen
from .test_browser import end_opening, no_js_errors, opening_peek
from .test_passplay import read
from .test_phone import play_until_reveal
from .test_profile import PASSWORD
from .test_scoreboard import make_board

LOCALES = {"en": "en-US", "de": "de-DE"}
LANGS = ["en", "de"]
PRESETS = ["boyo", "cabo", "kivo", "kaboom"]
WAIT = 20_000  # ms
# A word of the home page in each language: the page is in the language the browser asked for.
PLAY_NOW = {"en": "Play", "de": "Spielen"}


def _open(browser: Browser, lang: str) -> tuple[BrowserContext, Page]:
    context = browser.new_context(
        viewport={"width": 360, "height": 740}, locale=LOCALES[lang], reduced_motion="reduce"
    )
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.on(
        "console",
        lambda m: errors.append(m.text) if "Content Security Policy" in m.text else None,
    )
    page.set_default_timeout(WAIT)
    setattr(page, "js_errors", errors)  # noqa: B010 - checked by no_js_errors
    return context, page


def _check(page: Page, screen: str, lang: str, *, faces: str = "", least: int = 1) -> None:
    """The screens.py checks; with ``faces`` (a CSS selector), also that every card under it
    that the view has face up shows its face, at both sizes (faces.py)."""
    check_screen(page, f"all-{screen}-{lang}")
    if faces:
        for width, height in SIZES:
            page.set_viewport_size({"width": width, "height": height})
            assert_faces_shown(page, faces, least=least)
        page.set_viewport_size({"width": PHONE[0], "height": PHONE[1]})


def _post(context: BrowserContext, url: str, body: dict[str, Any]) -> dict[str, Any]:
    r = context.request.post(url, data=body)
    assert r.status in (200, 201), r.text()
    found: dict[str, Any] = r.json()
    return found


@pytest.mark.parametrize("lang", LANGS)
def test_the_screens_without_a_table(browser: Browser, server: RunningServer, lang: str) -> None:
    context, page = _open(browser, lang)
    try:
        page.goto(server.url + "/")
        expect(page.get_by_test_id("play-now")).to_have_text(PLAY_NOW[lang])
        _check(page, "home", lang)
        for preset in PRESETS:
            page.goto(f"{server.url}/new/{preset}")
            expect(page.get_by_test_id("open-table")).to_be_visible()
            _check(page, f"new-{preset}", lang)
        page.get_by_test_id("mode-turn-based").check()
        expect(page.get_by_test_id("settings-deadline")).to_be_visible()
        _check(page, "new-kaboom-turn-based", lang)
        for preset in PRESETS:
            page.goto(f"{server.url}/howto/{preset}")
            expect(page.get_by_role("heading", level=1)).to_contain_text(preset.capitalize())
            _check(page, f"howto-{preset}", lang)
        page.goto(server.url + "/ranked")
        expect(page.locator("main h1").first).to_be_visible()
        _check(page, "ranked-signed-out", lang)
        page.goto(server.url + "/profile")
        expect(page.get_by_test_id("account-submit")).to_be_visible()
        _check(page, "profile-signed-out", lang)
        page.goto(server.url + "/games")
        expect(page.locator("#games-title")).to_be_visible()
        _check(page, "games-signed-out", lang)

        # The scoreboard: the form, a board with two rounds, its read-only view.
        page.goto(server.url + "/scoreboard")
        expect(page.get_by_test_id("board-create")).to_be_visible()
        _check(page, "scoreboard-new", lang)
        made = make_board(server, names=["Ann", "Bob", "Cleo"], preset="cabo")
        key = made["link"].rsplit("/", 1)[-1]
        revision = made["revision"]
        with server.http() as http:
            for hands, caller in (([12, 30, 7], 2), ([4, 19, 22], 0)):
                r = http.post(
                    f"/api/scoreboards/{key}/rounds",
                    json={"base": revision, "hand_totals": hands, "caller": caller},
                )
                assert r.status_code in (200, 201), r.text
                revision = r.json()["revision"]
        page.goto(f"{server.url}/scoreboard/{key}")
        expect(page.get_by_test_id("board-round-2")).to_be_visible()
        _check(page, "scoreboard", lang)
        page.goto(f"{server.url}/scoreboard/view/{made['view_key']}")
        expect(page.get_by_test_id("board-round-2")).to_be_visible()
        _check(page, "scoreboard-view", lang)

        # Pass-and-play: the form, the curtain, a player's moment with two cards seen.
        page.goto(server.url + "/pass")
        expect(page.get_by_test_id("pass-start")).to_be_visible()
        for i, name in enumerate(["Maya", "Bo"]):
            page.get_by_test_id(f"pass-name-{i}").fill(name)
        _check(page, "pass-new", lang)
        page.get_by_test_id("pass-start").click()
        expect(page.get_by_test_id("pass-curtain")).to_be_visible()
        _check(page, "pass-curtain", lang)
        page.get_by_test_id("pass-reveal").click()
        seat = read(page)["open"]
        expect(page.get_by_test_id(f"card-{seat}-0")).to_be_visible()
        _check(page, "pass-moment", lang)
        page.get_by_test_id(f"card-{seat}-0").click()
        page.get_by_test_id(f"card-{seat}-1").click()
        expect(page.get_by_test_id(f"card-{seat}-1")).not_to_have_attribute("data-face", "")
        _check(page, "pass-moment-look", lang, faces="main", least=2)
        no_js_errors(page)
    finally:
        context.close()


@pytest.mark.parametrize("lang", LANGS)
def test_the_screens_of_a_table_and_an_account(
    browser: Browser, server: RunningServer, lang: str
) -> None:
    context, page = _open(browser, lang)
    friend_ctx, friend = _open(browser, lang)
    try:
        signup = {"name": "Ann", "password": PASSWORD, "guest_tokens": []}
        _post(context, f"{server.url}/api/account/signup", signup)

        # A lobby with an open seat, and the invitation a friend opens.
        lobby = _post(
            context,
            f"{server.url}/api/tables",
            {"preset": "kaboom", "seats": 3, "name": "Ann", "bots": ["easy"]},
        )
        page.goto(f"{server.url}/t/{lobby['code']}")
        expect(page.get_by_test_id("invite-link")).to_be_visible()
        _check(page, "lobby", lang)
        friend.goto(f"{server.url}/t/{lobby['code']}")
        expect(friend.get_by_test_id("join-game")).to_be_visible()
        friend.get_by_test_id("join-rules").locator("summary").click()
        _check(friend, "join", lang)

        # A match of two rounds against a bot: every phase of the game.
        body = {
            "preset": "boyo",
            "seats": 2,
            "name": "Ann",
            "bots": ["medium"],
            "peek_seconds": 600,
            "turn_seconds": 600,
            "options": {"rounds": 2},
        }
        code = _post(context, f"{server.url}/api/tables", body)["code"]
        page.goto(f"{server.url}/t/{code}")
        page.get_by_test_id("start").click()
        expect(page.get_by_test_id("game")).to_be_visible()
        expect(page.get_by_test_id("card-0-0")).to_be_visible()
        _check(page, "game-opening", lang)
        # The friend, not seated here, watches.
        friend.goto(f"{server.url}/t/{code}")
        spectating = {"en": "You are watching", "de": "Du schaust zu"}[lang]
        expect(friend.get_by_test_id("game")).to_contain_text(spectating)
        _check(friend, "spectator", lang)
        opening_peek(page, 0)
        _check(page, "game-peeked", lang, faces="[data-testid=my-hand]", least=2)
        end_opening(page)
        draw = page.get_by_test_id("act-draw")
        expect(draw).to_be_visible(timeout=WAIT)
        _check(page, "game-turn", lang)
        draw.click()
        expect(page.get_by_test_id("held")).to_be_visible()
        _check(page, "game-holding", lang, faces="[data-testid=held]")
        play_until_reveal(page, 0)
        expect(page.get_by_test_id("act-next_round")).to_be_visible()
        _check(page, "reveal", lang, faces="[data-testid=reveal]", least=4)
        page.get_by_test_id("act-next_round").click()
        expect(page.get_by_test_id("reveal")).to_have_count(0)
        opening_peek(page, 0)
        end_opening(page)
        play_until_reveal(page, 0)
        expect(page.get_by_test_id("winner")).to_be_visible()
        _check(page, "match-end", lang, faces="[data-testid=reveal]", least=4)

        # The replay of that match, from the match end's share button.
        page.get_by_test_id("share-replay-button").click()
        page.get_by_test_id("share-replay-open").click()
        expect(page.get_by_test_id("replay-where")).to_be_visible()
        page.get_by_test_id("replay-forward").click()
        _check(page, "replay", lang, faces="main")

        # The account: its profile with the match, its games, ranked, a leaderboard.
        page.goto(server.url + "/profile")
        expect(page.get_by_test_id("account-title")).to_have_text("Ann")
        # The bot of the match by its name in the page's language.
        bot = {"en": "Bot (medium)", "de": "Bot (mittel)"}[lang]
        expect(page.get_by_test_id("history-row")).to_contain_text(bot)
        _check(page, "profile", lang)
        page.goto(server.url + "/games")
        expect(page.get_by_test_id(f"game-{code}")).to_be_visible()
        _check(page, "games", lang)
        page.goto(server.url + "/ranked")
        expect(page.get_by_test_id("ranked-join")).to_be_visible()
        _check(page, "ranked", lang)
        page.goto(server.url + "/ranked/leaderboard/kivo-2")
        expect(page.get_by_test_id("leaderboard-empty")).to_be_visible()
        _check(page, "leaderboard", lang)
        no_js_errors(page, friend)
    finally:
        context.close()
        friend_ctx.close()
