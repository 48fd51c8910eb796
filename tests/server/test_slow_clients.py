"""Half-sent and trickled HTTP requests against a real server: each is closed by its deadline,
a connection past the cap is closed at once, and an honest client gets through all along.

Before the guard, uvicorn kept such connections open for ever (100 were open after 120 s; at the
common 1,024 open-file limit, 1,020 locked every honest client out)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import resource
import time
from pathlib import Path

import httpx
import pytest
from uvicorn.protocols.http.h11_impl import H11Protocol

from facedown.cli import build_parser
from facedown.server.app import create_app
from facedown.server.serving import OncePerInterval, max_connections, uvicorn_config
from facedown.server.settings import ServerSettings
from facedown.store import MemoryStore

from .harness import RunningServer, client, create_table, run_server

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


class Slow:
    """A raw connection that sends ``start`` at once, then one byte of ``drip`` every 0.2 s,
    and records when the server closed it and what it answered."""

    def __init__(self, server: RunningServer, start: bytes, drip: bytes = b"") -> None:
        self.address = server.url.removeprefix("http://").split(":")
        self.start = start
        self.drip = drip
        self.answer = b""
        self.closed_after: float | None = None

    async def run(self) -> None:
        began = time.monotonic()
        reader, writer = await asyncio.open_connection(self.address[0], int(self.address[1]))
        dripping = asyncio.create_task(self._drip(writer))
        try:
            writer.write(self.start)
            while chunk := await asyncio.wait_for(reader.read(65536), TIMEOUT + SLACK + 5):
                self.answer += chunk
            self.closed_after = time.monotonic() - began
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
    with run_server(settings(tmp_path), MemoryStore()) as server:
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
            assert s.closed_after is not None
            assert s.closed_after < TIMEOUT / 2
            assert s.answer.startswith(b"HTTP/1.1 503 ")
        await asyncio.gather(*running)  # the idle ones reach their deadline ...
        await honest(server)  # ... and the server is free again


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
