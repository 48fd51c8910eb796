"""Ranked ratings converge: a population of accounts of known strength, through the real queue
and real tables, until the ratings put them in the order of their strength.

Each account is played by a bot of a known level (``random`` < ``easy`` < ``medium`` < ``hard``,
docs/bots.md's ladder).  It signs up, queues over HTTP, asks until it is matched, then plays its
seat over the WebSocket like any browser: each move is its bot's choice from what the seat may
know, the engine's observation of that seat (the same input the server's own bots get: read
here from the in-process server's table, at the seq of the frame being answered), sent as a
player's action.  The server rates every match as it ends (OpenSkill, Plackett-Luce).

The order is right when every account of a stronger level has a higher rating estimate (mu)
than every account of a weaker one.  Reported: how many matches were rated when the order was
first right and stayed right to the end of the run (``settle`` more matches at least), and the
ratings by level.  Run: ``python -m benchmarks.ranked_population [--levels random,easy,medium
--per-level 2 --preset boyo --players 2 --max-matches 400]``.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import socket
import tempfile
import threading
import time
import uuid
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import uvicorn
from websockets.asyncio.client import connect

from facedown.bots import Bot, make_bot
from facedown.bots.base import Reactive, SeatInfo, Watcher, seat_info
from facedown.server.accounts.passwords import PasswordCost
from facedown.server.app import create_app
from facedown.server.base.addresses import ClientLimits, Rate
from facedown.server.edge.serving import uvicorn_config
from facedown.server.edge.settings import ServerSettings
from facedown.server.modes.matchmaking import RankedConfig, Window
from facedown.server.play.context import TableConfig
from facedown.server.play.lobby import Lobby
from facedown.server.play.table import Table
from facedown.store import MemoryStore, RankedStore

LEVEL_ORDER = ("random", "easy", "medium", "hard", "expert")
PASSWORD = "population-pass"  # noqa: S105 - the simulated accounts'
MANY = Rate(1e6, 1e6)


@dataclass
class Member:
    name: str
    level: str
    user_id: str = ""
    played: int = 0


@dataclass
class Report:
    matches: int  # rated matches in all
    # rated matches when the order was last made right (None: never, or not for ``settle`` more)
    settled_at: int | None
    seconds: float
    ratings: dict[str, list[float]] = field(default_factory=dict)  # level -> mu of each member
    order: list[str] = field(default_factory=list)  # the members' levels by rating, best first


@contextlib.contextmanager
def serve(settings: ServerSettings, store: MemoryStore) -> Iterator[tuple[str, Lobby]]:
    """The server in a thread of its own, on a free port; its URL and its lobby."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
    app = create_app(settings, store=store)
    config = uvicorn_config(app, settings, host="127.0.0.1", port=port, log_level="warning")
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started:
        if time.monotonic() > deadline or not thread.is_alive():
            raise RuntimeError("the server did not start")
        time.sleep(0.02)
    try:
        yield f"http://127.0.0.1:{port}", app.state.lobby()
    finally:
        server.should_exit = True
        thread.join(15)


def population_settings(data: Path) -> ServerSettings:
    return ServerSettings(
        data_dir=data,
        secret="population",  # noqa: S106 - a throwaway server's key
        password_cost=PasswordCost(time_cost=1, memory_kib=1024, parallelism=1),
        clients=ClientLimits(
            creates=MANY,
            joins=MANY,
            lookups=MANY,
            frames=MANY,
            signins=MANY,
            account_signins=MANY,
            signups=MANY,
            connections=10**6,
            open_connections=10**6,
        ),
        table=TableConfig(bot_delay=0.0, reveal_seconds=0.01, grace_seconds=60.0),
        # The bounds on throwaway accounts (an age to queue, a day's cap per opponent) are off:
        # these accounts are made for the run and meet each other dozens of times in minutes.
        ranked=RankedConfig(
            tick=0.02,
            window=Window(base=3.0, widen=0.5, open_after=10.0),
            min_account_age=0.0,
            pair_cap=10**9,
        ),
        rate=1e6,
        burst=1e6,
    )


def observed(table: Table, seat: int, seq: int) -> SeatInfo | None:
    """The seat's observation at ``seq`` (None when the table has moved on since).  The server
    runs in another thread: the game is read before the seq, and a table sets its seq before
    its game, so a seq still equal to the frame's means the game read is that frame's."""
    game = table.game
    if game is None or table.seq != seq:
        return None
    return seat_info(game, seat)


def choice(bot: Bot, info: SeatInfo) -> dict[str, Any] | None:
    """The bot's move for the seat now, as a client sends it (None: wait)."""
    if not info.legal:
        return None
    if any(a.kind != "tap" for a in info.legal):
        action = bot.choose(info)
    elif isinstance(bot, Reactive):
        tap = bot.react(info)
        if tap is None:
            return None
        action = tap
    else:
        return None
    data = action.to_json()
    data.pop("by", None)
    return data


async def play_match(ws_url: str, lobby: Lobby, member: Member, status: dict[str, Any]) -> None:
    code, seat = status["code"], int(status["seat"])
    table = next(t for t in list(lobby.tables.values()) if t.record.code == code)
    bot = make_bot(member.level, hash((member.name, member.played)) & 0xFFFF)
    async with connect(ws_url, max_size=2**22) as ws:
        await ws.send(json.dumps({"type": "hello", "table": code, "token": status["token"]}))
        sent = 0
        while True:
            msg = json.loads(await asyncio.wait_for(ws.recv(), 60))
            if msg.get("type") not in ("event", "snapshot"):
                continue
            if msg["view"]["phase"] == "match_over":
                return
            info = observed(table, seat, msg["seq"])
            if info is None:
                continue
            if isinstance(bot, Watcher):
                bot.watch(info)
            action = choice(bot, info)
            if action is not None:
                sent += 1
                frame = {"type": "action", "id": f"{member.name}-{sent}", "seq": msg["seq"]}
                await ws.send(json.dumps({**frame, "action": action}))


async def member_loop(
    url: str, lobby: Lobby, member: Member, preset: str, players: int, stop: asyncio.Event
) -> None:
    ws_url = url.replace("http://", "ws://") + "/ws"
    async with httpx.AsyncClient(base_url=url, timeout=30) as http:
        r = await http.post("/api/account/signup", json={"name": member.name, "password": PASSWORD})
        r.raise_for_status()
        while not stop.is_set():
            r = await http.post("/api/ranked/queue", json={"preset": preset, "players": players})
            r.raise_for_status()
            status = r.json()
            while status["state"] == "waiting" and not stop.is_set():
                await asyncio.sleep(0.02)
                status = (await http.get("/api/ranked/queue")).json()
            if status["state"] != "matched":
                break
            await play_match(ws_url, lobby, member, status)
            member.played += 1
            # Asks the HTTP API until the match is over for it, as the queue page does.
            while (await http.get("/api/ranked/queue")).json()["state"] == "matched":  # noqa: ASYNC110
                await asyncio.sleep(0.02)
        await http.delete("/api/ranked/queue")


def right_order(members: Sequence[Member], mus: dict[str, float]) -> bool:
    """Every member of a stronger level is rated above every member of a weaker one."""
    for stronger in members:
        for weaker in members:
            rank_s, rank_w = LEVEL_ORDER.index(stronger.level), LEVEL_ORDER.index(weaker.level)
            if rank_s > rank_w and mus.get(stronger.name, 0.0) <= mus.get(weaker.name, 0.0):
                return False
    return True


async def simulate(
    levels: Sequence[str],
    per_level: int,
    preset: str = "boyo",
    players: int = 2,
    max_matches: int = 400,
    settle: int = 20,
) -> Report:
    """Play until the order has been right for ``settle`` rated matches (or ``max_matches``)."""
    members = [
        Member(f"{level}{i}-{uuid.uuid4().hex[:4]}", level)
        for level in levels
        for i in range(per_level)
    ]
    store = MemoryStore()
    ranked: RankedStore = store
    queue_name = f"{preset}-{players}"
    started = time.monotonic()
    settled_at: int | None = None
    rated = 0
    board: list[Any] = []
    with (
        tempfile.TemporaryDirectory() as data,
        serve(population_settings(Path(data)), store) as (
            url,
            lobby,
        ),
    ):
        stop = asyncio.Event()
        tasks = [
            asyncio.create_task(member_loop(url, lobby, m, preset, players, stop)) for m in members
        ]
        try:
            while rated < max_matches:
                await asyncio.sleep(0.1)
                for task in tasks:
                    if task.done() and task.exception() is not None:
                        raise RuntimeError("a member failed") from task.exception()
                rated = sum(1 for m in store._matches.values() if m.rated_at is not None)
                board = await ranked.leaderboard(queue_name, 1000)
                mus = {r.name: r.mu for r in board}
                if len(mus) == len(members) and right_order(members, mus):
                    if settled_at is None:
                        settled_at = rated
                    if rated - settled_at >= settle:
                        break
                else:
                    settled_at = None
        finally:
            stop.set()
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
    # What is reported is the board of the last look, the one the order was judged on: matches
    # still being played when the run stopped may be rated after it, and are not counted.
    if settled_at is not None and rated - settled_at < settle:
        settled_at = None  # right at the end, but not for ``settle`` matches: not settled
    level_of = {m.name: m.level for m in members}
    report = Report(rated, settled_at, time.monotonic() - started)
    for r in sorted(board, key=lambda r: -r.mu):
        report.ratings.setdefault(level_of[r.name], []).append(round(r.mu, 2))
        report.order.append(level_of[r.name])
    return report


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--levels", default="random,easy,medium")
    parser.add_argument("--per-level", type=int, default=3)
    parser.add_argument("--preset", default="boyo")
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--max-matches", type=int, default=400)
    parser.add_argument("--settle", type=int, default=30)
    args = parser.parse_args(argv)
    levels = args.levels.split(",")
    report = asyncio.run(
        simulate(levels, args.per_level, args.preset, args.players, args.max_matches, args.settle)
    )
    print(f"population: {args.per_level} accounts each of {', '.join(levels)}")
    print(f"queue: {args.preset}-{args.players}; rated matches: {report.matches}")
    if report.settled_at is None:
        print("the order was not right at the end of the run")
    else:
        print(f"the order was right from match {report.settled_at} to the end of the run")
    print(f"wall time: {report.seconds:.1f} s")
    print("order by rating, best first:", " ".join(report.order))
    for level in levels:
        print(f"  {level:>7}: mu {report.ratings.get(level, [])}")
    return 0 if report.settled_at is not None else 1


if __name__ == "__main__":
    raise SystemExit(main())
