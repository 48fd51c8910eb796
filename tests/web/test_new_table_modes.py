"""Issue 34 §1 in the browser: the new-table form offers what the table's mode offers (the
engine's table of modes, read from GET /api/modes): no score limit for kivo's Live and
Turn-Based tables, one for cabo's; kivo's rounds from its choices; and the table it makes is
one the server accepts."""

from __future__ import annotations

from playwright.sync_api import Browser, expect

from ..server.harness import RunningServer
from .test_profile import open_page


def test_the_form_offers_what_the_mode_offers(browser: Browser, server: RunningServer) -> None:
    context, page = open_page(browser)
    try:
        page.goto(f"{server.url}/new/kivo")
        rounds = page.get_by_test_id("settings-rounds").locator("option")
        expect(rounds).to_have_text(["1", "3", "5"])
        expect(page.get_by_test_id("settings-score-limit")).to_have_count(0)
        page.get_by_test_id("mode-turn-based").check()
        expect(page.get_by_test_id("settings-score-limit")).to_have_count(0)
        page.goto(f"{server.url}/new/cabo")
        expect(page.get_by_test_id("settings-score-limit")).to_have_count(1)
        expect(page.get_by_test_id("settings-score-limit")).to_have_value("100")
        # Kivo, 5 rounds: the form's table is made (no score limit is sent for it).
        page.goto(f"{server.url}/new/kivo")
        page.get_by_test_id("settings-rounds").select_option("5")
        with page.expect_response("**/api/tables") as answer:
            page.get_by_test_id("open-table").click()
        assert answer.value.status == 200, answer.value.text()
        sent = answer.value.request.post_data_json
        assert sent is not None
        assert sent["options"] == {"rounds": 5}
        assert page.js_errors == []  # type: ignore[attr-defined]
    finally:
        context.close()
