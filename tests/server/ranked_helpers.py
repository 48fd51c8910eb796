"""What the ranked tests share: a server with fast matchmaking, signed-in browsers, queueing."""

from __future__ import annotations

import contextlib
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx

from facedown.server.base.addresses import ClientLimits
from facedown.server.edge.settings import ServerSettings
from facedown.server.modes.matchmaking import RankedConfig, Window
from facedown.server.play.table import TableConfig

from .accounts.test_accounts import CHEAP, MANY, PASSWORD
from .harness import RunningServer

# Accounts queue the moment they are made (the age rule has tests of its own:
# tests/server/modes/test_ranked_farm.py).
FAST = RankedConfig(tick=0.05, window=Window(base=3.0, widen=0.1), min_account_age=0.0)


def ranked_settings(tmp_path: Path, **changes: Any) -> ServerSettings:
    limits = ClientLimits(
        creates=MANY,
        joins=MANY,
        lookups=MANY,
        frames=MANY,
        signins=MANY,
        account_signins=MANY,
        signups=MANY,
        connections=10**6,
        open_connections=10**6,
    )
    return ServerSettings(
        data_dir=tmp_path,
        secret="ranked-test",
        password_cost=CHEAP,
        clients=limits,
        # The players press next_round themselves: no reveal timer races them to it.
        table=changes.pop("table", TableConfig(bot_delay=0.0, reveal_seconds=600.0)),
        ranked=changes.pop("ranked", FAST),
        rate=1e6,
        burst=1e6,
        **changes,
    )


@contextlib.contextmanager
def account(server: RunningServer, name: str) -> Iterator[httpx.Client]:
    """A browser signed in to a new account called ``name``."""
    with httpx.Client(base_url=server.url, timeout=10) as http:
        r = http.post("/api/account/signup", json={"name": name, "password": PASSWORD})
        assert r.status_code == 201, r.text
        yield http


def queue(http: httpx.Client, preset: str, players: int, **extra: Any) -> dict[str, Any]:
    r = http.post("/api/ranked/queue", json={"preset": preset, "players": players, **extra})
    assert r.status_code == 200, r.text
    answer: dict[str, Any] = r.json()
    return answer


def matched(http: httpx.Client, limit: float = 20.0) -> dict[str, Any]:
    """Ask as the queue page does until the match is made; its status."""
    end = time.monotonic() + limit
    while time.monotonic() < end:
        r = http.get("/api/ranked/queue")
        assert r.status_code == 200, r.text
        status: dict[str, Any] = r.json()
        if status["state"] == "matched":
            return status
        assert status["state"] == "waiting", status
        time.sleep(0.05)
    raise AssertionError("no match was made")
