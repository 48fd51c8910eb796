"""Crashes: a server killed with SIGKILL mid-game resumes every game exactly where it was."""

from __future__ import annotations

import asyncio
import json
import os
import random
import signal
import sqlite3
import subprocess
import sys
import time
from contextlib import closing
from pathlib import Path
from typing import Any

import httpx
import pytest
from websockets.asyncio.client import ClientConnection, connect

from ..harness import free_port

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


CREATED = 48  # tables created at once in the test below, each from its own address


async def _open_table(
    base: str, i: int, answered: dict[str, list[str]], first: asyncio.Event
) -> None:
    """Create a 4-seat table and take its other seats one by one, from the address 127.0.23.i,
    noting in ``answered`` each seat the server said yes to (until it is killed); ``first`` is
    set once a table is created."""
    transport = httpx.AsyncHTTPTransport(local_address=f"127.0.23.{i + 1}")
    async with httpx.AsyncClient(base_url=base, transport=transport, timeout=30) as http:
        try:
            body = {"preset": "cabo", "seats": 4, "name": "Host", "turn_seconds": 600}
            created = await http.post("/api/tables", json=body)
            assert created.status_code == 200, created.text
            code = created.json()["code"]
            answered[code] = ["Host"]
            first.set()
            for name in ("Bob", "Cid", "Dee"):
                joined = await http.post(f"/api/tables/{code}/join", json={"name": name})
                assert joined.status_code == 200, joined.text
                answered[code].append(name)
        except httpx.TransportError:  # the server was killed: no answer
            return


@pytest.mark.anyio
async def test_kill_9_while_tables_are_created_keeps_every_table_answered(tmp_path: Path) -> None:
    """Tables created and filled all at once, their writes sharing commits (store/writer.py).
    As soon as one is created, the test takes the database's write lock, so that nothing the
    requests write from then on can commit; a second later it kills the server -9 with those
    requests in flight.  After a restart, every table and every seat the server answered for
    is there: it answers once the write is committed, never before."""
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    proc = _serve(port, tmp_path)
    answered: dict[str, list[str]] = {}
    first = asyncio.Event()
    try:
        opening = asyncio.gather(*(_open_table(base, i, answered, first) for i in range(CREATED)))
        async with asyncio.timeout(60):
            await first.wait()
        with closing(sqlite3.connect(tmp_path / "facedown.db", isolation_level=None)) as db:
            db.execute("BEGIN IMMEDIATE")  # the write lock: the server's commits wait for it
            await asyncio.sleep(1.0)  # creations and joins keep coming, and wait
            proc.send_signal(signal.SIGKILL)
            await opening
            db.execute("ROLLBACK")
        proc.wait(10)
        proc = _serve(port, tmp_path)
        async with httpx.AsyncClient(base_url=base, timeout=10) as http:
            for code, names in answered.items():
                found = await http.get(f"/api/tables/{code}")
                assert found.status_code == 200, (code, found.text)
                seated = [s["name"] for s in found.json()["seats"] if s["kind"] == "human"]
                assert seated[: len(names)] == names, (code, seated, names)
        assert sum(map(len, answered.values())) < 4 * CREATED, "no request was in flight"
    finally:
        proc.kill()
        proc.wait(10)
