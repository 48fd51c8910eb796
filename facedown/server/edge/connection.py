"""One WebSocket client: a bounded send queue, a rate limit, and its identity at a table."""

from __future__ import annotations

import asyncio
import contextlib
import time
from typing import TYPE_CHECKING, Any, Protocol

from starlette.types import Receive, Send
from starlette.websockets import WebSocket

from ..play.table import Table
from ..transport.protocol import ServerFrame, encode
from ..transport.wsprotocol import SendText

if TYPE_CHECKING:
    from ..play.lobby import Elsewhere

SLOW_CLIENT = 4008  # close code: the client did not drain its messages in time
TOO_MANY = 4029  # close code: the client kept sending faster than the rate limit
NO_HELLO = 4001  # close code: the client did not say hello in time
IDLE = 4002  # close code: a spectator sent nothing (not even a ping) for too long
CLOSE_WAIT = 10.0  # seconds a closing connection may take to deliver what is queued, then to close


class RateLimit:
    """A token bucket: ``rate`` messages a second on average, ``burst`` at once."""

    def __init__(self, rate: float, burst: float) -> None:
        self.rate = rate
        self.burst = burst
        self.tokens = burst
        self.stamp = time.monotonic()

    def allow(self) -> bool:
        now = time.monotonic()
        self.tokens = min(self.burst, self.tokens + (now - self.stamp) * self.rate)
        self.stamp = now
        if self.tokens >= 1.0:
            self.tokens -= 1.0
            return True
        return False


class Peer(Protocol):
    """A client as the message handlers see it: a WebSocket of this process
    (:class:`Connection`), or one another process relays (``relay.RemoteConnection``)."""

    table: Table | None
    player_id: str | None
    address: str
    watching: str | None
    elsewhere: Elsewhere | None

    @property
    def seat(self) -> int | None: ...

    def room(self) -> int: ...

    def send(self, message: ServerFrame, frame: str | None = None) -> None: ...

    def close(self, code: int = 1000, reason: str = "") -> None: ...


class Connection:
    """A client connection as the table and the hub see it.

    Its frames go out and come in through the ASGI server's own ``send`` and ``receive``
    (Starlette's :class:`WebSocket` accepts and closes the connection: its checks of each
    message's state, on every frame, are for applications that could send out of turn)."""

    def __init__(
        self,
        websocket: WebSocket,
        receive: Receive,
        send: Send,
        queue_size: int,
        send_text: SendText | None = None,
    ) -> None:
        loop = asyncio.get_running_loop()
        self.websocket = websocket
        self._receive = receive
        self._send = send
        # The server's way to write a frame at once (server/transport/wsprotocol.py), where it has
        # one: used while nothing is queued or being sent, so the frames keep their order.
        self._send_text = send_text
        self._sending = False  # the sender task holds a frame it took from the queue
        self.queue: asyncio.Queue[str | None] = asyncio.Queue(queue_size)
        self.table: Table | None = None
        self.player_id: str | None = None
        self.address = "unknown"  # whom its frames count against (see addresses.py)
        self.watching: str | None = None  # the table it holds a spectator place at
        # A cluster: the hello named a table another process owns (server/edge/relay.py), and
        # the id this connection is relayed to its owner by.
        self.elsewhere: Elsewhere | None = None
        self.relay_id: str | None = None
        self.relayed_spectator = False  # the owner's welcome gave it no seat
        self.closing = False
        # The task waiting in receive(), while it waits, and whether close() interrupted it.
        self._reader: asyncio.Task[Any] | None = None
        self._interrupted = False
        self._closer: asyncio.Task[None] | None = None
        self._sender = loop.create_task(self._send_loop())

    @property
    def seat(self) -> int | None:
        """The seat this client plays (seats move in the lobby: the table says where)."""
        table = self.table
        if table is None or self.player_id is None:
            return None
        return table.seat_of(self.player_id)

    async def receive(self) -> str | bytes | None:
        """The client's next frame, or None once the client left or this connection closed
        (a dropped client must not hold its handler: it may never send again).
        A caller bounds the wait with ``asyncio.timeout``: the pending read is cancelled."""
        if self.closing:
            return None
        # The read waits in the caller's own task (no task of its own for every frame): close()
        # cancels that task while it waits here, and only then, and the read takes the
        # cancellation back; any other (the caller's timeout, the server stopping) goes on.
        reader = asyncio.current_task()
        self._reader = reader
        try:
            message = await self._receive()
        except asyncio.CancelledError:
            if not self._interrupted or reader is None:
                raise
            self._interrupted = False
            if reader.uncancel() > 0:
                raise  # cancelled by something else as well
            return None
        finally:
            self._reader = None
        if self.closing or message["type"] == "websocket.disconnect":
            return None
        text: str | None = message.get("text")
        if text is not None:
            return text
        data: bytes = message.get("bytes") or b""
        return data

    def room(self) -> int:
        """How many more messages fit in the send queue."""
        return self.queue.maxsize - self.queue.qsize()

    def send(self, message: ServerFrame | str, frame: str | None = None) -> None:
        """Queue ``message``, or a frame's text as it is (relayed: the table's owner encoded
        it); ``frame``, when given, is the message's encoding (the hub encodes a message once
        for all the connections it goes to: a seat's devices, the spectators)."""
        if self.closing:
            return
        if isinstance(message, str):
            frame = message
        elif frame is None:
            frame = encode(message)
        if (
            self._send_text is not None
            and not self._sending
            and not self.queue.qsize()
            and self._send_text(frame)
        ):
            return  # written now (refused: not open, or the socket's buffer is full)
        try:
            self.queue.put_nowait(frame)
        except asyncio.QueueFull:
            # Too far behind: drop the client; it reconnects and resyncs from its last seq.
            self.close(SLOW_CLIENT, "too slow to read the table's messages")

    def close(self, code: int = 1000, reason: str = "") -> None:
        """Stop serving this client and close its WebSocket (in the background)."""
        if self.closing:
            return
        self.closing = True
        if self._reader is not None:
            self._interrupted = True
            self._reader.cancel()  # the handler waiting for a frame returns None
        self._closer = asyncio.get_running_loop().create_task(self._close(code, reason))

    async def _close(self, code: int, reason: str) -> None:
        if code != SLOW_CLIENT and not self.queue.full():
            # Deliver what is queued first (the error that says why, for one).
            self.queue.put_nowait(None)
            with contextlib.suppress(Exception):
                await asyncio.wait_for(asyncio.shield(self._sender), CLOSE_WAIT)
        self._sender.cancel()
        with contextlib.suppress(Exception):
            # A client that reads nothing never lets the close frame out: give up after a while.
            await asyncio.wait_for(self.websocket.close(code, reason), CLOSE_WAIT)

    async def _send_loop(self) -> None:
        send = self._send
        while True:
            frame = await self.queue.get()
            if frame is None:
                return
            self._sending = True
            await send({"type": "websocket.send", "text": frame})
            self._sending = False

    async def finish(self) -> None:
        """The client is gone or closed: end the close under way, then stop sending."""
        self.closing = True
        if self._closer is not None:
            with contextlib.suppress(Exception):
                await self._closer
        self._sender.cancel()
        with contextlib.suppress(asyncio.CancelledError, Exception):
            await self._sender
