"""A real server on a loopback port, and scripted WebSocket clients that play through it."""

from __future__ import annotations

import asyncio
import contextlib
import json
import random
import socket
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import httpx
import uvicorn
from websockets.asyncio.client import ClientConnection, connect

from facedown.server.app import create_app
from facedown.server.protocol import MAX_FRAME
from facedown.server.settings import ServerSettings
from facedown.store.base import Store


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


@dataclass
class RunningServer:
    url: str
    ws_url: str
    server: uvicorn.Server

    def http(self) -> httpx.Client:
        return httpx.Client(base_url=self.url, timeout=10)


@contextlib.contextmanager
def run_server(settings: ServerSettings, store: Store | None = None) -> Iterator[RunningServer]:
    """Serve the app in a thread (its own event loop) on a free port, until the block ends."""
    port = free_port()
    app = create_app(settings, store=store)
    config = uvicorn.Config(
        app, host="127.0.0.1", port=port, log_level="warning", ws_max_size=MAX_FRAME * 8
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

    async def play(self, timeout: float = 60.0, tap_rate: float = 0.1) -> None:
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
            deadline = time.monotonic() + timeout
            counter = 0
            while not self.done:
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    raise TimeoutError(f"seat {self.seat}: the match did not end in time")
                raw = await asyncio.wait_for(ws.recv(), remaining)
                msg = json.loads(raw)
                self.frames.append(msg)
                kind = msg.get("type")
                if kind == "welcome":
                    self.seat = msg["seat"]
                if kind == "error":
                    self.errors.append(msg)
                if "seq" in msg:
                    self.seq = max(self.seq, msg["seq"])
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
                {"type": "action", "id": f"{self.seat}-{n}", "seq": msg["seq"], "action": action}
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
