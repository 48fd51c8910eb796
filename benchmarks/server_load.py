"""Server load: N concurrent 4-player tables of WebSocket bot clients against the real server.

Starts ``facedown serve`` as a separate process (SQLite in a temporary folder) and opens the
tables over HTTP (four human seats, timers long enough never to fire) as fast as it answers:
first every table is created (the host's request), then every table is filled (three joins),
each phase timed (``--create-only`` stops there).  Then it connects four clients per table on
loopback, ``--ramp`` tables a second, and lets them play: about every ``--think`` seconds
(exponential, so a table's actions arrive as a Poisson stream) one client of the table that
holds legal non-TAP actions at the current seq plays one of them at random; when a match ends
the host asks for a rematch.  Once every table plays, they are measured for ``--duration``
seconds after a warm-up.

Printed: tables created and joins per second as the tables are opened (with the server's CPU
for each), then actions applied per second (acks), latency from a client's action to the
resulting event at every client of the table (p50, p95, p99, max), errors, server RSS per
table, and the CPU of both processes.  All clients run in this process on one event loop with
one clock (``time.perf_counter``); the server and the clients share this machine's cores.

Run from the checkout: ``.venv/bin/python -m benchmarks.server_load [--tables 500]
[--duration 60]``.  ``--cluster 1,2,3`` runs the same load on a cluster of 1, then 2, then 3
processes on a PostgreSQL database of its own and Redis (``benchmarks/cluster.py``), each
table's clients spread over the processes (so most are relayed to the table's owner).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import gc
import json
import os
import random
import resource
import shutil
import subprocess
import sys
import tempfile
import time
import uuid
from collections import Counter
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import httpx
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed

from benchmarks import cluster
from benchmarks.engine import play
from benchmarks.serverproc import (
    HEALTHY_WITHIN,
    HOST,
    Server,
    free_port,
    log_tail,
    start_server,
    stop_server,
    wait_healthy,
)
from facedown.engine import PRESETS
from facedown.store.commits import recorded

ACK_TIMEOUT = 10.0  # seconds an action may wait for its ack or error
SETUP_TIMEOUT = 60.0  # seconds to create, fill, connect and start one table
SETUP_CONCURRENCY = 50  # tables being set up at once
PEEK_SECONDS = 600.0  # the server's maximum: the opening peek never times out in a run
TURN_SECONDS = 3600.0  # a turn never times out in a run
LAG_TICK = 0.1  # seconds between the client event-loop lag probes


# ------------------------------------------------------------------ measurements


@dataclass
class Pending:
    """An action in flight: when it was sent and how many clients have seen its event."""

    t0: float
    seen: int = 0


@dataclass
class Stats:
    """What the clients observed; latencies and counts only for the measured window."""

    window: tuple[float, float] = (float("inf"), float("inf"))
    latencies: list[float] = field(default_factory=list)
    acks: int = 0
    rematches: int = 0
    errors: Counter[str] = field(default_factory=Counter)
    unseen: int = 0  # events a client never received (counted per client)
    closed: int = 0  # client connections the server closed during the run
    loop_lag: list[float] = field(default_factory=list)
    gc_pauses: list[float] = field(default_factory=list)  # the clients' collections (seconds)
    server_gc: list[float] = field(default_factory=list)  # the servers' slow ones (logged, ms)
    # The servers' context switches in the window (voluntary, involuntary), and their SQLite
    # commits (None: no commit count, as on PostgreSQL): counts that do not follow the host's
    # speed as CPU time does.
    switches: tuple[int, int] = (0, 0)
    commits: int | None = None

    def measured(self, t: float) -> bool:
        return self.window[0] <= t < self.window[1]


def percentile(values: list[float], q: float) -> float:
    """Nearest-rank percentile of sorted ``values``."""
    if not values:
        return float("nan")
    rank = max(1, min(len(values), round(q / 100 * len(values) + 0.5)))
    return values[rank - 1]


def rss_kib(pid: int) -> int:
    """Resident set size of a process, from /proc/PID/status (KiB)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise RuntimeError(f"no VmRSS for process {pid}")


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of a process, from /proc/PID/stat."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def context_switches(pid: int) -> tuple[int, int]:
    """A process's voluntary and involuntary context switches, summed over its threads now
    (``/proc/PID/task/*/status``; a thread that ended is no longer counted)."""
    counted = [0, 0]
    for task in Path(f"/proc/{pid}/task").iterdir():
        with contextlib.suppress(FileNotFoundError, ProcessLookupError):
            for line in (task / "status").read_text().splitlines():
                name, _, value = line.partition(":")
                if name == "voluntary_ctxt_switches":
                    counted[0] += int(value)
                elif name == "nonvoluntary_ctxt_switches":
                    counted[1] += int(value)
    return counted[0], counted[1]


def commits_made(servers: list[Server]) -> int | None:
    """The SQLite commits the servers made so far (each keeps the count in a file beside its
    database, store/commits.py); None when a server has no such count (PostgreSQL)."""
    made = [recorded(s.log.parent / "facedown.db") for s in servers]
    return None if None in made else sum(m for m in made if m is not None)


def runqueue_seconds(pid: int) -> float:
    """Time the process's main thread (its event loop) was ready to run but waited for a CPU."""
    fields = Path(f"/proc/{pid}/task/{pid}/schedstat").read_text().split()
    return int(fields[1]) / 1e9


def own_cpu_seconds() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


# ------------------------------------------------------------------ clients


def table_address(index: int) -> str:
    """The loopback address a table's clients come from: the server's limits per address
    (connections, tables made, joins) count each table apart, as they would real players."""
    return f"127.1.{index // 250 % 250}.{index % 250 + 1}"


class SeatClient:
    """One player's WebSocket: keeps the last seq, legal actions and phase it saw."""

    def __init__(self, table: TableDriver, index: int, token: str) -> None:
        self.table = table
        self.index = index  # 0 is the host
        self.token = token
        self.ws: ClientConnection | None = None
        self.session = uuid.uuid4().hex[:8]  # action ids are unique per client session
        self.counter = 0
        self.seat: int | None = None
        self.status = ""
        self.seq = 0  # the last seq seen (any message)
        self.state_seq = -1  # the seq of the last event or snapshot
        self.legal: list[dict[str, Any]] = []
        self.phase = ""
        self.closed = False
        self.reader: asyncio.Task[None] | None = None

    def next_id(self) -> str:
        self.counter += 1
        return f"{self.session}-{self.counter}"

    async def open(self, ws_url: str, deflate: bool) -> None:
        self.ws = await connect(
            ws_url,
            max_size=2**22,
            compression="deflate" if deflate else None,
            proxy=None,  # loopback only, whatever the environment says
            ping_interval=None,  # browsers do not ping; keep the measure free of keepalives
            open_timeout=30,
            close_timeout=5,
            local_addr=(self.table.address, 0),  # each table from its own loopback address
        )
        self.reader = asyncio.create_task(self._read())

    async def send(self, message: dict[str, Any]) -> None:
        if self.ws is None:
            raise RuntimeError("send before open")
        await self.ws.send(json.dumps(message))

    async def _read(self) -> None:
        if self.ws is None:
            raise RuntimeError("read before open")
        try:
            async for raw in self.ws:
                now = time.perf_counter()  # before parsing: the frame is here
                self.table.on_message(self, json.loads(raw), now)
        except ConnectionClosed:
            pass
        finally:
            self.closed = True
            self.table.on_closed(self)

    async def close(self) -> None:
        if self.ws is not None:
            with contextlib.suppress(Exception):
                await self.ws.close()
        if self.reader is not None:
            with contextlib.suppress(Exception):
                await self.reader


class TableDriver:
    """One table and its four clients; plays one action about every ``think`` seconds."""

    def __init__(
        self, index: int, code: str, tokens: list[str], stats: Stats, think: float, seed: int
    ) -> None:
        self.index = index
        self.code = code
        self.stats = stats
        self.think = think
        self.rng = random.Random(seed)
        self.address = table_address(index)
        self.clients = [SeatClient(self, i, t) for i, t in enumerate(tokens)]
        self.changed = asyncio.Event()
        self.pending: dict[int, Pending] = {}  # expected seq -> the action sent for it
        self.waiting: dict[str, asyncio.Future[dict[str, Any]]] = {}  # action id -> answer

    # -- receiving
    def on_message(self, client: SeatClient, msg: dict[str, Any], now: float) -> None:
        kind = msg.get("type")
        if kind in ("event", "snapshot"):
            seq = msg["seq"]
            client.seq = client.state_seq = seq
            client.legal = msg["legal"]
            client.phase = msg["view"]["phase"]
            if kind == "event":
                self._seen(seq, now)
                if msg.get("ack") is not None:  # the answer to this seat's own action
                    self._answered(msg["ack"], msg)
        elif kind == "welcome":
            client.seat = msg["seat"]
            client.seq = max(client.seq, msg["seq"])
        elif kind == "table":
            client.status = msg["table"]["status"]
            client.seq = max(client.seq, msg["seq"])
        elif kind in ("ack", "error"):
            answered = self._answered(msg.get("id") or "", msg)
            if not answered and kind == "error" and self.stats.measured(now):
                self.stats.errors[str(msg.get("code"))] += 1
        self.changed.set()

    def _answered(self, action_id: str, msg: dict[str, Any]) -> bool:
        """The answer to the action ``action_id`` (its event, an ack, or an error) arrived."""
        waiter = self.waiting.pop(action_id, None)
        if waiter is None or waiter.done():
            return False
        waiter.set_result(msg)
        return True

    def _seen(self, seq: int, now: float) -> None:
        """One client has the event ``seq``: its latency, if this table sent the action."""
        pending = self.pending.get(seq)
        if pending is None:
            return
        if self.stats.measured(pending.t0):
            self.stats.latencies.append(now - pending.t0)
        pending.seen += 1
        if pending.seen >= len(self.clients):
            del self.pending[seq]

    def on_closed(self, client: SeatClient) -> None:
        self.changed.set()

    async def until(self, condition: Callable[[], bool], seconds: float) -> bool:
        """Wait until ``condition()`` holds; False if ``seconds`` pass first."""
        try:
            async with asyncio.timeout(seconds):
                while not condition():
                    self.changed.clear()
                    await self.changed.wait()
        except TimeoutError:
            return False
        return True

    # -- setting up
    async def connect(self, ws_urls: list[str], deflate: bool) -> None:
        """Client i on ``ws_urls[(table + i) % len]``: in a cluster, a table's players sit on
        different processes."""
        n = len(ws_urls)
        await asyncio.gather(
            *(c.open(ws_urls[(self.index + c.index) % n], deflate) for c in self.clients)
        )
        for c in self.clients:
            await c.send({"type": "hello", "table": self.code, "token": c.token})
        everyone = self.clients
        if not await self.until(lambda: all(c.seat is not None for c in everyone), 30):
            raise RuntimeError(f"table {self.code}: no welcome for every client")
        await self.clients[0].send({"type": "start"})
        if not await self.until(lambda: all(c.state_seq >= 1 for c in everyone), 30):
            raise RuntimeError(f"table {self.code}: the match did not start for every client")

    # -- playing
    async def play(self, stop: asyncio.Event) -> None:
        """Act until ``stop`` is set: think, then one action (or a rematch)."""
        while not stop.is_set():
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stop.wait(), self.rng.expovariate(1 / self.think))
            if stop.is_set() or any(c.closed for c in self.clients):
                return
            await self.step()

    def _candidates(self) -> list[tuple[SeatClient, list[dict[str, Any]]]]:
        top = max(c.seq for c in self.clients)
        out = []
        for c in self.clients:
            if c.closed or c.state_seq != top:
                continue
            moves = [a for a in c.legal if a.get("do") != "tap"]  # TAPs race: never
            if moves:
                out.append((c, moves))
        return out

    async def _rematch(self, host: SeatClient, top: int) -> None:
        """The host asks for a rematch; counted once the table moves on (or closes)."""
        await host.send({"type": "rematch"})
        if await self.until(lambda: host.state_seq > top or host.closed, ACK_TIMEOUT):
            if self.stats.measured(time.perf_counter()):
                self.stats.rematches += 1
        else:
            self.stats.errors["rematch_timeout"] += 1

    async def step(self) -> None:
        host = self.clients[0]
        top = max(c.seq for c in self.clients)
        if host.phase == "match_over" and host.state_seq == top:
            await self._rematch(host, top)
            return
        # Everyone normally has the last event long before the think time is over.
        if not await self.until(lambda: bool(self._candidates()), ACK_TIMEOUT):
            self.stats.errors["nothing_to_do"] += 1
            return
        client, moves = self.rng.choice(self._candidates())
        action = {k: v for k, v in self.rng.choice(moves).items() if k != "by"}
        action_id = client.next_id()
        seq = client.state_seq
        answer: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self.waiting[action_id] = answer
        frame = json.dumps({"type": "action", "id": action_id, "seq": seq, "action": action})
        if client.ws is None:
            raise RuntimeError("an action before open")
        t0 = time.perf_counter()
        self.pending[seq + 1] = Pending(t0)
        try:
            await client.ws.send(frame)
            reply = await asyncio.wait_for(answer, ACK_TIMEOUT)
        except (TimeoutError, ConnectionClosed):
            self.waiting.pop(action_id, None)
            self.pending.pop(seq + 1, None)
            self.stats.errors["no_answer"] += 1
            return
        measured = self.stats.measured(t0)
        if reply["type"] in ("event", "ack"):  # applied (an ack: before, for a resent id)
            if reply["seq"] != seq + 1:
                self.stats.errors["unexpected_seq"] += 1
            elif measured:
                self.stats.acks += 1
        else:
            self.pending.pop(seq + 1, None)
            if measured:
                self.stats.errors[str(reply.get("code"))] += 1
        self._forget_old(seq)

    def _forget_old(self, seq: int) -> None:
        """Drop in-flight records long past: each client that never saw its event counts."""
        for old in [s for s in self.pending if s < seq - 4]:
            pending = self.pending.pop(old)
            if self.stats.measured(pending.t0):
                self.stats.unseen += len(self.clients) - pending.seen

    def finish(self) -> None:
        for pending in self.pending.values():
            if self.stats.measured(pending.t0):
                self.stats.unseen += len(self.clients) - pending.seen
        self.pending.clear()
        self.stats.closed += sum(c.closed for c in self.clients)

    async def close(self) -> None:
        await asyncio.gather(*(c.close() for c in self.clients))


# ------------------------------------------------------------------ the server


class HttpError(RuntimeError):
    """The server answered a request with an error status."""


class Poster:
    """POSTs of JSON over one keep-alive HTTP/1.1 connection from one local address: all a
    table's opening needs.  Lighter than an httpx client by far (a client, its connection pool
    and its parsing cost this process more CPU than the server spends on a creation): with it
    the rates printed are the server's, not the clients'."""

    def __init__(self, url: str, local: str) -> None:
        parts = urlsplit(url)
        self.host, self.port = parts.hostname or HOST, parts.port or 80
        self.local = local
        self.stream: tuple[asyncio.StreamReader, asyncio.StreamWriter] | None = None

    async def post(self, path: str, body: dict[str, Any]) -> dict[str, Any]:
        """The JSON the server answers ``body`` with (HttpError unless its status is 2xx)."""
        if self.stream is None:
            self.stream = await asyncio.open_connection(
                self.host, self.port, local_addr=(self.local, 0)
            )
        reader, writer = self.stream
        data = json.dumps(body).encode()
        head = (
            f"POST {path} HTTP/1.1\r\nHost: {self.host}:{self.port}\r\n"
            f"Content-Type: application/json\r\nContent-Length: {len(data)}\r\n\r\n"
        )
        writer.write(head.encode() + data)
        lines = (await reader.readuntil(b"\r\n\r\n")).decode("latin-1").split("\r\n")
        status = int(lines[0].split()[1])
        headers = dict(line.lower().split(": ", 1) for line in lines[1:] if ": " in line)
        if "content-length" not in headers:
            raise HttpError(f"{path}: {status} with no Content-Length")
        answer = await reader.readexactly(int(headers["content-length"]))
        if headers.get("connection") == "close":
            await self.close()
        if not 200 <= status < 300:
            raise HttpError(f"{path}: {status} {answer[:120].decode(errors='replace')}")
        found: dict[str, Any] = json.loads(answer)
        return found

    async def close(self) -> None:
        if self.stream is not None:
            _, writer = self.stream
            self.stream = None
            writer.close()
            with contextlib.suppress(OSError):
                await writer.wait_closed()


async def create_table(http: Poster, preset: str, options: dict[str, Any]) -> tuple[str, str]:
    """Open a 4-seat table: its code and the host's token."""
    body = {
        "preset": preset,
        "options": options,
        "seats": 4,
        "name": "Host",
        "peek_seconds": PEEK_SECONDS,
        "turn_seconds": TURN_SECONDS,
    }
    created = await http.post("/api/tables", body)
    return created["code"], created["token"]


async def fill_table(http: Poster, code: str) -> list[str]:
    """Take a table's three other seats, one join after the other: their tokens."""
    tokens = []
    for i in range(1, 4):
        joined = await http.post(f"/api/tables/{code}/join", {"name": f"P{i}"})
        tokens.append(joined["token"])
    return tokens


@dataclass
class Opening:
    """The tables opened over HTTP, and how fast: each phase's seconds and successes."""

    tables: dict[int, tuple[str, list[str]]] = field(default_factory=dict)  # index -> code, tokens
    created: int = 0
    create_seconds: float = 0.0
    create_cpu: float = 0.0  # the servers' CPU seconds in the phase
    filled: int = 0
    fill_seconds: float = 0.0
    fill_cpu: float = 0.0


async def open_tables(
    args: argparse.Namespace, servers: list[Server], failures: Counter[str]
) -> Opening:
    """Create every table (the host's request), then fill every table (three joins), each
    phase timed on its own and as fast as the server answers: at most ``SETUP_CONCURRENCY``
    tables at a time, each from its own loopback address (so the per-address limits count
    each table apart).  A table that fails is counted in ``failures`` and left out."""
    options = json.loads(args.options)
    gate = asyncio.Semaphore(SETUP_CONCURRENCY)
    opening = Opening()
    hosts: dict[int, tuple[str, str]] = {}

    async def step(i: int, what: Callable[[Poster], Awaitable[None]]) -> None:
        async with gate:
            http = Poster(servers[i % len(servers)].url, table_address(i))
            try:
                async with asyncio.timeout(SETUP_TIMEOUT):
                    await what(http)
            except Exception as e:  # counted and reported: a run survives a few failures
                failures[type(e).__name__ + (f": {e}"[:120] if str(e) else "")] += 1
            finally:
                await http.close()

    async def create(i: int) -> None:
        async def what(http: Poster) -> None:
            hosts[i] = await create_table(http, args.preset, options)

        await step(i, what)

    async def fill(i: int) -> None:
        code, host = hosts[i]

        async def what(http: Poster) -> None:
            opening.tables[i] = (code, [host, *await fill_table(http, code)])

        await step(i, what)

    pids = [s.proc.pid for s in servers]
    start, cpu = time.perf_counter(), sum(cpu_seconds(p) for p in pids)
    await asyncio.gather(*(create(i) for i in range(args.tables)))
    opening.create_seconds = time.perf_counter() - start
    opening.create_cpu = sum(cpu_seconds(p) for p in pids) - cpu
    opening.created = len(hosts)
    start, cpu = time.perf_counter(), sum(cpu_seconds(p) for p in pids)
    await asyncio.gather(*(fill(i) for i in sorted(hosts)))
    opening.fill_seconds = time.perf_counter() - start
    opening.fill_cpu = sum(cpu_seconds(p) for p in pids) - cpu
    opening.filled = len(opening.tables)
    return opening


def opening_report(opening: Opening, servers: int) -> None:
    """The creation rate and the filling rate, as the tables were opened, and the servers' CPU
    for each (a figure that moves less with the machine's other work than the rates do)."""
    each = f"{servers} server processes" if servers > 1 else "one server process"
    created = opening.created / opening.create_seconds if opening.create_seconds else 0.0
    joins = 3 * opening.filled
    rate = joins / opening.fill_seconds if opening.fill_seconds else 0.0
    print(
        f"tables created over HTTP: {opening.created} in {opening.create_seconds:.1f} s = "
        f"{created:.0f} tables/s ({each}, up to {SETUP_CONCURRENCY} at once; server CPU "
        f"{1000 * opening.create_cpu / max(1, opening.created):.2f} ms a table); "
        f"filled: {joins} joins in {opening.fill_seconds:.1f} s = {rate:.0f} joins/s "
        f"(server CPU {1000 * opening.fill_cpu / max(1, joins):.2f} ms a join); "
        f"load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}",
        flush=True,
    )


def print_failures(failures: Counter[str]) -> None:
    """The five commonest reasons a table could not be set up."""
    for reason, n in failures.most_common(5):
        print(f"  {n} x {reason}")


# ------------------------------------------------------------------ the run


def callgrind_instrument(args: argparse.Namespace, pids: list[int], *, on: bool) -> None:
    """With ``--callgrind``: turn callgrind's counting on or off in the servers run under it."""
    if not args.callgrind:
        return
    control = shutil.which("callgrind_control")
    if control is None:
        raise RuntimeError("--callgrind: no callgrind_control (valgrind) on the PATH")
    for pid in pids:
        subprocess.run(
            [control, "--instr=" + ("on" if on else "off"), str(pid)],
            check=True,
            capture_output=True,
            timeout=60,
        )


def callgrind_total(path: Path) -> int | None:
    """The instructions (Ir) a callgrind output file counted in all (its ``totals:`` line;
    the ``summary:`` line before it may say 0 when counting was turned on by hand)."""
    found = [
        int(line.split()[1])
        for line in path.read_text(errors="replace").splitlines()
        if line.startswith(("summary:", "totals:"))
    ]
    return max(found) if found else None


def watch_gc(stats: Stats) -> Callable[[str, dict[str, int]], None]:
    """A gc callback timing this process's collections in the measured window (a pause of the
    clients delays every frame they read, and shows as server latency)."""
    started = [0.0]

    def callback(phase: str, info: dict[str, int]) -> None:
        now = time.perf_counter()
        if phase == "start":
            started[0] = now
        elif stats.measured(now):
            stats.gc_pauses.append(now - started[0])

    return callback


def slow_collections(servers: list[Server], offsets: list[int]) -> list[float]:
    """The slow garbage collections the servers logged after ``offsets`` of their logs (ms)."""
    found = []
    for server, offset in zip(servers, offsets, strict=True):
        with server.log.open("rb") as log:
            log.seek(offset)
            for line in log.read().decode(errors="replace").splitlines():
                words = line.split()
                if "facedown.gc:" in words and "took" in words:
                    found.append(float(words[words.index("took") + 1]))
    return found


async def lag_probe(stats: Stats, stop: asyncio.Event) -> None:
    """How late the client event loop wakes up (a busy client inflates every latency)."""
    while not stop.is_set():
        start = time.perf_counter()
        await asyncio.sleep(LAG_TICK)
        now = time.perf_counter()
        if stats.measured(now):
            stats.loop_lag.append(now - start - LAG_TICK)


async def watch(servers: list[Server], stats: Stats) -> int:
    """Until the measured window ends: every server still runs; their peak RSS (KiB)."""
    rss_peak = 0
    while time.perf_counter() < stats.window[1]:
        await asyncio.sleep(min(1.0, max(0.0, stats.window[1] - time.perf_counter())))
        for server in servers:
            if server.proc.poll() is not None:
                raise RuntimeError(f"a server exited during the run: {log_tail(server)}")
        rss_peak = max(rss_peak, sum(rss_kib(s.proc.pid) for s in servers))
    return rss_peak


async def run(args: argparse.Namespace, servers: list[Server]) -> Stats:
    stats = Stats()
    stop = asyncio.Event()
    drivers: list[TableDriver] = []
    players: list[asyncio.Task[None]] = []
    failures: Counter[str] = Counter()
    limits = httpx.Limits(max_connections=SETUP_CONCURRENCY)
    ws_urls = [s.ws_url for s in servers]
    async with contextlib.AsyncExitStack() as stack:
        https = [
            await stack.enter_async_context(
                httpx.AsyncClient(base_url=s.url, timeout=30, limits=limits, trust_env=False)
            )
            for s in servers
        ]
        for s, http in zip(servers, https, strict=True):
            await wait_healthy(s, http, within=300 if args.callgrind else HEALTHY_WITHIN)
        await asyncio.sleep(1.0)
        pids = [s.proc.pid for s in servers]
        idle_rss = sum(rss_kib(pid) for pid in pids)
        load_before = os.getloadavg()

        opening = await open_tables(args, servers, failures)
        opening_report(opening, len(servers))
        if args.create_only:
            print_failures(failures)
            return stats
        gate = asyncio.Semaphore(SETUP_CONCURRENCY)

        async def open_table(i: int, code: str, tokens: list[str]) -> None:
            async with gate:
                try:
                    async with asyncio.timeout(SETUP_TIMEOUT):
                        driver = TableDriver(i, code, tokens, stats, args.think, args.seed + i)
                        drivers.append(driver)
                        await driver.connect(ws_urls, args.deflate)
                except Exception as e:  # counted and reported: a run survives a few failures
                    failures[type(e).__name__ + (f": {e}"[:120] if str(e) else "")] += 1
                    return
            players.append(asyncio.create_task(driver.play(stop)))

        lag = asyncio.create_task(lag_probe(stats, stop))
        gc_callback = watch_gc(stats)
        gc.callbacks.append(gc_callback)
        setup_start = time.perf_counter()
        setups = []
        for n, (i, (code, tokens)) in enumerate(sorted(opening.tables.items())):
            await asyncio.sleep(max(0.0, setup_start + n / args.ramp - time.perf_counter()))
            setups.append(asyncio.create_task(open_table(i, code, tokens)))
        await asyncio.gather(*setups)
        setup_seconds = time.perf_counter() - setup_start
        tables = len(players)
        print(
            f"setup: {tables} tables playing after {setup_seconds:.1f} s more "
            f"(connected at {args.ramp:g} tables/s); failed: {sum(failures.values())}",
            flush=True,
        )
        print_failures(failures)
        if not tables:
            raise RuntimeError("no table could be set up")

        # This one process holds every client (a real player has a browser of their own): its
        # thousands of connections would make each full collection a pause of hundreds of ms
        # that every frame read then waits for.  Set up, they stay: out of the collector's way.
        gc.collect()
        gc.freeze()
        gc.set_threshold(50_000, 50, 100)  # as the server: fewer, later passes
        await asyncio.sleep(args.warmup)
        callgrind_instrument(args, pids, on=True)
        logged = [s.log.stat().st_size for s in servers]
        begin = time.perf_counter()
        stats.window = (begin, begin + args.duration)
        cpu_server, cpu_client = sum(cpu_seconds(p) for p in pids), own_cpu_seconds()
        wait_server = sum(runqueue_seconds(p) for p in pids)
        wait_client = runqueue_seconds(os.getpid())
        switched = [context_switches(p) for p in pids]
        commits = commits_made(servers)
        rss_peak = await watch(servers, stats)
        callgrind_instrument(args, pids, on=False)
        stats.server_gc = slow_collections(servers, logged)
        elapsed = time.perf_counter() - begin
        cpu_server = sum(cpu_seconds(p) for p in pids) - cpu_server
        cpu_client = own_cpu_seconds() - cpu_client
        waits = (
            sum(runqueue_seconds(p) for p in pids) - wait_server,
            runqueue_seconds(os.getpid()) - wait_client,
        )
        rss_end = sum(rss_kib(p) for p in pids)
        load_after = os.getloadavg()
        now = [context_switches(p) for p in pids]
        stats.switches = (
            sum(n[0] - b[0] for n, b in zip(now, switched, strict=True)),
            sum(n[1] - b[1] for n, b in zip(now, switched, strict=True)),
        )
        commits_after = commits_made(servers)
        if commits is not None and commits_after is not None:
            stats.commits = commits_after - commits

        stop.set()  # no new actions; those in flight finish (bounded by ACK_TIMEOUT)
        await asyncio.wait(players, timeout=ACK_TIMEOUT + 5)
        for task in players:
            task.cancel()
        await asyncio.sleep(0.5)  # the last events reach every client
        for driver in drivers:
            driver.finish()
        lag.cancel()
        gc.callbacks.remove(gc_callback)
        report(
            args, stats, tables, elapsed, cpu_server, cpu_client, waits,
            idle_rss, rss_end, rss_peak, load_before, load_after, len(servers),
        )  # fmt: skip
        await asyncio.wait(
            [asyncio.create_task(d.close()) for d in drivers], timeout=ACK_TIMEOUT + 5
        )
    return stats


def report(
    args: argparse.Namespace,
    stats: Stats,
    tables: int,
    elapsed: float,
    cpu_server: float,
    cpu_client: float,
    waits: tuple[float, float],
    idle_rss: int,
    rss_end: int,
    rss_peak: int,
    load_before: tuple[float, float, float],
    load_after: tuple[float, float, float],
    processes: int = 1,
) -> None:
    lat = sorted(stats.latencies)
    ms = [percentile(lat, q) * 1000 for q in (50, 95, 99)]
    lag = sorted(stats.loop_lag)
    per_table = (rss_end - idle_rss) / tables
    errors = ", ".join(f"{code} {n}" for code, n in stats.errors.most_common()) or "none"
    cores = os.cpu_count() or 1
    print(f"measured {elapsed:.1f} s after {args.warmup:g} s warm-up")
    print(
        f"actions applied (acks): {stats.acks} = {stats.acks / elapsed:.1f}/s "
        f"(expected about {tables / args.think:.0f}/s); rematches: {stats.rematches}"
    )
    if lat:
        print(
            f"latency action -> event at each of the 4 clients ({len(lat)} samples): "
            f"p50 {ms[0]:.1f} ms, p95 {ms[1]:.1f} ms, p99 {ms[2]:.1f} ms, "
            f"max {lat[-1] * 1000:.1f} ms"
        )
    else:
        print("latency: no samples")
    print(
        f"errors: {errors}; events never received: {stats.unseen}; "
        f"connections closed by the server: {stats.closed}"
    )
    print(
        f"server RSS (all processes): {idle_rss / 1024:.1f} MiB idle, "
        f"{rss_end / 1024:.1f} MiB at the end "
        f"(peak {rss_peak / 1024:.1f} MiB): {per_table:.0f} KiB per table "
        f"(4 WebSockets, engine state, store caches)"
    )
    per_action = 1000 * cpu_server / stats.acks if stats.acks else float("nan")
    print(
        f"server CPU per action: {per_action:.2f} ms ({processes} server "
        f"process{'es' if processes > 1 else ''} together)"
    )
    voluntary, involuntary = stats.switches
    switches = voluntary + involuntary
    switching = (
        f"server context switches: {switches / elapsed:,.0f}/s = "
        f"{switches / stats.acks if stats.acks else float('nan'):.2f} an action "
        f"({voluntary / elapsed:,.0f} voluntary, {involuntary / elapsed:,.0f} involuntary a second)"
    )
    if stats.commits is not None:
        each = stats.acks / stats.commits if stats.commits else float("nan")
        switching += f"; SQLite commits: {stats.commits / elapsed:.0f}/s, {each:.1f} actions each"
    print(switching)
    print(
        f"CPU over the window: server {100 * cpu_server / elapsed:.0f}% of one core, "
        f"clients (this process) {100 * cpu_client / elapsed:.0f}% of one core; "
        f"client event-loop lag p99 {percentile(lag, 99) * 1000:.1f} ms, "
        f"max {(lag[-1] if lag else float('nan')) * 1000:.1f} ms"
    )
    pauses = sorted(stats.gc_pauses)
    print(
        f"client GC: {len(pauses)} collections in the window, "
        f"max {(pauses[-1] if pauses else 0.0) * 1000:.1f} ms, "
        f"total {sum(pauses) * 1000:.0f} ms; server collections of 20 ms or more (its log): "
        f"{len(stats.server_gc)}, max {max(stats.server_gc, default=0.0):.0f} ms"
    )
    print(
        f"event-loop threads ready but waiting for a CPU (run queue): server "
        f"{100 * waits[0] / elapsed:.0f}% of the window, clients {100 * waits[1] / elapsed:.0f}%"
    )
    print(
        f"note: {cores} cores shared by the server, the clients and anything else running; "
        f"load average before setup {' '.join(f'{x:.2f}' for x in load_before)}, "
        f"at the end {' '.join(f'{x:.2f}' for x in load_after)}"
    )
    if tables < 1000 or args.think > 1:
        print("goal (1000 tables, one action a second each): not tested by this run (less load)")
    elif lat:
        met = ms[2] < 50 and lat[-1] * 1000 < 150 and per_action <= 0.6
        print(
            "goal (1000 tables, one action a second each: p99 < 50 ms, max < 150 ms, "
            f"server CPU per action <= 0.6 ms): {'met' if met else 'not met'}"
        )


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--tables", type=int, default=500, help="concurrent 4-player tables")
    parser.add_argument("--duration", type=float, default=60.0, help="seconds measured")
    parser.add_argument("--warmup", type=float, default=10.0, help="seconds before measuring")
    parser.add_argument("--think", type=float, default=2.0, help="mean seconds per table action")
    parser.add_argument("--ramp", type=float, default=50.0, help="tables opened per second")
    parser.add_argument("--port", type=int, default=0, help="server port (default: a free one)")
    parser.add_argument("--preset", default="cabo", choices=["boyo", "cabo", "kivo", "kaboom"])
    parser.add_argument(
        "--options", default='{"rounds": 1}', help="ruleset options as JSON (short matches)"
    )
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--create-only",
        action="store_true",
        help="only open the tables over HTTP (the creation and filling rates), then stop",
    )
    parser.add_argument(
        "--no-deflate",
        dest="deflate",
        action="store_false",
        help="clients do not offer permessage-deflate (the server declines it anyway)",
    )
    parser.add_argument(
        "--data-root",
        default=None,
        help="where the temporary data folder goes (default: the system's temp dir; "
        "/dev/shm takes the disk out of the measure)",
    )
    parser.add_argument(
        "--profile", type=Path, default=None, help="run the server under cProfile into this file"
    )
    parser.add_argument(
        "--callgrind",
        type=Path,
        default=None,
        metavar="FILE",
        help="run the server under valgrind's callgrind, counting instructions in the measured "
        "window only, into FILE: instructions per action, a figure the machine's load does "
        "not change (the server runs about 50 times slower: use a light load)",
    )
    parser.add_argument(
        "--pin",
        action="store_true",
        help="the server on the first core this process may use, the clients on the others "
        "(one server process only): the two never compete for a core",
    )
    parser.add_argument(
        "--cluster",
        default=None,
        metavar="N[,N...]",
        help="a cluster of N processes on PostgreSQL and Redis instead of one on SQLite (a "
        "table's four players on different processes); several counts run one after the other",
    )
    parser.add_argument(
        "--postgres",
        default=cluster.ADMIN_URL,
        help="with --cluster: a PostgreSQL database to create the run's own database from",
    )
    parser.add_argument(
        "--redis-url", default=cluster.REDIS_URL, help="with --cluster: the Redis to use"
    )
    args = parser.parse_args(argv)
    try:
        args.sizes = [int(n) for n in args.cluster.split(",")] if args.cluster else []
    except ValueError:
        parser.error("--cluster: process counts such as 3 or 1,2,3")
    if any(not 1 <= n <= 16 for n in args.sizes):
        parser.error("--cluster: 1 to 16 processes")
    if (args.callgrind or args.pin) and args.profile:
        parser.error("--profile: not with --callgrind or --pin")
    if args.callgrind and args.sizes:
        parser.error("--callgrind: one server process only (not with --cluster)")
    if args.pin and args.sizes:
        parser.error("--pin: one server process only (not with --cluster)")
    if not 1 <= args.tables <= 5000:
        parser.error("--tables: 1 to 5000")
    if not 0 < args.duration <= 3600 or not 0 <= args.warmup <= 600:
        parser.error("--duration: up to 3600 s; --warmup: up to 600 s")
    if args.think <= 0 or args.ramp <= 0:
        parser.error("--think and --ramp must be positive")
    return args


def host_speed(core: int, seconds: float = 3.0) -> None:
    """Print how fast this machine runs the interpreter on the server's core, before the load:
    the engine's random play (``benchmarks/engine.py``, 4-player cabo) in actions per second of
    CPU.  Server CPU figures of different machines (or of one machine on different days) are
    comparable only beside it: the same code took 0.6 ms an action on one and 1.0 ms on another."""
    cores = os.sched_getaffinity(0)
    os.sched_setaffinity(0, {core})
    try:
        start = time.process_time()
        figures = play(PRESETS["cabo"], 4, seconds, seed=1, count_turns=False)
        used = time.process_time() - start
    finally:
        os.sched_setaffinity(0, cores)
    print(
        f"host speed: the engine's random play (4-player cabo) on core {core}: "
        f"{figures.actions / used:,.0f} actions per CPU second",
        flush=True,
    )


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    wanted = min(hard, max(soft, args.tables * 4 + 1024))  # the server inherits it too
    resource.setrlimit(resource.RLIMIT_NOFILE, (wanted, hard))
    store = (
        "PostgreSQL (a database of the run's own) and Redis"
        if args.sizes
        else f"SQLite in {args.data_root or tempfile.gettempdir()}"
    )
    print(
        f"Facedown server load: {args.tables} tables x 4 WebSocket clients, preset {args.preset} "
        f"{args.options}, one action per table every {args.think:g} s on average "
        f"(no TAPs), clients offer deflate: {'yes' if args.deflate else 'no'} "
        f"(the server declines), {store}",
        flush=True,
    )
    if args.sizes:
        return cluster.run_sizes(args, run)
    server_cpus = None
    if args.pin:
        cores = sorted(os.sched_getaffinity(0))
        if len(cores) < 2:
            print("error: --pin needs two cores", file=sys.stderr)
            return 1
        server_cpus = {cores[0]}
        host_speed(cores[0])
        os.sched_setaffinity(0, set(cores[1:]))  # before any thread of the clients starts
        print(f"pinned: the server on core {cores[0]}, the clients on {cores[1:]}")
    wrapper: list[str] = []
    if args.callgrind:
        wrapper = ["valgrind", "--tool=callgrind", "--instr-atstart=no"]
        wrapper += [f"--callgrind-out-file={args.callgrind}"]
    stats = Stats()
    with tempfile.TemporaryDirectory(prefix="facedown-load-", dir=args.data_root) as tmp:
        extra = ["--max-connections", str(args.tables * 4 + 200)]  # every client is let in
        server = start_server(
            args.port or free_port(),
            Path(tmp),
            profile=args.profile,
            extra=extra,
            cpus=server_cpus,
            wrapper=wrapper,
        )
        try:
            stats = asyncio.run(run(args, [server]))
        except RuntimeError as e:
            print(f"error: {e}", file=sys.stderr)
            return 1
        finally:
            slow = bool(args.profile or args.callgrind)
            stop_server(server, grace=120 if slow else 10, profiled=bool(args.profile))
    if args.callgrind:
        total = callgrind_total(args.callgrind) if args.callgrind.exists() else None
        if total is None or not stats.acks:
            print(f"callgrind: no count in {args.callgrind}")
        else:
            print(
                f"server instructions per action (callgrind, the measured window): "
                f"{total / stats.acks / 1e6:.2f} M ({total / 1e9:.2f} G for {stats.acks} acks)"
            )
    if args.profile:
        written = args.profile.exists()
        print(f"server profile: {args.profile}{'' if written else ' (not written)'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
