"""GET /api/ranked/match/<code>: how a ranked match changed each seat's rating, once it is rated
(a draw said so); 404 for a table with no ranked match."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from facedown.server.play.table import TableConfig
from facedown.store import MemoryStore

from ..harness import RunningServer, create_table, run_server, seated
from ..ranked_helpers import account, matched, queue, ranked_settings
from .test_ranked_rounds import DRAW_SEED, PRESET, SUDDEN_DEATH_SEED, play_policy


@pytest.fixture
def server(tmp_path: Path) -> Iterator[RunningServer]:
    table = TableConfig(bot_delay=0.0, reveal_seconds=600.0)
    with run_server(ranked_settings(tmp_path, test_hooks=True, table=table), MemoryStore()) as s:
        yield s


def rated(http: httpx.Client, code: str) -> dict[str, Any]:
    end = time.monotonic() + 20
    while time.monotonic() < end:
        r = http.get(f"/api/ranked/match/{code}")
        assert r.status_code == 200, r.text
        answer: dict[str, Any] = r.json()
        if answer["rated"]:
            return answer
        assert answer["seats"] == []
        time.sleep(0.05)
    raise AssertionError("never rated")


def ranked_match(server: RunningServer, seed: int, names: tuple[str, str]) -> tuple[str, Any]:
    """Two new accounts queue with the seed and play the match by the policy: the table's code
    and the last view."""
    with account(server, names[0]) as first, account(server, names[1]) as second:
        queue(first, PRESET, 2, seed=seed)
        queue(second, PRESET, 2)
        a, b = matched(first), matched(second)
        tokens = [t for _, t in sorted([(a["seat"], a["token"]), (b["seat"], b["token"])])]

        async def play() -> dict[str, Any]:
            async with seated(server, a["code"], tokens) as clients:
                await play_policy(clients)
                return clients[0].view

        return a["code"], asyncio.run(asyncio.wait_for(play(), 120))


def test_a_draw_and_a_win_read_back_with_each_seats_change(server: RunningServer) -> None:
    with httpx.Client(base_url=server.url, timeout=10) as http:
        code, _ = ranked_match(server, DRAW_SEED, ("Ann", "Bob"))
        draw = rated(http, code)
        assert draw["draw"] is True
        assert [s["seat"] for s in draw["seats"]] == [0, 1]
        assert [s["place"] for s in draw["seats"]] == [1, 1]
        assert {s["before"] for s in draw["seats"]} == {1000}
        assert "user_id" not in str(draw)  # seats, places and ratings only

        code, view = ranked_match(server, SUDDEN_DEATH_SEED, ("Cleo", "Dan"))
        [winner] = view["winners"]
        won = rated(http, code)
        assert won["draw"] is False
        seats = {s["seat"]: s for s in won["seats"]}
        assert seats[winner]["place"] == 1
        assert seats[1 - winner]["place"] == 2
        assert seats[winner]["after"] > seats[winner]["before"]


def test_no_ranked_match_there_is_404(server: RunningServer) -> None:
    code, _ = create_table(server, "cabo", 2)
    with httpx.Client(base_url=server.url, timeout=10) as http:
        for asked in (code, "NOSUCH"):
            r = http.get(f"/api/ranked/match/{asked}")
            assert r.status_code == 404, r.text
            assert r.json()["detail"]["code"] == "not_found"
        assert http.get("/api/ranked/match/../x").status_code == 404
