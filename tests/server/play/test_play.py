"""Whole matches through the real server: bot clients over WebSocket, SQLite on disk."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from facedown.server.edge.settings import ServerSettings
from facedown.server.play.table import TableConfig

from ..harness import Player, client, create_table, run_server, start


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def settings(tmp_path: Path) -> ServerSettings:
    return ServerSettings(
        data_dir=tmp_path,
        secret="test-secret",
        table=TableConfig(bot_delay=0.0, reveal_seconds=0.05),
    )


@pytest.mark.anyio
async def test_a_match_of_humans_and_a_bot(tmp_path: Path) -> None:
    with run_server(settings(tmp_path)) as server:
        code, tokens = create_table(server, "kivo", 3, options={"rounds": 1}, bots=["random"])
        players = [Player(server.ws_url, code, t, seed=i) for i, t in enumerate(tokens)]
        await start(server, code, tokens[0])
        async with asyncio.timeout(60):
            await asyncio.gather(*(p.play() for p in players))
        assert all(p.done for p in players)
        last = players[0].frames[-1]
        assert last["view"]["phase"] == "match_over"
        assert last["view"]["winners"]


@pytest.mark.anyio
async def test_the_end_of_a_match_reaches_every_client_as_a_table_frame(tmp_path: Path) -> None:
    """The table's status changes to finished with the match's last action: the clients
    connected then, seats and spectators, get a table frame saying so (not only a view)."""
    with run_server(settings(tmp_path)) as server:
        code, tokens = create_table(server, "kivo", 2, options={"rounds": 1})
        async with client(server) as watcher:
            await watcher.hello(code, spectate=True)
            players = [Player(server.ws_url, code, t, seed=i) for i, t in enumerate(tokens)]
            await start(server, code, tokens[0])
            async with asyncio.timeout(60):
                await asyncio.gather(*(p.play() for p in players))
                while watcher.table.get("status") != "finished":
                    await watcher.recv()
            assert watcher.view["phase"] == "match_over"  # the view came first, then the table
            # Sent with the match's end, not later when a player left (which says so too).
            assert all(seat["connected"] for seat in watcher.table["seats"])
