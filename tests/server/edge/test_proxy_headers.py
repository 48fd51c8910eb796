"""Forwarded headers are believed only from the trusted proxies, and HSTS with an https URL.

The attacks are made against a real server on loopback: the server listens on 127.0.0.1, a
trusted proxy's connections come from 127.0.0.1 (the default ``trusted_proxies``), and a client
that reaches the server directly comes from 127.0.0.2 with forged headers."""

from __future__ import annotations

import asyncio
import contextlib
from pathlib import Path
from typing import Any

import httpx
import pytest
from websockets.exceptions import ConnectionClosed

from facedown.cli import build_parser, main
from facedown.server.accounts.passwords import PasswordCost
from facedown.server.base.addresses import ClientLimits, Rate, client_address, proxy_networks
from facedown.server.edge.settings import ServerSettings
from facedown.store import MemoryStore

from ..harness import RunningServer, client, run_server

DIRECT = "127.0.0.2"  # a client that bypasses the proxy
NEVER = 1e-9  # a bucket that does not refill within a test
CHEAP = PasswordCost(time_cost=1, memory_kib=1024, parallelism=1)
TABLE = {"preset": "kivo", "seats": 3, "name": "Ann"}


def settings(tmp_path: Path, **changes: Any) -> ServerSettings:
    many = Rate(1e6, 1e6)
    return ServerSettings(
        data_dir=tmp_path,
        secret="proxy",
        behind_proxy=changes.pop("behind_proxy", True),
        password_cost=CHEAP,
        clients=changes.pop(
            "clients", ClientLimits(creates=Rate(NEVER, 2), signups=many, signins=many)
        ),
        **changes,
    )


def from_address(server: RunningServer, source: str, **headers: str) -> httpx.Client:
    """A client whose connections come from ``source``."""
    return httpx.Client(
        base_url=server.url,
        timeout=10,
        headers=headers,
        transport=httpx.HTTPTransport(local_address=source),
    )


def creates_allowed(http: httpx.Client, forged: list[str], proxys: str | None = None) -> list[int]:
    """Create a table with each ``forged`` X-Forwarded-For in turn (followed by a line of the
    proxy's own naming ``proxys``, if given); the statuses."""
    lines = [] if proxys is None else [("x-forwarded-for", proxys)]
    return [
        http.post("/api/tables", json=TABLE, headers=[("x-forwarded-for", f), *lines]).status_code
        for f in forged
    ]


FORGED = ["10.9.0.1", "10.9.0.2", "10.9.0.3", "10.9.0.4"]


def test_a_forged_x_forwarded_for_from_a_direct_client_is_ignored(tmp_path: Path) -> None:
    """A client that reaches the server directly cannot pick a fresh address per request to
    escape its limits: its peer address is what counts."""
    with run_server(settings(tmp_path), MemoryStore()) as server:
        with from_address(server, DIRECT) as direct:
            assert creates_allowed(direct, FORGED) == [200, 200, 429, 429]
        # Through the proxy (127.0.0.1) each forwarded client has its own bucket.
        with from_address(server, "127.0.0.1") as proxy:
            assert creates_allowed(proxy, FORGED) == [200, 200, 200, 200]


def test_a_forged_line_before_the_proxys_own_does_not_count(tmp_path: Path) -> None:
    """A proxy that adds an ``X-Forwarded-For`` line of its own (HAProxy's ``option
    forwardfor``) leaves the client's lines before it: the client is the proxy's last entry,
    whatever lines come first."""
    real = "203.0.113.9"  # the proxy's line: the client it saw
    with (
        run_server(settings(tmp_path), MemoryStore()) as server,
        from_address(server, "127.0.0.1") as proxy,
    ):
        assert creates_allowed(proxy, FORGED, real) == [200, 200, 429, 429]
        # The proxy's line names another client: that one has its own bucket.
        assert creates_allowed(proxy, FORGED[:1], "203.0.113.10") == [200]


def test_only_the_configured_proxies_are_trusted(tmp_path: Path) -> None:
    changed = settings(tmp_path, trusted_proxies=("192.0.2.0/24",))
    with run_server(changed, MemoryStore()) as server, from_address(server, "127.0.0.1") as http:
        assert creates_allowed(http, FORGED) == [200, 200, 429, 429]


def test_without_behind_proxy_no_forwarded_header_counts(tmp_path: Path) -> None:
    with (
        run_server(settings(tmp_path, behind_proxy=False), MemoryStore()) as server,
        from_address(server, "127.0.0.1") as http,
    ):
        assert creates_allowed(http, FORGED) == [200, 200, 429, 429]


def signup_cookie(http: httpx.Client, name: str) -> str:
    r = http.post(
        "/api/account/signup",
        json={"name": name, "password": "correct horse"},
        headers={"x-forwarded-proto": "https"},
    )
    assert r.status_code == 201, r.text
    return r.headers["set-cookie"]


def test_a_forged_x_forwarded_proto_does_not_reach_the_routes(tmp_path: Path) -> None:
    """X-Forwarded-Proto decides whether the session cookie is Secure: believed from the proxy,
    dropped (with every other forwarded header) when a direct client sends it."""
    with run_server(settings(tmp_path), MemoryStore()) as server:
        with from_address(server, "127.0.0.1") as proxy:
            assert "Secure" in signup_cookie(proxy, "Ann")
        with from_address(server, DIRECT) as direct:
            assert "Secure" not in signup_cookie(direct, "Bob")


def test_hsts_when_the_public_url_is_https(tmp_path: Path) -> None:
    https = settings(tmp_path, public_url="https://cards.example")
    with run_server(https, MemoryStore()) as server, server.http() as http:
        for path in ("/", "/api/health", "/api/tables/ZZZZZZ"):
            assert http.get(path).headers["strict-transport-security"] == "max-age=31536000"
    plain = settings(tmp_path, public_url="http://cards.example")
    with run_server(plain, MemoryStore()) as server, server.http() as http:
        assert "strict-transport-security" not in http.get("/api/health").headers


def test_the_client_is_the_last_address_no_trusted_proxy_added() -> None:
    proxies = proxy_networks(["127.0.0.1", "10.0.0.0/24"])
    chain = {"x-forwarded-for": "6.6.6.6, 203.0.113.5, 10.0.0.7"}
    assert client_address("127.0.0.1", chain, True, proxies) == "203.0.113.5"
    assert client_address("127.0.0.2", chain, True, proxies) == "127.0.0.2"
    assert client_address("127.0.0.1", chain, False, proxies) == "127.0.0.1"
    assert client_address("::ffff:127.0.0.1", chain, True, proxies) == "203.0.113.5"
    assert client_address("127.0.0.1", {"x-forwarded-for": "10.0.0.7"}, True, proxies) == (
        "127.0.0.1"  # nothing but proxies: the peer, as without the header
    )


def test_facedown_serve_takes_the_trusted_proxies() -> None:
    args = build_parser().parse_args(
        ["serve", "--behind-proxy", "--trusted-proxy", "10.0.0.5", "--trusted-proxy", "fd00::/8"]
    )
    assert args.trusted_proxy == ["10.0.0.5", "fd00::/8"]
    assert build_parser().parse_args(["serve"]).trusted_proxy is None  # default: loopback
    assert ServerSettings().trusted_proxies == ("127.0.0.1", "::1")


def test_facedown_serve_refuses_a_proxy_that_is_no_address(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["serve", "--data", str(tmp_path), "--behind-proxy", "--trusted-proxy", "proxy.lan"]
    assert main(argv) == 2
    assert "not an address or network: 'proxy.lan'" in capsys.readouterr().err


def test_a_forged_x_forwarded_for_does_not_lift_a_direct_websocket_cap(tmp_path: Path) -> None:
    """Two WebSockets per address: a third from the same direct client, each claiming another
    address, is refused all the same; through the proxy the claims count."""
    limits = ClientLimits(connections=2)

    async def third(server: RunningServer, source: str) -> int | None:
        """Open three WebSockets from ``source``, each forging another address; the third's
        close code once it has answered a ping (None: it is still open)."""
        forged = [{"x-forwarded-for": f"10.9.0.{i + 1}"} for i in range(3)]
        async with (
            client(server, additional_headers=forged[0], local_addr=(source, 0)),
            client(server, additional_headers=forged[1], local_addr=(source, 0)),
            client(server, additional_headers=forged[2], local_addr=(source, 0)) as third,
        ):
            with contextlib.suppress(ConnectionClosed):
                await third.send({"type": "ping"})
                answer = await third.recv()
                if answer == {"type": "pong"}:
                    return None
                assert answer["code"] == "rate_limited", answer
            return await third.close_code()

    with run_server(settings(tmp_path, clients=limits), MemoryStore()) as server:
        assert asyncio.run(third(server, DIRECT)) == 4029  # too many connections
        assert asyncio.run(third(server, "127.0.0.1")) is None
