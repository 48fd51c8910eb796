"""The web client notices a silent server: a player whose process stalls (SIGSTOP) plays on.

Two processes on PostgreSQL and Redis behind nginx (the deployment guide's site file), Chromium
on the public address.  The player's socket is on the table's owner; the owner is stopped while
an action of the player is on its way.  The client hears nothing back, gives the socket up after
a few seconds, reconnects through nginx (which sends it to the live process), and sends the
action again with the same id once the live process has taken the table over from the log: it is
applied there, once.
"""

from __future__ import annotations

import re
import signal
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from playwright.sync_api import Browser, Page, Playwright, expect

from ..server.cluster_harness import HOST, Cluster, Process, running_cluster, server_logs
from ..store.conftest import _create_database, _drop_database, _in_own_loop
from .conftest import ARGS, CHROMIUM, _ensure_built

# Chromium and a cluster on PostgreSQL and Redis: both tiers.
pytestmark = [pytest.mark.browser, pytest.mark.cluster]

SHARED_REDIS = "redis://127.0.0.1:6379/0"
WAIT = 30_000  # ms: a takeover, a reconnection and a bot's move on a busy machine


@pytest.fixture
def database() -> Iterator[str]:
    url = _in_own_loop(_create_database)
    try:
        yield url
    finally:
        _in_own_loop(lambda: _drop_database(url))


@pytest.fixture
def cluster_browser(playwright: Playwright) -> Iterator[Browser]:
    """Chromium that finds the test certificate's host name on loopback."""
    _ensure_built()
    b = playwright.chromium.launch(
        executable_path=str(CHROMIUM),
        args=[*ARGS, f"--host-resolver-rules=MAP {HOST} 127.0.0.1"],
    )
    yield b
    b.close()


def connections(process: Process) -> float:
    text = httpx.get(f"{process.url}/metrics", timeout=10).text
    found = re.search(r"^facedown_connections (\S+)$", text, re.M)
    return float(found.group(1)) if found else 0.0


def socket_on(cluster: Cluster, page: Page, owner: Process) -> None:
    """Reconnect the page until its socket is on ``owner`` (nginx takes turns)."""
    for _ in range(12):
        if connections(owner) >= 1:
            return
        page.evaluate("window.__facedown.drop()")
        expect(page.get_by_test_id("net")).to_have_count(0, timeout=WAIT)
    raise AssertionError("the page's socket never landed on the table's owner")


def log_of(cluster: Cluster, table_id: str) -> list[tuple[int, str, dict[str, Any]]]:
    return _in_own_loop(lambda: cluster.log(table_id))


def test_a_player_on_a_stalled_process_plays_on_through_another(
    cluster_browser: Browser, database: str, tmp_path: Path
) -> None:
    extra = ["--bot-delay", "0.05"]
    with running_cluster(database, SHARED_REDIS, tmp_path, size=2, extra=extra) as cluster:
        stopped: Process | None = None
        context = cluster_browser.new_context(ignore_https_errors=True, locale="en-US")
        page = context.new_page()
        page.set_default_timeout(WAIT)
        try:
            page.goto(f"https://{HOST}:{cluster.nginx_port}/")
            page.get_by_test_id("name").fill("Rita")
            page.get_by_test_id("preset").select_option("kivo")
            page.get_by_test_id("play-now").click()
            expect(page.get_by_test_id("game")).to_be_visible(timeout=WAIT)
            code = page.url.rstrip("/").rsplit("/", 1)[1]
            table_id = _in_own_loop(lambda: cluster.table_id(code))
            page.get_by_test_id("card-0-0").click()  # the opening peek
            page.get_by_test_id("card-0-1").click()
            ready, draw = page.get_by_test_id("act-ready"), page.get_by_test_id("act-draw")
            expect(ready.or_(draw)).to_be_visible(timeout=WAIT)
            if ready.is_visible():
                ready.click()
            expect(draw).to_be_visible(timeout=WAIT)

            owner = _in_own_loop(lambda: cluster.owner(table_id))
            socket_on(cluster, page, owner)
            before = len(log_of(cluster, table_id))

            # The owner stops; the player draws.  Nothing answers on this socket any more.
            owner.kill(signal.SIGSTOP)
            stopped = owner
            draw.click()
            # The client gives the silent socket up, reconnects through nginx to the live
            # process, which takes the table over; the draw is sent again and applied there.
            expect(page.get_by_test_id("held")).to_be_visible(timeout=WAIT)
            after = log_of(cluster, table_id)
            draws = [p for _, kind, p in after[before:] if p.get("action", {}).get("do") == "draw"]
            assert len(draws) == 1, after[before:]  # applied once, under the client's id
            assert draws[0].get("id")
            page.get_by_test_id("act-discard").click()  # and the game goes on there
            expect(page.get_by_test_id("log")).to_contain_text("You discarded", timeout=WAIT)
        except BaseException:
            print(server_logs(cluster))
            raise
        finally:
            if stopped is not None:
                stopped.kill(signal.SIGCONT)
            context.close()
