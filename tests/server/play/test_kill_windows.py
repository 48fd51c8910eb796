"""A real ``kill -9`` of ``facedown serve`` inside each durability window, then a restart.

The server runs with test hooks and ``FACEDOWN_CRASH_AT=<window>`` (server/base/crashhook.py): it
sends itself SIGKILL inside the transaction that writes a table's change and its log entry,
after the statements and before the commit.  A table change and its entry are one transaction
(Store.append_and_update), so the restarted server must hold the table exactly as it was before
the change, record and log agreeing; the change is then made again (the host's start or rematch
once more, the player's action resent with its id and applied once, or the bot's move played
again) and the match plays on to its end, bots and timers moving it.

Each test speaks from its own loopback address, so the per-address limits of the default
server never hold a test back.
"""

from __future__ import annotations

import asyncio
import json
import random
import re
import signal
import sqlite3
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager, closing
from pathlib import Path
from typing import Any

import httpx
import pytest
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed

from benchmarks.serverproc import Server, free_port, start_server, stop_server, wait_healthy
from facedown.cli import main
from facedown.server.base.crashhook import KILLED, CrashAt

SECRET = "kill-windows"  # noqa: S105 - signs the test server's tokens
FAST = ["--test-hooks", "--bot-delay", "0.02"]
RECV_WITHIN = 20.0  # seconds a frame may take (bots think 0.02 s; the peek timer is 3 s)


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


class Player:
    """The host's connection: reads every frame, and plays random legal moves when asked."""

    def __init__(self, ws: ClientConnection, rng: random.Random) -> None:
        self.ws = ws
        self.rng = rng
        self.state: dict[str, Any] | None = None  # the last event or snapshot
        self.table: dict[str, Any] | None = None
        self.seq = 0
        self.pending: dict[str, Any] | None = None  # an action sent and not yet answered
        self.timed_out = 0  # moves a timer played for this seat
        self.moves = 0
        self.rounds_over = 0  # round_over events seen
        self.answer: dict[str, Any] | None = None  # what answered the last pending action

    async def read(self) -> dict[str, Any]:
        try:
            raw = await asyncio.wait_for(self.ws.recv(), RECV_WITHIN)
        except TimeoutError:
            raise AssertionError(f"no frame in {RECV_WITHIN} s: {self.where()}") from None
        msg: dict[str, Any] = json.loads(raw)
        if msg["type"] in ("event", "missed"):
            self.rounds_over += sum(e["type"] == "round_over" for e in msg["events"])
        if msg["type"] in ("event", "snapshot"):
            self.state = msg
            if msg.get("timed_out"):
                self.timed_out += 1
        elif msg["type"] == "table":
            self.table = msg["table"]
        pending = (self.pending or {}).get("id")
        if (msg["type"] in ("ack", "error") and msg.get("id") == pending) or (
            msg["type"] == "event" and msg.get("ack") is not None and msg["ack"] == pending
        ):
            # The event that applied it, an ack (applied before), or a refusal (say, stale)
            # that a snapshot follows.
            self.answer = msg
            self.pending = None
        if "seq" in msg:
            self.seq = max(self.seq, msg["seq"])
        return msg

    def where(self) -> str:
        state = self.state or {}
        return (
            f"phase {self.phase}, seq {self.seq}, state seq {state.get('seq')}, "
            f"legal {state.get('legal')}, pending {self.pending}"
        )

    @property
    def phase(self) -> str | None:
        return None if self.state is None else str(self.state["view"]["phase"])

    async def act(self) -> None:
        """A random legal move (no TAP; a call when there is one, half the time), when the
        last state is the newest and nothing is pending."""
        state = self.state
        if self.pending is not None or state is None or state["seq"] != self.seq:
            return
        legal = [a for a in state["legal"] if a["do"] != "tap"]
        if not legal:
            return
        calls = [a for a in legal if a["do"] == "call"]
        action = dict(self.rng.choice(calls if calls and self.rng.random() < 0.5 else legal))
        action.pop("by", None)
        self.moves += 1
        await self.send_action(f"m{self.moves}", action)

    async def send_action(self, action_id: str, action: dict[str, Any]) -> None:
        self.pending = {"id": action_id, "seq": self.seq, "action": action}
        await self.ws.send(json.dumps({"type": "action", **self.pending}))

    async def play_until(self, done: Callable[[Player], bool], limit: int = 5000) -> None:
        for _ in range(limit):
            if done(self):
                return
            await self.act()
            await self.read()
        raise AssertionError(f"the table never got there (phase {self.phase}, seq {self.seq})")


@asynccontextmanager
async def seated(server: Server, address: str, code: str, token: str, last_seq: int | None,
                 seed: int) -> AsyncIterator[Player]:  # fmt: skip
    ws = await connect(server.ws_url, local_addr=(address, 0), proxy=None, ping_interval=None)
    try:
        hello = {"type": "hello", "table": code, "token": token, "last_seq": last_seq}
        await ws.send(json.dumps(hello))
        player = Player(ws, random.Random(seed))
        while player.table is None or (player.table["status"] != "lobby" and player.state is None):
            await player.read()
        yield player
    finally:
        await ws.close()


# A loopback address of each test's own (the per-address limits count each apart).
ADDRESSES = {"first_start": "127.0.20.1", "rematch": "127.0.20.2", "round_end": "127.0.20.3",
             "match_end": "127.0.20.4"}  # fmt: skip


async def _create(http: httpx.AsyncClient, rounds: int) -> tuple[str, str]:
    body = {
        "preset": "kivo",
        "seats": 2,
        "name": "Ann",
        "bots": ["easy"],
        # Kivo plays 1, 3 or 5 rounds (a ruleset no mode plays is refused).
        "options": {"rounds": rounds},
        "peek_seconds": 3,
        "turn_seconds": 600,
    }
    r = await http.post("/api/tables", json=body)
    assert r.status_code == 200, r.text
    return r.json()["code"], r.json()["token"]


async def _dies(server: Server, player: Player) -> None:
    """Read (and play on) until the connection ends: the server killed itself."""
    with pytest.raises(ConnectionClosed):
        await player.play_until(lambda _: False, limit=10_000)
    assert await asyncio.to_thread(server.proc.wait, 20) == -signal.SIGKILL


def _killed_entry(server: Server, window: str) -> tuple[str, int]:
    """The table and entry the hook died in, from the line it printed."""
    found = re.findall(
        rf"{re.escape(KILLED)}: window {window}, table (\w+), entry (\d+) not committed",
        server.log.read_text(),
    )
    assert len(found) == 1, server.log.read_text()[-2000:]
    return found[0][0], int(found[0][1])


def _stored(data: Path, table_id: str) -> tuple[str, int, list[str]]:
    """The table's status, its last log seq and its entries' kinds, read from the database."""
    with closing(sqlite3.connect(data / "facedown.db")) as db:
        (status,) = db.execute("SELECT status FROM tables WHERE id = ?", (table_id,)).fetchone()
        kinds = [
            row[0]
            for row in db.execute(
                "SELECT kind FROM table_log WHERE table_id = ? ORDER BY seq", (table_id,)
            )
        ]
    return status, len(kinds), kinds


def _over(player: Player) -> bool:
    return player.phase == "match_over"


class Run:
    """One test's server process, its HTTP client and its table."""

    def __init__(self, tmp_path: Path, window: str) -> None:
        self.data = tmp_path
        self.window = window
        self.address = ADDRESSES[window]
        self.port = free_port()
        self.server: Server | None = None

    async def start(self, http: httpx.AsyncClient, crash: bool) -> Server:
        env = {"FACEDOWN_CRASH_AT": self.window} if crash else {}
        server = start_server(self.port, self.data, extra=FAST, secret=SECRET, env=env)
        self.server = server
        await wait_healthy(server, http)
        return server

    def stop(self) -> None:
        if self.server is not None:
            stop_server(self.server, grace=10)


@asynccontextmanager
async def run(tmp_path: Path, window: str) -> AsyncIterator[tuple[Run, httpx.AsyncClient]]:
    the_run = Run(tmp_path, window)
    transport = httpx.AsyncHTTPTransport(local_address=the_run.address)
    async with httpx.AsyncClient(
        base_url=f"http://127.0.0.1:{the_run.port}", transport=transport, timeout=10,
        trust_env=False,
    ) as http:  # fmt: skip
        try:
            yield the_run, http
        finally:
            the_run.stop()


async def _table(http: httpx.AsyncClient, code: str) -> dict[str, Any]:
    r = await http.get(f"/api/tables/{code}")
    assert r.status_code == 200, r.text
    info: dict[str, Any] = r.json()
    return info


async def _plays_to_the_end(
    player: Player, http: httpx.AsyncClient, code: str, moves: int = 3
) -> None:
    """Bots and the host move the restarted table on (``moves`` entries at least), to the
    end of its match."""
    seq = player.seq
    await player.play_until(_over)
    assert player.seq >= seq + moves
    assert (await _table(http, code))["status"] == "finished"


@pytest.mark.anyio
async def test_killed_inside_the_first_start_the_table_is_in_its_lobby(tmp_path: Path) -> None:
    async with run(tmp_path, "first_start") as (proc, http):
        server = await proc.start(http, crash=True)
        code, token = await _create(http, rounds=1)
        async with seated(server, proc.address, code, token, None, 1) as host:
            await host.ws.send(json.dumps({"type": "start"}))
            await _dies(server, host)
        table_id, entry = _killed_entry(server, "first_start")
        assert entry == 1
        assert _stored(tmp_path, table_id) == ("lobby", 0, [])

        server = await proc.start(http, crash=False)
        info = await _table(http, code)
        assert (info["status"], info["match"]) == ("lobby", 0)
        async with seated(server, proc.address, code, token, None, 2) as host:
            assert host.state is None  # no game: a lobby, and only that
            assert host.seq == 0
            await host.ws.send(json.dumps({"type": "start"}))  # the host starts again
            while host.state is None:
                await host.read()
            assert host.state["seq"] == 1
            assert host.phase == "opening"
            # The host does not look at their cards: the peek timer plays it for them, and
            # the bot moves on its own.
            while host.timed_out == 0:
                await host.read()
            assert (await _table(http, code))["status"] == "playing"
            await _plays_to_the_end(host, http, code)
        status, _, kinds = _stored(tmp_path, table_id)
        assert (status, kinds[0], kinds.count("start")) == ("finished", "start", 1)


@pytest.mark.anyio
async def test_killed_inside_a_rematch_the_finished_match_stands(tmp_path: Path) -> None:
    async with run(tmp_path, "rematch") as (proc, http):
        server = await proc.start(http, crash=True)
        code, token = await _create(http, rounds=1)
        async with seated(server, proc.address, code, token, None, 3) as host:
            await host.ws.send(json.dumps({"type": "start"}))
            await host.play_until(_over)
            over = host.seq
            await host.ws.send(json.dumps({"type": "rematch"}))
            await _dies(server, host)
        table_id, entry = _killed_entry(server, "rematch")
        assert entry == over + 1
        assert _stored(tmp_path, table_id)[:2] == ("finished", over)

        server = await proc.start(http, crash=False)
        info = await _table(http, code)
        assert (info["status"], info["match"]) == ("finished", 1)
        async with seated(server, proc.address, code, token, over, 4) as host:
            assert host.state is not None
            assert (host.state["seq"], host.phase) == (over, "match_over")
            await host.ws.send(json.dumps({"type": "rematch"}))
            while host.table is None or host.table["match"] != 2:
                await host.read()
            assert host.table["status"] == "playing"
            while host.state["seq"] <= over:
                await host.read()
            assert host.state["seq"] == over + 1  # match 2's start, as the entry it was
            await _plays_to_the_end(host, http, code)
        status, _, kinds = _stored(tmp_path, table_id)
        assert (status, kinds.count("start")) == ("finished", 2)


async def _killed_by_an_action(tmp_path: Path, window: str, rounds: int) -> None:
    """Play until the action of ``window`` kills the server; restart; the table is at the
    entry before it, and the action (the host's, resent with its id, or the bot's, played
    again) goes through once: the match plays on to its end."""
    async with run(tmp_path, window) as (proc, http):
        server = await proc.start(http, crash=True)
        code, token = await _create(http, rounds=rounds)
        async with seated(server, proc.address, code, token, None, 5) as host:
            await host.ws.send(json.dumps({"type": "start"}))
            await _dies(server, host)
            lost = host.pending  # the host's action, when it was the one that died
            seen = host.state
        table_id, entry = _killed_entry(server, window)
        status, stored_seq, _ = _stored(tmp_path, table_id)
        assert (status, stored_seq) == ("playing", entry - 1)
        assert seen is not None
        assert seen["seq"] <= entry - 1

        server = await proc.start(http, crash=False)
        async with seated(server, proc.address, code, token, seen["seq"], 6) as host:
            assert host.state is not None
            # As it was before the change (the bot may have played its lost move again).
            assert host.state["seq"] >= entry - 1
            if lost is not None and lost["seq"] == entry - 1:
                await _resent(host, lost, entry)
            await host.play_until(lambda p: p.rounds_over > 0)
            if window == "round_end":
                assert host.phase == "round_over"
            await _plays_to_the_end(host, http, code, moves=3 if window == "round_end" else 0)
            assert host.rounds_over == rounds  # each round ended once
        status, _, kinds = _stored(tmp_path, table_id)
        assert (status, kinds.count("start")) == ("finished", 1)


async def _resent(host: Player, lost: dict[str, Any], entry: int) -> None:
    """The host's action that got no answer before the kill, sent again with its id: applied
    once (a second resend is acknowledged at the same seq), or refused cleanly when the table
    moved on."""
    await host.send_action(lost["id"], lost["action"])
    while host.pending is not None:
        await host.read()
    answer = host.answer
    assert answer is not None
    if answer["type"] == "error":
        assert answer["code"] == "stale", answer  # the bot's move came first
        return
    assert answer["seq"] >= entry
    await host.send_action(lost["id"], lost["action"])
    while host.pending is not None:
        await host.read()
    # Acknowledged at the seq it was applied at: applied once.
    assert host.answer == {"type": "ack", "id": lost["id"], "seq": answer["seq"]}


@pytest.mark.anyio
async def test_killed_inside_a_round_end_the_round_ends_once_after_the_restart(
    tmp_path: Path,
) -> None:
    await _killed_by_an_action(tmp_path, "round_end", rounds=3)


@pytest.mark.anyio
async def test_killed_inside_the_match_end_the_match_ends_once_after_the_restart(
    tmp_path: Path,
) -> None:
    await _killed_by_an_action(tmp_path, "match_end", rounds=1)


def test_the_crash_hook_needs_test_hooks_and_a_window(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("FACEDOWN_SECRET", SECRET)
    monkeypatch.delenv("FACEDOWN_TEST_HOOKS", raising=False)
    for value, extra, said in [
        ("first_start", [], "FACEDOWN_CRASH_AT is a test hook: it needs --test-hooks"),
        ("sometime", ["--test-hooks"], "the window is one of first_start, rematch"),
        ("rematch:0", ["--test-hooks"], "after the colon comes a count, 1 or more"),
    ]:
        monkeypatch.setenv("FACEDOWN_CRASH_AT", value)
        assert main(["serve", "--data", str(tmp_path), *extra]) == 2
        err = capsys.readouterr().err
        assert said in err, err
        assert err.count("\n") == 1, err  # one line
    assert CrashAt.parse("round_end:2") == CrashAt("round_end", 2)
