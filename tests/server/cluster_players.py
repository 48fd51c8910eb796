"""Players of a cluster's tables as the web client plays: each on one process at a time,
reconnecting to the next (with the last seq it saw, resending an unanswered action with its id)
when its connection is lost or closed, and the check that the log holds every acknowledged
action exactly once, in the order every player saw."""

from __future__ import annotations

import asyncio
import contextlib
import random
import uuid
from typing import Any

from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed, InvalidHandshake

from .cluster_harness import Cluster
from .harness import Client

TRIES = 200  # connection attempts of one reconnection (each a fraction of a second apart)


def skeleton(events: list[dict[str, Any]]) -> list[tuple[Any, Any]]:
    """What every seat sees alike of a seq's events: what happened, and who did it."""
    return [(e["type"], e.get("by")) for e in events]


class Recorder(Client):
    """A raw client that files every event it is sent by seq (an event seen twice must agree)."""

    def __init__(self, ws: Any, seen: dict[int, list[tuple[Any, Any]]]) -> None:
        super().__init__(ws)
        self.seen = seen

    async def recv(self, timeout: float = 20.0) -> dict[str, Any]:  # noqa: ASYNC109 - per frame
        msg = await super().recv(timeout)
        if msg["type"] in ("event", "missed"):
            got = skeleton(msg["events"])
            assert self.seen.setdefault(msg["seq"], got) == got, (msg["seq"], got)
        return msg


class Player:
    """One seat's client, on one process at a time (``urls[at]``), reconnecting to the next."""

    def __init__(self, cluster: Cluster, code: str, token: str, urls: list[str], at: int) -> None:
        self.cluster = cluster
        self.code = code
        self.token = token
        self.urls = urls
        self.at = at
        self.seen: dict[int, list[tuple[Any, Any]]] = {}
        self.client: Recorder | None = None
        self.acked: dict[str, int] = {}  # action id -> seq
        self.reconnections = 0
        self.refusals: list[str] = []  # error codes of hellos refused on the way

    @property
    def c(self) -> Recorder:
        assert self.client is not None
        return self.client

    async def open(self) -> None:
        """Connect and say hello (with the last seq seen), trying process after process."""
        last = self.client.seq if self.client is not None else None
        for attempt in range(TRIES):
            url = self.urls[self.at % len(self.urls)]
            try:
                ws = await connect(url, max_size=2**22, open_timeout=10)
            except (OSError, InvalidHandshake, TimeoutError):
                self.at += 1
                await asyncio.sleep(0.1)
                continue
            client = Recorder(ws, self.seen)
            if last is not None:
                client.seq = last
            try:
                await self._hello(client, last)
            except (ConnectionClosed, TimeoutError, Refused):
                await ws.close()
                self.at += 1
                await asyncio.sleep(0.1 + 0.02 * attempt)
                continue
            self.client = client
            return
        raise AssertionError(f"{self.code}: no process took the player back")

    async def _hello(self, client: Recorder, last: int | None) -> None:
        hello: dict[str, Any] = {"type": "hello", "table": self.code, "token": self.token}
        if last is not None:
            hello["last_seq"] = last
        await client.send(hello)
        while True:
            msg = await client.recv()
            if msg["type"] == "error":
                self.refusals.append(msg["code"])
                raise Refused(msg["code"])
            if msg["type"] == "snapshot" or (
                msg["type"] == "table" and msg["table"]["status"] == "lobby"
            ):
                return

    async def reopen(self) -> None:
        self.reconnections += 1
        if self.client is not None:
            with contextlib.suppress(Exception):
                await self.client.ws.close()
        self.at += 1
        await self.open()

    async def until_seq(self, seq: int) -> None:
        while self.c.seq < seq:
            try:
                await self.c.recv()
            except (ConnectionClosed, TimeoutError):
                await self.reopen()

    async def act(self, action: dict[str, Any], action_id: str) -> dict[str, Any]:
        """Send the action; on a lost connection, reconnect and send it again with its id."""
        for _ in range(TRIES):
            try:
                answer = await self.c.act(action, action_id=action_id)
            except (ConnectionClosed, TimeoutError):
                await self.reopen()
                continue
            if answer["type"] == "error" and answer["code"] in ("store_unavailable", "stale"):
                await asyncio.sleep(0.2)  # the table is moving: its next owner answers
                await self.until_seq(self.c.seq)
                continue
            if answer["type"] in ("event", "ack"):  # applied now, or before (a resend)
                self.acked[action_id] = answer["seq"]
            return answer
        raise AssertionError("the action was never answered")


class Refused(Exception):
    pass


def pick(players: list[Player], rng: random.Random) -> tuple[Player, dict[str, Any]] | None:
    """A legal action of a player who is up to date (no TAPs: they race), by a seeded choice."""
    top = max(p.c.seq for p in players)
    options = [
        (p, a)
        for p in players
        if p.c.seq == top
        for a in p.c.legal
        if a["do"] != "tap" and p.c.view.get("phase") != "match_over"
    ]
    if not options:
        return None
    player, action = rng.choice(options)
    return player, {k: v for k, v in action.items() if k != "by"}


async def play(players: list[Player], rng: random.Random, actions: int, kill: Any = None) -> int:
    """Play up to ``actions`` actions (fewer if the match ends); ``kill(n)`` is awaited
    before the n-th action is answered (after it is sent).  Returns how many were played."""
    for n in range(actions):
        for p in players:
            await p.until_seq(max(q.c.seq for q in players))
        chosen = pick(players, rng)
        if chosen is None:
            return n
        player, action = chosen
        action_id = uuid.uuid4().hex[:12]
        if kill is not None and await kill(n, player, action, action_id):
            continue
        answer = await player.act(action, action_id)
        assert answer["type"] in ("event", "ack"), answer
    return actions


async def check_log(cluster: Cluster, table_id: str, players: list[Player]) -> None:
    """Every acknowledged action is in the log once, at its seq; every player saw every seq's
    events, the same as every other player."""
    log = await cluster.log(table_id)
    assert [seq for seq, _, _ in log] == list(range(1, len(log) + 1))
    ids = [payload["id"] for _, kind, payload in log if kind == "action" and "id" in payload]
    assert len(ids) == len(set(ids)), "an action was applied twice"
    by_id = {payload["id"]: seq for seq, _, payload in log if "id" in payload}
    for p in players:
        for action_id, seq in p.acked.items():
            assert by_id.get(action_id) == seq, f"acknowledged {action_id} at {seq}, not in the log"
    last = len(log)
    for p in players:
        await p.until_seq(last)
        missing = [s for s in range(2, last + 1) if s not in p.seen]
        assert not missing, f"a player never saw the events of {missing}"
    for seq in range(2, last + 1):
        assert len({str(p.seen[seq]) for p in players}) == 1, f"players disagree at {seq}"
