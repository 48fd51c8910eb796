"""``facedown serve`` as a separate process on loopback, for the benchmarks that drive it.

Shared by ``server_load.py`` and ``soak.py``: a free port, starting the server in its own
session (a Ctrl-C hits the benchmark only), waiting for its health check, the tail of its log,
and stopping it.  The log is appended to, so a server restarted on the same data folder keeps
one log.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import secrets
import signal
import socket
import subprocess
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import httpx

HOST = "127.0.0.1"
HEALTHY_WITHIN = 30.0  # seconds the started server may take to answer its health check


def free_port() -> int:
    with socket.socket() as s:
        s.bind((HOST, 0))
        port: int = s.getsockname()[1]
        return port


@dataclass
class Server:
    proc: subprocess.Popen[bytes]
    url: str
    ws_url: str
    log: Path


def start_server(
    port: int,
    data: Path,
    *,
    profile: Path | None = None,
    extra: Sequence[str] = (),
    secret: str | None = None,
    env: Mapping[str, str] | None = None,
    cpus: set[int] | None = None,
    wrapper: Sequence[str] = (),
) -> Server:
    """``facedown serve`` on ``HOST:port`` with its data in ``data``; ``extra`` are more
    arguments (``--test-hooks``, ``--bot-delay``); ``secret`` signs the session tokens (pass
    the same one to a restarted server, or every token is refused); ``env`` adds variables
    (``FACEDOWN_CRASH_AT``); ``cpus`` pins the server (and every thread it starts) to those
    cores."""
    env = {**os.environ, "FACEDOWN_SECRET": secret or secrets.token_hex(32), **(env or {})}
    command = [*wrapper, sys.executable]
    if profile is not None:
        command += ["-m", "cProfile", "-o", str(profile)]
    command += ["-m", "facedown", "serve", "--host", HOST, "--port", str(port), "--data", str(data)]
    command += list(extra)
    log = data / "server.log"
    with log.open("ab") as out:
        proc = subprocess.Popen(
            command,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
            # In the child before it runs Python: its threads inherit the affinity.
            preexec_fn=None if cpus is None else lambda: os.sched_setaffinity(0, cpus),
        )
    return Server(proc, f"http://{HOST}:{port}", f"ws://{HOST}:{port}/ws", log)


def stop_server(server: Server, grace: float, profiled: bool = False) -> None:
    """SIGTERM (SIGINT under cProfile), then SIGKILL after ``grace`` seconds.

    uvicorn shuts down cleanly, then raises the signal again: SIGTERM then ends the process
    at once, while SIGINT becomes a KeyboardInterrupt that lets cProfile write its file.
    """
    if server.proc.poll() is None:
        server.proc.send_signal(signal.SIGINT if profiled else signal.SIGTERM)
        try:
            server.proc.wait(grace)
        except subprocess.TimeoutExpired:
            server.proc.kill()
            server.proc.wait(10)


async def wait_healthy(
    server: Server, http: httpx.AsyncClient, within: float = HEALTHY_WITHIN
) -> None:
    """Poll the health check until it answers, the server exits, or ``within`` seconds pass."""
    with contextlib.suppress(TimeoutError):
        async with asyncio.timeout(within):
            while server.proc.poll() is None:
                with contextlib.suppress(httpx.HTTPError):
                    if (await http.get(f"{server.url}/api/health")).status_code == 200:
                        return
                await asyncio.sleep(0.1)
    raise RuntimeError(f"the server did not become healthy: {log_tail(server)}")


def log_tail(server: Server) -> str:
    code = server.proc.poll()
    tail = server.log.read_text(errors="replace")[-2000:]
    return f"exit code {code}, log:\n{tail}" if code is not None else f"log:\n{tail}"
