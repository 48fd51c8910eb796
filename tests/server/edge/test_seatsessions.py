"""The registry of connections an account session opened (server/edge/seatsessions.py), alone:
what it closes, and what it must not (the attacks on the real server are in
tests/server/accounts/test_stolen_tokens.py)."""

from __future__ import annotations

import asyncio
from collections.abc import Collection
from typing import Any, cast

import pytest

from facedown.server.edge.connection import Connection
from facedown.server.edge.seatsessions import SESSION_ENDED, SessionSockets


class FakeConnection:
    def __init__(self) -> None:
        self.sent: list[Any] = []
        self.closed: int | None = None

    def send(self, message: Any) -> None:
        self.sent.append(message)

    def close(self, code: int = 1000, reason: str = "") -> None:
        self.closed = code


def conn() -> Any:
    return cast(Connection, FakeConnection())


def test_only_the_connections_of_an_ended_session_close() -> None:
    live = {"s2": "ann", "s9": "bob", "s1": "bob"}  # s1 is bob's: ann's token cannot stand on it

    async def sessions(ids: Collection[str]) -> dict[str, str]:
        return {i: live[i] for i in ids if i in live}

    registry = SessionSockets(sessions)
    old, new, other = conn(), conn(), conn()
    registry.watch(old, "ann", "s1")
    registry.watch(new, "ann", "s2")
    registry.watch(other, "bob", "s9")
    assert asyncio.run(registry.check("ann")) == 1
    assert old.closed == SESSION_ENDED
    assert old.sent[0]["code"] == "bad_token"
    assert new.closed is None
    assert other.closed is None  # bob was not checked
    assert registry.watched() == 2


def test_a_connection_watched_while_the_sessions_were_read_is_not_closed() -> None:
    """A hello on a session begun after the read must not be taken for one that ended."""
    registry: SessionSockets
    late = conn()

    async def sessions(ids: Collection[str]) -> dict[str, str]:
        registry.watch(late, "ann", "s-new")  # arrives while the store is being read
        await asyncio.sleep(0)
        return {"s-old-live": "ann"}

    registry = SessionSockets(sessions)
    ended = conn()
    registry.watch(ended, "ann", "s-gone")
    assert asyncio.run(registry.check("ann")) == 1
    assert ended.closed == SESSION_ENDED
    assert late.closed is None


def test_one_account_that_fails_stops_no_other_and_settle_never_raises() -> None:
    reads: list[set[str]] = []

    async def sessions(ids: Collection[str]) -> dict[str, str]:
        reads.append(set(ids))
        if "s1" in ids:
            raise RuntimeError("a row the store cannot read")
        return {}

    registry = SessionSockets(sessions)
    first, second = conn(), conn()
    registry.watch(first, "broken", "s1")
    registry.watch(second, "eve", "s2")
    assert asyncio.run(registry.sweep()) == 1
    assert reads == [{"s1", "s2"}, {"s1"}, {"s2"}]  # all in one read; when it fails, each alone
    assert second.closed == SESSION_ENDED
    assert first.closed is None
    assert asyncio.run(registry.settle("broken")) == 0
    with pytest.raises(RuntimeError):
        asyncio.run(registry.check("broken"))


def test_a_forgotten_connection_is_not_watched() -> None:
    async def sessions(ids: Collection[str]) -> dict[str, str]:
        return {}

    registry = SessionSockets(sessions)
    c = conn()
    registry.watch(c, "ann", "s1")
    registry.watch(c, "ann", "s2")  # watched again: one entry
    assert registry.watched() == 1
    registry.forget(c)
    assert registry.watched() == 0
    assert asyncio.run(registry.check("ann")) == 0
    assert c.closed is None


def test_a_sweep_reads_every_watched_session_at_once() -> None:
    reads: list[set[str]] = []

    async def sessions(ids: Collection[str]) -> dict[str, str]:
        reads.append(set(ids))
        return {"a1": "ann", "c1": "cy"}

    registry = SessionSockets(sessions)
    kept, ended, also_kept = conn(), conn(), conn()
    registry.watch(kept, "ann", "a1")
    registry.watch(ended, "bob", "b1")
    registry.watch(also_kept, "cy", "c1")
    assert asyncio.run(registry.sweep()) == 1
    assert reads == [{"a1", "b1", "c1"}]
    assert (kept.closed, ended.closed, also_kept.closed) == (None, SESSION_ENDED, None)
    assert registry.watched() == 2
