"""Removing a seat from a table in its lobby when the store refuses the write: the table stays as
it was, its record and the bots keyed to its seats alike; tried again once the store is back,
the removal moves each bot with its seat."""

from __future__ import annotations

import pytest

from facedown.bots import make_bot
from facedown.server.base.clock import FakeClock
from facedown.server.play.context import TableContext
from facedown.server.play.lobby import Lobby
from facedown.server.transport.hub import LocalHub
from facedown.store import Lease, MemoryStore, StoreError, TableRecord


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


class RefusesOnce(MemoryStore):
    """A store whose next table update fails once ``down`` is set (the database away a
    moment)."""

    def __init__(self) -> None:
        super().__init__()
        self.down = False

    async def update_table(self, record: TableRecord, *, lease: Lease | None = None) -> None:
        if self.down:
            self.down = False
            raise StoreError("the database is unreachable (a test's outage)")
        await super().update_table(record, lease=lease)


def _bot_seats(record: TableRecord) -> dict[int, str | None]:
    return {s.seat: s.bot_level for s in record.seats if s.kind == "bot"}


@pytest.mark.anyio
async def test_a_seat_removal_the_store_refused_leaves_every_bot_on_its_seat() -> None:
    store = RefusesOnce()
    lobby = Lobby(TableContext(store, LocalHub(), make_bot, clock=FakeClock()))
    table = await lobby.create("host", "Ann", "kivo", {}, 4, {}, [])
    await table.add_bot("host", "random", 1)
    await table.add_bot("host", "easy", 2)
    await table.join("bob", "Bob")  # seat 3
    record = table.record
    bots = dict(table.bots)
    assert _bot_seats(record) == {1: "random", 2: "easy"}

    store.down = True
    with pytest.raises(StoreError):
        await table.remove_seat("host", 1)
    assert table.record == record
    assert await store.get_table(record.id) == record
    # Each bot is still the one its seat has, on that seat.
    assert {seat: id(bot) for seat, bot in table.bots.items()} == {
        seat: id(bot) for seat, bot in bots.items()
    }

    # The store is back: the same removal, and the easy bot moves to seat 1 with its seat.
    await table.remove_seat("host", 1)
    assert _bot_seats(table.record) == {1: "easy"}
    assert [s.name for s in table.record.seats if s.kind == "human"] == ["Ann", "Bob"]
    assert {seat: id(bot) for seat, bot in table.bots.items()} == {1: id(bots[2])}
    assert await store.get_table(record.id) == table.record
    await lobby.close()
