"""A table whose lease another process took is dropped by whatever write finds it out: an HTTP
call (adding a bot) as well as a player's frame or a timer, so the process stops serving a
table it no longer owns instead of answering "store unavailable" for it again and again."""

from __future__ import annotations

import asyncio

import pytest

from facedown.bots import make_bot
from facedown.server.base.clock import FakeClock
from facedown.server.cluster.ownership import LeaseOwnership
from facedown.server.play.context import TableConfig, TableContext
from facedown.server.play.lobby import Lobby
from facedown.server.transport.hub import LocalHub
from facedown.store import LeaseLost, MemoryStore, table_lease


def test_a_refused_fenced_write_drops_the_table_here() -> None:
    async def main() -> None:
        store = MemoryStore()
        ownership = LeaseOwnership(store, "one", seconds=0.05)  # never renewed: not started
        clock = FakeClock()
        ctx = TableContext(store, LocalHub(), make_bot, TableConfig(), clock, ownership=ownership)
        lobby = Lobby(ctx)
        table = await lobby.create("host", "Ann", "kivo", {}, 3, {}, [])
        assert table.record.id in lobby.tables
        await asyncio.sleep(0.1)  # the lease runs out; another process takes the table
        assert await store.take_lease(table_lease(table.record.id), "two", 60.0) is not None
        with pytest.raises(LeaseLost):
            await table.add_bot("host", "easy", None)
        for _ in range(100):
            if table.record.id not in lobby.tables:
                break
            await asyncio.sleep(0.01)
        assert table.record.id not in lobby.tables  # no longer served here
        assert table.record.code.upper() not in lobby._by_code
        await lobby.close()

    asyncio.run(main())
