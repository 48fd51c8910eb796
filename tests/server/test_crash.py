"""Crashes: a server killed with SIGKILL mid-game resumes every game exactly where it was."""

from __future__ import annotations

import asyncio
import json
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx
import pytest
from websockets.asyncio.client import ClientConnection, connect

from .harness import free_port

HEALTHY_WITHIN = 90.0  # seconds a started server may take to answer its health check


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def _serve(port: int, data: Path) -> subprocess.Popen[bytes]:
    env = {**os.environ, "FACEDOWN_SECRET": "crash-test"}
    log = data / "server.log"
    with log.open("ab") as out:
        proc = subprocess.Popen(
            [sys.executable, "-m", "facedown", "serve", "--port", str(port), "--data", str(data)],
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    # A start-up window, not a timing assertion: on a loaded two-core machine (pytest -n auto
    # beside other server processes) the imports alone took over 20 s once.
    deadline = time.monotonic() + HEALTHY_WITHIN
    while time.monotonic() < deadline and proc.poll() is None:
        try:
            if httpx.get(f"http://127.0.0.1:{port}/api/health", timeout=1).status_code == 200:
                return proc
        except httpx.HTTPError:
            time.sleep(0.05)
    proc.kill()
    proc.wait(10)  # reaped here, not reported by another test's garbage collection
    raise RuntimeError(f"the server did not start: {log.read_text()}")


START = {"type": "start"}


class Seat:
    """One player's connection, read until it is in step with the table.

    It behaves as a well-behaved client does: all of this test's seats share 127.0.0.1, and when
    the server says that address sends too fast (``rate_limited``: the frame was dropped), the
    seat waits and sends its unanswered frame again (an action keeps its id)."""

    def __init__(self, ws: ClientConnection, token: str) -> None:
        self.ws = ws
        self.token = token
        self.last: dict[str, Any] = {}
        self.seq = 0
        self.unanswered: dict[str, Any] | None = None
        self.refused = 0

    async def send(self, message: dict[str, Any]) -> None:
        assert self.unanswered is None, "one frame at a time: read its answer first"
        self.unanswered = message
        await self.ws.send(json.dumps(message))

    async def answered(self) -> None:
        """Read until the frame sent last is answered (a hello, before the match starts)."""
        while self.unanswered is not None:
            await self._read_one()

    async def read_until(self, seq: int) -> None:
        while self.unanswered is not None or self.seq < seq or self.last.get("seq") != seq:
            await self._read_one()

    async def _read_one(self) -> None:
        msg = json.loads(await asyncio.wait_for(self.ws.recv(), 10))
        if msg["type"] == "error":
            assert msg["code"] == "rate_limited", msg
            assert self.unanswered is not None, msg
            assert self.refused < 20, msg
            self.refused += 1
            await asyncio.sleep(1.0)
            await self.ws.send(json.dumps(self.unanswered))
            return
        pending = (self.unanswered or {}).get("id")
        if msg["type"] in ("welcome", "ack") or (
            # a start is answered by the match's first event, an action by the event with its id
            msg["type"] == "event" and (self.unanswered == START or msg.get("ack") == pending)
        ):
            self.unanswered = None
        if msg["type"] in ("event", "snapshot"):
            self.last = msg
        if "seq" in msg:
            self.seq = max(self.seq, msg["seq"])


async def _connect(url: str, code: str, token: str, last_seq: int | None) -> Seat:
    seat = Seat(await connect(url), token)
    await seat.send({"type": "hello", "table": code, "token": token, "last_seq": last_seq})
    return seat


async def _play(seats: list[Seat], steps: int, rng: random.Random, *, calls: bool = True) -> int:
    """Play ``steps`` actions (or to the match's end) one at a time; returns the table's seq.
    Without ``calls`` nobody calls, so the round is still being played at the end."""
    seq = max(s.seq for s in seats)
    skipped = {"tap"} if calls else {"tap", "call"}
    for n in range(steps):
        for s in seats:
            await s.read_until(seq)
        if seats[0].last["view"]["phase"] == "match_over":
            break
        movers = [s for s in seats if [a for a in s.last["legal"] if a["do"] not in skipped]]
        mover = rng.choice(movers)
        action = rng.choice([a for a in mover.last["legal"] if a["do"] not in skipped])
        action.pop("by", None)
        message = {"type": "action", "id": f"a{seq}-{n}", "seq": seq, "action": action}
        await mover.send(message)
        await mover.read_until(seq + 1)
        seq += 1
    for s in seats:
        await s.read_until(seq)
    return seq


@pytest.mark.anyio
async def test_kill_9_and_restart_resumes_every_table(tmp_path: Path) -> None:
    port = free_port()
    url = f"ws://127.0.0.1:{port}/ws"
    proc = _serve(port, tmp_path)
    rng = random.Random(3)
    tables: list[tuple[str, list[str]]] = []
    try:
        async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{port}", timeout=10) as http:
            for preset in ("boyo", "cabo", "kivo", "kaboom"):
                body = {"preset": preset, "seats": 3, "name": "Ann", "turn_seconds": 600}
                created = (await http.post("/api/tables", json=body)).json()
                tokens = [created["token"]]
                for name in ("Bob", "Cid"):
                    joined = await http.post(
                        f"/api/tables/{created['code']}/join", json={"name": name}
                    )
                    tokens.append(joined.json()["token"])
                tables.append((created["code"], tokens))
        before: dict[str, list[dict[str, Any]]] = {}
        for code, tokens in tables:
            seats = [await _connect(url, code, t, None) for t in tokens]
            await seats[0].answered()
            await seats[0].send(START)
            for s in seats:
                await s.read_until(1)  # the match starts at seq 1
            # No call before the kill: a round that ended would start the next by its reveal
            # timer (12 s) as soon as the restarted server loads it, and the table would not
            # be where the players left it (the seats are in their 30 s grace periods, and
            # turns have 600 s, so nothing else moves it).
            await _play(seats, rng.randint(8, 25), rng, calls=False)
            before[code] = [s.last for s in seats]
        # SIGKILL: no shutdown, no flush; only what was acknowledged is on disk.
        proc.send_signal(signal.SIGKILL)
        proc.wait(10)
        proc = _serve(port, tmp_path)
        for code, tokens in tables:
            seats = []
            for token, old in zip(tokens, before[code], strict=True):
                seat = await _connect(url, code, token, old["seq"])
                await seat.read_until(old["seq"])
                # The same state, the same legal actions, the same stored deadline.
                assert seat.last["view"] == old["view"]
                assert seat.last["legal"] == old["legal"]
                assert seat.last["deadline"] == pytest.approx(old["deadline"])
                seats.append(seat)
            await _play(seats, 2000, rng)  # and the match plays on to its end
            assert seats[0].last["view"]["phase"] == "match_over"
            for s in seats:
                await s.ws.close()
    finally:
        proc.kill()
        proc.wait(10)
