"""A forfeited seat's player is out of the match: from the forfeit to the match's end they see
what a spectator sees, by every path, tried as an attacker would against a real server.

- Turn-based: Bob stays connected while he misses three deadlines, so his seat is forfeited to
  a bot under his eyes; every frame he gets afterwards (the bot's draws, spies and peeks, its
  held card) is compared with a spectator's of the same seq, and so is what he gets by
  reconnecting (``last_seq`` 0, the current seq, none) while the bot holds a drawn card.  His
  seat's earlier knowledge (Recollection) does not come back.  The rematch is his again.
- Ranked: Cyd leaves past the grace period and comes back: the same.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
from pathlib import Path
from typing import Any

import pytest

from facedown.server.base.clock import FakeClock
from facedown.server.edge.settings import ServerSettings
from facedown.server.play.context import TableConfig

from ..harness import (
    NO_ADDRESS_LIMITS,
    Client,
    RunningServer,
    advance,
    applied,
    client,
    create_table,
    harmless,
    run_server,
    seated,
    start,
)
from ..modes.test_ranked_forfeit import GRACE, matched_three, play_ours, until_forfeited
from ..ranked_helpers import account, ranked_settings

HOUR = 3600.0
BOT_DELAY = 60.0  # the bot playing the forfeited seat waits this long before each move
PROBES = 3  # reconnections tried while the forfeited seat's bot holds a drawn card


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def _public(frame: dict[str, Any]) -> dict[str, Any]:
    """What of a frame is compared with a spectator's: all but the action it answers and the
    server's clock when it was made."""
    return {k: v for k, v in frame.items() if k not in ("ack", "now")}


async def _catch_up(
    server: RunningServer, code: str, token: str | None, last_seq: int | None
) -> list[dict[str, Any]]:
    """What a hello with this ``last_seq`` is sent (with ``token``: as that seat, else as a
    spectator): its missed events and snapshot."""
    async with client(server) as c:
        frames = await c.hello(code, token, last_seq=last_seq, spectate=token is None)
    return [_public(f) for f in frames if f["type"] in ("missed", "snapshot")]


async def _same_catch_up_as_a_spectator(server: RunningServer, code: str, token: str) -> None:
    """Reconnecting as the forfeited seat with any ``last_seq`` gets what a spectator gets
    (asked again should the table move on between the two: a stand-in may be playing)."""
    for _ in range(10):
        now = (await _catch_up(server, code, None, None))[-1]["seq"]
        tried = [
            (
                await _catch_up(server, code, token, last_seq),
                await _catch_up(server, code, None, last_seq),
            )
            for last_seq in (0, now, None)
        ]
        if all(mine[-1]["seq"] == theirs[-1]["seq"] == now for mine, theirs in tried):
            for last_seq, (mine, theirs) in zip((0, now, None), tried, strict=True):
                assert mine == theirs, f"hello with last_seq {last_seq}: more than a spectator gets"
            return
        await asyncio.sleep(0.2)
    raise AssertionError("the table never stood still while the test looked")


def _views_by_seq(watcher: Client) -> dict[int, dict[str, Any]]:
    return {f["seq"]: f["view"] for f in watcher.frames if f["type"] in ("event", "snapshot")}


def _check_public_from(player: Client, first: int, watcher: Client) -> int:
    """Every event and snapshot the player got from ``player.frames[first]`` on holds what the
    spectator got at that seq, and nothing to do; how many were checked."""
    views = _views_by_seq(watcher)
    events = {f["seq"]: f for f in watcher.frames if f["type"] == "event"}
    checked = 0
    for frame in player.frames[first:]:
        if frame["type"] not in ("event", "snapshot"):
            continue
        seq = frame["seq"]
        assert frame["view"] == views[seq], f"seq {seq}: {frame['view']} != {views[seq]}"
        assert (frame["legal"], frame["sets"]) == ([], 0), frame
        if frame["type"] == "event":
            assert _public(frame) == _public(events[seq]), f"seq {seq}"
        checked += 1
    return checked


def _forfeit_frame(player: Client, seat: int) -> int:
    """The index of the first table frame that says ``seat`` is forfeited."""
    return next(
        i
        for i, f in enumerate(player.frames)
        if f["type"] == "table" and f["table"]["seats"][seat]["forfeited"]
    )


async def _settle(*clients: Client) -> None:
    for c in clients:
        await c.settle()


@pytest.mark.anyio
async def test_a_seat_forfeited_under_its_players_eyes_shows_them_a_spectators_view(
    tmp_path: Path,
) -> None:
    clock = FakeClock()
    settings = ServerSettings(
        data_dir=tmp_path,
        secret="forfeit-public",
        table=TableConfig(bot_delay=BOT_DELAY),
        clients=NO_ADDRESS_LIMITS,
        rate=1e6,  # Bob tries an action and says ready at every turn
        burst=1e6,
    )
    with run_server(settings, clock=clock) as server:
        code, (ann_token, bob_token) = create_table(
            server, "kivo", 2, options={"rounds": 3}, mode="turn_based", move_deadline=3600
        )
        await start(server, code, ann_token)
        async with (
            seated(server, code, [ann_token, bob_token]) as [ann, bob],
            client(server) as watcher,
        ):
            await watcher.hello(code, spectate=True)
            # Ann plays at once; Bob, connected, lets each of his deadlines pass.
            knew = False  # his seat knew a card of its own (Recollection) before the forfeit
            for _ in range(300):
                await _settle(ann, bob, watcher)
                knew = knew or bool(bob.view.get("knowledge"))
                if bob.table["seats"][1]["forfeited"]:
                    break
                action = harmless([a for a in ann.legal if a["do"] != "tap"])
                if action is not None:
                    assert applied(await ann.act(action))
                else:
                    await advance(server, clock, HOUR + 1)
            assert bob.table["seats"][1]["forfeited"], "Bob's seat was never forfeited"
            assert knew, "Bob's seat never knew a card: the test proves nothing of knowledge"
            first = _forfeit_frame(bob, 1)
            await _same_catch_up_as_a_spectator(server, code, bob_token)

            # Ann plays on; the bot plays Bob's seat; each time it holds a drawn card, Bob
            # reconnects to see whether that brings it back.
            probes = 0
            for _ in range(2000):
                await _settle(ann, bob, watcher)
                view = watcher.view
                if view["phase"] == "match_over":
                    break
                if view["to_act"] == 1 and view["holding"] and probes < PROBES:
                    await _same_catch_up_as_a_spectator(server, code, bob_token)
                    probes += 1
                refused = await bob.act({"do": "draw"})
                assert refused.get("code") == "seat_forfeited", refused
                await bob.send({"type": "ready"})  # done looking: at nothing, it must be
                action = harmless([a for a in ann.legal if a["do"] != "tap"])
                if action is not None:
                    assert applied(await ann.act(action))
                else:
                    await advance(server, clock, BOT_DELAY + 1)
            await _settle(ann, bob, watcher)
            assert watcher.view["phase"] == "match_over", "the match did not end"
            assert probes == PROBES, "the bot never held a card while Bob looked"
            checked = _check_public_from(bob, first, watcher)
            bots_moves = [
                e
                for f in watcher.frames[_forfeit_frame(watcher, 1) :]
                if f["type"] == "event"
                for e in f["events"]
                if e.get("by") == 1
            ]
            assert checked > 10, checked
            assert len(bots_moves) > 5, bots_moves

            # The rematch is his again: his own view, his moves, his knowledge to come.
            await ann.send({"type": "rematch"})
            table = await bob.until("table")
            while table["table"]["match"] != 2:
                table = await bob.until("table")
            assert not table["table"]["seats"][1]["forfeited"]
            event = await bob.until("event")
            assert event["view"]["seat"] == 1
            assert "opening_peek" in [a["do"] for a in event["legal"]]
            assert event["view"]["knowledge"] is not None  # Recollection: his again


def test_a_ranked_player_back_after_their_forfeit_sees_a_spectators_view(
    tmp_path: Path,
) -> None:
    table = TableConfig(bot_delay=0.0, reveal_seconds=0.01, grace_seconds=GRACE)
    with (
        run_server(ranked_settings(tmp_path, table=table)) as server,
        account(server, "Ann") as ann,
        account(server, "Bob") as bob,
        account(server, "Cyd") as cy,
    ):
        status = matched_three(ann, bob, cy)
        code = status["Ann"]["code"]
        cy_seat = status["Cyd"]["seat"]
        cy_token = status["Cyd"]["token"]

        async def play() -> None:
            async with contextlib.AsyncExitStack() as stack:
                stayers = []
                for name in ["Ann", "Bob"]:
                    c = await stack.enter_async_context(client(server))
                    await c.hello(code, status[name]["token"])
                    stayers.append(c)
                async with client(server) as leaver:  # Cyd looks in, and is gone
                    await leaver.hello(code, cy_token)
                await until_forfeited(ann, code, cy_seat)
                # Back, with any last_seq: what a spectator gets (the table waits for Ann and
                # Bob's opening looks: it stays where it is while the test asks).
                await _same_catch_up_as_a_spectator(server, code, cy_token)
                watcher = await stack.enter_async_context(client(server))
                await watcher.hello(code, spectate=True)
                cyd = await stack.enter_async_context(client(server))
                await cyd.hello(code, cy_token)
                await play_ours([*stayers, cyd, watcher], random.Random(7))
                await _settle(cyd, watcher)
                checked = _check_public_from(cyd, 0, watcher)
                by_cyd = [
                    e
                    for f in watcher.frames
                    if f["type"] == "event"
                    for e in f["events"]
                    if e.get("by") == cy_seat
                ]
                assert checked > 10, checked
                assert len(by_cyd) > 5, by_cyd

        asyncio.run(asyncio.wait_for(play(), 180))
