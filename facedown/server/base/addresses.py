"""Limits per client address: what one address may do, summed over all of its connections.

The per-connection limits (:class:`~facedown.server.edge.connection.RateLimit`) do not stop one
machine that opens many connections, creates tables by the thousand or guesses codes.  Here each
client address has token buckets for table creation, joins, lookups of codes that name no table
(HTTP and WebSocket hello; scoreboard keys that name no board too), scoreboards created and
edited, and WebSocket frames (all its connections together), and a cap on its
open WebSocket connections; each table has a cap on its spectators.  An IPv6 address is
counted as its /64 everywhere (:func:`network_of`): a subscriber usually holds a whole /64, and
would otherwise get a fresh bucket for every address in it.

The address is the peer of the TCP connection.  ``X-Forwarded-For`` is read only when the server
is told it is behind a proxy (``ServerSettings.behind_proxy``) and only on a connection whose peer
is one of the proxies it names (``ServerSettings.trusted_proxies``): then the client is the last
address in it that is not itself a trusted proxy, the one the outermost of them added (anyone can
send the header; only the proxies' own entries can be trusted).  From any other peer the header
is ignored, and :func:`from_trusted_proxy` tells the other forwarded headers' readers the same.
"""

from __future__ import annotations

import functools
import ipaddress
import time
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass, field

from starlette.datastructures import Headers

Now = Callable[[], float]


@dataclass(frozen=True)
class Rate:
    """``per_second`` on average, ``burst`` at once."""

    per_second: float
    burst: float


@dataclass(frozen=True)
class ClientLimits:
    """Per-address and per-table limits (the defaults let a household share one address)."""

    creates: Rate = Rate(1 / 60, 20)  # tables created: 20 at once, then one a minute
    joins: Rate = Rate(0.5, 30)  # seats taken over HTTP
    lookups: Rate = Rate(1 / 3, 20)  # lookups of codes that name no table (HTTP and hello)
    replays: Rate = Rate(2.0, 120)  # replay requests (a page of steps, an export, a link)
    frames: Rate = Rate(60.0, 120.0)  # WebSocket frames, over all of an address's connections
    boards: Rate = Rate(1 / 60, 20)  # scoreboards created
    board_edits: Rate = Rate(1.0, 60)  # rounds added, edited or undone
    rotations: Rate = Rate(1 / 10, 20)  # seat tokens rotated (each a write to the store)
    connections: int = 16  # open WebSocket connections per address
    # Open TCP connections per address, HTTP and WebSocket (server/edge/serving.py): more are closed
    # at once, before they reach the app.  Not the proxy's own, behind one.
    open_connections: int = 32
    spectators: int = 50  # spectators per table
    spectator_idle: float = 600.0  # seconds a spectator may send nothing (pings count) before close
    # Accounts (server/accounts/accounts.py): sign-in attempts per address (an IPv6 address counted
    # as its /64) and per account name from one address (known or not: an unknown name is limited
    # like a real one), and accounts made per address.
    signins: Rate = Rate(1 / 10, 20)
    account_signins: Rate = Rate(1 / 60, 10)
    signups: Rate = Rate(1 / 120, 5)


Network = ipaddress.IPv4Network | ipaddress.IPv6Network
LOOPBACK = ("127.0.0.1", "::1")  # the proxies trusted by default: one on the same machine


def proxy_networks(entries: Collection[str]) -> tuple[Network, ...]:
    """The trusted proxies from their addresses or networks (``10.0.0.5``, ``10.0.0.0/24``);
    ValueError names an entry that is neither."""
    networks = []
    for entry in entries:
        try:
            networks.append(ipaddress.ip_network(entry.strip(), strict=False))
        except ValueError:
            raise ValueError(f"not an address or network: {entry!r}") from None
    return tuple(networks)


def is_trusted(address: str | None, proxies: Collection[Network]) -> bool:
    """``address`` is one of ``proxies`` (anything that is not an IP address is not)."""
    if not address or not proxies:
        return False
    try:
        ip = ipaddress.ip_address(address.strip())
    except ValueError:
        return False
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    return any(ip.version == net.version and ip in net for net in proxies)


def from_trusted_proxy(peer: str | None, behind_proxy: bool, proxies: Collection[Network]) -> bool:
    """Whether the forwarded headers of a connection from ``peer`` are to be believed."""
    return behind_proxy and is_trusted(peer, proxies)


def client_address(
    peer: str | None,
    headers: Headers | Mapping[str, str],
    behind_proxy: bool,
    proxies: Collection[Network] = (),
) -> str:
    """Whom to count a request against (see the module docstring)."""
    if from_trusted_proxy(peer, behind_proxy, proxies):
        # Every line of the header, in order: a proxy that adds a line of its own (HAProxy's
        # ``option forwardfor``) puts it after the lines the client sent, so the first line
        # alone would be the client's word.
        lines = (
            headers.getlist("x-forwarded-for")
            if isinstance(headers, Headers)
            else [headers.get("x-forwarded-for", "")]
        )
        forwarded = [part.strip() for part in ",".join(lines).split(",")]
        for hop in reversed(forwarded):
            if not hop:
                break
            if not is_trusted(hop, proxies):
                return hop
    return peer or "unknown"


@dataclass
class _Bucket:
    tokens: float
    stamp: float


@dataclass
class AddressLimiter:
    """A token bucket per address holder (:func:`network_of`: an IPv6 address counts as its
    /64, so one subscriber's many addresses share a bucket); buckets that have refilled are
    forgotten now and then."""

    rate: Rate
    now: Now = time.monotonic
    prune_every: int = 4096  # checks between sweeps of the full buckets
    _buckets: dict[str, _Bucket] = field(default_factory=dict)
    _checks: int = 0

    def _bucket(self, address: str) -> _Bucket:
        address = network_of(address)
        now = self.now()
        self._checks += 1
        if self._checks >= self.prune_every:
            self._prune(now)
        bucket = self._buckets.get(address)
        if bucket is None:
            bucket = self._buckets[address] = _Bucket(self.rate.burst, now)
        else:
            refill = (now - bucket.stamp) * self.rate.per_second
            bucket.tokens = min(self.rate.burst, bucket.tokens + refill)
            bucket.stamp = now
        return bucket

    def allow(self, address: str) -> bool:
        """Take one token; False (nothing taken) when the address has none left."""
        bucket = self._bucket(address)
        if bucket.tokens >= 1.0:
            bucket.tokens -= 1.0
            return True
        return False

    def exhausted(self, address: str) -> bool:
        """The address has no token left (nothing is taken)."""
        return self._bucket(address).tokens < 1.0

    def charge(self, address: str) -> None:
        """Take a token for something already done (a miss), down to none."""
        bucket = self._bucket(address)
        bucket.tokens = max(0.0, bucket.tokens - 1.0)

    def refund(self, address: str) -> None:
        """Give back a token :meth:`allow` took for something that was then refused (up to the
        burst): only what is done counts against the address."""
        bucket = self._bucket(address)
        bucket.tokens = min(self.rate.burst, bucket.tokens + 1.0)

    def _prune(self, now: float) -> None:
        self._checks = 0
        rate, burst = self.rate.per_second, self.rate.burst
        full = [
            address
            for address, b in self._buckets.items()
            if b.tokens + (now - b.stamp) * rate >= burst
        ]
        for address in full:
            del self._buckets[address]

    def __len__(self) -> int:
        return len(self._buckets)


class Limits:
    """The limiters and counters of one server."""

    def __init__(self, limits: ClientLimits, now: Now = time.monotonic) -> None:
        self.config = limits
        self.creates = AddressLimiter(limits.creates, now)
        self.joins = AddressLimiter(limits.joins, now)
        self.lookups = AddressLimiter(limits.lookups, now)
        self.replays = AddressLimiter(limits.replays, now)
        self.frames = AddressLimiter(limits.frames, now)
        self.signins = AddressLimiter(limits.signins, now)
        self.account_signins = AddressLimiter(limits.account_signins, now)  # by address and name
        self.signups = AddressLimiter(limits.signups, now)
        self.boards = AddressLimiter(limits.boards, now)
        self.board_edits = AddressLimiter(limits.board_edits, now)
        self.rotations = AddressLimiter(limits.rotations, now)
        self.connections: dict[str, int] = {}  # address -> open WebSocket connections
        self.spectators: dict[str, int] = {}  # table id -> spectator connections

    def connect(self, address: str) -> bool:
        """Count a new WebSocket connection; False (not counted) when the address's holder
        (:func:`network_of`) is at its cap."""
        address = network_of(address)
        if self.connections.get(address, 0) >= self.config.connections:
            return False
        self.connections[address] = self.connections.get(address, 0) + 1
        return True

    def disconnect(self, address: str) -> None:
        address = network_of(address)
        left = self.connections.get(address, 0) - 1
        if left > 0:
            self.connections[address] = left
        else:
            self.connections.pop(address, None)

    def watch(self, table_id: str) -> bool:
        """Count a new spectator of a table; False when the table has as many as it may."""
        if self.spectators.get(table_id, 0) >= self.config.spectators:
            return False
        self.spectators[table_id] = self.spectators.get(table_id, 0) + 1
        return True

    def unwatch(self, table_id: str) -> None:
        left = self.spectators.get(table_id, 0) - 1
        if left > 0:
            self.spectators[table_id] = left
        else:
            self.spectators.pop(table_id, None)


@functools.lru_cache(maxsize=4096)
def network_of(address: str) -> str:
    """What an address is counted as wherever one holder of many addresses must not get many
    buckets (every limit per address): an IPv6 address as its /64 (what one subscriber usually
    gets), any other address as itself; a /64 as itself (so applying it twice changes
    nothing)."""
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return address
    if isinstance(ip, ipaddress.IPv6Address):
        if ip.ipv4_mapped is not None:
            return str(ip.ipv4_mapped)
        return str(ipaddress.IPv6Network((ip, 64), strict=False))
    return str(ip)
