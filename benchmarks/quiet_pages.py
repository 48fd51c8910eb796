"""Quiet pages: what the web client's keepalive pings cost a server.

An open table page that hears nothing from the server pings it (``PING_MS`` in
``web/src/lib/connection.ts``), so that a stalled process is noticed within seconds.  This starts
one ``facedown serve`` process, opens ``--pages`` Live tables each with one connected player
whose table waits for its start (nothing happens at it), and measures the
server's CPU time (user + system, every thread) over ``--seconds`` seconds in each phase: no
pings at all, then a ping every ``--every`` seconds from every page (each a list of seconds).
Each page's first ping is spread over the interval, as real pages' are.

    .venv/bin/python -m benchmarks.quiet_pages
    .venv/bin/python -m benchmarks.quiet_pages --pages 500 --every 5 1.5 1
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import random
import sys
import tempfile
import time
from pathlib import Path

import httpx
from websockets.asyncio.client import ClientConnection, connect

from benchmarks.serverproc import free_port, start_server, stop_server, wait_healthy


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--pages", type=int, default=300, help="open table pages (default 300)")
    p.add_argument("--seconds", type=float, default=20.0, help="seconds per phase (default 20)")
    p.add_argument(
        "--every",
        type=float,
        nargs="+",
        default=[5.0, 1.5],
        help="ping intervals to measure, in seconds (default 5 1.5)",
    )
    return p.parse_args(argv)


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of a process and all its threads so far (from /proc)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


async def open_page(url: str, ws_url: str, i: int) -> ClientConnection:
    """A Live table with a bot, not started, and its host's page connected and welcomed."""
    address = f"127.4.{i // 250 % 250}.{i % 250 + 1}"  # the per-address caps count each page apart
    transport = httpx.AsyncHTTPTransport(local_address=address)
    async with httpx.AsyncClient(base_url=url, transport=transport, timeout=30) as http:
        body = {"preset": "cabo", "seats": 2, "bots": ["random"], "name": f"P{i}"}
        body |= {"peek_seconds": 600, "turn_seconds": 3600}
        r = await http.post("/api/tables", json=body)
        r.raise_for_status()
        created = r.json()
    ws = await connect(ws_url, ping_interval=None, local_addr=(address, 0), max_size=2**22)
    hello = {"type": "hello", "table": created["code"], "token": created["token"], "last_seq": 0}
    await ws.send(json.dumps(hello))
    while json.loads(await ws.recv())["type"] != "welcome":
        pass
    return ws


async def drain(ws: ClientConnection) -> None:
    """Read (and drop) whatever the server sends: the pongs."""
    with contextlib.suppress(Exception):
        async for _ in ws:
            pass


async def ping_every(ws: ClientConnection, every: float, until: float, rng: random.Random) -> int:
    await asyncio.sleep(rng.uniform(0, every))
    sent = 0
    while time.monotonic() < until:
        await ws.send('{"type":"ping"}')
        sent += 1
        await asyncio.sleep(every)
    return sent


async def run(args: argparse.Namespace, pid: int, url: str, ws_url: str) -> None:
    rng = random.Random(1)
    pages = []
    for i in range(args.pages):
        pages.append(await open_page(url, ws_url, i))
    readers = [asyncio.ensure_future(drain(ws)) for ws in pages]
    await asyncio.sleep(2.0)  # the welcomes' frames settle
    print(f"{args.pages} pages open; {args.seconds:.0f} s per phase")
    print(f"{'pings':>22}  {'pings/s':>8}  {'server CPU':>10}  {'of one core':>11}")
    for every in [0.0, *args.every]:
        start_cpu, start = cpu_seconds(pid), time.monotonic()
        until = start + args.seconds
        if every:
            counts = await asyncio.gather(*(ping_every(ws, every, until, rng) for ws in pages))
            sent = sum(counts)
        else:
            await asyncio.sleep(args.seconds)
            sent = 0
        wall = time.monotonic() - start
        cpu = cpu_seconds(pid) - start_cpu
        label = f"every {every:g} s" if every else "none"
        print(f"{label:>22}  {sent / wall:8.0f}  {cpu:9.2f}s  {100 * cpu / wall:10.1f}%")
    for ws in pages:
        await ws.close()
    for reader in readers:
        reader.cancel()


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="facedown-quiet-") as tmp:
        server = start_server(free_port(), Path(tmp), extra=["--bot-delay", "0"])
        try:

            async def go() -> None:
                async with httpx.AsyncClient() as http:
                    await wait_healthy(server, http)
                await run(args, server.proc.pid, server.url, server.ws_url)

            asyncio.run(go())
        finally:
            stop_server(server, grace=10)
    return 0


if __name__ == "__main__":
    sys.exit(main())
