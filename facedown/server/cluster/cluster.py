"""The processes of a cluster talking through Redis pub/sub: one channel per process, one for all.

Every process (a *node*) has a unique id and listens on its own channel,
``facedown:CLUSTER:node:ID``, and on ``facedown:CLUSTER:all``, where CLUSTER is the id kept in
the shared database (``Store.cluster_id``): clusters on different databases may share a Redis.
What one node sends another (a client's frame for the table's owner, the owner's messages for
the clients of that node, a call and its reply) is queued in an outbox per destination and
published in batches, by one task on one Redis connection, so the destination receives them in
the order they were queued.  An item may carry a *body*, bytes the node never reads: a client's
frame for the owner, or a frame the owner encoded for a client, which travels as it is (a
batch is its items as one line of JSON, then the bodies one after the other, each item saying
how long its body is).  A batch also says when its first item was queued (the sender's
clock), so the receiver can tell how long its items took to cross (the relay's latency
metric).  Each batch carries a number per destination (1, 2, 3, ...); every
``beat`` seconds each node says on the cluster channel that it lives, how many batches it
sent each other node, and how many tables it owns (what the cluster rebalances by).  A receiver
that finds a batch missing (a number skipped, or fewer received than the sender says it sent)
treats its link with the sender as broken: whatever rode on it (relayed clients, remote
subscribers) is closed, and the clients reconnect and resync from the table, which is the
truth.  So is a node not heard for ``dead_after`` seconds.

Pub/sub, not streams: Redis holds nothing that matters here.  The log in the database is the
truth and every client resyncs from it by seq, so a message lost with a broken link costs a
reconnection, never a move; streams would keep a second, trimmed copy of what the log already
keeps, and add a consumer's bookkeeping to every delivery.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import secrets
import socket
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

import orjson
import redis.asyncio as aioredis
from redis.exceptions import RedisError

PREFIX = "facedown"
_BATCH = b"\n"  # between a batch's items (one line of JSON) and its bodies

log = logging.getLogger(__name__)

# One message between processes, as JSON: its "op" says which, and each op has fields of its
# own (the relays read them, server/edge/relay.py); free-form at this level.
Item = dict[str, Any]


def new_node_id() -> str:
    """A process's id: readable in logs (host and pid), unique (a random tail)."""
    return f"{socket.gethostname()}-{os.getpid()}-{secrets.token_hex(3)}"


@dataclass(frozen=True)
class ClusterTimings:
    beat: float = 1.0  # seconds between a node's heartbeats
    dead_after: float = 3.5  # a node not heard for this long is gone
    call_timeout: float = 5.0  # seconds a call to another node may take
    reconnect: float = 0.5  # seconds between attempts to reach Redis again

    @property
    def unknown_after(self) -> float:
        """A node never heard is gone this long after this one began to listen: every live
        node beats within one beat, so two beats without its beat is a dead one."""
        return min(self.dead_after, 2 * self.beat)


class Handler(Protocol):
    """What a node does with what it receives (server/edge/relay.py)."""

    def item(self, sender: str, item: Item, body: bytes | None, sent: float) -> None:
        """One item from ``sender``, in the order it was sent (it must not block), with its
        body if it has one; ``sent`` is when its batch's first item was queued, in unix
        time on the sender's clock."""

    def link_lost(self, node: str) -> None:
        """Items from or to ``node`` may have been lost, or it is gone: close what rode on it."""


class ClusterDown(Exception):
    """Redis is unreachable: no message can be sent to another node now."""


class _Batch:
    """What is queued for one destination: items, their bodies, when the first was queued."""

    __slots__ = ("bodies", "items", "since")

    def __init__(self) -> None:
        self.items: list[Item] = []
        self.bodies: list[bytes] = []
        self.since = time.time()


class Node:
    """This process on the cluster's Redis."""

    def __init__(self, url: str, cluster: int, timings: ClusterTimings | None = None) -> None:
        self.url = url
        self.id = new_node_id()
        self.all_channel = f"{PREFIX}:{cluster}:all"
        self.node_channel = f"{PREFIX}:{cluster}:node:"
        self.timings = timings or ClusterTimings()
        self.handler: Handler | None = None
        self._redis: aioredis.Redis = aioredis.Redis.from_url(
            url, socket_connect_timeout=2, socket_timeout=None, health_check_interval=0
        )
        self._outbox: dict[str, _Batch] = {}
        self._wake = asyncio.Event()
        self._sent: dict[str, int] = {}  # destination -> batches sent
        self._received: dict[str, int] = {}  # sender -> batches received
        self._heard: dict[str, float] = {}  # node -> when last heard (monotonic)
        # Nodes sent to that were never heard (a process just started counts them alive, see
        # ``alive``): if they stay silent, they are gone like a node that fell silent.
        self._unheard: set[str] = set()
        self._tables: dict[str, int] = {}  # node -> the tables it owns, as its last beat said
        self.owned: Callable[[], int] = lambda: 0  # the tables this node owns (in its beats)
        self._started = time.monotonic()  # when it began to listen (set again then)
        self._tasks: list[asyncio.Task[None]] = []
        self._calls: dict[str, asyncio.Future[Any]] = {}
        self._call_counter = 0
        self.up = False  # subscribed and listening
        self._subscribed = asyncio.Event()
        self.closed = False

    # ------------------------------------------------------------------ life
    async def start(self, handler: Handler) -> None:
        """Listen, beat and send; waits (a few seconds at most) for the first subscription."""
        self.handler = handler
        self._tasks = [
            asyncio.create_task(self._listen(), name="facedown-cluster-listen"),
            asyncio.create_task(self._send_loop(), name="facedown-cluster-send"),
            asyncio.create_task(self._beat_loop(), name="facedown-cluster-beat"),
        ]
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._subscribed.wait(), 5.0)

    async def close(self) -> None:
        """Say goodbye (others let go of this node at once) and stop."""
        if self.closed:
            return
        with contextlib.suppress(RedisError, OSError):
            await asyncio.wait_for(self._flush(), 2.0)
            bye = orjson.dumps({"op": "bye", "node": self.id})
            await asyncio.wait_for(self._redis.publish(self.all_channel, bye), 2.0)
        self.closed = True
        for task in self._tasks:
            task.cancel()
        for task in self._tasks:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        for future in self._calls.values():
            if not future.done():
                future.set_exception(ClusterDown("the node is stopping"))
        with contextlib.suppress(RedisError, OSError):
            await self._redis.aclose()

    async def ping(self) -> None:
        """Return once Redis answers (the readiness check); raise ClusterDown otherwise."""
        try:
            await self._redis.ping()
        except (RedisError, OSError) as e:
            raise ClusterDown(f"Redis unreachable at {self.shown_url}: {e}") from None
        if not self.up:
            raise ClusterDown(f"not subscribed to Redis at {self.shown_url} yet")

    @property
    def shown_url(self) -> str:
        """The Redis URL without its password."""
        if "@" in self.url:
            scheme, rest = self.url.split("://", 1)
            return f"{scheme}://***@{rest.rsplit('@', 1)[1]}"
        return self.url

    # ------------------------------------------------------------------ who lives
    def alive(self, node: str) -> bool:
        """Heard from within ``dead_after``; a node never heard counts as alive for
        ``unknown_after`` from when this one began to listen (its beat may not have come)."""
        if node == self.id:
            return True
        now = time.monotonic()
        heard = self._heard.get(node)
        if heard is None:
            return now - self._started < self.timings.unknown_after
        return now - heard < self.timings.dead_after

    def live_nodes(self) -> int:
        """How many nodes (this one included) were heard from lately."""
        now = time.monotonic()
        return 1 + sum(now - t < self.timings.dead_after for t in self._heard.values())

    def loads(self) -> dict[str, int]:
        """How many tables each other live node owns, as its last beat said (a node whose
        beat said nothing of it, or not heard from yet, is left out)."""
        return {node: n for node, n in self._tables.items() if self.alive(node)}

    # ------------------------------------------------------------------ sending
    def send(self, node: str, item: Item, body: bytes | None = None) -> None:
        """Queue ``item`` for ``node`` (sent with the next batch, in order), and its ``body``
        (delivered as it is) if given."""
        if node == self.id:
            raise ValueError("a node does not send to itself")
        if node not in self._heard:
            self._unheard.add(node)
        batch = self._outbox.get(node)
        if batch is None:
            batch = self._outbox[node] = _Batch()
        if body is not None:
            item["len"] = len(body)
            batch.bodies.append(body)
        batch.items.append(item)
        self._wake.set()

    async def call(self, node: str, item: Item) -> Any:
        """Send ``item`` as a call and wait for its reply (ClusterDown after call_timeout)."""
        self._call_counter += 1
        call_id = f"{self.id}/{self._call_counter}"
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._calls[call_id] = future
        self.send(node, {**item, "op": "call", "id": call_id})
        try:
            return await asyncio.wait_for(future, self.timings.call_timeout)
        except TimeoutError:
            raise ClusterDown(f"node {node} did not answer in time") from None
        finally:
            self._calls.pop(call_id, None)

    def reply(self, node: str, call_id: str, result: Any) -> None:
        self.send(node, {"op": "reply", "id": call_id, "result": result})

    def _replied(self, item: Item) -> None:
        future = self._calls.get(str(item.get("id")))
        if future is not None and not future.done():
            future.set_result(item.get("result"))

    async def _send_loop(self) -> None:
        while True:
            await self._wake.wait()
            self._wake.clear()
            try:
                await self._flush()
            except (RedisError, OSError) as e:
                log.warning("cluster: publishing to Redis failed: %s", e)
                self._lost_all()
                await asyncio.sleep(self.timings.reconnect)

    async def _flush(self) -> None:
        if not self._outbox:
            return
        outbox, self._outbox = self._outbox, {}
        pipe = self._redis.pipeline(transaction=False)
        for node, batch in outbox.items():
            n = self._sent[node] = self._sent.get(node, 0) + 1
            head = {"from": self.id, "n": n, "at": batch.since, "items": batch.items}
            head_json = orjson.dumps(head, option=orjson.OPT_NON_STR_KEYS)
            data = b"".join((head_json, _BATCH, *batch.bodies))
            pipe.publish(self.node_channel + node, data)
        await pipe.execute()

    async def _beat_loop(self) -> None:
        while True:
            beat = {"op": "beat", "node": self.id, "sent": dict(self._sent), "tables": self.owned()}
            with contextlib.suppress(RedisError, OSError):
                await self._redis.publish(self.all_channel, orjson.dumps(beat))
            await asyncio.sleep(self.timings.beat)
            self._check_silence()

    def _check_silence(self) -> None:
        now = time.monotonic()
        for node, heard in list(self._heard.items()):
            if now - heard >= self.timings.dead_after:
                log.warning("cluster: node %s not heard for %.1f s: gone", node, now - heard)
                del self._heard[node]
                self._received.pop(node, None)
                self._tables.pop(node, None)
                self._lost(node)
        for node in list(self._unheard):
            if node in self._heard:
                self._unheard.discard(node)
            elif not self.alive(node):
                # Sent to (a client's hello relayed to a table's owner, say) but never heard:
                # a process that died before this one started.  What rides on it is closed,
                # or it would wait for good.
                log.warning("cluster: node %s never heard: gone", node)
                self._unheard.discard(node)
                self._lost(node)

    # ------------------------------------------------------------------ receiving
    async def _listen(self) -> None:
        while True:
            pubsub = self._redis.pubsub(ignore_subscribe_messages=True)
            try:
                await pubsub.subscribe(self.node_channel + self.id, self.all_channel)
                self.up = True
                if not self._subscribed.is_set():
                    self._started = time.monotonic()
                self._subscribed.set()
                log.info("cluster: node %s listening on Redis at %s", self.id, self.shown_url)
                while True:
                    message = await pubsub.get_message(timeout=None)
                    if message is not None and message.get("type") == "message":
                        self._received_message(message["channel"], message["data"])
            except (RedisError, OSError) as e:
                log.warning("cluster: lost Redis at %s: %s", self.shown_url, e)
            finally:
                self.up = False
                with contextlib.suppress(RedisError, OSError, RuntimeError):
                    await pubsub.aclose()  # type: ignore[no-untyped-call]
            # Whatever was under way with any other node may have lost messages.
            self._lost_all()
            await asyncio.sleep(self.timings.reconnect)

    def _received_message(self, channel: bytes, data: bytes) -> None:
        # A batch's first line is JSON (which has no raw line break), its bodies follow.
        head, _, bodies = data.partition(_BATCH)
        try:
            message = orjson.loads(head)
        except orjson.JSONDecodeError:
            log.warning("cluster: a message that is not JSON on %r", channel)
            return
        if not isinstance(message, dict):
            log.warning("cluster: a message that is not a JSON object on %r", channel)
            return
        if channel.decode() == self.all_channel:
            self._cluster_message(message)
            return
        sender = str(message.get("from"))
        n = int(message.get("n", 0))
        self._heard[sender] = time.monotonic()
        last = self._received.get(sender)
        if last is not None and n != last + 1:
            log.warning("cluster: batches %d-%d from %s were lost", last + 1, n - 1, sender)
            self._lost(sender)
        self._received[sender] = n
        sent = message.get("at")
        if not isinstance(sent, float):
            # An older version's batch (its frames inside the items, not after them): what it
            # carries cannot be delivered, so whatever rides on the link reconnects, as after
            # a loss (a cluster's processes run one version; while they are upgraded one by
            # one, clients relayed between an old and a new one reconnect till they meet).
            log.warning("cluster: a batch from %s, which runs another version", sender)
            self._lost(sender)
            return
        self._deliver(sender, message.get("items", ()), bodies, sent)

    def _deliver(self, sender: str, items: list[Item], bodies: bytes, sent: float) -> None:
        """A batch's items, in order, each with its body (the next ``len`` bytes)."""
        at = 0
        for item in items:
            body: bytes | None = None
            size = item.get("len")
            if isinstance(size, int):
                body, at = bodies[at : at + size], at + size
            if item.get("op") == "reply":
                self._replied(item)
            elif self.handler is not None:
                self.handler.item(sender, item, body, sent)
        if at != len(bodies):
            log.warning("cluster: a batch from %s whose bodies do not add up", sender)
            self._lost(sender)

    def _cluster_message(self, message: Item) -> None:
        node = str(message.get("node"))
        if node == self.id:
            return
        if message.get("op") == "bye":
            self._heard.pop(node, None)
            self._received.pop(node, None)
            self._tables.pop(node, None)
            self._lost(node)
            return
        self._heard[node] = time.monotonic()
        tables = message.get("tables")
        if isinstance(tables, int) and not isinstance(tables, bool) and tables >= 0:
            self._tables[node] = tables
        sent = int((message.get("sent") or {}).get(self.id, 0))
        received = self._received.get(node)
        if received is not None and received < sent:
            # The beat comes after the batches it counts: any not here were lost.
            log.warning("cluster: %d batches from %s were lost", sent - received, node)
            self._received[node] = sent
            self._lost(node)
        elif received is None and sent:
            self._received[node] = sent  # from now on every batch from it must arrive

    def _lost(self, node: str) -> None:
        # Calls under way time out by themselves; what rides on the link is closed here.
        if self.handler is not None:
            self.handler.link_lost(node)

    def _lost_all(self) -> None:
        for node in list(self._heard):
            self._lost(node)
        self._received.clear()
