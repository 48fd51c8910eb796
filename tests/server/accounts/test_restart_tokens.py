"""Session tokens across a ``kill -9``: a rotation is stored before the fresh token is handed
out, so after a restart the fresh token plays the seat and every earlier one is refused."""

from __future__ import annotations

import json
import signal
from pathlib import Path
from typing import Any

import httpx
import pytest
from itsdangerous import URLSafeSerializer
from websockets.asyncio.client import connect

from benchmarks.serverproc import Server, free_port, start_server, stop_server, wait_healthy

SECRET = "token-restart"  # noqa: S105 - signs the test server's tokens
ADDRESS = "127.0.21.1"  # this test's own loopback address (per-address limits)


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


async def _hello(server: Server, code: str, token: str) -> dict[str, Any]:
    async with connect(server.ws_url, local_addr=(ADDRESS, 0), proxy=None) as ws:
        await ws.send(json.dumps({"type": "hello", "table": code, "token": token}))
        answer: dict[str, Any] = json.loads(await ws.recv())
        return answer


def _rotate(http: httpx.AsyncClient, token: str) -> Any:
    return http.post("/api/session/rotate", headers={"authorization": f"Bearer {token}"})


@pytest.mark.anyio
async def test_a_rotation_survives_a_kill_9_and_restart(tmp_path: Path) -> None:
    port = free_port()
    transport = httpx.AsyncHTTPTransport(local_address=ADDRESS)
    async with httpx.AsyncClient(
        base_url=f"http://127.0.0.1:{port}", transport=transport, timeout=10, trust_env=False
    ) as http:
        server = start_server(port, tmp_path, secret=SECRET)
        try:
            await wait_healthy(server, http)
            created = (await http.post("/api/tables", json={"preset": "kivo", "seats": 2})).json()
            code, old = created["code"], created["token"]
            r = await _rotate(http, old)
            assert r.status_code == 200, r.text
            new = r.json()["token"]
            assert (await _hello(server, code, old))["code"] == "bad_token"
            server.proc.send_signal(signal.SIGKILL)  # no shutdown: only what was stored
            assert server.proc.wait(10) == -signal.SIGKILL

            server = start_server(port, tmp_path, secret=SECRET)
            await wait_healthy(server, http)
            assert await _hello(server, code, new) == {
                "type": "welcome",
                "v": 1,
                "seat": 0,
                "seq": 0,
            }
            assert (await _hello(server, code, old))["code"] == "bad_token"
            r = await _rotate(http, old)
            assert r.status_code == 401
            assert r.json()["detail"]["code"] == "bad_token"
            # The fresh token can itself be rotated on the restarted server, once more.
            r = await _rotate(http, new)
            assert r.status_code == 200, r.text
            newer = r.json()["token"]
            assert (await _hello(server, code, new))["code"] == "bad_token"
            assert (await _hello(server, code, newer))["type"] == "welcome"
            # A token of the old form (no issue time), well signed with this server's secret:
            # refused like a forged one.
            player = URLSafeSerializer(SECRET, salt="facedown-guest").loads(newer)["p"]
            untimed = URLSafeSerializer(SECRET, salt="facedown-guest").dumps(
                {"p": player, "n": "Host"}
            )
            assert (await _hello(server, code, str(untimed)))["code"] == "bad_token"
        finally:
            stop_server(server, grace=10)
