"""The ``table`` message to every audience: its facts encoded once, each audience's frame the
text ``encode`` makes of its own message (its seat in the head), only for those who listen."""

from __future__ import annotations

from typing import Any, cast

import orjson
import pytest

from facedown.bots import make_bot
from facedown.server.base.clock import FakeClock
from facedown.server.modes.modes import TableSettings
from facedown.server.play.context import TableConfig, TableContext
from facedown.server.play.lobby import Lobby
from facedown.server.transport.hub import LocalHub
from facedown.server.transport.protocol import ServerFrame, encode
from facedown.store import MemoryStore

SLOW: TableSettings = {"peek_seconds": 600, "turn_seconds": 3600}


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


class Device:
    """A connection as the hub sees it, keeping every frame it is sent with its message."""

    def __init__(self, seat: int | None) -> None:
        self._seat = seat
        self.got: list[tuple[dict[str, Any], str | None]] = []

    @property
    def seat(self) -> int | None:
        return self._seat

    def send(self, message: ServerFrame, frame: str | None = None) -> None:
        self.got.append((cast(dict[str, Any], message), frame))

    def close(self, code: int = 1000, reason: str = "") -> None:
        raise AssertionError("no device is closed here")

    def tables(self) -> list[tuple[dict[str, Any], str | None]]:
        return [(m, f) for m, f in self.got if m["type"] == "table"]


@pytest.mark.anyio
async def test_every_audience_gets_the_encoding_of_its_own_table_message() -> None:
    hub = LocalHub()
    lobby = Lobby(TableContext(MemoryStore(), hub, make_bot, TableConfig(), FakeClock()))
    table = await lobby.create("p0", "Ann", "cabo", {}, 4, SLOW, ["easy", None, "medium"])
    quiet = len(hub.audiences(table.id))
    assert quiet == 0
    table.publish_table()  # nobody listens: nothing to make, nothing sent

    devices = [Device(0), Device(0), Device(2), Device(None), Device(None), Device(7)]
    for device in devices:  # seat 7 does not exist: its device gets nothing
        hub.subscribe(table.id, device)
    assert await table.join("p2", "Bob") == 2
    await table.connected(0)
    await table.connected(2)
    await table.start("p0")
    hub.unsubscribe(table.id, devices[2])
    await table.disconnected(2)

    for device in devices[:5]:
        sent = device.tables()
        # The join, two arrivals, the start, and (not to the device gone) a leave.
        assert len(sent) == (4 if device is devices[2] else 5), [m for m, _ in sent]
        for message, frame in sent:
            assert frame == encode(message), "a frame that is not its message's text"
            assert orjson.loads(frame) == message
            assert message["seat"] == device.seat
    assert devices[5].tables() == []
    # Two devices of a seat share the frame; every audience's frame has the same facts.
    for (_, a), (_, b) in zip(devices[0].tables(), devices[1].tables(), strict=True):
        assert a is b
    here = [devices[0], devices[1], devices[3], devices[4]]
    last: list[dict[str, Any]] = [orjson.loads(d.tables()[-1][1] or "") for d in here]
    assert all(frame["table"] == last[0]["table"] for frame in last)
    assert last[0]["table"]["status"] == "playing"
    assert [s["connected"] for s in last[0]["table"]["seats"]] == [True, True, False, True]
    await lobby.close()


@pytest.mark.anyio
async def test_a_table_message_that_needs_string_keys_made_is_encoded_as_a_whole_is() -> None:
    # encode() writes a key that is not a string as a string, as json.dumps does: the facts
    # encoded apart must come out the same inside the frame.
    hub = LocalHub()
    lobby = Lobby(TableContext(MemoryStore(), hub, make_bot, TableConfig(), FakeClock()))
    odd = cast(TableSettings, {**SLOW, 3: "three"})
    table = await lobby.create("p0", "Ann", "boyo", {}, 2, odd, [])
    device = Device(None)
    hub.subscribe(table.id, device)
    table.publish_table()
    [(message, frame)] = device.tables()
    assert frame == encode(message)
    assert '"3":"three"' in (frame or "")
    await lobby.close()
