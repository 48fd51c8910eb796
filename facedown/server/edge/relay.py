"""Clients of one process playing at a table another process owns, through the cluster's Redis.

A WebSocket is served by whichever process the client reached.  When its hello names a table
another process owns, this process *relays* it: every later frame (after this process's own
rate limits) goes to the owner, and whatever the owner sends the client comes back and is
queued on the WebSocket.  At the owner the client is a :class:`RemoteConnection`: the same
handlers serve it as a connection of its own (server/edge/sockets.py), and the table's hub
(:class:`ClusterHub`) delivers its messages to it like to any subscriber, batched per process.
HTTP requests for such a table (its info, a join) are calls to the owner.

A frame crosses as the bytes it is (a body of its item, see server/cluster/cluster.py): a client's
frame as the client sent it, a frame for a client as the owner encoded it, queued on the
WebSocket unread; each still names the one connection (or the connections of one audience)
it is for.  The receiving side observes how long each took from the sender's queue to here
(``facedown_relay_hop_seconds``).

When the link to the owner breaks (it died, stalled, lost the table, or Redis lost messages),
the relayed clients are closed with 1012 and reconnect: to any process, which finds the table's
owner anew (or takes the table over) and resyncs them from their last seq.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Awaitable, Callable, Mapping
from typing import TYPE_CHECKING, Any, cast

from ...store import StoreError
from ..base.errors import TableError
from ..cluster.cluster import ClusterDown, Item, Node
from ..play.lobby import MOVED, Elsewhere
from ..transport import protocol as P
from ..transport.hub import SPECTATORS, LocalHub, Subscriber, deliver, frame_of
from ..transport.protocol import ServerFrame
from .state import RelayError, RelayReply

if TYPE_CHECKING:
    from ..play.table import Table
    from .connection import Connection, Peer
    from .state import ServerState

# How this process answers a remote client's frame, and lets it go: the WebSocket's own
# handlers (``sockets.handle`` and ``sockets.leave``), handed in by the app, so the relay does
# not import the WebSocket module (which imports the shared state, which holds the relays).
FrameHandler = Callable[["ServerState", "Peer", bytes], Awaitable[None]]
Leaver = Callable[["ServerState", "Peer"], Awaitable[None]]


def _raw(data: str | bytes) -> bytes:
    """A client's frame as bytes, for the owner to parse as it would its own client's."""
    return data.encode() if isinstance(data, str) else data


def _unreachable(what: str) -> TableError:
    return TableError(
        "cluster_unavailable", f"the server that holds this table cannot be reached: {what}"
    )


class RemoteConnection:
    """At a table's owner: a client whose WebSocket another process serves."""

    def __init__(self, relays: Relays, node: str, conn_id: str, address: str) -> None:
        self.relays = relays
        self.node = node
        self.conn_id = conn_id
        self.address = address
        self.table: Table | None = None
        self.player_id: str | None = None
        self.watching: str | None = None
        self.elsewhere: Elsewhere | None = None
        self.closing = False
        self.inbox: asyncio.Queue[bytes | None] = asyncio.Queue()
        self.task = asyncio.get_running_loop().create_task(self._serve())

    @property
    def seat(self) -> int | None:
        """The seat this client plays (seats move in the lobby: the table says where)."""
        table = self.table
        if table is None or self.player_id is None:
            return None
        return table.seat_of(self.player_id)

    def room(self) -> int:
        """The client's process keeps the send queue (and drops a client too slow for it)."""
        return self.relays.state.settings.send_queue

    def send(self, message: ServerFrame, frame: str | None = None) -> None:
        # The frame crosses to the client's process as its bytes (``frame``, when the hub
        # encoded the message already, is the same text: ``protocol.encode``).
        if self.closing:
            return
        item: Item = {"op": "send", "conns": [self.conn_id]}
        if message.get("type") == "welcome":  # the client's process keeps its idle limit
            item["spectator"] = message.get("seat") is None
        data = (P.encode(message) if frame is None else frame).encode()
        self.relays.node.send(self.node, item, data)

    def close(self, code: int = 1000, reason: str = "") -> None:
        if self.closing:
            return
        self.relays.node.send(
            self.node, {"op": "close", "conn": self.conn_id, "code": code, "reason": reason}
        )
        self.gone()

    def gone(self) -> None:
        """Nothing more goes to the client (it left, or its process can no longer be reached)."""
        self.closing = True
        self.inbox.put_nowait(None)

    async def _serve(self) -> None:
        handle, leave = self.relays.handle, self.relays.leave
        state = self.relays.state
        try:
            while True:
                raw = await self.inbox.get()
                if raw is None or self.closing:
                    return
                await handle(state, self, raw)
                if self.elsewhere is not None:  # the table moved on before the hello got here
                    self.close(MOVED, "the table moved to another server: reconnect")
                    return
        finally:
            self.relays.remote.pop((self.node, self.conn_id), None)
            await leave(state, self)


class Relays:
    """This process's side of the cluster: the clients it relays, the remote ones it serves."""

    def __init__(self, state: ServerState, node: Node, handle: FrameHandler, leave: Leaver) -> None:
        self.state = state
        self.node = node
        self.handle = handle  # a remote client's frame, answered as this process's own
        self.leave = leave  # a remote client gone
        self.relayed: dict[str, tuple[Connection, str]] = {}  # conn id -> (client, owner node)
        self.remote: dict[tuple[str, str], RemoteConnection] = {}
        self._counter = 0
        self._calls: set[asyncio.Task[None]] = set()
        hop = state.metrics.relay_hop
        self._to_owner = hop.labels("owner")  # a client's frame, from its process to here
        self._to_client = hop.labels("client")  # a frame from the owner, for a client here

    # ------------------------------------------------------------------ relaying a client
    def attach(self, conn: Connection, elsewhere: Elsewhere, hello: str | bytes) -> None:
        """Relay ``conn`` to the owner of ``elsewhere``, starting with its hello."""
        if not self.node.up or not self.node.alive(elsewhere.owner):
            message = "the server that holds this table cannot be reached now"
            conn.send(P.error_message("cluster_unavailable", message))
            conn.close(MOVED, "the table's server cannot be reached: reconnect later")
            return
        self._counter += 1
        conn_id = str(self._counter)
        owner = elsewhere.owner
        self.relayed[conn_id] = (conn, owner)
        conn.relay_id = conn_id
        item: Item = {"op": "attach", "conn": conn_id, "address": conn.address}
        self.node.send(owner, item, _raw(hello))

    def forward(self, conn: Connection, raw: str | bytes) -> None:
        relayed = self.relayed.get(conn.relay_id or "")
        if relayed is None:
            return
        self.node.send(relayed[1], {"op": "frame", "conn": conn.relay_id}, _raw(raw))

    def detach(self, conn: Connection) -> None:
        relayed = self.relayed.pop(conn.relay_id or "", None)
        if relayed is not None:
            self.node.send(relayed[1], {"op": "detach", "conn": conn.relay_id})

    # ------------------------------------------------------------------ calls (HTTP)
    async def call(self, elsewhere: Elsewhere, fn: str, **args: str) -> RelayReply:
        """Call ``fn`` at the table's owner: its result, TableError for a refusal (or when the
        owner cannot be reached), None-free."""
        if not self.node.up:
            raise _unreachable("the servers cannot reach each other now")
        try:
            result = await self.node.call(
                elsewhere.owner, {"fn": fn, "table": elsewhere.id, "args": args}
            )
        except ClusterDown as e:
            raise _unreachable(str(e)) from None
        if not isinstance(result, dict):
            raise _unreachable("a reply that is not an object")
        error = result.get("error")
        if isinstance(error, dict):
            raise TableError(str(error.get("code")), str(error.get("message")))
        return cast(RelayReply, result)  # from a process of this cluster: its _answer

    async def _answer(self, sender: str, item: Item) -> None:
        table = await self.state.lobby().served(str(item.get("table")))
        result = RelayReply()
        if table is None:
            result["error"] = RelayError(
                code="cluster_unavailable", message="the table moved: try again"
            )
        else:
            args = item.get("args") or {}
            try:
                if item.get("fn") == "join":
                    result["seat"] = await table.join(str(args["player_id"]), str(args["name"]))
                result["info"] = table.table_info()
                result["match"] = table.match_no
            except TableError as e:
                result = RelayReply(error=RelayError(code=e.code, message=e.message))
            except StoreError:
                message = "the database did not take a write: try again"
                result = RelayReply(error=RelayError(code="store_unavailable", message=message))
        self.node.reply(sender, str(item.get("id")), result)

    # ------------------------------------------------------------------ from the cluster
    def item(self, sender: str, item: Item, body: bytes | None, sent: float) -> None:
        op = item.get("op")
        if op == "send":
            self._to_client.observe(max(0.0, time.time() - sent))
            if body is not None:
                self._to_clients(item, body)
        elif op == "close":
            relayed = self.relayed.get(str(item.get("conn")))
            if relayed is not None:
                relayed[0].close(int(item.get("code", MOVED)), str(item.get("reason", "")))
        elif op == "call":
            task = asyncio.get_running_loop().create_task(self._answer(sender, item))
            self._calls.add(task)
            task.add_done_callback(self._calls.discard)
        elif body is not None:
            self._to_owner.observe(max(0.0, time.time() - sent))
            self._from_client(sender, op, item, body)
        elif op == "detach":
            found = self.remote.get((sender, str(item.get("conn"))))
            if found is not None:
                found.gone()

    def _to_clients(self, item: Item, body: bytes) -> None:
        """A frame from a table's owner for clients relayed from here: queued as it is."""
        text = body.decode()
        spectator = item.get("spectator")  # set on a welcome: the idle limit is kept here
        for one in item.get("conns", ()):
            relayed = self.relayed.get(str(one))
            if relayed is not None:
                if spectator is not None:
                    relayed[0].relayed_spectator = bool(spectator)
                relayed[0].send(text)

    def _from_client(self, sender: str, op: Any, item: Item, body: bytes) -> None:
        """A relayed client's hello or frame, at its table's owner (here)."""
        conn_id = str(item.get("conn"))
        if op == "attach":
            remote = RemoteConnection(self, sender, conn_id, str(item.get("address")))
            self.remote[sender, conn_id] = remote
            remote.inbox.put_nowait(body)
            return
        found = self.remote.get((sender, conn_id))
        if found is not None and op == "frame":
            found.inbox.put_nowait(body)

    def link_lost(self, node: str) -> None:
        """Messages to or from ``node`` may be lost: its clients here reconnect, and its
        clients at tables of ours are gone until they do."""
        for conn_id, (conn, owner) in list(self.relayed.items()):
            if owner == node:
                del self.relayed[conn_id]
                conn.close(MOVED, "lost touch with the server that holds the table: reconnect")
        for (sender, _), remote in list(self.remote.items()):
            if sender == node:
                remote.gone()

    async def close(self) -> None:
        for conn, _ in list(self.relayed.values()):
            conn.close(MOVED, "this server is stopping: reconnect")
        for remote in list(self.remote.values()):
            remote.close(MOVED, "the server that holds the table is stopping: reconnect")
        for task in [r.task for r in self.remote.values()] + list(self._calls):
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task


class ClusterHub(LocalHub):
    """The hub of a cluster process: like :class:`LocalHub` for its own connections; the
    remote ones get one batch per process, each message once for all its connections there."""

    def __init__(self) -> None:
        super().__init__()
        self.node: Node | None = None

    def publish(
        self,
        table_id: str,
        messages: Mapping[int, ServerFrame],
        frames: Mapping[int, str] | None = None,
    ) -> None:
        local: list[Subscriber] = []
        remote: dict[tuple[str, int], list[str]] = {}
        for sub in list(self._subs.get(table_id, ())):
            if not isinstance(sub, RemoteConnection):
                local.append(sub)
                continue
            audience = SPECTATORS if sub.seat is None else sub.seat
            if not sub.closing and audience in messages:
                remote.setdefault((sub.node, audience), []).append(sub.conn_id)
        # Each audience's message encoded once (or by the caller), here and elsewhere.
        encoded: dict[int, str] = dict(frames or {})
        deliver(local, messages, encoded)
        if self.node is not None:
            for (node, audience), conns in remote.items():
                body = frame_of(audience, messages, encoded).encode()
                self.node.send(node, {"op": "send", "conns": conns}, body)
