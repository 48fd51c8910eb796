"""Reconnection, resent actions, stale actions and racing TAPs, through a real server.

A client that reconnects with the last seq it saw gets the public part of exactly the events it
missed (never the cards its seat was shown in them), then a snapshot; with no seq, or one too
old, a fresh snapshot.  An action carries an id, so sending it again applies it once.  An action
sent against a stale seq gets an error and a resync, never silence.  Out-of-turn TAPs race by
arrival order, and the loser is told why.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from facedown.server.edge.settings import ServerSettings
from facedown.server.play.table import TableConfig
from facedown.store import MemoryStore

from ..harness import (
    NO_ADDRESS_LIMITS,
    Client,
    RunningServer,
    applied,
    begin,
    client,
    create_table,
    harmless,
    probe,
    run_server,
    seated,
)

SLOW_TIMERS: dict[str, Any] = {"peek_seconds": 600, "turn_seconds": 3600}


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def settings(tmp_path: Path, **table: Any) -> ServerSettings:
    return ServerSettings(
        data_dir=tmp_path,
        secret="reconnect",
        table=TableConfig(bot_delay=0.0, reveal_seconds=0.01, **table),
        rate=1e6,
        clients=NO_ADDRESS_LIMITS,
        burst=1e6,
    )


async def play(clients: list[Client], actions: int) -> None:
    """Play this many harmless actions from these connections, all of them kept in step."""
    for _ in range(actions):
        actor = next(c for c in clients if harmless(c.legal))
        action = harmless(actor.legal)
        assert action is not None
        ack = await actor.act(action)
        assert applied(ack), ack
        for c in clients:
            await c.until_seq(ack["seq"])


async def log_of(store: MemoryStore, code: str) -> list[Any]:
    record = await store.find_by_code(code)
    assert record is not None
    return await store.log(record.id)


@pytest.mark.anyio
async def test_a_reconnecting_client_gets_exactly_what_it_missed(tmp_path: Path) -> None:
    with run_server(settings(tmp_path), MemoryStore()) as server:
        code, tokens = create_table(server, "cabo", 2, **SLOW_TIMERS)
        # Seat 1 has two devices: ``twin`` stays, and records what the other one misses.
        async with seated(server, code, [tokens[0], tokens[1], tokens[1]]) as (host, away, twin):
            await begin(host, [away, twin])
            last_seq = away.seq
            await away.ws.close()
            await play([host, twin], 8)
            await host.settle()
            await twin.settle()
            live = {f["seq"]: f for f in twin.frames if f["type"] == "event"}

            async with client(server) as back:
                frames = await back.hello(code, tokens[1], last_seq=last_seq)
            kinds = [f["type"] for f in frames]
            assert kinds == ["welcome", "table"] + ["missed"] * 8 + ["snapshot"]
            missed = [f for f in frames if f["type"] == "missed"]
            assert [f["seq"] for f in missed] == list(range(last_seq + 1, twin.seq + 1))
            for frame in missed:  # the same events, without the cards shown to the seat alone
                public = [
                    {k: v for k, v in e.items() if k != "seen"}
                    for e in live[frame["seq"]]["events"]
                ]
                assert frame["events"] == public
            # The opening looks were among them: the catch-up carried none of their cards.
            assert any(e.get("seen") for f in live.values() for e in f["events"])
            snapshot = frames[-1]
            assert snapshot["seq"] == twin.seq
            assert (snapshot["view"], snapshot["legal"]) == (twin.view, twin.legal)


@pytest.mark.anyio
async def test_no_seq_or_one_too_old_gets_a_fresh_snapshot(tmp_path: Path) -> None:
    with run_server(settings(tmp_path, recent=4), MemoryStore()) as server:
        code, tokens = create_table(server, "cabo", 2, **SLOW_TIMERS)
        async with seated(server, code, tokens) as (host, guest):
            await begin(host, [guest])
            first = host.seq
            await play([host, guest], 8)  # more than the 4 batches the table keeps
            for last_seq in (None, first, first + 1, guest.seq + 5):  # none, too old, ahead
                async with client(server) as back:
                    frames = await back.hello(code, tokens[1], last_seq=last_seq)
                assert [f["type"] for f in frames] == ["welcome", "table", "snapshot"]
                assert frames[-1]["seq"] == guest.seq
                assert frames[-1]["view"] == guest.view
            # Up to date: nothing missed, the snapshot only.  Just behind: the one batch.
            async with client(server) as back:
                frames = await back.hello(code, tokens[1], last_seq=guest.seq)
            assert [f["type"] for f in frames] == ["welcome", "table", "snapshot"]
            async with client(server) as back:
                frames = await back.hello(code, tokens[1], last_seq=guest.seq - 1)
            assert [f["type"] for f in frames] == ["welcome", "table", "missed", "snapshot"]


@pytest.mark.anyio
async def test_a_resent_action_is_applied_once(tmp_path: Path) -> None:
    store = MemoryStore()
    with run_server(settings(tmp_path), store) as server:
        code, tokens = create_table(server, "cabo", 2, **SLOW_TIMERS)
        async with seated(server, code, tokens) as (host, guest):
            await begin(host, [guest])
            await play([host, guest], 2)  # the opening peeks
            mover, other = (host, guest) if host.view["to_act"] == 0 else (guest, host)
            seq = mover.seq
            first = await mover.act({"do": "draw"}, action_id="draw-once")
            assert (first["type"], first["ack"], first["seq"]) == ("event", "draw-once", seq + 1)
            await other.until_seq(seq + 1)

            # The same message again (its seq is stale by now): an ack of the seq it was
            # applied at, nothing applied.
            again = await mover.act({"do": "draw"}, seq=seq, action_id="draw-once")
            assert again == {"type": "ack", "id": "draw-once", "seq": seq + 1}
            await other.pong()
            assert (await probe(server, code))[0] == seq + 1

            # Lost ack: the client drops, comes back, and resends the id it never saw answered.
            action = harmless(mover.legal)
            assert action is not None
            message = {"type": "action", "id": "lost-ack", "seq": mover.seq, "action": action}
            await mover.send(message)
            await other.until_seq(seq + 2)
            token = tokens[mover.seat or 0]
            await mover.ws.close()
            async with client(server) as back:
                await back.hello(code, token, last_seq=seq + 1)
                await back.send({**message, "seq": back.seq})
                assert await back.until("ack") == {"type": "ack", "id": "lost-ack", "seq": seq + 2}
                await back.pong()
            await other.settle()
            assert other.seq == seq + 2

            ids = [e.payload.get("id") for e in await log_of(store, code)]
            assert ids.count("draw-once") == 1
            assert ids.count("lost-ack") == 1


@pytest.mark.anyio
async def test_a_stale_action_gets_an_error_and_a_resync(tmp_path: Path) -> None:
    with run_server(settings(tmp_path), MemoryStore()) as server:
        code, tokens = create_table(server, "cabo", 2, **SLOW_TIMERS)
        async with seated(server, code, tokens) as (host, guest):
            await begin(host, [guest])
            await play([host, guest], 2)
            mover, other = (host, guest) if host.view["to_act"] == 0 else (guest, host)
            before = await probe(server, code)
            for seen in (mover.seq - 1, 0, mover.seq + 1):  # behind, far behind, ahead
                error = await mover.act({"do": "draw"}, seq=seen, action_id=f"stale-{seen}")
                assert error["code"] == "stale"
                assert error["message"].startswith(
                    "the table moved on before your action arrived "
                    f"(you saw {seen}, it is at {mover.seq}"
                )
                resync = await mover.recv()
                assert resync["type"] == "snapshot"
                assert resync["seq"] == mover.seq
                assert resync["legal"] == mover.legal
                await mover.pong()
                await other.pong()
            assert await probe(server, code) == before
            # With the seq of the resync, the same action is applied.
            assert applied(await mover.act({"do": "draw"}))


async def tap_race(first: Client, second: Client, gap: float) -> tuple[Client, Client]:
    """Both seats TAP against the same seq, ``first`` by ``gap`` seconds ahead; returns
    (winner, loser) after checking the loser was told why."""
    seq = first.seq
    assert second.seq == seq
    taps = {}
    for c in (first, second):
        tap = next(a for a in c.legal if a["do"] == "tap")
        taps[c] = {
            "type": "action",
            "id": f"tap-{c.seat}-{seq}",
            "seq": seq,
            "action": {"do": "tap", "slot": tap["slot"]},
        }
    if gap:
        await first.send(taps[first])
        await asyncio.sleep(gap)
        await second.send(taps[second])
    else:
        await asyncio.gather(first.send(taps[first]), second.send(taps[second]))
    answers = {}
    for c in (first, second):
        while True:
            msg = await c.recv()
            if taps[c]["id"] in (msg.get("id"), msg.get("ack")):
                answers[c] = msg
                break
    acks = [c for c in answers if applied(answers[c])]
    assert len(acks) == 1, answers
    winner = acks[0]
    loser = second if winner is first else first
    assert answers[winner]["seq"] == seq + 1
    # The loser saw the winner's TAP land, then was told its own came too late, then resynced.
    event = next(f for f in loser.frames if f["type"] == "event" and f["seq"] == seq + 1)
    assert event["events"][0]["type"] in ("tap_hit", "tap_missed")
    assert event["events"][0]["by"] == winner.seat
    error = answers[loser]
    assert error["type"] == "error"
    assert error["code"] == "stale"
    assert f"you saw {seq}, it is at {seq + 1}" in error["message"]
    assert (await loser.recv())["type"] == "snapshot"
    for c in (first, second):
        await c.settle()
        assert c.seq == seq + 1
    return winner, loser


async def taps_open(server: RunningServer, code: str, seats: list[Client]) -> None:
    """Play until both seats may TAP (play has started and the discard pile has a card)."""
    for _ in range(20):
        if all(any(a["do"] == "tap" for a in c.legal) for c in seats):
            return
        await play(seats, 1)
    raise AssertionError("no TAP became possible")


@pytest.mark.anyio
async def test_racing_taps_apply_in_arrival_order_and_the_loser_is_told(tmp_path: Path) -> None:
    store = MemoryStore()
    with run_server(settings(tmp_path), store) as server:
        code, tokens = create_table(server, "boyo", 2, **SLOW_TIMERS)
        async with seated(server, code, tokens) as (a, b):
            await begin(a, [b])
            await taps_open(server, code, [a, b])
            start = a.seq
            # One clearly ahead of the other: the first to arrive wins, whoever it is.
            for first, second in ((a, b), (b, a), (a, b)):
                winner, _ = await tap_race(first, second, gap=0.05)
                assert winner is first
                if not all(any(x["do"] == "tap" for x in c.legal) for c in (a, b)):
                    break
            # At the same instant: exactly one wins; the other is told why.
            if all(any(x["do"] == "tap" for x in c.legal) for c in (a, b)):
                await tap_race(a, b, gap=0.0)
            log = await log_of(store, code)
            assert log[-1].seq == a.seq
            taps = [e for e in log if e.seq > start]
            assert all(e.payload["action"]["do"] == "tap" for e in taps)
            assert len(taps) == a.seq - start  # one entry per race: the loser's TAP never applied
