"""A signed-in player's seat token dies with the session that got it (docs/accounts.md): after a
password change the page, holding the old token, is refused once and takes the seat again with
a token of the new session, by itself."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, Page

from facedown.server.accounts.passwords import PasswordCost
from facedown.server.edge.settings import ServerSettings
from facedown.server.play.table import TableConfig
from facedown.store import MemoryStore

from ..server.harness import RunningServer
from ..server.harness import run_server as serve
from .test_profile import NEW_PASSWORD, PASSWORD, open_page


@pytest.fixture
def server(tmp_path: Path) -> Iterator[RunningServer]:
    settings = ServerSettings(
        data_dir=tmp_path,
        secret="seat-renewal-browser-test",
        table=TableConfig(bot_delay=0.0),
        password_cost=PasswordCost(time_cost=1, memory_kib=8 * 1024, parallelism=1),
    )
    with serve(settings, MemoryStore()) as running:
        yield running


def _client(page: Page, path: str) -> Any:
    return page.evaluate(f"() => window.__facedown?.{path}")


def _seated(page: Page) -> None:
    page.wait_for_function(
        "() => { const c = window.__facedown; return !!c && c.s.seat === 0 && !c.s.error; }"
    )


def test_after_a_password_change_the_page_takes_its_seat_again(
    browser: Browser, server: RunningServer
) -> None:
    context, page = open_page(browser)
    try:
        signup = {"name": "Ann", "password": PASSWORD, "guest_tokens": []}
        r = context.request.post(f"{server.url}/api/account/signup", data=signup)
        assert r.status == 201, r.text()
        body = {"preset": "kivo", "seats": 2, "name": "Ann", "bots": ["random"]}
        r = context.request.post(f"{server.url}/api/tables", data=body)
        assert r.status == 200, r.text()
        code = r.json()["code"]
        page.goto(f"{server.url}/t/{code}")  # the account's seat, found by the page
        _seated(page)
        old = _client(page, "token")
        assert old

        change = {"current_password": PASSWORD, "new_password": NEW_PASSWORD}
        r = context.request.post(f"{server.url}/api/account/password", data=change)
        assert r.status == 200, r.text()

        page.reload()  # the stored token is the old session's: refused, then renewed
        _seated(page)
        new = _client(page, "token")
        assert new
        assert new != old
        stored = page.evaluate("() => localStorage.getItem('facedown.seats')")
        assert new in stored
        assert old not in stored
        assert getattr(page, "js_errors") == []  # noqa: B009 - set by open_page
    finally:
        context.close()
