"""A seat's moment stays over across a server restart (issue 32 §1, the reload).

The attack: a player peeks at a card, says ``ready`` (the moment is over: no frame holds the
face any more), and then waits for the server to restart (a deploy, a crash) and reloads.  If
"moment over" lived only in the process's memory, the fresh snapshot would show the card again
until the table's next move.  Against a real ``facedown serve`` process on loopback, stopped
with ``kill -9`` (nothing but what was stored survives) and started again on the same data.
"""

from __future__ import annotations

import signal
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest
from websockets.asyncio.client import connect

from benchmarks.serverproc import Server, free_port, start_server, stop_server, wait_healthy

from ..harness import Client, applied

SECRET = "moment-restart"  # noqa: S105 - signs the test server's tokens
ADDRESS = "127.0.22.1"  # this test's own loopback address (per-address limits)
# Boyo with every card traceable; the draw pile starts with a 7 (look at one of your own).
DEAL = {
    "hands": [["2S", "3S", "4S", "5S"], ["2H", "3H", "4H", "5H"]],
    "discard": "6C",
    "draw": ["7S", "9S", "8S", "10S", "7C", "9C", "JS", "QS"],
    "first": 0,
}
ORDER = ("opening_peek", "peek", "spy", "draw")  # the script's preference among legal moves


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@asynccontextmanager
async def seat(server: Server, code: str, token: str) -> AsyncIterator[Client]:
    """A connection that said hello and read everything sent to it so far."""
    async with connect(server.ws_url, local_addr=(ADDRESS, 0), proxy=None) as ws:
        c = Client(ws)
        await c.hello(code, token)
        await c.settle()
        yield c


def next_move(c: Client) -> dict[str, Any] | None:
    for kind in ORDER:
        for action in c.legal:
            if action["do"] == kind:
                return {k: v for k, v in action.items() if k != "by"}
    return None


async def reload_view(server: Server, code: str, token: str) -> dict[str, Any]:
    async with seat(server, code, token) as fresh:
        return fresh.view


@pytest.mark.anyio
async def test_a_moment_over_stays_over_after_a_kill_9_and_restart(tmp_path: Path) -> None:
    port = free_port()
    transport = httpx.AsyncHTTPTransport(local_address=ADDRESS)
    async with httpx.AsyncClient(
        base_url=f"http://127.0.0.1:{port}", transport=transport, timeout=10, trust_env=False
    ) as http:
        server = start_server(port, tmp_path, secret=SECRET, extra=["--test-hooks"])
        try:
            await wait_healthy(server, http)
            slow = {"peek_seconds": 600, "turn_seconds": 3600}
            body = {"preset": "boyo", "seats": 2, "name": "Ann", "deal": DEAL, **slow}
            r = await http.post("/api/tables", json=body)
            assert r.status_code == 200, r.text
            code, ann = r.json()["code"], r.json()["token"]
            r = await http.post(f"/api/tables/{code}/join", json={"name": "Bob"})
            assert r.status_code == 200, r.text
            bob = r.json()["token"]
            async with seat(server, code, ann) as a, seat(server, code, bob) as b:
                await a.send({"type": "start"})
                await a.until("event")
                await b.until("event")
                # Both opening looks, then Ann (first) draws the 7 and looks at a card of hers.
                looked = None
                for _ in range(8):
                    await a.settle()
                    await b.settle()
                    actor = a if next_move(a) else b
                    action = next_move(actor)
                    assert action is not None, (a.legal, b.legal)
                    answer = await actor.act(action)
                    assert applied(answer), answer
                    if action["do"] in ("peek", "spy"):
                        looked = actor
                        break
                assert looked is a, "the script never reached Ann's peek"
                await b.until_seq(a.seq)
                shown = dict(a.view["shown"])
                assert shown, "the peek shows Ann no card"
                # The reload during the moment shows the card: it is hers to see now.
                assert (await reload_view(server, code, ann))["shown"] == shown
                await a.send({"type": "ready"})
                await a.until("ack")
                await a.settle()
                assert a.view["shown"] == {}
                seq = a.seq
                assert (await reload_view(server, code, ann))["shown"] == {}
            server.proc.send_signal(signal.SIGKILL)  # no shutdown: only what was stored
            assert server.proc.wait(10) == -signal.SIGKILL

            server = start_server(port, tmp_path, secret=SECRET, extra=["--test-hooks"])
            await wait_healthy(server, http)
            async with seat(server, code, ann) as again:
                assert again.seq == seq, "the table moved on: the test proves nothing"
                assert again.view["shown"] == {}, (
                    f"after a restart the reload shows {again.view['shown']} again"
                )
                # The other seat never had the card in any frame either.
                async with seat(server, code, bob) as other:
                    assert other.view["shown"] == {}
        finally:
            stop_server(server, 10)
