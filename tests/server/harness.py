"""A real server on a loopback port, and scripted WebSocket clients that play through it."""

from __future__ import annotations

import asyncio
import contextlib
import json
import random
import socket
import subprocess
import threading
import time
import uuid
from collections.abc import AsyncIterator, Callable, Coroutine, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

import httpx
import uvicorn
from fastapi import FastAPI
from websockets.asyncio.client import ClientConnection, connect
from websockets.client import ClientProtocol
from websockets.exceptions import ConnectionClosed
from websockets.frames import Frame, Opcode
from websockets.http11 import Response
from websockets.uri import parse_uri

from facedown.engine import Action
from facedown.server.app import create_app
from facedown.server.base.addresses import ClientLimits, Rate
from facedown.server.base.clock import Clock, FakeClock
from facedown.server.edge.serving import uvicorn_config
from facedown.server.edge.settings import ServerSettings
from facedown.store import Store

T = TypeVar("T")

# Every test client comes from 127.0.0.1: tests that play many games at once lift the
# per-address limits (tests/server/edge/test_limits.py tests them).
UNLIMITED = Rate(1e6, 1e6)
NO_ADDRESS_LIMITS = ClientLimits(
    creates=UNLIMITED,
    joins=UNLIMITED,
    lookups=UNLIMITED,
    frames=UNLIMITED,
    connections=10**6,
    open_connections=10**6,
    spectators=10**6,
)


def free_port() -> int:
    return free_ports(1)[0]


def free_ports(n: int) -> list[int]:
    """``n`` ports free now, all different (their sockets are held open together while they
    are picked: ports picked one by one may repeat, and two servers given one port clash)."""
    with contextlib.ExitStack() as stack:
        sockets = [stack.enter_context(socket.socket()) for _ in range(n)]
        for s in sockets:
            s.bind(("127.0.0.1", 0))
        return [int(s.getsockname()[1]) for s in sockets]


START_WITHIN = 90.0  # seconds a process may take to start on a loaded machine (a bound only)


def wait_http(url: str, proc: subprocess.Popen[bytes] | None, log: Path, **options: Any) -> None:
    """Until ``url`` answers at all (any status): the process behind it has started.  Fails
    with ``log`` (its end, on a timeout) when ``proc`` exits first or nothing answers in time."""
    deadline = time.monotonic() + START_WITHIN
    while time.monotonic() < deadline:
        if proc is not None and proc.poll() is not None:
            raise AssertionError(f"{proc.args!r} exited: {log.read_text(errors='replace')}")
        try:
            httpx.get(url, timeout=2, **options)
            return
        except httpx.HTTPError:
            time.sleep(0.1)
    raise AssertionError(f"{url} never answered: {log.read_text(errors='replace')[-3000:]}")


@dataclass
class RunningServer:
    url: str
    ws_url: str
    server: uvicorn.Server

    def http(self) -> httpx.Client:
        return httpx.Client(base_url=self.url, timeout=10)


@contextlib.contextmanager
def run_server(
    settings: ServerSettings, store: Store | None = None, clock: Clock | None = None
) -> Iterator[RunningServer]:
    """Serve the app in a thread (its own event loop) on a free port, until the block ends.
    With ``clock`` (a FakeClock) the tables run on it: :func:`advance` moves it."""
    with serve_asgi(create_app(settings, store=store, clock=clock), settings) as running:
        yield running


@contextlib.contextmanager
def serve_asgi(app: Any, settings: ServerSettings, **options: Any) -> Iterator[RunningServer]:
    """Serve any ASGI ``app`` as :func:`run_server` serves Facedown's (``options``: uvicorn's
    own settings changed, such as the keepalive's)."""
    port = free_port()
    # The configuration facedown serve runs with (its timeouts and limits), on this port.
    config = uvicorn_config(
        app, settings, host="127.0.0.1", port=port, log_level="warning", **options
    )
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 15
    while not server.started:
        if time.monotonic() > deadline or not thread.is_alive():
            raise RuntimeError("the server did not start")
        time.sleep(0.02)
    try:
        yield RunningServer(f"http://127.0.0.1:{port}", f"ws://127.0.0.1:{port}/ws", server)
    finally:
        server.should_exit = True
        thread.join(15)


def on_loop(server: RunningServer, work: Coroutine[Any, Any, T]) -> asyncio.Future[T]:
    """Run ``work`` on the server's own event loop (its lobby and tables live there)."""
    app = server.server.config.app
    assert isinstance(app, FastAPI)
    return asyncio.wrap_future(asyncio.run_coroutine_threadsafe(work, app.state.loop))


async def advance(server: RunningServer, clock: FakeClock, seconds: float) -> None:
    """Move a server's FakeClock on, running what falls due on the server's own event loop."""
    await on_loop(server, clock.advance(seconds))


@dataclass
class Player:
    """A scripted client: plays random legal actions and records every frame it receives."""

    ws_url: str
    code: str
    token: str | None
    seed: int
    spectate: bool = False
    frames: list[dict[str, Any]] = field(default_factory=list)
    errors: list[dict[str, Any]] = field(default_factory=list)
    seat: int | None = None
    seq: int = 0
    done: bool = False
    # Action ids must be unique for the seat: a reused id is taken for a resend of the old action.
    session: str = field(default_factory=lambda: uuid.uuid4().hex[:8])
    # Set on every frame read: whoever waits for this player's progress clears it and waits.
    progress: asyncio.Event = field(default_factory=asyncio.Event)

    async def play(self, tap_rate: float = 0.1, stop_at: int | None = None) -> None:
        """Play until the match is over (or the table reaches seq ``stop_at``).
        The caller bounds it with ``asyncio.timeout``."""
        rng = random.Random(self.seed)
        async with connect(self.ws_url, max_size=2**22) as ws:
            await ws.send(
                json.dumps(
                    {
                        "type": "hello",
                        "table": self.code,
                        "token": self.token,
                        "spectate": self.spectate,
                    }
                )
            )
            counter = 0
            while not self.done:
                raw = await ws.recv()
                msg = json.loads(raw)
                self.frames.append(msg)
                kind = msg.get("type")
                if kind == "welcome":
                    self.seat = msg["seat"]
                if kind == "error":
                    self.errors.append(msg)
                if "seq" in msg:
                    self.seq = max(self.seq, msg["seq"])
                self.progress.set()
                if stop_at is not None and self.seq >= stop_at:
                    return
                if kind in ("event", "snapshot"):
                    if msg["view"]["phase"] == "match_over":
                        self.done = True
                        break
                    if msg["seq"] == self.seq and msg["legal"] and not self.spectate:
                        counter += 1
                        await self._act(ws, msg, rng, counter, tap_rate)

    async def _act(
        self, ws: ClientConnection, msg: dict[str, Any], rng: random.Random, n: int, tap_rate: float
    ) -> None:
        legal = msg["legal"]
        taps = [a for a in legal if a["do"] == "tap"]
        others = [a for a in legal if a["do"] != "tap"]
        if not others and rng.random() >= tap_rate:
            return  # not our turn: tap only now and then
        pool = taps if taps and (not others or rng.random() < tap_rate) else others
        if not pool:
            return
        action = dict(rng.choice(pool))
        action.pop("by", None)
        await ws.send(
            json.dumps(
                {"type": "action", "id": f"{self.session}-{n}", "seq": msg["seq"], "action": action}
            )
        )


def create_table(
    server: RunningServer,
    preset: str,
    seats: int,
    *,
    options: dict[str, Any] | None = None,
    bots: list[str] | None = None,
    **extra: Any,
) -> tuple[str, list[str]]:
    """Open a table and fill its human seats; returns the code and every human's token."""
    with server.http() as http:
        body = {
            "preset": preset,
            "seats": seats,
            "name": "Ann",
            "options": options or {},
            "bots": bots or [],
            **extra,
        }
        r = http.post("/api/tables", json=body)
        r.raise_for_status()
        created = r.json()
        tokens = [created["token"]]
        for i in range(1, seats - len(bots or [])):
            r = http.post(f"/api/tables/{created['code']}/join", json={"name": f"P{i}"})
            r.raise_for_status()
            tokens.append(r.json()["token"])
    return created["code"], tokens


async def start(server: RunningServer, code: str, host_token: str) -> None:
    async with connect(server.ws_url) as ws:
        await ws.send(json.dumps({"type": "hello", "table": code, "token": host_token}))
        await ws.send(json.dumps({"type": "start"}))
        while True:
            msg = json.loads(await asyncio.wait_for(ws.recv(), 10))
            if msg["type"] == "error":
                raise RuntimeError(msg)
            if msg["type"] in ("snapshot", "event"):
                return


# ---------------------------------------------------------------- raw clients for protocol tests

HARMLESS = ("opening_peek", "draw", "discard", "skip", "end_turn", "next_round")  # no call, no tap


class Client:
    """A raw WebSocket client: sends any frame, and keeps what it last saw (seq, view, legal)."""

    def __init__(self, ws: ClientConnection) -> None:
        self.ws = ws
        self.frames: list[dict[str, Any]] = []
        self.seat: int | None = None
        self.seq = 0
        self.view: dict[str, Any] = {}
        self.legal: list[dict[str, Any]] = []
        self.table: dict[str, Any] = {}

    async def send(self, message: dict[str, Any] | str | bytes) -> None:
        await self.ws.send(message if isinstance(message, str | bytes) else json.dumps(message))

    async def recv(self, timeout: float = 5.0) -> dict[str, Any]:  # noqa: ASYNC109 - per-frame limit, passed on by until
        msg: dict[str, Any] = json.loads(await asyncio.wait_for(self.ws.recv(), timeout))
        self.frames.append(msg)
        kind = msg.get("type")
        if kind == "welcome":
            self.seat = msg["seat"]
        elif kind == "table":
            self.table = msg["table"]
        elif kind in ("event", "snapshot", "missed"):
            self.seq = msg["seq"]
        if kind in ("event", "snapshot"):
            self.view, self.legal = msg["view"], msg["legal"]
        return msg

    async def until(self, kind: str, timeout: float = 5.0) -> dict[str, Any]:  # noqa: ASYNC109 - a per-frame idle limit
        """Read up to the next frame of this type; an error on the way fails the test.
        ``timeout`` bounds each frame (an idle limit), not the whole read."""
        while True:
            msg = await self.recv(timeout)
            if msg["type"] == kind:
                return msg
            assert msg["type"] != "error", msg

    async def until_seq(self, seq: int) -> None:
        while self.seq < seq:
            await self.recv()

    async def hello(
        self,
        code: str,
        token: str | None = None,
        *,
        last_seq: int | None = None,
        spectate: bool = False,
    ) -> list[dict[str, Any]]:
        """Join a table; returns the welcome and the catch-up (up to the snapshot in a match)."""
        message = {"type": "hello", "table": code, "token": token, "last_seq": last_seq}
        message = {k: v for k, v in message.items() if v is not None}
        await self.send({**message, "spectate": spectate})
        frames = [await self.until("welcome"), await self.recv()]
        assert frames[-1]["type"] == "table", frames
        if frames[-1]["table"]["status"] != "lobby":
            while frames[-1]["type"] != "snapshot":
                frames.append(await self.recv())
        if self.seat is not None:
            await self.until("table")  # the table tells everyone, this client too, that it is here
        return frames

    async def pong(self) -> None:
        """Ping: the very next frame must be the pong (the connection lives, nothing else came)."""
        await self.send({"type": "ping"})
        msg = await self.recv()
        assert msg == {"type": "pong"}, f"expected only a pong, got {msg}"

    async def settle(self) -> None:
        """Read everything already sent to this client (up to the answer to a ping)."""
        await self.send({"type": "ping"})
        await self.until("pong")

    async def act(
        self, action: dict[str, Any], *, seq: int | None = None, action_id: str | None = None
    ) -> dict[str, Any]:
        """Send an action; return its answer: the event that applied it (its ``ack`` the
        action's id), the ack of a resent one applied before, or the error refusing it (events
        on the way are kept)."""
        action_id = action_id or uuid.uuid4().hex[:12]
        await self.send(
            {
                "type": "action",
                "id": action_id,
                "seq": self.seq if seq is None else seq,
                "action": action,
            }
        )
        while True:
            msg = await self.recv()
            if msg["type"] == "event" and msg.get("ack") == action_id:
                return msg
            if msg["type"] in ("ack", "error") and msg.get("id") == action_id:
                return msg

    async def close_code(self, timeout: float = 10.0) -> int | None:  # noqa: ASYNC109 - a per-frame idle limit
        """Read until the server closes the connection; its close code.
        ``timeout`` bounds each frame (an idle limit), not the whole read."""
        with contextlib.suppress(ConnectionClosed):
            while True:
                await self.recv(timeout)
        return self.ws.close_code


@contextlib.asynccontextmanager
async def client(server: RunningServer, **options: Any) -> AsyncIterator[Client]:
    async with connect(server.ws_url, max_size=2**22, **options) as ws:
        yield Client(ws)


@contextlib.asynccontextmanager
async def seated(
    server: RunningServer, code: str, tokens: list[str]
) -> AsyncIterator[list[Client]]:
    """A connection for each token, in step: every frame sent to them so far has been read."""
    async with contextlib.AsyncExitStack() as stack:
        clients = [await stack.enter_async_context(client(server)) for _ in tokens]
        for c, token in zip(clients, tokens, strict=True):
            await c.hello(code, token)
        for c in clients:
            await c.settle()
        yield clients


async def begin(host: Client, others: list[Client]) -> None:
    """The host starts the match; everyone reads up to its first view."""
    await host.send({"type": "start"})
    for c in [host, *others]:
        await c.until("event")
        await c.settle()


def applied(answer: dict[str, Any]) -> bool:
    """Whether the answer to an action says it was applied now: the acting seat's event,
    carrying the action's id as ``ack``."""
    return answer["type"] == "event" and answer.get("ack") is not None


def harmless(legal: list[dict[str, Any]]) -> dict[str, Any] | None:
    """A legal action that neither calls nor taps, so a round lasts as long as a test needs."""
    for kind in HARMLESS:
        for action in legal:
            if action["do"] == kind:
                return {k: v for k, v in action.items() if k != "by"}
    return None


async def play_until(
    clients: list[Client], done: Callable[[dict[str, Any]], bool], limit: int = 200
) -> None:
    """Play harmless actions from these connections (every seat's) until ``done(view)``."""
    for _ in range(limit):
        if done(clients[0].view):
            return
        actor = next(c for c in clients if harmless(c.legal))
        action = harmless(actor.legal)
        assert action is not None
        ack = await actor.act(action)
        assert applied(ack), ack
        for c in clients:
            await c.until_seq(ack["seq"])
    raise AssertionError("the table never got where the test wanted it")


async def play_to_end(
    clients: list[Client], rng: random.Random, first: Sequence[Action] = ()
) -> None:
    """Play ``first`` (each action from its seat's connection), then random legal actions (a
    TAP now and then) from what the clients were sent, until the match is over; every client
    reads every frame on the way."""
    for n in range(5000):
        if clients[0].view.get("phase") == "match_over":
            return
        if n < len(first):
            action = first[n].to_json()
        else:
            pool = [a for c in clients for a in c.legal]
            taps = [a for a in pool if a["do"] == "tap"]
            others = [a for a in pool if a["do"] != "tap"]
            action = rng.choice(taps if taps and (not others or rng.random() < 0.1) else others)
        ack = await clients[action["by"]].act({k: v for k, v in action.items() if k != "by"})
        assert applied(ack), ack
        for c in clients:
            await c.until_seq(ack["seq"])
    raise AssertionError("the match did not end")


async def probe(server: RunningServer, code: str) -> tuple[int, dict[str, Any], dict[str, Any]]:
    """The table as a newcomer sees it: seq, public view, table info (no one is told)."""
    async with client(server) as c:
        await c.hello(code)
        return c.seq, c.view, c.table


@contextlib.contextmanager
def run_server_with_small_buffers(
    settings: ServerSettings, store: Store | None = None, size: int = 4096
) -> Iterator[RunningServer]:
    """Like :func:`run_server`, with tiny kernel send buffers on the server's sockets, so a
    client that stops reading holds up the server's writes after kilobytes, not megabytes
    (on loopback the kernel would otherwise buffer a whole match)."""
    sock = socket.socket()
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, size)  # accepted sockets inherit it
    sock.bind(("127.0.0.1", 0))
    port: int = sock.getsockname()[1]
    config = uvicorn_config(create_app(settings, store=store), settings, log_level="warning")
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 15
    while not server.started:
        if time.monotonic() > deadline or not thread.is_alive():
            raise RuntimeError("the server did not start")
        time.sleep(0.02)
    try:
        yield RunningServer(f"http://127.0.0.1:{port}", f"ws://127.0.0.1:{port}/ws", server)
    finally:
        server.should_exit = True
        thread.join(15)
        sock.close()


class StalledClient:
    """A WebSocket client on a bare socket with a tiny receive buffer that reads only when the
    test says so (a client library would keep reading into memory behind the test's back)."""

    def __init__(self, server: RunningServer) -> None:
        self.sock = socket.socket()
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        self.sock.setblocking(False)
        self.protocol = ClientProtocol(parse_uri(server.ws_url), max_size=2**22)
        self.address = server.url.removeprefix("http://").split(":")
        self.frames: list[dict[str, Any]] = []

    async def open(self) -> None:
        loop = asyncio.get_running_loop()
        await loop.sock_connect(self.sock, (self.address[0], int(self.address[1])))
        self.protocol.send_request(self.protocol.connect())
        await self._flush()
        while not any(isinstance(e, Response) for e in self._read_events()):
            self.protocol.receive_data(await loop.sock_recv(self.sock, 65536))

    async def send(self, message: dict[str, Any]) -> None:
        self.protocol.send_text(json.dumps(message).encode())
        await self._flush()

    async def read_to_close(self, timeout: float = 10.0) -> int | None:  # noqa: ASYNC109 - a per-frame idle limit
        """Read everything the server sent, up to its close frame; the close code.
        ``timeout`` bounds each read (an idle limit), not the whole read."""
        loop = asyncio.get_running_loop()
        while self.protocol.close_rcvd is None:
            data = await asyncio.wait_for(loop.sock_recv(self.sock, 65536), timeout)
            if not data:
                break
            self.protocol.receive_data(data)
            self._read_events()
        await self._flush()  # the answer to the close
        self.sock.close()
        return None if self.protocol.close_rcvd is None else self.protocol.close_rcvd.code

    def _read_events(self) -> list[Any]:
        events = self.protocol.events_received()
        for event in events:
            if isinstance(event, Frame) and event.opcode == Opcode.TEXT:
                self.frames.append(json.loads(bytes(event.data)))
        return events

    async def _flush(self) -> None:
        for data in self.protocol.data_to_send():
            if data:
                await asyncio.get_running_loop().sock_sendall(self.sock, data)
