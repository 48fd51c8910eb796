"""Two nodes on the real Redis (127.0.0.1:6379, channels of a cluster id of their own): items
arrive in order with their bodies as they were sent, calls are answered, and a lost batch or a
silent node is noticed."""

from __future__ import annotations

import asyncio
import json
import secrets
import time
from collections.abc import AsyncIterator, Callable

import pytest

from facedown.server.cluster.cluster import ClusterDown, ClusterTimings, Item, Node

REDIS = "redis://127.0.0.1:6379/0"


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


class Recorder:
    """A node's handler that keeps what it receives, and answers calls with their args."""

    def __init__(self) -> None:
        self.items: list[tuple[str, Item]] = []
        self.bodies: list[bytes | None] = []
        self.sent: list[float] = []
        self.lost: list[str] = []
        self.node: Node | None = None

    def item(self, sender: str, item: Item, body: bytes | None, sent: float) -> None:
        if item.get("op") == "call" and self.node is not None:
            self.node.reply(sender, str(item["id"]), {"echo": item.get("args")})
            return
        self.items.append((sender, item))
        self.bodies.append(body)
        self.sent.append(sent)

    def link_lost(self, node: str) -> None:
        self.lost.append(node)


async def until(condition: Callable[[], bool], within: float = 20.0) -> None:
    deadline = time.monotonic() + within
    while not condition():
        assert time.monotonic() < deadline, "it never happened"
        await asyncio.sleep(0.02)


@pytest.fixture
async def pair(anyio_backend: str) -> AsyncIterator[tuple[Node, Recorder, Node, Recorder]]:
    cluster = secrets.randbits(40)  # no other test's nodes on these channels
    timings = ClusterTimings(beat=0.2, dead_after=1.0, call_timeout=5.0)
    a, b = Node(REDIS, cluster, timings), Node(REDIS, cluster, timings)
    ra, rb = Recorder(), Recorder()
    ra.node, rb.node = a, b
    await a.start(ra)
    await b.start(rb)
    if not (a.up and b.up):
        pytest.skip("Redis unreachable at 127.0.0.1:6379")
    try:
        yield a, ra, b, rb
    finally:
        await a.close()
        await b.close()


@pytest.mark.anyio
async def test_items_arrive_in_order_and_calls_are_answered(
    pair: tuple[Node, Recorder, Node, Recorder],
) -> None:
    a, _, b, rb = pair
    for n in range(200):
        a.send(b.id, {"op": "frame", "n": n})
        if n % 50 == 0:
            await asyncio.sleep(0)  # several batches
    await until(lambda: len(rb.items) == 200)
    assert [item["n"] for _, item in rb.items] == list(range(200))
    assert {sender for sender, _ in rb.items} == {a.id}
    assert await a.call(b.id, {"fn": "info", "args": {"x": 1}}) == {"echo": {"x": 1}}
    assert rb.lost == []
    await until(lambda: a.live_nodes() == 2 and b.alive(a.id))


@pytest.mark.anyio
async def test_bodies_arrive_byte_for_byte_beside_their_items(
    pair: tuple[Node, Recorder, Node, Recorder],
) -> None:
    a, _, b, rb = pair
    bodies = [
        b'{"type":"event","seq":1,"text":"a line\\nbreak \xc3\xa9"}',
        b"",
        b"\n\n{not json at all}\n",
        None,
        "\u00e9\u4e2d\U0001f0a1".encode(),
    ]
    before = time.time()
    for n, body in enumerate(bodies * 20):
        a.send(b.id, {"op": "frame", "n": n}, body)
        if n % 7 == 0:
            await asyncio.sleep(0)  # several batches, some with several bodies
    await until(lambda: len(rb.items) == 100)
    assert rb.bodies == bodies * 20
    assert [item["n"] for _, item in rb.items] == list(range(100))
    # When each batch's first item was queued, on a's clock (the same machine's here).
    assert all(before <= sent <= time.time() for sent in rb.sent)
    assert rb.lost == []


@pytest.mark.anyio
async def test_a_batch_of_an_older_version_breaks_the_link(
    pair: tuple[Node, Recorder, Node, Recorder],
) -> None:
    a, _, b, rb = pair
    # As a process of the version before bodies sent it: the frame inside its item.
    frame = {"type": "ack", "id": "x", "seq": 3}
    old = {"from": a.id, "n": 1, "items": [{"op": "send", "conns": ["1"], "msg": frame}]}
    await a._redis.publish(b.node_channel + b.id, json.dumps(old))
    await until(lambda: rb.lost == [a.id])
    assert rb.items == []  # nothing half-understood was handed on


@pytest.mark.anyio
async def test_a_lost_batch_breaks_the_link(pair: tuple[Node, Recorder, Node, Recorder]) -> None:
    a, _, b, rb = pair
    a.send(b.id, {"op": "frame"})
    await until(lambda: len(rb.items) == 1)
    a._sent[b.id] += 1  # a batch that never reached Redis, as when a publish fails
    a.send(b.id, {"op": "frame"})
    await until(lambda: rb.lost == [a.id])


@pytest.mark.anyio
async def test_a_silent_node_is_gone_and_a_call_to_it_fails(
    pair: tuple[Node, Recorder, Node, Recorder],
) -> None:
    a, ra, b, _ = pair
    await until(lambda: b.alive(a.id) and a.alive(b.id))
    b.send(a.id, {"op": "frame"})
    await until(lambda: len(ra.items) == 1)
    for task in b._tasks:  # b stops beating and answering, as a stalled process does
        task.cancel()
    await until(lambda: ra.lost == [b.id])
    assert not a.alive(b.id)
    a.timings = ClusterTimings(beat=0.2, dead_after=1.0, call_timeout=0.5)
    with pytest.raises(ClusterDown):
        await a.call(b.id, {"fn": "info", "args": {}})


@pytest.mark.anyio
async def test_a_node_sent_to_but_never_heard_is_gone_once_a_new_node_would_have_heard_it(
    pair: tuple[Node, Recorder, Node, Recorder],
) -> None:
    """A process just started counts a node it never heard alive for ``dead_after`` (its beat
    may not have come yet): what it sent there (a relayed hello) must not wait for good."""
    a, ra, b, _ = pair
    dead = "vm-1-000000"  # a process killed before ``a`` started: it never beats
    a.send(dead, {"op": "attach", "conn": "1"})
    assert a.alive(dead) or time.monotonic() - a._started >= a.timings.dead_after
    await until(lambda: dead in ra.lost, within=5)
    assert not a.alive(dead)
    assert b.id not in ra.lost  # a node that beats is not touched


@pytest.mark.anyio
async def test_each_beat_says_how_many_tables_its_node_owns(
    pair: tuple[Node, Recorder, Node, Recorder],
) -> None:
    a, _, b, _ = pair
    owned = [3]
    a.owned = lambda: owned[0]
    await until(lambda: b.loads() == {a.id: 3})
    owned[0] = 7
    await until(lambda: b.loads() == {a.id: 7})
    assert a.loads() == {b.id: 0}  # b owns nothing (it was told nothing else)
    await a.close()  # its goodbye: it owns nothing any more, for b
    await until(lambda: b.loads() == {})
