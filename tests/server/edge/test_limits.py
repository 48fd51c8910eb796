"""Limits per client address and per table: creation, joins, unknown codes, frames over all of an
address's connections, connections, spectators (and idle ones), and lobby tables that expire."""

from __future__ import annotations

import asyncio
from dataclasses import replace
from pathlib import Path

import pytest

from facedown.bots import make_bot
from facedown.server.accounts.passwords import PasswordCost
from facedown.server.base.addresses import (
    AddressLimiter,
    ClientLimits,
    Limits,
    Rate,
    client_address,
    network_of,
    proxy_networks,
)
from facedown.server.base.clock import FakeClock
from facedown.server.base.errors import TableError
from facedown.server.edge.settings import ServerSettings
from facedown.server.modes.turnbased import turn_based_settings
from facedown.server.play.context import TableConfig, TableContext
from facedown.server.play.lobby import Lobby
from facedown.server.transport.hub import LocalHub
from facedown.store import MemoryStore

from ..harness import NO_ADDRESS_LIMITS, client, create_table, run_server

NEVER = 1e-9  # a rate at which no token comes back during a test


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def _settings(tmp_path: Path, **limits: object) -> ServerSettings:
    return ServerSettings(
        data_dir=tmp_path,
        secret="limits",
        table=TableConfig(bot_delay=600),
        clients=replace(NO_ADDRESS_LIMITS, **limits),  # type: ignore[arg-type]
    )


def test_a_bucket_per_address_refills_with_time() -> None:
    now = [0.0]
    limiter = AddressLimiter(Rate(1.0, 2), lambda: now[0], prune_every=1)
    assert [limiter.allow("a") for _ in range(3)] == [True, True, False]
    assert limiter.allow("b")  # another address has its own bucket
    now[0] += 1.0
    assert limiter.allow("a")
    assert not limiter.allow("a")
    now[0] += 100.0
    limiter.allow("c")  # a sweep forgets the buckets that refilled
    assert len(limiter) == 1


def test_x_forwarded_for_counts_only_behind_a_proxy() -> None:
    headers = {"x-forwarded-for": "6.6.6.6, 10.0.0.7"}
    assert client_address("127.0.0.1", headers, behind_proxy=False) == "127.0.0.1"
    proxy = proxy_networks(["127.0.0.1"])
    assert client_address("127.0.0.1", headers, behind_proxy=True, proxies=proxy) == "10.0.0.7"
    assert client_address("127.0.0.1", {}, behind_proxy=True, proxies=proxy) == "127.0.0.1"
    # Only from a trusted proxy (tests/server/edge/test_proxy_headers.py).
    assert client_address("127.0.0.1", headers, behind_proxy=True) == "127.0.0.1"


def test_table_creation_joins_and_unknown_codes_are_limited_per_address(tmp_path: Path) -> None:
    settings = replace(
        _settings(tmp_path, creates=Rate(NEVER, 2), joins=Rate(NEVER, 1), lookups=Rate(NEVER, 3)),
        behind_proxy=True,
    )
    body = {"preset": "kivo", "seats": 3, "name": "Ann"}
    with run_server(settings) as server, server.http() as http:
        codes = [http.post("/api/tables", json=body).json()["code"] for _ in range(2)]
        refused = http.post("/api/tables", json=body)
        assert refused.status_code == 429
        assert refused.json()["detail"]["code"] == "rate_limited"
        other = {"x-forwarded-for": "10.0.0.9"}  # another client behind the proxy
        assert http.post("/api/tables", json=body, headers=other).status_code == 200

        assert http.post(f"/api/tables/{codes[0]}/join", json={"name": "B"}).status_code == 200
        assert http.post(f"/api/tables/{codes[1]}/join", json={"name": "C"}).status_code == 429

        for _ in range(3):
            assert http.get("/api/tables/ZZZZZZ").status_code == 404
        assert http.get("/api/tables/ZZZZZZ").status_code == 429
        assert http.get(f"/api/tables/{codes[0]}").status_code == 429  # no lookups at all

        async def hello() -> None:
            async with client(server) as c:  # the WebSocket hello counts as a lookup too
                await c.send({"type": "hello", "table": codes[0]})
                error = await c.recv()
                assert error["type"] == "error"
                assert error["code"] == "rate_limited"

        asyncio.run(hello())
        assert http.get(f"/api/tables/{codes[0]}", headers=other).status_code == 200


def test_connections_and_frames_are_limited_over_all_of_an_address(tmp_path: Path) -> None:
    settings = _settings(tmp_path, connections=2, frames=Rate(NEVER, 10))

    async def run() -> None:
        with run_server(settings) as server:
            async with client(server) as one, client(server) as two:
                async with client(server) as third:
                    error = await third.recv()
                    assert error["type"] == "error"
                    assert error["code"] == "rate_limited"
                    assert await third.close_code() == 4029
                for _ in range(5):  # ten frames between them: the address's burst
                    await one.pong()
                    await two.pong()
                await one.send({"type": "ping"})
                error = await one.recv()
                assert error["type"] == "error"
                assert error["code"] == "rate_limited"
                await two.send({"type": "ping"})
                assert (await two.recv())["code"] == "rate_limited"

    asyncio.run(run())


def test_spectators_are_capped_and_idle_ones_closed(tmp_path: Path) -> None:
    settings = _settings(tmp_path, spectators=1, spectator_idle=0.3)

    async def run() -> None:
        with run_server(settings) as server:
            code, tokens = create_table(server, "kivo", 2)
            async with client(server) as player, client(server) as watcher:
                await player.hello(code, tokens[0])
                await watcher.hello(code)
                async with client(server) as second:
                    await second.send({"type": "hello", "table": code})
                    error = await second.recv()
                    assert error["type"] == "error"
                    assert error["code"] == "too_many_spectators"
                assert await watcher.close_code(5) == 4002  # it sent nothing for 0.3 s
                assert any(f.get("code") == "idle" for f in watcher.frames)
                await player.pong()  # a player is never closed for being quiet
                async with client(server) as third:  # the idle spectator's place is free
                    await third.hello(code)

    asyncio.run(run())


@pytest.mark.anyio
async def test_a_lobby_table_that_never_starts_expires() -> None:
    store, clock = MemoryStore(), FakeClock()
    config = TableConfig(lobby_expiry=1000.0, turn_based_lobby_expiry=3000.0)
    lobby = Lobby(TableContext(store, LocalHub(), make_bot, config, clock))
    await lobby.recover()
    waiting = await lobby.create("host", "Ann", "kivo", {}, 2, {}, [])
    # A turn-based table's players join over days: it waits longer (turn_based_lobby_expiry).
    slow = await lobby.create("host", "Ann", "kivo", {}, 2, turn_based_settings(None), [])
    started = await lobby.create("host", "Ann", "kivo", {}, 2, {"turn_seconds": 10**5}, ["easy"])
    await started.start("host")
    await clock.advance(999.0)
    assert (await lobby.find(waiting.record.code)) is waiting
    await clock.advance(200.0)  # past the expiry, and a sweep has run
    record = await store.get_table(waiting.record.id)
    assert record is not None
    assert record.status == "closed"
    with pytest.raises(TableError) as closed:
        await lobby.find(waiting.record.code)
    assert closed.value.code == "table_closed"
    assert (await lobby.find(started.record.code)) is started
    assert (await lobby.find(slow.record.code)) is slow  # 1,200 s: a turn-based table waits on
    await clock.advance(2000.0)
    with pytest.raises(TableError) as closed:
        await lobby.find(slow.record.code)
    assert closed.value.code == "table_closed"
    await lobby.close()

    # A lobby table that expired while the server was down is closed, not loaded.
    late = await Lobby(TableContext(store, LocalHub(), make_bot, config, clock)).create(
        "host", "Ann", "kivo", {}, 2, {}, []
    )
    clock = FakeClock(clock.now() + 5000)
    lobby = Lobby(TableContext(store, LocalHub(), make_bot, config, clock))
    await lobby.recover()
    assert late.record.id not in lobby.tables
    record = await store.get_table(late.record.id)
    assert record is not None
    assert record.status == "closed"
    record = await store.get_table(started.record.id)  # a table that started never expires
    assert record is not None
    assert record.status in ("playing", "finished")
    await lobby.close()


def test_the_defaults_are_limits() -> None:
    limits = ServerSettings().clients
    assert limits == ClientLimits()
    assert limits.connections < 100
    assert limits.creates.burst < 100
    assert not ServerSettings().behind_proxy


def test_sign_in_counts_an_ipv6_address_as_its_64() -> None:
    assert network_of("2001:db8:1:2:aaaa::1") == network_of("2001:db8:1:2:bbbb::9")
    assert network_of("2001:db8:1:2::1") == "2001:db8:1:2::/64"
    assert network_of("2001:db8:1:3::1") != network_of("2001:db8:1:2::1")
    assert network_of("::ffff:10.0.0.7") == "10.0.0.7"  # an IPv4 client on a dual stack
    assert network_of("10.0.0.7") == "10.0.0.7"
    assert network_of("unknown") == "unknown"


def test_every_limit_counts_an_ipv6_subscriber_as_its_64(tmp_path: Path) -> None:
    """An attacker behind the proxy walks through the addresses of its /64 for fresh buckets:
    table creation, joins, lookups of unknown codes and sign-ups are counted per /64, as
    sign-in is; another /64 has buckets of its own."""
    settings = replace(
        _settings(
            tmp_path,
            creates=Rate(NEVER, 2),
            joins=Rate(NEVER, 2),
            lookups=Rate(NEVER, 2),
            signups=Rate(NEVER, 2),
        ),
        behind_proxy=True,
        password_cost=PasswordCost(time_cost=1, memory_kib=1024, parallelism=1),
    )
    walk = iter(f"2001:db8:1:2::{n:x}" for n in range(1, 1000))

    def fresh() -> dict[str, str]:
        return {"x-forwarded-for": next(walk)}

    other = {"x-forwarded-for": "2001:db8:1:3::1"}  # the next /64: somebody else
    body = {"preset": "kivo", "seats": 3, "name": "Ann"}
    with run_server(settings) as server, server.http() as http:
        made = [http.post("/api/tables", json=body, headers=fresh()) for _ in range(3)]
        assert [r.status_code for r in made] == [200, 200, 429]
        assert http.post("/api/tables", json=body, headers=other).status_code == 200
        code = made[0].json()["code"]
        joins = [
            http.post(f"/api/tables/{code}/join", json={"name": n}, headers=fresh()).status_code
            for n in "BC"
        ]
        assert joins == [200, 200]
        r = http.post(
            f"/api/tables/{made[1].json()['code']}/join", json={"name": "D"}, headers=fresh()
        )
        assert r.status_code == 429
        lookups = [http.get("/api/tables/ZZZZZZ", headers=fresh()).status_code for _ in range(3)]
        assert lookups == [404, 404, 429]
        assert http.get("/api/tables/ZZZZZZ", headers=other).status_code == 404
        signups = [
            http.post(
                "/api/account/signup",
                json={"name": f"Walker{n}", "password": "correct horse battery"},
                headers=fresh(),
            ).status_code
            for n in range(3)
        ]
        assert signups == [201, 201, 429]


def test_an_ipv6_subscriber_holds_its_connection_cap_over_its_64() -> None:
    limits = Limits(replace(NO_ADDRESS_LIMITS, connections=2))
    assert limits.connect("2001:db8:1:2::1")
    assert limits.connect("2001:db8:1:2::2")
    assert not limits.connect("2001:db8:1:2::3")
    assert limits.connect("2001:db8:1:3::1")
    limits.disconnect("2001:db8:1:2::2")  # any address of the /64 gives its place back
    assert limits.connect("2001:db8:1:2::9")


def test_token_rotations_are_limited_per_address(tmp_path: Path) -> None:
    """Each rotation is a write to the store: a token holder cannot flood it (valid or not)."""
    settings = replace(_settings(tmp_path, rotations=Rate(NEVER, 3)), behind_proxy=True)
    with run_server(settings) as server, server.http() as http:
        r = http.post("/api/tables", json={"preset": "kivo", "seats": 2, "name": "Ann"})
        token = r.json()["token"]
        for _ in range(2):
            r = http.post("/api/session/rotate", headers={"authorization": f"Bearer {token}"})
            assert r.status_code == 200, r.text
            token = r.json()["token"]
        bad = http.post("/api/session/rotate", headers={"authorization": "Bearer nonsense"})
        assert bad.status_code == 401  # counted all the same
        r = http.post("/api/session/rotate", headers={"authorization": f"Bearer {token}"})
        assert r.status_code == 429
        assert r.json()["detail"]["code"] == "rate_limited"
        elsewhere = {"authorization": f"Bearer {token}", "x-forwarded-for": "10.0.0.9"}
        assert http.post("/api/session/rotate", headers=elsewhere).status_code == 200
