"""One address holding slow sockets against a real server: the share of honest clients served.

Starts ``facedown serve`` as a separate process on 127.0.0.1 (SQLite in a temporary folder).
An attacker process, bound to 127.0.0.2, keeps ``--sockets`` connections open at once, each
sending the start of a request's headers and then one more header line every ``--drip``
seconds, never ending them; every connection the server closes (at its request deadline, or at
once past the cap per address) is re-opened straight away.  Meanwhile ``--honest`` clients,
each from an address of its own (127.0.1.x), arrive one after another across the attack and
make a whole ``GET /api/health``: a client is served when it gets a 200 within
``--patience`` seconds (what a person waits before giving up).

Printed: honest clients served (and the share), how long they waited (median, max), how many
connections the attacker opened and how many of them the server held to its deadline, and the
server's CPU.  ``--per-address N`` runs the server with ``--max-connections-per-address N``;
a figure above ``--sockets`` shows the server without the cap (the attack the cap is for).

Run from the checkout: ``.venv/bin/python -m benchmarks.slow_clients [--sockets 1000]
[--honest 56] [--duration 40]``.  Loopback only; everything stops after ``--duration`` seconds
(plus the honest clients' patience).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import multiprocessing
import resource
import statistics
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

import httpx

from .serverproc import HOST, free_port, start_server, stop_server, wait_healthy

ATTACKER = "127.0.0.2"
REQUEST_START = b"GET /api/health HTTP/1.1\r\nHost: facedown\r\n"
WHOLE = b"GET /api/health HTTP/1.1\r\nHost: facedown\r\nConnection: close\r\n\r\n"


@dataclass
class AttackCount:
    opened: int = 0
    held: int = 0  # closed by the server only after the request deadline (a 408)
    refused: int = 0  # closed before it (a 503 at once, or a reset)
    failed: int = 0  # could not even connect


async def _slow_socket(port: int, drip: float, until: float, count: AttackCount) -> None:
    """One of the attacker's sockets: re-opened each time the server closes it."""
    while time.monotonic() < until:
        try:
            reader, writer = await asyncio.open_connection(HOST, port, local_addr=(ATTACKER, 0))
        except OSError:
            count.failed += 1
            await asyncio.sleep(0.05)  # the backlog is full: try again shortly
            continue
        count.opened += 1
        answer = b""
        try:
            writer.write(REQUEST_START)
            while time.monotonic() < until:
                with contextlib.suppress(TimeoutError):
                    chunk = await asyncio.wait_for(reader.read(4096), drip)
                    if not chunk:
                        break
                    answer += chunk
                    continue
                writer.write(b"X-Slow: 1\r\n")  # one more line of headers, never the end
        except OSError:
            pass
        finally:
            writer.close()
            with contextlib.suppress(OSError):
                await writer.wait_closed()
        if answer.startswith(b"HTTP/1.1 408"):
            count.held += 1
        else:
            count.refused += 1


def attack(port: int, sockets: int, drip: float, seconds: float, out: multiprocessing.Queue[str]):  # type: ignore[no-untyped-def]
    """The attacker's process: ``sockets`` slow sockets for ``seconds``; puts its counts."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, max(soft, sockets + 256)), hard))
    count = AttackCount()

    async def run() -> None:
        until = time.monotonic() + seconds
        await asyncio.gather(*(_slow_socket(port, drip, until, count) for _ in range(sockets)))

    asyncio.run(run())
    out.put(f"{count.opened} {count.held} {count.refused} {count.failed}")


@dataclass
class Honest:
    waited: list[float] = field(default_factory=list)  # seconds to a 200, for those served
    outcomes: dict[str, int] = field(default_factory=dict)


async def honest_client(port: int, source: str, patience: float, result: Honest) -> None:
    began = time.monotonic()
    outcome = "no answer in time"
    try:
        async with asyncio.timeout(patience):
            reader, writer = await asyncio.open_connection(HOST, port, local_addr=(source, 0))
            try:
                writer.write(WHOLE)
                answer = await reader.read()
            finally:
                writer.close()
        status = answer.split(b" ", 2)[1].decode() if answer.startswith(b"HTTP/1.1 ") else "?"
        outcome = f"HTTP {status}" if answer else "closed unanswered"
        if status == "200":
            result.waited.append(time.monotonic() - began)
    except TimeoutError:
        pass
    except OSError as e:
        outcome = type(e).__name__
    result.outcomes[outcome] = result.outcomes.get(outcome, 0) + 1


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / 100  # utime + stime, in clock ticks


async def main(args: argparse.Namespace) -> None:
    port = free_port()
    with tempfile.TemporaryDirectory() as data:
        extra = ["--max-connections-per-address", str(args.per_address)]
        extra += ["--request-timeout", str(args.request_timeout)]
        server = start_server(port, Path(data), extra=extra)
        try:
            async with httpx.AsyncClient(timeout=5) as http:
                await wait_healthy(server, http)
            cpu_before = cpu_seconds(server.proc.pid)
            counts: multiprocessing.Queue[str] = multiprocessing.Queue()
            attacker = multiprocessing.Process(
                target=attack, args=(port, args.sockets, args.drip, args.duration, counts)
            )
            attacker.start()
            await asyncio.sleep(args.warmup)  # the attacker's sockets are all open by now
            result = Honest()
            clients = []
            spacing = (args.duration - args.warmup) / args.honest
            for i in range(args.honest):
                source = f"127.0.1.{i % 250 + 1}"
                clients.append(
                    asyncio.create_task(honest_client(port, source, args.patience, result))
                )
                await asyncio.sleep(spacing)
            await asyncio.gather(*clients)
            attacker.join(args.patience + 30)
            opened, held, refused, failed = (int(n) for n in counts.get(timeout=5).split())
            cpu = cpu_seconds(server.proc.pid) - cpu_before
        finally:
            stop_server(server, 10)
    served = len(result.waited)
    print(
        f"slow clients: {args.sockets} slow sockets from {ATTACKER} for {args.duration:.0f} s "
        f"(a header line every {args.drip} s), server --max-connections-per-address "
        f"{args.per_address} --request-timeout {args.request_timeout:g}"
    )
    print(
        f"honest clients served: {served} of {args.honest} ({served / args.honest:.1%}) "
        f"within {args.patience:g} s; outcomes {dict(sorted(result.outcomes.items()))}"
    )
    if result.waited:
        print(
            f"honest wait: median {statistics.median(result.waited) * 1000:.0f} ms, "
            f"max {max(result.waited) * 1000:.0f} ms"
        )
    print(
        f"attacker: {opened} connections opened, {held} held by the server to the request "
        f"deadline, {refused} closed before it, {failed} connects failed"
    )
    print(f"server CPU: {cpu:.1f} s over the attack ({cpu / args.duration:.0%} of a core)")


def parse(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    p.add_argument("--sockets", type=int, default=1000, help="the attacker's slow sockets")
    p.add_argument("--honest", type=int, default=56, help="honest clients over the attack")
    p.add_argument("--duration", type=float, default=40.0, help="seconds the attack lasts")
    p.add_argument("--warmup", type=float, default=3.0, help="seconds before honest clients")
    p.add_argument("--drip", type=float, default=1.0, help="seconds between header lines")
    p.add_argument("--patience", type=float, default=10.0, help="seconds an honest client waits")
    p.add_argument("--request-timeout", type=float, default=10.0, help="the server's deadline")
    p.add_argument(
        "--per-address", type=int, default=32, help="the server's cap per address (default 32)"
    )
    args = p.parse_args(argv)
    if not (1 <= args.sockets <= 5000 and 1 <= args.honest <= 1000 and args.duration <= 600):
        p.error("at most 5000 sockets, 1000 honest clients and 600 seconds")
    return args


if __name__ == "__main__":
    asyncio.run(main(parse()))
