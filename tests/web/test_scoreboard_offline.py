"""The scoreboard without a network: once loaded, the client (served by its service worker)
opens again offline and shows the evening kept in the browser; a round entered offline is kept
across a reload and a closed tab and sent when the network is back; the CSV exports offline.
And the files that make the client installable: the worker at the site root, the manifest and
its icons, with their types and cache headers."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

from playwright.sync_api import Browser, BrowserContext, Page, Playwright, expect
from playwright.sync_api import Error as PlaywrightError

from ..server.harness import RunningServer
from .conftest import ARGS, CHROMIUM
from .screens import PHONE
from .test_browser import new_page, no_js_errors
from .test_scoreboard import enter_round, make_board, totals
from .test_scoreboard_phone import fits_with_every_control


def controlled(page: Page) -> None:
    """Until the service worker controls the page (it claims the page once it is active)."""
    page.wait_for_function("() => navigator.serviceWorker.controller !== null")


def kept_pending(page: Page) -> list[tuple[str, int]]:
    found = page.evaluate(
        "() => Object.entries(localStorage).filter(([k]) => k.startsWith('facedown.board.'))"
    )
    assert len(found) == 1
    return [(c["kind"], c["base"]) for c in json.loads(found[0][1])["pending"]]


def server_csv(server: RunningServer, view_key: str) -> str:
    with server.http() as http:
        r = http.get(f"/api/scoreboards/view/{view_key}/csv")
        assert r.status_code == 200
        return r.text


def download_csv(page: Page) -> str:
    with page.expect_download() as download:
        page.get_by_test_id("board-csv").click()
    assert download.value.suggested_filename == "scoreboard.csv"
    return download.value.path().read_bytes().decode("utf-8")  # as written: CRLF kept


def test_the_scoreboard_opens_offline_keeps_the_evening_and_exports_it(
    browser: Browser, server: RunningServer
) -> None:
    made = make_board(server, names=["Ann", "Maya", "Sam"], preset="cabo")
    link = server.url + "/scoreboard/" + made["link"].rsplit("/", 1)[-1]
    context, page = new_page(browser)
    page.goto(link)
    expect(page.get_by_test_id("board-table")).to_be_visible()
    controlled(page)
    enter_round(page, [9, 3, 14], caller=0)  # Ann called, not lowest: 9 + 5
    expect(page.get_by_test_id("board-total-0")).to_have_text("14")
    online_csv = server_csv(server, made["view_key"])

    context.set_offline(True)
    # The network is really gone, for the page and for the worker's own fetches: a file the
    # worker has not kept (a query string makes it another file) cannot be fetched.
    failed = page.evaluate("() => fetch('/icon.svg?not-kept').then(() => false, () => true)")
    assert failed
    response = page.reload()
    assert response is not None
    assert response.from_service_worker
    expect(page.get_by_test_id("board-table")).to_be_visible()
    expect(page.get_by_test_id("board-offline")).to_be_visible()
    assert totals(page, 3) == ["14", "0", "14"]

    # The CSV exports offline: the same text the server gives for this board.
    assert download_csv(page) == online_csv
    rows = list(csv.reader(io.StringIO(online_csv)))
    assert rows[1][:6] == ["1", "Ann", "", "9", "14", "14"]

    # A round entered offline: kept, and kept across a reload and a closed tab.
    enter_round(page, [2, 8, 6], caller=0)
    expect(page.get_by_test_id("board-pending")).to_have_count(1)
    assert kept_pending(page) == [("add", 1)]
    # The round not yet scored and the offline note fit a phone too.
    page.set_viewport_size({"width": PHONE[0], "height": PHONE[1]})
    fits_with_every_control(page, "offline, a round not yet scored")
    page.reload()
    expect(page.get_by_test_id("board-pending")).to_have_count(1)
    page.close()
    again = reopen(context, link)
    expect(again.get_by_test_id("board-pending")).to_contain_text("New round: 2 · 8 · 6")
    expect(again.get_by_test_id("board-offline")).to_contain_text("1 change is kept")
    assert totals(again, 3) == ["14", "0", "14"]
    with server.http() as http:
        seen = http.get(f"/api/scoreboards/view/{made['view_key']}").json()
    assert len(seen["board"]["rounds"]) == 1  # nothing reached the server

    # The network is back: the round is sent and scored by the server.
    context.set_offline(False)
    expect(again.get_by_test_id("board-pending")).to_have_count(0)
    assert totals(again, 3) == ["14", "8", "20"]
    with server.http() as http:
        seen = http.get(f"/api/scoreboards/view/{made['view_key']}").json()
    assert seen["board"]["totals"] == [14, 8, 20]
    no_js_errors(again)
    context.close()


def reopen(context: BrowserContext, link: str) -> Page:
    """A new tab in the same browser (the old one closed), opened at ``link``."""
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    setattr(page, "js_errors", errors)  # noqa: B010 - checked at the end of the test
    page.goto(link)
    expect(page.get_by_test_id("board-table")).to_be_visible()
    return page


def test_without_the_worker_an_offline_reload_shows_nothing(
    browser: Browser, server: RunningServer
) -> None:
    """The control: the same reload with service workers blocked fails, so it is the worker
    that opens the scoreboard offline above."""
    made = make_board(server, names=["Ann", "Maya"], preset="boyo")
    context = browser.new_context(service_workers="block")
    page = context.new_page()
    page.goto(server.url + "/scoreboard/" + made["link"].rsplit("/", 1)[-1])
    expect(page.get_by_test_id("board-table")).to_be_visible()
    context.set_offline(True)
    try:
        page.reload()
        reloaded = True
    except PlaywrightError:  # Chromium's net::ERR_INTERNET_DISCONNECTED
        reloaded = False
    assert not reloaded or page.get_by_test_id("board-table").count() == 0
    context.close()


def test_the_worker_manifest_and_icons_are_served_for_an_installable_client(
    browser: Browser, server: RunningServer
) -> None:
    with server.http() as http:
        worker = http.get("/sw.js")
        assert worker.status_code == 200
        assert worker.headers["content-type"].startswith("text/javascript")
        # Checked for a new version on every load: never kept by the HTTP cache.
        assert worker.headers["cache-control"] == "no-cache"
        manifest = http.get("/manifest.webmanifest")
        assert manifest.status_code == 200
        assert manifest.headers["content-type"].startswith("application/manifest+json")
        data = manifest.json()
        assert data["start_url"] == "/"
        assert data["display"] == "standalone"
        sizes = {icon["sizes"] for icon in data["icons"]}
        assert {"192x192", "512x512"} <= sizes
        for icon in data["icons"]:
            got = http.get(icon["src"])
            assert got.status_code == 200, icon["src"]
            assert got.headers["content-type"] == icon["type"], icon["src"]
            if icon["type"] == "image/png":
                side = int(icon["sizes"].split("x")[0])
                assert got.content[:8] == b"\x89PNG\r\n\x1a\n"
                assert int.from_bytes(got.content[16:20], "big") == side
    context, page = new_page(browser)
    page.goto(server.url + "/")
    # The page names the manifest; the worker registers with the whole site as its scope.
    assert page.locator("link[rel=manifest]").get_attribute("href") == "/manifest.webmanifest"
    scope = page.evaluate("() => navigator.serviceWorker.ready.then((r) => r.scope)")
    assert scope == server.url + "/"
    no_js_errors(page)
    context.close()


def test_a_second_screen_opens_offline_with_the_board_it_last_showed(
    browser: Browser, server: RunningServer
) -> None:
    made = make_board(server, names=["Ann", "Maya"], preset="kivo")
    key = made["link"].rsplit("/", 1)[-1]
    with server.http() as http:
        r = http.post(f"/api/scoreboards/{key}/rounds", json={"base": 0, "hand_totals": [4, 9]})
        assert r.status_code == 200
    share = made["share_link"]
    context, page = new_page(browser)
    page.goto(share if share.startswith("http") else server.url + share)
    expect(page.get_by_test_id("board-readonly")).to_be_visible()
    expect(page.get_by_test_id("board-total-1")).to_have_text("9")
    controlled(page)
    context.set_offline(True)
    page.reload()
    expect(page.get_by_test_id("board-readonly")).to_be_visible()
    expect(page.get_by_test_id("board-total-1")).to_have_text("9")
    assert page.get_by_test_id("hand-0").count() == 0
    no_js_errors(page)
    context.close()


def test_chromium_finds_the_client_installable(
    playwright: Playwright, server: RunningServer, tmp_path: Path
) -> None:
    """Chromium's own verdict (DevTools' Page.getInstallabilityErrors): nothing stands in the
    way of installing the client.  A browser profile on disk: an incognito context never
    installs anything, whatever the page."""
    context = playwright.chromium.launch_persistent_context(
        tmp_path / "profile", executable_path=str(CHROMIUM), args=ARGS
    )
    try:
        page = context.new_page()
        page.goto(server.url + "/")
        controlled(page)
        devtools = context.new_cdp_session(page)
        found = devtools.send("Page.getInstallabilityErrors")
        assert found["installabilityErrors"] == []
        manifest = devtools.send("Page.getAppManifest")
        assert manifest["errors"] == []
        assert manifest["url"] == server.url + "/manifest.webmanifest"
    finally:
        context.close()
