"""The deployment guide tried for real: ``facedown serve --behind-proxy`` behind Debian's nginx
running ``deploy/nginx/facedown.conf`` (TLS with a certificate made here, WebSocket proxying),
and every client counted by its own address, which a forged ``X-Forwarded-For`` cannot change.

nginx comes from Debian's packages (``scripts/test.sh`` installs ``nginx-light``)."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import shutil
import signal
import ssl
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from websockets.asyncio.client import ClientConnection, connect

from facedown.server.addresses import ClientLimits

from .harness import free_ports

ROOT = Path(__file__).resolve().parents[2]
SITE = ROOT / "deploy" / "nginx" / "facedown.conf"
NGINX = shutil.which("nginx") or "/usr/sbin/nginx"
OPENSSL = shutil.which("openssl") or "/usr/bin/openssl"
HOST = "cards.example.org"
CAP = ClientLimits().connections  # open WebSocket connections per address


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def _site(app_port: int, tls_port: int, plain_port: int, tmp: Path) -> str:
    """The guide's site file, pointed at this test's ports and certificate (each replaced
    text must be there: a change to the file that this test no longer covers fails here)."""
    text = SITE.read_text()
    swaps = {
        "server 127.0.0.1:8000;": f"server 127.0.0.1:{app_port};",
        "listen 443 ssl http2;": f"listen 127.0.0.1:{tls_port} ssl http2;",
        "listen 80;": f"listen 127.0.0.1:{plain_port};",
        f"/etc/letsencrypt/live/{HOST}/fullchain.pem": str(tmp / "cert.pem"),
        f"/etc/letsencrypt/live/{HOST}/privkey.pem": str(tmp / "key.pem"),
    }
    for old, new in swaps.items():
        assert old in text, f"{SITE} no longer has {old!r}"
        text = text.replace(old, new)
    return text


def _wait(url: str, proc: subprocess.Popen[bytes], log: Path, **options: Any) -> None:
    deadline = time.monotonic() + 60  # a bound on a loaded machine, not a speed goal
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise AssertionError(f"{proc.args!r} exited: {log.read_text()}")
        try:
            httpx.get(url, timeout=1, **options)
            return
        except httpx.HTTPError:
            time.sleep(0.05)
    proc.kill()
    proc.wait(10)
    raise AssertionError(f"{url} never answered: {log.read_text()}")


@pytest.fixture
def behind_nginx(tmp_path: Path) -> Iterator[dict[str, Any]]:
    assert os.access(NGINX, os.X_OK), "nginx is missing: ./scripts/test.sh installs nginx-light"
    app_port, tls_port, plain_port = free_ports(3)
    keys = ["-keyout", str(tmp_path / "key.pem"), "-out", str(tmp_path / "cert.pem")]
    name = ["-subj", f"/CN={HOST}", "-addext", f"subjectAltName=DNS:{HOST}"]
    subprocess.run(
        [OPENSSL, "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", *keys, *name],
        check=True,
        capture_output=True,
    )
    (tmp_path / "site.conf").write_text(_site(app_port, tls_port, plain_port, tmp_path))
    temp = {k: tmp_path / k for k in ("body", "proxy", "fastcgi", "uwsgi", "scgi")}
    for folder in temp.values():
        folder.mkdir()
    (tmp_path / "nginx.conf").write_text(
        f"""
user root;
worker_processes 1;
pid {tmp_path}/nginx.pid;
error_log {tmp_path}/nginx-error.log warn;
events {{ worker_connections 256; }}
http {{
    access_log {tmp_path}/nginx-access.log;
    client_body_temp_path {temp["body"]};
    proxy_temp_path {temp["proxy"]};
    fastcgi_temp_path {temp["fastcgi"]};
    uwsgi_temp_path {temp["uwsgi"]};
    scgi_temp_path {temp["scgi"]};
    include {tmp_path}/site.conf;
}}
"""
    )
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
    nginx_log = tmp_path / "nginx-error.log"
    nginx_log.touch()
    nginx = subprocess.Popen(
        [NGINX, "-p", str(tmp_path), "-c", str(tmp_path / "nginx.conf"), "-g", "daemon off;"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        _wait(f"http://127.0.0.1:{app_port}/api/health", app, app_log)
        tls = ssl.create_default_context(cafile=str(tmp_path / "cert.pem"))
        _wait(f"https://127.0.0.1:{tls_port}/api/health", nginx, nginx_log, verify=False)
        yield {"port": tls_port, "plain": plain_port, "tls": tls, "app_log": app_log}
    finally:
        nginx.send_signal(signal.SIGQUIT)  # nginx's graceful stop
        app.kill()
        app.wait(10)
        try:
            nginx.wait(10)
        except subprocess.TimeoutExpired:
            nginx.kill()
            nginx.wait(10)


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
