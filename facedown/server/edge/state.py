"""What the HTTP routes and the WebSocket share: the settings, the session tokens, the lobby."""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol, TypedDict

from ..accounts.auth import Guest, Tokens
from ..base.addresses import Limits, Network, client_address, proxy_networks
from ..base.errors import TableError
from ..base.metrics import Metrics
from ..play.lobby import Elsewhere, Lobby
from ..play.table import Table
from ..transport.protocol import TableInfo
from .seatsessions import SessionSockets
from .settings import ServerSettings

if TYPE_CHECKING:
    from ..accounts.accounts import Accounts
    from ..accounts.history import History
    from ..accounts.notify import Notifier
    from ..cluster.cluster import Node
    from ..play.ranked import Ranked
    from .connection import Connection

AnyTable = Table | Elsewhere  # a table of this process, or one another process owns


class RelayError(TypedDict):
    code: str
    message: str


class RelayReply(TypedDict, total=False):
    """A table owner's answer to a call of another process (:meth:`Relaying.call`), as it
    comes over Redis: a refusal, or the table's facts (``info``: a :class:`TableInfo`'s JSON,
    validated where it is used) and match number, and the seat a ``join`` took."""

    error: RelayError
    info: object
    match: int
    seat: int


class Relaying(Protocol):
    """What the routes and the WebSocket ask of the cluster's relays (:class:`.relay.Relays`,
    which implements it): declared here, so the shared state needs nothing of the relay module,
    which needs the shared state."""

    def attach(self, conn: Connection, elsewhere: Elsewhere, hello: str | bytes) -> None: ...

    def forward(self, conn: Connection, raw: str | bytes) -> None: ...

    def detach(self, conn: Connection) -> None: ...

    async def call(self, elsewhere: Elsewhere, fn: str, **args: str) -> RelayReply: ...

    async def close(self) -> None: ...


@dataclass
class ServerState:
    settings: ServerSettings
    tokens: Tokens
    live_lobby: Lobby | None = None  # set while the app runs (its lifespan)
    accounts: Accounts | None = None  # set while the app runs, as the lobby
    history: History | None = None
    ranked: Ranked | None = None  # set while the app runs, as the lobby
    notifier: Notifier | None = None
    node: Node | None = None  # in a cluster: this process on Redis (server/cluster/cluster.py)
    relays: Relaying | None = None  # in a cluster: clients relayed to and from other processes
    limits: Limits = field(init=False)
    metrics: Metrics = field(default_factory=Metrics)
    # The connections an account session opened, closed when it ends (seatsessions.py).
    seat_sessions: SessionSockets = field(init=False)

    proxies: tuple[Network, ...] = field(init=False)

    def __post_init__(self) -> None:
        self.limits = Limits(self.settings.clients)
        self.proxies = proxy_networks(self.settings.trusted_proxies)
        self.seat_sessions = SessionSockets(self._live_among)

    async def _live_among(self, sessions: Collection[str]) -> dict[str, str]:
        return await self.accounts_().live_among(sessions)

    def address(self, peer: str | None, headers: Mapping[str, str]) -> str:
        """The client address a request or connection is counted against."""
        return client_address(peer, headers, self.settings.behind_proxy, self.proxies)

    def accounts_(self) -> Accounts:
        if self.accounts is None:
            raise RuntimeError("the app is not running")
        return self.accounts

    def ranked_(self) -> Ranked:
        if self.ranked is None:
            raise RuntimeError("the app is not running")
        return self.ranked

    def lobby(self) -> Lobby:
        if self.live_lobby is None:
            raise RuntimeError("the app is not running")
        return self.live_lobby

    async def find(self, code: str, address: str) -> AnyTable:
        """The table with this code (in a cluster, maybe one another process owns).  Lookups of
        codes that name no table count against the address: once it has used them up,
        TableError ``rate_limited`` (nothing is looked up)."""
        lookups = self.limits.lookups
        if lookups.exhausted(address):
            raise TableError("rate_limited", "too many unknown table codes from your address")
        try:
            return await self.lobby().locate(code)
        except TableError as e:
            if e.code == "unknown_table":
                lookups.charge(address)
            raise

    async def table_info(self, table: AnyTable) -> tuple[TableInfo, int]:
        """The table's public facts and its match number, from its owner."""
        if isinstance(table, Table):
            return TableInfo.model_validate(table.table_info()), table.match_no
        result = await self._relays().call(table, "info")
        return TableInfo.model_validate(result["info"]), int(result["match"])

    async def join(self, table: AnyTable, player_id: str, name: str) -> tuple[int, TableInfo]:
        """Seat a player at the table, wherever it is owned: the seat and the table's facts."""
        if isinstance(table, Table):
            seat = await table.join(player_id, name)
            return seat, TableInfo.model_validate(table.table_info())
        result = await self._relays().call(table, "join", player_id=player_id, name=name)
        return int(result["seat"]), TableInfo.model_validate(result["info"])

    def _relays(self) -> Relaying:
        if self.relays is None:  # never: only a cluster has tables elsewhere
            raise RuntimeError("a table of another process without a cluster")
        return self.relays

    @staticmethod
    def bearer(authorization: str | None) -> str | None:
        """The token of an ``Authorization: Bearer <token>`` header."""
        if authorization and authorization.lower().startswith("bearer "):
            return authorization[7:].strip()
        return None

    async def guest_from(
        self, authorization: str | None, table_id: str | None = None
    ) -> Guest | None:
        """The holder of an ``Authorization: Bearer <token>`` header, if its token may be used
        at the table ``table_id`` (None: as a guest's identity for a new seat); see
        :meth:`Accounts.seat_holder`."""
        return await self.accounts_().seat_holder(self.bearer(authorization), table_id)

    def link(self, code: str) -> str:
        return f"{self.settings.public_url}/t/{code}"
