"""Failover: how fast a cluster's tables move when their owner is killed or stalls, and whether
anything acknowledged is lost or applied twice.

Starts ``--processes`` ``facedown serve`` processes on the machine's PostgreSQL (a database of
the run's own, dropped at the end) and Redis (``--redis-db``, emptied at the end), opens
``--tables`` Live tables (one scripted player and one bot each, every table from its own
loopback address), and plays them: each player acts ``--think`` seconds after its turn comes.
Then, ``--events`` times, it picks a process at random and sends it ``kill -9`` or ``SIGSTOP``
(alternating; a stopped process gets ``SIGCONT`` after ``--stall`` seconds, a killed one is
started again), either at a random moment or right after one of its tables was sent an action
(a write under way there).  The players behave as the web client does: a connection that
answers neither an action nor a ping within ``--answer`` seconds (a quiet one is pinged after
1.5 s), or a process that does not open a socket within 2 s, is given up, and the player
connects to the next process and sends its unanswered action again with the same id.

Per event it prints the seconds from the signal to each affected table's next acknowledged
action (min, median, max over the tables the signalled process owned), then over the run the
acknowledged actions lost (acknowledged, but not in the table's log at the seq acknowledged)
and doubled (one id twice in a log), and the errors the clients saw, by code.

    .venv/bin/python -m benchmarks.failover
    .venv/bin/python -m benchmarks.failover --tables 30 --events 6 --stall 20

``tests/server/cluster/test_failover.py`` runs a short one.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import random
import secrets
import signal
import statistics
import sys
import tempfile
import time
import uuid
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
from sqlalchemy import text
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed, InvalidHandshake

from benchmarks.cluster import ADMIN_URL, create_database, drop_database
from benchmarks.serverproc import Server, free_port, start_server, stop_server, wait_healthy
from facedown.store import make_engine

KILL, STOP = "kill -9", "SIGSTOP"
QUIET = 1.5  # seconds without a frame before a player pings (the web client's PING_MS)
OPEN = 2.0  # seconds for a process to open a socket asked for (the web client's OPEN_MS)


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--processes", type=int, default=3, help="cluster size (default 3)")
    p.add_argument("--tables", type=int, default=24, help="tables played at once (default 24)")
    p.add_argument("--events", type=int, default=4, help="signals sent (default 4)")
    p.add_argument("--stall", type=float, default=8.0, help="seconds a SIGSTOP lasts (default 8)")
    p.add_argument("--think", type=float, default=0.5, help="seconds before each action (0.5)")
    p.add_argument("--warmup", type=float, default=5.0, help="seconds of play first (default 5)")
    p.add_argument("--settle", type=float, default=15.0, help="seconds after each event (15)")
    p.add_argument("--lease", type=float, default=5.0, help="--lease-seconds of the servers (5)")
    p.add_argument(
        "--answer", type=float, default=3.0, help="client's answer timeout (3 s: the web client's)"
    )
    p.add_argument("--seed", type=int, default=1, help="random seed (default 1)")
    p.add_argument("--postgres", default=ADMIN_URL, help=f"an admin URL (default {ADMIN_URL})")
    p.add_argument("--redis-db", type=int, default=14, help="Redis database number (default 14)")
    p.add_argument(
        "--keep",
        type=Path,
        default=None,
        help="keep the servers' folders (their logs) here, and the run's database (not dropped)",
    )
    return p.parse_args(argv)


# ------------------------------------------------------------------ the processes


@dataclass
class Node:
    index: int
    port: int
    data: Path
    server: Server | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def ws_url(self) -> str:
        return f"ws://127.0.0.1:{self.port}/ws"

    @property
    def proc(self) -> Any:
        if self.server is None:
            raise RuntimeError(f"process {self.index} was never started")
        return self.server.proc

    @property
    def pid(self) -> int:
        pid: int = self.proc.pid
        return pid


class Cluster:
    def __init__(self, args: argparse.Namespace, database_url: str, root: Path) -> None:
        self.database_url = database_url
        self.redis_url = f"redis://127.0.0.1:6379/{args.redis_db}"
        self.secret = secrets.token_hex(32)
        self.extra = [
            "--database-url",
            database_url,
            "--redis-url",
            self.redis_url,
            "--lease-seconds",
            str(args.lease),
            "--bot-delay",
            "0.05",
            "--rebalance",
            "off",  # the tables move for the signals alone
        ]
        self.nodes = [Node(i, free_port(), root / f"p{i}") for i in range(args.processes)]
        self.verbose = args.keep is not None

    def start(self, node: Node) -> None:
        node.data.mkdir(exist_ok=True)
        node.server = start_server(node.port, node.data, extra=self.extra, secret=self.secret)

    async def start_all(self) -> None:
        for node in self.nodes:
            self.start(node)
        async with httpx.AsyncClient(timeout=10) as http:
            for node in self.nodes:
                if node.server is not None:
                    await wait_healthy(node.server, http)

    def stop_all(self) -> None:
        for node in self.nodes:
            if node.server is not None:
                with contextlib.suppress(ProcessLookupError):
                    node.server.proc.send_signal(signal.SIGCONT)
                stop_server(node.server, grace=10)

    async def owners(self) -> dict[str, int]:
        """Table id -> the pid in its lease's owner (node ids end in pid and a random tail);
        table leases only (a lease of work done once per cluster, the ranked queue's, is not
        a table: a process holding only that owns nothing to measure)."""
        engine = make_engine(self.database_url)
        try:
            async with engine.connect() as connection:
                rows = (
                    await connection.execute(
                        text(
                            "SELECT name, owner FROM leases"
                            " WHERE expires_at > 0 AND name LIKE 'table:%'"
                        )
                    )
                ).all()
        finally:
            await engine.dispose()
        return {str(n).split(":", 1)[1]: int(str(o).split("-")[-2]) for n, o in rows}

    async def logs(self) -> dict[str, list[tuple[int, dict[str, Any]]]]:
        engine = make_engine(self.database_url)
        try:
            async with engine.connect() as connection:
                rows = (
                    await connection.execute(
                        text(
                            "SELECT t.code, l.seq, l.payload FROM table_log l"
                            " JOIN tables t ON t.id = l.table_id"
                            " WHERE l.kind = 'action' ORDER BY l.seq"
                        )
                    )
                ).all()
        finally:
            await engine.dispose()
        out: dict[str, list[tuple[int, dict[str, Any]]]] = {}
        for code, seq, payload in rows:
            loaded = json.loads(payload) if isinstance(payload, str) else payload
            out.setdefault(str(code), []).append((int(seq), loaded))
        return out


# ------------------------------------------------------------------ a player


class Silent(Exception):
    """The connection answered nothing in time: given up, as the web client does."""


@dataclass
class Player:
    """The scripted seat of one table (its host), playing random legal moves (no TAPs)."""

    index: int
    code: str
    table_id: str
    token: str
    urls: list[str]
    answer: float
    address: str
    at: int = 0
    ws: ClientConnection | None = None
    seq: int = 0
    legal: list[dict[str, Any]] = field(default_factory=list)
    phase: str = ""
    acked: dict[str, int] = field(default_factory=dict)  # action id -> seq
    acks: list[float] = field(default_factory=list)  # monotonic time of each acknowledgement
    errors: Counter[str] = field(default_factory=Counter)
    reconnections: int = 0
    due: float | None = None  # when an answer to a frame of ours is due (monotonic)
    rematched: int = -1  # the seq at which this player last asked for a rematch
    sent: asyncio.Event = field(default_factory=asyncio.Event)  # an action just went out

    async def open(self) -> None:
        """Connect to a process (the next one after a failure) and catch up."""
        for attempt in range(400):
            url = self.urls[self.at % len(self.urls)]
            try:
                ws = await connect(
                    url,
                    max_size=2**22,
                    open_timeout=OPEN,
                    ping_interval=None,
                    local_addr=(self.address, 0),
                )
            except (OSError, InvalidHandshake, TimeoutError):
                self.at += 1
                await asyncio.sleep(0.05)
                continue
            self.ws, self.due = ws, None
            try:
                await self._send(
                    {"type": "hello", "table": self.code, "token": self.token, "last_seq": self.seq}
                )
                while True:
                    msg = await self._recv(self.answer * 4)  # a hello may wait for a takeover
                    if msg["type"] == "error":
                        raise Silent(msg["code"])
                    if msg["type"] == "snapshot" or (
                        msg["type"] == "table" and msg["table"]["status"] == "lobby"
                    ):
                        return
            except (ConnectionClosed, Silent, TimeoutError):
                with contextlib.suppress(Exception):
                    await ws.close()
                self.ws = None
                self.at += 1
                await asyncio.sleep(min(1.0, 0.05 * (attempt + 1)))
        raise RuntimeError(f"{self.code}: no process took the player back")

    async def reopen(self) -> None:
        self.reconnections += 1
        if self.ws is not None:
            self.ws.transport.abort()  # no close handshake with a stalled peer
        self.ws = None
        self.due = None
        self.at += 1
        await self.open()

    async def _send(self, message: dict[str, Any]) -> None:
        if self.ws is None:
            raise Silent("not connected")
        await self.ws.send(json.dumps(message))
        if self.due is None:  # some frame must come back within the answer time
            self.due = time.monotonic() + self.answer

    async def _recv(self, timeout: float) -> dict[str, Any]:  # noqa: ASYNC109 - an idle limit
        if self.ws is None:
            raise Silent("not connected")
        msg: dict[str, Any] = json.loads(await asyncio.wait_for(self.ws.recv(), timeout))
        self.due = None
        if msg["type"] == "error":
            self.errors[msg["code"]] += 1
        if msg["type"] in ("event", "snapshot", "missed"):
            self.seq = max(self.seq, msg["seq"])
        if msg["type"] in ("event", "snapshot"):
            self.legal, self.phase = msg["legal"], msg["view"]["phase"]
        return msg

    async def heard(self) -> dict[str, Any]:
        """The next frame, as the web client waits for it: a frame of ours must be answered
        within the answer time, and a server quiet for ``QUIET`` seconds is pinged."""
        if self.due is None:
            try:
                return await self._recv(QUIET)
            except TimeoutError:
                await self._send({"type": "ping"})
        try:
            return await self._recv(max(0.0, (self.due or 0.0) - time.monotonic()))
        except TimeoutError:
            raise Silent("no answer") from None

    async def act(self, action: dict[str, Any]) -> None:
        """Send the action and wait for its answer; on a lost or silent connection, reconnect
        and send it again with the same id."""
        action_id = uuid.uuid4().hex[:12]
        while True:
            try:
                await self._send(
                    {"type": "action", "id": action_id, "seq": self.seq, "action": action}
                )
                self.sent.set()
                while True:
                    msg = await self.heard()
                    if (msg["type"] == "event" and msg.get("ack") == action_id) or (
                        msg["type"] == "ack" and msg.get("id") == action_id
                    ):
                        self.acked[action_id] = msg["seq"]
                        self.acks.append(time.monotonic())
                        return
                    if msg["type"] == "error":
                        return  # refused (stale, moved): the player looks again
            except (ConnectionClosed, Silent, OSError):
                await self.reopen()

    async def play(self, think: float, stop: asyncio.Event, rng: random.Random) -> None:
        if self.ws is None:
            await self.open()
        while not stop.is_set():
            try:
                if self.phase == "match_over":
                    if self.rematched != self.seq:  # once per match's end
                        self.rematched = self.seq
                        await self._send({"type": "rematch"})
                    await self.heard()
                    continue
                moves = [a for a in self.legal if a["do"] != "tap"]
                if not moves:
                    await self.heard()
                    continue
                await asyncio.sleep(think * rng.uniform(0.5, 1.5))
                move = {k: v for k, v in rng.choice(moves).items() if k != "by"}
                await self.act(move)
            except (ConnectionClosed, Silent, OSError):
                await self.reopen()


# ------------------------------------------------------------------ the run


@dataclass
class Event:
    kind: str
    moment: str
    node: int
    tables: list[str]
    seconds: list[float] = field(default_factory=list)
    unanswered: int = 0
    stuck: list[str] = field(default_factory=list)  # what the unanswered tables' players saw
    moved: int = 0  # of its tables, how many another process (or its restart) owned after


async def make_tables(cluster: Cluster, count: int, answer: float) -> list[Player]:
    players = []
    urls = [n.ws_url for n in cluster.nodes]
    for i in range(count):
        address = f"127.3.{i // 250 % 250}.{i % 250 + 1}"
        node = cluster.nodes[i % len(cluster.nodes)]
        transport = httpx.AsyncHTTPTransport(local_address=address)
        async with httpx.AsyncClient(base_url=node.url, transport=transport, timeout=20) as http:
            body = {"preset": "cabo", "seats": 2, "bots": ["random"], "name": f"P{i}"}
            body |= {"peek_seconds": 600, "turn_seconds": 3600}
            r = await http.post("/api/tables", json=body)
            r.raise_for_status()
            created = r.json()
            players.append(
                Player(i, created["code"], "", created["token"], urls, answer, address, at=i)
            )
    return players


async def signal_one(
    cluster: Cluster, players: list[Player], kind: str, moment: str, rng: random.Random
) -> tuple[Node, list[Player], float]:
    owners = await cluster.owners()
    live = [n for n in cluster.nodes if n.server is not None and n.server.proc.poll() is None]
    owning = [n for n in live if n.pid in owners.values()]
    node = rng.choice(owning or live)  # one that owns tables, for the event to measure anything
    if cluster.verbose:
        held = Counter(owners.values())
        print(f"  leases held by pid: {dict(held)}; live: {[n.pid for n in live]}", flush=True)
    mine = [p for p in players if owners.get(p.table_id) == node.pid]
    if moment == "mid-write" and mine:
        for p in mine:
            p.sent.clear()
        # The signal right after one of its tables was sent an action: its write is under way.
        done, _ = await asyncio.wait(
            [asyncio.ensure_future(p.sent.wait()) for p in mine], timeout=10
        )
        for task in done:
            task.cancel()
    node.proc.send_signal(signal.SIGKILL if kind == KILL else signal.SIGSTOP)
    return node, mine, time.monotonic()


@dataclass
class Outcome:
    events: list[Event]
    acked: int
    lost: int
    doubled: int
    errors: Counter[str]


async def run(args: argparse.Namespace, cluster: Cluster) -> Outcome:
    rng = random.Random(args.seed)
    await cluster.start_all()
    print(f"{args.processes} processes up; opening {args.tables} tables", flush=True)
    players = await make_tables(cluster, args.tables, args.answer)
    engine = make_engine(cluster.database_url)
    try:
        async with engine.connect() as connection:
            for p in players:
                found = (
                    await connection.execute(
                        text("SELECT id FROM tables WHERE code = :c"), {"c": p.code}
                    )
                ).scalar_one()
                p.table_id = str(found)
    finally:
        await engine.dispose()
    for p in players:  # the host starts each match
        await p.open()
        await p._send({"type": "start"})
    stop = asyncio.Event()
    tasks = [
        asyncio.ensure_future(p.play(args.think, stop, random.Random(args.seed * 1000 + p.index)))
        for p in players
    ]
    events: list[Event] = []
    try:
        await asyncio.sleep(args.warmup)
        for n in range(args.events):
            kind = KILL if n % 2 == 0 else STOP
            moment = "mid-write" if n % 4 in (1, 2) else "random"
            if moment == "random":
                await asyncio.sleep(rng.uniform(0, args.think * 2))
            node, mine, at = await signal_one(cluster, players, kind, moment, rng)
            event = Event(kind, moment, node.index, [p.code for p in mine])
            signalled = node.pid  # a killed process is started again, with another pid
            events.append(event)
            print(
                f"{kind} of process {node.index} ({moment}): {len(mine)} tables it owned",
                flush=True,
            )
            if kind == STOP:
                await asyncio.sleep(args.stall)
                node.proc.send_signal(signal.SIGCONT)
            else:
                node.proc.wait(10)
                cluster.start(node)
            await asyncio.sleep(args.settle)
            tally(event, mine, at, signalled, await cluster.owners())
    finally:
        stop.set()
        await asyncio.sleep(args.answer * 2 + 1)
        await close(players, tasks)
    return report(events, players, await cluster.logs())


def tally(
    event: Event, mine: list[Player], at: float, signalled: int, owners: dict[str, int]
) -> None:
    """What became of the tables the signalled process owned (``at``: the signal's time)."""
    event.moved = sum(owners.get(p.table_id) != signalled for p in mine)
    for p in mine:
        later = [t - at for t in p.acks if t > at]
        if later:
            event.seconds.append(later[0])
        else:
            event.unanswered += 1
            event.stuck.append(
                f"{p.code}: phase {p.phase}, legal {sorted({a['do'] for a in p.legal})},"
                f" seq {p.seq}, errors {dict(p.errors)}, reconnections {p.reconnections},"
                f" {'on' if p.ws is not None else 'off'} process {p.at % len(p.urls)},"
                f" owner pid {owners.get(p.table_id)} (signalled {signalled})"
            )


async def close(players: list[Player], tasks: Sequence[asyncio.Future[None]]) -> None:
    for t in tasks:
        t.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    for p in players:
        if p.ws is not None:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(p.ws.close(), 2)
            p.ws.transport.abort()


def report(
    events: list[Event], players: list[Player], logs: dict[str, list[tuple[int, dict[str, Any]]]]
) -> Outcome:
    print("\nper event: seconds from the signal to each affected table's next acknowledged action")
    for e in events:
        if e.seconds:
            s = sorted(e.seconds)
            figures = f"min {s[0]:.2f}  median {statistics.median(s):.2f}  max {s[-1]:.2f}"
        else:
            figures = "no table answered"
        print(
            f"  {e.kind:8} ({e.moment:9}) process {e.node}: {len(e.tables):2} tables"
            f" ({e.moved} moved)  {figures}"
            + (f"  ({e.unanswered} with no acknowledged action since)" if e.unanswered else "")
        )
        for line in e.stuck:
            print(f"      {line}")
    lost = doubled = acked = 0
    for p in players:
        log = logs.get(p.code, [])
        ids = Counter(payload.get("id") for _, payload in log if payload.get("id"))
        doubled += sum(1 for c in ids.values() if c > 1)
        at = {payload.get("id"): seq for seq, payload in log if payload.get("id")}
        for action_id, seq in p.acked.items():
            acked += 1
            lost += at.get(action_id) != seq
    errors: Counter[str] = Counter()
    for p in players:
        errors.update(p.errors)
    reconnections = sum(p.reconnections for p in players)
    print(f"acknowledged actions: {acked}; lost {lost}; doubled {doubled}")
    print(f"reconnections: {reconnections}; errors clients saw: {dict(errors) or 'none'}")
    print("  (stale, illegal:* and match_running: a move that raced the bot or the round's end)")
    return Outcome(events, acked, lost, doubled, errors)


def measure(args: argparse.Namespace) -> Outcome:
    """One run on a database and a Redis number of its own, both removed at the end."""
    url = create_database(args.postgres)
    try:
        with contextlib.ExitStack() as stack:
            if args.keep is None:
                root = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="facedown-fo-")))
            else:
                root = args.keep
                root.mkdir(parents=True, exist_ok=True)
            cluster = Cluster(args, url, root)
            try:
                return asyncio.run(run(args, cluster))
            finally:
                cluster.stop_all()
    finally:
        if args.keep is None:
            drop_database(args.postgres, url)
        else:
            print(f"kept: the servers' folders in {args.keep}, the database {url}")
        with contextlib.suppress(Exception):
            import redis

            redis.Redis.from_url(f"redis://127.0.0.1:6379/{args.redis_db}").flushdb()


def main(argv: list[str] | None = None) -> int:
    outcome = measure(parse_args(argv))
    return 1 if outcome.lost or outcome.doubled else 0


if __name__ == "__main__":
    sys.exit(main())
