"""Soak: whole games through the real server, every frame checked, kill -9s and fuzz in between.

Starts ``facedown serve --test-hooks`` (SQLite in a temporary folder, loopback only) and keeps
``--tables`` tables playing until ``--games`` matches have been started (or ``--seconds`` pass):
2 to 4 seats in every preset, short rulesets (one or two rounds), short timers, some seats bots
(``random``, ``easy``, ``medium``), the others WebSocket clients that play a random legal action
at the seq they last saw (now and then a set replace, now and then a TAP out of turn), with a
spectator at some tables.  The host asks for a rematch until the table has played its share,
then the table is checked and a new one takes its place.

Every table speaks from its own loopback address (127.x.y.z): the server's per-address limits
stay as they are for real clients, and each table stays well inside them.

- The oracle (``benchmarks/oracle.py``) replays each table's log from the SQLite file with the
  rules engine and checks every frame each client received against what its seat may know at
  that seq.  Any card it may not know is a leak.
- Every few seconds (random, around ``--kill-every``) the server gets SIGKILL and is started
  again on the same data folder; clients reconnect with ``last_seq``, as the web client does.
  Every ``ack`` is recorded; each acknowledged action must be in the log, at its seq.
- Between real frames (rate ``--fuzz`` per decision) a client sends a fuzzed frame: malformed
  JSON, a wrong type, an unknown type or field, an oversized frame, an action out of turn, one
  at a stale seq.  Each must get an ``error``, the connection must stay open, and no fuzzed
  action may reach the log.

Printed: games, frames checked, leaks, acknowledged actions lost, failures (fuzz accepted or
unanswered, connections the server closed, log problems), errors by code, kills, restarts and
the time taken.  Exit status 1 when any leak, loss or failure was found.

Run from the checkout: ``.venv/bin/python -m benchmarks.soak [--games 200] [--seconds 600]``.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import itertools
import json
import random
import resource
import secrets
import signal
import sqlite3
import sys
import tempfile
import time
import uuid
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed, WebSocketException

from benchmarks.oracle import FUZZ_PREFIX, Findings, TableOracle
from benchmarks.serverproc import HOST, Server, free_port, log_tail, start_server, wait_healthy

PRESETS = ("boyo", "cabo", "kivo", "kaboom")
BOT_LEVELS = ("random", "easy", "medium")
PEEK_SECONDS = 3.0  # the server's shortest timers: they fire while a client is away
TURN_SECONDS = 5.0
REPLY_TIMEOUT = 10.0  # seconds a frame may wait for its answer
RECONNECT_FOR = 90.0  # seconds a client keeps trying to reconnect
MAX_FRAME = 8 * 1024  # the protocol's frame limit (docs/protocol.md)
CHECK_EVERY = 3000  # frames a table keeps before they are checked and dropped
STUCK_AFTER = 60.0  # seconds a table may go without a frame while the server is up
INDEPENDENT = frozenset({"opening_peek", "next_round"})  # never seq-checked by the server


# ------------------------------------------------------------------ what the run saw


@dataclass
class Tally:
    games_started: int = 0
    tables: int = 0
    findings: Findings = field(default_factory=Findings)
    games: int = 0  # matches played to their end, by the log
    acks: int = 0
    lost: list[str] = field(default_factory=list)
    failures: Counter[str] = field(default_factory=Counter)
    failure_examples: list[str] = field(default_factory=list)
    errors: Counter[str] = field(default_factory=Counter)
    fuzz: Counter[str] = field(default_factory=Counter)
    actions: int = 0
    latencies: list[float] = field(default_factory=list)  # seconds from an action to its ack
    kills: int = 0
    restarts: int = 0

    def fail(self, kind: str, detail: str) -> None:
        self.failures[kind] += 1
        if len(self.failure_examples) < 20:
            self.failure_examples.append(f"{kind}: {detail}")


class Run:
    """The server (replaced at each restart), the shared tally and the stop conditions."""

    def __init__(self, args: argparse.Namespace, data: Path) -> None:
        self.args = args
        self.data = data
        self.db = data / "facedown.db"
        self.port = args.port or free_port()
        self.secret = secrets.token_hex(32)
        self.extra = ["--test-hooks", "--bot-delay", str(args.bot_delay)]
        self.server = self.launch()
        self.up = asyncio.Event()
        self.stop = asyncio.Event()
        self.epoch = 0  # kills so far: a connection opened before one may drop
        self.tally = Tally()
        self.rng = random.Random(args.seed)
        self.addresses = itertools.count(1)
        self.deadline = time.monotonic() + args.seconds

    def launch(self) -> Server:
        return start_server(self.port, self.data, extra=self.extra, secret=self.secret)

    def address(self) -> str:
        n = next(self.addresses)
        return f"127.{n // 65025 % 250 + 1}.{n // 255 % 255}.{n % 255 + 1}"

    def claim_game(self) -> bool:
        """One more match may start (the run is bounded in games and in time)."""
        if self.stop.is_set() or self.tally.games_started >= self.args.games:
            return False
        self.tally.games_started += 1
        return True


# ------------------------------------------------------------------ fuzz


def fuzz_frame(
    rng: random.Random, seq: int, legal: list[dict[str, Any]]
) -> tuple[str, str | bytes]:
    """A frame the server must refuse with an error, changing nothing: (its kind, the frame)."""
    fid = f"{FUZZ_PREFIX}{uuid.uuid4().hex[:12]}"
    moves = [a for a in legal if a["do"] not in INDEPENDENT]
    kinds = ["json", "types", "unknown", "field", "large", "binary", "turn"]
    if moves and seq > 0:
        kinds.append("stale")
    kind = rng.choice(kinds)
    if kind == "stale":
        action = {k: v for k, v in rng.choice(moves).items() if k != "by"}
        return kind, json.dumps({"type": "action", "id": fid, "seq": seq - 1, "action": action})
    if kind == "turn":
        return kind, json.dumps(
            {"type": "action", "id": fid, "seq": seq, "action": out_of_turn(rng, legal)}
        )
    frames: dict[str, list[str | bytes]] = {
        "json": ['{"type": "action", "id": ', "not json", "[1, 2", "{}", "null", "[]", '"ping"'],
        "types": [
            json.dumps({"type": "action", "id": fid, "seq": str(seq), "action": {"do": "draw"}}),
            json.dumps({"type": "action", "id": 7, "seq": seq, "action": {"do": "draw"}}),
            json.dumps(
                {"type": "action", "id": fid, "seq": seq, "action": {"do": "peek", "slot": "0"}}
            ),
            json.dumps({"type": "action", "id": fid, "seq": True, "action": {"do": "draw"}}),
            json.dumps({"type": "add_bot", "level": 3}),
        ],
        "unknown": [
            json.dumps({"type": "explode"}),
            json.dumps({"kind": "ping"}),
            json.dumps({"type": None}),
        ],
        "field": [
            json.dumps({"type": "ping", "extra": 1}),
            json.dumps({"type": "ready", "seq": seq}),
        ],
        "large": [json.dumps({"type": "ping", "pad": "x" * rng.randint(MAX_FRAME, 7 * MAX_FRAME)})],
        "binary": [b"\xff\xfe\x00garbage", bytes(rng.randrange(256) for _ in range(40))],
    }
    return kind, rng.choice(frames[kind])


def out_of_turn(rng: random.Random, legal: list[dict[str, Any]]) -> dict[str, Any]:
    """An action that is not legal now (never a replace, which a set could make legal, and
    never a move the server takes at any seq)."""
    listed = [{k: v for k, v in a.items() if k != "by"} for a in legal]
    candidates: list[dict[str, Any]] = [
        {"do": "draw"},
        {"do": "take_discard"},
        {"do": "discard"},
        {"do": "end_turn"},
        {"do": "call"},
        {"do": "skip"},
        {"do": "undo"},
        {"do": "peek", "slot": 0},
        {"do": "tap", "slot": 63},
        {"do": "spy", "slot": 0, "target": 7},
        {"do": "swap", "slot": 0, "target": 7, "target_slot": 0},
    ]
    return rng.choice([c for c in candidates if c not in listed])


# ------------------------------------------------------------------ one client


@dataclass
class Waiting:
    """A frame sent that gets exactly one answer: an action, a fuzzed frame, or a control
    message (start, rematch) followed by a ping, whose pong closes it."""

    kind: str  # "action", "fuzz" or "control"
    sent: float
    action_id: str | None = None
    fuzz: str = ""


class Client:
    """One seat's (or a spectator's) connection: reads, records every frame, and plays."""

    def __init__(self, table: TableRun, token: str | None, host: bool) -> None:
        self.table = table
        self.run = table.run
        self.token = token
        self.host = host
        self.rng = random.Random(table.rng.random())
        self.session = uuid.uuid4().hex[:8]
        self.counter = 0
        self.seat: int | None = None
        self.seq: int | None = None  # the seq of the last event or snapshot
        self.view: dict[str, Any] = {}
        self.legal: list[dict[str, Any]] = []
        self.sets = 0
        self.status = ""
        self.match = 0
        self.waiting: Waiting | None = None
        self.act_at = 0.0
        self.closed_for_good = False
        self.attempts = 0  # connection attempts, hellos sent and messages read: for a report
        self.hellos = 0
        self.received = 0
        self.last_error = ""

    def where(self) -> str:
        """Where this client stands, in a few words (for a report)."""
        return (
            f"seat {self.seat} seq {self.seq} {self.status} {self.view.get('phase')} "
            f"legal {[a['do'] for a in self.legal]} waiting {self.waiting and self.waiting.kind}, "
            f"{self.attempts} connection attempts, {self.hellos} hellos, {self.received} "
            f"messages read, last connection error {self.last_error or 'none'}"
        )

    # -- the connection, reconnected after each kill
    async def live(self) -> None:
        while not self.table.done.is_set():
            try:
                ws = await self._connect()
            except Exception as e:  # a bug of the soak's own: reported, and the seat stops
                self.run.tally.fail("client", f"table {self.table.code}: {e!r}")
                return
            if ws is None:
                self.run.tally.fail("reconnect", f"table {self.table.code}: gave up")
                return
            epoch = self.run.epoch
            try:
                await self._session(ws)
            except ConnectionClosed as e:
                self._closed(e, epoch)
            except Exception as e:  # a bug of the soak's own: reported, and the seat stops
                self.run.tally.fail("client", f"table {self.table.code}: {e!r}")
                self.closed_for_good = True
            finally:
                self.waiting = None
                with contextlib.suppress(Exception):
                    await ws.close()
            if self.closed_for_good:
                return

    def _closed(self, e: ConnectionClosed, epoch: int) -> None:
        """A connection ended: expected when the server was killed, a failure otherwise."""
        if e.rcvd is not None and e.rcvd.code not in (1000, 1001):
            self.run.tally.fail(f"closed_{e.rcvd.code}", f"table {self.table.code}: {e.rcvd}")
        elif e.rcvd is None and self.run.epoch == epoch and self.run.up.is_set():
            self.run.tally.fail("dropped", f"table {self.table.code}: no close frame, no kill")

    async def _connect(self) -> ClientConnection | None:
        give_up = time.monotonic() + RECONNECT_FOR
        while time.monotonic() < give_up and not self.table.done.is_set():
            await self.run.up.wait()
            self.attempts += 1
            try:
                ws = await connect(
                    self.run.server.ws_url,
                    local_addr=(self.table.address, 0),
                    proxy=None,
                    ping_interval=None,
                    open_timeout=10,
                    close_timeout=2,
                    max_size=2**22,
                )
            except (OSError, TimeoutError, WebSocketException) as e:
                # WebSocketException: e.g. killed during the opening handshake (no response)
                self.last_error = repr(e)[:200]
                await asyncio.sleep(0.2)
                continue
            hello: dict[str, Any] = {
                "type": "hello",
                "table": self.table.code,
                "token": self.token,
                "last_seq": self.seq,
            }
            if self.token is None:
                hello["spectate"] = True
            try:
                await ws.send(json.dumps(hello))
            except ConnectionClosed as e:  # killed just after the connection opened: again
                self.last_error = repr(e)[:200]
                continue
            self.hellos += 1
            return ws
        return None

    async def _session(self, ws: ClientConnection) -> None:
        while not self.table.done.is_set():
            # Never a zero wait: a client with nothing to do sleeps in recv, not in a loop.
            wait = min(1.0, max(0.001, self.act_at - time.monotonic()))
            try:
                raw = await asyncio.wait_for(ws.recv(), wait if self.token else 1.0)
            except TimeoutError:
                raw = None
            if raw is not None:
                self.received += 1
                self._on_message(json.loads(raw))
            if self.token is not None:
                await self._maybe_act(ws)

    # -- receiving
    def _on_message(self, msg: dict[str, Any]) -> None:
        kind = msg.get("type")
        if kind in ("event", "snapshot", "missed"):
            self.table.keep(self.seat, msg)
            if kind != "missed":
                self._on_state(msg)
            if kind == "event" and msg.get("ack") is not None:  # the answer to this seat's action
                self._on_answer(msg)
        elif kind == "welcome":
            self.seat = msg["seat"]
        elif kind == "table":
            self.status = msg["table"]["status"]
            self.match = msg["table"]["match"]
            self.table.seated = all(s["kind"] != "open" for s in msg["table"]["seats"])
        elif kind in ("ack", "error", "pong"):
            self._on_answer(msg)

    def _on_state(self, msg: dict[str, Any]) -> None:
        self.seq = msg["seq"]
        self.view = msg["view"]
        self.legal = msg["legal"]
        self.sets = msg["sets"]
        self.act_at = time.monotonic() + self.rng.expovariate(1 / self.run.args.think)
        if self.host and self.view["phase"] == "match_over":
            self.table.match_over(self.match, self.seq)

    def _on_answer(self, msg: dict[str, Any]) -> None:
        tally = self.run.tally
        waiting, kind = self.waiting, msg["type"]
        self.act_at = min(
            self.act_at, time.monotonic() + self.rng.expovariate(1 / self.run.args.think)
        )
        if waiting is None:
            tally.errors[f"unasked {kind} {msg.get('code', '')}".strip()] += 1
            return
        if waiting.kind == "control":
            if kind == "error":
                tally.errors[f"control {msg['code']}"] += 1
            else:
                self.waiting = None  # the pong after it
            return
        self.waiting = None
        if waiting.kind == "fuzz":
            tally.fuzz[waiting.fuzz] += 1
            if kind != "error":
                tally.fail("fuzz_accepted", f"{waiting.fuzz} frame answered with {msg}")
        elif (
            kind in ("event", "ack")  # applied now (its event), or before (a resent id)
            and msg.get("ack" if kind == "event" else "id") == waiting.action_id
            and self.seat is not None
        ):
            tally.acks += 1
            tally.latencies.append(time.monotonic() - waiting.sent)
            self.table.acks[str(waiting.action_id)] = (self.seat, int(msg["seq"]))
        elif kind == "error":
            tally.errors[str(msg.get("code"))] += 1
        else:
            tally.fail("bad_answer", f"{msg} to action {waiting.action_id}")

    # -- playing
    async def _maybe_act(self, ws: ClientConnection) -> None:
        now = time.monotonic()
        if self.waiting is not None:
            if now - self.waiting.sent > REPLY_TIMEOUT:
                self.run.tally.fail("no_answer", f"table {self.table.code}: {self.waiting}")
                self.waiting = None
            return
        if now < self.act_at:
            return
        self.act_at = now + 1.0  # unless a new frame or an answer comes first
        if self.seq is None and not self.host:
            return
        if self.host and await self._control(ws):
            return
        if self.run.rng.random() < self.run.args.fuzz and self.seq is not None:
            kind, frame = fuzz_frame(self.rng, self.seq, self.legal)
            self.waiting = Waiting("fuzz", now, fuzz=kind)
            await ws.send(frame)
            return
        action = self._choose()
        if action is not None and self.seq is not None:
            self.counter += 1
            action_id = f"{self.session}-{self.counter}"
            self.waiting = Waiting("action", now, action_id=action_id)
            self.run.tally.actions += 1
            await ws.send(
                json.dumps({"type": "action", "id": action_id, "seq": self.seq, "action": action})
            )

    async def _control(self, ws: ClientConnection) -> bool:
        """The host starts the match, or asks for a rematch once one is over."""
        message = None
        if self.status == "lobby" and self.table.seated:
            message = {"type": "start"}
        elif self.view.get("phase") == "match_over" and self.seq == self.table.last_over:
            if not self.table.wants_rematch():
                return True
            message = {"type": "rematch"}
        if message is None:
            return False
        self.waiting = Waiting("control", time.monotonic())
        await ws.send(json.dumps(message))
        await ws.send(json.dumps({"type": "ping"}))
        return True

    def _choose(self) -> dict[str, Any] | None:
        """A random legal move: now and then a set replace or an out-of-turn TAP."""
        rng = self.rng
        taps = [a for a in self.legal if a["do"] == "tap"]
        others = [a for a in self.legal if a["do"] != "tap"]
        singles = sorted(
            {a["slots"][0] for a in others if a["do"] == "replace" and len(a["slots"]) == 1}
        )
        if self.sets >= 2 and len(singles) >= 2 and rng.random() < 0.3:
            size = rng.randint(2, min(self.sets, len(singles)))
            return {"do": "replace", "slots": rng.sample(singles, size)}
        if taps and rng.random() < 0.1:
            return {k: v for k, v in rng.choice(taps).items() if k != "by"}
        if others:
            return {k: v for k, v in rng.choice(others).items() if k != "by"}
        return None


# ------------------------------------------------------------------ one table


class TableRun:
    """A table from creation to its last match: its clients, their frames and acks."""

    def __init__(self, run: Run, index: int) -> None:
        self.run = run
        self.rng = random.Random(run.rng.random())
        self.address = run.address()
        self.code = ""
        self.share = self.rng.randint(1, 2 * run.args.games_per_table - 1)
        self.played = 0  # matches started here
        self.last_over = -1  # the seq of the last match_over the host saw
        self.seen_over: set[int] = set()
        self.claimed_for = -1  # the match_over seq a rematch was claimed for
        self.progress = time.monotonic()  # when the last frame came
        self.seated = False
        self.frames: list[tuple[int | None, dict[str, Any]]] = []
        self.acks: dict[str, tuple[int, int]] = {}
        self.done = asyncio.Event()
        self.oracle: TableOracle | None = None
        self.clients: list[Client] = []

    def keep(self, seat: int | None, frame: dict[str, Any]) -> None:
        self.frames.append((seat, frame))
        self.progress = time.monotonic()
        if len(self.frames) >= CHECK_EVERY:
            self.check()

    def check(self) -> bool:
        """Check the frames kept so far (False: the log could not be read now; kept)."""
        if self.oracle is None or not self.frames:
            return True
        if not self.run.up.is_set():
            return False
        frames, self.frames = self.frames, []
        try:
            self.oracle.check(frames, self.run.tally.findings)
        except sqlite3.Error:  # the server was killed as the log was read
            self.frames = frames + self.frames
            return False
        return True

    def match_over(self, match: int, seq: int) -> None:
        self.last_over = seq
        if match not in self.seen_over:
            self.seen_over.add(match)
            self.check()

    def wants_rematch(self) -> bool:
        if self.claimed_for == self.last_over:
            return True  # claimed already; the rematch did not get through
        if self.played < self.share and self.run.claim_game():
            self.claimed_for = self.last_over
            self.played += 1
            return True
        self.done.set()
        return False

    async def create(self, http: httpx.AsyncClient) -> list[str]:
        """Open the table (bots in some seats) and fill the others: the humans' tokens."""
        rng = self.rng
        preset = rng.choice(PRESETS)
        seats = rng.randint(2, 4)
        bots = [rng.choice(BOT_LEVELS) for _ in range(rng.randint(0, seats - 1))]
        # Mostly one round; now and then more (Kivo plays 1, 3 or 5 rounds, the others any).
        more = 3 if preset == "kivo" else 2
        options: dict[str, Any] = {"rounds": 1 if rng.random() < 0.8 else more}
        # A turn-based table now and then: Recollection on, and no stand-ins for the away.
        mode = {"mode": "turn_based", "move_deadline": 3600} if rng.random() < 0.25 else {}
        body = {
            "preset": preset,
            "options": options,
            "seats": seats,
            "name": "Host",
            "peek_seconds": PEEK_SECONDS,
            "turn_seconds": TURN_SECONDS,
            "bots": bots,
            "seed": rng.randrange(2**48),
            **mode,
        }
        r = await http.post("/api/tables", json=body)
        r.raise_for_status()
        created = r.json()
        self.code = created["code"]
        tokens = [created["token"]]
        for i in range(seats - 1 - len(bots)):
            r = await http.post(f"/api/tables/{self.code}/join", json={"name": f"P{i + 1}"})
            r.raise_for_status()
            tokens.append(r.json()["token"])
        return tokens

    async def play(self) -> None:
        tokens = await self._open()
        if tokens is None:
            return
        self.oracle = TableOracle(self.run.db, self.code)
        clients = self.clients = [Client(self, t, host=i == 0) for i, t in enumerate(tokens)]
        if self.rng.random() < 0.5:
            clients.append(Client(self, None, host=False))
        tasks = [asyncio.create_task(c.live()) for c in clients]
        await self._watch()
        await asyncio.sleep(0.5)  # the last events reach every client
        self.done.set()
        await asyncio.wait(tasks, timeout=REPLY_TIMEOUT)
        for task in tasks:
            task.cancel()
        await self.finish()

    async def _watch(self) -> None:
        """Until the table is done or the run stops; a table that stops moving is a failure."""
        while not self.done.is_set() and not self.run.stop.is_set():
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.done.wait(), 2.0)
            if self.run.up.is_set() and time.monotonic() - self.progress > STUCK_AFTER:
                where = "; ".join(c.where() for c in self.clients)
                self.run.tally.fail(
                    "stuck", f"table {self.code}: no frame for {STUCK_AFTER:g} s: {where}"
                )
                return

    async def _open(self) -> list[str] | None:
        """Create the table, retrying after a kill; None when the run stops first."""
        transport = httpx.AsyncHTTPTransport(local_address=self.address)
        async with httpx.AsyncClient(
            base_url=self.run.server.url, transport=transport, timeout=10, trust_env=False
        ) as http:
            while not self.run.stop.is_set():
                await self.run.up.wait()
                if not self.run.claim_game():
                    return None
                try:
                    tokens = await self.create(http)
                except httpx.HTTPError as e:  # killed mid-way: this table is left in its lobby
                    self.run.tally.games_started -= 1
                    self.run.tally.errors[f"setup {type(e).__name__}"] += 1
                    self.address = self.run.address()
                    await asyncio.sleep(0.2)
                    continue
                self.played = 1
                self.run.tally.tables += 1
                return tokens
        return None

    async def finish(self) -> None:
        """The oracle's last word on this table: its frames, its acks, its log."""
        if self.oracle is None:
            return
        for _ in range(20):  # a kill may come as the log is read: again once the server is up
            await self.run.up.wait()
            if self.check():
                break
            await asyncio.sleep(0.5)
        tally = self.run.tally
        try:
            tally.lost += self.oracle.lost(self.acks)
        except sqlite3.Error as e:
            tally.fail("log_unread", f"table {self.code}: {e}")
        tally.games += self.oracle.games
        for problem in self.oracle.problems:
            tally.fail("log", f"table {self.code}: {problem}")
        self.oracle = None


# ------------------------------------------------------------------ the run


async def killer(run: Run) -> None:
    """SIGKILL the server at random intervals around --kill-every, and start it again."""
    every = run.args.kill_every
    while every > 0:
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(run.stop.wait(), run.rng.uniform(0.5, 1.5) * every)
        if run.stop.is_set():
            return
        try:
            await kill_and_restart(run)
        except RuntimeError as e:  # the server did not come back: nothing more can be played
            run.tally.fail("restart", str(e))
            run.stop.set()
            return


async def kill_and_restart(run: Run) -> None:
    run.up.clear()
    run.epoch += 1
    run.server.proc.send_signal(signal.SIGKILL)
    await asyncio.to_thread(run.server.proc.wait, 10)
    run.tally.kills += 1
    run.server = run.launch()
    async with httpx.AsyncClient(timeout=5, trust_env=False) as http:
        await wait_healthy(run.server, http)
    run.tally.restarts += 1
    run.up.set()


async def tables(run: Run, slot: int) -> None:
    """One of --tables slots: a table after another until the run has its games."""
    while not run.stop.is_set() and run.tally.games_started < run.args.games:
        table = TableRun(run, slot)
        await table.play()


async def clock(run: Run) -> None:
    """The hard limit, and a progress line every 30 s."""
    start = time.monotonic()
    next_line = start + 30
    while not run.stop.is_set():
        await asyncio.sleep(1.0)
        now = time.monotonic()
        if now >= run.deadline:
            print(f"time limit of {run.args.seconds:g} s reached: stopping", flush=True)
            run.stop.set()
        if now >= next_line:
            next_line += 30
            t = run.tally
            print(
                f"  {now - start:.0f} s: {t.games_started} games started, {t.games} checked, "
                f"{t.findings.frames} frames, {t.findings.leaks} leaks, {t.kills} kills",
                flush=True,
            )


async def soak(run: Run) -> Tally:
    async with httpx.AsyncClient(timeout=5, trust_env=False) as http:
        await wait_healthy(run.server, http)
    run.up.set()
    background = [asyncio.create_task(killer(run)), asyncio.create_task(clock(run))]
    try:
        await asyncio.gather(*(tables(run, i) for i in range(run.args.tables)))
    finally:
        run.stop.set()
        for task in background:
            task.cancel()
        await asyncio.gather(*background, return_exceptions=True)
    if run.server.proc.poll() is not None:
        run.tally.fail("server_exited", log_tail(run.server))
    return run.tally


def _counts(counter: Counter[str], ordered: bool = False) -> str:
    items = sorted(counter.items()) if ordered else counter.most_common()
    return ", ".join(f"{k} {n}" for k, n in items) or "none"


def report(tally: Tally, seconds: float) -> int:
    f = tally.findings
    failures = sum(tally.failures.values())
    started = f"{tally.games_started} started at {tally.tables} tables"
    print(f"games: {tally.games} played to the end ({started})")
    print(f"frames: {f.frames} checked by the oracle ({f.unchecked} arrived too late to check)")
    print(f"leaks found: {f.leaks}; frames out of step with the log: {f.mismatches}")
    lost = len(tally.lost)
    print(f"acknowledged actions lost: {lost} of {tally.acks} acks ({tally.actions} actions sent)")
    print(f"fuzz frames: {sum(tally.fuzz.values())} ({_counts(tally.fuzz, ordered=True)})")
    print(f"failures: {failures} ({_counts(tally.failures)})")
    print(f"errors answered to real actions: {_counts(tally.errors)}")
    lat = sorted(tally.latencies) or [float("nan")]
    print(
        f"action to ack: median {lat[len(lat) // 2] * 1000:.0f} ms, "
        f"p99 {lat[len(lat) * 99 // 100] * 1000:.0f} ms, max {lat[-1] * 1000:.0f} ms"
    )
    print(f"kills: {tally.kills}; restarts: {tally.restarts}; elapsed: {seconds:.1f} s")
    for line in (f.examples + tally.lost + tally.failure_examples)[:15]:
        print(f"  {line}")
    return 1 if f.leaks or f.mismatches or tally.lost or failures else 0


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--games", type=int, default=200, help="matches to start in all")
    parser.add_argument("--tables", type=int, default=12, help="tables playing at once")
    parser.add_argument("--games-per-table", type=int, default=4, help="mean matches per table")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--kill-every", type=float, default=10.0, help="mean seconds between kills (0: none)"
    )
    parser.add_argument("--fuzz", type=float, default=0.03, help="share of decisions that fuzz")
    parser.add_argument("--seconds", type=float, default=600.0, help="hard time limit")
    parser.add_argument("--think", type=float, default=0.05, help="mean seconds a client waits")
    parser.add_argument("--bot-delay", type=float, default=0.02, help="the server's bot delay")
    parser.add_argument("--port", type=int, default=0, help="server port (default: a free one)")
    parser.add_argument("--data-root", default=None, help="where the temporary data folder goes")
    args = parser.parse_args(argv)
    if not 1 <= args.games <= 10**6 or not 1 <= args.tables <= 1000:
        parser.error("--games: 1 to 1000000; --tables: 1 to 1000")
    if args.games_per_table < 1 or args.kill_every < 0 or not 0 <= args.fuzz <= 1:
        parser.error("--games-per-table at least 1, --kill-every not negative, --fuzz 0 to 1")
    if not 0 < args.seconds <= 86400 or args.think <= 0 or args.bot_delay < 0:
        parser.error("--seconds: up to 86400; --think positive; --bot-delay not negative")
    return args


def main(argv: list[str] | None = None) -> int:
    tally, seconds = run_soak(parse_args(argv))
    return report(tally, seconds)


def run_soak(args: argparse.Namespace) -> tuple[Tally, float]:
    """The whole soak: its tally and the seconds it took."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, max(soft, args.tables * 8 + 1024)), hard))
    print(
        f"Facedown soak: {args.games} games on {args.tables} tables at once, seed {args.seed}, "
        f"kill -9 about every {args.kill_every:g} s, fuzz {args.fuzz:g}, at most "
        f"{args.seconds:g} s; server on {HOST}",
        flush=True,
    )
    start = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="facedown-soak-", dir=args.data_root) as tmp:
        run = Run(args, Path(tmp))
        try:
            tally = asyncio.run(soak(run))
        finally:
            if run.server.proc.poll() is None:
                run.server.proc.kill()
            run.server.proc.wait(10)
    return tally, time.monotonic() - start


if __name__ == "__main__":
    sys.exit(main())
