"""Three ``facedown serve`` processes on PostgreSQL and Redis behind nginx, for real.

Players of one table sit on different processes; the table's owner is killed with SIGKILL in
the middle of a turn and with an action in flight, or stalled with SIGSTOP until another process
took its table over: the match goes on elsewhere, every client sees the same events in the same
order with none missing, and the log holds every acknowledged action exactly once.  A stalled
owner that wakes up cannot write.  The players here reconnect as the web client does: to the
next process, with the last seq they saw, resending an unanswered action with its id.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import random
import signal
import threading
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed

from tests.store.conftest import postgres_database

from ..cluster_harness import HOST, Cluster, own_redis, running_cluster, server_logs
from ..cluster_players import Player, check_log, pick, play
from ..harness import Client

SHARED_REDIS = "redis://127.0.0.1:6379/0"


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
async def database(anyio_backend: str) -> AsyncIterator[str]:
    async with postgres_database() as url:
        yield url


async def seat_players(
    cluster: Cluster, seats: int, **options: Any
) -> tuple[str, str, list[Player]]:
    """A table made through nginx; its players each on another process (seat i on process
    i, i+1, ...), started.  Returns its code, id and players."""
    created = cluster.create(
        preset="cabo", seats=seats, name="Ann", turn_seconds=3600, peek_seconds=600, **options
    )
    code = created["code"]
    urls = [p.ws_url for p in cluster.processes]
    tokens = [created["token"]]
    for i in range(1, seats):  # joined on process i (an HTTP call to the owner if elsewhere)
        tokens.append(cluster.join(code, f"P{i}", cluster.processes[i % len(urls)].url))
    players = [Player(cluster, code, t, urls, i) for i, t in enumerate(tokens)]
    for p in players:
        await p.open()
    await players[0].c.send({"type": "start"})
    for p in players:
        await p.until_seq(1)
    return code, await cluster.table_id(code), players


async def get_json(url: str) -> Any:
    async with httpx.AsyncClient(timeout=10) as http:
        return (await http.get(url)).json()


async def metric(url: str, name: str) -> float:
    async with httpx.AsyncClient(timeout=10) as http:
        text = (await http.get(f"{url}/metrics")).text
    for line in text.splitlines():
        if line.startswith(name + " ") or line.startswith(name + "{"):
            return float(line.rsplit(" ", 1)[1])
    return 0.0


# ---------------------------------------------------------------- the tests


@pytest.mark.anyio
async def test_players_on_three_processes_play_a_match_through_nginx(
    database: str, tmp_path: Path
) -> None:
    with running_cluster(database, SHARED_REDIS, tmp_path) as cluster:
        try:
            code, table_id, players = await seat_players(cluster, 3)
            # A spectator through nginx too (wss, the guide's site file, three upstreams).
            async with connect(
                cluster.ws_url, ssl=cluster.tls, server_hostname=HOST, max_size=2**22
            ) as ws:
                watcher = Client(ws)
                await watcher.hello(code, spectate=True)
                rng = random.Random(7)
                while await play(players, rng, 50) == 50:
                    pass
                await watcher.until_seq(max(p.c.seq for p in players))
                assert watcher.view["phase"] in ("match_over", "round_over")
            await check_log(cluster, table_id, players)
            owner = await cluster.owner(table_id)
            # The other processes relayed their players to the owner: nobody reconnected.
            assert {p.at % 3 for p in players} == {0, 1, 2}
            assert owner in cluster.processes
            assert sum(p.reconnections for p in players) == 0
            # The relay's hop, seen where the frames arrived: the players' at the owner, the
            # owner's at each other process (each holds a relayed player).
            assert await metric(owner.url, 'facedown_relay_hop_seconds_count{to="owner"}') > 0
            for p in cluster.processes:
                if p is not owner:
                    hops = await metric(p.url, 'facedown_relay_hop_seconds_count{to="client"}')
                    assert hops > 0
            for p in cluster.processes:  # each is ready, Redis and PostgreSQL both reachable
                ready = await get_json(f"{p.url}/api/ready")
                assert ready == {"ready": True, "checks": {"store": "ok", "redis": "ok"}}
        except BaseException:
            print(server_logs(cluster))
            raise


@pytest.mark.anyio
@pytest.mark.parametrize("moment", ["mid_turn", "mid_burst"])
async def test_kill_9_of_the_owner_the_match_goes_on_elsewhere(
    database: str, tmp_path: Path, moment: str
) -> None:
    """SIGKILL of the table's owner between the draw and the discard of a turn (mid_turn), or
    right after an action was sent, before its answer (mid_burst): another process takes the
    table over from the log; nothing acknowledged is lost, nothing is applied twice."""
    with running_cluster(database, SHARED_REDIS, tmp_path) as cluster:
        try:
            _, table_id, players = await seat_players(cluster, 3)
            rng = random.Random(11)
            killed: list[int] = []
            old_node = (await cluster.lease(table_id))[0]

            async def kill(n: int, player: Player, action: dict[str, Any], action_id: str) -> bool:
                if killed or n < 6:
                    return False
                in_turn = player.c.view.get("phase") in ("holding", "taken", "powers", "turn_end")
                if moment == "mid_turn" and not in_turn:
                    return False
                owner = await cluster.owner(table_id)
                if moment == "mid_burst":
                    await player.c.send(
                        {"type": "action", "id": action_id, "seq": player.c.seq, "action": action}
                    )
                owner.kill(signal.SIGKILL)
                killed.append(owner.index)
                # The unanswered action is sent again, with its id, to whoever holds it now.
                answer = await player.act(action, action_id)
                assert answer["type"] in ("event", "ack"), answer  # applied now or before
                return True

            while await play(players, rng, 40, kill) == 40 and not killed:
                pass
            assert killed, "the match ended before the owner could be killed"
            new_node, fence = await cluster.lease(table_id)
            assert new_node != old_node
            assert fence >= 2
            await play(players, rng, 20)
            await check_log(cluster, table_id, players)
            assert sum(p.reconnections for p in players) >= 1  # the dead owner's players did
            new_owner = await cluster.owner(table_id)
            assert await metric(new_owner.url, "facedown_lease_takeovers_total") >= 1
        except BaseException:
            print(server_logs(cluster))
            raise


@pytest.mark.anyio
async def test_a_stalled_owner_cannot_write_after_its_lease_was_taken_over(
    database: str, tmp_path: Path
) -> None:
    """SIGSTOP of the owner with an action waiting in its socket; another process takes the
    table over; SIGCONT: the old owner's write of that action is refused (the log never holds
    it from there), its client is told to reconnect, and the action, sent again with its id to
    the new owner, is applied once."""
    with running_cluster(database, SHARED_REDIS, tmp_path, size=2, nginx=False) as cluster:
        try:
            with cluster.http(cluster.processes[0].url) as http:
                r = http.post(
                    "/api/tables",
                    json={"preset": "cabo", "seats": 2, "turn_seconds": 3600, "peek_seconds": 600},
                )
                assert r.status_code == 200, r.text
                created = r.json()
            code = created["code"]
            table_id = await cluster.table_id(code)
            stalled = await cluster.owner(table_id)
            other = next(p for p in cluster.processes if p is not stalled)
            token = cluster.join(code, "Bob", other.url)
            urls = [stalled.ws_url, other.ws_url]
            host = Player(cluster, code, created["token"], urls, 0)  # on the owner
            guest = Player(cluster, code, token, urls, 1)  # relayed from the other
            for p in (host, guest):
                await p.open()
            await host.c.send({"type": "start"})
            for p in (host, guest):
                await p.until_seq(1)
            chosen = pick([host], random.Random(3))
            assert chosen is not None
            _, action = chosen
            old_node, old_fence = await cluster.lease(table_id)
            stalled.kill(signal.SIGSTOP)
            action_id = "stalled-1"
            await host.c.send(
                {"type": "action", "id": action_id, "seq": host.c.seq, "action": action}
            )
            new_node = await cluster.until_owner_changes(table_id, old_node)
            assert (await cluster.lease(table_id))[1] == old_fence + 1
            stalled.kill(signal.SIGCONT)
            # The old owner reads the action now: its fenced write is refused.
            closed_by = None
            with contextlib.suppress(ConnectionClosed):
                while True:
                    msg = await host.c.recv()
                    assert not (msg["type"] == "ack" and msg.get("id") == action_id), msg
                    assert msg.get("ack") != action_id, msg
            closed_by = host.c.ws.close_code
            assert closed_by == 1012  # "service restart": reconnect
            assert all(p.get("id") != action_id for _, _, p in await cluster.log(table_id))
            answer = await host.act(action, action_id)  # sent again, to the new owner
            assert answer["type"] in ("event", "ack"), answer
            assert (await cluster.lease(table_id))[0] == new_node
            await play([host, guest], random.Random(5), 10)
            await check_log(cluster, table_id, [host, guest])
            assert stalled.proc is not None
            assert stalled.proc.poll() is None  # alive, serving what it owns (nothing)
            health = await get_json(f"{stalled.url}/api/health")
            assert health["tables"] == 0
        except BaseException:
            print(server_logs(cluster))
            raise


async def until_ready(url: str, ready: bool, within: float = 60.0) -> dict[str, Any]:
    """Poll /api/ready (bounded) until it says ``ready``; its last answer."""
    deadline = time.monotonic() + within
    while True:
        with contextlib.suppress(httpx.HTTPError):
            answer: dict[str, Any] = await get_json(f"{url}/api/ready")
            if answer["ready"] is ready:
                return answer
        if time.monotonic() > deadline:
            raise AssertionError(f"{url} never became ready={ready}")
        await asyncio.sleep(0.1)


async def two_on_two(cluster: Cluster) -> tuple[str, Player, Player]:
    """A table made on process 0 (its owner), the host on it, the guest relayed from 1."""
    with cluster.http(cluster.processes[0].url) as http:
        body = {"preset": "cabo", "seats": 2, "turn_seconds": 3600, "peek_seconds": 600}
        r = http.post("/api/tables", json=body)
        assert r.status_code == 200, r.text
        created = r.json()
    code = created["code"]
    token = cluster.join(code, "Bob", cluster.processes[1].url)
    urls = [p.ws_url for p in cluster.processes]
    host = Player(cluster, code, created["token"], urls, 0)
    guest = Player(cluster, code, token, urls, 1)
    for p in (host, guest):
        await p.open()
    await host.c.send({"type": "start"})
    for p in (host, guest):
        await p.until_seq(1)
    return await cluster.table_id(code), host, guest


async def refused_hello(url: str, code: str) -> dict[str, Any]:
    """A spectator's hello at ``url``: the first frame that answers it."""
    async with connect(url, max_size=2**22, open_timeout=10) as ws:
        await ws.send(json.dumps({"type": "hello", "table": code, "spectate": True}))
        first: dict[str, Any] = json.loads(await asyncio.wait_for(ws.recv(), 20))
        return first


@pytest.mark.anyio
async def test_a_redis_restart_closes_relayed_clients_clearly_and_the_cluster_recovers(
    database: str, tmp_path: Path
) -> None:
    """Redis (a server of this test's own) stops in the middle of a match: the owner goes on
    serving its own clients, another process refuses a relayed hello with
    cluster_unavailable and is not ready; nobody takes the table over (its lease is in
    PostgreSQL and still renewed: no split brain).  Redis back, the relayed guest plays on."""
    with (
        own_redis(tmp_path / "redis") as redis,
        running_cluster(database, redis.url, tmp_path, size=2, nginx=False) as cluster,
    ):
        try:
            table_id, host, guest = await two_on_two(cluster)
            rng = random.Random(21)
            await play([host, guest], rng, 6)
            before = await cluster.lease(table_id)
            redis.stop()
            other = cluster.processes[1]
            down = await until_ready(other.url, False)
            assert down["checks"]["store"] == "ok"
            assert down["checks"]["redis"] != "ok"
            answer = await refused_hello(other.ws_url, host.code)
            assert answer["type"] == "error"
            assert answer["code"] == "cluster_unavailable"
            await play([host, guest], rng, 6)  # the guest came back on the owner itself
            redis.start()
            for p in cluster.processes:
                await until_ready(p.url, True)
            guest.at = 0
            await guest.reopen()  # on process 1 again: relayed through the new Redis
            await play([host, guest], rng, 10)
            assert await cluster.lease(table_id) == before  # never taken over
            await check_log(cluster, table_id, [host, guest])
        except BaseException:
            print(server_logs(cluster))
            raise


class Proxy:
    """A TCP proxy to PostgreSQL in a thread of its own: ``cut()`` closes every connection
    through it and refuses new ones (a lost network), ``restore()`` lets them through again."""

    def __init__(self, port: int = 5432) -> None:
        self.target = port
        self.cut_off = False
        self.port = 0
        self._open: set[asyncio.StreamWriter] = set()
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, daemon=True)
        self._server: asyncio.Server | None = None

    def start(self) -> None:
        self._thread.start()
        self._server = asyncio.run_coroutine_threadsafe(
            asyncio.start_server(self._serve, "127.0.0.1", 0), self._loop
        ).result(10)
        self.port = self._server.sockets[0].getsockname()[1]

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        if self.cut_off:
            writer.close()
            return
        up_reader, up_writer = await asyncio.open_connection("127.0.0.1", self.target)
        self._open |= {writer, up_writer}

        async def pipe(src: asyncio.StreamReader, dst: asyncio.StreamWriter) -> None:
            with contextlib.suppress(OSError, ConnectionError):
                while data := await src.read(65536):
                    dst.write(data)
                    await dst.drain()
            dst.close()

        await asyncio.gather(pipe(reader, up_writer), pipe(up_reader, writer))
        self._open -= {writer, up_writer}

    def cut(self) -> None:
        def close_all() -> None:
            self.cut_off = True
            for writer in list(self._open):
                writer.transport.abort()

        self._loop.call_soon_threadsafe(close_all)

    def restore(self) -> None:
        self._loop.call_soon_threadsafe(setattr, self, "cut_off", False)

    def stop(self) -> None:
        self.cut()
        if self._server is not None:
            self._loop.call_soon_threadsafe(self._server.close)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(10)
        self._loop.close()


@pytest.mark.anyio
async def test_an_owner_that_loses_postgresql_lets_its_table_go_and_never_writes_again(
    database: str, tmp_path: Path
) -> None:
    """The owner reaches PostgreSQL through a proxy that is cut in the middle of a match: it
    answers store_unavailable, is not ready, and once its lease ran out stops serving the
    table; the other process takes it over and the match goes on there.  The proxy restored,
    the old owner is ready again and relays its clients to the new one: one writer throughout
    (each acknowledged action once in the log, the seqs without a gap)."""
    proxy = Proxy()
    proxy.start()
    try:
        through = database.replace("127.0.0.1:5432", f"127.0.0.1:{proxy.port}")
        assert through != database
        with running_cluster(
            database, SHARED_REDIS, tmp_path, size=2, nginx=False, database_urls=[through, database]
        ) as cluster:
            try:
                table_id, host, guest = await two_on_two(cluster)
                rng = random.Random(31)
                await play([host, guest], rng, 6)
                old_node, old_fence = await cluster.lease(table_id)
                cut = cluster.processes[0]
                assert (await cluster.owner(table_id)) is cut
                proxy.cut()
                down = await until_ready(cut.url, False)
                assert down["checks"]["store"] != "ok"
                assert down["checks"]["redis"] == "ok"
                new_node = await cluster.until_owner_changes(table_id, old_node)
                assert (await cluster.lease(table_id))[1] == old_fence + 1
                await play([host, guest], rng, 8)  # both on the new owner or relayed to it
                proxy.restore()
                await until_ready(cut.url, True)
                host.at = guest.at = -1
                await host.reopen()  # back on the old owner, relayed to the new one
                await guest.reopen()
                await play([host, guest], rng, 8)
                assert (await cluster.lease(table_id))[0] == new_node
                await check_log(cluster, table_id, [host, guest])
            except BaseException:
                print(server_logs(cluster))
                raise
    finally:
        proxy.stop()


@pytest.mark.anyio
async def test_sigterm_of_the_owner_hands_its_table_over_at_once(
    database: str, tmp_path: Path
) -> None:
    """A graceful stop releases the process's leases: another process takes the table over
    without waiting for the lease to run out, and the match goes on there."""
    with running_cluster(database, SHARED_REDIS, tmp_path, extra=["--lease-seconds", "60"]) as c:
        try:
            _, table_id, players = await seat_players(c, 3)
            rng = random.Random(41)
            await play(players, rng, 6)
            old_node, old_fence = await c.lease(table_id)
            owner = await c.owner(table_id)
            owner.kill(signal.SIGTERM)
            assert owner.proc is not None
            owner.proc.wait(60)
            # With 60 s leases, only the release lets another process in this soon.
            new_node = await c.until_owner_changes(table_id, old_node, within=30)
            assert new_node != old_node
            assert (await c.lease(table_id))[1] == old_fence + 1
            await play(players, rng, 10)
            await check_log(c, table_id, players)
        except BaseException:
            print(server_logs(c))
            raise


@pytest.mark.anyio
async def test_timers_and_bots_go_on_in_the_new_owner_with_nobody_connected(
    database: str, tmp_path: Path
) -> None:
    """A table nobody is connected to: its timers and its bot run in its owner only; killed,
    they go on in the process that takes the table over (found by its scan, no hello)."""
    with running_cluster(
        database, SHARED_REDIS, tmp_path, size=2, nginx=False, extra=["--bot-delay", "0.05"]
    ) as cluster:
        try:
            with cluster.http(cluster.processes[0].url) as http:
                body = {"preset": "cabo", "seats": 2, "bots": ["easy"], "peek_seconds": 3}
                r = http.post("/api/tables", json={**body, "turn_seconds": 5})
                assert r.status_code == 200, r.text
                created = r.json()
            table_id = await cluster.table_id(created["code"])
            owner = await cluster.owner(table_id)
            async with connect(owner.ws_url) as ws:  # the host starts the match and leaves
                host = Client(ws)
                await host.hello(created["code"], created["token"])
                await host.send({"type": "start"})
                await host.until("event")
            deadline = time.monotonic() + 90
            while len(await cluster.log(table_id)) < 4:  # the peek timers and a move or two
                assert time.monotonic() < deadline, "nothing moved at the table"
                await asyncio.sleep(0.2)
            node, _ = await cluster.lease(table_id)
            owner.kill(signal.SIGKILL)
            before = len(await cluster.log(table_id))
            await cluster.until_owner_changes(table_id, node)
            later: list[tuple[int, str, dict[str, Any]]] = []
            # Until the host's turn timer ran out in the new owner (the bot plays meanwhile).
            while not any(p.get("timed_out") for _, _, p in later):
                assert time.monotonic() < deadline + 90, "the new owner's timers never ran"
                await asyncio.sleep(0.2)
                later = (await cluster.log(table_id))[before:]
            assert all(p.get("auto") for _, kind, p in later if kind == "action")
        except BaseException:
            print(server_logs(cluster))
            raise
