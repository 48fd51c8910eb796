"""Browser tests: the built web client against a real server, driven by Debian's Chromium."""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, Playwright, sync_playwright

from facedown.server.app import WEB_DIST
from facedown.server.edge.settings import ServerSettings
from facedown.server.play.table import TableConfig

from ..server.harness import RunningServer, run_server

CHROMIUM = Path("/usr/bin/chromium")
ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
SHOTS = Path(__file__).parent / "screenshots"
WEB = Path(__file__).resolve().parents[2] / "web"


def _ensure_built() -> None:
    """The tests need the built client; scripts/test.sh builds it, this is the fallback."""
    if (WEB_DIST / "index.html").is_file():
        return
    npm = shutil.which("npm")
    if npm is None:
        pytest.fail("web client not built, npm missing: cd web; npm ci; npm run build")
    if not (WEB / "node_modules").is_dir():
        subprocess.run([npm, "ci"], cwd=WEB, check=True)
    subprocess.run([npm, "run", "build"], cwd=WEB, check=True)


# Per module, not per session: the sync API keeps an event loop running in the worker's thread
# while it is open, and an asyncio test that a worker runs after a browser test (any order
# pytest -n may choose) could not run its own loop then.
@pytest.fixture(scope="module")
def playwright() -> Iterator[Playwright]:
    if not CHROMIUM.exists():
        pytest.fail("Debian's Chromium is missing: apt-get install chromium (scripts/test.sh does)")
    _ensure_built()
    with sync_playwright() as p:
        yield p


@pytest.fixture(scope="module")
def browser(playwright: Playwright) -> Iterator[Browser]:
    b = playwright.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
    yield b
    b.close()


def _settings(tmp_path: Path, bot_delay: float) -> ServerSettings:
    return ServerSettings(
        data_dir=tmp_path,
        secret="browser-test-secret",
        table=TableConfig(bot_delay=bot_delay, reveal_seconds=120, grace_seconds=60),
        test_hooks=True,  # some tests stack their deals (the cabo round, the keyboard turn, ...)
    )


@pytest.fixture
def server(tmp_path: Path) -> Iterator[RunningServer]:
    with run_server(_settings(tmp_path, bot_delay=0.25)) as running:
        yield running


@pytest.fixture
def logged_server(tmp_path: Path) -> Iterator[tuple[RunningServer, Path]]:
    """A server and its SQLite file, whose table log the test replays to know the real cards
    (benchmarks/oracle.py); its bots move every 300 ms."""
    with run_server(_settings(tmp_path, bot_delay=0.3)) as running:
        yield running, tmp_path / "facedown.db"


class Shots:
    """Screenshots of key moments, saved under tests/web/screenshots/ (git-ignored)."""

    def __init__(self, prefix: str) -> None:
        SHOTS.mkdir(exist_ok=True)
        self.prefix = prefix

    def take(self, page: Page, name: str) -> Path:
        path = SHOTS / f"{self.prefix}-{name}.png"
        page.screenshot(path=str(path), full_page=True)
        return path


@pytest.fixture
def shots(request: pytest.FixtureRequest) -> Shots:
    return Shots(request.node.name.removeprefix("test_"))
