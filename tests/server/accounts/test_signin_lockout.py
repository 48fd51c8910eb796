"""Nobody locks a stranger out: sign-in attempts are limited per (name, address) and per address,
so an attacker hammering a name waits while its owner, from another address, signs in at once.
And the password hashing queue is bounded: a burst of sign-ins beyond it gets a fast 429.

Against the real server, with clients on real loopback source addresses (127.0.0.x): the server
is not told it is behind a proxy, so the TCP peer is the address it counts.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import httpx
import pytest

from facedown.server.accounts.accounts import BUSY
from facedown.server.accounts.passwords import PasswordCost, Passwords, PasswordsBusy
from facedown.server.base.addresses import ClientLimits, Rate
from facedown.server.edge.settings import ServerSettings
from facedown.server.play.table import TableConfig
from facedown.store import MemoryStore

from ..harness import RunningServer, run_server

PASSWORD = "correct horse"  # noqa: S105 - a test account's
_MANY = Rate(1e6, 1e6)
CHEAP = PasswordCost(time_cost=1, memory_kib=1024, parallelism=1)


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def _settings(tmp_path: Path, **changes: Any) -> ServerSettings:
    return ServerSettings(
        data_dir=tmp_path,
        secret="lockout-test",
        password_cost=changes.pop("password_cost", CHEAP),
        clients=changes.pop("clients", ClientLimits()),  # the real defaults
        table=TableConfig(bot_delay=0.0),
        **changes,
    )


def from_address(server: RunningServer, address: str) -> httpx.Client:
    """A client whose connections leave from ``address`` (a loopback address of its own)."""
    transport = httpx.HTTPTransport(local_address=address)
    return httpx.Client(base_url=server.url, transport=transport, timeout=60, trust_env=False)


def sign_in(http: httpx.Client, password: str, name: str = "Ann") -> httpx.Response:
    return http.post("/api/account/signin", json={"name": name, "password": password})


def test_an_attacker_hammering_a_name_does_not_delay_its_owner(tmp_path: Path) -> None:
    with run_server(_settings(tmp_path), MemoryStore()) as server:
        with from_address(server, "127.0.0.2") as owner:
            body = {"name": "Ann", "password": PASSWORD}
            assert owner.post("/api/account/signup", json=body).status_code == 201
        with from_address(server, "127.0.0.3") as attacker:
            answers = [sign_in(attacker, f"guess {i:04d}").status_code for i in range(25)]
            assert set(answers) == {401, 429}
            assert answers[-1] == 429  # the attacker waits ...
            assert sign_in(attacker, PASSWORD).status_code == 429  # ... even with the password
        with from_address(server, "127.0.0.4") as owner:
            r = sign_in(owner, PASSWORD)  # ... and the owner, elsewhere, does not
            assert r.status_code == 200, r.text
            assert owner.get("/api/account").json()["name"] == "Ann"
        with from_address(server, "127.0.0.3") as attacker:  # still waiting, on any name
            assert sign_in(attacker, PASSWORD, name="Someone").status_code == 429


def test_an_ipv6_attacker_gets_no_fresh_buckets_from_other_addresses_of_its_64(
    tmp_path: Path,
) -> None:
    # Behind a proxy, so that the test names IPv6 addresses (loopback has one only).
    with run_server(_settings(tmp_path, behind_proxy=True), MemoryStore()) as server:

        def sign_in_from(address: str, password: str) -> int:
            with server.http() as http:
                body = {"name": "Ann", "password": password}
                headers = {"x-forwarded-for": address}
                return http.post("/api/account/signin", json=body, headers=headers).status_code

        with server.http() as http:
            body = {"name": "Ann", "password": PASSWORD}
            headers = {"x-forwarded-for": "2001:db8:aaaa:1::1"}
            assert http.post("/api/account/signup", json=body, headers=headers).status_code == 201
        answers = [sign_in_from(f"2001:db8:bad:1::{i:x}", "a wrong guess") for i in range(1, 13)]
        assert answers[-1] == 429  # one address after another of one /64: one bucket
        assert sign_in_from("2001:db8:bad:1::ffff", PASSWORD) == 429
        assert sign_in_from("2001:db8:aaaa:1::2", PASSWORD) == 200  # the owner's own /64


def test_a_burst_of_sign_ins_beyond_the_hashing_queue_gets_fast_429s(tmp_path: Path) -> None:
    # One hash at a time and two waiting, each costly enough that a burst overlaps it.
    cost = PasswordCost(time_cost=2, memory_kib=32 * 1024, parallelism=1, parallel=1, waiting=2)
    # The burst's 40 connections come from one address: past the cap of open connections per
    # address (32) they would be refused before reaching the queue this test is about.
    many = ClientLimits(signins=_MANY, account_signins=_MANY, signups=_MANY, open_connections=64)
    with run_server(_settings(tmp_path, password_cost=cost, clients=many), MemoryStore()) as server:
        with from_address(server, "127.0.0.5") as owner:
            body = {"name": "Ann", "password": PASSWORD}
            assert owner.post("/api/account/signup", json=body).status_code == 201

        async def burst(n: int) -> list[httpx.Response]:
            transport = httpx.AsyncHTTPTransport(local_address="127.0.0.6")
            async with httpx.AsyncClient(
                base_url=server.url, transport=transport, timeout=120, trust_env=False
            ) as http:
                body = {"name": "Ann", "password": "not the password"}
                return await asyncio.gather(
                    *(http.post("/api/account/signin", json=body) for _ in range(n))
                )

        answers = asyncio.run(burst(40))
        codes = [r.status_code for r in answers]
        assert set(codes) <= {401, 429}
        assert codes.count(401) >= 3  # the ones that ran or waited were answered
        busy = [r.json()["detail"] for r in answers if r.status_code == 429]
        assert busy, "nothing was refused: the queue is not bounded"
        assert all(d == {"code": BUSY.code, "message": BUSY.message} for d in busy)
        with from_address(server, "127.0.0.5") as owner:  # the burst is over: all is well
            assert sign_in(owner, PASSWORD).status_code == 200


@pytest.mark.anyio
async def test_hashes_beyond_the_running_and_waiting_ones_are_refused_at_once() -> None:
    passwords = Passwords(PasswordCost(time_cost=1, memory_kib=1024, parallelism=1, waiting=3))
    stored = await passwords.hash(PASSWORD)
    assert not await passwords.verify(None, PASSWORD)  # the dummy hash is made now
    results = await asyncio.gather(
        *(passwords.verify(stored, PASSWORD) for _ in range(9)), return_exceptions=True
    )
    # 2 run and 3 wait: those 5 are answered, the 4 after them refused without waiting.
    assert results[:5] == [True] * 5
    assert all(isinstance(r, PasswordsBusy) for r in results[5:])
    assert passwords.pending == 0
    assert await passwords.verify(stored, PASSWORD)  # the queue drained: a check runs again
