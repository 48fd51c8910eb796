"""The server on PostgreSQL for real: whole matches, and a restart that resumes the tables."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from facedown.server.edge.settings import ServerSettings
from facedown.server.play.table import TableConfig
from tests.store.conftest import postgres_database

from ..harness import NO_ADDRESS_LIMITS, Player, create_table, run_server, start


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.mark.anyio
async def test_matches_on_postgresql_survive_a_restart(tmp_path: Path) -> None:
    async with postgres_database() as url:
        settings = ServerSettings(
            data_dir=tmp_path,
            database_url=url,
            secret="pg",
            table=TableConfig(bot_delay=0.0, reveal_seconds=0.01),
            rate=1e6,
            clients=NO_ADDRESS_LIMITS,
            burst=1e6,
        )
        with run_server(settings) as server:
            code, tokens = create_table(server, "kivo", 3, options={"rounds": 3})
            await start(server, code, tokens[0])
            players = [Player(server.ws_url, code, t, seed=i) for i, t in enumerate(tokens)]
            # Play a while, then stop the server in the middle of the match.
            async with asyncio.timeout(60):
                await asyncio.gather(*(p.play(stop_at=12) for p in players))
        seq_before = max(p.seq for p in players)
        assert seq_before >= 12
        assert not any(p.done for p in players), "the match ended before the restart"
        with run_server(settings) as server:
            again = [Player(server.ws_url, code, t, seed=10 + i) for i, t in enumerate(tokens)]
            async with asyncio.timeout(120):
                await asyncio.gather(*(p.play() for p in again))
            assert all(p.done for p in again)
            welcome_seq = again[0].frames[0]["seq"]
            assert welcome_seq >= seq_before  # nothing acknowledged was lost
