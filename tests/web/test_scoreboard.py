"""Browser tests of the Physical Scoreboard: a whole evening with an edit, the chart and the CSV,
the read-only link, the board used offline and synced, and two devices editing one board."""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Sequence
from typing import Any

import pytest
from playwright.sync_api import Browser, Page, expect

from ..server.harness import RunningServer
from .conftest import Shots
from .test_browser import new_page, no_js_errors


def enter_round(page: Page, hands: Sequence[int | None], caller: int, moon: int = -1) -> None:
    if moon >= 0:
        page.get_by_test_id(f"moon-{moon}").click()  # one tap: the hand total is filled in
    for p, total in enumerate(hands):
        if total is not None:
            page.get_by_test_id(f"hand-{p}").fill(str(total))
    page.get_by_test_id(f"caller-{caller}" if caller >= 0 else "caller-none").check()
    page.get_by_test_id("board-submit").click()


def cell(page: Page, number: int, player: int) -> str:
    return page.get_by_test_id(f"board-score-{number}-{player}").inner_text()


def totals(page: Page, players: int) -> list[str]:
    return [page.get_by_test_id(f"board-total-{p}").inner_text() for p in range(players)]


def make_board(server: RunningServer, **body: Any) -> dict[str, Any]:
    with server.http() as http:
        r = http.post("/api/scoreboards", json=body)
        assert r.status_code == 201, r.text
        made: dict[str, Any] = r.json()
    return made


@pytest.mark.parametrize(
    ("opens", "prefix", "add", "first"),
    [("home-scoreboard", "board", "board-add-player", 3), ("home-pass", "pass", "pass-add", 2)],
)
def test_a_set_up_form_takes_two_to_eight_names_added_and_removed(
    browser: Browser, server: RunningServer, opens: str, prefix: str, add: str, first: int
) -> None:
    """The players' names on both set-up forms (one component): a new field takes the focus,
    no field is added past eight nor removed below two, and a removed name takes its field
    with it (the later ones move up)."""
    context, page = new_page(browser)
    page.goto(server.url + "/")
    page.get_by_test_id(opens).click()
    fields = page.locator(f"[data-testid^={prefix}-name-]")
    removes = page.locator(f"[data-testid^={prefix}-remove-]")
    expect(fields).to_have_count(first)
    for n in range(first + 1, 9):
        page.get_by_test_id(add).click()
        expect(fields).to_have_count(n)
        expect(page.get_by_test_id(f"{prefix}-name-{n - 1}")).to_be_focused()
    expect(page.get_by_test_id(add)).to_have_count(0)
    expect(removes).to_have_count(8)
    for i, name in enumerate(["Ann", "Bo", "Cyd", "Dana", "Eli", "Fen", "Gus", "Hal"]):
        page.get_by_test_id(f"{prefix}-name-{i}").fill(name)
    page.get_by_test_id(f"{prefix}-remove-1").click()
    expect(fields).to_have_count(7)
    expect(page.get_by_test_id(add)).to_be_visible()
    expect(page.get_by_test_id(f"{prefix}-name-1")).to_have_value("Cyd")
    for _ in range(5):
        page.get_by_test_id(f"{prefix}-remove-0").click()
    expect(fields).to_have_count(2)
    expect(removes).to_have_count(0)
    assert [fields.nth(i).input_value() for i in range(2)] == ["Gus", "Hal"]
    no_js_errors(page)
    context.close()


def test_five_rounds_with_an_edit_the_chart_and_the_csv(
    browser: Browser, server: RunningServer, shots: Shots
) -> None:
    context, page = new_page(browser)
    page.goto(server.url + "/")
    page.get_by_test_id("home-scoreboard").click()
    page.get_by_test_id("board-preset").select_option("kivo")
    for p, name in enumerate(["Ann", "Maya", "Sam"]):
        page.get_by_test_id(f"board-name-{p}").fill(name)
    page.get_by_test_id("board-rounds").fill("5")
    page.get_by_test_id("board-create").click()
    expect(page.get_by_test_id("board-table")).to_be_visible()
    assert "/scoreboard/" in page.url
    # Kivo: hand totals, +10 for a caller without (or sharing) the lowest total.
    evening = [
        ([7, 12, 9], 0),
        ([10, 4, 6], 2),  # Sam called, 4 is lower: 16
        ([3, 3, 8], 1),  # Maya shares the lowest: no penalty
        ([11, 2, 5], 1),
        ([6, 9, 1], 0),  # Ann called, 1 is lower: 16
    ]
    for n, (hands, caller) in enumerate(evening, start=1):
        enter_round(page, hands, caller)
        expect(page.get_by_test_id(f"board-round-{n}")).to_be_visible()
    assert "→ 16" in cell(page, 2, 2)
    assert totals(page, 3) == ["47", "30", "39"]
    expect(page.get_by_test_id("board-over")).to_contain_text("Maya won")
    shots.take(page, "five-rounds")

    # Round 2 entered again: Sam had 6, Maya 8; Sam is lowest now, so no penalty.
    page.get_by_test_id("edit-round-2").click()
    expect(page.get_by_test_id("hand-1")).to_have_value("4")
    page.get_by_test_id("hand-1").fill("8")
    page.get_by_test_id("board-submit").click()
    expect(page.get_by_test_id("board-total-2")).to_have_text("29")
    assert totals(page, 3) == ["47", "34", "29"]
    assert "→ 6" in cell(page, 2, 2)
    expect(page.get_by_test_id("board-over")).to_contain_text("Sam won")

    # The chart: one line per player, a point per round and one for the start.
    chart = page.get_by_test_id("board-chart")
    expect(chart).to_be_visible()
    lines = [page.get_by_test_id(f"chart-line-{p}").get_attribute("points") or "" for p in range(3)]
    assert [len(line.split()) for line in lines] == [6, 6, 6]
    # Higher totals are drawn higher: after round 5 Ann (47) is above Sam (29).
    ann_y = float(lines[0].split()[-1].split(",")[1])
    sam_y = float(lines[2].split()[-1].split(",")[1])
    assert ann_y < sam_y

    # The CSV, as the download link gives it.
    with page.expect_download() as download:
        page.get_by_test_id("board-csv").click()
    path = download.value.path()
    rows = list(csv.reader(io.StringIO(path.read_text(encoding="utf-8"))))
    assert rows[0][:6] == ["round", "caller", "moon", "Ann hand", "Ann score", "Ann total"]
    assert rows[2] == ["2", "Sam", "", "10", "10", "17", "8", "8", "20", "6", "6", "15"]
    assert rows[6] == ["total", "", "", "", "", "47", "", "", "34", "", "", "29", "Sam"]

    # The read-only link on a second screen: the same board, nothing to change it with.
    share = page.get_by_test_id("board-share-link").get_attribute("href") or ""
    second_context, second = new_page(browser)
    second.goto(share)
    expect(second.get_by_test_id("board-readonly")).to_be_visible()
    expect(second.get_by_test_id("board-total-2")).to_have_text("29")
    assert second.get_by_test_id("hand-0").count() == 0
    assert second.get_by_test_id("edit-round-1").count() == 0
    assert second.get_by_test_id("undo-round-1").count() == 0
    # Undo on the first screen (tap the round's number, then take it back): the second
    # follows by itself.
    page.get_by_test_id("edit-round-5").click()
    page.get_by_test_id("undo-round-5").click()
    expect(second.get_by_test_id("board-total-2")).to_have_text("28")
    expect(second.get_by_test_id("board-round-5")).to_have_count(0)
    no_js_errors(page, second)
    second_context.close()
    context.close()


def test_rounds_entered_offline_are_kept_and_synced(
    browser: Browser, server: RunningServer, shots: Shots
) -> None:
    made = make_board(server, names=["Ann", "Maya"], preset="cabo")
    context, page = new_page(browser)
    page.goto(made["link"] if made["link"].startswith("http") else server.url + made["link"])
    enter_round(page, [9, 3], caller=0)  # Ann called, not lowest: 9 + 5
    expect(page.get_by_test_id("board-total-0")).to_have_text("14")

    context.set_offline(True)
    enter_round(page, [None, 20], caller=1, moon=0)  # Ann shoots the moon: one tap
    enter_round(page, [4, 4], caller=1)  # a tie: the caller alone scores 0
    expect(page.get_by_test_id("board-pending")).to_have_count(2)
    expect(page.get_by_test_id("board-pending").first).to_contain_text("not yet scored")
    expect(page.get_by_test_id("board-pending").first).to_contain_text("50 · 20")
    expect(page.get_by_test_id("board-offline")).to_contain_text("2 changes are kept")
    # Nothing was scored in the browser: the totals are still the server's of round 1.
    assert totals(page, 2) == ["14", "0"]
    # The changes are in the browser's storage, each with the revision it was made on.
    kept = page.evaluate(
        "() => Object.entries(localStorage).filter(([k]) => k.startsWith('facedown.board.'))"
    )
    assert len(kept) == 1
    pending = json.loads(kept[0][1])["pending"]
    assert [(c["kind"], c["base"]) for c in pending] == [("add", 1), ("add", 2)]
    shots.take(page, "offline")
    with server.http() as http:
        seen = http.get(f"/api/scoreboards/view/{made['view_key']}").json()
    assert len(seen["board"]["rounds"]) == 1

    context.set_offline(False)
    expect(page.get_by_test_id("board-pending")).to_have_count(0)
    expect(page.get_by_test_id("board-offline")).to_have_count(0)
    assert "50 🌙 → 0" in cell(page, 2, 0)
    assert "→ 50" in cell(page, 2, 1)
    assert totals(page, 2) == ["18", "50"]
    with server.http() as http:
        board = http.get(f"/api/scoreboards/view/{made['view_key']}").json()
    assert board["revision"] == 3
    assert board["board"]["totals"] == [18, 50]
    no_js_errors(page)
    context.close()


def test_an_edit_from_a_stale_device_is_refused_and_shown(
    browser: Browser, server: RunningServer
) -> None:
    made = make_board(server, names=["Ann", "Maya"], preset="boyo")
    link = made["link"] if made["link"].startswith("http") else server.url + made["link"]
    first_context, first = new_page(browser)
    second_context, second = new_page(browser)
    first.goto(link)
    second.goto(link)
    expect(second.get_by_test_id("board-table")).to_be_visible()
    enter_round(first, [5, 7], caller=0)
    expect(first.get_by_test_id("board-round-1")).to_be_visible()
    # The second device still shows revision 0: its round is refused, and it is told why.
    enter_round(second, [1, 2], caller=1)
    conflict = second.get_by_test_id("board-conflict")
    expect(conflict).to_contain_text("another device")
    expect(conflict).to_contain_text("New round: 1 · 2")
    expect(second.get_by_test_id("board-round-1")).to_contain_text("5")  # the board as it is
    second.get_by_test_id("board-again").click()
    expect(second.get_by_test_id("board-round-2")).to_be_visible()
    expect(second.get_by_test_id("board-conflict")).to_have_count(0)
    assert totals(second, 2) == ["6", "9"]
    no_js_errors(first, second)
    first_context.close()
    second_context.close()
