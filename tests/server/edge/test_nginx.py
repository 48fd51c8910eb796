"""The deployment guide tried for real: ``facedown serve --behind-proxy`` behind Debian's nginx
running ``deploy/nginx/facedown.conf`` (TLS with a certificate made here, WebSocket proxying),
and every client counted by its own address, which a forged ``X-Forwarded-For`` cannot change.

nginx comes from Debian's packages (``scripts/test.sh`` installs ``nginx-light``)."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import subprocess
import sys
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from websockets.asyncio.client import ClientConnection, connect

from facedown.server.base.addresses import ClientLimits

from ..harness import free_port, wait_http
from ..nginx import HOST, running_nginx, site_file

CAP = ClientLimits().connections  # open WebSocket connections per address


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def test_the_site_file_is_the_guides_with_the_tests_ports_and_certificate(tmp_path: Path) -> None:
    """What the nginx of the tests runs: the guide's file, every text the tests replace found
    in it (site_file asserts each is there) and replaced, upstreams one a line."""
    text = site_file([8001, 8002], 8443, 8080, tmp_path)
    assert "    server 127.0.0.1:8001;\n    server 127.0.0.1:8002;\n" in text
    assert "listen 127.0.0.1:8443 ssl http2;" in text
    assert "listen 127.0.0.1:8080;" in text
    assert f"ssl_certificate {tmp_path / 'cert.pem'};" in text
    assert f"ssl_certificate_key {tmp_path / 'key.pem'};" in text
    for gone in ("127.0.0.1:8000", "listen 443", "listen 80;", "/etc/letsencrypt"):
        assert gone not in text, gone


@pytest.fixture
def behind_nginx(tmp_path: Path) -> Iterator[dict[str, Any]]:
    app_port = free_port()
    app_log = tmp_path / "server.log"
    with app_log.open("wb") as out:
        where = ["--port", str(app_port), "--data", str(tmp_path / "data")]
        options = ["--behind-proxy", "--bot-delay", "0.01", "--public-url", f"https://{HOST}"]
        app = subprocess.Popen(
            [sys.executable, "-m", "facedown", "serve", *where, *options],
            env={**os.environ, "FACEDOWN_SECRET": "nginx-test"},
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    try:
        wait_http(f"http://127.0.0.1:{app_port}/api/health", app, app_log)
        with running_nginx(tmp_path, [app_port]) as front:
            yield {"port": front.tls_port, "plain": front.plain_port, "tls": front.tls}
    finally:
        app.kill()
        app.wait(10)


@contextlib.asynccontextmanager
async def _socket(
    site: dict[str, Any], source: str, headers: dict[str, str] | None = None
) -> AsyncIterator[ClientConnection]:
    """A WebSocket through nginx (wss, the certificate checked for the host name)."""
    async with connect(
        f"wss://127.0.0.1:{site['port']}/ws",
        ssl=site["tls"],
        server_hostname=HOST,
        local_addr=(source, 0),
        additional_headers=headers or {},
    ) as ws:
        yield ws


async def _create(site: dict[str, Any], source: str, **body: Any) -> dict[str, Any]:
    transport = httpx.AsyncHTTPTransport(local_address=source, verify=site["tls"])
    async with httpx.AsyncClient(transport=transport, timeout=10) as http:
        r = await http.post(
            f"https://127.0.0.1:{site['port']}/api/tables",
            json={"preset": "cabo", "seats": 2, "name": "Ann", "bots": ["easy"], **body},
            headers={"Host": HOST},
            extensions={"sni_hostname": HOST},  # the certificate is checked for the host name
        )
    assert r.status_code == 200, r.text
    created: dict[str, Any] = r.json()
    return created


@pytest.mark.anyio
async def test_a_round_is_played_over_tls_and_websocket_through_nginx(
    behind_nginx: dict[str, Any],
) -> None:
    site = behind_nginx
    created = await _create(site, "127.0.0.2")
    assert created["link"].startswith(f"https://{HOST}/t/")  # --public-url
    async with _socket(site, "127.0.0.2") as ws:
        await ws.send(
            json.dumps({"type": "hello", "table": created["code"], "token": created["token"]})
        )
        await ws.send(json.dumps({"type": "start"}))
        phase, acted = "", 0
        while phase not in ("round_over", "match_over"):
            msg = json.loads(await asyncio.wait_for(ws.recv(), 20))
            assert msg["type"] != "error", msg
            if msg["type"] not in ("event", "snapshot"):
                continue
            phase = msg["view"]["phase"]
            mine = [a for a in msg["legal"] if a["do"] != "tap"]
            if not mine:
                continue
            # Call as soon as it may: the round ends after the others' last turns.
            pick = next((a for a in mine if a["do"] == "call"), mine[0])
            pick.pop("by", None)
            acted += 1
            frame = {"type": "action", "id": f"n{acted}", "seq": msg["seq"], "action": pick}
            await ws.send(json.dumps(frame))
    assert acted > 0
    # The plain-HTTP server of the guide sends everyone to HTTPS.
    async with httpx.AsyncClient() as http:
        r = await http.get(f"http://127.0.0.1:{site['plain']}/t/X", headers={"Host": HOST})
    assert r.status_code == 301, (r.status_code, r.headers, r.text)
    assert r.headers["location"] == f"https://{HOST}/t/X"


@pytest.mark.anyio
async def test_each_client_is_counted_by_its_own_address_and_a_forged_header_changes_nothing(
    behind_nginx: dict[str, Any],
) -> None:
    """Behind nginx every connection reaches the server from 127.0.0.1: without
    --behind-proxy all players would share one address's limits. With it, 127.0.0.3's
    connections fill 127.0.0.3's cap, 127.0.0.4 is still welcome, and 127.0.0.3 claiming to
    be someone else in X-Forwarded-For is still counted as 127.0.0.3."""
    site = behind_nginx
    async with contextlib.AsyncExitStack() as stack:
        for _ in range(CAP):
            ws = await stack.enter_async_context(_socket(site, "127.0.0.3"))
            await ws.send(json.dumps({"type": "ping"}))
            assert json.loads(await asyncio.wait_for(ws.recv(), 10)) == {"type": "pong"}
        forged = {"X-Forwarded-For": "10.20.30.40"}
        async with _socket(site, "127.0.0.3", forged) as ws:
            refused = json.loads(await asyncio.wait_for(ws.recv(), 10))
            assert refused["type"] == "error"
            assert refused["code"] == "rate_limited"
        async with _socket(site, "127.0.0.4") as ws:
            await ws.send(json.dumps({"type": "ping"}))
            assert json.loads(await asyncio.wait_for(ws.recv(), 10)) == {"type": "pong"}
