"""Long thinkers choose in a worker process (server/play/thinking.py), quick bots in a thread; a
table with an expert seat plays through a real server with its expert thinking elsewhere."""

from __future__ import annotations

import asyncio
import os
import random
from pathlib import Path
from typing import ClassVar

import pytest

from facedown.bots import RandomBot, SeatInfo, make_bot, seat_info
from facedown.engine import Action, make_ruleset
from facedown.records.matches import new_match
from facedown.server.edge.settings import ServerSettings
from facedown.server.play.table import TableConfig
from facedown.server.play.thinking import Thinker, thinks_long

from ..harness import NO_ADDRESS_LIMITS, applied, client, create_table


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


class WhereBot:
    """A long thinker that notes the process it chose in."""

    thinks_long: ClassVar[bool] = True

    def __init__(self) -> None:
        self.pids: list[int] = []

    def choose(self, info: SeatInfo) -> Action:
        self.pids.append(os.getpid())
        return info.legal[0]


def an_info() -> SeatInfo:
    game = new_match(make_ruleset("cabo", {}), 2, 5, None)
    return seat_info(game, 0)


@pytest.mark.anyio
async def test_a_long_thinker_chooses_in_another_process_and_comes_back_with_its_memory() -> None:
    thinker = Thinker(1)
    try:
        bot = WhereBot()
        info = an_info()
        action, first = await thinker.choose(bot, info)
        assert action in info.legal
        assert first is not bot  # a copy came back from the worker
        assert isinstance(first, WhereBot)
        assert len(first.pids) == 1
        assert first.pids[0] != os.getpid()
        _, second = await thinker.choose(first, info)
        assert isinstance(second, WhereBot)
        assert second.pids == first.pids * 2  # what it did the first time went with it
    finally:
        thinker.close()


@pytest.mark.anyio
async def test_quick_bots_and_a_pool_of_none_think_in_a_thread() -> None:
    info = an_info()
    quick = RandomBot(1)
    assert not thinks_long(quick)
    assert thinks_long(make_bot("expert", 1))
    _, same = await Thinker(1).choose(quick, info)
    assert same is quick
    slow = WhereBot()
    _, kept = await Thinker(0).choose(slow, info)
    assert kept is slow
    assert slow.pids == [os.getpid()]


@pytest.mark.anyio
async def test_an_expert_seat_plays_a_match_through_the_server(tmp_path: Path) -> None:
    from ..harness import run_server

    settings = ServerSettings(
        data_dir=tmp_path,
        secret="think",
        table=TableConfig(bot_delay=0.0, reveal_seconds=0.01),
        rate=1e6,
        burst=1e6,
        clients=NO_ADDRESS_LIMITS,
    )
    with run_server(settings) as server:
        code, tokens = create_table(server, "cabo", 2, bots=["expert"])
        async with client(server) as host:
            await host.hello(code, tokens[0])
            await host.send({"type": "start"})
            await host.until("event")
            await host.settle()
            rng = random.Random(2)
            bot_moves = 0
            async with asyncio.timeout(300):
                while host.view["phase"] != "match_over":
                    mine = [a for a in host.legal if a["do"] not in ("tap", "next_round")]
                    if not mine:  # the expert's turn: it thinks in the worker, then plays
                        msg = await host.recv(60)
                        bot_moves += msg["type"] == "event"
                        continue
                    action = {k: v for k, v in rng.choice(mine).items() if k != "by"}
                    answer = await host.act(action)
                    assert applied(answer) or answer["code"] == "stale", answer
            assert bot_moves > 0
