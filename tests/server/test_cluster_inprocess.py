"""Two apps of one test process as a cluster (each uvicorn in a thread of its own) on a
PostgreSQL database of their own and the real Redis: what needs settings the command line does
not offer, here a short idle limit for spectators."""

from __future__ import annotations

import contextlib
from dataclasses import replace
from pathlib import Path

import pytest

from facedown.server.settings import ServerSettings
from tests.store.conftest import postgres_database

from .harness import NO_ADDRESS_LIMITS, client, create_table, run_server

REDIS = "redis://127.0.0.1:6379/0"


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.mark.anyio
async def test_a_relayed_spectator_that_sends_nothing_is_closed_as_idle(tmp_path: Path) -> None:
    async with postgres_database() as url:
        limits = replace(NO_ADDRESS_LIMITS, spectator_idle=1.0)

        def settings(name: str) -> ServerSettings:
            return ServerSettings(
                data_dir=tmp_path / name,
                database_url=url,
                redis_url=REDIS,
                secret="inprocess",
                clients=limits,
            )

        with contextlib.ExitStack() as stack:
            owner = stack.enter_context(run_server(settings("a")))
            other = stack.enter_context(run_server(settings("b")))
            code, tokens = create_table(owner, "cabo", 2)  # made, and owned, by the first
            async with client(other) as watcher, client(other) as player:
                await watcher.hello(code, spectate=True)  # relayed to the owner
                await player.hello(code, tokens[1])
                assert watcher.seat is None
                assert await watcher.close_code(timeout=20) == 4002
                assert any(f.get("code") == "idle" for f in watcher.frames)
                await player.pong()  # a seated player is never closed for being quiet
