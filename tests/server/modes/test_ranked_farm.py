"""The rating farm of issue 32, through the real server: throwaway accounts made from one address
queue against a farmer and forfeit to them.  Unbounded, five fresh accounts forfeiting lifted
the farmer from 1000 to 1360 in three matches (1138, 1256, 1360: OpenSkill's gains for a new
player beating new players).  Now (docs/ranked.md, "Throwaway accounts"):

- a fresh account cannot queue at all (``RankedConfig.min_account_age``);
- a forfeit before the first round is scored is a no-contest for the others: the farmer's
  rating does not move, however many throwaways forfeit;
- a throwaway that plays a round and then forfeits raises the farmer's rating, but by at most
  ``RankedConfig.pair_cap`` shown points a day, however often it does so.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from facedown.server.modes.matchmaking import RankedConfig, Window
from facedown.server.play.table import TableConfig
from facedown.store import MemoryStore

from ..harness import Client, RunningServer, client, run_server
from ..ranked_helpers import account, matched, queue, ranked_settings
from .test_ranked_forfeit import catch_up, play_ours

GRACE = 1.0
CAP = 150  # RankedConfig.pair_cap's default
# As if the throwaways had waited out the account age: the other two rules still hold.  The
# window is wide: the farmer and a throwaway are matched again however far apart they are.
AGED = RankedConfig(tick=0.05, window=Window(base=100.0), min_account_age=0.0)


@pytest.fixture
def store() -> MemoryStore:
    return MemoryStore()


@pytest.fixture
def server(tmp_path: Path, store: MemoryStore) -> Iterator[RunningServer]:
    table = TableConfig(bot_delay=0.0, reveal_seconds=0.01, grace_seconds=GRACE)
    with run_server(ranked_settings(tmp_path, table=table, ranked=AGED), store) as running:
        yield running


def rating(http: httpx.Client, queue_name: str = "kivo-2") -> tuple[int, int]:
    """The signed-in account's shown rating and rated matches in a queue (1000, 0 unrated)."""
    info = http.get("/api/account").json()
    for r in info["ratings"]:
        if r["queue"] == queue_name:
            return int(r["rating"]), int(r["matches"])
    return 1000, 0


def rated(store: MemoryStore, count: int) -> list[dict[str, Any]]:
    """Wait until ``count`` ranked matches are rated; their results, oldest first."""
    end = time.monotonic() + 30
    while True:
        done = sorted(
            (m for m in store._matches.values() if m.result is not None),
            key=lambda m: m.created_at,
        )
        if len(done) >= count:
            return [m.result for m in done if m.result is not None]
        assert time.monotonic() < end, "never rated"
        time.sleep(0.05)


async def play_first_round(clients: list[Client], rng: random.Random) -> None:
    """Both seats play random non-tap moves until the first round is scored."""
    for _ in range(5000):
        await catch_up(clients)
        view = clients[0].view
        if view.get("phase") in ("round_over", "match_over") or view.get("round", 1) >= 2:
            return
        pool = [a for c in clients for a in c.legal if a["do"] != "tap"]
        if not pool:
            await clients[0].recv(10.0)
            continue
        action = rng.choice(pool)
        actor = next(c for c in clients if c.seat == action["by"])
        await actor.act({k: v for k, v in action.items() if k != "by"})
    raise AssertionError("the first round did not end")


def farm(
    server: RunningServer, farmer: httpx.Client, throwaway: httpx.Client, seed: int, late: bool
) -> None:
    """One match of the farm: both queue for 2-player kivo; the throwaway forfeits (at once,
    or ``late``: after playing the first round), and the farmer plays the match out against
    the stand-in."""
    queue(farmer, "kivo", 2)
    queue(throwaway, "kivo", 2)
    mine, theirs = matched(farmer), matched(throwaway)
    assert mine["code"] == theirs["code"]

    async def play() -> None:
        async with client(server) as me:
            await me.hello(mine["code"], mine["token"])
            if late:
                async with client(server) as leaver:
                    await leaver.hello(theirs["code"], theirs["token"])
                    await play_first_round([me, leaver], random.Random(seed))
            await play_ours([me], random.Random(seed))

    asyncio.run(asyncio.wait_for(play(), 180))


def test_fresh_accounts_cannot_queue_for_ranked_play(tmp_path: Path) -> None:
    young = RankedConfig(tick=0.05, min_account_age=3.0)
    with (
        run_server(ranked_settings(tmp_path, ranked=young)) as server,
        account(server, "Farmer") as farmer,
    ):
        throwaways = [stack for stack in range(5)]
        with contextlib.ExitStack() as stack:
            made = [stack.enter_context(account(server, f"Throwaway{i}")) for i in throwaways]
            for http in [farmer, *made]:
                r = http.post("/api/ranked/queue", json={"preset": "kivo", "players": 2})
                assert r.status_code == 403, r.text
                assert r.json()["detail"]["code"] == "account_too_new"
            time.sleep(3.2)  # the accounts come of age (a wait, not a measure of time)
            assert queue(farmer, "kivo", 2)["state"] == "waiting"


def test_five_throwaways_forfeiting_at_once_give_the_farmer_nothing(
    server: RunningServer, store: MemoryStore
) -> None:
    with account(server, "Farmer") as farmer:
        for i in range(5):
            with account(server, f"Throwaway{i}") as throwaway:
                farm(server, farmer, throwaway, seed=i, late=False)
                [*_, result] = rated(store, i + 1)
                assert result["no_contest"] is True
                # The throwaway is still ranked last, and loses rating for leaving.
                assert rating(throwaway)[0] < 1000
        assert rating(farmer) == (1000, 0)  # unbounded: 1000, 1138, 1256, 1360, 1450, 1529


def test_a_throwaway_that_forfeits_late_gives_at_most_the_cap_a_day(
    server: RunningServer, store: MemoryStore
) -> None:
    with account(server, "Farmer") as farmer, account(server, "Throwaway") as throwaway:
        for i in range(3):
            farm(server, farmer, throwaway, seed=10 + i, late=True)
            [*_, result] = rated(store, i + 1)
            assert result["no_contest"] is False
            assert rating(throwaway)[0] < rating(farmer)[0]
        shown, matches = rating(farmer)
        assert matches == 3  # the matches count ...
        assert 1000 < shown <= 1000 + CAP  # ... but this opponent gave at most the cap
        capped = [s["capped"] for r in rated(store, 3) for s in r["seats"] if s["place"] == 1]
        assert capped[0] is False
        assert any(capped[1:])
        # Another opponent is another allowance: the same farmer rises again.
        with account(server, "Other") as other:
            farm(server, farmer, other, seed=20, late=True)
            rated(store, 4)
        assert rating(farmer)[0] > shown
