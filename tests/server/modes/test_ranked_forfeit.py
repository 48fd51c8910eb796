"""A ranked player who leaves and is not back within the grace period forfeits: a stand-in bot
plays on for them, and they are ranked last whatever their total.  One who leaves and comes
back in time does not."""

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

from facedown.server.play.table import TableConfig
from facedown.store import MemoryStore

from ..harness import Client, RunningServer, client, run_server
from ..ranked_helpers import account, matched, queue, ranked_settings

GRACE = 2.0


@pytest.fixture
def store() -> MemoryStore:
    return MemoryStore()


@pytest.fixture
def server(tmp_path: Path, store: MemoryStore) -> Iterator[RunningServer]:
    table = TableConfig(bot_delay=0.0, reveal_seconds=0.01, grace_seconds=GRACE)
    with run_server(ranked_settings(tmp_path, table=table), store) as running:
        yield running


async def catch_up(clients: list[Client]) -> None:
    """Every client reads up to the highest seq any of them has seen."""
    for c in clients:
        await c.settle()
    top = max(c.seq for c in clients)
    for c in clients:
        await c.until_seq(top)


async def play_ours(clients: list[Client], rng: random.Random) -> None:
    """Play random non-tap moves for these seats until the match is over; the others' seats
    are played by the server (a stand-in)."""
    for _ in range(5000):
        await catch_up(clients)
        if clients[0].view.get("phase") == "match_over":
            return
        pool = [a for c in clients for a in c.legal if a["do"] != "tap"]
        if not pool:
            await clients[0].recv(10.0)  # the stand-in's move
            continue
        action = rng.choice(pool)
        actor = next(c for c in clients if c.seat == action["by"])
        await actor.act({k: v for k, v in action.items() if k != "by"})  # ack, or stale
    raise AssertionError("the match did not end")


def table_info(http: httpx.Client, code: str) -> dict[str, Any]:
    info: dict[str, Any] = http.get(f"/api/tables/{code}").json()
    return info


def matched_three(ann: httpx.Client, bob: httpx.Client, cy: httpx.Client) -> dict[str, Any]:
    """Ann, Bob and Cyd queue for 3-player kivo: each one's match status, by name."""
    for http in (ann, bob, cy):
        queue(http, "kivo", 3)
    return {name: matched(http) for name, http in [("Ann", ann), ("Bob", bob), ("Cyd", cy)]}


async def until_forfeited(http: httpx.Client, code: str, seat: int) -> None:
    end = time.monotonic() + 10 * GRACE
    while seat not in table_info(http, code)["settings"].get("forfeits", []):
        assert time.monotonic() < end, "Cyd never forfeited"
        await asyncio.sleep(0.05)


def test_a_player_gone_past_the_grace_period_forfeits_and_is_ranked_last(
    server: RunningServer, store: MemoryStore
) -> None:
    with (
        account(server, "Ann") as ann,
        account(server, "Bob") as bob,
        account(server, "Cyd") as cy,
    ):
        status = matched_three(ann, bob, cy)
        code = status["Ann"]["code"]
        cy_seat = status["Cyd"]["seat"]

        async def play() -> None:
            async with contextlib.AsyncExitStack() as stack:
                stayers = []
                for name in ["Ann", "Bob"]:
                    c = await stack.enter_async_context(client(server))
                    await c.hello(code, status[name]["token"])
                    stayers.append(c)
                async with client(server) as leaver:  # Cyd looks in, and is gone
                    await leaver.hello(code, status["Cyd"]["token"])
                await until_forfeited(ann, code, cy_seat)
                info = table_info(ann, code)
                assert info["seats"][cy_seat]["bot_standin"] is True
                assert info["settings"]["forfeits"] == [cy_seat]
                # Cyd comes back: the seat stays the stand-in's to the end, and Cyd may do
                # nothing there (no legal action offered, any action refused).
                async with client(server) as cyd_again:
                    frames = await cyd_again.hello(code, status["Cyd"]["token"])
                    assert frames[-1]["legal"] == []
                    answer = await cyd_again.act({"do": "draw"})
                    assert (answer["type"], answer.get("code")) == ("error", "seat_forfeited")
                assert table_info(ann, code)["seats"][cy_seat]["bot_standin"] is True
                # Bob leaves for a moment and is back within the grace period: no forfeit.
                bob_client = stayers[1]
                await bob_client.ws.close()
                back = await stack.enter_async_context(client(server))
                await back.hello(code, status["Bob"]["token"])
                stayers[1] = back
                await play_ours(stayers, random.Random(3))

        asyncio.run(asyncio.wait_for(play(), 180))
        assert table_info(ann, code)["settings"]["forfeits"] == [cy_seat]

        end = time.monotonic() + 20
        while not [m for m in store._matches.values() if m.result is not None]:
            assert time.monotonic() < end, "never rated"
            time.sleep(0.05)
        [match] = list(store._matches.values())
        assert match.result is not None
        assert match.result["forfeits"] == [cy_seat]
        places = {s["seat"]: s["place"] for s in match.result["seats"]}
        assert places[cy_seat] == 3
        assert all(p < 3 for seat, p in places.items() if seat != cy_seat)
        # The forfeiter's rating fell below both others'.
        after = {s["seat"]: s["after"] for s in match.result["seats"]}
        assert all(after[cy_seat] < a for seat, a in after.items() if seat != cy_seat)


def test_a_forfeit_survives_a_restart_and_still_ranks_the_forfeiter_last(tmp_path: Path) -> None:
    """Cyd forfeits, the server stops (SQLite on disk) and starts again: the forfeit is still
    there, the stand-in plays Cyd's seat on, and the rating at the end ranks Cyd last."""
    table = TableConfig(bot_delay=0.0, reveal_seconds=0.01, grace_seconds=GRACE)
    settings = ranked_settings(tmp_path, table=table)
    with (
        run_server(settings) as server,
        account(server, "Ann") as ann,
        account(server, "Bob") as bob,
        account(server, "Cyd") as cy,
    ):
        status = matched_three(ann, bob, cy)
        code = status["Ann"]["code"]
        cy_seat = status["Cyd"]["seat"]

        async def first_part() -> None:
            async with client(server) as a, client(server) as b:
                await a.hello(code, status["Ann"]["token"])
                await b.hello(code, status["Bob"]["token"])
                async with client(server) as leaver:  # Cyd looks in, and is gone
                    await leaver.hello(code, status["Cyd"]["token"])
                await until_forfeited(ann, code, cy_seat)

        asyncio.run(asyncio.wait_for(first_part(), 60))
        cookies = ann.cookies
    with (
        run_server(settings) as server,
        httpx.Client(base_url=server.url, timeout=10, cookies=cookies) as ann_again,
    ):
        info = table_info(ann_again, code)
        assert info["settings"]["forfeits"] == [cy_seat]  # kept across the restart
        assert info["seats"][cy_seat]["bot_standin"] is True

        async def rest() -> None:
            async with client(server) as a, client(server) as b:
                await a.hello(code, status["Ann"]["token"])
                await b.hello(code, status["Bob"]["token"])
                await play_ours([a, b], random.Random(5))

        asyncio.run(asyncio.wait_for(rest(), 180))
        end = time.monotonic() + 20
        while ann_again.get("/api/ranked/leaderboard/kivo-3").json()["total"] < 3:
            assert time.monotonic() < end, "never rated"
            time.sleep(0.05)
        history = ann_again.get("/api/account/history").json()["matches"]
        assert len(history) == 1
        board = ann_again.get("/api/ranked/leaderboard/kivo-3").json()["entries"]
        assert board[-1]["name"] == "Cyd"  # the forfeiter's rating fell below both others'
