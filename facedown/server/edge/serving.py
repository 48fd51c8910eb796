"""Serving on the open network: uvicorn's settings from :class:`ServerSettings`, a deadline for
every request to arrive whole, a cap on open connections, and floods logged once per interval.

uvicorn times out a connection only while it is idle between requests (``timeout_keep_alive``,
re-armed by every byte received), so a client that sends half a request, or trickles one, holds
its connection (and a file descriptor) for ever.  :func:`guarded_protocol` is uvicorn's h11
protocol with one more timer: from a connection's opening, and from the first byte of each later
request, the whole request (headers and body) must arrive within ``request_timeout`` seconds, or
the connection is answered 408 and half closed (the rest of its input is read and dropped for
:data:`LINGER` seconds, so the client reads the answer rather than a reset).  A connection past
``max_connections`` is closed at once (uvicorn's ``limit_concurrency`` answers its requests 503
but keeps it open), and so is one from a client address that already holds
``ClientLimits.open_connections`` (:class:`PeerConnections`, counted from the TCP peer over HTTP
connections and the WebSockets upgraded from them): one address re-opening slow connections as
they time out holds that many, never the whole server.
"""

from __future__ import annotations

import asyncio
import gc
import logging
import resource
import time
from collections.abc import Callable
from typing import Any

import h11
import uvicorn
from uvicorn.protocols.http.h11_impl import H11Protocol

from ..base.addresses import Network, is_trusted, network_of, proxy_networks
from ..transport.protocol import MAX_FRAME
from ..transport.wsprotocol import GameWebSocketProtocol
from .settings import ServerSettings

log = logging.getLogger("facedown.serving")

_TIMED_OUT = b"HTTP/1.1 408 Request Timeout\r\ncontent-length: 0\r\nconnection: close\r\n\r\n"
_BUSY = b"HTTP/1.1 503 Service Unavailable\r\ncontent-length: 0\r\nconnection: close\r\n\r\n"
# Seconds a connection answered 408 stays half open, its input read and dropped (nginx's
# lingering close): long enough for the answer to be read, short enough to free the descriptor.
LINGER = 2.0
# States of the client's side in which its request has arrived whole (or never will).
_ARRIVED = frozenset({h11.DONE, h11.MUST_CLOSE, h11.CLOSED, h11.ERROR, h11.SWITCHED_PROTOCOL})


def max_connections(settings: ServerSettings) -> int:
    """The cap on open connections: the setting, else 1000, or fewer when the process may open
    fewer files (the database, the log and the listening socket need some too)."""
    if settings.max_connections is not None:
        return settings.max_connections
    soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft == resource.RLIM_INFINITY:
        return 1000
    return max(16, min(1000, soft - 64))


class PeerConnections:
    """The open connections of each client address, HTTP and WebSocket alike, at most ``cap``.

    Counted by transport (the socket), so a connection upgraded to a WebSocket keeps its place
    until the WebSocket closes.  The address is the TCP peer (an IPv6 peer by its /64, what one
    subscriber is given: :func:`.addresses.network_of`): a trusted proxy (``exempt``) carries
    many clients and is not counted (behind one, the proxy limits its clients' connections)."""

    def __init__(self, cap: int, exempt: Callable[[str], bool] = lambda _: False) -> None:
        self.cap = cap
        self.exempt = exempt
        self.open: dict[str, int] = {}
        self._peers: dict[asyncio.BaseTransport, str] = {}

    def admit(self, transport: asyncio.BaseTransport) -> bool:
        """Count a new connection; False (not counted) when its address already holds ``cap``."""
        peer = transport.get_extra_info("peername")
        host = peer[0] if isinstance(peer, tuple) and peer else None
        if not isinstance(host, str) or self.exempt(host):
            return True
        host = network_of(host)
        held = self.open.get(host, 0)
        if held >= self.cap:
            return False
        self.open[host] = held + 1
        self._peers[transport] = host
        return True

    def release(self, transport: asyncio.BaseTransport) -> None:
        """The connection closed (a second call for the same one does nothing)."""
        host = self._peers.pop(transport, None)
        if host is None:
            return
        left = self.open.get(host, 0) - 1
        if left > 0:
            self.open[host] = left
        else:
            self.open.pop(host, None)


def peer_connections(settings: ServerSettings) -> PeerConnections:
    """The per-address count of ``settings``: behind a proxy, its trusted proxies are exempt."""
    proxies: tuple[Network, ...] = ()
    if settings.behind_proxy:
        proxies = proxy_networks(settings.trusted_proxies)
    return PeerConnections(
        settings.clients.open_connections, lambda host: is_trusted(host, proxies)
    )


def guarded_websocket(peers: PeerConnections) -> type[GameWebSocketProtocol]:
    """The game's WebSocket protocol giving its connection's place back in ``peers`` on close."""

    class GuardedWebSocketProtocol(GameWebSocketProtocol):
        def connection_lost(self, exc: Exception | None) -> None:
            peers.release(self.transport)
            super().connection_lost(exc)

    return GuardedWebSocketProtocol


class GuardedH11Protocol(H11Protocol):
    """uvicorn's h11 protocol with a deadline for each request, a cap on connections and, with
    ``peers``, a cap on the connections of each client address.  What it refuses it logs on
    ``facedown.serving`` (once a minute, see :func:`quiet_floods`).

    uvicorn makes one instance per connection from the class it is given, so the bounds are
    class attributes: :func:`guarded_protocol` makes the subclass that carries them."""

    request_timeout: float = 30.0  # seconds for a whole request to arrive
    max_open: int = 1000  # connections open at once
    peers: PeerConnections | None = None  # the connections of each client address, if capped

    _deadline: asyncio.TimerHandle | None = None
    _lingering: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        refusal = self._refusal(transport)
        if refusal is not None:
            log.warning(*refusal)
            transport.write(_BUSY)
            transport.close()
            return
        self._arm()

    def _refusal(self, transport: asyncio.Transport) -> tuple[str, int] | None:
        """Why the new connection is refused (a log message and its number), or None."""
        if self.peers is not None and not self.peers.admit(transport):
            return (
                "refused a connection from one address: it holds %d, the most allowed",
                self.peers.cap,
            )
        if len(self.connections) > self.max_open:
            return "refused a connection: %d are open, the most allowed", self.max_open
        return None

    def data_received(self, data: bytes) -> None:
        if self._lingering is not None:
            return  # answered 408 and half closed: what still arrives is read and dropped
        if self._deadline is None and self.conn.their_state is h11.IDLE:
            self._arm()  # the first byte of a new request on a kept-alive connection
        super().data_received(data)
        if self.conn.their_state in _ARRIVED or (
            self.conn.their_state is h11.IDLE and not self.conn.trailing_data[0]
        ):
            self._disarm()

    def handle_websocket_upgrade(self, event: h11.Request) -> None:
        self._disarm()  # the WebSocket has its own deadlines (the hello, the pings)
        super().handle_websocket_upgrade(event)

    def connection_lost(self, exc: Exception | None) -> None:
        if self.peers is not None:
            self.peers.release(self.transport)
        self._disarm()
        if self._lingering is not None:
            self._lingering.cancel()
        super().connection_lost(exc)

    def _arm(self) -> None:
        self._disarm()
        self._deadline = self.loop.call_later(self.request_timeout, self._too_slow)

    def _disarm(self) -> None:
        if self._deadline is not None:
            self._deadline.cancel()
            self._deadline = None

    def _too_slow(self) -> None:
        self._deadline = None
        if self.transport.is_closing():
            return
        log.warning("closed a connection that sent no whole request in %s s", self.request_timeout)
        waiting = self.conn.our_state is h11.SEND_RESPONSE and not self.cycle.response_started
        if not (self.conn.our_state is h11.IDLE or waiting) or not self.transport.can_write_eof():
            self.transport.close()  # an answer has begun: it cannot be followed by a 408
            return
        # Say why it ends, then close only our side and drop what still arrives for a moment:
        # closing at once while the client is still sending makes the kernel answer its next
        # bytes with a reset, and a reset can throw away the 408 before the client reads it.
        self.transport.write(_TIMED_OUT)
        self.transport.write_eof()
        self._lingering = self.loop.call_later(LINGER, self.transport.close)


def guarded_protocol(
    request_timeout: float, connections: int, peers: PeerConnections | None = None
) -> type[GuardedH11Protocol]:
    """:class:`GuardedH11Protocol` with these bounds: ``request_timeout`` seconds for each
    request, ``connections`` open at once, and ``peers`` counting each address's connections."""
    bounds = {"request_timeout": request_timeout, "max_open": connections, "peers": peers}
    return type("GuardedH11Protocol", (GuardedH11Protocol,), bounds)


class OncePerInterval(logging.Filter):
    """Lets one record of a kind through per ``interval`` seconds (a kind: the logger and the
    first line of the message, digits aside), and says on the next how many it held back: a
    flood (say, accept() failing for want of file descriptors) is a line a minute, not
    hundreds of thousands of tracebacks."""

    def __init__(self, interval: float, clock: Callable[[], float] = time.monotonic) -> None:
        super().__init__()
        self.interval = interval
        self.clock = clock
        self.seen: dict[tuple[str, str], tuple[float, int]] = {}

    def filter(self, record: logging.LogRecord) -> bool:
        first = str(record.msg).split("\n", 1)[0][:80]
        kind = (record.name, "".join(c for c in first if not c.isdigit()))
        now = self.clock()
        last = self.seen.get(kind)
        if last is not None and now - last[0] < self.interval:
            self.seen[kind] = (last[0], last[1] + 1)
            return False
        if len(self.seen) > 1000:
            self.seen.clear()  # many kinds: forget the old ones rather than grow
        held = last[1] if last is not None else 0
        self.seen[kind] = (now, 0)
        if held:
            record.msg = f"{record.msg} ({held} more like this not logged)"
        return True


FLOODED_LOGGERS = ("asyncio", "uvicorn.error", "facedown.serving")


def quiet_floods(interval: float) -> None:
    """Log each kind of asyncio and uvicorn error at most once per ``interval`` seconds."""
    for name in FLOODED_LOGGERS:
        logger = logging.getLogger(name)
        if not any(isinstance(f, OncePerInterval) for f in logger.filters):
            logger.addFilter(OncePerInterval(interval))


GC_LOG = logging.getLogger("facedown.gc")
GC_SLOW = 0.02  # seconds: a cyclic collection this long or longer is logged


def log_slow_collections(slow: float = GC_SLOW) -> Callable[[str, dict[str, int]], None]:
    """Log every cyclic garbage collection that takes ``slow`` seconds or more (it stalls every
    table of the process at once: a latency tail); returns the callback it installed."""
    started = [0.0]

    def callback(phase: str, info: dict[str, int]) -> None:
        now = time.perf_counter()
        if phase == "start":
            started[0] = now
            return
        took = now - started[0]
        if took >= slow:
            GC_LOG.warning(
                "a garbage collection of generation %d took %.0f ms (%d objects collected)",
                info.get("generation", -1),
                took * 1000,
                info.get("collected", 0),
            )

    gc.callbacks.append(callback)
    return callback


def uvicorn_config(app: Any, settings: ServerSettings, **options: Any) -> uvicorn.Config:
    """uvicorn's configuration for this app: the limits and timeouts from ``settings``."""
    cap = max_connections(settings)
    peers = peer_connections(settings)
    config = uvicorn.Config(
        app,
        http=guarded_protocol(settings.request_timeout, cap, peers),
        limit_concurrency=cap + 1,  # the guard closes extra connections before uvicorn counts
        timeout_keep_alive=settings.keep_alive_timeout,
        h11_max_incomplete_event_size=settings.max_header_bytes,
        # Frames a little over the protocol's limit still get a clear error; far larger ones
        # are cut off by the WebSocket layer.  No per-message compression: the frames are
        # small, and zlib costs CPU and ~50 kB of memory per connection.
        ws_max_size=MAX_FRAME * 8,
        # The WebSocket on websockets' sans-I/O protocol: a frame received is parsed in the
        # transport's callback and queued for the app, a frame sent is written at once (the
        # older implementation reads through a task and stream of its own and awaits a drain
        # on every send); with the game's short paths (server/transport/wsprotocol.py).
        ws=guarded_websocket(peers),  # GameWebSocketProtocol, its connection counted
        ws_per_message_deflate=False,
        # Who the client is: decided in one place (server/base/addresses.py, ServerSettings.
        # behind_proxy), not also by uvicorn trusting X-Forwarded-For from 127.0.0.1.
        proxy_headers=False,
        **options,
    )
    quiet_floods(settings.flood_log_interval)  # after uvicorn configured its loggers
    return config
