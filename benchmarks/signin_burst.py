"""A burst of sign-ins against a real ``facedown serve`` (default argon2 cost and limits): how
many are answered, how many refused at once with 429 because the hashing queue is full, and how
long the answered ones and one honest sign-in sent in the middle of the burst took.

The burst's sign-ins name accounts that do not exist, each its own (checked against the dummy
hash: the same work as a wrong password), 10 from each address (127.0.1.x), so that no sign-in
limit refuses any (per address, per name from one address; nor the per-name limit of before,
to compare): what refuses is the bounded hashing queue (``PasswordCost.waiting``,
docs/accounts.md).  The honest one signs in to its account from an address of its own.

    .venv/bin/python -m benchmarks.signin_burst [--burst 400]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import tempfile
import time
from collections import Counter
from pathlib import Path

import httpx

from benchmarks.serverproc import free_port, start_server, stop_server, wait_healthy

PASSWORD = "correct horse battery"  # noqa: S105 - the benchmark account's
PER_ADDRESS = 10  # sign-ins from one address (its bucket holds 20)


def _client(address: str) -> httpx.AsyncClient:
    """A client whose connections leave from ``address``, made before the burst (making one
    loads a TLS context: hundreds of them made during the burst would time the client)."""
    transport = httpx.AsyncHTTPTransport(
        local_address=address, limits=httpx.Limits(max_connections=None)
    )
    return httpx.AsyncClient(transport=transport, timeout=300, trust_env=False)


async def _sign_in(
    http: httpx.AsyncClient, url: str, name: str, password: str
) -> tuple[int, float]:  # status, seconds taken
    began = time.perf_counter()
    r = await http.post(f"{url}/api/account/signin", json={"name": name, "password": password})
    return r.status_code, time.perf_counter() - began


async def run(burst: int) -> None:
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    with tempfile.TemporaryDirectory() as data:
        server = start_server(port, Path(data))
        try:
            async with httpx.AsyncClient(base_url=url, timeout=30, trust_env=False) as http:
                await wait_healthy(server, http)
                body = {"name": "Ann", "password": PASSWORD}
                r = await http.post("/api/account/signup", json=body)
                r.raise_for_status()
            clients = [_client(f"127.0.1.{1 + i}") for i in range(-(-burst // PER_ADDRESS))]
            owner = _client("127.0.2.1")
            attackers = [
                _sign_in(clients[i // PER_ADDRESS], url, f"nobody-{i}", "not the password")
                for i in range(burst)
            ]
            tasks = [asyncio.create_task(a) for a in attackers[: burst // 2]]
            await asyncio.sleep(0)
            honest = asyncio.create_task(_sign_in(owner, url, "Ann", PASSWORD))
            tasks += [asyncio.create_task(a) for a in attackers[burst // 2 :]]
            results = await asyncio.gather(*tasks)
            honest_status, honest_took = await honest
            for http in [*clients, owner]:
                await http.aclose()
        finally:
            stop_server(server, grace=10)
    codes = Counter(status for status, _ in results)
    answered = [took for status, took in results if status != 429]
    refused = [took for status, took in results if status == 429]
    print(f"burst of {burst} sign-ins to no account: statuses {dict(sorted(codes.items()))}")
    if answered:
        print(
            f"answered ({len(answered)}): median {statistics.median(answered):.2f} s,"
            f" max {max(answered):.2f} s"
        )
    if refused:
        print(
            f"refused with 429 ({len(refused)}): median {statistics.median(refused):.3f} s,"
            f" max {max(refused):.3f} s"
        )
    print(f"honest sign-in in the middle: {honest_status} after {honest_took:.2f} s")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--burst", type=int, default=400)
    asyncio.run(run(parser.parse_args().burst))


if __name__ == "__main__":
    main()
