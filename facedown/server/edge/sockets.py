"""The WebSocket: one reading loop per connection, and one small handler per client message.

The loop enforces the hello deadline and the rate limit; each parsed message goes to the handler
of its type (:data:`HANDLERS`), and a refusal (:class:`TableError`) becomes an error frame.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from typing import Any

from starlette.types import Receive, Scope, Send
from starlette.websockets import WebSocket

from ...store import LeaseLost, StoreError
from ..accounts.auth import Guest
from ..base.errors import TableError
from ..play.lobby import MOVED, Elsewhere
from ..play.table import Table
from ..transport import protocol as P
from ..transport.wsprotocol import SEND_TEXT
from .connection import IDLE, NO_HELLO, TOO_MANY, Connection, Peer, RateLimit
from .state import ServerState

STRIKES_FORGIVEN = 10.0  # seconds without a rate-limited message that wipe the strikes

Handler = Callable[[ServerState, Peer, Any], Awaitable[None]]


class SocketEndpoint:
    """The ``/ws`` route as a plain ASGI application: a connection's frames go through the
    server's own ``receive`` and ``send`` (see :class:`Connection`)."""

    def __init__(self, state: ServerState) -> None:
        self.state = state

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        # A task of its own: each time the connection's loop resumes (a frame arrived, a
        # write committed) it resumes from here, not through the dozen coroutines of the
        # middleware and routing above (every one of which each resumption passes through).
        # Cancelling this coroutine cancels the task it waits for.
        await asyncio.get_running_loop().create_task(serve_socket(self.state, scope, receive, send))


async def serve_socket(state: ServerState, scope: Scope, receive: Receive, send: Send) -> None:
    """Serve one WebSocket client from accept to close."""
    ws = WebSocket(scope, receive, send)
    await ws.accept()
    send_text = scope.get("extensions", {}).get(SEND_TEXT)
    conn = Connection(ws, receive, send, state.settings.send_queue, send_text)
    conn.address = state.address(ws.client.host if ws.client else None, ws.headers)
    if not state.limits.connect(conn.address):
        conn.send(P.error_message("rate_limited", "too many connections from your address"))
        conn.close(TOO_MANY, "too many connections")
        await conn.finish()
        return
    state.metrics.connections.inc()
    try:
        await _serve(state, conn)
    finally:
        state.metrics.connections.dec()
        state.limits.disconnect(conn.address)
        state.seat_sessions.forget(conn)
        if state.relays is not None:
            state.relays.detach(conn)
        await leave(state, conn)
        await conn.finish()


async def _serve(state: ServerState, conn: Connection) -> None:
    """Read and answer frames until the client leaves or the connection is closed."""
    settings = state.settings
    limit = RateLimit(settings.rate, settings.burst)
    strikes = 0
    last_strike = 0.0
    hello_by = time.monotonic() + settings.hello_timeout
    frames = state.limits.frames
    while True:
        try:
            raw = await _next_frame(conn, _wait(state, conn, hello_by))
        except TimeoutError:
            if conn.relay_id is not None and not conn.relayed_spectator:
                continue  # a relayed player (its welcome came after the wait began)
            if conn.table is not None or conn.relay_id is not None:
                conn.send(P.error_message("idle", "a spectator that sends nothing is closed"))
                conn.close(IDLE, "idle spectator")
                return
            conn.send(P.error_message("hello_timeout", "no hello in time: closing"))
            conn.close(NO_HELLO, "no hello in time")
            return
        if raw is None:
            return
        state.metrics.frames.inc()
        # Both: this connection's own limit, and its address's over all of its connections.
        if limit.allow() and frames.allow(conn.address):
            await _dispatch(state, conn, raw)
            continue
        state.metrics.refused.inc()
        now = time.monotonic()
        if now - last_strike > STRIKES_FORGIVEN:
            strikes = 0  # an old burst is forgiven: only sustained flooding closes
        strikes += 1
        last_strike = now
        conn.send(P.error_message("rate_limited", "too many messages: slow down"))
        if strikes >= settings.strikes:
            conn.close(TOO_MANY, "too many messages")
            return


async def _next_frame(conn: Connection, wait: float | None) -> str | bytes | None:
    """The connection's next frame (see Connection.receive), or TimeoutError after ``wait``
    seconds; None: no limit, and no timer armed and disarmed for every frame of a player."""
    if wait is None:
        return await conn.receive()
    async with asyncio.timeout(wait):
        return await conn.receive()


def _wait(state: ServerState, conn: Connection, hello_by: float) -> float | None:
    """How long the next frame may take: the hello's deadline, a spectator's idle limit (a
    spectator that sends nothing, not even the client's pings, is gone), else for ever."""
    if conn.relay_id is not None:  # relayed: a spectator or not, its welcome says (later)
        return state.settings.clients.spectator_idle
    if conn.table is None:
        return max(0.0, hello_by - time.monotonic())
    return state.settings.clients.spectator_idle if conn.seat is None else None


async def _dispatch(state: ServerState, conn: Connection, raw: str | bytes) -> None:
    """Answer a frame here, or (relayed, in a cluster) pass it to the table's owner."""
    relays = state.relays
    if conn.relay_id is not None and relays is not None:
        relays.forward(conn, raw)  # the table's owner answers it
        return
    await handle(state, conn, raw)
    if conn.elsewhere is not None and conn.relay_id is None and relays is not None:
        relays.attach(conn, conn.elsewhere, raw)  # the hello, for the owner to answer


async def leave(state: ServerState, conn: Peer) -> None:
    """The connection is over: the table stops sending to it, and learns who left."""
    if conn.watching is not None:
        state.limits.unwatch(conn.watching)
        conn.watching = None
    table = conn.table
    if table is None:
        return
    state.lobby().hub.unsubscribe(table.record.id, conn)
    seat = conn.seat
    if seat is not None:
        await table.disconnected(seat)


async def handle(state: ServerState, conn: Peer, raw: str | bytes) -> None:
    """Parse one frame and answer it (an error frame for anything refused)."""
    try:
        msg = P.parse_client_message(raw)
    except P.ProtocolError as e:
        state.metrics.error(e.code)
        conn.send(P.error_message(e.code, e.message))
        return
    try:
        await HANDLERS[type(msg)](state, conn, msg)
    except LeaseLost:
        # Another process took the table over (this one stalled, or lost the database for
        # longer than its lease): nothing was written; its clients reconnect to the new owner.
        if conn.table is not None:
            await state.lobby().drop(conn.table.id)
        conn.close(MOVED, "the table moved to another server: reconnect")
    except StoreError:
        state.metrics.error("store_unavailable")
        message = "the game could not be saved (the database is unreachable): try again"
        conn.send(P.error_message("store_unavailable", message, _action_id(msg)))
    except TableError as e:
        state.metrics.error(e.code)
        conn.send(P.error_message(e.code, e.message, _action_id(msg)))
        if e.code == "stale" and conn.table is not None and conn.table.game is not None:
            conn.send(conn.table.render(conn.seat))  # the resync


def _action_id(msg: object) -> str | None:
    """The id of a refused action, which its error frame carries (it answers the action)."""
    return msg.id if isinstance(msg, P.ActionMessage) else None


# ---------------------------------------------------------------- who may send what


def _table(conn: Peer) -> Table:
    if conn.table is None:
        raise TableError("no_hello", "say hello with a table code first")
    return conn.table


def _seat(conn: Peer) -> int:
    seat = conn.seat
    if seat is None:
        raise TableError("not_seated", "spectators cannot act")
    return seat


def _host(conn: Peer) -> str:
    """The sender's player id (the table checks that it is the host's)."""
    if conn.player_id is None:
        raise TableError("not_host", "only the host can do that")
    return conn.player_id


# ---------------------------------------------------------------- the handlers


async def _ping(state: ServerState, conn: Peer, msg: P.Ping) -> None:
    conn.send({"type": "pong"})


async def _hello(state: ServerState, conn: Peer, msg: P.Hello) -> None:
    if conn.table is not None:
        raise TableError("already_hello", "this connection is already at a table")
    lobby = state.lobby()
    found = await state.find(msg.table, conn.address)
    guest = await _holder(state, conn, msg, found.record.id)
    if isinstance(found, Elsewhere):
        conn.elsewhere = found  # another process owns the table: it answers this hello
        return
    table = found
    player_id = None if msg.spectate or guest is None else guest.player_id
    if player_id is None or table.seat_of(player_id) is None:
        if not state.limits.watch(table.record.id):
            raise TableError("too_many_spectators", "this table has as many spectators as it may")
        conn.watching = table.record.id
    conn.player_id = player_id
    conn.table = table
    seat = conn.seat
    async with table.lock:
        if lobby.tables.get(table.record.id) is not table:
            # Handed over or dropped while this hello waited for the lock: whoever owns it
            # now serves the client when it reconnects.
            conn.table = None
            conn.close(MOVED, "the table moved to another server: reconnect")
            return
        lobby.hub.subscribe(table.record.id, conn)
        conn.send({"type": "welcome", "v": P.VERSION, "seat": seat, "seq": table.seq})
        catch_up = table.catch_up(seat, msg.last_seq)
        if len(catch_up) > conn.room():
            # More missed events than the send queue holds would drop the client at once
            # (and again at each reconnection): a fresh snapshot instead.
            catch_up = table.catch_up(seat, None)
        for item in catch_up:
            conn.send(item)
    if seat is not None:
        await table.connected(seat)


async def _holder(state: ServerState, conn: Peer, msg: P.Hello, table_id: str) -> Guest | None:
    """Whom the hello's token names at the table.  An account holder's token only at its own
    table, and only while its session lives: the connection of a seat it opens is closed when
    the session ends (seatsessions.py), by the process that holds its socket (not by the
    table's owner that a cluster relays it to)."""
    accounts, sessions = state.accounts_(), state.seat_sessions
    socket = conn if isinstance(conn, Connection) else None  # None: relayed here
    if socket is not None:
        sessions.forget(socket)  # a hello before it that failed watched nothing that stays
    guest, session = await accounts.seat_claim(msg.token, table_id)
    if guest is not None and session is not None:
        watched = None if msg.spectate else socket
        if watched is not None:
            # Watched before the session is read: an end of the session from then on closes
            # this connection, and one before is seen by the read.
            sessions.watch(watched, *session)
        if not await accounts.session_lives(*session):
            if watched is not None:
                sessions.forget(watched)
            guest = None
    if msg.token and guest is None:
        raise TableError("bad_token", "the session token is not valid")
    return guest


async def _action(state: ServerState, conn: Peer, msg: P.ActionMessage) -> None:
    # From the frame's arrival (parsed) to its answer queued: the table's lock, the engine and
    # the store's commit are inside.
    start = time.perf_counter()
    table = _table(conn)
    data = msg.action.model_dump(exclude_none=True)
    seq, now = await table.act(_seat(conn), data, msg.id, msg.seq)
    if not now:  # applied before (a resent id): acknowledged again on its own
        conn.send({"type": "ack", "id": msg.id, "seq": seq})
    # (else the seat's event that applied it, queued already, carries its id as ``ack``)
    state.metrics.latency.observe(time.perf_counter() - start)


async def _ready(state: ServerState, conn: Peer, msg: P.Ready) -> None:
    table = _table(conn)
    conn.send({"type": "ack", "seq": table.seq})
    if conn.seat is not None:  # the seat's moment is over: its devices drop what it was shown
        await table.moment_over(conn.seat)


async def _add_bot(state: ServerState, conn: Peer, msg: P.AddBot) -> None:
    await _table(conn).add_bot(_host(conn), msg.level, msg.seat)


async def _remove_seat(state: ServerState, conn: Peer, msg: P.RemoveSeat) -> None:
    await _table(conn).remove_seat(_host(conn), msg.seat)


async def _start(state: ServerState, conn: Peer, msg: P.Start) -> None:
    await _table(conn).start(_host(conn))


async def _rematch(state: ServerState, conn: Peer, msg: P.Rematch) -> None:
    await _table(conn).rematch(_host(conn))


HANDLERS: dict[type[Any], Handler] = {
    P.Ping: _ping,
    P.Hello: _hello,
    P.ActionMessage: _action,
    P.Ready: _ready,
    P.AddBot: _add_bot,
    P.RemoveSeat: _remove_seat,
    P.Start: _start,
    P.Rematch: _rematch,
}
