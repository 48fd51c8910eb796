"""Half-sent and trickled HTTP requests against a real server: each is closed by its deadline,
a connection past the cap is closed at once, and an honest client gets through all along.

Before the guard, uvicorn kept such connections open for ever (100 were open after 120 s; at the
common 1,024 open-file limit, 1,020 locked every honest client out)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import resource
import socket
import time
from pathlib import Path

import httpx
import pytest
from uvicorn.protocols.http.h11_impl import H11Protocol

from facedown.cli import build_parser
from facedown.server.app import create_app
from facedown.server.base.addresses import ClientLimits
from facedown.server.base.addresses import network_of as peer_key
from facedown.server.edge.serving import (
    OncePerInterval,
    PeerConnections,
    max_connections,
    uvicorn_config,
)
from facedown.server.edge.settings import ServerSettings
from facedown.store import MemoryStore

from ..harness import RunningServer, client, create_table, on_loop, run_server

TIMEOUT = 1.0  # the request deadline these servers run with
SLACK = 3.0  # seconds past it a slow connection may take to be closed (2 cores, shared)


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def settings(tmp_path: Path, **extra: object) -> ServerSettings:
    return ServerSettings(
        data_dir=tmp_path,
        secret="slow",
        request_timeout=TIMEOUT,
        **extra,  # type: ignore[arg-type]
    )


def per_address(tmp_path: Path, cap: int) -> ServerSettings:
    """The settings with at most ``cap`` open connections per client address."""
    return settings(tmp_path, clients=ClientLimits(open_connections=cap))


class Slow:
    """A raw connection that sends ``start`` at once, then one byte of ``drip`` every 0.2 s,
    and records when the server closed it and what it answered."""

    def __init__(
        self, server: RunningServer, start: bytes, drip: bytes = b"", source: str = "127.0.0.1"
    ) -> None:
        self.address = server.url.removeprefix("http://").split(":")
        self.source = source  # the client's own address (loopback has all of 127.0.0.0/8)
        self.start = start
        self.drip = drip
        self.answer = b""
        self.closed_after: float | None = None
        self.closed_at: float | None = None  # monotonic

    async def run(self) -> None:
        began = time.monotonic()
        reader, writer = await asyncio.open_connection(
            self.address[0], int(self.address[1]), local_addr=(self.source, 0)
        )
        dripping = asyncio.create_task(self._drip(writer))
        try:
            writer.write(self.start)
            while chunk := await asyncio.wait_for(reader.read(65536), TIMEOUT + SLACK + 5):
                self.answer += chunk
            self.closed_at = time.monotonic()
            self.closed_after = self.closed_at - began
        finally:
            dripping.cancel()
            writer.close()
            with contextlib.suppress(Exception):
                await writer.wait_closed()

    async def _drip(self, writer: asyncio.StreamWriter) -> None:
        with contextlib.suppress(Exception):
            for i in range(len(self.drip)):
                await asyncio.sleep(0.2)
                writer.write(self.drip[i : i + 1])
                await writer.drain()


HEADERS = b"GET /api/health HTTP/1.1\r\nHost: x\r\n"
BODY = b"POST /api/tables HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
WHOLE = HEADERS + b"\r\n"


async def honest(server: RunningServer) -> None:
    async with httpx.AsyncClient(base_url=server.url, timeout=5) as http:
        r = await http.get("/api/health")
        assert r.status_code == 200
        assert r.json()["ok"] is True


@pytest.mark.anyio
async def test_half_sent_requests_are_closed_and_honest_clients_get_through(
    tmp_path: Path,
) -> None:
    # The 40 slow connections come from one address: let it hold them all (the cap per address
    # is the next test's).
    with run_server(
        settings(tmp_path, clients=ClientLimits(open_connections=64)), MemoryStore()
    ) as server:
        code, tokens = create_table(server, "kivo", 2)
        slow = (
            [Slow(server, b"") for _ in range(10)]  # connects, sends nothing
            + [Slow(server, HEADERS, b"X-Slow: 1\r\n" * 20) for _ in range(10)]  # headers drip
            + [Slow(server, BODY + b"Content-Length: 500\r\n\r\n{", b" " * 100) for _ in range(10)]
            # A whole request answered, then the next one half sent on the kept-alive connection.
            + [Slow(server, WHOLE + HEADERS, b"X-Slow: 1\r\n" * 20) for _ in range(10)]
        )
        async with client(server) as player:
            await player.hello(code, tokens[0])  # a WebSocket is not a slow request
            running = [asyncio.create_task(s.run()) for s in slow]
            await asyncio.sleep(TIMEOUT / 2)
            await honest(server)  # while all of them are open
            await asyncio.gather(*running)
            await asyncio.sleep(TIMEOUT)
            await player.pong()  # still there, long past the request deadline
        for s in slow:
            assert s.closed_after is not None
            assert s.closed_after < TIMEOUT + SLACK, s.closed_after
            assert s.closed_after > TIMEOUT * 0.9, "closed before its deadline"
        for s in slow:  # each one is told why
            assert b"HTTP/1.1 408 Request Timeout\r\n" in s.answer, s.answer[:200]
        for s in slow[30:]:
            assert s.answer.startswith(b"HTTP/1.1 200 ")  # the first request was answered
        await honest(server)


@pytest.mark.anyio
async def test_connections_past_the_cap_are_closed_at_once(tmp_path: Path) -> None:
    with run_server(settings(tmp_path, max_connections=8), MemoryStore()) as server:
        idle = [Slow(server, b"") for _ in range(8)]
        running = [asyncio.create_task(s.run()) for s in idle]
        await asyncio.sleep(0.3)
        extra = [Slow(server, b"") for _ in range(8)]
        await asyncio.gather(*(s.run() for s in extra))
        for s in extra:
            assert s.answer.startswith(b"HTTP/1.1 503 ")
        await asyncio.gather(*running)  # the idle ones reach their deadline ...
        # ... after every connection past the cap was closed: those were not kept to a deadline
        # of their own (an order, not a time, so a loaded machine cannot fail it).
        assert all(s.closed_at is not None for s in idle + extra)
        assert max(s.closed_at or 0.0 for s in extra) < min(s.closed_at or 0.0 for s in idle)
        assert all(s.answer.startswith(b"HTTP/1.1 408 ") for s in idle)
        await honest(server)  # ... and the server is free again


ATTACKER = "127.0.0.2"  # one address of the loopback network; honest clients use others


async def honest_from(server: RunningServer, source: str) -> int:
    """A whole GET from ``source``; its status (0: the connection was closed, or reset, with
    no answer read: a refusal that closes at once can reset a request sent meanwhile)."""
    host, port = server.url.removeprefix("http://").split(":")
    reader, writer = await asyncio.open_connection(host, int(port), local_addr=(source, 0))
    answer = b""
    try:
        writer.write(WHOLE.replace(b"\r\n\r\n", b"\r\nConnection: close\r\n\r\n"))
        with contextlib.suppress(ConnectionResetError):
            answer = await asyncio.wait_for(reader.read(), 10)
    finally:
        writer.close()
        with contextlib.suppress(Exception):
            await writer.wait_closed()
    return int(answer.split(b" ", 2)[1]) if answer.startswith(b"HTTP/1.1 ") else 0


async def held_from(server: RunningServer, source: str) -> int:
    """HTTP connections from ``source`` the server holds open now: uvicorn's own set of them,
    read on the server's loop between two of its callbacks (a refused one is already closing)."""

    async def count() -> int:
        held = 0
        for c in server.server.server_state.connections:
            peer = getattr(c, "client", None)
            if peer and peer[0] == source and not getattr(c, "transport").is_closing():  # noqa: B009
                held += 1
        return held

    return await on_loop(server, count())


@pytest.mark.anyio
async def test_one_address_holds_its_share_of_connections_and_the_others_are_served(
    tmp_path: Path,
) -> None:
    """An attacker re-opens 100 slow sockets from one address as they are closed, for several
    request deadlines: it never holds more than its cap, and every honest client from other
    addresses is served all along."""
    cap = 8
    with run_server(
        settings(tmp_path, clients=ClientLimits(open_connections=cap)), MemoryStore()
    ) as server:
        stop = asyncio.Event()
        refused = [0]
        held = [0]

        async def attacker() -> None:
            while not stop.is_set():
                s = Slow(server, HEADERS, b"X-Slow: 1\r\n" * 50, source=ATTACKER)
                with contextlib.suppress(OSError, TimeoutError):
                    await s.run()
                if not s.answer.startswith(b"HTTP/1.1 408 "):
                    refused[0] += 1  # closed at once (a 503, or reset), not held to its deadline
                held[0] = max(held[0], await held_from(server, ATTACKER))

        attack = [asyncio.create_task(attacker()) for _ in range(100)]
        served = []
        try:
            for i in range(30):  # about three request deadlines
                await asyncio.sleep(0.1)
                held[0] = max(held[0], await held_from(server, ATTACKER))
                served.append(await honest_from(server, f"127.0.1.{i % 3 + 1}"))
        finally:
            stop.set()
            await asyncio.gather(*attack)
        assert served == [200] * 30
        assert 0 < held[0] <= cap, held[0]
        assert refused[0] >= 100 - cap  # every socket past the cap was closed at once
        # The attacker's own address is served again once its sockets are gone.
        assert await honest_from(server, ATTACKER) == 200


UPGRADE = (
    b"GET /ws HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
    b"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"
)


@pytest.mark.anyio
async def test_websockets_count_toward_an_address_cap_until_they_close(tmp_path: Path) -> None:
    cap = 4
    with run_server(
        settings(tmp_path, clients=ClientLimits(open_connections=cap)), MemoryStore()
    ) as server:
        host, port = server.url.removeprefix("http://").split(":")
        sockets = []
        for _ in range(cap):
            reader, writer = await asyncio.open_connection(
                host, int(port), local_addr=(ATTACKER, 0)
            )
            writer.write(UPGRADE)
            assert (await reader.readuntil(b"\r\n\r\n")).startswith(b"HTTP/1.1 101 ")
            sockets.append(writer)
        await asyncio.sleep(TIMEOUT * 1.5)  # past the request deadline: upgraded, still open
        assert await held_from(server, ATTACKER) == cap  # the WebSockets
        assert await honest_from(server, ATTACKER) in (0, 503)  # one more from their address
        assert await honest_from(server, "127.0.0.1") == 200
        sockets.pop().close()
        for _ in range(100):
            await asyncio.sleep(0.05)
            if await honest_from(server, ATTACKER) == 200:
                break
        else:
            raise AssertionError("a closed WebSocket did not give its place back")
        for writer in sockets:
            writer.close()


def test_a_flood_of_one_kind_is_logged_once_per_interval() -> None:
    now = [0.0]
    flood = OncePerInterval(60.0, clock=lambda: now[0])

    def record(msg: str) -> logging.LogRecord:
        return logging.LogRecord("asyncio", logging.ERROR, __file__, 1, msg, None, None)

    passed = []
    for i in range(10_000):
        now[0] = i * 0.001
        r = record(f"socket.accept() out of system resource\nsocket: <fd={i}>")
        if flood.filter(r):
            passed.append(r.getMessage())
    assert len(passed) == 1
    assert flood.filter(record("another kind")), "each kind has its own interval"
    now[0] = 61.0
    r = record("socket.accept() out of system resource\nsocket: <fd=3>")
    assert flood.filter(r)
    assert r.getMessage().endswith("(9999 more like this not logged)")


def test_facedown_serve_runs_with_the_limits(tmp_path: Path) -> None:
    args = build_parser().parse_args(["serve", "--request-timeout", "4", "--max-connections", "50"])
    assert (args.request_timeout, args.max_connections) == (4.0, 50)
    custom = settings(tmp_path, max_connections=50, keep_alive_timeout=3, max_header_bytes=4096)
    config = uvicorn_config(create_app(custom), custom)
    assert config.limit_concurrency == 51
    assert config.timeout_keep_alive == 3
    assert config.h11_max_incomplete_event_size == 4096
    assert issubclass(config.http, H11Protocol)  # type: ignore[arg-type]
    # By default the cap stays under the open-file limit.
    soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
    assert max_connections(ServerSettings()) <= min(1000, soft)


class FakeTransport:
    """Just what :class:`PeerConnections` reads of a transport: its peer."""

    def __init__(self, host: str) -> None:
        self.host = host

    def get_extra_info(self, name: str) -> object:
        return (self.host, 40000) if name == "peername" else None


def test_an_ipv6_peer_is_counted_by_its_64_and_a_proxy_not_at_all() -> None:
    peers = PeerConnections(2, exempt=lambda host: host == "10.0.0.1")
    one = [FakeTransport(f"2001:db8:1:2::{i:x}") for i in range(1, 4)]  # one /64
    assert [peers.admit(t) for t in one] == [True, True, False]  # type: ignore[arg-type]
    assert peers.admit(FakeTransport("2001:db8:1:3::1"))  # type: ignore[arg-type]
    mapped = [FakeTransport("::ffff:192.0.2.7"), FakeTransport("192.0.2.7")]
    assert [peers.admit(t) for t in mapped] == [True, True]  # type: ignore[arg-type]
    assert not peers.admit(FakeTransport("192.0.2.7"))  # type: ignore[arg-type]
    assert all(peers.admit(FakeTransport("10.0.0.1")) for _ in range(10))  # type: ignore[arg-type]
    peers.release(one[0])  # type: ignore[arg-type]
    peers.release(one[0])  # type: ignore[arg-type]  # twice: still one place back, not two
    assert peers.admit(one[2])  # type: ignore[arg-type]
    assert not peers.admit(FakeTransport("2001:db8:1:2::99"))  # type: ignore[arg-type]
    assert peer_key("2001:db8:1:2:aaaa::1") == "2001:db8:1:2::/64"


def _raw_request(server: RunningServer, head: bytes) -> bytes:
    """Send a request's line and headers as they are, in one write; its answer's first line."""
    port = int(server.url.rsplit(":", 1)[1])
    with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
        sock.sendall(head)
        answer = b""
        with contextlib.suppress(OSError):
            while b"\r\n" not in answer:
                chunk = sock.recv(4096)
                if not chunk:
                    break
                answer += chunk
    return answer.split(b"\r\n", 1)[0]


def test_headers_over_the_limit_are_refused_when_they_arrive_whole(tmp_path: Path) -> None:
    """max_header_bytes holds for headers that arrive in one write too, past the HTTP parser's
    own limit (which counts only what is still incomplete)."""

    def head(size: int) -> bytes:
        filler = b"X-Filler: " + b"a" * size + b"\r\n"
        return b"GET /api/health HTTP/1.1\r\nHost: x\r\n" + filler + b"\r\n"

    with run_server(settings(tmp_path)) as server:
        assert _raw_request(server, head(8_000)).startswith(b"HTTP/1.1 200")
        for size in (20_000, 60_000):
            assert _raw_request(server, head(size)).startswith(b"HTTP/1.1 431"), size
        with server.http() as http:
            big = {"x-filler": "a" * 20_000}
            r = http.get("/api/health", headers=big)
            assert r.status_code == 431
            assert r.json()["detail"]["code"] == "too_large"
            assert http.get("/api/health").status_code == 200  # the server serves on


@pytest.mark.anyio
async def test_a_websocket_upgrade_with_a_header_line_too_long_is_answered_at_once(
    tmp_path: Path,
) -> None:
    """A header line over the WebSocket layer's 8 KiB (the whole head within max_header_bytes)
    gets its 431 and the connection closed, not an open socket until the client gives up; the
    refused connections give their places back."""
    cap = 3
    with run_server(per_address(tmp_path, cap), MemoryStore()) as server:
        host, port = server.url.removeprefix("http://").split(":")
        for size in [9_000, 12_000] * cap:
            reader, writer = await asyncio.open_connection(
                host, int(port), local_addr=(ATTACKER, 0)
            )
            writer.write(UPGRADE[:-2] + b"X-Big: " + b"a" * size + b"\r\n\r\n")
            async with asyncio.timeout(5):
                answer = await reader.read()  # all of it: the server closes the connection
            assert answer.startswith(b"HTTP/1.1 431 "), answer[:80]
            writer.close()
        # Every refused connection was let go: the address has its places for a real one.
        assert await honest_from(server, ATTACKER) == 200
