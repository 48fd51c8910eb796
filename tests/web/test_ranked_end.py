"""The end of a ranked match in a real browser: the sudden-death notice when the lowest totals
are tied after three rounds, the line during that round, a draw that reads as a draw, the rating
change, and the queue again (never a host's rematch); the end-of-match screen leaves no empty
scroll below it.

The matches are the ones tests/server/modes/test_ranked_rounds.py plays (seeded with the test hooks,
both seats played by one fixed policy through the real server); the browser sits in Ann's seat
as a second connection of it (a seat may be open on two devices), signed in to her account.
"""

from __future__ import annotations

import asyncio
import contextlib
import re
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import httpx
import pytest
from playwright.sync_api import Browser, BrowserContext, Page, expect

from facedown.server.play.table import TableConfig
from facedown.store import MemoryStore

from ..server.harness import RunningServer, applied, run_server, seated
from ..server.modes.test_ranked_rounds import (
    DRAW_SEED,
    PRESET,
    SUDDEN_DEATH_SEED,
    policy,
    simulated,
)
from ..server.ranked_helpers import account, matched, queue, ranked_settings
from .screens import PHONE, check_screen, empty_below
from .test_browser import new_page, no_js_errors

View = dict[str, Any]
SIGNED = re.compile(r"^(\+\d+|\u2212\d+|\u00b10)$")  # +12, -7 (a real minus), ±0


@pytest.fixture
def store() -> MemoryStore:
    return MemoryStore()


@pytest.fixture
def server(tmp_path: Path, store: MemoryStore) -> Iterator[RunningServer]:
    # The players press next_round themselves; a seat whose scripted client left between two
    # steps of the test is not forfeited meanwhile.
    table = TableConfig(bot_delay=0.0, reveal_seconds=600.0, grace_seconds=600.0)
    with run_server(ranked_settings(tmp_path, test_hooks=True, table=table), store) as running:
        yield running


def play_until(
    server: RunningServer, code: str, tokens: list[str], stop: Callable[[View], bool]
) -> View:
    """Both seats play the policy until ``stop`` holds for the view; that view."""

    async def play() -> View:
        async with seated(server, code, tokens) as clients:
            for _ in range(2000):
                if stop(clients[0].view):
                    return clients[0].view
                action = policy([c.legal for c in clients])
                ack = await clients[action["by"]].act(
                    {k: v for k, v in action.items() if k != "by"}
                )
                assert applied(ack), ack
                for c in clients:
                    await c.until_seq(ack["seq"])
        raise AssertionError("the match never got there")

    # Playwright's own event loop runs in this thread: the scripted clients play in another.
    with ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, asyncio.wait_for(play(), 120)).result()


def browser_of(
    browser: Browser, server: RunningServer, http: httpx.Client
) -> tuple[BrowserContext, Page]:
    """A phone's browser signed in to the account ``http`` is (its session cookie)."""
    context, page = new_page(browser, PHONE[0], PHONE[1], reduced_motion=True)
    host = httpx.URL(server.url).host
    context.add_cookies(
        [
            {
                "name": c.name,
                "value": c.value or "",
                "domain": host,
                "path": "/api",
                "httpOnly": True,
            }
            for c in http.cookies.jar
        ]
    )
    return context, page


@contextlib.contextmanager
def ranked_table(
    server: RunningServer, seed: int
) -> Iterator[tuple[str, list[str], int, httpx.Client]]:
    """Ann (first) and Bob queue for boyo with the seed; the table's code, the tokens by seat,
    Ann's seat and her signed-in client."""
    with account(server, "Ann") as ann, account(server, "Bob") as bob:
        queue(ann, PRESET, 2, seed=seed)
        queue(bob, PRESET, 2)
        a, b = matched(ann), matched(bob)
        tokens = [t for _, t in sorted([(a["seat"], a["token"]), (b["seat"], b["token"])])]
        yield a["code"], tokens, a["seat"], ann


def round_over(n: int) -> Callable[[View], bool]:
    return lambda v: v.get("phase") == "round_over" and v.get("round") == n


def match_over(v: View) -> bool:
    return v.get("phase") == "match_over"


def test_a_tie_after_three_rounds_is_announced_and_a_second_tie_reads_as_a_draw(
    browser: Browser, server: RunningServer
) -> None:
    expected = simulated(DRAW_SEED)
    assert expected.totals[0] == expected.totals[1], "the seed no longer ties twice: search again"
    with ranked_table(server, DRAW_SEED) as (code, tokens, seat, ann):
        view = play_until(server, code, tokens, round_over(3))
        assert view["totals"][0] == view["totals"][1]
        context, page = browser_of(browser, server, ann)
        page.goto(f"{server.url}/t/{code}#seat={tokens[seat]}")
        notice = page.get_by_test_id("sudden-death")
        names = ["Ann", "Bob"] if seat == 0 else ["Bob", "Ann"]  # by seat
        expect(notice).to_contain_text(
            f"Tied for the lowest total: {' and '.join(names)}", timeout=20_000
        )
        expect(notice).to_contain_text(f"on {view['totals'][0]} points each")
        expect(notice).to_contain_text("One more round, sudden death, decides the match")
        check_screen(page, "ranked-sudden-death-next")
        page.get_by_test_id("language").click()
        expect(notice).to_contain_text(
            f"Gleichstand bei der niedrigsten Summe: {' und '.join(names)}"
        )
        check_screen(page, "ranked-sudden-death-next-de")
        page.get_by_test_id("language").click()

        play_until(server, code, tokens, match_over)
        winner = page.get_by_test_id("winner")
        expect(winner).to_have_text("A draw: you share first place with Bob.", timeout=20_000)
        expect(page.get_by_text("Winners:")).to_have_count(0)
        expect(page.get_by_text("You win!")).to_have_count(0)
        expect(page.get_by_text("Waiting for the host")).to_have_count(0)
        expect(page.get_by_test_id("act-rematch")).to_have_count(0)
        # The rating change of both seats, once the match is rated (moments after its end).
        mine = page.get_by_test_id(f"rating-change-{seat}")
        expect(mine).to_contain_text("Ann", timeout=20_000)
        expect(mine).to_contain_text("1000 →")
        expect(mine.locator(".delta")).to_have_text(SIGNED)
        expect(page.get_by_test_id(f"rating-change-{1 - seat}")).to_contain_text("Bob")
        check_screen(page, "ranked-draw")
        for width, height in ((360, 740), (1280, 800)):
            page.set_viewport_size({"width": width, "height": height})
            below = empty_below(page)
            assert below < 60, (
                f"{below:.0f} px of empty scroll below the end of the match at {width} px"
            )
        page.set_viewport_size({"width": PHONE[0], "height": PHONE[1]})
        page.get_by_test_id("language").click()
        expect(winner).to_have_text("Unentschieden: Du teilst dir den ersten Platz mit Bob.")
        expect(page.get_by_test_id("queue-again")).to_contain_text("Wieder anstellen")
        check_screen(page, "ranked-draw-de")
        page.get_by_test_id("language").click()

        # The queue again: the same game and size, waiting at once.
        page.get_by_test_id("queue-again").click()
        expect(page.get_by_test_id("ranked-waiting")).to_contain_text(
            "Boyo, 2 players", timeout=20_000
        )
        no_js_errors(page)
        context.close()


def test_the_sudden_death_round_says_whom_it_is_between_and_its_end_shows_the_ratings(
    browser: Browser, server: RunningServer
) -> None:
    expected = simulated(SUDDEN_DEATH_SEED)
    assert len(expected.history) == 4, "the seed no longer ties after three rounds"
    assert len(expected.winners) == 1, "the seed's sudden death no longer decides"
    with ranked_table(server, SUDDEN_DEATH_SEED) as (code, tokens, seat, ann):
        view = play_until(server, code, tokens, round_over(3))
        context, page = browser_of(browser, server, ann)
        page.goto(f"{server.url}/t/{code}#seat={tokens[seat]}")
        names = ["Ann", "Bob"] if seat == 0 else ["Bob", "Ann"]  # by seat
        pair = " and ".join(names)
        expect(page.get_by_test_id("sudden-death")).to_contain_text(pair, timeout=20_000)

        # Into the fourth round: the line says what it is, in both languages.
        play_until(server, code, tokens, lambda v: v.get("round") == 4)
        page.get_by_test_id("reveal-close-top").click()
        line = page.get_by_test_id("sudden-death-round")
        expect(line).to_have_text(
            f"Sudden death: this round decides the match between {pair}"
            f" (tied on {view['totals'][0]} points).",
            timeout=20_000,
        )
        check_screen(page, "ranked-sudden-death-round")
        for width, height in ((360, 740), (1280, 800)):  # the bar's link to the rules too
            page.set_viewport_size({"width": width, "height": height})
            box = page.get_by_test_id("rules-link").bounding_box()
            assert box is not None
            assert box["width"] >= 44 and box["height"] >= 44, (width, box)  # noqa: PT018
        page.set_viewport_size({"width": 360, "height": 740})
        page.get_by_test_id("language").click()
        expect(line).to_contain_text(
            f"Entscheidungsrunde: Diese Runde entscheidet die Partie zwischen {' und '.join(names)}"
        )
        page.get_by_test_id("language").click()

        play_until(server, code, tokens, match_over)
        [won] = expected.winners
        winner = page.get_by_test_id("winner")
        expect(winner).to_have_text("You win!" if won == seat else "Winner: Bob", timeout=20_000)
        expect(page.get_by_test_id("sudden-death-round")).to_be_empty()
        deltas = page.locator("[data-testid^=rating-change-] .delta")
        expect(deltas).to_have_count(2, timeout=20_000)
        up = page.get_by_test_id(f"rating-change-{won}").locator(".delta")
        down = page.get_by_test_id(f"rating-change-{1 - won}").locator(".delta")
        expect(up).to_have_text(SIGNED)
        assert (up.text_content() or "").startswith("+"), up.text_content()
        expect(down).to_have_text(SIGNED)
        expect(page.get_by_text("Waiting for the host")).to_have_count(0)
        check_screen(page, "ranked-won")
        no_js_errors(page)
        context.close()


NAMES = ("Ann", "Bob", "Cleo", "Dora")
# Found as tests/server/modes/test_ranked_rounds.py found its seeds (the policy over seeds from 0,
# searched again for the 128-bit match seeds):
# after three rounds two seats share the lowest total and the others are above it.
CROWDED = [(3, 29), (4, 29)]


@contextlib.contextmanager
def crowded_table(
    server: RunningServer, players: int, seed: int
) -> Iterator[tuple[str, list[str], list[str], int, httpx.Client]]:
    """``players`` accounts queue for boyo, Ann first with the seed: the table's code, the
    tokens and the names by seat, Ann's seat and her client."""
    with contextlib.ExitStack() as stack:
        https = [stack.enter_context(account(server, name)) for name in NAMES[:players]]
        queue(https[0], PRESET, players, seed=seed)
        for http in https[1:]:
            queue(http, PRESET, players)
        found = [matched(http) for http in https]
        by_seat = sorted(
            (m["seat"], m["token"], name) for m, name in zip(found, NAMES, strict=False)
        )
        tokens = [token for _, token, _ in by_seat]
        names = [name for _, _, name in by_seat]
        yield found[0]["code"], tokens, names, found[0]["seat"], https[0]


@pytest.mark.parametrize(("players", "seed"), CROWDED)
def test_at_a_crowded_table_the_notice_names_only_the_seats_tied_for_the_lowest_total(
    browser: Browser, server: RunningServer, players: int, seed: int
) -> None:
    with crowded_table(server, players, seed) as (code, tokens, names, seat, ann):
        view = play_until(server, code, tokens, round_over(3))
        low = min(view["totals"])
        tied = [s for s, total in enumerate(view["totals"]) if total == low]
        assert 1 < len(tied) < players, f"the seed no longer ties two seats: {view['totals']}"
        context, page = browser_of(browser, server, ann)
        page.goto(f"{server.url}/t/{code}#seat={tokens[seat]}")
        notice = page.get_by_test_id("sudden-death")
        pair = " and ".join(names[s] for s in tied)
        expect(notice).to_contain_text(
            f"Tied for the lowest total: {pair}, on {low} points each", timeout=20_000
        )
        for s in range(players):
            if s not in tied:
                expect(notice).not_to_contain_text(names[s])
        check_screen(page, f"ranked-{players}-sudden-death-next")
        page.get_by_test_id("language").click()  # and in German
        expect(notice).to_contain_text("Gleichstand bei der niedrigsten Summe")
        check_screen(page, f"ranked-{players}-sudden-death-next-de")
        page.get_by_test_id("language").click()

        end = play_until(server, code, tokens, match_over)
        winners = end["winners"]
        winner = page.get_by_test_id("winner")
        if len(winners) > 1:
            expect(winner).to_contain_text("A draw:", timeout=20_000)
        elif winners == [seat]:
            expect(winner).to_have_text("You win!", timeout=20_000)
        else:
            expect(winner).to_have_text(f"Winner: {names[winners[0]]}", timeout=20_000)
        expect(page.get_by_text("Waiting for the host")).to_have_count(0)
        expect(page.locator("[data-testid^=rating-change-] .delta")).to_have_count(
            players, timeout=20_000
        )
        expect(page.get_by_test_id("queue-again")).to_contain_text(f"Boyo, {players} players")
        check_screen(page, f"ranked-{players}-end")
        page.get_by_test_id("language").click()  # and in German
        expect(page.get_by_test_id("queue-again")).to_contain_text(f"Boyo, {players} Spieler")
        check_screen(page, f"ranked-{players}-end-de")
        no_js_errors(page)
        context.close()
