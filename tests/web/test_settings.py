"""From the settings page to the lobby: each seat is what the host chose for it, and a bot's
level is said once."""

from __future__ import annotations

from playwright.sync_api import Browser, expect

from ..server.harness import RunningServer
from .test_browser import new_page, no_js_errors


def test_the_lobby_seats_who_the_settings_chose_where_they_chose(
    browser: Browser, server: RunningServer
) -> None:
    context, page = new_page(browser, 360, 740)
    page.goto(server.url + "/")
    page.get_by_test_id("open-private").click()
    page.get_by_test_id("name").fill("Ann")
    page.get_by_test_id("seat-count").select_option("4")
    # Seat 2 a friend, seat 3 a bot, seat 4 a friend.
    page.get_by_test_id("seat-fill-1").select_option("")
    page.get_by_test_id("seat-fill-2").select_option("easy")
    page.get_by_test_id("seat-fill-3").select_option("")
    page.get_by_test_id("open-table").click()
    seats = page.get_by_test_id("seats").locator("li")
    expect(seats).to_have_count(4)
    texts = [" ".join(seats.nth(i).inner_text().split()) for i in range(4)]
    assert texts[0].startswith("Seat 1: Ann")
    assert texts[1].startswith("Seat 2: Open seat")
    assert texts[2].startswith("Seat 3: Bot (easy)")
    assert texts[3].startswith("Seat 4: Open seat")
    # The bot's name says its level; nothing beside it says it again, in either language.
    assert "Easy" not in texts[2]
    page.get_by_test_id("language").click()
    expect(seats.nth(2)).to_contain_text("Bot (leicht)")
    german = " ".join(seats.nth(2).inner_text().split())
    assert german.lower().count("leicht") == 1, german
    no_js_errors(page)
    context.close()
