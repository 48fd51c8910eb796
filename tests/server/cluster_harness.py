"""A real cluster for tests: ``facedown serve`` processes on one PostgreSQL database and a Redis,
with Debian's nginx in front running the deployment guide's site file (TLS and all), and the
database read directly to check what was written.

Each cluster gets a PostgreSQL database of its own (created from ``test``, dropped afterwards),
so other tests on ``test`` are not disturbed; its Redis channels are named by that database's
cluster id, so clusters of parallel tests never hear each other on a shared Redis.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import shutil
import signal
import socket
import ssl
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
from sqlalchemy import text
from websockets.asyncio.client import connect

from facedown.store import make_engine

from .harness import Client, free_port, free_ports, wait_http
from .nginx import HOST, running_nginx

REDIS_SERVER = shutil.which("redis-server") or "/usr/bin/redis-server"
SECRET = "cluster-test-secret"  # noqa: S105 - a test key; every process signs and checks tokens with the same key
LEASE = 2.0  # seconds: a dead owner's tables are taken over this long after its last renewal


@dataclass
class Process:
    """One ``facedown serve`` of the cluster."""

    index: int
    port: int
    data: Path
    args: list[str]
    env: dict[str, str]
    proc: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def ws_url(self) -> str:
        return f"ws://127.0.0.1:{self.port}/ws"

    @property
    def log(self) -> Path:
        return self.data / "server.log"

    @property
    def pid(self) -> int:
        assert self.proc is not None
        return self.proc.pid

    def start(self) -> None:
        self.data.mkdir(parents=True, exist_ok=True)
        with self.log.open("ab") as out:
            self.proc = subprocess.Popen(
                [sys.executable, "-m", "facedown", "serve", *self.args],
                env=self.env,
                stdout=out,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )

    def wait_ready(self) -> None:
        wait_http(f"{self.url}/api/health", self.proc, self.log)

    def kill(self, sig: int = signal.SIGKILL) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(sig)
            if sig == signal.SIGKILL:
                self.proc.wait(30)

    def stop(self) -> None:
        if self.proc is None:
            return
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGCONT)  # a stalled one too
            self.proc.terminate()
            try:
                self.proc.wait(20)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(10)


@dataclass
class Cluster:
    database_url: str
    redis_url: str
    processes: list[Process]
    tmp: Path
    nginx_port: int = 0
    tls: ssl.SSLContext | None = None
    extra: list[str] = field(default_factory=list)

    @property
    def url(self) -> str:
        """nginx, in front of every process (HTTPS)."""
        return f"https://127.0.0.1:{self.nginx_port}"

    @property
    def ws_url(self) -> str:
        return f"wss://127.0.0.1:{self.nginx_port}/ws"

    def http(self, base: str | None = None) -> httpx.Client:
        if base is None:
            return httpx.Client(
                base_url=self.url,
                verify=self.tls or True,
                headers={"Host": HOST},
                timeout=20,
            )
        return httpx.Client(base_url=base, timeout=20)

    def create(self, **body: Any) -> dict[str, Any]:
        """A table made through nginx; returns the creation answer (code, token, ...)."""
        with self.http() as http:
            r = http.post("/api/tables", json=body, extensions={"sni_hostname": HOST})
        assert r.status_code == 200, r.text
        created: dict[str, Any] = r.json()
        return created

    def join(self, code: str, name: str, base: str | None = None) -> str:
        with self.http(base) as http:
            r = http.post(
                f"/api/tables/{code}/join",
                json={"name": name},
                extensions={"sni_hostname": HOST} if base is None else {},
            )
        assert r.status_code == 200, r.text
        token: str = r.json()["token"]
        return token

    # ------------------------------------------------------------------ the database
    async def sql(self, query: str, **params: Any) -> list[Any]:
        engine = make_engine(self.database_url)
        try:
            async with engine.connect() as connection:
                return list((await connection.execute(text(query), params)).all())
        finally:
            await engine.dispose()

    async def table_id(self, code: str) -> str:
        [(table_id,)] = await self.sql("SELECT id FROM tables WHERE code = :c", c=code)
        return str(table_id)

    async def lease(self, table_id: str) -> tuple[str, int]:
        """The owner (node id) and fence of the table's lease."""
        rows = await self.sql(
            "SELECT owner, fence FROM leases WHERE name = :n", n=f"table:{table_id}"
        )
        assert rows, f"no lease for table {table_id}"
        return str(rows[0][0]), int(rows[0][1])

    async def owner(self, table_id: str) -> Process:
        """The process holding the table's lease (node ids carry the pid)."""
        node, _ = await self.lease(table_id)
        pid = int(node.split("-")[-2])
        return next(p for p in self.processes if p.proc is not None and p.proc.pid == pid)

    async def log(self, table_id: str) -> list[tuple[int, str, dict[str, Any]]]:
        rows = await self.sql(
            "SELECT seq, kind, payload FROM table_log WHERE table_id = :t ORDER BY seq", t=table_id
        )
        return [(int(seq), str(kind), _json(payload)) for seq, kind, payload in rows]

    async def until_owner_changes(self, table_id: str, old: str, within: float = 60.0) -> str:
        """Wait (bounded) until another node holds the table's lease; that node."""
        deadline = time.monotonic() + within
        while time.monotonic() < deadline:
            node, _ = await self.lease(table_id)
            if node != old:
                return node
            await asyncio.sleep(0.1)
        raise AssertionError(f"table {table_id} was not taken over from {old}")


def _json(value: Any) -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads(value) if isinstance(value, str) else value
    return loaded


# ---------------------------------------------------------------- starting one


def process_args(
    port: int, data: Path, database_url: str, redis_url: str, extra: Sequence[str]
) -> list[str]:
    return [
        "--data",
        str(data),
        "--host",
        "127.0.0.1",
        "--port",
        str(port),
        "--database-url",
        database_url,
        "--redis-url",
        redis_url,
        "--lease-seconds",
        str(LEASE),
        "--behind-proxy",
        "--test-hooks",
        "--metrics",
        "--log-level",
        "info",
        *extra,
    ]


@contextlib.contextmanager
def running_cluster(
    database_url: str,
    redis_url: str,
    tmp: Path,
    size: int = 3,
    *,
    extra: Sequence[str] = (),
    nginx: bool = True,
    database_urls: Sequence[str] | None = None,
) -> Iterator[Cluster]:
    """``size`` processes (process ``i`` on ``database_urls[i]`` when given: a proxy, say)
    and nginx in front; everything is stopped at the end."""
    env = {**os.environ, "FACEDOWN_SECRET": SECRET}
    env.pop("FACEDOWN_TEST_HOOKS", None)
    processes = []
    for i, port in enumerate(free_ports(size)):
        url = database_urls[i] if database_urls else database_url
        args = process_args(port, tmp / f"p{i}", url, redis_url, extra)
        processes.append(Process(i, port, tmp / f"p{i}", args, env))
    cluster = Cluster(database_url, redis_url, processes, tmp, extra=list(extra))

    def stop_all() -> None:
        for p in processes:
            p.stop()

    with contextlib.ExitStack() as stack:
        stack.callback(stop_all)  # after nginx: the stack stops the last started first
        for p in processes:
            p.start()
        for p in processes:
            p.wait_ready()
        if nginx:
            front = stack.enter_context(running_nginx(tmp, [p.port for p in processes]))
            cluster.nginx_port, cluster.tls = front.tls_port, front.tls
        yield cluster


def server_logs(cluster: Cluster) -> str:
    return "\n".join(
        f"--- process {p.index} (pid {p.proc.pid if p.proc else '-'}):\n"
        + p.log.read_text(errors="replace")[-4000:]
        for p in cluster.processes
        if p.log.exists()
    )


# ---------------------------------------------------------------- a Redis of our own


@dataclass
class OwnRedis:
    port: int
    folder: Path
    proc: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        self.folder.mkdir(parents=True, exist_ok=True)
        self.proc = subprocess.Popen(
            [
                REDIS_SERVER,
                "--port",
                str(self.port),
                "--bind",
                "127.0.0.1",
                "--save",
                "",
                "--appendonly",
                "no",
                "--dir",
                str(self.folder),
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            with (
                contextlib.suppress(OSError),
                socket.create_connection(("127.0.0.1", self.port), 1),
            ):
                return
            time.sleep(0.05)
        raise AssertionError("redis-server did not start")

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(10)


@contextlib.contextmanager
def own_redis(folder: Path) -> Iterator[OwnRedis]:
    """A redis-server of this test's own on a free port (never the shared one on 6379)."""
    redis = OwnRedis(free_port(), folder)
    redis.start()
    try:
        yield redis
    finally:
        redis.stop()


# ---------------------------------------------------------------- clients


@contextlib.asynccontextmanager
async def client_at(ws_url: str, cluster: Cluster | None = None) -> AsyncIterator[Client]:
    """A raw client on one process (ws://) or through nginx (wss://, with ``cluster``)."""
    if cluster is not None and ws_url.startswith("wss://"):
        async with connect(
            ws_url, ssl=cluster.tls, server_hostname=HOST, max_size=2**22, open_timeout=30
        ) as ws:
            yield Client(ws)
    else:
        async with connect(ws_url, max_size=2**22, open_timeout=30) as ws:
            yield Client(ws)
