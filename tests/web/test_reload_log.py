"""The log after a reload: a page loaded afresh shows what happened before it came (the public
part of it), in English and German, and goes on from there."""

from __future__ import annotations

import asyncio
from concurrent.futures import ThreadPoolExecutor

from playwright.sync_api import Browser, expect

from ..server.harness import RunningServer, begin, create_table, seated
from ..server.play.test_reconnect import SLOW_TIMERS, play
from .screens import check_screen
from .test_browser import new_page, no_js_errors


async def _played(server: RunningServer, code: str, tokens: list[str]) -> int:
    async with seated(server, code, tokens) as clients:
        await begin(clients[0], clients[1:])
        await play(clients, 8)
        return clients[0].seq


def test_the_log_comes_back_after_a_reload(browser: Browser, server: RunningServer) -> None:
    code, tokens = create_table(server, "cabo", 2, **SLOW_TIMERS)
    with ThreadPoolExecutor(1) as pool:  # Playwright's own loop runs in this thread
        pool.submit(asyncio.run, _played(server, code, tokens)).result(timeout=120)
    context, page = new_page(browser, 360, 740, reduced_motion=True)
    page.goto(f"{server.url}/t/{code}#seat={tokens[0]}")
    lines = page.get_by_test_id("log").locator("li")
    expect(lines.first).to_be_visible(timeout=20_000)
    # Without Recollection the log shows the last few moves only (web/src/lib/logview.ts): after
    # eight actions, those are what comes back, each move's lines whole.
    assert lines.count() >= 3, lines.all_text_contents()
    # A reload (the same seat, a page loaded afresh): the same lines again, once each.
    before = lines.all_text_contents()
    page.reload()
    expect(lines).to_have_count(len(before), timeout=20_000)
    assert lines.all_text_contents() == before
    check_screen(page, "log-after-reload")
    page.get_by_test_id("language").click()
    expect(lines.first).not_to_have_text(before[0])  # the same lines, in German now
    no_js_errors(page)
    context.close()
