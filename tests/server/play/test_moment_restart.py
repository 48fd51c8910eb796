"""A seat's moment stays over across a server restart (issue 32 §1, the reload).

The attack: a player peeks at a card, says ``ready`` (the moment is over: no frame holds the
face any more), and then waits for the server to restart (a deploy, a crash) and reloads.  If
"moment over" lived only in the process's memory, the fresh snapshot would show the card again
until the table's next move.  Against a real ``facedown serve`` process on loopback, stopped
with ``kill -9`` (nothing but what was stored survives) and started again on the same data.

In-process too, on the memory store: the ``ready`` is stored as the table's settings alone, so
the record's ``updated_at`` (and with it an account's cached history) stays, and a table
rebuilt from the store still shows the seat nothing.
"""

from __future__ import annotations

import signal
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest
from websockets.asyncio.client import connect

from benchmarks.serverproc import Server, free_port, start_server, stop_server, wait_healthy
from facedown.bots import make_bot
from facedown.server.accounts.history import History
from facedown.server.base.clock import FakeClock
from facedown.server.modes.modes import TableSettings
from facedown.server.play.context import TableConfig, TableContext
from facedown.server.play.lobby import Lobby
from facedown.server.play.table import Table
from facedown.server.transport.hub import LocalHub
from facedown.store import LogEntry, MemoryStore

from ..harness import Client, applied

SECRET = "moment-restart"  # noqa: S105 - signs the test server's tokens
ADDRESS = "127.0.22.1"  # this test's own loopback address (per-address limits)
# Boyo with every card traceable; the draw pile starts with a 7 (look at one of your own).
DEAL = {
    "hands": [["2S", "3S", "4S", "5S"], ["2H", "3H", "4H", "5H"]],
    "discard": "6C",
    "draw": ["7S", "9S", "8S", "10S", "7C", "9C", "JS", "QS"],
    "first": 0,
}
ORDER = ("opening_peek", "peek", "spy", "draw")  # the script's preference among legal moves


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@asynccontextmanager
async def seat(server: Server, code: str, token: str) -> AsyncIterator[Client]:
    """A connection that said hello and read everything sent to it so far."""
    async with connect(server.ws_url, local_addr=(ADDRESS, 0), proxy=None) as ws:
        c = Client(ws)
        await c.hello(code, token)
        await c.settle()
        yield c


def next_move(c: Client) -> dict[str, Any] | None:
    return preferred(c.legal)


def preferred(legal: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The script's move among ``legal`` (by ``ORDER``), if any."""
    for kind in ORDER:
        for action in legal:
            if action["do"] == kind:
                return {k: v for k, v in action.items() if k != "by"}
    return None


async def reload_view(server: Server, code: str, token: str) -> dict[str, Any]:
    async with seat(server, code, token) as fresh:
        return fresh.view


@pytest.mark.anyio
async def test_a_moment_over_stays_over_after_a_kill_9_and_restart(tmp_path: Path) -> None:
    port = free_port()
    transport = httpx.AsyncHTTPTransport(local_address=ADDRESS)
    async with httpx.AsyncClient(
        base_url=f"http://127.0.0.1:{port}", transport=transport, timeout=10, trust_env=False
    ) as http:
        server = start_server(port, tmp_path, secret=SECRET, extra=["--test-hooks"])
        try:
            await wait_healthy(server, http)
            slow = {"peek_seconds": 600, "turn_seconds": 3600}
            body = {"preset": "boyo", "seats": 2, "name": "Ann", "deal": DEAL, **slow}
            r = await http.post("/api/tables", json=body)
            assert r.status_code == 200, r.text
            code, ann = r.json()["code"], r.json()["token"]
            r = await http.post(f"/api/tables/{code}/join", json={"name": "Bob"})
            assert r.status_code == 200, r.text
            bob = r.json()["token"]
            async with seat(server, code, ann) as a, seat(server, code, bob) as b:
                await a.send({"type": "start"})
                await a.until("event")
                await b.until("event")
                # Both opening looks, then Ann (first) draws the 7 and looks at a card of hers.
                looked = None
                for _ in range(8):
                    await a.settle()
                    await b.settle()
                    actor = a if next_move(a) else b
                    action = next_move(actor)
                    assert action is not None, (a.legal, b.legal)
                    answer = await actor.act(action)
                    assert applied(answer), answer
                    if action["do"] in ("peek", "spy"):
                        looked = actor
                        break
                assert looked is a, "the script never reached Ann's peek"
                await b.until_seq(a.seq)
                shown = dict(a.view["shown"])
                assert shown, "the peek shows Ann no card"
                # The reload during the moment shows the card: it is hers to see now.
                assert (await reload_view(server, code, ann))["shown"] == shown
                await a.send({"type": "ready"})
                await a.until("ack")
                await a.settle()
                assert a.view["shown"] == {}
                seq = a.seq
                assert (await reload_view(server, code, ann))["shown"] == {}
            server.proc.send_signal(signal.SIGKILL)  # no shutdown: only what was stored
            assert server.proc.wait(10) == -signal.SIGKILL

            server = start_server(port, tmp_path, secret=SECRET, extra=["--test-hooks"])
            await wait_healthy(server, http)
            async with seat(server, code, ann) as again:
                assert again.seq == seq, "the table moved on: the test proves nothing"
                assert again.view["shown"] == {}, (
                    f"after a restart the reload shows {again.view['shown']} again"
                )
                # The other seat never had the card in any frame either.
                async with seat(server, code, bob) as other:
                    assert other.view["shown"] == {}
        finally:
            stop_server(server, 10)


class CountedStore(MemoryStore):
    """The memory store, counting the reads of a table's whole log."""

    def __init__(self) -> None:
        super().__init__()
        self.log_reads = 0

    async def log(self, table_id: str, after: int = 0) -> list[LogEntry]:
        self.log_reads += 1
        return await super().log(table_id, after)


def _lobby(store: MemoryStore, clock: FakeClock) -> Lobby:
    return Lobby(TableContext(store, LocalHub(), make_bot, TableConfig(), clock))


async def _peeked(lobby: Lobby, clock: FakeClock) -> Table:
    """A table where Ann (seat 0) is being shown the card she peeked at, as in the test above."""
    slow: TableSettings = {"peek_seconds": 600, "turn_seconds": 3600}
    table = await lobby.create("ann", "Ann", "boyo", {}, 2, slow, [], deal=DEAL)
    await table.join("bob", "Bob")
    await table.start("ann")
    for _ in range(8):
        await clock.advance(1.0)
        seat = 0 if preferred(table.render(0)["legal"]) else 1
        action = preferred(table.render(seat)["legal"])
        assert action is not None
        await table.act(seat, action, None, table.seq)
        if action["do"] in ("peek", "spy"):
            break
    assert table.game is not None
    assert table.game.shown is not None
    assert table.game.shown[0] == 0, "the script never reached Ann's peek"
    assert table.render(0)["view"]["shown"], "the peek shows Ann no card"
    return table


@pytest.mark.anyio
async def test_a_ready_is_stored_without_touching_the_tables_updated_at() -> None:
    store, clock = CountedStore(), FakeClock()
    lobby = _lobby(store, clock)
    table = await _peeked(lobby, clock)
    history = History(store)
    assert len(await history.of(["ann"])) == 0  # no match over yet: the log is read once
    reads = store.log_reads
    before = await store.get_table(table.id)
    assert before is not None
    await clock.advance(5.0)
    await table.moment_over(0)
    assert table.render(0)["view"]["shown"] == {}
    after = await store.get_table(table.id)
    assert after is not None
    assert after.settings["moment_over"] == {"seq": table.seq, "seats": [0]}
    # Only the settings were written: updated_at (an account's history is cached by it), the
    # status and the seats are as they were, and the table's own record says the same.
    assert after.updated_at == before.updated_at
    assert after == table.record
    assert {**after.settings, "moment_over": None} == {**before.settings, "moment_over": None}
    assert (after.status, after.seats) == (before.status, before.seats)
    await history.of(["ann"])
    assert store.log_reads == reads, "a ready made the history read the table's log again"
    await lobby.close()


@pytest.mark.anyio
async def test_a_ready_stored_so_is_read_back_by_a_table_rebuilt_from_the_store() -> None:
    store, clock = MemoryStore(), FakeClock()
    lobby = _lobby(store, clock)
    table = await _peeked(lobby, clock)
    code, seq = table.record.code, table.seq
    await table.moment_over(0)
    await lobby.close()  # what the store holds is all a restarted server has

    again = _lobby(store, FakeClock(clock.now() + 60.0))
    assert await again.recover() == 1
    rebuilt = await again.find(code)
    assert rebuilt.seq == seq, "the table moved on: the test proves nothing"
    assert rebuilt.hidden == {0}
    for seat in (0, 1, None):
        snapshot = rebuilt.catch_up(seat, None)[-1]
        assert snapshot["type"] == "snapshot"
        assert snapshot["view"]["shown"] == {}, f"seat {seat} is shown {snapshot['view']}"
    await again.close()
