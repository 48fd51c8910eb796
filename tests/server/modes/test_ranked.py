"""Ranked play through the real server: guests refused, two accounts queued into one table that
plays the ranked format, the match rated once, the leaderboard equal to the stored ratings, the
profile's ratings, leaving a queue, the wait estimate."""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from facedown.store import MemoryStore, RankedStore, StoreError
from facedown.store.sql.ranked import RankedSql

from ..harness import Player, RunningServer, play_to_end, run_server, seated
from ..ranked_helpers import account, matched, queue, ranked_settings


@pytest.fixture
def store() -> MemoryStore:
    return MemoryStore()


@pytest.fixture
def server(tmp_path: Path, store: MemoryStore) -> Iterator[RunningServer]:
    with run_server(ranked_settings(tmp_path), store) as running:
        yield running


def wait_for(check: Any, limit: float = 20.0) -> Any:
    end = time.monotonic() + limit
    while time.monotonic() < end:
        found = check()
        if found:
            return found
        time.sleep(0.05)
    raise AssertionError("it never happened")


def test_a_guest_cannot_queue(server: RunningServer) -> None:
    with httpx.Client(base_url=server.url, timeout=10) as guest:
        for r in [
            guest.post("/api/ranked/queue", json={"preset": "kivo", "players": 2}),
            guest.get("/api/ranked/queue"),
            guest.delete("/api/ranked/queue"),
        ]:
            assert r.status_code == 401
            assert r.json()["detail"]["code"] == "account_required"
        # The queues and leaderboards are public.
        assert guest.get("/api/ranked/queues").status_code == 200
        assert guest.get("/api/ranked/leaderboard/kivo-2").json()["entries"] == []


def test_a_queue_must_exist(server: RunningServer) -> None:
    with account(server, "Ann") as ann:
        r = ann.post("/api/ranked/queue", json={"preset": "snap", "players": 2})
        assert (r.status_code, r.json()["detail"]["code"]) == (422, "bad_queue")
        r = ann.get("/api/ranked/leaderboard/snap-2")
        assert (r.status_code, r.json()["detail"]["code"]) == (404, "bad_queue")
        names = {q["queue"] for q in ann.get("/api/ranked/queues").json()["queues"]}
        for preset in ["boyo", "cabo", "kivo", "kaboom"]:
            assert {f"{preset}-2", f"{preset}-4"} <= names
        # Test hooks are refused on a server without them.
        r = ann.post("/api/ranked/queue", json={"preset": "kivo", "players": 2, "seed": 3})
        assert (r.status_code, r.json()["detail"]["code"]) == (403, "test_hooks_off")


def test_leaving_the_queue(server: RunningServer) -> None:
    with account(server, "Ann") as ann:
        waiting = queue(ann, "cabo", 4)
        assert waiting["state"] == "waiting"
        assert (waiting["queue"], waiting["waiting"], waiting["expected_wait"]) == (
            "cabo-4",
            1,
            None,
        )
        assert waiting["window"] == 120  # 3 rating estimate points, at once
        moved = queue(ann, "kivo", 2)  # another queue: the first is left
        assert moved["queue"] == "kivo-2"
        counts = {q["queue"]: q["waiting"] for q in ann.get("/api/ranked/queues").json()["queues"]}
        assert (counts["cabo-4"], counts["kivo-2"]) == (0, 1)
        assert ann.delete("/api/ranked/queue").json()["state"] == "idle"
        assert ann.get("/api/ranked/queue").json()["state"] == "idle"


def test_two_accounts_meet_at_a_ranked_table_and_are_rated(
    server: RunningServer, store: MemoryStore
) -> None:
    with account(server, "Ann") as ann, account(server, "Bob") as bob:
        queue(ann, "kivo", 2)
        queue(bob, "kivo", 2)
        a, b = matched(ann), matched(bob)
        assert a["code"] == b["code"]
        assert {a["seat"], b["seat"]} == {0, 1}
        # Playing: no queueing again until the match is over.
        r = ann.post("/api/ranked/queue", json={"preset": "kivo", "players": 2})
        assert (r.status_code, r.json()["detail"]["code"]) == (409, "in_ranked_match")

        info = ann.get(f"/api/tables/{a['code']}").json()
        assert info["status"] == "playing"
        assert info["settings"]["mode"] == "ranked"
        assert info["host_seat"] is None  # nobody hosts: no rematch, no bots, no seat removed
        assert [s["kind"] for s in info["seats"]] == ["human", "human"]
        assert {s["name"] for s in info["seats"]} == {"Ann", "Bob"}
        rules = info["rules"]
        assert (rules["rounds"], rules["sudden_death"], rules["score_limit"]) == (3, True, None)

        tokens = [a["token"], b["token"]] if a["seat"] == 0 else [b["token"], a["token"]]

        async def play() -> None:
            async with seated(server, a["code"], tokens) as clients:
                await play_to_end(clients, random.Random(5))

        asyncio.run(asyncio.wait_for(play(), 120))

        board = wait_for(lambda: ann.get("/api/ranked/leaderboard/kivo-2").json()["total"] == 2)
        assert board
        shown = ann.get("/api/ranked/leaderboard/kivo-2").json()
        stored = asyncio.run(_stored_board(store, "kivo-2"))
        assert [(e["name"], e["matches"]) for e in shown["entries"]] == [
            (name, matches) for name, matches, _ in stored
        ]
        assert [e["rating"] for e in shown["entries"]] == [
            round(1000 + 40 * score) for _, _, score in stored
        ]
        assert all(e["provisional"] for e in shown["entries"])
        assert [e["place"] for e in shown["entries"]] == [1, 2]

        mine = ann.get("/api/account").json()["ratings"]
        assert [(r["queue"], r["preset"], r["players"], r["matches"]) for r in mine] == [
            ("kivo-2", "kivo", 2, 1)
        ]
        assert mine[0]["provisional"] is True
        assert ann.get("/api/ranked/queue").json()["state"] == "idle"
        # The queue now knows how long a wait is.
        kivo = next(
            q for q in ann.get("/api/ranked/queues").json()["queues"] if q["queue"] == "kivo-2"
        )
        assert kivo["expected_wait"] is not None
        assert kivo["expected_wait"] >= 0
        # Rated once: the stored match has its result.
        match = asyncio.run(store.ranked_match(info_id(store, a["code"])))
        assert match is not None
        assert match.rated_at is not None
        assert match.result is not None
        assert sorted(s["place"] for s in match.result["seats"]) in ([1, 2], [1, 1])


async def _stored_board(store: RankedStore, queue_name: str) -> list[tuple[str, int, float]]:
    return [(r.name, r.matches, r.score) for r in await store.leaderboard(queue_name, 100)]


def info_id(store: MemoryStore, code: str) -> str:
    record = asyncio.run(store.find_by_code(code))
    assert record is not None
    return record.id


def test_the_same_on_sqlite(tmp_path: Path) -> None:
    """Queued, matched, played and rated with the store the server runs on by default."""
    with (
        run_server(ranked_settings(tmp_path)) as server,
        account(server, "Ann") as ann,
        account(server, "Bob") as bob,
    ):
        queue(ann, "cabo", 2)
        queue(bob, "cabo", 2)
        a, b = matched(ann), matched(bob)
        assert a["code"] == b["code"]
        tokens = [a["token"], b["token"]] if a["seat"] == 0 else [b["token"], a["token"]]

        async def play() -> None:
            async with seated(server, a["code"], tokens) as clients:
                await play_to_end(clients, random.Random(8))

        asyncio.run(asyncio.wait_for(play(), 120))
        wait_for(lambda: ann.get("/api/ranked/leaderboard/cabo-2").json()["total"] == 2)
        names = {e["name"] for e in ann.get("/api/ranked/leaderboard/cabo-2").json()["entries"]}
        assert names == {"Ann", "Bob"}
        assert [r["matches"] for r in bob.get("/api/account").json()["ratings"]] == [1]
        # The ranked match is in both players' histories, like any finished match.
        assert len(bob.get("/api/account/history").json()["matches"]) == 1


def test_a_ranked_match_goes_on_after_a_restart_and_is_rated(tmp_path: Path) -> None:
    settings = ranked_settings(tmp_path)
    with (
        run_server(settings) as server,
        account(server, "Ann") as ann,
        account(server, "Bob") as bob,
    ):
        queue(ann, "kivo", 2)
        queue(bob, "kivo", 2)
        a, b = matched(ann), matched(bob)
        code = a["code"]
        tokens = [a["token"], b["token"]] if a["seat"] == 0 else [b["token"], a["token"]]
        players = [Player(server.ws_url, code, t, seed=i) for i, t in enumerate(tokens)]

        async def part() -> None:
            await asyncio.wait_for(asyncio.gather(*(p.play(stop_at=10) for p in players)), 60)

        asyncio.run(part())
        assert not any(p.done for p in players)
        cookies = [ann.cookies, bob.cookies]
    with run_server(settings) as server:
        again = [Player(server.ws_url, code, t, seed=10 + i) for i, t in enumerate(tokens)]

        async def rest() -> None:
            await asyncio.wait_for(asyncio.gather(*(p.play() for p in again)), 120)

        asyncio.run(rest())
        assert all(p.done for p in again)
        with httpx.Client(base_url=server.url, timeout=10, cookies=cookies[0]) as ann_again:
            wait_for(lambda: ann_again.get("/api/ranked/leaderboard/kivo-2").json()["total"] == 2)
            assert ann_again.get("/api/ranked/queue").json()["state"] == "idle"


def test_a_match_whose_rating_failed_is_rated_once_at_the_next_start(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The match ends but its ratings cannot be written (the database is away at that moment,
    or the process dies between the two): it stays unrated in the store, and the next start of
    the server rates it from its stored log, once."""
    attempts: list[str] = []

    async def refused(self: RankedSql, table_id: str, *args: Any, **kwargs: Any) -> bool:
        attempts.append(table_id)
        raise StoreError("the database is away")

    settings = ranked_settings(tmp_path)
    monkeypatch.setattr(RankedSql, "rate_match", refused)
    with (
        run_server(settings) as server,
        account(server, "Ann") as ann,
        account(server, "Bob") as bob,
    ):
        queue(ann, "cabo", 2)
        queue(bob, "cabo", 2)
        a, b = matched(ann), matched(bob)
        tokens = [a["token"], b["token"]] if a["seat"] == 0 else [b["token"], a["token"]]

        async def play() -> None:
            async with seated(server, a["code"], tokens) as clients:
                await play_to_end(clients, random.Random(3))

        asyncio.run(asyncio.wait_for(play(), 120))
        wait_for(lambda: attempts)  # the rating was tried, and failed
        assert ann.get("/api/ranked/leaderboard/cabo-2").json()["total"] == 0
        cookies = bob.cookies
    monkeypatch.undo()
    with (
        run_server(settings) as server,
        httpx.Client(base_url=server.url, timeout=10, cookies=cookies) as bob_again,
    ):
        wait_for(lambda: bob_again.get("/api/ranked/leaderboard/cabo-2").json()["total"] == 2)
        assert [r["matches"] for r in bob_again.get("/api/account").json()["ratings"]] == [1]
        assert bob_again.get("/api/ranked/queue").json()["state"] == "idle"
    with (  # a second start finds nothing left to rate
        run_server(settings) as server,
        httpx.Client(base_url=server.url, timeout=10, cookies=cookies) as bob_later,
    ):
        time.sleep(0.5)
        assert [r["matches"] for r in bob_later.get("/api/account").json()["ratings"]] == [1]
