"""What an operator relies on: readiness, Prometheus metrics, JSON logs and a graceful SIGTERM."""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from prometheus_client.parser import text_string_to_metric_families
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed

from facedown.server.base.logs import JsonFormatter
from facedown.server.edge.settings import ServerSettings
from facedown.store import MemoryStore, StoreError
from facedown.store.database import make_engine
from facedown.store.sql import SqlStore, open_store
from tests.store.conftest import postgres_database

from ..harness import (
    NO_ADDRESS_LIMITS,
    RunningServer,
    begin,
    create_table,
    free_port,
    play_until,
    run_server,
    seated,
)


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def _settings(tmp_path: Path, **extra: object) -> ServerSettings:
    return ServerSettings(data_dir=tmp_path, secret="ops-test", clients=NO_ADDRESS_LIMITS, **extra)  # type: ignore[arg-type]


def metric_values(text: str) -> dict[str, float]:
    """Every sample of the exposition as ``name{label=value,...}`` -> value."""
    found: dict[str, float] = {}
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            labels = ",".join(f"{k}={v}" for k, v in sorted(sample.labels.items()))
            found[f"{sample.name}{{{labels}}}" if labels else sample.name] = sample.value
    return found


@pytest.fixture
def metered(tmp_path: Path) -> Iterator[tuple[RunningServer, MemoryStore]]:
    store = MemoryStore()
    with run_server(_settings(tmp_path, metrics=True), store) as running:
        yield running, store


def test_ready_says_the_store_answers_and_503_when_it_does_not(
    metered: tuple[RunningServer, MemoryStore],
) -> None:
    server, store = metered
    with server.http() as http:
        r = http.get("/api/ready")
        assert r.status_code == 200
        assert r.json() == {"ready": True, "checks": {"store": "ok"}}
        asyncio.run(store.close())  # the database is gone
        r = http.get("/api/ready")
        assert r.status_code == 503
        assert r.json()["ready"] is False
        assert "closed" in r.json()["checks"]["store"]
        assert http.get("/api/health").status_code == 200  # alive all the same


def test_metrics_are_off_unless_asked_for(tmp_path: Path) -> None:
    with run_server(_settings(tmp_path), MemoryStore()) as server, server.http() as http:
        r = http.get("/metrics")  # the web client's page for unknown paths, not the figures
        assert "facedown_connections" not in r.text
        assert r.headers["content-type"].startswith("text/html")


@pytest.mark.anyio
async def test_metrics_count_what_the_server_did(
    metered: tuple[RunningServer, MemoryStore],
) -> None:
    server, _ = metered
    code, tokens = create_table(server, "cabo", 2)
    create_table(server, "kivo", 3)  # stays in the lobby
    acked = 0
    async with seated(server, code, tokens) as clients:
        await begin(clients[0], clients[1:])
        start_seq = clients[0].seq
        await play_until(clients, lambda view: view["phase"] == "holding")
        acked = clients[0].seq - start_seq
        refused = await clients[0].act({"do": "call"}, seq=0)  # stale: an error frame
        assert refused["type"] == "error"
        async with httpx.AsyncClient(base_url=server.url) as http:
            during = metric_values((await http.get("/metrics")).text)
    assert acked > 0
    assert during["facedown_connections"] == 2
    assert during["facedown_actions_total{by=player}"] == acked
    assert during["facedown_action_latency_seconds_count"] == acked
    assert during["facedown_action_latency_seconds_sum"] > 0
    assert during["facedown_tables{status=playing}"] == 1
    assert during["facedown_tables{status=lobby}"] == 1
    assert during[f"facedown_errors_total{{code={refused['code']}}}"] == 1
    # every frame the clients sent: 2 hellos, 2 pings of seated(), the start, the actions,
    # begin()'s 2 pings, play_until's, and the refused call: at least hellos + actions + 1
    assert during["facedown_frames_total"] >= 2 + acked + 1
    async with httpx.AsyncClient(base_url=server.url) as http:
        after = metric_values((await http.get("/metrics")).text)
    assert after["facedown_connections"] == 0


def test_a_json_log_line_has_the_fields_the_extras_and_the_exception() -> None:
    record = logging.LogRecord(
        "facedown.x", logging.WARNING, __file__, 1, "table %s", ("AB",), None
    )
    record.table = "AB12CD"
    line = json.loads(JsonFormatter().format(record))
    assert line["level"] == "warning"
    assert line["logger"] == "facedown.x"
    assert line["message"] == "table AB"
    assert line["table"] == "AB12CD"
    assert line["time"].endswith("+00:00")
    try:
        raise ValueError("boom")
    except ValueError:
        record.exc_info = sys.exc_info()
    line = json.loads(JsonFormatter().format(record))
    assert "ValueError: boom" in line["exception"]


@pytest.mark.anyio
async def test_sigterm_closes_clients_with_service_restart_and_the_game_resumes(
    tmp_path: Path,
) -> None:
    """facedown serve as an operator runs it: JSON logs on stderr, metrics on; a SIGTERM tells
    each client to reconnect (close code 1012), exits, and a restart serves the same table."""
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    command = [sys.executable, "-m", "facedown", "serve", "--port", str(port)]
    command += ["--data", str(tmp_path), "--metrics", "--log-format", "json"]
    command += ["--log-level", "info"]
    env = {**os.environ, "FACEDOWN_SECRET": "ops-test"}

    log = tmp_path / "server.log"

    def serve() -> subprocess.Popen[bytes]:
        with log.open("wb") as err:  # a file, never a pipe nobody reads while it serves
            proc = subprocess.Popen(command, env=env, stderr=err)
        deadline = time.monotonic() + 60  # a loaded CI machine starts slowly
        while time.monotonic() < deadline:
            try:
                if httpx.get(f"{base}/api/ready", timeout=1).status_code == 200:
                    return proc
            except httpx.HTTPError:
                time.sleep(0.05)
        proc.kill()
        raise AssertionError(f"the server did not become ready: {log.read_text()}")

    proc = serve()
    try:
        body = {"preset": "cabo", "seats": 2, "name": "Ann", "bots": ["easy"]}
        async with httpx.AsyncClient(base_url=base) as http:
            created = (await http.post("/api/tables", json=body)).json()
        hello = {"type": "hello", "table": created["code"], "token": created["token"]}
        async with connect(f"ws://127.0.0.1:{port}/ws") as ws:
            await ws.send(json.dumps(hello))
            await ws.send(json.dumps({"type": "start"}))
            seq = 0
            while seq < 1:
                seq = max(seq, json.loads(await asyncio.wait_for(ws.recv(), 10)).get("seq", 0))
            proc.send_signal(signal.SIGTERM)
            with contextlib.suppress(ConnectionClosed):
                while True:
                    await asyncio.wait_for(ws.recv(), 10)
            assert ws.close_code == 1012  # "service restart": the client reconnects
        proc.wait(20)
        lines = [json.loads(line) for line in log.read_text().splitlines() if line.strip()]
        assert lines, "no log lines"
        assert {"time", "level", "logger", "message"} <= set(lines[-1])
        assert any(line["message"] == "Application shutdown complete." for line in lines)
        proc = serve()
        async with connect(f"ws://127.0.0.1:{port}/ws") as ws:
            await ws.send(json.dumps({**hello, "last_seq": None}))
            while True:
                msg = json.loads(await asyncio.wait_for(ws.recv(), 10))
                if msg["type"] == "snapshot":
                    break
            assert msg["seq"] >= seq
            assert msg["view"]["phase"] != "match_over"
    finally:
        proc.kill()
        proc.wait(10)


@pytest.mark.anyio
async def test_ping_on_postgresql_and_on_a_database_that_is_not_there() -> None:
    async with postgres_database() as url:
        store = await open_store(url)
        try:
            await store.ping()  # the real server answers
        finally:
            await store.close()
    nobody = SqlStore(make_engine("postgresql+asyncpg://127.0.0.1:1/test"))  # no server there
    with pytest.raises(StoreError):
        await nobody.ping()
    await nobody.close()
