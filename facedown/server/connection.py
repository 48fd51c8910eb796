"""One WebSocket client: a bounded send queue, a rate limit, and its identity at a table."""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
from collections.abc import Mapping
from typing import Any

from starlette.websockets import WebSocket

from .table import Table

SLOW_CLIENT = 4008  # close code: the client did not drain its messages in time
TOO_MANY = 4029  # close code: the client kept sending faster than the rate limit


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


class Connection:
    """A client connection as the table and the hub see it."""

    def __init__(self, websocket: WebSocket, queue_size: int) -> None:
        self.websocket = websocket
        self.queue: asyncio.Queue[Mapping[str, Any] | None] = asyncio.Queue(queue_size)
        self.table: Table | None = None
        self.player_id: str | None = None
        self.closing = False
        self._sender = asyncio.get_running_loop().create_task(self._send_loop())

    @property
    def seat(self) -> int | None:
        """The seat this client plays (looked up each time: seats move in the lobby)."""
        if self.table is None or self.player_id is None:
            return None
        return self.table.seat_of(self.player_id)

    def send(self, message: Mapping[str, Any]) -> None:
        if self.closing:
            return
        try:
            self.queue.put_nowait(message)
        except asyncio.QueueFull:
            # Too far behind: drop the client; it reconnects and resyncs from its last seq.
            self.close(SLOW_CLIENT)

    def close(self, code: int = 1000) -> None:
        if self.closing:
            return
        self.closing = True
        asyncio.get_running_loop().create_task(self._close(code))

    async def _close(self, code: int) -> None:
        self._sender.cancel()
        with contextlib.suppress(Exception):
            await self.websocket.close(code)

    async def _send_loop(self) -> None:
        while True:
            message = await self.queue.get()
            if message is None:
                return
            await self.websocket.send_text(json.dumps(message, separators=(",", ":")))

    async def finish(self) -> None:
        self.closing = True
        self._sender.cancel()
        with contextlib.suppress(asyncio.CancelledError, Exception):
            await self._sender
